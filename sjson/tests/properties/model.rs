//! What a document means (the model values are compared by), and strategies for it.

use proptest::prelude::*;

use sjson::{Kind, NumberValue, Value};

// ---------------------------------------------------------------------------------------
// The model: what a document means.

#[derive(Debug, Clone)]
pub(crate) enum M {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<M>),
    Obj(Vec<(String, M)>),
    /// An integer beyond i128 (never generated; read from mutated texts).
    Big(String),
}

impl PartialEq for M {
    /// Exact: floats by bits (so `-0.0` differs from `0.0`), objects in order.
    fn eq(&self, other: &M) -> bool {
        match (self, other) {
            (M::Null, M::Null) => true,
            (M::Bool(a), M::Bool(b)) => a == b,
            (M::Int(a), M::Int(b)) => a == b,
            (M::Float(a), M::Float(b)) => a.to_bits() == b.to_bits(),
            (M::Str(a), M::Str(b)) => a == b,
            (M::Arr(a), M::Arr(b)) => a == b,
            (M::Obj(a), M::Obj(b)) => a == b,
            (M::Big(a), M::Big(b)) => a == b,
            _ => false,
        }
    }
}

impl M {
    /// The same value with every object's keys sorted (as serde_json's map orders them).
    pub(crate) fn sorted(&self) -> M {
        match self {
            M::Arr(items) => M::Arr(items.iter().map(M::sorted).collect()),
            M::Obj(members) => {
                let mut m: Vec<_> = members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.sorted()))
                    .collect();
                m.sort_by(|a, b| a.0.cmp(&b.0));
                M::Obj(m)
            }
            other => other.clone(),
        }
    }

    /// The value as serde_json's, if its integers fit serde_json's numbers.
    pub(crate) fn to_serde(&self) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match self {
            M::Null => J::Null,
            M::Bool(b) => J::Bool(*b),
            M::Int(i) => {
                if let Ok(i) = i64::try_from(*i) {
                    J::from(i)
                } else {
                    J::from(u64::try_from(*i).ok()?)
                }
            }
            M::Float(f) => J::Number(serde_json::Number::from_f64(*f)?),
            M::Str(s) => J::String(s.clone()),
            M::Arr(items) => J::Array(items.iter().map(M::to_serde).collect::<Option<_>>()?),
            M::Obj(members) => J::Object(
                members
                    .iter()
                    .map(|(k, v)| Some((k.clone(), v.to_serde()?)))
                    .collect::<Option<_>>()?,
            ),
            M::Big(_) => return None,
        })
    }
}

/// What a parsed value means, exactly.
pub(crate) fn model_of(v: Value<'_>) -> M {
    match v.kind() {
        Kind::Null => M::Null,
        Kind::Bool => M::Bool(v.as_bool().unwrap()),
        Kind::Number => match v.as_number().unwrap() {
            NumberValue::Int(i) => M::Int(i),
            NumberValue::Float(f) => M::Float(f),
            NumberValue::Big(s) => M::Big(s),
        },
        Kind::String => M::Str(v.as_str().expect("validated escapes").into_owned()),
        Kind::Array => M::Arr(v.children().map(model_of).collect()),
        Kind::Object => M::Obj(
            v.children()
                .map(|c| {
                    (
                        c.key().expect("members have keys").into_owned(),
                        model_of(c),
                    )
                })
                .collect(),
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Strategies.

pub(crate) fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => any::<u64>().prop_map(f64::from_bits),
        // Subnormals of either sign.
        1 => (1u64..(1 << 52), any::<bool>())
            .prop_map(|(m, neg)| f64::from_bits(m | (u64::from(neg) << 63))),
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            5e-324,
            -5e-324,
            1e300,
            0.1,
            1.0,
            -1.0,
            1e16,
            9007199254740993.0,
            1.7e38,
            123456789.125,
        ]),
        2 => any::<f32>().prop_map(f64::from),
        2 => -1e6..1e6f64,
    ]
    .prop_filter("finite", |f| f.is_finite())
}

pub(crate) fn int() -> impl Strategy<Value = i128> {
    let two53 = 1i128 << 53;
    prop_oneof![
        3 => -1000i128..1000,
        2 => any::<i64>().prop_map(i128::from),
        1 => any::<u64>().prop_map(i128::from),
        2 => any::<i128>(),
        1 => (two53 - 3..two53 + 3, any::<bool>()).prop_map(|(i, neg)| if neg { -i } else { i }),
        1 => prop::sample::select(vec![
            i64::MIN.into(),
            i64::MAX.into(),
            u64::MAX.into(),
            i128::MIN,
            i128::MAX,
            i128::MAX - 1,
            0,
        ]),
    ]
}

pub(crate) fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        6 => prop::char::range('a', 'z'),
        3 => prop::sample::select(vec![
            '"', '\\', '/', '*', '\t', '\n', '\r', '\u{0}', '\u{8}', '\u{c}', '\u{1f}', '\u{7f}',
            ' ', '=', ':', ',', '{', '}', '[', ']', '#', '-', '.', '0', '9', 'e', 'é', '€', '😀',
            '\u{FEFF}', '\u{a0}', '\u{2028}', '\u{ffff}',
        ]),
        1 => any::<char>(),
    ];
    prop::collection::vec(ch, 0..8).prop_map(|v| v.into_iter().collect())
}

pub(crate) fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z_][a-z0-9_]{0,6}",
        3 => text(),
        1 => prop::sample::select(vec![
            "*".to_string(),
            "source-templates".into(),
            "#4d2c5ef0-1e1b".into(),
            "1E7C6F15".into(),
            "true".into(),
            "12".into(),
            "a/b".into(),
            "x/".into(),
        ]),
    ]
}

pub(crate) fn leaf() -> impl Strategy<Value = M> {
    prop_oneof![
        1 => Just(M::Null),
        1 => any::<bool>().prop_map(M::Bool),
        3 => int().prop_map(M::Int),
        3 => finite_f64().prop_map(M::Float),
        4 => text().prop_map(M::Str),
    ]
}

pub(crate) fn object_of(inner: impl Strategy<Value = M>) -> impl Strategy<Value = M> {
    prop::collection::vec((key(), inner), 0..6).prop_map(|members| {
        let mut seen = std::collections::HashSet::new();
        M::Obj(
            members
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect(),
        )
    })
}

pub(crate) fn value() -> impl Strategy<Value = M> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(M::Arr),
            object_of(inner),
        ]
    })
}

pub(crate) fn sjson_root() -> impl Strategy<Value = M> {
    object_of(value())
}
