//! Keyed arrays: elements matched by id, the patch that reorders them, and moves of id'd
//! objects between keyed arrays.

use crate::hashing::SeededMap;
use sjson::{Segment, Value};

use super::walk::Walker;
use super::{Change, PatchOp};
use crate::id::id_display;
pub(super) use crate::keyed_index::KeyedIndex as Keyed;

/// A removal from or an addition to a keyed array, for move detection.
pub(super) struct KeyedOut {
    id: String,
    /// Index of the change in `Walker::changes`.
    change: usize,
    /// The element's index in its array.
    index: usize,
    added: bool,
}

impl<'a> Walker<'_, 'a> {
    /// The ids of `arr` if every element is an object with an id under the same id key
    /// and the ids are unique.
    pub(super) fn keyed(&self, arr: Value<'a>) -> Option<Keyed<'a>> {
        Keyed::by_id(&self.id_keys_lower, arr)
    }

    /// The changes between two versions of a keyed array (by id) and its patch.
    pub(super) fn keyed_array(
        &mut self,
        old: Value<'a>,
        new: Value<'a>,
        ok: Keyed<'a>,
        nk: Keyed<'a>,
    ) {
        let os: Vec<Value<'a>> = old.children().collect();
        let ns: Vec<Value<'a>> = new.children().collect();
        let (old_ids, new_ids): (Vec<&str>, Vec<&str>) =
            (ok.ids.iter().collect(), nk.ids.iter().collect());
        let ops = crate::lcs::diff_ops(&old_ids, &new_ids);
        // Elements that keep their place relative to each other.
        let mut stays = vec![false; ok.ids.len()];
        for op in &ops {
            if let similar::DiffOp::Equal { old_index, len, .. } = *op {
                stays[old_index..old_index + len].fill(true);
            }
        }
        let replaced = self.keyed_patch(&ok, &nk, &stays, new);

        // The changes, in document order; common elements recursed at their new index.
        let id_seg = |key: &str, id: &str| Segment::Id {
            key: key.to_string(),
            value: id_display(id),
        };
        for op in &ops {
            let (o_range, n_range) = (op.old_range(), op.new_range());
            if let similar::DiffOp::Equal { .. } = op {
                for (i, j) in o_range.zip(n_range) {
                    self.enter(id_seg(nk.key_at(j), &nk.ids[j]), Segment::Index(j));
                    self.value(os[i], ns[j]);
                    self.leave();
                }
                continue;
            }
            for i in o_range {
                if nk.contains(&ok.ids[i]) {
                    continue; // reordered: reported where it is now
                }
                self.path.push(id_seg(ok.key_at(i), &ok.ids[i]));
                self.keyed_out.push(KeyedOut {
                    id: ok.ids[i].to_string(),
                    change: self.changes.len(),
                    index: i,
                    added: false,
                });
                self.changes.push(Change::Removed {
                    path: self.path.clone(),
                    value: os[i],
                });
                self.path.pop();
            }
            for j in n_range {
                self.enter(id_seg(nk.key_at(j), &nk.ids[j]), Segment::Index(j));
                match ok.get(&nk.ids[j]) {
                    Some(i) => {
                        self.changes.push(Change::Moved {
                            from: self.path.clone(),
                            to: self.path.clone(),
                            from_index: i,
                            to_index: j,
                            value: ns[j],
                        });
                        self.value(os[i], ns[j]);
                    }
                    None => {
                        self.keyed_out.push(KeyedOut {
                            id: nk.ids[j].to_string(),
                            change: self.changes.len(),
                            index: j,
                            added: true,
                        });
                        self.changes.push(Change::Added {
                            path: self.path.clone(),
                            value: ns[j],
                        });
                    }
                }
                self.leave();
            }
        }
        if replaced {
            self.patch_off -= 1;
        }
    }

    /// The structural patch of a keyed array: removals (from the back), moves of the
    /// elements that do not stay, insertions (from the front). Afterwards every common
    /// element sits at its new index, where the caller recurses into it. Returns `true`
    /// if the array was replaced whole instead (the patch is then off until the caller
    /// is done with the array).
    fn keyed_patch(
        &mut self,
        ok: &Keyed<'a>,
        nk: &Keyed<'a>,
        stays: &[bool],
        new: Value<'a>,
    ) -> bool {
        if self.patch_off > 0 {
            return false;
        }
        let moved = (0..ok.ids.len())
            .filter(|&i| !stays[i] && nk.contains(&ok.ids[i]))
            .count();
        if moved.saturating_mul(ok.ids.len()) > self.move_budget {
            self.op(PatchOp::Replace {
                path: self.ptr.clone(),
                value: new,
            });
            // Everything below is covered by the replacement; the caller still walks it
            // for the changes, so switch the patch off until this array is done.
            self.patch_off += 1;
            return true;
        }
        for i in (0..ok.ids.len()).rev() {
            if !nk.contains(&ok.ids[i]) {
                self.ptr.push(Segment::Index(i));
                self.op(PatchOp::Remove {
                    path: self.ptr.clone(),
                });
                self.ptr.pop();
            }
        }
        if moved > 0 {
            // The array now holds the common ids in their old order.
            let mut w: Vec<&str> = ok.ids.iter().filter(|id| nk.contains(id)).collect();
            let mut pred: Option<&str> = None;
            for (id, i) in nk.ids.iter().filter_map(|id| Some((id, ok.get(id)?))) {
                if !stays[i] {
                    let from = w.iter().position(|&x| x == id).unwrap_or(0);
                    w.remove(from);
                    let to = pred
                        .and_then(|p| w.iter().position(|&x| x == p))
                        .map_or(0, |p| p + 1);
                    w.insert(to, id);
                    if from != to {
                        let mut f = self.ptr.clone();
                        f.push(Segment::Index(from));
                        let mut t = self.ptr.clone();
                        t.push(Segment::Index(to));
                        self.op(PatchOp::Move { from: f, path: t });
                    }
                }
                pred = Some(id);
            }
        }
        for (j, (id, el)) in nk.ids.iter().zip(new.children()).enumerate() {
            if !ok.contains(id) {
                self.ptr.push(Segment::Index(j));
                self.op(PatchOp::Add {
                    path: self.ptr.clone(),
                    value: el,
                });
                self.ptr.pop();
            }
        }
        false
    }
    /// Turns a removal from one keyed array plus an addition of the same id to another
    /// into one move followed by the changes made to the object; returns the changes.
    pub(super) fn resolve_moves(&mut self, outs: Vec<KeyedOut>) -> Vec<Change<'a>> {
        let mut changes = std::mem::take(&mut self.changes);
        if outs.is_empty() {
            return changes;
        }
        let mut by_id: SeededMap<&str, (Vec<&KeyedOut>, Vec<&KeyedOut>)> = SeededMap::default();
        for o in &outs {
            let e = by_id.entry(o.id.as_str()).or_default();
            if o.added {
                e.1.push(o);
            } else {
                e.0.push(o);
            }
        }
        let mut dropped = vec![false; changes.len()];
        let mut nested: SeededMap<usize, Vec<Change<'a>>> = SeededMap::default();
        for (removed, added) in by_id.values() {
            let ([r], [a]) = (removed.as_slice(), added.as_slice()) else {
                continue;
            };
            let (
                Change::Removed {
                    path: from,
                    value: ov,
                },
                Change::Added {
                    path: to,
                    value: nv,
                },
            ) = (&changes[r.change], &changes[a.change])
            else {
                continue;
            };
            let (from, to, ov, nv) = (from.clone(), to.clone(), *ov, *nv);
            let mut inner = Walker::new(self.opts, to.clone());
            inner.patch_off = 1;
            inner.value(ov, nv);
            dropped[r.change] = true;
            changes[a.change] = Change::Moved {
                from,
                to,
                from_index: r.index,
                to_index: a.index,
                value: nv,
            };
            nested.insert(a.change, inner.changes);
        }
        let mut out = Vec::with_capacity(changes.len());
        for (i, c) in changes.into_iter().enumerate() {
            if dropped[i] {
                continue;
            }
            out.push(c);
            if let Some(more) = nested.remove(&i) {
                out.extend(more);
            }
        }
        out
    }
}
