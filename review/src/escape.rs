//! Escaping text for HTML and for JSON inside a `<script>` element.

/// Appends `s` escaped for HTML text and attribute values.
pub fn push_html(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `s` escaped for HTML.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_html(&mut out, s);
    out
}

/// Appends `s` as a JSON string that is safe inside a `<script>` element (`<`, `>` and
/// `&` as `\u` escapes, so no `</script>` can end it early).
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn escaped_html_has_no_markup(s in ".*") {
            let e = html(&s);
            prop_assert!(!e.contains('<') && !e.contains('>') && !e.contains('"'));
        }

        #[test]
        fn script_json_strings_parse_back_and_never_close_the_script(s in ".*") {
            let mut out = String::new();
            push_json_string(&mut out, &s);
            prop_assert!(!out.contains('<'));
            let back: String = serde_json::from_str(&out).unwrap();
            prop_assert_eq!(back, s);
        }
    }
}
