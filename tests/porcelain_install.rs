//! End to end: `assetvc install` is idempotent, chains an existing pre-commit hook instead
//! of clobbering it, follows `assetvc.toml`'s patterns; `install --check` / `doctor` tell a
//! clone that is set up from one that is not.

use crate::common;

use std::path::Path;

use common::{assetvc_expect, git_home, run};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn snapshot(dir: &Path) -> (String, String, String, String) {
    (
        read(&dir.join(".gitattributes")),
        read(&dir.join(".git/config")),
        read(&dir.join(".git/hooks/pre-commit")),
        read(&dir.join(".git/hooks/pre-commit.local")),
    )
}

#[test]
fn install_is_idempotent_and_chains_the_existing_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".gitattributes"), "*.png binary\n").unwrap();
    let hook = dir.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho ran > \"$(git rev-parse --git-dir)/local-hook-ran\"\nexit \"${LOCAL_HOOK_STATUS:-0}\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // Not set up yet.
    let (stdout, _) = assetvc_expect(dir, dir, &["doctor"], 1);
    assert!(stdout.contains("MISSING  merge-driver"), "{stdout}");
    let (json, _) = assetvc_expect(dir, dir, &["install", "--check", "--json"], 1);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["ok"], false);

    assetvc_expect(dir, dir, &["install"], 0);
    let first = snapshot(dir);
    let attributes = &first.0;
    assert!(attributes.starts_with("*.png binary\n"), "{attributes}");
    assert!(
        attributes.contains("\n*.sjson merge=assetvc diff=assetvc\n"),
        "{attributes}"
    );
    assert!(
        attributes.contains("\n*.level merge=assetvc diff=assetvc\n"),
        "{attributes}"
    );
    assert!(
        attributes.contains("\n*.json merge=assetvc diff=assetvc\n"),
        "{attributes}"
    );
    let exe = Path::new(env!("CARGO_BIN_EXE_assetvc"))
        .canonicalize()
        .unwrap();
    // The lean driver binary is built beside assetvc: it is the one registered.
    let driver = git_home(dir, dir, &["config", "merge.assetvc.driver"]);
    assert_eq!(
        driver.trim(),
        format!(
            "{} -- %O %A %B %P",
            exe.with_file_name("assetvc-merge-driver").display()
        )
    );
    let diff = git_home(dir, dir, &["config", "diff.assetvc.command"]);
    assert_eq!(diff.trim(), format!("{} diff-driver", exe.display()));
    assert!(
        first.2.contains("# assetvc-hook: pre-commit"),
        "{}",
        first.2
    );
    assert!(first
        .2
        .contains(&format!("exec {} hook pre-commit", exe.display())));
    assert!(
        first.3.contains("local-hook-ran"),
        "the old hook is kept as pre-commit.local"
    );

    // Again: nothing changes.
    assetvc_expect(dir, dir, &["install"], 0);
    assert_eq!(snapshot(dir), first);
    let (stdout, _) = assetvc_expect(dir, dir, &["doctor"], 0);
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        7, // with `git`: the version the merge strategy runs on
        "{stdout}"
    );
    let (json, _) = assetvc_expect(dir, dir, &["install", "--check", "--json"], 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["ok"], true);

    // The hook runs the old hook first, and stops when it fails.
    let status = run(std::process::Command::new(&hook)
        .current_dir(dir)
        .env("LOCAL_HOOK_STATUS", "3")
        .env("HOME", dir));
    assert_eq!(status.status.code(), Some(3));
    assert!(dir.join(".git/local-hook-ran").exists());

    // A driver that points at a binary that is gone is reported.
    git_home(
        dir,
        dir,
        &[
            "config",
            "merge.assetvc.driver",
            "/nonexistent/assetvc merge-driver %O %A %B %P",
        ],
    );
    let (stdout, _) = assetvc_expect(dir, dir, &["doctor"], 1);
    assert!(stdout.contains("MISSING  merge-driver"), "{stdout}");
    assetvc_expect(dir, dir, &["install"], 0);
    assetvc_expect(dir, dir, &["doctor"], 0);
}

