//! End to end: `assetvc install` gives attributes to the JSON engine files it finds in
//! the worktree (`.fire`, `.prefab`, `.ldtk`, `.tmj`, …; never XML `.tmx`) and offers the
//! profile the merge will choose for them.

use crate::common;

use common::{assetvc_expect, git_home, write};

#[test]
fn install_adds_the_engine_extensions_found_and_offers_their_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git_home(dir, dir, &["init", "-q", "-b", "main"]);
    write(
        dir,
        "assets/main.fire",
        "[{\"__type__\":\"cc.SceneAsset\"}]\n",
    );
    write(
        dir,
        "assets/ui/menu.prefab",
        "[{\"__type__\":\"cc.Prefab\"}]\n",
    );
    write(
        dir,
        "maps/world.ldtk",
        "{\"jsonVersion\":\"1.5.3\",\"iid\":\"w\"}\n",
    );
    write(dir, "maps/a.tmx", "<map/>\n");
    let (_, err) = assetvc_expect(dir, dir, &["install"], 0);
    let attributes = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    for ext in ["fire", "prefab", "ldtk"] {
        let line = format!("\n*.{ext} merge=assetvc diff=assetvc\n");
        assert!(attributes.contains(&line), "{ext}: {attributes}");
    }
    for absent in ["*.tmx", "*.tmj", "*.scene"] {
        assert!(!attributes.contains(absent), "{absent}: {attributes}");
    }
    assert!(
        err.contains("*.fire: merged with the cocos2 profile"),
        "{err}"
    );
    assert!(
        err.contains("*.ldtk: merged with the ldtk profile"),
        "{err}"
    );
    assert!(err.contains("*.prefab: profile chosen by content"), "{err}");
    // Idempotent: nothing added the second time.
    assetvc_expect(dir, dir, &["install"], 0);
    let again = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    assert_eq!(again, attributes);
}
