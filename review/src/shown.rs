//! Values as the page shows them: numbers as written, vectors as components, strings
//! unquoted, everything else summarised on one line.

use sjson::{Kind, Value};

use crate::model::Shown;

/// All-number arrays up to this length are shown as vectors.
const VECTOR_MAX: usize = 16;
/// Strings and summaries longer than this many characters are cut.
const TEXT_MAX: usize = 160;

fn cut(s: &str) -> String {
    if s.chars().count() <= TEXT_MAX {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(TEXT_MAX - 1).collect();
        out.push('…');
        out
    }
}

impl Shown {
    /// A document's value.
    pub fn of(v: Value<'_>) -> Shown {
        match v.kind() {
            Kind::Null | Kind::Bool | Kind::Number => Shown::Scalar(v.text().to_string()),
            Kind::String => Shown::Text(cut(&v.as_str().unwrap_or_default())),
            Kind::Array
                if !v.is_empty()
                    && v.len() <= VECTOR_MAX
                    && v.children().all(|c| c.kind() == Kind::Number) =>
            {
                Shown::Vector(v.children().map(|c| c.text().to_string()).collect())
            }
            _ => Shown::Other(cut(&merge::diff::summary(v))),
        }
    }

    /// A value of a JSON report (`null` stays a value; use [`Shown::Absent`] for none).
    pub fn of_json(v: &serde_json::Value) -> Shown {
        use serde_json::Value as J;
        match v {
            J::Null | J::Bool(_) | J::Number(_) => Shown::Scalar(v.to_string()),
            J::String(s) => Shown::Text(cut(s)),
            J::Array(items)
                if !items.is_empty()
                    && items.len() <= VECTOR_MAX
                    && items.iter().all(J::is_number) =>
            {
                Shown::Vector(items.iter().map(J::to_string).collect())
            }
            other => Shown::Other(cut(&other.to_string())),
        }
    }

    /// A field of a JSON report: missing or `null` (a deleted side) is absent.
    pub fn of_report_field(v: Option<&serde_json::Value>) -> Shown {
        match v {
            None | Some(serde_json::Value::Null) => Shown::Absent,
            Some(v) => Shown::of_json(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_keep_their_lexemes_and_strings_lose_their_quotes() {
        let doc = sjson::Document::parse(
            "p = [1.0 2.50 -3]\ns = \"lamp\"\nn = 1E-05\no = {a = 1}\n",
            sjson::Dialect::Sjson,
        )
        .unwrap();
        let get = |k: &str| Shown::of(doc.root().get(k).unwrap());
        assert_eq!(
            get("p"),
            Shown::Vector(vec!["1.0".into(), "2.50".into(), "-3".into()])
        );
        assert_eq!(get("s"), Shown::Text("lamp".into()));
        assert_eq!(get("n"), Shown::Scalar("1E-05".into()));
        assert!(matches!(get("o"), Shown::Other(_)));
        let j: serde_json::Value = serde_json::json!([0, 1.5, 2]);
        assert_eq!(
            Shown::of_json(&j),
            Shown::Vector(vec!["0".into(), "1.5".into(), "2".into()])
        );
        assert_eq!(Shown::of_report_field(None), Shown::Absent);
        assert_eq!(
            Shown::of_report_field(Some(&serde_json::json!("x"))),
            Shown::Text("x".into())
        );
    }
}
