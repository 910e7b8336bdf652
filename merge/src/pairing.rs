//! Pairing unkeyed objects across versions: by a natural key (a field such as `name`
//! that is present and unique in every element), else by equal values, else by structural
//! similarity. The one similarity of the crate lives here, with its thresholds.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::OnceLock;

use crate::hashing::SeededMap;
use rustc_hash::FxHasher;
use sjson::{Kind, Value};

use crate::keyed_index::KeyedIndex;

/// Whether a member name is an id key (of a version that a migration gave ids).
pub(crate) type IsId<'f> = &'f dyn Fn(&str) -> bool;

/// What a comparison of two values leaves out.
#[derive(Clone, Copy)]
pub(crate) enum Skip<'s> {
    /// Nothing: values compare whole.
    Nothing,
    /// One member of the compared objects themselves (case-insensitive), not of the
    /// values inside them: the id member of an element whose other version has none.
    Member(&'s str),
    /// Every member the predicate names, at any depth: the ids a migration added to a
    /// version and to the arrays of objects inside it.
    Ids(IsId<'s>),
}

impl Skip<'_> {
    fn member(&self, key: &str) -> bool {
        match self {
            Skip::Nothing => false,
            Skip::Member(skip) => key.eq_ignore_ascii_case(skip),
            Skip::Ids(is_id) => is_id(key),
        }
    }
}

/// The least similarity (share of equal members, see [`similarity`]) for two objects to
/// be taken as versions of one another: at least half of all their members are equal.
pub(crate) const PAIRING_THRESHOLD: f64 = 0.5;

/// Up to this many (x, y) comparisons, similarity pairing considers every pair.
const FULL_SEARCH: usize = 1 << 16;

/// Beyond [`FULL_SEARCH`], each x is compared only with the ys at most this many places
/// from its relative position (versions of a long list keep their order; comparing every
/// pair would be quadratic).
const WINDOW: usize = 32;

/// A 64-bit hash of a value (formatting ignored: equal values hash equal), under a seed
/// drawn once per process: no file can hold many distinct values of one hash and make the
/// buckets that compare them ([`pair`], [`Classes`]) quadratic. A filter only: equal
/// hashes are confirmed by comparing the values ([`Classes`]).
pub(crate) fn value_hash(v: Value<'_>) -> u64 {
    static STATE: OnceLock<foldhash::fast::RandomState> = OnceLock::new();
    if collide() {
        return 0;
    }
    let mut h = STATE.get_or_init(Default::default).build_hasher();
    v.hash_value(&mut h);
    h.finish()
}

/// Whether every value is to hash alike (tests of collisions only).
#[cfg(test)]
fn collide() -> bool {
    tests::COLLIDE.with(std::cell::Cell::get)
}

/// Whether every value is to hash alike (tests of collisions only).
#[cfg(not(test))]
const fn collide() -> bool {
    false
}

/// Values numbered by equality: equal values (formatting ignored) get one number, values
/// that differ different ones, in the order first seen (so numbers do not depend on the
/// hash's seed). Hashes only find the candidates; a collision costs a comparison.
#[derive(Default)]
pub(crate) struct Classes<'v> {
    buckets: SeededMap<u64, Vec<(Value<'v>, u64)>>,
    count: u64,
}

impl<'v> Classes<'v> {
    /// The number of `v`'s class.
    pub(crate) fn of(&mut self, v: Value<'v>) -> u64 {
        let bucket = self.buckets.entry(value_hash(v)).or_default();
        if let Some(&(_, class)) = bucket.iter().find(|(w, _)| w.same_value(&v)) {
            return class;
        }
        let class = self.count;
        self.count += 1;
        bucket.push((v, class));
        class
    }

    /// The numbers of the classes of `vs`, in order.
    pub(crate) fn all(&mut self, vs: impl IntoIterator<Item = Value<'v>>) -> Vec<u64> {
        vs.into_iter().map(|v| self.of(v)).collect()
    }

    /// How many classes were seen.
    pub(crate) fn len(&self) -> u64 {
        self.count
    }
}

/// A value's fingerprint for comparisons: its hash with the skipped members left out and,
/// for an object, each remaining member's value hash, sorted by key.
pub(crate) struct Print<'v> {
    /// Equal (with the skipped members left out) if and only if the values are (up to
    /// hash collisions).
    pub(crate) whole: u64,
    members: Option<Vec<(Cow<'v, str>, u64)>>,
}

