//! Values as compact JSON, the way reports and journals hold them.

use sjson::{Dialect, Style, Value};

/// The value as compact JSON (for reports).
pub fn compact_json(v: Value<'_>) -> String {
    let style = Style {
        dialect: Dialect::Json,
        indent: String::new(),
        newline: String::new(),
        separator: ":".into(),
        commas: false,
        // Not inlined: inline number arrays are written `[1, 2]`; item by item with an
        // empty line break they are `[1,2]`.
        inline_numbers: 0,
        quote_keys: true,
        sort_keys: false,
    };
    let mut out = String::new();
    sjson::render_value(v, &style, "", &mut out);
    out
}
