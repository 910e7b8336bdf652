//! Parent cycles in the result: finding them on the graph of nesting and parent
//! references, and breaking one by reverting the losing side's reparents.

use sjson::{Kind, Out, Segment, Value};

use super::{label, other, Edit, Round, State};
use crate::coherence::index::{DocIndex, Reference};
use crate::compact::compact_json;
use crate::{Conflict, ConflictKind, Side};

impl<'s> State<'s, '_> {
    /// Breaks one parent cycle that neither side has by reverting the reparents on it
    /// made by the side that loses under the policy (else the winner's, else one edge) to
    /// the value [`Self::reverted_value`] chooses.
    pub(super) fn break_cycle<'m>(&self, round: &mut Round<'_, 'm>, refs: &[Reference<'m>])
    where
        's: 'm,
    {
        let im = round.im;
        // Edges child → parent: nesting and parent references.
        let nesting = im
            .objs
            .iter()
            .enumerate()
            .filter_map(|(i, o)| Some((i, o.owner?, None)));
        let parents = refs.iter().enumerate().filter_map(|(ri, r)| {
            let (true, Some(c)) = (r.parent, r.referrer) else {
                return None;
            };
            Some((c, r.at?, Some(ri)))
        });
        let edges = Graph::new(im.objs.len(), nesting.chain(parents));
        for cycle in cycles(&edges) {
            let on_cycle: Vec<&Reference<'m>> = cycle
                .iter()
                .filter_map(|&(_, e)| e.map(|ri| &refs[ri]))
                .collect();
            if on_cycle.is_empty() {
                continue;
            }
            let held_by = |s: Side| {
                cycle
                    .iter()
                    .all(|&(c, e)| self.has_edge(s, im, c, e.map(|ri| &refs[ri])))
            };
            if held_by(Side::Ours) || held_by(Side::Theirs) {
                continue;
            }
            let loser = other(self.winner);
            let made = |s: Side| -> Vec<&Reference<'m>> {
                on_cycle
                    .iter()
                    .copied()
                    .filter(|r| self.made(s, im, r))
                    .collect()
            };
            let (mut maker, mut revert) = (Some(loser), made(loser));
            if revert.is_empty() {
                (maker, revert) = (Some(self.winner), made(self.winner));
            }
            if revert.is_empty() {
                (maker, revert) = (None, vec![on_cycle[0]]);
            }
            for r in revert {
                self.revert(round, r, maker);
            }
            return;
        }
    }

    /// The value of member `key` of object `id` in `index`.
    fn member<'x>(index: &DocIndex<'x>, id: &str, key: &str) -> Option<Value<'x>> {
        index.get(id).and_then(|o| o.value.get(key))
    }

    /// Whether a (parent-key) value names `target`.
    pub(super) fn names(v: Option<Value<'_>>, target: &str) -> bool {
        v.is_some_and(|v| match v.kind() {
            Kind::String => v.as_str().is_some_and(|s| s == target),
            Kind::Array => v
                .children()
                .any(|e| e.as_str().is_some_and(|s| s == target)),
            _ => false,
        })
    }

    /// Whether `side` holds the edge from object `c` of the result (nesting, or `r`).
    fn has_edge(&self, side: Side, im: &DocIndex<'_>, c: usize, r: Option<&Reference<'_>>) -> bool {
        let index = self.side(side);
        let id = &im.objs[c].id;
        match r {
            Some(r) => Self::names(Self::member(index, id, &r.key), &r.target),
            None => {
                let Some(parent) = im.owner_id(c) else {
                    return false;
                };
                index.position(id).and_then(|i| index.owner_id(i)) == Some(parent)
            }
        }
    }

    /// Whether `side` made reparent `r` (it names the target, base did not).
    fn made(&self, side: Side, im: &DocIndex<'_>, r: &Reference<'_>) -> bool {
        let Some(c) = r.referrer else { return false };
        let id = &im.objs[c].id;
        Self::names(Self::member(self.side(side), id, &r.key), &r.target)
            && !Self::names(Self::member(self.base(), id, &r.key), &r.target)
    }

    /// The value that reparent `r` of object `id` goes back to: the other side's value
    /// where `maker` made it, else base's — the first that neither names the target nor
    /// names an object that the result and both sides lack (a value naming an object both
    /// sides deleted would dangle); `None`: remove it.
    fn reverted_value(
        &self,
        im: &DocIndex<'_>,
        id: &str,
        r: &Reference<'_>,
        maker: Option<Side>,
    ) -> Option<Value<'s>> {
        // A string naming a base object that the result and both sides lack would dangle.
        let dangles = |e: Value<'_>| {
            e.as_str().is_some_and(|s| {
                let s: &str = &s;
                self.base().has(s)
                    && !im.has(s)
                    && !self.side(Side::Ours).has(s)
                    && !self.side(Side::Theirs).has(s)
            })
        };
        let ids_known = |v: Value<'_>| match v.kind() {
            Kind::Array => !v.children().any(dangles),
            _ => !dangles(v),
        };
        let sources = maker.map(|s| self.side(other(s))).into_iter();
        for index in sources.chain([self.base()]) {
            if index.get(id).is_none() {
                continue;
            }
            match Self::member(index, id, &r.key) {
                None => return None,
                Some(v) if !Self::names(Some(v), &r.target) && ids_known(v) => return Some(v),
                Some(_) => {}
            }
        }
        None
    }

    /// Reverts reparent `r` (made by `maker`, if one side did) to the value
    /// [`Self::reverted_value`] chooses, or removes it.
    fn revert<'m>(&self, round: &mut Round<'_, 'm>, r: &Reference<'m>, maker: Option<Side>)
    where
        's: 'm,
    {
        let Some(c) = r.referrer else { return };
        let im = round.im;
        let id = im.objs[c].id.to_string();
        let back_to = self.reverted_value(im, &id, r, maker);
        let holder = im.objs[c].value.get(&r.key);
        let edit = match (holder, back_to) {
            // A string member: back to the chosen value, or gone.
            (Some(h), Some(b)) if h.id() == r.node.id() => Edit::Replace {
                node: h.id(),
                value: Out::Value(b),
            },
            _ => Edit::Remove { node: r.node.id() },
        };
        round.edits.push(edit);
        let json = |i: &DocIndex<'_>| Self::member(i, &id, &r.key).map(compact_json);
        let target_pointer = im
            .position(&r.target)
            .map(|p| im.pointer(p))
            .unwrap_or_default();
        let mut path = im.pointer(c);
        path.push(Segment::Key(r.key.to_string()));
        round.reports.push(Conflict {
            path,
            kind: ConflictKind::Cycle,
            base: json(self.base()),
            ours: json(self.side(Side::Ours)),
            theirs: json(self.side(Side::Theirs)),
            taken: self.winner,
            object: Some(label(im.objs[c].value, &id)),
            referrer: Some(target_pointer),
        });
    }
}

