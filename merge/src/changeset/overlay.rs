//! Edits laid over a document: a tree of the places a change set touches, each with the
//! state it gives that place, printed as an edit of the document (its text kept wherever
//! nothing was touched).

use std::borrow::Cow;

use crate::hashing::{SeededMap, SeededSet};
use sjson::{Document, Kind, Out, OutItem, Segment, Value};

use super::write::Resolver;
use super::Placement;

/// What one place holds.
#[derive(Debug, Clone)]
pub(super) enum State<'a> {
    /// Nothing (a removed property or destroyed object).
    Absent,
    /// This value, placed so in its array.
    Value(Value<'a>, Placement),
}

/// A step from a container: an object key (or an array index), or a keyed element's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Id(String),
}

/// One place of the tree.
#[derive(Debug, Default)]
pub(super) struct Node<'a> {
    state: Option<State<'a>>,
    /// For an element named by id: its id key and id, to write into an object made here.
    id: Option<(String, String)>,
    /// Where an element created and then destroyed again had been placed: the elements
    /// anchored to it are placed by its own anchors instead.
    vanished: Option<Placement>,
    children: Vec<(Step, Node<'a>)>,
    index: SeededMap<Step, usize>,
}

impl<'a> Node<'a> {
    fn child(&mut self, seg: &Segment) -> &mut Node<'a> {
        let (step, id) = match seg {
            Segment::Key(k) => (Step::Key(k.clone()), None),
            Segment::Index(i) => (Step::Key(i.to_string()), None),
            Segment::Id { key, value } => {
                (Step::Id(value.clone()), Some((key.clone(), value.clone())))
            }
        };
        let i = match self.index.get(&step) {
            Some(&i) => i,
            None => {
                self.index.insert(step.clone(), self.children.len());
                let node = Node {
                    id,
                    ..Node::default()
                };
                self.children.push((step, node));
                self.children.len() - 1
            }
        };
        &mut self.children[i].1
    }

    /// Records the state before a change: the first state given to a place wins, and a
    /// place inside one that already has a state is left alone.
    pub(super) fn set_first(&mut self, path: &[Segment], state: State<'a>) {
        let mut at = self;
        for seg in path {
            if at.state.is_some() {
                return;
            }
            at = at.child(seg);
        }
        if at.state.is_none() {
            at.state = Some(state);
        }
    }

    /// Whether a place on `path` (or the place itself) already has a value given by the
    /// change set.
    pub(super) fn covers(&self, path: &[Segment]) -> bool {
        let mut at = self;
        for seg in path {
            if matches!(at.state, Some(State::Value(..))) {
                return true;
            }
            let step = match seg {
                Segment::Key(k) => Step::Key(k.clone()),
                Segment::Index(i) => Step::Key(i.to_string()),
                Segment::Id { value, .. } => Step::Id(value.clone()),
            };
            match at.index.get(&step) {
                Some(&i) => at = &at.children[i].1,
                None => return false,
            }
        }
        matches!(at.state, Some(State::Value(..)))
    }

    /// Records the state after a change: the last state given to a place wins and
    /// replaces whatever was recorded inside it.
    pub(super) fn set_last(&mut self, path: &[Segment], state: State<'a>) {
        let mut at = self;
        for seg in path {
            at = at.child(seg);
        }
        at.vanished = match (&at.state, &state) {
            (Some(State::Value(_, p)), State::Absent) if p.is_given() => Some(p.clone()),
            (_, State::Absent) => at.vanished.take(),
            _ => None,
        };
        at.state = Some(state);
        at.children.clear();
        at.index.clear();
    }
}

/// Builds the printable result of laying a tree over `doc`.
pub(super) struct Builder<'r, 'a> {
    pub(super) doc: &'a Document,
    pub(super) ids: &'r Resolver<'a>,
}