fn hash_skipping(v: Value<'_>, skip: Skip<'_>, h: &mut FxHasher) {
    match (v.kind(), skip) {
        (Kind::Object, Skip::Ids(_)) => {
            6u8.hash(h);
            for (k, c) in v.members().filter(|(k, _)| !skip.member(k)) {
                k.hash(h);
                hash_skipping(c, skip, h);
            }
        }
        (Kind::Array, Skip::Ids(_)) => {
            5u8.hash(h);
            v.len().hash(h);
            for c in v.children() {
                hash_skipping(c, skip, h);
            }
        }
        _ => v.hash_value(h),
    }
}

impl<'v> Print<'v> {
    /// The fingerprint of `v` with `skip` left out.
    pub(crate) fn new(v: Value<'v>, skip: Skip<'_>) -> Self {
        Self::build(v, skip, true)
    }

    /// The hash of `v` with `skip` left out: [`Print::whole`] alone. A filter only: equal
    /// hashes are confirmed with [`same_skipping`].
    pub(crate) fn hash(v: Value<'v>, skip: Skip<'_>) -> u64 {
        if collide() {
            return 0;
        }
        Self::build(v, skip, false).whole
    }

    fn build(v: Value<'v>, skip: Skip<'_>, with_members: bool) -> Self {
        // Below the compared objects, only `Skip::Ids` leaves members out.
        let inner = match skip {
            Skip::Member(_) => Skip::Nothing,
            other => other,
        };
        let hash = |v: Value<'_>| {
            let mut h = FxHasher::default();
            hash_skipping(v, inner, &mut h);
            h.finish()
        };
        if v.kind() != Kind::Object {
            return Print {
                whole: hash(v),
                members: None,
            };
        }
        let mut h = FxHasher::default();
        6u8.hash(&mut h);
        let mut members = Vec::with_capacity(if with_members { v.len() } else { 0 });
        for (k, c) in v.members().filter(|(k, _)| !skip.member(k)) {
            let ch = hash(c);
            k.hash(&mut h);
            ch.hash(&mut h);
            if with_members {
                members.push((k, ch));
            }
        }
        members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Print {
            whole: h.finish(),
            members: Some(members),
        }
    }
}

/// Whether `a` and `b` are equal with `skip` left out: what equal [`Print::hash`]es stand
/// for, without trusting the hash (formatting ignored, as [`Value::same_value`]).
pub(crate) fn same_skipping(a: Value<'_>, b: Value<'_>, skip: Skip<'_>) -> bool {
    // Below the compared objects, only `Skip::Ids` leaves members out (as `Print::build`).
    let inner = match skip {
        Skip::Member(_) => Skip::Nothing,
        other => other,
    };
    match (a.kind(), b.kind()) {
        (Kind::Object, Kind::Object) => same_members(a, b, skip, inner),
        _ => same_inside(a, b, inner),
    }
}

/// The members of objects `a` and `b` but those `skip` names, in order: equal keys, and
/// values equal with `inner` left out.
fn same_members(a: Value<'_>, b: Value<'_>, skip: Skip<'_>, inner: Skip<'_>) -> bool {
    let mut xs = a.members().filter(|(k, _)| !skip.member(k));
    let mut ys = b.members().filter(|(k, _)| !skip.member(k));
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => return true,
            (Some((kx, x)), Some((ky, y))) if kx == ky && same_inside(x, y, inner) => {}
            _ => return false,
        }
    }
}

/// Values inside the compared ones: with `Skip::Ids`, objects and arrays member by member
/// and element by element; any other value whole.
fn same_inside(a: Value<'_>, b: Value<'_>, skip: Skip<'_>) -> bool {
    match (a.kind(), b.kind(), skip) {
        (Kind::Object, Kind::Object, Skip::Ids(_)) => same_members(a, b, skip, skip),
        (Kind::Array, Kind::Array, Skip::Ids(_)) => {
            a.len() == b.len()
                && a.children()
                    .zip(b.children())
                    .all(|(x, y)| same_inside(x, y, skip))
        }
        _ => a.same_value(&b),
    }
}

