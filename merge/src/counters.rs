//! Ids drawn from a file's counters: Tiled's object and layer ids (`nextobjectid`,
//! `nextlayerid`) and LDtk's `uid`s (`nextUid`). Two designers who each create an object
//! draw the same id for different objects; merged by id, the two would be fused. Before
//! the merge, theirs' clashing new objects are renumbered above every id of the three
//! versions (references to them in theirs follow: Tiled properties of type `object`,
//! LDtk members named `…Uid`, `…Uids` and `levelId`); an object both sides added alike is
//! one object and keeps its id. After the merge, each counter is set above its ids.

use std::collections::{HashMap, HashSet};

use sjson::{Document, Kind, Path, Segment, Value};

use crate::game::{element_step, int, spliced, walk, Edit, Game};
use crate::{Conflict, ConflictKind, Side};

/// The ids one counter gives out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Family {
    /// Tiled map objects' `id`.
    Object,
    /// Tiled layers' `id`.
    Layer,
    /// LDtk's `uid`s (definitions, levels, rules).
    Uid,
    /// The objects of one tile's collision shapes (`tilesets[].tiles[].objectgroup`), by
    /// the tileset's `firstgid` and the tile's `id`: Tiled numbers them per tile, one
    /// above the tile's highest, with no counter in the file.
    TileObject {
        /// The tileset's `firstgid` (0 in a tileset file).
        firstgid: i64,
        /// The tile's id in its tileset.
        tile: i64,
    },
}

impl Family {
    /// The root member that counts this family's ids (none for a tile's shapes).
    fn counter(self) -> Option<&'static str> {
        match self {
            Family::Object => Some("nextobjectid"),
            Family::Layer => Some("nextlayerid"),
            Family::Uid => Some("nextUid"),
            Family::TileObject { .. } => None,
        }
    }

    fn of(game: Game) -> &'static [Family] {
        match game {
            Game::Tiled => &[Family::Object, Family::Layer],
            Game::Ldtk => &[Family::Uid],
        }
    }
}

/// An object holding an id of a family.
struct Holder<'d> {
    family: Family,
    id: i64,
    object: Value<'d>,
    id_value: Value<'d>,
    /// The object's report pointer.
    path: Path,
}

/// Every object of `doc` holding a counted id.
fn holders(game: Game, doc: &Document) -> Vec<Holder<'_>> {
    let mut out = Vec::new();
    let root = doc.root();
    let mut path = Path::root();
    match game {
        Game::Tiled => {
            if let Some(layers) = root.get("layers") {
                path.push(Segment::Key("layers".into()));
                tiled_layers(layers, &mut path, &mut out);
                path.pop();
            }
            if let Some(tilesets) = root.get("tilesets").filter(|t| t.kind() == Kind::Array) {
                path.push(Segment::Key("tilesets".into()));
                for (i, tileset) in tilesets.children().enumerate() {
                    path.push(element_step(i, tileset));
                    tile_shapes(tileset, &mut path, &mut out);
                    path.pop();
                }
                path.pop();
            }
            // A tileset file: its tiles at the root.
            if root.get("type").and_then(|t| t.as_str()).as_deref() == Some("tileset") {
                tile_shapes(root, &mut path, &mut out);
            }
        }
        Game::Ldtk => walk(root, &mut path, &mut |v, path| {
            push_holder_by(Family::Uid, "uid", v, path, &mut out);
        }),
    }
    out
}

/// The layers of Tiled layer list `list` (groups' layers too) and their objects.
fn tiled_layers<'d>(list: Value<'d>, path: &mut Path, out: &mut Vec<Holder<'d>>) {
    if list.kind() != Kind::Array {
        return;
    }
    for (i, layer) in list.children().enumerate() {
        if layer.kind() != Kind::Object {
            continue;
        }
        path.push(element_step(i, layer));
        push_holder(Family::Layer, layer, path, out);
        if let Some(objects) = layer.get("objects").filter(|o| o.kind() == Kind::Array) {
            path.push(Segment::Key("objects".into()));
            for (j, object) in objects.children().enumerate() {
                path.push(element_step(j, object));
                push_holder(Family::Object, object, path, out);
                path.pop();
            }
            path.pop();
        }
        if let Some(sub) = layer.get("layers") {
            path.push(Segment::Key("layers".into()));
            tiled_layers(sub, path, out);
            path.pop();
        }
        path.pop();
    }
}

