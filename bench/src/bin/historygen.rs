//! `historygen ENTITIES COMMITS [CHANGES]`: a `git fast-import` stream on stdout: a level
//! of ENTITIES entities (`levels/big.level`, levelgen's SJSON) created by one commit, then
//! COMMITS commits by four authors, each moving CHANGES random entities (default 3); the
//! first entity (the one `bench/objects_bench.sh` logs) also moves every 100th commit.
//! Fast: only the changed entities are rendered again.

use std::io::Write;

use levelgen::{Entity, Level, Rng};

const AUTHORS: [&str; 4] = ["Alice", "Bob", "Carol", "Dave"];

/// One entity as the level prints it.
fn render(e: &Entity, ambient: [f64; 3]) -> String {
    let text = Level {
        entities: vec![e.clone()],
        ambient,
    }
    .to_sjson();
    let start = text
        .find("entities = [\n")
        .map_or(0, |i| i + "entities = [\n".len());
    text[start..text.len() - 2].to_string()
}

fn main() -> std::io::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (n, commits, changes) = (
        args.first().copied().unwrap_or(10_000).max(1),
        args.get(1).copied().unwrap_or(10_000),
        args.get(2).copied().unwrap_or(3),
    );
    let mut level = Level::random(n, 42);
    let ambient = level.ambient;
    let head = {
        let text = level.to_sjson();
        text[..text.find("entities = [\n").unwrap_or(0) + "entities = [\n".len()].to_string()
    };
    let mut rendered: Vec<String> = level.entities.iter().map(|e| render(e, ambient)).collect();
    let mut rng = Rng::new(7);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out.lock());
    let mut body = String::with_capacity(n * 220);
    for c in 0..=commits {
        if c > 0 {
            let mut picks: Vec<usize> =
                (0..changes).map(|_| rng.below(n as u64) as usize).collect();
            if c % 100 == 0 {
                picks.push(0);
            }
            for i in picks {
                level.entities[i].pos[0] += 1.0;
                rendered[i] = render(&level.entities[i], ambient);
            }
        }
        body.clear();
        body.push_str(&head);
        for r in &rendered {
            body.push_str(r);
        }
        body.push_str("]\n");
        let author = AUTHORS[c % AUTHORS.len()];
        let time = 1_700_000_000 + c as u64 * 60;
        let message = if c == 0 {
            "create the level".to_string()
        } else {
            format!("edit {c}")
        };
        writeln!(out, "commit refs/heads/main\nmark :{}", c + 1)?;
        writeln!(
            out,
            "author {author} <{}@example.com> {time} +0000",
            author.to_lowercase()
        )?;
        writeln!(
            out,
            "committer {author} <{}@example.com> {time} +0000",
            author.to_lowercase()
        )?;
        writeln!(out, "data {}\n{message}", message.len())?;
        if c > 0 {
            writeln!(out, "from :{}", c)?;
        }
        writeln!(out, "M 100644 inline levels/big.level\ndata {}", body.len())?;
        out.write_all(body.as_bytes())?;
        writeln!(out)?;
    }
    out.flush()
}
