//! The recursive comparison: objects key by key, tuples as one value, arrays as keyed
//! arrays (see [`super::keyed`]) or as sequences; records [`Change`]s and [`PatchOp`]s.

use std::hash::Hasher;

use rustc_hash::FxHasher;
use sjson::{Kind, Path, Segment, Value};

use super::keyed::KeyedOut;
use super::{Change, DiffOptions, PatchOp, MOVE_BUDGET};
use crate::members::KeyIndex;

pub(super) struct Walker<'o, 'a> {
    pub(super) opts: &'o DiffOptions,
    pub(super) id_keys_lower: Vec<String>,
    /// The current place, keyed elements named by id.
    pub(super) path: Path,
    /// The current place as a JSON Pointer with indices valid during patch application.
    pub(super) ptr: Path,
    pub(super) changes: Vec<Change<'a>>,
    pub(super) patch: Vec<PatchOp<'a>>,
    /// While positive, no patch operations are recorded (a parent replaced the value).
    pub(super) patch_off: usize,
    pub(super) keyed_out: Vec<KeyedOut>,
    /// See [`MOVE_BUDGET`].
    pub(super) move_budget: usize,
}

impl<'o, 'a> Walker<'o, 'a> {
    pub(super) fn new(opts: &'o DiffOptions, path: Path) -> Self {
        Walker {
            opts,
            id_keys_lower: opts
                .id_keys
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .collect(),
            path,
            ptr: Path::root(),
            changes: Vec::new(),
            patch: Vec::new(),
            patch_off: 0,
            keyed_out: Vec::new(),
            move_budget: MOVE_BUDGET,
        }
    }

    pub(super) fn op(&mut self, op: PatchOp<'a>) {
        if self.patch_off == 0 {
            self.patch.push(op);
        }
    }

    pub(super) fn enter(&mut self, path: Segment, ptr: Segment) {
        self.path.push(path);
        self.ptr.push(ptr);
    }

    pub(super) fn leave(&mut self) {
        self.path.pop();
        self.ptr.pop();
    }

    pub(super) fn value(&mut self, old: Value<'a>, new: Value<'a>) {
        if old.same_value(&new) {
            return;
        }
        match (old.kind(), new.kind()) {
            (Kind::Object, Kind::Object) => self.object(old, new),
            (Kind::Array, Kind::Array) if !(self.is_tuple(old) && self.is_tuple(new)) => {
                self.array(old, new)
            }
            _ => self.changed(old, new),
        }
    }

    fn changed(&mut self, old: Value<'a>, new: Value<'a>) {
        self.changes.push(Change::Changed {
            path: self.path.clone(),
            old,
            new,
        });
        self.op(PatchOp::Replace {
            path: self.ptr.clone(),
            value: new,
        });
    }

    fn is_tuple(&self, v: Value<'_>) -> bool {
        v.len() <= self.opts.atomic_max && v.children().all(|c| c.kind() == Kind::Number)
    }

    fn object(&mut self, old: Value<'a>, new: Value<'a>) {
        let oi = KeyIndex::new(Some(old));
        let ni = KeyIndex::new(Some(new));
        for ((key, nth), ov) in oi.entries() {
            let seg = Segment::Key(key.to_string());
            self.enter(seg.clone(), seg);
            match ni.get_nth(&key, nth) {
                Some(nv) => self.value(ov, nv),
                None => {
                    self.changes.push(Change::Removed {
                        path: self.path.clone(),
                        value: ov,
                    });
                    self.op(PatchOp::Remove {
                        path: self.ptr.clone(),
                    });
                }
            }
            self.leave();
        }
        for ((key, nth), nv) in ni.entries() {
            if oi.contains_nth(&key, nth) {
                continue;
            }
            let seg = Segment::Key(key.to_string());
            self.enter(seg.clone(), seg);
            self.changes.push(Change::Added {
                path: self.path.clone(),
                value: nv,
            });
            self.op(PatchOp::Add {
                path: self.ptr.clone(),
                value: nv,
            });
            self.leave();
        }
    }

    fn array(&mut self, old: Value<'a>, new: Value<'a>) {
        match (self.keyed(old), self.keyed(new)) {
            (Some(ok), Some(nk))
                if match (&ok.key, &nk.key) {
                    (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                    _ => true,
                } =>
            {
                self.keyed_array(old, new, ok, nk)
            }
            _ => self.sequence(old, new),
        }
    }
    fn sequence(&mut self, old: Value<'a>, new: Value<'a>) {
        let os: Vec<Value<'a>> = old.children().collect();
        let ns: Vec<Value<'a>> = new.children().collect();
        let hash = |vs: &[Value<'_>]| -> Vec<u64> {
            vs.iter()
                .map(|v| {
                    let mut h = FxHasher::default();
                    v.hash_value(&mut h);
                    h.finish()
                })
                .collect()
        };
        let (ho, hn) = (hash(&os), hash(&ns));
        let ops = crate::lcs::diff_ops(&ho, &hn);
        // While the patch is applied, everything before the current operation already
        // equals the new array, so the working index is the count of new elements so
        // far (`similar` reports a deletion's `new_index` after the following equal run).
        let mut at = 0;
        for op in ops {
            let (oi, ol, nl) = match op {
                similar::DiffOp::Equal { len, .. } => {
                    at += len;
                    continue;
                }
                similar::DiffOp::Delete {
                    old_index, old_len, ..
                } => (old_index, old_len, 0),
                similar::DiffOp::Insert {
                    old_index, new_len, ..
                } => (old_index, 0, new_len),
                similar::DiffOp::Replace {
                    old_index,
                    old_len,
                    new_len,
                    ..
                } => (old_index, old_len, new_len),
            };
            let ni = at;
            at += nl;
            let paired = ol.min(nl);
            for k in 0..paired {
                self.enter(Segment::Index(ni + k), Segment::Index(ni + k));
                self.value(os[oi + k], ns[ni + k]);
                self.leave();
            }
            for k in paired..ol {
                self.path.push(Segment::Index(oi + k));
                self.changes.push(Change::Removed {
                    path: self.path.clone(),
                    value: os[oi + k],
                });
                self.path.pop();
                self.ptr.push(Segment::Index(ni + paired));
                self.op(PatchOp::Remove {
                    path: self.ptr.clone(),
                });
                self.ptr.pop();
            }
            for k in paired..nl {
                self.enter(Segment::Index(ni + k), Segment::Index(ni + k));
                self.changes.push(Change::Added {
                    path: self.path.clone(),
                    value: ns[ni + k],
                });
                self.op(PatchOp::Add {
                    path: self.ptr.clone(),
                    value: ns[ni + k],
                });
                self.leave();
            }
        }
    }
}