/// The objects of the collision shapes of `tileset`'s tiles, each tile's its own family.
fn tile_shapes<'d>(tileset: Value<'d>, path: &mut Path, out: &mut Vec<Holder<'d>>) {
    let Some(tiles) = tileset.get("tiles").filter(|t| t.kind() == Kind::Array) else {
        return;
    };
    let firstgid = int(tileset.get("firstgid")).unwrap_or(0);
    path.push(Segment::Key("tiles".into()));
    for (i, tile) in tiles.children().enumerate() {
        let objects = tile
            .get("objectgroup")
            .and_then(|g| g.get("objects"))
            .filter(|o| o.kind() == Kind::Array);
        let (Some(objects), Some(id)) = (objects, int(tile.get("id"))) else {
            continue;
        };
        let family = Family::TileObject { firstgid, tile: id };
        path.push(element_step(i, tile));
        path.push(Segment::Key("objectgroup".into()));
        path.push(Segment::Key("objects".into()));
        for (j, object) in objects.children().enumerate() {
            path.push(element_step(j, object));
            push_holder(family, object, path, out);
            path.pop();
        }
        path.0.truncate(path.0.len() - 3);
    }
    path.pop();
}

/// Records `object` as a holder of its number `id` in `family`, when it has one.
fn push_holder<'d>(family: Family, object: Value<'d>, path: &Path, out: &mut Vec<Holder<'d>>) {
    push_holder_by(family, "id", object, path, out);
}

/// [`push_holder`] for an object whose number id is under `key` (LDtk's `uid`).
fn push_holder_by<'d>(
    family: Family,
    key: &str,
    object: Value<'d>,
    path: &Path,
    out: &mut Vec<Holder<'d>>,
) {
    let Some(id_value) = object.get(key).filter(|_| object.kind() == Kind::Object) else {
        return;
    };
    if let Some(id) = int(Some(id_value)) {
        let path = path.clone();
        out.push(Holder {
            family,
            id,
            object,
            id_value,
            path,
        });
    }
}

/// Theirs with its clashing new ids renumbered (`None` when none clash), and a report of
/// each renumbering.
pub(crate) struct Renumbered {
    /// Theirs, renumbered; `None` when nothing was.
    pub(crate) document: Option<Document>,
    /// One [`ConflictKind::Renumbered`] per object renumbered.
    pub(crate) reports: Vec<Conflict>,
}

/// Renumbers theirs' new objects whose id ours gave a different new object.
pub(crate) fn renumber(
    game: Game,
    base: &Document,
    ours: &Document,
    theirs: &Document,
) -> Result<Renumbered, sjson::ParseError> {
    let versions = [base, ours, theirs].map(|d| holders(game, d));
    let next = first_free(game, [base, ours, theirs], &versions);
    let mut next: HashMap<Family, i64> = next;
    let [in_base, in_ours, in_theirs] = &versions;
    let base_ids: HashSet<(Family, i64)> = in_base.iter().map(|h| (h.family, h.id)).collect();
    let ours_new: HashMap<(Family, i64), Value<'_>> = in_ours
        .iter()
        .filter(|h| !base_ids.contains(&(h.family, h.id)))
        .map(|h| ((h.family, h.id), h.object))
        .collect();
    let mut renames: HashMap<(Family, i64), i64> = HashMap::new();
    let mut reports = Vec::new();
    let mut edits = Vec::new();
    for h in in_theirs {
        let key = (h.family, h.id);
        let clash = ours_new.get(&key).is_some_and(|o| !o.same_value(&h.object));
        if !clash || renames.contains_key(&key) {
            continue;
        }
        let counter = next.entry(h.family).or_insert(1);
        let new = (*counter).max(1);
        *counter = new.saturating_add(1);
        renames.insert(key, new);
        reports.push(report(h, new));
        if game == Game::Tiled {
            edits.push((h.id_value.span(), new.to_string()));
        }
    }
    if renames.is_empty() {
        return Ok(Renumbered {
            document: None,
            reports,
        });
    }
    edits.extend(reference_edits(game, theirs, &renames));
    let document = Some(spliced(theirs, edits)?);
    Ok(Renumbered { document, reports })
}

