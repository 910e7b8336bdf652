//! The structured merge of one asset that both sides changed, replacing the blob of
//! gix's line merge.

use gix::ObjectId;
use merge::{Conflict, MergeOptions, Version};
use sjson::{Dialect, Document, ParseOptions};

use super::UnresolvedKind;
use crate::error::Result;

pub(super) enum AssetMerge {
    Merged {
        blob: ObjectId,
        conflicts: Vec<Conflict>,
        /// Where each conflict is, for people ([`merge::Merged::names`]).
        places: Vec<String>,
        /// Each repair's referrer for people ([`merge::Merged::referrers`]).
        referrers: Vec<Option<String>>,
        /// Invariants the result breaks that its inputs kept (the merge's gate).
        violations: Vec<merge::GateViolation>,
        failed: bool,
    },
    Failed(UnresolvedKind),
}

/// Why a merged asset that failed is left unresolved: the result gate's violations when
/// it found any, else the policy `fail`.
pub(super) fn failure_kind(violations: &[merge::GateViolation]) -> UnresolvedKind {
    match violations.is_empty() {
        true => UnresolvedKind::PolicyFail,
        false => UnresolvedKind::Gate(violations.to_vec()),
    }
}

pub(super) fn merge_asset(
    repo: &gix::Repository,
    (base, fallback_base): (Option<ObjectId>, Option<ObjectId>),
    ours: ObjectId,
    theirs: ObjectId,
    dialect: Dialect,
    options: &MergeOptions,
) -> Result<AssetMerge> {
    // A file the patterns call SJSON is JSON if ours' content is (`Dialect::detect`); ours
    // is then parsed already (a braced JSON text), and not parsed again below.
    let (dialect, ours_parsed) = match dialect {
        Dialect::Sjson => {
            let data = repo.find_blob(ours)?.take_data();
            let found = Dialect::detect_parsed("", &String::from_utf8_lossy(&data));
            (found.dialect(), found.into_document())
        }
        json => (json, None),
    };
    // Parses a version; `Ok(Err(_))` is a parse failure, with the text for diagnostics
    // (read again: failures are rare, and the first read's buffer went to the parser).
    let parse = |side: Version, id: Option<ObjectId>| -> Result<Result<Document, UnresolvedKind>> {
        let data = match id {
            Some(id) => repo.find_blob(id)?.take_data(),
            None => match dialect {
                Dialect::Json => b"{}".to_vec(),
                _ => Vec::new(),
            },
        };
        Ok(
            match Document::parse_bytes(data, ParseOptions::new(dialect)) {
                Ok(doc) => Ok(doc),
                Err(error) => {
                    let data = match id {
                        Some(id) => repo.find_blob(id)?.take_data(),
                        None => Vec::new(),
                    };
                    let text = String::from_utf8_lossy(&data).into_owned();
                    Err(UnresolvedKind::Unparsable { side, error, text })
                }
            },
        )
    };
    let o = match ours_parsed {
        Some(doc) => doc,
        None => match parse(Version::Ours, Some(ours))? {
            Ok(d) => d,
            Err(kind) => return Ok(AssetMerge::Failed(kind)),
        },
    };
    let (b, base_blob) = match parse(Version::Base, base)? {
        Ok(d) => (d, base),
        Err(kind) => match fallback_base {
            Some(id) => match parse(Version::Base, Some(id))? {
                Ok(d) => (d, Some(id)),
                Err(_) => return Ok(AssetMerge::Failed(kind)),
            },
            None => return Ok(AssetMerge::Failed(kind)),
        },
    };
    let t = match parse(Version::Theirs, Some(theirs))? {
        Ok(d) => d,
        Err(kind) => return Ok(AssetMerge::Failed(kind)),
    };
    // The result must parse (checked before anything is written) and be a coherent level.
    // The versions are given up to the merge, which frees their node tables early, and a
    // large base whole: it is read again from its blob if a repair needs it.
    let read_again = base_blob
        .filter(|_| b.text().len() >= merge::FREE_BASE_FROM)
        .map(|id| {
            move || {
                let mut blob = repo.find_blob(id).ok()?;
                String::from_utf8(blob.take_data()).ok()
            }
        });
    let base_again = read_again
        .as_ref()
        .map(|read| read as merge::coherence::BaseAgain<'_>);
    let inputs = merge::Inputs::Owned {
        base: b,
        ours: o,
        theirs: t,
        base_again,
    };
    let merged = match merge::merge(inputs, options) {
        Ok(merged) => merged,
        Err(e) => return Ok(AssetMerge::Failed(UnresolvedKind::Internal(e.to_string()))),
    };
    let failed = merged.failed(options.policy);
    let blob = repo.write_blob(merged.text().as_bytes())?.detach();
    Ok(AssetMerge::Merged {
        blob,
        conflicts: merged.conflicts,
        places: merged.names,
        referrers: merged.referrers,
        violations: merged.violations,
        failed,
    })
}
