//! Text for people: paths (`entities[id=f341].position`) and one-line value summaries.

use std::borrow::Cow;
use std::fmt::Write as _;

use sjson::{Kind, Value};

use crate::report_path::is_simple_key;

/// The widest one-line summary of a value, in characters.
const SUMMARY_WIDTH: usize = 64;

/// A one-line summary of a value: scalars as written (strings quoted, long ones cut),
/// short all-number arrays whole (`[0 0 1]`), objects by their most telling members
/// (`{name = "lamp", unit = "units/lamp", …}`; id members left out), other arrays by size.
pub fn summary(v: Value<'_>) -> String {
    let mut out = String::new();
    write_summary(v, &mut out, SUMMARY_WIDTH, true);
    out
}

/// Members shown first in an object's summary (case-insensitive).
const TELLING_KEYS: [&str; 6] = ["name", "unit", "type", "title", "class", "resource"];
/// Members left out of an object's summary: its identity is in the path already.
const ID_KEYS: [&str; 5] = ["id", "_id", "guid", "_guid", "uuid"];

fn write_summary(v: Value<'_>, out: &mut String, width: usize, top: bool) {
    match v.kind() {
        Kind::Null | Kind::Bool | Kind::Number => out.push_str(v.text()),
        Kind::String => {
            let s = v.as_str().unwrap_or_default();
            let max = width.clamp(8, 48);
            if s.chars().count() > max {
                let cut: String = s.chars().take(max - 1).collect();
                sjson::string::write_quoted(out, &format!("{cut}…"));
            } else {
                sjson::string::write_quoted(out, &s);
            }
        }
        Kind::Array => {
            if v.is_empty() {
                out.push_str("[]");
                return;
            }
            if v.children().all(|c| c.kind() == Kind::Number) && v.len() <= 16 {
                let start = out.len();
                out.push('[');
                for (i, c) in v.children().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    if out.len() - start + c.text().len() > width.max(24) {
                        out.push('…');
                        break;
                    }
                    out.push_str(c.text());
                }
                out.push(']');
                return;
            }
            let _ = write!(
                out,
                "[… {} item{}]",
                v.len(),
                if v.len() == 1 { "" } else { "s" }
            );
        }
        Kind::Object => {
            if v.is_empty() {
                out.push_str("{}");
                return;
            }
            if !top {
                out.push_str("{…}");
                return;
            }
            let mut members: Vec<(Cow<'_, str>, Value<'_>)> = v
                .members()
                .filter(|(k, _)| !ID_KEYS.iter().any(|id| k.eq_ignore_ascii_case(id)))
                .collect();
            let rank = |k: &str| {
                TELLING_KEYS
                    .iter()
                    .position(|t| k.eq_ignore_ascii_case(t))
                    .unwrap_or(TELLING_KEYS.len())
            };
            members.sort_by_key(|(k, _)| rank(k));
            let start = out.len();
            out.push('{');
            let mut shown = 0;
            for (k, c) in &members {
                let mut item = String::new();
                if is_simple_key(k) {
                    item.push_str(k);
                } else {
                    sjson::string::write_quoted(&mut item, k);
                }
                item.push_str(" = ");
                write_summary(*c, &mut item, 40, false);
                let used = out[start..].chars().count();
                if shown > 0 && used + item.chars().count() + 2 > width {
                    break;
                }
                if shown > 0 {
                    out.push_str(", ");
                }
                out.push_str(&item);
                shown += 1;
            }
            if shown < members.len() {
                out.push_str(if shown > 0 { ", …" } else { "…" });
            }
            out.push('}');
        }
    }
}