/// Each family's first free id: above every id of the three versions and their counters.
fn first_free(
    game: Game,
    docs: [&Document; 3],
    versions: &[Vec<Holder<'_>>; 3],
) -> HashMap<Family, i64> {
    let mut next: HashMap<Family, i64> = HashMap::new();
    for (doc, held) in docs.into_iter().zip(versions) {
        for h in held {
            let entry = next.entry(h.family).or_insert(0);
            *entry = (*entry).max(h.id.saturating_add(1));
        }
        for &family in Family::of(game) {
            let counter = family.counter().and_then(|c| int(doc.root().get(c)));
            let entry = next.entry(family).or_insert(0);
            *entry = (*entry).max(counter.unwrap_or(0));
        }
    }
    next
}

/// The report of `h`'s renumbering to `new`, at its new place.
fn report(h: &Holder<'_>, new: i64) -> Conflict {
    let mut path = h.path.clone();
    if let Some(Segment::Id { value, .. }) = path.0.last_mut() {
        if *value == h.id.to_string() {
            *value = new.to_string();
        }
    }
    let name = ["name", "identifier", "__identifier"].iter().find_map(|k| {
        let name = h.object.get(k)?.as_str()?;
        (!name.is_empty()).then(|| name.into_owned())
    });
    Conflict {
        path,
        kind: ConflictKind::Renumbered,
        base: None,
        ours: Some(h.id.to_string()),
        theirs: Some(new.to_string()),
        taken: Side::Ours,
        object: name,
        referrer: None,
    }
}

/// The edits of theirs' references to its renumbered objects (and, for LDtk, of the
/// `uid`s themselves).
fn reference_edits(
    game: Game,
    theirs: &Document,
    renames: &HashMap<(Family, i64), i64>,
) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut edit = |family: Family, v: Value<'_>| {
        if let Some(new) = int(Some(v)).and_then(|id| renames.get(&(family, id))) {
            edits.push((v.span(), new.to_string()));
        }
    };
    walk(theirs.root(), &mut Path::root(), &mut |v, _| {
        if v.kind() != Kind::Object {
            return;
        }
        match game {
            // A custom property of type `object` holds an object's id.
            Game::Tiled => {
                let is_object = v.get("type").and_then(|t| t.as_str()).as_deref() == Some("object");
                if let Some(value) = v
                    .get("value")
                    .filter(|_| is_object && v.get("name").is_some())
                {
                    edit(Family::Object, value);
                }
            }
            Game::Ldtk => {
                for (key, value) in v.members() {
                    if key == "uid" || key.ends_with("Uid") || key == "levelId" {
                        edit(Family::Uid, value);
                    } else if key.ends_with("Uids") && value.kind() == Kind::Array {
                        value.children().for_each(|c| edit(Family::Uid, c));
                    }
                }
            }
        }
    });
    edits
}

/// The edits that set each of `merged`'s counters above its family's ids (none when it
/// already is, or is absent).
pub(crate) fn counter_edits(game: Game, merged: &Document) -> Vec<Edit> {
    let held = holders(game, merged);
    Family::of(game)
        .iter()
        .filter_map(|&family| {
            let counter = merged.root().get(family.counter()?)?;
            let now = int(Some(counter))?;
            let top = held
                .iter()
                .filter(|h| h.family == family)
                .map(|h| h.id)
                .max()?;
            (now <= top).then(|| (counter.span(), top.saturating_add(1).to_string()))
        })
        .collect()
}

/// Whether every counted id of `doc` is unique in its family and below its counter (when
/// the file has one): the invariant the merge keeps for map editors' files.
pub fn ids_coherent(doc: &Document) -> bool {
    let Some(game) = Game::of(doc) else {
        return true;
    };
    let held = holders(game, doc);
    let mut seen = HashSet::new();
    if !held.iter().all(|h| seen.insert((h.family, h.id))) {
        return false;
    }
    Family::of(game).iter().all(|&family| {
        let counter = family.counter().and_then(|c| int(doc.root().get(c)));
        held.iter()
            .filter(|h| h.family == family)
            .all(|h| counter.is_none_or(|c| h.id < c))
    })
}
