//! Tests of the file checks.

use super::*;
use config::Expressions;

fn policy(edit: impl FnOnce(&mut Config)) -> Policy {
    let mut c = Config::default();
    edit(&mut c);
    Policy::new(&c).unwrap()
}

fn check(path: &str, text: &str, p: &Policy) -> Vec<Problem> {
    check_blob(path, text.as_bytes(), p)
}

#[test]
fn parse_errors_have_line_and_column() {
    let p = policy(|_| {});
    let out = check("levels/a.level", "a = 1\nb = [1 2\nc = 3\n", &p);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::Parse);
    assert_eq!(out[0].line, 3);
    assert!(
        out[0].to_string().starts_with("levels/a.level:3:"),
        "{}",
        out[0]
    );
    assert!(check("a.level", "a = [1 2]\n", &p).is_empty());
    // JSON files are strict.
    assert_eq!(check("x.json", "{a: 1}", &p)[0].check, Check::Parse);
    // Invalid UTF-8 is reported with its place.
    let out = check_blob("b.unit", b"a = \"\xff\"\n", &p);
    assert_eq!((out[0].line, out[0].col), (1, 6));
}

#[test]
fn conflict_markers_in_any_text_file() {
    let p = policy(|_| {});
    let text = "a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> theirs\n";
    for (path, parses) in [
        ("x.level", false),
        ("s.lua", false),
        ("a.hlsl", true),
        ("n.txt", true),
    ] {
        let out = check(path, text, &p);
        // Assets and scripts with markers also fail to parse, at the first marker.
        assert_eq!(out.len(), if parses { 1 } else { 2 }, "{path}: {out:?}");
        assert_eq!(out[0].check, Check::ConflictMarker);
        assert!(out.iter().skip(1).all(|p| p.line == 2), "{out:?}");
        assert_eq!((out[0].line, out[0].col), (2, 1));
        assert_eq!(out[0].source_line, "<<<<<<< HEAD");
    }
    // diff3 style and CRLF.
    let out = check(
        "a.txt",
        "<<<<<<< a\r\nx\r\n||||||| base\r\n=======\r\n>>>>>>> b\r\n",
        &p,
    );
    assert_eq!(out.len(), 1);
    // Leftovers of a partial resolution.
    let out = check("a.txt", "x\n=======\ny\n>>>>>>> b\n", &p);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].line, 2);
    // Not markers: a Markdown underline alone, longer runs, markers mid-line.
    assert!(check("r.md", "Title\n=======\n", &p).is_empty());
    assert!(check("r.txt", "========\n<<<<<<<< x\n a <<<<<<< b\n", &p).is_empty());
    // Binary files are skipped.
    assert!(check_blob("t.png", b"\x89PNG\0\0\n<<<<<<< x\n", &p).is_empty());
}

#[test]
fn duplicate_ids_including_case_insensitive_keys() {
    let p = policy(|_| {});
    let text = "entities = [\n\t{ id = \"e1\" }\n\t{ Id = \"e2\" }\n\t{ ID = \"e1\" }\n]\n";
    let out = check("a.level", text, &p);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::DuplicateId);
    assert_eq!((out[0].line, out[0].col), (4, 4));
    assert!(out[0].reason.contains("\"e1\"") && out[0].reason.contains("line 2"));
    // Numbers are ids too; guid keys count; nested arrays too.
    let out = check(
        "b.level",
        "a = { list = [ { guid = 1 } { guid = 2 } { guid = 1 } ] }\n",
        &p,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    // Different ids, or an array not fully keyed, are fine.
    assert!(check("c.level", "l = [ {id = a} {id = b} ]\n", &p).is_empty());
    assert!(check("c.level", "l = [ {id = a} {name = a} {id = a} ]\n", &p).is_empty());
    // Configured id keys.
    let q = policy(|c| c.merge.id_keys = vec!["serial".into()]);
    assert_eq!(
        check("d.level", "l = [ {SERIAL = 3} {serial = 3} ]", &q).len(),
        1
    );
    assert!(check("d.level", "l = [ {id = 3} {id = 3} ]", &q).is_empty());
    // Ids compare as the merge compares them: `7.0` is the id `7`, the string "7" is not.
    let out = check("e.level", "l = [ {id = 7} {id = 7.0} {id = \"7\"} ]", &p);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].reason.contains("duplicate id 7 "),
        "{}",
        out[0].reason
    );
}

#[test]
fn require_ids_flags_new_arrays_of_objects() {
    let off = policy(|_| {});
    let on = policy(|c| c.check.require_ids = true);
    let text = "units = [\n\t{ name = a }\n\t{ name = b id = x }\n]\nnums = [1 2]\nempty = []\n";
    assert!(check("a.level", text, &off).is_empty());
    let out = check("a.level", text, &on);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::MissingId);
    assert_eq!((out[0].line, out[0].col), (2, 2));
    assert!(
        out[0].reason.starts_with("1 of the 2 objects"),
        "{}",
        out[0].reason
    );
    // Against a base: an array that was already unkeyed is left alone ...
    let base = "units = [\n\t{ name = a }\n]\n";
    let changed = "units = [\n\t{ name = a }\n\t{ name = c }\n]\nmore = [ { name = n } ]\n";
    let out = check_change("a.level", changed.as_bytes(), Some(base.as_bytes()), &on);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].line, 5, "only the new array: {out:?}");
    // ... and a keyed array must stay keyed.
    let base = "units = [ { id = a } ]\n";
    let changed = "units = [ { id = a } { name = b } ]\n";
    let out = check_change("a.level", changed.as_bytes(), Some(base.as_bytes()), &on);
    assert_eq!(out.len(), 1, "{out:?}");
}