/// How alike two values are, from 0 to 1: for two objects the share of members (of
/// both, by key) whose values are equal; for other values 1 if equal, else 0.
pub(crate) fn similarity(a: &Print<'_>, b: &Print<'_>) -> f64 {
    let (Some(xs), Some(ys)) = (&a.members, &b.members) else {
        return if a.whole == b.whole { 1.0 } else { 0.0 };
    };
    let (mut i, mut j, mut common, mut equal) = (0, 0, 0usize, 0usize);
    while i < xs.len() && j < ys.len() {
        match xs[i].0.cmp(&ys[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                equal += usize::from(xs[i].1 == ys[j].1);
                i += 1;
                j += 1;
            }
        }
    }
    let union = xs.len() + ys.len() - common;
    if union == 0 {
        1.0
    } else {
        equal as f64 / union as f64
    }
}

/// Of candidates with their similarity, the first most similar one at or above
/// [`PAIRING_THRESHOLD`].
pub(crate) fn most_similar<T>(candidates: impl Iterator<Item = (T, f64)>) -> Option<(T, f64)> {
    candidates
        .filter(|&(_, s)| s >= PAIRING_THRESHOLD)
        .fold(None, |best, (c, s)| match best {
            Some((_, bs)) if bs >= s => best,
            _ => Some((c, s)),
        })
}

/// Why two elements were paired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Basis<'k> {
    /// The value of this natural key.
    NaturalKey(&'k str),
    /// Equal values.
    Equal,
    /// Similar values, with their similarity.
    Similar(f64),
}

/// For each x, the index of its y and why they were paired.
pub(crate) type Pairs<'k> = Vec<Option<(usize, Basis<'k>)>>;

/// For each x, the index of its y.
pub(crate) fn indices(pairs: &Pairs<'_>) -> Vec<Option<usize>> {
    pairs.iter().map(|p| p.map(|(j, _)| j)).collect()
}

