//! End to end: the review page (`--html`) of `diff` and `conflicts`, rendered by a real
//! browser (headless Chromium): the DOM it builds (cards, map marks, legend) and a
//! screenshot that is not blank. Without a browser the browser tests say
//! "skipped: no chromium found" (and fail when CI=true: CI installs one).
//!
//! `ASSETVC_REVIEW_SHOTS=DIR` keeps the screenshots in DIR to look at them.

use crate::common;
use crate::review_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assetvc, assetvc_expect, git_home};
use review_support::{arena, edited, find, id_of, level};

/// The browser, or `None` after saying why the test is skipped (a failure when CI=true).
pub(crate) fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    common::skipped("no chromium found (install the chromium package to run this test)");
    None
}

/// Runs the browser headless on `page` with `args`, killed after a minute; its stdout.
fn browse(browser: &Path, page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!(
                "chromium did not finish within a minute on {}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

/// The DOM after the page's script ran.
pub(crate) fn dom(browser: &Path, page: &Path) -> String {
    let dom = browse(browser, page, &["--virtual-time-budget=3000", "--dump-dom"]);
    assert!(dom.contains("</html>"), "no DOM dumped:\n{dom}");
    dom
}

/// A 1400×1000 screenshot's pixels (RGBA); kept in `ASSETVC_REVIEW_SHOTS` when set.
pub(crate) fn screenshot(browser: &Path, page: &Path, name: &str) -> (u32, u32, Vec<u8>) {
    let shot = page.with_file_name(format!("{name}.png"));
    browse(
        browser,
        page,
        &[
            "--virtual-time-budget=3000",
            "--window-size=1400,1000",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    if let Some(dir) = std::env::var_os("ASSETVC_REVIEW_SHOTS") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&shot, Path::new(&dir).join(format!("{name}.png"))).unwrap();
    }
    let decoder = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

/// Checks that a screenshot is not blank: many colours, and pixels close to each of
/// `colours` (the marks' and badges' colours).
pub(crate) fn assert_not_blank(shot: &(u32, u32, Vec<u8>), colours: &[[u8; 3]]) {
    let (w, h, px) = shot;
    assert_eq!((*w, *h), (1400, 1000));
    let mut distinct = std::collections::HashSet::new();
    for p in px.chunks(4) {
        distinct.insert([p[0] >> 3, p[1] >> 3, p[2] >> 3]);
    }
    assert!(
        distinct.len() > 200,
        "only {} colours: blank page?",
        distinct.len()
    );
    for c in colours {
        let near = px
            .chunks(4)
            .filter(|p| (0..3).all(|i| (p[i] as i32 - c[i] as i32).abs() <= 12));
        assert!(
            near.count() >= 20,
            "no pixels of colour {c:?} in the screenshot"
        );
    }
}

/// Every `data-card` of a map mark names a card of the page.
fn assert_marks_link_to_cards(dom: &str) {
    for part in dom.split("data-card=\"").skip(1) {
        let anchor = &part[..part.find('"').unwrap()];
        assert!(
            dom.contains(&format!("id=\"{anchor}\"")),
            "mark links to a missing card {anchor}"
        );
    }
}

/// Whether the first map drew every one of its `n` objects (`data-drawn`, set by the
/// page's script after drawing, equals `data-objects`).
fn drew_all(dom: &str, n: usize) -> bool {
    let at = dom.find(" data-objects=").expect("a map");
    let start = dom[..at].rfind('<').unwrap();
    let tag = &dom[start..start + dom[start..].find('>').unwrap()];
    tag.contains(&format!("data-objects=\"{n}\"")) && tag.contains(&format!("data-drawn=\"{n}\""))
}

pub(crate) fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

#[test]
fn diff_page_shows_cards_map_and_legend_in_a_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("old.level"), level(&arena(), "0.02")).unwrap();
    std::fs::write(dir.join("arena.level"), level(&edited(), "0.05")).unwrap();
    let page = dir.join("review.html");
    let out = common::run(assetvc().current_dir(dir).args([
        "diff",
        "old.level",
        "arena.level",
        "--html",
        "review.html",
    ]));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("12 changed objects in 1 file"));
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched.
    for external in ["<link", " src=", "http://", "https://", "@import", "url("] {
        assert!(
            !html.contains(external),
            "the page refers to something outside: {external}"
        );
    }
    let Some(browser) = chromium() else { return };
    let dom = dom(&browser, &page);
    // Cards: 12, grouped by fate.
    assert_eq!(count(&dom, "<article class=\"card "), 12);
    assert_eq!(count(&dom, "<article class=\"card v\""), 3);
    assert_eq!(count(&dom, "<article class=\"card a\""), 4);
    assert_eq!(count(&dom, "<article class=\"card d\""), 2);
    assert_eq!(count(&dom, "<article class=\"card m\""), 3);
    // Vectors shown as components, old and new, the changed ones marked.
    assert!(
        dom.contains("<i class=\"chg\">39.0</i>"),
        "crate_b_1's new x"
    );
    // The map: every placed object of both versions is a mark (80 now + 2 deleted).
    let objects = arena().len() + 4;
    assert_eq!(count(&dom, "<use class=\"mk "), objects);
    assert!(drew_all(&dom, objects), "not every object drawn");
    // Hover text: name and short id.
    let crate_id = id_of("crate_b_1");
    assert!(dom.contains(&format!("data-t=\"crate_b_1 · {}\"", &crate_id[..8])));
    assert_marks_link_to_cards(&dom);
    // The legend, with counts.
    assert!(dom.contains("<ul class=\"legend\">"));
    assert!(
        dom.contains("moved <b>3</b>")
            && dom.contains(&format!("unchanged <b>{}</b>", arena().len() - 7)),
        "legend counts"
    );
    let shot = screenshot(&browser, &page, "diff");
    // Added (green), moved (orange), modified (blue), deleted (vermillion) marks.
    assert_not_blank(
        &shot,
        &[
            [0x1D, 0xB3, 0x8A],
            [0xE6, 0x9F, 0x00],
            [0x56, 0xB4, 0xE9],
            [0xE8, 0x67, 0x1A],
        ],
    );
}

