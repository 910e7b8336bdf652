//! The input of the targets that take three texts: split on 0xFF bytes (never valid
//! UTF-8); the optional fourth part's first byte picks JSON (bit 0) instead of SJSON.

use sjson::Dialect;

/// The three texts and the dialect, or `None` when there are fewer parts or one is not
/// UTF-8.
pub fn three_texts(data: &[u8]) -> Option<([&str; 3], Dialect)> {
    let mut parts = data.split(|&b| b == 0xFF);
    let texts = [parts.next()?, parts.next()?, parts.next()?];
    let dialect = match parts.next().and_then(|p| p.first()) {
        Some(x) if x & 1 == 1 => Dialect::Json,
        _ => Dialect::Sjson,
    };
    let [a, b, c] = texts.map(std::str::from_utf8);
    Some(([a.ok()?, b.ok()?, c.ok()?], dialect))
}
