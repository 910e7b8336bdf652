//! The merge crate's modules depend on each other one way only (issue #33): a module never
//! uses, directly or through others, a module that uses it. The graph is read from the
//! sources: every `crate::module` a top-level module's files name outside comments and
//! tests (`lib.rs`, the crate's facade, is not a module of the graph).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;

/// Module → the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The top-level modules of `src` and, for each, every `crate::x` it names.
fn read_graph(src: &Path) -> Graph {
    let mut named: Graph = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("merge/src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let is_rs = path.extension().is_some_and(|e| e == "rs");
        if (is_rs && name != "lib") || path.is_dir() {
            let uses = named.entry(name).or_default();
            for file in rust_files(&path) {
                let text = std::fs::read_to_string(&file).expect("a source file");
                uses.extend(crate_names(&text));
            }
        }
    }
    let modules: BTreeSet<String> = named.keys().cloned().collect();
    named
        .into_iter()
        .map(|(m, uses)| {
            let uses = uses
                .into_iter()
                .filter(|u| *u != m && modules.contains(u))
                .collect();
            (m, uses)
        })
        .collect()
}

/// `path` itself (a file) or every `.rs` file under it (a directory), test files left out.
fn rust_files(path: &Path) -> Vec<std::path::PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).expect("a module directory") {
        let p = entry.expect("a directory entry").path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "tests" || stem.ends_with("_tests") {
            continue;
        }
        if p.is_dir() || p.extension().is_some_and(|e| e == "rs") {
            files.extend(rust_files(&p));
        }
    }
    files
}

/// Every name `x` in `crate::x::…` paths and in `use crate::{x, …}` groups of `text`,
/// comments and a trailing `#[cfg(test)] mod tests { … }` left out.
fn crate_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut lines = text.lines().peekable();
    let mut group: Option<(String, i32)> = None;
    while let Some(line) = lines.next() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        if code == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with('{'))
        {
            break;
        }
        if let Some((text, depth)) = &mut group {
            *depth += brace_balance(code);
            text.push_str(code);
            if *depth <= 0 {
                names.extend(group_names(text));
                group = None;
            }
            continue;
        }
        names.extend(path_names(code));
        if let Some(at) = code.find("use crate::{") {
            let rest = &code[at + "use crate::".len()..];
            let depth = brace_balance(rest);
            if depth <= 0 {
                names.extend(group_names(rest));
            } else {
                group = Some((rest.to_string(), depth));
            }
        }
    }
    names
}

fn brace_balance(s: &str) -> i32 {
    s.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// `x` of each `crate::x::` in `code`.
fn path_names(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .filter_map(|(at, _)| {
            let rest = &code[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            rest[name.len()..].starts_with("::").then_some(name)
        })
        .collect()
}

/// The first name of each item at the top level of a `{a::b, c, D}` group.
fn group_names(group: &str) -> Vec<String> {
    let inner = group.trim().trim_start_matches('{');
    let mut names = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    names.push(item);
    names
        .iter()
        .filter_map(|i| {
            let name: String = i
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// A cycle of `graph` (its modules in order, the first repeated at the end), if it has one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        m: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(m) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = stack.iter().position(|s| s == m).unwrap_or(0);
                let mut cycle = stack[from..].to_vec();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(m.to_string(), Mark::Open);
        stack.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(m.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut marks, &mut Vec::new()))
}

fn graph_of(edges: &[(&str, &str)]) -> Graph {
    let mut graph = Graph::new();
    for (from, to) in edges {
        graph.entry(to.to_string()).or_default();
        graph
            .entry(from.to_string())
            .or_default()
            .insert(to.to_string());
    }
    graph
}

#[test]
fn the_merge_crates_modules_have_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = read_graph(&src);
    // The reading works: the layers named in ARCHITECTURE.md are there, one above the other.
    for (from, to) in [
        ("merger", "context"),
        ("context", "moves"),
        ("moves", "pairing"),
        ("moves", "keyed_index"),
        ("trace", "merger"),
        ("merger", "observe"),
        ("changeset", "diff"),
        ("diff", "naming"),
        ("coherent", "game"),
    ] {
        assert!(
            graph.get(from).is_some_and(|uses| uses.contains(to)),
            "{from} should use {to}: {graph:?}"
        );
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle in merge/src: {}", cycle.join(" -> "));
    }
}

#[test]
fn names_are_read_from_paths_and_groups_not_comments_or_tests() {
    let text = "use crate::a::X;\n// crate::b::Y\nuse crate::{c::Z, d, Side,\n  e::{F, G},\n};\n\
                fn f() { crate::g::h(); crate::Side; }\n#[cfg(test)]\nmod tests {\n use crate::t::U;\n}\n";
    let names: Vec<_> = crate_names(text).into_iter().collect();
    assert_eq!(names, ["Side", "a", "c", "d", "e", "g"]);
}

#[test]
fn a_cycle_is_found_and_named() {
    let dag = graph_of(&[("a", "b"), ("b", "c"), ("a", "c")]);
    assert_eq!(find_cycle(&dag), None);
    let cyclic = graph_of(&[("a", "b"), ("b", "c"), ("c", "a")]);
    let cycle = find_cycle(&cyclic).expect("a cycle");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4);
}

proptest! {
    /// Edges only from a lower to a higher number never make a cycle; one edge back from
    /// the end of a path to its start always does, and the cycle found is made of edges.
    #[test]
    fn cycles_are_found_exactly_when_there_is_one(
        edges in proptest::collection::vec((0u8..12, 0u8..12), 0..40),
        back in proptest::option::of((0u8..12, 0u8..12)),
    ) {
        let names: Vec<String> = (0..12).map(|i| format!("m{i:02}")).collect();
        let forward: Vec<(&str, &str)> = edges
            .iter()
            .filter(|(a, b)| a < b)
            .map(|&(a, b)| (names[a as usize].as_str(), names[b as usize].as_str()))
            .collect();
        prop_assert_eq!(find_cycle(&graph_of(&forward)), None);
        if let Some((a, b)) = back.filter(|(a, b)| a < b) {
            // A path a → b, then b → a.
            let mut all = forward.clone();
            all.push((names[a as usize].as_str(), names[b as usize].as_str()));
            all.push((names[b as usize].as_str(), names[a as usize].as_str()));
            let graph = graph_of(&all);
            let cycle = find_cycle(&graph);
            prop_assert!(cycle.is_some());
            let cycle = cycle.unwrap();
            for pair in cycle.windows(2) {
                prop_assert!(graph[&pair[0]].contains(&pair[1]), "{:?}", cycle);
            }
        }
    }
}