#[test]
fn install_follows_the_configured_patterns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(
        dir.join("assetvc.toml"),
        "[assets]\nsjson = [\"*.lvl\", \"data/**/*.unit\"]\njson = []\n",
    )
    .unwrap();
    assetvc_expect(dir, dir, &["install"], 0);
    assert_eq!(
        read(&dir.join(".gitattributes")),
        "# Assets merged and diffed by structure (assetvc install)\n\
         *.lvl merge=assetvc diff=assetvc\n\
         data/**/*.unit merge=assetvc diff=assetvc\n"
    );
    // git agrees that the patterns select the driver.
    let check = git_home(
        dir,
        dir,
        &[
            "check-attr",
            "merge",
            "--",
            "a/b.lvl",
            "data/x/y.unit",
            "z.json",
        ],
    );
    assert_eq!(
        check,
        "a/b.lvl: merge: assetvc\ndata/x/y.unit: merge: assetvc\nz.json: merge: unspecified\n"
    );
}

#[test]
fn install_outside_a_repository_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, stderr) = assetvc_expect(tmp.path(), tmp.path(), &["install"], 2);
    assert!(stderr.contains("not a git repository"), "{stderr}");
    assetvc_expect(tmp.path(), tmp.path(), &["doctor"], 2);
}

#[test]
fn the_installed_hook_guards_plain_git_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    assetvc_expect(dir, dir, &["install"], 0);
    std::fs::write(dir.join("bad.sjson"), "x = {\n").unwrap();
    git_home(dir, dir, &["add", "bad.sjson"]);
    let out = common::git_home_output(dir, dir, &["commit", "-q", "-m", "bad"]);
    assert!(!out.status.success(), "the hook stops an unparsable asset");
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.sjson:2:1:"));
    std::fs::write(dir.join("bad.sjson"), "x = 1\n").unwrap();
    git_home(dir, dir, &["add", "bad.sjson"]);
    git_home(dir, dir, &["commit", "-q", "-m", "good"]);
}

/// Places the built binary `built` as `dir/name`: a hard link (a copy across file systems).
fn place_binary(built: &str, dir: &Path, name: &str) -> std::path::PathBuf {
    let to = dir.join(name);
    if std::fs::hard_link(built, &to).is_err() {
        std::fs::copy(built, &to).unwrap();
    }
    to
}

#[test]
fn install_registers_the_lean_driver_only_when_it_is_beside_assetvc_and_built_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let (bin, repo) = (tmp.path().join("bin"), tmp.path().join("repo"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    let bin = bin.canonicalize().unwrap();
    git_home(&repo, tmp.path(), &["init", "-q", "-b", "main"]);
    let suffix = std::env::consts::EXE_SUFFIX;
    let exe = place_binary(
        env!("CARGO_BIN_EXE_assetvc"),
        &bin,
        &format!("assetvc{suffix}"),
    );
    let install = |expect_driver: String| {
        let out = run(common::isolated(
            std::process::Command::new(&exe).arg("install"),
            &repo,
            tmp.path(),
        ));
        assert!(out.status.success(), "{}", common::stderr(&out));
        let driver = git_home(&repo, tmp.path(), &["config", "merge.assetvc.driver"]);
        assert_eq!(driver.trim(), expect_driver);
        common::stderr(&out)
    };
    // assetvc alone: the subcommand is registered.
    let full = format!("{} merge-driver -- %O %A %B %P", exe.display());
    install(full.clone());
    // A lean driver built from other source (what `cargo run -- install` finds after an
    // edit: it rebuilds assetvc alone) is passed over, and said.
    let lean = bin.join(format!("assetvc-merge-driver{suffix}"));
    std::fs::write(
        &lean,
        "#!/bin/sh\necho 'assetvc-merge-driver 0.1.0 (source 0123456789abcdef)'\n",
    )
    .unwrap();
    common::make_executable(&lean);
    let said = install(full);
    assert!(
        said.contains("was built from other source than this assetvc"),
        "{said}"
    );
    // With the lean binary of the same build beside it, `install` registers that instead.
    std::fs::remove_file(&lean).unwrap();
    place_binary(
        env!("CARGO_BIN_EXE_assetvc-merge-driver"),
        &bin,
        &format!("assetvc-merge-driver{suffix}"),
    );
    let said = install(format!("{} -- %O %A %B %P", lean.display()));
    assert!(!said.contains("other source"), "{said}");
    // Registered, then replaced by one of another build: `doctor` says so.
    std::fs::remove_file(&lean).unwrap();
    std::fs::write(&lean, "#!/bin/sh\necho 'assetvc-merge-driver 0.0.9'\n").unwrap();
    common::make_executable(&lean);
    let doctor = run(common::isolated(
        std::process::Command::new(&exe).arg("doctor"),
        &repo,
        tmp.path(),
    ));
    assert_eq!(doctor.status.code(), Some(1));
    let said = common::stderr(&doctor) + &String::from_utf8_lossy(&doctor.stdout);
    assert!(said.contains("built from other source"), "{said}");
}