#[test]
fn lua_syntax_errors_have_line_and_column() {
    let p = policy(|_| {});
    let good = "#!/usr/bin/env luajit\nlocal M = {}\nfunction M.f(x)\n\tgoto done\n\t::done::\n\treturn x // 1\nend\nreturn M\n";
    // `//` is Lua 5.3 integer division: not in LuaJIT.
    let out = check("scripts/m.lua", good, &p);
    assert_eq!(out.len(), 1, "{out:?}");
    let good = good.replace("x // 1", "x");
    assert!(check("scripts/m.lua", &good, &p).is_empty());
    let out = check(
        "scripts/bad.lua",
        "local x = 1\nif x then\n\tprint(x\nend\n",
        &p,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::Lua);
    // The call's `(` that is never closed.
    assert_eq!((out[0].line, out[0].col), (3, 7), "{}", out[0]);
    // Not Lua by name: not parsed.
    assert!(check("notes.txt", "if then else", &p).is_empty());
}

#[test]
fn deep_lua_is_a_problem_not_a_crash() {
    let p = policy(|_| {});
    for text in [
        format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("{}{}", "function f() ".repeat(5_000), "end ".repeat(5_000)),
        format!("x = {}1", "1 .. ".repeat(300)),
        format!("x = {}1", "not ".repeat(300)),
        format!("x = {}1", "- ".repeat(300)),
    ] {
        let out = check("deep.lua", &text, &p);
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].reason.contains("nesting deeper"), "{}", out[0]);
    }
    // Within the limit, long flat code and every construct parse.
    let fine = [
        format!("x = {}1{}", "(".repeat(150), ")".repeat(150)),
        format!("{}{}", "function f() ".repeat(150), "end ".repeat(150)),
        format!("{}{}", "if x then ".repeat(150), "end ".repeat(150)),
        format!("x = {}1", "1 + ".repeat(50_000)),
        format!("x = {}1", "1 .. ".repeat(150)),
        "x = a .. b\ny = c .. d\n".repeat(5_000),
        "-- [[ not long\nlocal s = [==[ ( ( ( ]] ]==] .. \"((\" .. '))' --[[ (((( ]]\n".repeat(100),
        "local t = { 1e-5, 0x1p-2, .5, a[1], ... }\n".to_string(),
    ];
    for text in fine {
        let out = check("flat.lua", &text, &p);
        assert!(out.is_empty(), "{out:?}");
    }
}

#[test]
fn expression_errors_map_to_the_file() {
    let p = policy(|c| {
        c.expressions.push(Expressions {
            keys: vec!["*_expr".into()],
            variables: vec!["t".into()],
        })
    });
    let text = "fx = {\n\tspeed_expr = \"sin(t) + 0.1 * cos(10 * t)\"\n\tsize_expr = \"1 + * t\"\n\tname = \"1 + * t\"\n}\n";
    let out = check("a.particles", text, &p);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::Expression);
    // `*` is the 5th character of the string; the string starts at column 15.
    assert_eq!((out[0].line, out[0].col), (3, 19), "{}", out[0]);
    assert!(out[0].reason.contains("size_expr"));
    // Escapes, raw and bare strings, arrays of expressions, unknown variables.
    let text = "a_expr = \"\\u0031 + \\t* t\"\nb_expr = \"\"\"2 * u\"\"\"\nc_expr = [ \"t\" \"(t\" ]\nd_expr = t\ne_expr = 3\n";
    let out = check("b.particles", text, &p);
    let cols: Vec<_> = out.iter().map(|p| (p.line, p.col)).collect();
    assert_eq!(cols, [(1, 22), (2, 17), (3, 17)], "{out:?}");
}

#[test]
fn hostile_config_files_are_rejected() {
    let p = policy(|_| {});
    let out = check(
        "assetvc.toml",
        "[merge]\npolicy = \"ours\"\n\n[check]\ncommand = \"touch /tmp/pwned\"\n",
        &p,
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].check, Check::Config);
    assert_eq!(out[0].line, 5, "{}", out[0]);
    assert!(check("assetvc.toml", "[check]\nrequire_ids = true\n", &p).is_empty());
}

#[test]
fn many_files_at_once_keep_their_order() {
    let p = policy(|_| {});
    let files: Vec<FileVersion<'_>> = vec![
        ("a.level", b"a = [\n", None),
        ("b.level", b"b = 1\n", None),
        ("c.txt", b"<<<<<<< x\n", None),
    ];
    let out = check_many(&files, &p);
    let paths: Vec<&str> = out.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["a.level", "c.txt"]);
}
