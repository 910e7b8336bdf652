//! Decoding and encoding of string lexemes.

use std::borrow::Cow;

/// How a string or key is written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quoting {
    /// `"…"` with JSON escapes.
    Quoted,
    /// `"""…"""`, no escapes.
    Raw,
    /// A bare run of characters (SJSON only).
    Bare,
}

/// Decodes a string lexeme of the given quoting into its text.
/// Returns `None` for an invalid `\u` escape (a lone surrogate).
pub fn decode(lexeme: &str, quoting: Quoting) -> Option<Cow<'_, str>> {
    match quoting {
        Quoting::Bare => Some(Cow::Borrowed(lexeme)),
        Quoting::Raw => Some(Cow::Borrowed(&lexeme[3..lexeme.len() - 3])),
        Quoting::Quoted => {
            let inner = &lexeme[1..lexeme.len() - 1];
            if !inner.contains('\\') {
                return Some(Cow::Borrowed(inner));
            }
            unescape(inner).map(Cow::Owned)
        }
    }
}

fn unescape(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hi = hex4(&mut chars)?;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if chars.next()? != '\\' || chars.next()? != 'u' {
                        return None;
                    }
                    let lo = hex4(&mut chars)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                out.push(char::from_u32(code)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// Writes `text` as a JSON string literal (quotes included) to `out`.
pub fn write_quoted(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&text[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{b:04x}")),
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Whether `key` may be written bare in canonical SJSON (letters, digits, `_`).
pub fn is_plain_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_and_surrogate_pairs() {
        assert_eq!(
            decode(r#""a\"b\\c\n""#, Quoting::Quoted).unwrap(),
            "a\"b\\c\n"
        );
        assert_eq!(decode(r#""\ud83d\ude00""#, Quoting::Quoted).unwrap(), "😀");
        assert_eq!(decode(r#""\u00e9""#, Quoting::Quoted).unwrap(), "é");
        assert!(decode(r#""\ud83d""#, Quoting::Quoted).is_none());
        assert!(decode(r#""\ude00x""#, Quoting::Quoted).is_none());
        assert_eq!(
            decode(r#""""a "b" c""""#, Quoting::Raw).unwrap(),
            "a \"b\" c"
        );
        assert_eq!(decode("bare", Quoting::Bare).unwrap(), "bare");
    }

    #[test]
    fn quoting_round_trips() {
        for s in [
            "",
            "plain",
            "q\"uo\\te",
            "tab\tnl\ncr\r",
            "\u{1}\u{1f}",
            "é😀",
        ] {
            let mut out = String::new();
            write_quoted(&mut out, s);
            assert_eq!(decode(&out, Quoting::Quoted).unwrap(), s);
            let v: String = serde_json::from_str(&out).unwrap();
            assert_eq!(v, s);
        }
    }
}

/// `text`, which may span lines (a message, a rendered report, a value shown as a block),
/// made safe to show on a terminal: control characters other than line feed and tab (ESC,
/// BEL, CR, backspace, DEL, the C1 range) and the bidirectional-override marks are written
/// as Rust-style escapes (`\u{1b}`), so text read from a repository cannot move the
/// cursor, retitle the window or reorder what is shown. Escaping twice changes nothing
/// more. For anything shown inside one line (a file name, an object name, a key) use
/// [`terminal_safe_line`], which escapes line feeds too.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escape_terminal(text, |c| c == '\n' || c == '\t')
}

/// `text` shown within one line of output (a file name, an object name, an id, a key in a
/// `who`, sync, merge or apply line) made safe: as [`terminal_safe`], and line feeds are
/// escaped too (`\u{a}`), so data cannot end the line and forge the next one. Tabs stay.
pub fn terminal_safe_line(text: &str) -> Cow<'_, str> {
    escape_terminal(text, |c| c == '\t')
}

/// `text` with every control character except those `kept` allows, and every
/// bidirectional-override mark, escaped as `\u{…}`.
fn escape_terminal(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !kept(c))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod terminal_tests {
    use super::{terminal_safe, terminal_safe_line};
    use proptest::prelude::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(terminal_safe("a\u{1b}[2Jb\u{7}"), "a\\u{1b}[2Jb\\u{7}");
        assert_eq!(
            terminal_safe("x\ry\u{9b}z\u{7f}"),
            "x\\u{d}y\\u{9b}z\\u{7f}"
        );
        assert_eq!(terminal_safe("\u{202e}gpj.exe"), "\\u{202e}gpj.exe");
        assert_eq!(terminal_safe("line\n\tnext é"), "line\n\tnext é");
    }

    proptest! {
        #[test]
        fn escaped_text_holds_no_control_character_and_is_stable(s in any::<String>()) {
            let once = terminal_safe(&s).into_owned();
            prop_assert!(!once.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
            prop_assert_eq!(terminal_safe(&once), once.as_str());
        }

        /// One-line text stays one line whatever it holds, and escaping it twice changes
        /// nothing more; it differs from the multi-line form only by its line feeds.
        #[test]
        fn one_line_text_holds_no_line_break_and_is_stable(s in any::<String>()) {
            let once = terminal_safe_line(&s).into_owned();
            prop_assert!(!once.chars().any(|c| c.is_control() && c != '\t'));
            prop_assert_eq!(once.lines().count(), usize::from(!once.is_empty()));
            prop_assert_eq!(terminal_safe_line(&once), once.as_str());
            let multi = terminal_safe(&s).into_owned();
            prop_assert_eq!(terminal_safe_line(&multi), once.as_str());
        }
    }

    #[test]
    fn a_line_feed_is_escaped_only_in_one_line_text() {
        let forged = "a.level\nalice on main, 1 s ago:\r";
        assert_eq!(
            terminal_safe_line(forged),
            "a.level\\u{a}alice on main, 1 s ago:\\u{d}"
        );
        assert_eq!(
            terminal_safe(forged),
            "a.level\nalice on main, 1 s ago:\\u{d}"
        );
    }
}
