//! The demo's two designers: the edits Alice and Bob make to the sample level, as text
//! edits of the level's lines (the way a level editor saves).

use crate::exit::{failure, Result};

use super::ID_PREFIX;

/// The lines of `text` with their line endings.
pub(super) fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Replaces the first `from` after the first `anchor` (both must be present).
fn replace_after(text: &str, anchor: &str, from: &str, to: &str) -> Result<String> {
    let at = text
        .find(anchor)
        .ok_or_else(|| failure!("the sample level has no {anchor:?}"))?;
    let pos = text[at..]
        .find(from)
        .map(|p| at + p)
        .ok_or_else(|| failure!("the sample level has no {from:?} after {anchor:?}"))?;
    Ok(format!("{}{to}{}", &text[..pos], &text[pos + from.len()..]))
}

/// The line range of the entity whose id line is `id = "<id>"`: from its `{` line to
/// the `}` line at the same indentation.
pub(super) fn entity_lines(text: &str, id: &str) -> Result<std::ops::Range<usize>> {
    let ls = lines(text);
    let needle = format!("id = \"{id}\"");
    let id_line = ls
        .iter()
        .position(|l| l.trim() == needle)
        .ok_or_else(|| failure!("the sample level has no entity {id}"))?;
    let open = (0..id_line)
        .rev()
        .find(|&i| ls[i].trim() == "{")
        .ok_or_else(|| failure!("entity {id}: no opening brace"))?;
    let indent = &ls[open][..ls[open].len() - ls[open].trim_start().len()];
    let close = (id_line..ls.len())
        .find(|&i| ls[i].trim_end() == format!("{indent}}}"))
        .ok_or_else(|| failure!("entity {id}: no closing brace"))?;
    Ok(open..close + 1)
}

/// `text` without the entity `id`.
fn remove_entity(text: &str, id: &str) -> Result<String> {
    let range = entity_lines(text, id)?;
    let ls = lines(text);
    Ok(ls[..range.start].concat() + &ls[range.end..].concat())
}

/// `text` with `block` inserted after the entity `id`, in `text`'s line endings.
fn insert_entity_after(text: &str, id: &str, block: &str) -> Result<String> {
    let range = entity_lines(text, id)?;
    let ls = lines(text);
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = block.replace('\n', newline);
    Ok(ls[..range.end].concat() + &block + &ls[range.end..].concat())
}

/// The sample level's entity id number `n`.
pub(super) fn id(n: u32) -> String {
    format!("{ID_PREFIX}4b0{n}")
}

/// Alice: moves the north gate, renames a barrel, deletes the player spawn, dims the
/// right torch.
pub(super) fn alice(base: &str) -> Result<String> {
    let t = replace_after(
        base,
        &id(1),
        "position = [0.0 24.0 0.0]",
        "position = [0.0 30.0 0.0]",
    )?;
    let t = replace_after(&t, &id(4), "name = \"barrel_01\"", "name = \"barrel_red\"")?;
    let t = remove_entity(&t, &id(5))?;
    replace_after(&t, &id(3), "intensity = 4.5", "intensity = 2.0")
}

/// The entity Bob adds.
const BRAZIER: &str = "\t{
\t\tid = \"6f1c2a40-1f43-4c8e-9a57-0d1e2f3a4b06\"
\t\tname = \"brazier_center\"
\t\tunit = \"units/lights/brazier\"
\t\tposition = [0.0 0.0 0.0]
\t\trotation = [0 0 0 1]
\t\tscale = [1 1 1]
\t\tlight = {
\t\t\tcolor = [1.0 0.45 0.2]
\t\t\tintensity = 3.0
\t\t\tflicker_expr = \"0.8 + 0.2 * sin(7 * t)\"
\t\t}
\t}
";

/// Bob: adds a brazier, brightens the left torch, and brightens the right torch that
/// Alice dimmed (the one true conflict).
pub(super) fn bob(base: &str) -> Result<String> {
    let t = insert_entity_after(base, &id(5), BRAZIER)?;
    let t = replace_after(&t, &id(2), "intensity = 4.5", "intensity = 6.0")?;
    replace_after(&t, &id(3), "intensity = 4.5", "intensity = 8.0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use sjson::{Dialect, Document};

    #[test]
    fn scripted_edits_apply_to_the_sample_level() {
        let base = super::super::FILES[1].1;
        let a = alice(base).unwrap();
        let b = bob(base).unwrap();
        for t in [&a, &b] {
            Document::parse(t.as_str(), Dialect::Sjson).unwrap();
        }
        assert!(!a.contains(&id(5)) && a.contains("barrel_red"));
        assert!(b.contains(&id(6)) && b.contains(&id(5)));
    }
}
