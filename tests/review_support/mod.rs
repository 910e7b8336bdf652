//! The test arena of the review page tests: a walled arena of about 80 objects, and an
//! edit of it, as SJSON levels.

use std::fmt::Write as _;

/// An object of the test arena.
pub struct Obj {
    pub name: String,
    pub unit: &'static str,
    pub pos: [f64; 3],
    pub extra: &'static str,
}

const WALL: &str = "units/architecture/wall";

/// A torch's light.
const LIGHT: &str = "\t\tlight = {\n\t\t\tcolor = [1.0 0.6 0.3]\n\t\t\tintensity = 4.5\n\t\t}\n";

/// The arena's objects, added in order.
struct Arena(Vec<Obj>);

impl Arena {
    fn add(&mut self, name: String, unit: &'static str, (x, y): (f64, f64), extra: &'static str) {
        self.0.push(Obj {
            name,
            unit,
            pos: [x, y, 0.0],
            extra,
        });
    }

    /// Walls along the four sides.
    fn walls(&mut self) {
        for i in 0..13 {
            let x = -60.0 + 10.0 * i as f64;
            self.add(format!("wall_n_{:02}", i + 1), WALL, (x, 40.0), "");
            self.add(format!("wall_s_{:02}", i + 1), WALL, (x, -40.0), "");
        }
        for i in 0..7 {
            let y = -30.0 + 10.0 * i as f64;
            self.add(format!("wall_w_{:02}", i + 1), WALL, (-60.0, y), "");
            self.add(format!("wall_e_{:02}", i + 1), WALL, (60.0, y), "");
        }
    }

    /// A ring of pillars around the centre, and two stacks of crates.
    fn pillars_and_crates(&mut self) {
        for i in 0..10 {
            let a = i as f64 * std::f64::consts::TAU / 10.0;
            let round = |v: f64| (v * 22.0 * 100.0).round() / 100.0;
            let unit = "units/architecture/pillar";
            self.add(
                format!("pillar_{:02}", i + 1),
                unit,
                (round(a.cos()), round(a.sin())),
                "",
            );
        }
        for (tag, cx, cy) in [("a", -36.0, 22.0), ("b", 30.0, -20.0)] {
            for i in 0..5 {
                let at = (cx + (i % 3) as f64 * 2.5, cy + (i / 3) as f64 * 2.5);
                self.add(
                    format!("crate_{tag}_{}", i + 1),
                    "units/props/crate",
                    at,
                    "",
                );
            }
        }
    }

    /// Torches, the two spawn points and trees.
    fn torches_spawns_and_trees(&mut self) {
        let torches = [
            (-45.0, 30.0),
            (45.0, 30.0),
            (-45.0, -30.0),
            (45.0, -30.0),
            (0.0, 34.0),
            (0.0, -34.0),
        ];
        for (i, at) in torches.into_iter().enumerate() {
            self.add(
                format!("torch_{:02}", i + 1),
                "units/lights/torch",
                at,
                LIGHT,
            );
        }
        let spawn = "units/gameplay/spawn_point";
        self.add("spawn_red".into(), spawn, (-52.0, 0.0), "");
        self.add("spawn_blue".into(), spawn, (52.0, 0.0), "");
        let trees = [
            (-52.0, 33.0),
            (-48.0, 35.0),
            (52.0, 33.0),
            (48.0, -35.0),
            (-52.0, -32.0),
            (53.0, -30.0),
            (-20.0, 33.0),
            (20.0, -33.0),
        ];
        for (i, at) in trees.into_iter().enumerate() {
            self.add(
                format!("tree_oak_{:02}", i + 1),
                "units/foliage/tree_oak",
                at,
                "",
            );
        }
    }
}

/// A walled arena of about 80 objects: walls, a ring of pillars, two crate stacks,
/// torches, spawns and trees.
pub fn arena() -> Vec<Obj> {
    let mut arena = Arena(Vec::new());
    arena.walls();
    arena.pillars_and_crates();
    arena.torches_spawns_and_trees();
    arena.0
}

/// The id of the object named `name`.
pub fn id_of(name: &str) -> String {
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    });
    format!("{h:08x}-1f43-4c8e-9a57-{:012x}", h as u64 * 7919)
}

/// The arena as SJSON, with `fog` as the fog density.
pub fn level(objects: &[Obj], fog: &str) -> String {
    let mut s =
        format!("level_settings = {{\n\tfog = {{\n\t\tdensity = {fog}\n\t}}\n}}\nentities = [\n");
    for o in objects {
        let _ = write!(
            s,
            "\t{{\n\t\tid = \"{}\"\n\t\tname = \"{}\"\n\t\tunit = \"{}\"\n\t\tposition = [{:?} {:?} {:?}]\n\t\trotation = [0 0 0 1]\n{}\t}}\n",
            id_of(&o.name), o.name, o.unit, o.pos[0], o.pos[1], o.pos[2], o.extra
        );
    }
    s.push_str("]\n");
    s
}

/// The object named `name`.
pub fn find<'a>(objects: &'a mut [Obj], name: &str) -> &'a mut Obj {
    objects.iter_mut().find(|o| o.name == name).unwrap()
}

/// The edited arena: 3 crates moved, a torch brighter, 4 objects added, 2 deleted, a
/// wall replaced, the fog denser (12 changed objects).
pub fn edited() -> Vec<Obj> {
    let mut v = arena();
    for (i, name) in ["crate_b_1", "crate_b_2", "crate_b_3"]
        .into_iter()
        .enumerate()
    {
        let o = find(&mut v, name);
        o.pos = [o.pos[0] + 9.0, o.pos[1] + 6.0 + i as f64, 0.0];
    }
    find(&mut v, "torch_02").extra =
        "\t\tlight = {\n\t\t\tcolor = [0.4 0.6 1.0]\n\t\t\tintensity = 6.0\n\t\t}\n";
    find(&mut v, "wall_e_03").unit = "units/architecture/wall_broken";
    v.retain(|o| o.name != "pillar_04" && o.name != "tree_oak_06");
    for (i, y) in [-9.0, 0.0, 9.0].into_iter().enumerate() {
        v.push(Obj {
            name: format!("barricade_{:02}", i + 1),
            unit: "units/props/barricade",
            pos: [-8.0, y, 0.0],
            extra: "",
        });
    }
    v.push(Obj {
        name: "ammo_box".into(),
        unit: "units/props/ammo_box",
        pos: [10.0, 4.0, 0.0],
        extra: "",
    });
    v
}
