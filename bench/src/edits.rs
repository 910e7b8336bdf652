//! Concurrent edits of a level for merge benchmarks, and the check that a merged level
//! holds every one-sided edit (and theirs' value for each true conflict).

use std::collections::HashMap;

use crate::{Entity, Level, Rng};

/// One edit of a level.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Set the position of the entity with this id.
    Move(String, [f64; 3]),
    /// Add an entity after the entity with this id.
    Add(String, Entity),
    /// Delete the entity with this id.
    Delete(String),
}

/// The three inputs of a merge benchmark and the edits that made ours and theirs.
#[derive(Debug, Clone)]
pub struct MergeInputs {
    /// The common ancestor.
    pub base: Level,
    /// Ours' edits (the one-sided ones plus ours' side of each conflict).
    pub ours_edits: Vec<Edit>,
    /// Theirs' edits.
    pub theirs_edits: Vec<Edit>,
    /// Ids both sides moved differently: theirs' position must win.
    pub conflicts: Vec<String>,
}

impl MergeInputs {
    /// `n` entities; each side moves ~1% of them, adds and deletes a few (disjoint
    /// entities), and both move the same `conflicts` entities to different places.
    pub fn generate(n: usize, seed: u64, conflicts: usize) -> MergeInputs {
        let base = Level::random(n, seed);
        let mut rng = Rng::new(seed ^ 0xA55E7);
        let mut ours_edits = Vec::new();
        let mut theirs_edits = Vec::new();
        let mut conflict_ids = Vec::new();
        let per_side = (n / 100).max(1);
        let adds = (n / 1000).max(2);
        let ids: Vec<&String> = base.entities.iter().map(|e| &e.id).collect();
        // Entity i is edited by ours if i % 4 == 0, by theirs if i % 4 == 1, by both
        // (a true conflict) if i % 4 == 2; never two edits on one side for one entity.
        let pick = |rng: &mut Rng, class: usize| -> usize {
            let quarter = n.div_ceil(4).max(1);
            let i = (rng.below(quarter as u64) as usize) * 4 + class;
            i.min(n - 1)
        };
        let mut used = std::collections::HashSet::new();
        for (edits, class, tag) in [
            (&mut ours_edits, 0, 1_000_000u64),
            (&mut theirs_edits, 1, 2_000_000),
        ] {
            for k in 0..per_side {
                let i = pick(&mut rng, class);
                if !used.insert(i) {
                    continue;
                }
                let id = ids[i].clone();
                match k % 10 {
                    0 if k > 0 => edits.push(Edit::Delete(id)),
                    _ => edits.push(Edit::Move(id, [rng.coord(), rng.coord(), rng.coord()])),
                }
            }
            for a in 0..adds {
                let i = pick(&mut rng, class);
                if !used.insert(i) {
                    continue;
                }
                let e = Entity::random(&mut rng, tag + a as u64);
                edits.push(Edit::Add(ids[i].clone(), e));
            }
        }
        for _ in 0..conflicts {
            let i = pick(&mut rng, 2);
            if !used.insert(i) {
                continue;
            }
            let id = ids[i].clone();
            ours_edits.push(Edit::Move(id.clone(), [1.5, 2.5, 3.5]));
            theirs_edits.push(Edit::Move(id.clone(), [-1.5, -2.5, -3.5]));
            conflict_ids.push(id);
        }
        MergeInputs {
            base,
            ours_edits,
            theirs_edits,
            conflicts: conflict_ids,
        }
    }

    /// The base with `edits` applied: the same level as [`MergeInputs::apply_naive`]
    /// (edits in order; a move sets the position of the first entity with its id, an add
    /// goes right after the first entity with its id, a delete removes every entity with
    /// its id), built in one pass over the base when each edit names a different base
    /// entity of a unique id and no added entity takes such an id (as
    /// [`MergeInputs::generate`] makes them). A search of the whole level per edit made
    /// 1M-entity inputs take over half an hour; other edit lists still take that path.
    pub fn apply(&self, edits: &[Edit]) -> Level {
        match self.edit_per_entity(edits) {
            Some(per_entity) => {
                let mut entities = Vec::with_capacity(self.base.entities.len() + edits.len());
                for (e, edit) in self.base.entities.iter().zip(per_entity) {
                    match edit {
                        None => entities.push(e.clone()),
                        Some(Edit::Move(_, pos)) => entities.push(Entity {
                            pos: *pos,
                            ..e.clone()
                        }),
                        Some(Edit::Add(_, added)) => {
                            entities.push(e.clone());
                            entities.push(added.clone());
                        }
                        Some(Edit::Delete(_)) => {}
                    }
                }
                Level {
                    entities,
                    ambient: self.base.ambient,
                }
            }
            None => self.apply_naive(edits),
        }
    }