impl<'a> Builder<'_, 'a> {
    fn owned(&self, v: Value<'a>) -> bool {
        std::ptr::eq(v.doc(), self.doc)
    }

    fn item(
        &self,
        key: Option<Cow<'a, str>>,
        from: Option<Value<'a>>,
        value: Out<'a>,
    ) -> OutItem<'a> {
        let ours = from.filter(|v| self.owned(*v));
        let origin = from.filter(|v| !self.owned(*v));
        OutItem {
            key,
            ours,
            origin,
            value,
        }
    }

    /// A whole value: the document's own as it is, another document's rebuilt so that
    /// it prints in the style of its new neighbours.
    fn value(&self, v: Value<'a>) -> Out<'a> {
        if self.owned(v) || !v.is_container() {
            return Out::Value(v);
        }
        let items = v
            .children()
            .map(|c| OutItem {
                key: c.key(),
                ours: None,
                origin: Some(c),
                value: self.value(c),
            })
            .collect();
        Out::Container {
            kind: v.kind(),
            ours: None,
            items,
        }
    }

    /// What `node` makes of `source` (`None`: nothing there).
    pub(super) fn build(&self, source: Option<Value<'a>>, node: &Node<'a>) -> Option<Out<'a>> {
        let source = match &node.state {
            Some(State::Absent) => None,
            Some(State::Value(v, _)) => Some(*v),
            None => source,
        };
        if node.children.is_empty() {
            return source.map(|v| self.value(v));
        }
        let mut used = vec![false; node.children.len()];
        let (kind, mut items) = match source {
            Some(v) if v.kind() == Kind::Object => (Kind::Object, self.members(v, node, &mut used)),
            Some(v) if v.kind() == Kind::Array => {
                let slots = self.elements(v, node, &mut used);
                (Kind::Array, self.place(slots, node, &used))
            }
            _ => {
                let keyed = node.children.iter().all(|(s, _)| matches!(s, Step::Id(_)));
                if keyed {
                    (Kind::Array, Vec::new())
                } else {
                    (Kind::Object, id_item(node).into_iter().collect())
                }
            }
        };
        match kind {
            Kind::Object => {
                for (i, (step, child)) in node.children.iter().enumerate() {
                    if let (false, Step::Key(k)) = (used[i], step) {
                        if let Some(out) = self.build(None, child) {
                            let origin = state_value(child);
                            items.push(self.item(Some(Cow::Owned(k.clone())), origin, out));
                        }
                    }
                }
            }
            _ if source.is_some_and(|v| v.kind() == Kind::Array) => {}
            _ => items = self.place(Vec::new(), node, &used),
        }
        let ours = source.filter(|v| self.owned(*v) && v.kind() == kind);
        Some(Out::Container { kind, ours, items })
    }

    fn members(&self, v: Value<'a>, node: &Node<'a>, used: &mut [bool]) -> Vec<OutItem<'a>> {
        let mut items = Vec::with_capacity(v.len());
        for child in v.children() {
            let key = child.key();
            let edit = key
                .as_deref()
                .and_then(|k| node.index.get(&Step::Key(k.to_string())));
            let out = match edit {
                Some(&i) => {
                    used[i] = true;
                    match self.build(Some(child), &node.children[i].1) {
                        Some(out) => out,
                        None => continue,
                    }
                }
                None => self.value(child),
            };
            items.push(self.item(key, Some(child), out));
        }
        items
    }

    /// The elements of array `v` with their edits, each with its display id; a
    /// destroyed element stays as an empty slot (an anchor for its neighbours), one to be
    /// placed elsewhere is left for [`Builder::place`].
    fn elements(&self, v: Value<'a>, node: &Node<'a>, used: &mut [bool]) -> Vec<Slot<'a>> {
        let mut slots = Vec::with_capacity(v.len());
        for (n, child) in v.children().enumerate() {
            let id = self.ids.id(child);
            let by_id = id
                .as_ref()
                .and_then(|id| node.index.get(&Step::Id(id.clone())));
            let edit = by_id.or_else(|| node.index.get(&Step::Key(n.to_string())));
            let out = match edit {
                Some(&i) => {
                    used[i] = true;
                    let edit = &node.children[i].1;
                    if placed(edit) {
                        continue;
                    }
                    self.build(Some(child), edit)
                }
                None => Some(self.value(child)),
            };
            let item = out.map(|out| self.item(None, Some(child), out));
            slots.push(Slot { item, id });
        }
        slots
    }

    /// Adds to the array `items` the elements `node` places (created or moved): before
    /// their successor, else after their predecessor, when the array holds it. One pass,
    /// without recursion.
    fn place(&self, slots: Vec<Slot<'a>>, node: &Node<'a>, used: &[bool]) -> Vec<OutItem<'a>> {
        let wanted: Vec<usize> = (0..node.children.len())
            .filter(|&i| {
                let child = &node.children[i].1;
                placed(child) || (!used[i] && !matches!(child.state, Some(State::Absent)))
            })
            .collect();
        if wanted.is_empty() {
            return slots.into_iter().filter_map(|s| s.item).collect();
        }
        let (items, ids): (Vec<Option<OutItem<'a>>>, Vec<Option<String>>) =
            slots.into_iter().map(|s| (s.item, s.id)).unzip();
        let mut known: SeededSet<&str> = ids.iter().flatten().map(String::as_str).collect();
        for &i in &wanted {
            if let Step::Id(id) = &node.children[i].0 {
                known.insert(id);
            }
        }
        let mut links = Links {
            visited: vec![false; node.children.len()],
            ..Links::default()
        };
        let vanished: SeededMap<&str, &Placement> = node
            .children
            .iter()
            .filter_map(
                |(step, child)| match (step, &child.state, &child.vanished) {
                    (Step::Id(id), Some(State::Absent), Some(p)) => Some((id.as_str(), p)),
                    _ => None,
                },
            )
            .collect();
        let anchors = Anchors {
            known: &known,
            vanished: &vanished,
        };
        for &i in &wanted {
            let p = match &node.children[i].1.state {
                Some(State::Value(_, p)) => p.clone(),
                _ => Placement::default(),
            };
            let (before, after) = (anchors.successor(&p), anchors.predecessor(&p));
            if let Some(Some(b)) = before {
                links.before.entry(b).or_default().push(i);
            } else if before == Some(None) {
                links.last.push(i);
            } else if let Some(Some(a)) = after {
                links.after.entry(a).or_default().push(i);
            } else if after == Some(None) {
                links.first.push(i);
            } else {
                links.last.push(i);
            }
        }
        let mut slots = items;
        let mut out = Vec::with_capacity(slots.len() + wanted.len());
        let mut jobs: Vec<Job> = links
            .first
            .iter()
            .rev()
            .map(|&i| Job::Visit(Entry::Placed(i)))
            .collect();
        self.run(node, &mut links, &ids, &mut slots, &mut out, &mut jobs);
        for k in 0..slots.len() {
            jobs.push(Job::Visit(Entry::Item(k)));
            self.run(node, &mut links, &ids, &mut slots, &mut out, &mut jobs);
        }
        let last = std::mem::take(&mut links.last);
        jobs.extend(last.iter().rev().map(|&i| Job::Visit(Entry::Placed(i))));
        self.run(node, &mut links, &ids, &mut slots, &mut out, &mut jobs);
        // Anchored only to each other (a cycle of new objects): in change-set order.
        let mut rest: Vec<usize> = links
            .before
            .drain()
            .chain(links.after.drain())
            .flat_map(|(_, l)| l)
            .collect();
        rest.sort_unstable();
        jobs.extend(rest.iter().rev().map(|&i| Job::Visit(Entry::Placed(i))));
        self.run(node, &mut links, &ids, &mut slots, &mut out, &mut jobs);
        out
    }

    /// Works through `jobs`: each entry is preceded by what goes before it and followed
    /// by what goes after it.
    fn run(
        &self,
        node: &Node<'a>,
        links: &mut Links,
        ids: &[Option<String>],
        slots: &mut [Option<OutItem<'a>>],
        out: &mut Vec<OutItem<'a>>,
        jobs: &mut Vec<Job>,
    ) {
        let id_of = |e: Entry| -> Option<&str> {
            match e {
                Entry::Item(k) => ids[k].as_deref(),
                Entry::Placed(i) => match &node.children[i].0 {
                    Step::Id(id) => Some(id),
                    Step::Key(_) => None,
                },
            }
        };
        while let Some(job) = jobs.pop() {
            match job {
                Job::Visit(Entry::Placed(i)) if std::mem::replace(&mut links.visited[i], true) => {}
                Job::Visit(e) => {
                    jobs.push(Job::After(e));
                    jobs.push(Job::Emit(e));
                    if let Some(list) = id_of(e).and_then(|id| links.before.remove(id)) {
                        jobs.extend(list.into_iter().rev().map(|i| Job::Visit(Entry::Placed(i))));
                    }
                }
                Job::Emit(Entry::Item(k)) => out.extend(slots[k].take()),
                Job::Emit(Entry::Placed(i)) => {
                    let child = &node.children[i].1;
                    if let Some(v) = self.build(None, child) {
                        out.push(self.item(None, state_value(child), v));
                    }
                }
                Job::After(e) => {
                    if let Some(list) = id_of(e).and_then(|id| links.after.remove(id)) {
                        jobs.extend(list.into_iter().rev().map(|i| Job::Visit(Entry::Placed(i))));
                    }
                }
            }
        }
    }
}

