//! Real merges from studios' repositories (`tests/data/real-cases`, each with its
//! licence in `licences/`): files git merges that assetvc once refused. Each is merged
//! and compared with the committed human result as data.

use std::path::{Path, PathBuf};

use crate::common::*;
use sjson::Dialect;

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/real-cases")
        .join(name)
}

/// Merges the case and returns (merged text, human text).
fn merge_case(name: &str) -> (String, String) {
    let dir = case_dir(name);
    let read = |side: &str| std::fs::read_to_string(dir.join(format!("{side}.json"))).unwrap();
    let out = merge3(Dialect::Json, &read("base"), &read("ours"), &read("theirs"));
    assert_clean(&out);
    (out.into_text(), read("human"))
}

/// A Minecraft lang file repeating `"_comment"` (repeats aligned with base's, kept).
#[test]
fn lang_file_with_repeated_comment_keys() {
    let name = "mezz_JustEnoughItems__19c9a85105__src_main_resources_assets_jei_lang_en_au.json";
    let (merged, human) = merge_case(name);
    let got = parse(Dialect::Json, &merged);
    assert!(!got.duplicate_keys().is_empty(), "the repeats are kept");
    assert_value(Dialect::Json, &merged, &human);
}

/// A SMAPI i18n file: comments and trailing commas (JSONC), kept where they stand.
#[test]
fn smapi_i18n_with_comments() {
    let name = "spacechase0_StardewValleyMods__6a01444853__GenericModConfigMenu_i18n_ko.json";
    let (merged, human) = merge_case(name);
    assert_value_unordered(Dialect::Json, &merged, &human);
    assert!(merged.contains("/*********\n    ** Generic config UI"));
    assert!(merged.contains("\"Editable from the title screen:\", // TODO"));
}

/// Repeated keys base holds pair with base's: an edit of the second `_comment` stays the second's.
#[test]
fn repeated_keys_merge_by_occurrence() {
    let base = "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"b\",\n  \"y\": 2\n}\n";
    let ours = "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"B\",\n  \"y\": 2\n}\n";
    let theirs = "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"b\",\n  \"y\": 3\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "{\n  \"_comment\": \"a\",\n  \"x\": 1,\n  \"_comment\": \"B\",\n  \"y\": 3\n}\n"
    );
    // Theirs adds a third repeat; ours edits the first.
    let theirs = base.replace("\"y\": 2", "\"y\": 2,\n  \"_comment\": \"c\"");
    let ours = base.replace("\"a\"", "\"A\"");
    let out = js(base, &ours, &theirs);
    assert_clean(&out);
    let doc = parse(Dialect::Json, out.text());
    let comments: Vec<String> = doc
        .root()
        .members()
        .filter(|(k, _)| k == "_comment")
        .map(|(_, v)| v.as_str().unwrap().into_owned())
        .collect();
    assert_eq!(comments, ["A", "b", "c"]);
}

/// JSONC: new members printed into a file with comments and trailing commas stay JSON,
/// the comments stay where they were.
#[test]
fn jsonc_edits_keep_comments_and_trailing_commas() {
    let base = "{\n  // head\n  \"a\": 1, // one\n  \"b\": 2, /* two, */\n}\n";
    let ours = "{\n  // head\n  \"a\": 5, // one\n  \"b\": 2, /* two, */\n}\n";
    let theirs = "{\n  // head\n  \"a\": 1, // one\n  \"b\": 2, /* two, */\n  \"c\": 3,\n}\n";
    let out = js(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "{\n  // head\n  \"a\": 5, // one\n  \"b\": 2, /* two, */\n  \"c\": 3,\n}\n"
    );
}