    /// For each base entity, the one edit naming it; `None` when the edits do not meet
    /// [`MergeInputs::apply`]'s one-pass conditions.
    fn edit_per_entity<'e>(&self, edits: &'e [Edit]) -> Option<Vec<Option<&'e Edit>>> {
        let mut index: HashMap<&str, Option<usize>> = HashMap::new();
        for (i, e) in self.base.entities.iter().enumerate() {
            // A repeated id maps to `None`: an edit naming it falls back.
            index
                .entry(e.id.as_str())
                .and_modify(|slot| *slot = None)
                .or_insert(Some(i));
        }
        let mut per_entity = vec![None; self.base.entities.len()];
        for edit in edits {
            let (Edit::Move(id, _) | Edit::Add(id, _) | Edit::Delete(id)) = edit;
            let i = (*index.get(id.as_str())?)?;
            if per_entity[i].replace(edit).is_some() {
                return None;
            }
        }
        let added_takes_a_named_id = edits.iter().any(|edit| match edit {
            Edit::Add(_, added) => index.contains_key(added.id.as_str()),
            _ => false,
        });
        (!added_takes_a_named_id).then_some(per_entity)
    }

    /// The base with `edits` applied one by one, each searching the whole level:
    /// quadratic, the reference [`MergeInputs::apply`] is checked against.
    pub fn apply_naive(&self, edits: &[Edit]) -> Level {
        let mut level = self.base.clone();
        for e in edits {
            match e {
                Edit::Move(id, pos) => {
                    if let Some(x) = level.entities.iter_mut().find(|x| &x.id == id) {
                        x.pos = *pos;
                    }
                }
                Edit::Add(after, ent) => {
                    let i = level
                        .entities
                        .iter()
                        .position(|x| &x.id == after)
                        .map_or(0, |i| i + 1);
                    level.entities.insert(i, ent.clone());
                }
                Edit::Delete(id) => level.entities.retain(|x| &x.id != id),
            }
        }
        level
    }
}

/// An entity as found in a merged document.
#[derive(Debug, Clone)]
struct Found {
    pos: Vec<f64>,
    count: usize,
}

/// Checks that `merged` (SJSON or JSON text of a level) holds every one-sided edit of
/// `inputs`, theirs' position for each conflict, and no entity twice. Returns the problems.
pub fn verify(inputs: &MergeInputs, merged: &str) -> Vec<String> {
    let doc = match sjson::Document::parse(merged, sjson::Dialect::Sjson)
        .or_else(|_| sjson::Document::parse(merged, sjson::Dialect::Json))
    {
        Ok(d) => d,
        Err(e) => return vec![format!("the merged level does not parse: {e}")],
    };
    let mut found: HashMap<String, Found> = HashMap::new();
    if let Some(entities) = doc.root().get("entities") {
        for e in entities.children() {
            let Some(id) = e.get("id").and_then(|v| v.as_str()) else {
                continue;
            };
            let pos = e
                .get("pos")
                .map(|p| {
                    p.children()
                        .filter_map(|c| c.as_number())
                        .map(|n| n.as_f64())
                        .collect()
                })
                .unwrap_or_default();
            found
                .entry(id.into_owned())
                .and_modify(|f| f.count += 1)
                .or_insert(Found { pos, count: 1 });
        }
    }
    let mut problems = Vec::new();
    for (id, f) in &found {
        if f.count > 1 {
            problems.push(format!("{id}: {} copies", f.count));
        }
    }
    for (side, edits) in [
        ("ours", &inputs.ours_edits),
        ("theirs", &inputs.theirs_edits),
    ] {
        for e in edits {
            match e {
                Edit::Move(id, pos) if !inputs.conflicts.contains(id) => match found.get(id) {
                    Some(f) if f.pos == pos.to_vec() => {}
                    other => problems.push(format!("{side} moved {id}: found {other:?}")),
                },
                Edit::Move(..) => {}
                Edit::Add(_, ent) if !found.contains_key(&ent.id) => {
                    problems.push(format!("{side} added {}: missing", ent.id))
                }
                Edit::Delete(id) if found.contains_key(id) => {
                    problems.push(format!("{side} deleted {id}: still there"))
                }
                _ => {}
            }
        }
    }
    for id in &inputs.conflicts {
        match found.get(id) {
            Some(f) if f.pos == vec![-1.5, -2.5, -3.5] => {}
            other => problems.push(format!("conflict {id}: expected theirs, found {other:?}")),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_and_verify_detects_missing_edits() {
        let inputs = MergeInputs::generate(400, 3, 4);
        assert!(!inputs.ours_edits.is_empty() && !inputs.theirs_edits.is_empty());
        // Theirs' level alone lacks ours' one-sided edits: verify must say so.
        let theirs = inputs.apply(&inputs.theirs_edits).to_sjson();
        assert!(!verify(&inputs, &theirs).is_empty());
        // Applying both edit lists (theirs last, so theirs wins conflicts) verifies.
        let mut all = inputs.ours_edits.clone();
        all.extend(inputs.theirs_edits.iter().cloned());
        let both = inputs.apply(&all).to_sjson();
        assert_eq!(verify(&inputs, &both), Vec::<String>::new());
    }

    proptest::proptest! {
        /// The one-pass `apply` makes the same level as the edit-by-edit reference, on
        /// generated inputs and on edit lists that break its one-pass conditions
        /// (repeated targets, unknown ids, an added entity taking a base id).
        #[test]
        fn apply_is_apply_naive(
            n in 1usize..300,
            seed in 0u64..1000,
            conflicts in 0usize..6,
            extra in proptest::collection::vec((0usize..3, 0usize..400, 0usize..400), 0..4),
        ) {
            let inputs = MergeInputs::generate(n, seed, conflicts);
            for edits in [&inputs.ours_edits, &inputs.theirs_edits] {
                proptest::prop_assert_eq!(inputs.apply(edits), inputs.apply_naive(edits));
            }
            let mut edits = inputs.ours_edits.clone();
            let id = |i: usize| inputs.base.entities.get(i).map_or_else(|| format!("x{i}"), |e| e.id.clone());
            for (kind, a, b) in extra {
                edits.push(match kind {
                    0 => Edit::Move(id(a), [a as f64, 0.0, 0.0]),
                    1 => Edit::Delete(id(a)),
                    _ => Edit::Add(id(a), Entity { id: id(b), ..inputs.base.entities[0].clone() }),
                });
            }
            proptest::prop_assert_eq!(inputs.apply(&edits), inputs.apply_naive(&edits));
        }
    }
}