fn setup_merge(dir: &Path) {
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    std::fs::write(dir.join("levels/arena.level"), level(&arena(), "0.02")).unwrap();
    git_home(dir, dir, &["add", "."]);
    git_home(dir, dir, &["commit", "-q", "-m", "base"]);
    // Theirs: crate_a_1 to one place, torch_01 brighter, a tree cut down.
    git_home(dir, dir, &["checkout", "-q", "-b", "theirs"]);
    let mut t = arena();
    find(&mut t, "crate_a_1").pos = [-20.0, 10.0, 0.0];
    find(&mut t, "torch_01").extra =
        "\t\tlight = {\n\t\t\tcolor = [1.0 0.6 0.3]\n\t\t\tintensity = 8.0\n\t\t}\n";
    t.retain(|o| o.name != "tree_oak_02");
    std::fs::write(dir.join("levels/arena.level"), level(&t, "0.02")).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "theirs"]);
    // Ours: crate_a_1 elsewhere, torch_01 dimmer, the fog denser.
    git_home(dir, dir, &["checkout", "-q", "main"]);
    let mut o = arena();
    find(&mut o, "crate_a_1").pos = [-40.0, 0.0, 0.0];
    find(&mut o, "torch_01").extra =
        "\t\tlight = {\n\t\t\tcolor = [1.0 0.6 0.3]\n\t\t\tintensity = 2.0\n\t\t}\n";
    std::fs::write(dir.join("levels/arena.level"), level(&o, "0.04")).unwrap();
    git_home(dir, dir, &["commit", "-q", "-am", "ours"]);
}

#[test]
fn conflicts_page_shows_the_three_values_and_the_side_taken_in_a_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Without a merge: a page that says so.
    let (_, stderr) = assetvc_expect(dir, dir, &["conflicts", "--html", "none.html"], 2);
    assert!(stderr.contains("repository"), "{stderr}");
    setup_merge(dir);
    assetvc_expect(dir, dir, &["conflicts", "--html", "none.html"], 0);
    assert!(std::fs::read_to_string(dir.join("none.html"))
        .unwrap()
        .contains("no merge recorded"));
    assetvc_expect(dir, dir, &["merge", "theirs"], 0);
    let (_, stderr) = assetvc_expect(dir, dir, &["conflicts", "--html", "conflicts.html"], 0);
    assert!(stderr.contains("2 changed objects in 1 file"), "{stderr}");
    let page = dir.join("conflicts.html");
    let Some(browser) = chromium() else { return };
    let dom = dom(&browser, &page);
    assert_eq!(count(&dom, "<article class=\"card c\""), 2);
    // The three values of each conflict, theirs taken (the default policy).
    assert_eq!(
        count(
            &dom,
            "<div class=\"side taken\"><span class=\"who\">theirs ✓ taken</span>"
        ),
        2
    );
    assert!(
        dom.contains("<span class=\"v num\">8.0</span>")
            && dom.contains("<span class=\"v num\">2.0</span>")
    );
    assert!(dom.contains(">crate_a_1</h3>") && dom.contains(">torch_01</h3>"));
    // The map is the merged level: 79 objects, the two conflicts marked.
    assert_eq!(count(&dom, "<use class=\"mk c\""), 2);
    assert_eq!(count(&dom, "<use class=\"mk "), arena().len() - 1);
    assert_marks_link_to_cards(&dom);
    assert!(dom.contains("conflicts <b>2</b>"));
    let shot = screenshot(&browser, &page, "conflicts");
    assert_not_blank(&shot, &[[0xF0, 0xE4, 0x42]]);
}