/// The number id `5` and the string id `"\u00005"` are two identities (#33): theirs
/// replacing the one by the other is a deletion and an addition, not an edit of one
/// object that ours' change would land on.
#[test]
fn a_number_id_and_a_string_id_are_different_objects() {
    let base = r#"{"l": [{"id": 5, "x": 1}, {"id": 6, "x": 1}]}"#;
    let ours = r#"{"l": [{"id": 5, "x": 2}, {"id": 6, "x": 1}]}"#;
    let theirs = r#"{"l": [{"id": "\u00005", "x": 1}, {"id": 6, "x": 1}]}"#;
    let out = js(base, ours, theirs);
    let doc = parse(Dialect::Json, out.text());
    let l = doc.root().get("l").unwrap();
    let edited_string_object = l.children().any(|el| {
        el.get("id")
            .is_some_and(|id| id.kind() == sjson::Kind::String)
            && el.get("x").is_some_and(|x| x.text() == "2")
    });
    assert!(
        !edited_string_object,
        "ours' edit landed on theirs' object:\n{}",
        out.text()
    );
    assert!(
        !out.conflicts.is_empty(),
        "ours edited what theirs deleted:\n{}",
        out.text()
    );
}

/// Both sides appended the same two Content Patcher `Changes` entries, theirs with one
/// member more in the second (atravita-mods/StardewMods 95a0c9af31): each is written once,
/// the second with theirs' member, as the person committed it, byte for byte.
#[test]
fn entries_both_sides_appended_are_written_once() {
    let name = "atravita-mods_StardewMods__95a0c9af31__Ginger_Island_Mainland_Adjustments_CP_\
                Ginger_Island_Mainland_Adjustments_content.json";
    let (merged, human) = merge_case(name);
    assert_eq!(merged, human);
}

/// Ours appended an element theirs inserted before the last one (SlimeKnights/
/// TinkersConstruct f099bd5cff, a book index): it is there once, where ours put it.
#[test]
fn an_element_both_sides_inserted_at_two_places_is_written_once() {
    let name = "SlimeKnights_TinkersConstruct__f099bd5cff__src_main_resources_assets_\
                tconstruct_book_materials_and_you_index.json";
    let (merged, _) = merge_case(name);
    let doc = parse(Dialect::Json, &merged);
    let names: Vec<String> = doc
        .root()
        .children()
        .filter_map(|e| Some(e.get("name")?.as_str()?.into_owned()))
        .collect();
    assert_eq!(names, ["intro", "tools", "modifiers", "tier_one_materials"]);
}

/// Theirs added the final line break (atravita-mods/StardewMods c57a5de406) or removed
/// the byte-order mark (spacechase0/StardewValleyMods 0f374dc5d4) that ours kept as base
/// had it: the merge has theirs' edges, byte for byte what was committed.
#[test]
fn theirs_final_line_break_and_byte_order_mark_are_kept() {
    for name in [
        "atravita-mods_StardewMods__c57a5de406__SleepInWedding_manifest.json",
        "spacechase0_StardewValleyMods__0f374dc5d4__SurfingFestival_assets_ja_BigCraftables_\
         Brown_Surfboard_Scarecrow_big-craftable.json",
    ] {
        let (merged, human) = merge_case(name);
        assert_eq!(merged, human, "{name}");
    }
}

/// A Vermintide `.cfg` ends each member with `;` (Shazbot/Vermintide-Mods 653904e10f,
/// `itemV2.cfg`): a value theirs replaced keeps its `;` right after it, as both sides
/// wrote it, bare strings included.
#[test]
fn a_replaced_value_keeps_its_semicolon_beside_it() {
    let base = "title = \"Penlight\";\ndescription = \"old\";\nvisibility = public;\n";
    let ours = "title = \"Penlight Lua\";\ndescription = \"old\";\nvisibility = public;\n";
    let theirs = "title = \"Penlight\";\ndescription = \"new\";\nvisibility = private;\n";
    let out = sj(base, ours, theirs);
    assert_clean(&out);
    assert_eq!(
        out.text(),
        "title = \"Penlight Lua\";\ndescription = \"new\";\nvisibility = private;\n"
    );
}