/// Pairs each of `xs` with at most one of `ys`: by a natural key present and unique in
/// every element of both if there is one; else equal values first, then similarity with
/// `skip` left out (in order, greedily; near the same relative position only, in long
/// lists).
pub(crate) fn pair<'k>(
    xs: &[Value<'_>],
    ys: &[Value<'_>],
    natural_keys: &'k [String],
    skip: Skip<'_>,
) -> Pairs<'k> {
    let mut result = vec![None; xs.len()];
    let mut used = vec![false; ys.len()];
    let natural = natural_keys.iter().find_map(|k| {
        let x = KeyedIndex::by_natural_key(xs, k)?;
        Some((k, x, KeyedIndex::by_natural_key(ys, k)?))
    });
    if let Some((key, x, y)) = natural {
        for (i, v) in x.ids.iter().enumerate() {
            result[i] = y.get(v).map(|j| (j, Basis::NaturalKey(key.as_str())));
        }
        return result;
    }
    // Equal values: each x takes the first unused equal y (found by hash).
    let mut by_hash: SeededMap<u64, VecDeque<usize>> = SeededMap::default();
    for (j, y) in ys.iter().enumerate() {
        by_hash.entry(value_hash(*y)).or_default().push_back(j);
    }
    for (i, x) in xs.iter().enumerate() {
        let Some(candidates) = by_hash.get_mut(&value_hash(*x)) else {
            continue;
        };
        if let Some(k) = candidates.iter().position(|&j| ys[j].same_value(x)) {
            let j = candidates.remove(k).unwrap_or_default();
            result[i] = Some((j, Basis::Equal));
            used[j] = true;
        }
    }
    if result.iter().all(Option::is_some) || used.iter().all(|&u| u) {
        return result;
    }
    // Similarity: the best unused y, among all of them for small inputs, else among
    // those near x's relative position.
    let px: Vec<Print<'_>> = xs.iter().map(|v| Print::new(*v, skip)).collect();
    let py: Vec<Print<'_>> = ys.iter().map(|v| Print::new(*v, skip)).collect();
    let full = xs.len().saturating_mul(ys.len()) <= FULL_SEARCH;
    for i in 0..xs.len() {
        if result[i].is_some() {
            continue;
        }
        let range = if full {
            0..ys.len()
        } else {
            let center = i * ys.len() / xs.len().max(1);
            center.saturating_sub(WINDOW)..(center + WINDOW + 1).min(ys.len())
        };
        let candidates = range
            .filter(|&j| !used[j])
            .map(|j| (j, similarity(&px[i], &py[j])));
        if let Some((j, s)) = most_similar(candidates) {
            result[i] = Some((j, Basis::Similar(s)));
            used[j] = true;
        }
    }
    result
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use sjson::{Dialect, Document};

    use super::*;

    thread_local! {
        /// Whether every value hashes alike on this thread (see [`colliding`]).
        pub(crate) static COLLIDE: Cell<bool> = const { Cell::new(false) };
    }

    /// `f`'s result with every [`value_hash`] of this thread equal: a collision of every
    /// pair of values, to show none is taken as equality.
    pub(crate) fn colliding<R>(f: impl FnOnce() -> R) -> R {
        COLLIDE.with(|c| c.set(true));
        let result = f();
        COLLIDE.with(|c| c.set(false));
        result
    }

    fn doc(text: &str) -> Document {
        Document::parse(text, Dialect::Sjson).unwrap()
    }

    /// A small object's text: members from a few keys and values, in the order given.
    fn object_text(members: &[(usize, usize)], gap: &str) -> String {
        const KEYS: [&str; 4] = ["id", "a", "b", "c"];
        const VALUES: [&str; 6] = [
            "1",
            "1.0",
            "\"x\"",
            "[1 2]",
            "{ id = 3 a = 1 }",
            "[{ id = 4 b = 2 }]",
        ];
        let mut seen = std::collections::HashSet::new();
        let body: Vec<String> = members
            .iter()
            .filter(|(k, _)| seen.insert(*k))
            .map(|&(k, v)| format!("{} ={gap}{}", KEYS[k % 4], VALUES[v % 6]))
            .collect();
        format!("{{ {} }}", body.join(gap))
    }

    proptest::proptest! {
        /// The values' comparison agrees with their prints' hashes (which only filter), for
        /// every kind of skip, formatting apart.
        #[test]
        fn same_skipping_is_what_equal_prints_stand_for(
            a in proptest::collection::vec((0usize..4, 0usize..6), 0..4),
            b in proptest::collection::vec((0usize..4, 0usize..6), 0..4),
            same in proptest::bool::ANY,
            gap in proptest::sample::select(vec![" ", "  ", "\n\t"]),
        ) {
            let b = if same { a.clone() } else { b };
            let d = doc(&format!("l = [{} {}]", object_text(&a, " "), object_text(&b, gap)));
            let e = elements(&d);
            let is_id = |k: &str| k == "id";
            for skip in [Skip::Nothing, Skip::Member("id"), Skip::Ids(&is_id)] {
                let hashes = Print::hash(e[0], skip) == Print::hash(e[1], skip);
                proptest::prop_assert_eq!(same_skipping(e[0], e[1], skip), hashes);
            }
        }
    }

    fn elements(d: &Document) -> Vec<Value<'_>> {
        d.root().get("l").unwrap().children().collect()
    }

    fn sim(a: Value<'_>, b: Value<'_>, skip: Skip<'_>) -> f64 {
        similarity(&Print::new(a, skip), &Print::new(b, skip))
    }

    fn pair_at(
        xs: &[Value<'_>],
        ys: &[Value<'_>],
        natural: &[String],
        skip: Skip<'_>,
    ) -> Vec<Option<usize>> {
        indices(&pair(xs, ys, natural, skip))
    }

    fn print_of(v: Value<'_>, skip: Skip<'_>) -> u64 {
        Print::new(v, skip).whole
    }

    #[test]
    fn hashes_ignore_formatting_and_the_skipped_member() {
        let d = doc("l = [{ a = 1, b = [1 2] } {a=1.0 b=[1,2.0]} { id = 7 a = 1 b = [1 2] } { b = [1 2] a = 1 }]");
        let e = elements(&d);
        assert_eq!(value_hash(e[0]), value_hash(e[1]));
        assert_ne!(value_hash(e[0]), value_hash(e[2]));
        assert_eq!(
            print_of(e[0], Skip::Member("id")),
            print_of(e[2], Skip::Member("ID"))
        );
        assert_eq!(print_of(e[0], Skip::Nothing), print_of(e[1], Skip::Nothing));
        // Key order matters (objects are ordered).
        assert_ne!(value_hash(e[0]), value_hash(e[3]));
        // Ids left out at any depth; a skipped member only at the top.
        let d = doc("l = [{ a = [{ id = 1 v = 1 }] } { a = [{ v = 1 }] }]");
        let e = elements(&d);
        let is_id = |k: &str| k == "id";
        assert_eq!(
            print_of(e[0], Skip::Ids(&is_id)),
            print_of(e[1], Skip::Ids(&is_id))
        );
        assert_ne!(
            print_of(e[0], Skip::Member("id")),
            print_of(e[1], Skip::Member("id"))
        );
    }

    #[test]
    fn classes_tell_colliding_values_apart() {
        let d = doc("l = [1 2 1.0 { a = 1 } { a = 2 } {a=1.0} [1] [2]]");
        let e = elements(&d);
        let classes = colliding(|| Classes::default().all(e.iter().copied()));
        assert_eq!(classes, [0, 1, 0, 2, 3, 2, 4, 5]);
        assert_eq!(classes, Classes::default().all(e.iter().copied()));
    }

    #[test]
    fn similarity_is_the_share_of_equal_members() {
        let d =
            doc("l = [{ a = 1 b = 2 c = 3 d = 4 } { a = 1 b = 2 c = 0 } { x = 1 } {} {} 5 5.0 6]");
        let e = elements(&d);
        // Equal: a, b; union: a, b, c, d.
        assert_eq!(sim(e[0], e[1], Skip::Nothing), 0.5);
        assert_eq!(sim(e[0], e[2], Skip::Nothing), 0.0);
        assert_eq!(sim(e[3], e[4], Skip::Nothing), 1.0);
        assert_eq!(sim(e[5], e[6], Skip::Nothing), 1.0);
        assert_eq!(sim(e[5], e[7], Skip::Nothing), 0.0);
        assert_eq!(sim(e[0], e[5], Skip::Nothing), 0.0);
        let d = doc("l = [{ id = 1 a = 1 } { id = 2 a = 1 }]");
        let e = elements(&d);
        assert_eq!(sim(e[0], e[1], Skip::Member("id")), 1.0);
        assert_eq!(sim(e[0], e[1], Skip::Nothing), 0.5);
    }

    #[test]
    fn pairs_by_natural_key_first() {
        let d = doc("x = [{ name = a v = 1 } { name = b v = 2 }] y = [{ name = b v = 1 } { name = c v = 2 } { name = a v = 9 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // By name even though b's value equals nothing and a's changed.
        assert_eq!(
            pair_at(&xs, &ys, &["name".into()], Skip::Nothing),
            [Some(2), Some(0)]
        );
        // Without natural keys: by similarity (v = 1 equal for x0 and y0, names differ).
        assert_eq!(pair_at(&xs, &ys, &[], Skip::Nothing), [Some(0), Some(1)]);
    }

    #[test]
    fn numeric_natural_keys_compare_by_value() {
        let d = doc("x = [{ name = 1 v = 1 } { name = 2 v = 2 }] y = [{ name = 2.0 v = 0 } { name = 1.0 v = 0 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        assert_eq!(
            pair_at(&xs, &ys, &["name".into()], Skip::Nothing),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn a_natural_key_must_be_present_and_unique() {
        let d = doc("x = [{ name = a v = 1 w = 1 } { name = a v = 2 w = 2 }] y = [{ name = a v = 2 w = 2 } { name = a v = 1 w = 1 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // `name` repeats: pairing falls back to equality.
        assert_eq!(
            pair_at(&xs, &ys, &["name".into()], Skip::Nothing),
            [Some(1), Some(0)]
        );
        let d = doc("x = [{ name = a } { v = 1 }] y = [{ v = 1 } { name = a }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        assert_eq!(
            pair_at(&xs, &ys, &["name".into()], Skip::Nothing),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn dissimilar_objects_stay_unpaired_and_each_is_used_once() {
        let d = doc("x = [{ a = 1 b = 1 c = 1 } { a = 1 b = 1 c = 1 }] y = [{ a = 1 b = 1 c = 2 } { p = 1 }]");
        let xs: Vec<_> = d.root().get("x").unwrap().children().collect();
        let ys: Vec<_> = d.root().get("y").unwrap().children().collect();
        // Both x resemble y0 (2 of 4 keys equal), only the first gets it.
        assert_eq!(pair_at(&xs, &ys, &[], Skip::Nothing), [Some(0), None]);
        assert_eq!(pair_at(&xs, &[], &[], Skip::Nothing), [None, None]);
        assert!(pair_at(&[], &ys, &[], Skip::Nothing).is_empty());
    }
}