#[test]
fn revision_diffs_and_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    setup_merge(dir);
    // HEAD~1 (base) against main: ours' edits, plus a text file that is not an asset.
    std::fs::write(dir.join("notes.txt"), "todo\n").unwrap();
    git_home(dir, dir, &["add", "notes.txt"]);
    git_home(dir, dir, &["commit", "-q", "-m", "notes"]);
    let (stdout, stderr) =
        assetvc_expect(dir, dir, &["diff", "HEAD~2", "HEAD", "--html", "r.html"], 0);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("3 changed objects in 2 files"), "{stderr}");
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(html.contains("levels/arena.level") && html.contains("notes.txt"));
    assert!(html.contains("HEAD~2 → HEAD"));
    // An unparsable asset: exit 2 with its position, the page still written for the rest.
    std::fs::write(
        dir.join("levels/arena.level"),
        "entities = [\n{ id = \"e1\"\n",
    )
    .unwrap();
    let (_, stderr) = assetvc_expect(dir, dir, &["diff", "--html", "w.html"], 2);
    assert!(stderr.contains("levels/arena.level:3:1:"), "{stderr}");
    assert!(std::fs::read_to_string(dir.join("w.html"))
        .unwrap()
        .contains("Does not parse"));
    // An unwritable destination: exit 2, a clear message.
    let (_, stderr) = assetvc_expect(
        dir,
        dir,
        &["diff", "HEAD~2", "HEAD", "--html", "no/such/dir/r.html"],
        2,
    );
    assert!(stderr.contains("no/such/dir/r.html"), "{stderr}");
    // `[review] position_keys` picks another member for the map.
    std::fs::write(
        dir.join("a.sjson"),
        "things = [ { id = \"t1\" where = [1 2] } ]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.sjson"),
        "things = [ { id = \"t1\" where = [5 2] } ]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("assetvc.toml"),
        "[review]\nposition_keys = [\"where\"]\n",
    )
    .unwrap();
    assetvc_expect(
        dir,
        dir,
        &["diff", "a.sjson", "b.sjson", "--html", "k.html"],
        0,
    );
    let html = std::fs::read_to_string(dir.join("k.html")).unwrap();
    assert!(
        html.contains("<use class=\"mk v\""),
        "the moved thing is on the map"
    );
}

#[test]
fn a_100k_entity_level_stays_small_and_draws_every_object() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let base = levelgen::Level::random(100_000, 11);
    let mut changed = base.clone();
    for (i, e) in changed
        .entities
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| i % 50 == 0)
    {
        e.pos[0] += 1.0 + i as f64 % 7.0;
    }
    std::fs::write(dir.join("a.level"), base.to_sjson()).unwrap();
    std::fs::write(dir.join("b.level"), changed.to_sjson()).unwrap();
    assetvc_expect(
        dir,
        dir,
        &["diff", "a.level", "b.level", "--html", "big.html"],
        0,
    );
    let page = dir.join("big.html");
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 10_000_000, "the page is {size} bytes");
    let Some(browser) = chromium() else { return };
    let dom = dom(&browser, &page);
    // 2,000 moved: SVG marks; the 98,000 others on the canvas; every one drawn.
    assert!(dom.contains("<canvas"));
    assert_eq!(count(&dom, "<use class=\"mk v\""), 2_000);
    assert!(drew_all(&dom, 100_000), "not every object drawn");
    // Thousands of cards: the group shows its count and a first page, then a button.
    assert!(dom.contains("moved <span class=\"count\">2000</span>"));
    assert_eq!(count(&dom, "<article class=\"card v\""), 2_000);
    assert_eq!(
        count(&dom, "<article class=\"card v\"") - count(&dom, "\" hidden=\"\"><header>"),
        50
    );
    assert!(dom.contains("Show 50 more · <span>1950</span> not shown"));
    let shot = screenshot(&browser, &page, "large");
    assert_not_blank(&shot, &[[0xE6, 0x9F, 0x00]]);
}
