//! Synthetic game levels for benchmarks: `n` entities of about 200 bytes each, written
//! as SJSON (Stingray style) or JSON, and concurrent edits of them for merge benchmarks.

#![forbid(unsafe_code)]

use std::fmt::Write as _;

pub mod edits;
mod rng;

pub use rng::Rng;

/// One entity of a level.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// Unique id (a GUID-like string).
    pub id: String,
    /// The unit resource it instantiates.
    pub unit: String,
    /// Position.
    pub pos: [f64; 3],
    /// Rotation quaternion.
    pub rot: [f64; 4],
    /// Scale.
    pub scale: f64,
    /// A free-form name.
    pub name: String,
}

impl Entity {
    /// A random entity with serial number `serial`.
    pub fn random(rng: &mut Rng, serial: u64) -> Entity {
        const UNITS: [&str; 6] = [
            "units/props/barrel",
            "units/props/crate_large",
            "units/architecture/wall_02",
            "units/foliage/tree_oak",
            "units/lights/torch",
            "units/characters/guard",
        ];
        Entity {
            id: format!(
                "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
                serial as u32,
                rng.below(0x10000),
                rng.below(0x1000),
                rng.below(0x1000),
                rng.below(1 << 48)
            ),
            unit: UNITS[rng.below(UNITS.len() as u64) as usize].to_string(),
            pos: [rng.coord(), rng.coord(), rng.coord()],
            rot: [0.0, 0.0, (rng.below(1000) as f64) / 1000.0, 1.0],
            scale: 1.0,
            name: format!("entity_{serial}"),
        }
    }
}

/// A level: a list of entities plus a few settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// The entities, in order.
    pub entities: Vec<Entity>,
    /// A level setting that edits may change.
    pub ambient: [f64; 3],
}

impl Level {
    /// A level of `n` random entities.
    pub fn random(n: usize, seed: u64) -> Level {
        let mut rng = Rng::new(seed);
        Level {
            entities: (0..n as u64).map(|i| Entity::random(&mut rng, i)).collect(),
            ambient: [0.1, 0.1, 0.1],
        }
    }

    /// The level as Stingray-style SJSON.
    pub fn to_sjson(&self) -> String {
        let mut s = String::with_capacity(self.entities.len() * 220 + 100);
        let _ = writeln!(
            s,
            "ambient = [{} {} {}]",
            f(self.ambient[0]),
            f(self.ambient[1]),
            f(self.ambient[2])
        );
        s.push_str("entities = [\n");
        for e in &self.entities {
            let _ = write!(
                s,
                "\t{{\n\t\tid = \"{}\"\n\t\tname = \"{}\"\n\t\tunit = \"{}\"\n\t\tpos = [{} {} {}]\n\t\trot = [{} {} {} {}]\n\t\tscale = {}\n\t}}\n",
                e.id, e.name, e.unit, f(e.pos[0]), f(e.pos[1]), f(e.pos[2]),
                f(e.rot[0]), f(e.rot[1]), f(e.rot[2]), f(e.rot[3]), f(e.scale)
            );
        }
        s.push_str("]\n");
        s
    }

    /// The level as JSON (two-space indentation).
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(self.entities.len() * 260 + 100);
        let _ = write!(
            s,
            "{{\n  \"ambient\": [{}, {}, {}],\n  \"entities\": [",
            f(self.ambient[0]),
            f(self.ambient[1]),
            f(self.ambient[2])
        );
        for (i, e) in self.entities.iter().enumerate() {
            let _ = write!(
                s,
                "{}\n    {{\n      \"id\": \"{}\",\n      \"name\": \"{}\",\n      \"unit\": \"{}\",\n      \"pos\": [{}, {}, {}],\n      \"rot\": [{}, {}, {}, {}],\n      \"scale\": {}\n    }}",
                if i == 0 { "" } else { "," },
                e.id, e.name, e.unit, f(e.pos[0]), f(e.pos[1]), f(e.pos[2]),
                f(e.rot[0]), f(e.rot[1]), f(e.rot[2]), f(e.rot[3]), f(e.scale)
            );
        }
        s.push_str("\n  ]\n}\n");
        s
    }
}

/// Formats a float as Stingray does: always with a fraction.
fn f(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}
