//! A value taken from another document keeps the printing document's layout: written
//! over several lines where the file wrote the value it replaces over several.

use super::Out;
use crate::doc::{Document, Kind};
use crate::render::Style;
use crate::value::Value;

/// A container from another document written on one line where the printing document
/// `doc`'s value at its place (`ours`, a container of the same kind) is written over
/// several: the container and the style (from `style`) that writes it over several lines
/// too. `None` where the value prints as it is.
pub(super) fn over_several_lines<'v>(
    out: &Out<'v>,
    ours: Value<'_>,
    doc: &Document,
    style: &Style,
) -> Option<(Value<'v>, Style)> {
    let Out::Value(v) = out else { return None };
    let theirs = !std::ptr::eq(v.doc(), doc);
    let container = matches!(v.kind(), Kind::Array | Kind::Object);
    let one_line = !v.text().contains(['\n', '\r']);
    if !theirs || !container || v.is_empty() || !one_line || v.kind() != ours.kind() {
        return None;
    }
    if !ours.text().contains('\n') {
        return None;
    }
    let mut style = style.clone();
    // Short number arrays are one line in the style; this one was written over several.
    if v.children().all(|c| c.kind() == Kind::Number) {
        style.inline_numbers = 0;
    }
    Some((*v, style))
}
