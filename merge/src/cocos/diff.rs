//! `assetvc diff` of two Cocos object graphs: the objects matched by identity (as the
//! merge matches them, so renumbered `{"__id__": n}` are no change), each change one
//! line with its object named by node path (`Canvas/Menu/Start<cc.Label>._string: 1 → 2`,
//! `+ Canvas/Menu/Options: {…}`) and references shown as `@` and the object's name.

use rustc_hash::FxHashMap;
use sjson::{Dialect, Document, ParseOptions};

use super::tree::J;
use super::{is_cocos, names, Tokens, KEY, REF};
use crate::diff::{diff, DiffOptions};

/// One line per change from `old` to `new`, when both are Cocos object graphs
/// ([`is_cocos`]); `None` otherwise. Lines are safe to show on a terminal.
pub fn diff_lines(old: &Document, new: &Document, options: &DiffOptions) -> Option<Vec<String>> {
    if !(is_cocos(old) && is_cocos(new)) {
        return None;
    }
    let mut tokens = Tokens::default();
    let [ko, kn] = [old, new].map(|d| tokens.keyed(&super::elements(d)));
    let parse = |els: Vec<J>| {
        Document::parse_with(J::Arr(els).compact(), ParseOptions::new(Dialect::Json)).ok()
    };
    let (names_old, names_new) = (object_names(old, &ko), object_names(new, &kn));
    let (ko, kn) = (parse(ko)?, parse(kn)?);
    let keyed = DiffOptions {
        id_keys: vec![KEY.to_string(), REF.to_string()],
        atomic_max: options.atomic_max,
    };
    let d = diff(ko.root(), kn.root(), &keyed);
    let name = |token: &str| {
        names_new
            .get(token)
            .or_else(|| names_old.get(token))
            .cloned()
            .unwrap_or_else(|| token.to_string())
    };
    let lines = d
        .changes
        .iter()
        .map(|c| sjson::string::terminal_safe(&named(&c.text(), &name)).into_owned())
        .collect();
    Some(lines)
}

/// Each object's name for people ([`names::object_name`]) by its token in `keyed`.
fn object_names(doc: &Document, keyed: &[J]) -> FxHashMap<String, String> {
    keyed
        .iter()
        .enumerate()
        .filter_map(|(i, el)| {
            let token = el.get(KEY)?.as_str()?.to_string();
            let name = names::object_name(doc.root(), i)
                .unwrap_or_else(|| el.str_member("__type__").unwrap_or("?").to_string());
            Some((token, name))
        })
        .collect()
}

/// `text` with the keyed form's tokens replaced by names: `[__key__=o5]` and
/// `[__ref__=o5]` steps by the object's name, `{__ref__ = "o5"}` by `@` and the name, and
/// the `__key__ = "o5", ` member of an object's summary left out.
fn named(text: &str, name: &impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let patterns: [(&str, &str, bool); 4] = [
        ("[__key__=", "]", false),
        ("[__ref__=", "]", true),
        ("{__ref__ = \"", "\"}", true),
        ("__key__ = \"", "\", ", false),
    ];
    'scan: while !rest.is_empty() {
        for (i, (open, close, _)) in patterns.iter().enumerate() {
            let Some(after) = rest.strip_prefix(open) else {
                continue;
            };
            let Some(end) = after.find(close) else {
                continue;
            };
            let token = &after[..end];
            match i {
                0 => out.push_str(&name(token)),
                1 => {
                    let _ = std::fmt::Write::write_fmt(&mut out, format_args!("[{}]", name(token)));
                }
                2 => {
                    out.push('@');
                    out.push_str(&name(token));
                }
                _ => {}
            }
            rest = &after[end + close.len()..];
            // A path's first step is an object: its members follow with a `.`.
            continue 'scan;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}