/// The anchors of placed elements in one array: ids the array will hold, and where the
/// elements created and destroyed again by the change set had been placed.
struct Anchors<'s> {
    known: &'s SeededSet<&'s str>,
    vanished: &'s SeededMap<&'s str, &'s Placement>,
}

impl Anchors<'_> {
    /// The element `p` precedes: `Some(Some(id))` of an element the array holds,
    /// `Some(None)` for the end, `None` when unknown. An anchor that was created and
    /// destroyed again stands for its own successor.
    fn successor<'p>(&'p self, p: &'p Placement) -> Option<Option<String>> {
        self.follow(&p.before, |v| &v.before)
    }

    /// The element `p` follows, as [`Self::successor`] (`Some(None)`: the start).
    fn predecessor<'p>(&'p self, p: &'p Placement) -> Option<Option<String>> {
        self.follow(&p.after, |v| &v.after)
    }

    fn follow<'p>(
        &self,
        mut at: &'p Option<Option<String>>,
        next: impl Fn(&'p Placement) -> &'p Option<Option<String>>,
    ) -> Option<Option<String>>
    where
        Self: 'p,
    {
        // Each step leaves one vanished element: a cycle among them ends the walk.
        for _ in 0..=self.vanished.len() {
            match at {
                Some(Some(id)) if self.known.contains(id.as_str()) => {
                    return Some(Some(id.clone()))
                }
                Some(Some(id)) => at = next(self.vanished.get(id.as_str())?),
                Some(None) => return Some(None),
                None => return None,
            }
        }
        None
    }
}