/// A graph as successor lists in one table: node `n`'s edges, in the order given, are
/// `to[start[n]..start[n + 1]]`, each (successor, label).
struct Graph<E> {
    start: Vec<usize>,
    to: Vec<(usize, E)>,
}

impl<E: Copy> Graph<E> {
    /// The graph of `n` nodes with edges (from, to, label).
    fn new(n: usize, edges: impl Iterator<Item = (usize, usize, E)>) -> Self {
        let edges: Vec<(usize, usize, E)> = edges.collect();
        let mut start = vec![0; n + 1];
        for &(from, ..) in &edges {
            start[from + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        // Every slot is written below: filled with the first edge until then.
        let mut to = match edges.first() {
            Some(&(_, t, l)) => vec![(t, l); edges.len()],
            None => Vec::new(),
        };
        for (from, t, l) in edges {
            to[fill[from]] = (t, l);
            fill[from] += 1;
        }
        Graph { start, to }
    }

    /// The edges out of node `n`.
    fn get(&self, n: usize) -> &[(usize, E)] {
        &self.to[self.start[n]..self.start[n + 1]]
    }
}

/// The cycles of a graph: each as (node, edge label) pairs.
fn cycles<E: Copy>(edges: &Graph<E>) -> Vec<Vec<(usize, E)>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; edges.start.len() - 1];
    let mut found = Vec::new();
    // Iterative DFS: (node, next edge index); `via` holds the edge taken to each node.
    // Both are empty again after each search, and reused.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut via: Vec<(usize, E)> = Vec::new();
    for start in 0..mark.len() {
        if mark[start] != Mark::New {
            continue;
        }
        stack.push((start, 0));
        mark[start] = Mark::Open;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            top.1 += 1;
            if let Some(&(to, label)) = edges.get(node).get(next) {
                match mark[to] {
                    Mark::New => {
                        mark[to] = Mark::Open;
                        via.push((node, label));
                        stack.push((to, 0));
                    }
                    Mark::Open => {
                        // The cycle: from `to` along the stack back to `node`, then node → to.
                        let pos = stack.iter().position(|&(n, _)| n == to).unwrap_or(0);
                        let mut cycle: Vec<(usize, E)> = via[pos..].to_vec();
                        cycle.push((node, label));
                        found.push(cycle);
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
                via.pop();
            }
        }
    }
    found
}