/// An element of the source array: its result (`None`: destroyed) and display id.
struct Slot<'a> {
    item: Option<OutItem<'a>>,
    id: Option<String>,
}

/// Placed children by anchor.
#[derive(Default)]
struct Links {
    before: SeededMap<String, Vec<usize>>,
    after: SeededMap<String, Vec<usize>>,
    first: Vec<usize>,
    last: Vec<usize>,
    /// Placed children already visited.
    visited: Vec<bool>,
}

/// An element of the array being built: an item of the source, or a placed child.
#[derive(Clone, Copy)]
enum Entry {
    Item(usize),
    Placed(usize),
}

/// A step of [`Builder::place`].
enum Job {
    Visit(Entry),
    Emit(Entry),
    After(Entry),
}

/// Whether a node moves its element to a place of its own (a create or a move).
fn placed(node: &Node<'_>) -> bool {
    matches!(&node.state, Some(State::Value(_, p)) if p.is_given())
}

/// The id member of an object made for an element named by id but missing: a number
/// when the id reads as one.
fn id_item<'a>(node: &Node<'a>) -> Option<OutItem<'a>> {
    let (key, id) = node.id.as_ref()?;
    if node.index.contains_key(&Step::Key(key.clone())) {
        return None;
    }
    let lexeme = if !id.is_empty() && id.parse::<i64>().is_ok() {
        id.clone()
    } else {
        let mut q = String::new();
        sjson::string::write_quoted(&mut q, id);
        q
    };
    Some(OutItem {
        key: Some(Cow::Owned(key.clone())),
        ours: None,
        origin: None,
        value: Out::Lexeme(Cow::Owned(lexeme)),
    })
}

fn state_value<'a>(node: &Node<'a>) -> Option<Value<'a>> {
    match &node.state {
        Some(State::Value(v, _)) => Some(*v),
        _ => None,
    }
}
