use super::context::Wrap;
use super::*;

/// The statuses the README and docs/design.md document, written out once more as the
/// table the mapping is checked against. An exhaustive `match` (no `_`): a new outcome
/// does not compile until its documented status is written here.
fn documented(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Done => 0,
        Outcome::Conflicts
        | Outcome::LeftAlone
        | Outcome::Problems
        | Outcome::Blocked
        | Outcome::NothingToCommit
        | Outcome::NotBroughtIn
        | Outcome::PushRejected => 1,
        Outcome::ErrorsReported => 2,
    }
}

/// One error of each kind with its documented status; exhaustive like [`documented`].
fn documented_error(error: &Error) -> u8 {
    match error {
        Error::Blocked(_) | Error::CommitAborted { .. } => 1,
        Error::BadInput(_)
        | Error::Load(_)
        | Error::Usage(_)
        | Error::Merge { .. }
        | Error::Failed(_)
        | Error::Output { .. }
        | Error::Other(_)
        | Error::Store(_)
        | Error::Config(_)
        | Error::Install(_)
        | Error::Git(_)
        | Error::Io { .. }
        | Error::Context { .. } => 2,
    }
}

fn parse_error() -> sjson::ParseError {
    sjson::Document::parse("a = {\n  b = [1 2\n", sjson::Dialect::Sjson).unwrap_err()
}

fn every_error() -> Vec<Error> {
    let versions = ["b.sjson", "o.sjson", "t.sjson"].map(String::from);
    vec![
        Error::BadInput("a.level:1:2: expected value".into()),
        Error::Load(crate::commands::merging::LoadError::Internal),
        Error::Usage("check --explain needs a file".into()),
        Error::Merge {
            error: Box::new(merge::MergeError::Parse {
                version: merge::Version::Theirs,
                error: parse_error(),
            }),
            file: "o.sjson".into(),
            versions: Box::new(versions),
        },
        Error::Blocked("assetvc: commit blocked".into()),
        Error::CommitAborted { problems: 2 },
        Error::Failed("the branch moved".into()),
        Error::Output {
            command: "expr",
            source: std::io::Error::other("disk full"),
        },
        Error::Other("no such file".into()),
        Error::Store(store::Error::NoSuchObject("a#1".into())),
        Error::Config(config::ConfigError::Setting {
            setting: "assetvc.policy".into(),
            message: "unknown".into(),
        }),
        Error::Git(crate::commands::git_version::GitError::NotAVersion {
            printed: "hi".into(),
        }),
        Error::Io {
            what: "a.level".into(),
            source: std::io::Error::other("disk full"),
        },
        Error::Other("inner".into()).wrap("outer".into()),
    ]
}

#[test]
fn every_outcome_ends_with_its_documented_status() {
    for outcome in Outcome::ALL {
        let result: Result<Outcome> = Ok(outcome);
        let ending = Ending::of(&result);
        assert_eq!(status(&ending), documented(outcome), "{outcome:?}");
        assert_eq!(message(&ending), None, "an outcome prints nothing here");
    }
}

#[test]
fn every_error_ends_with_its_documented_status() {
    for error in every_error() {
        let want = documented_error(&error);
        let result: Result<Outcome> = Err(error);
        let ending = Ending::of(&result);
        assert!(matches!(ending, Ending::Error(_)), "{ending:?}");
        assert_eq!(status(&ending), want, "{ending:?}");
    }
    let other: Result<Outcome> = Err(failure!("no such file"));
    let ending = Ending::of(&other);
    assert_eq!(status(&ending), 2);
    assert_eq!(
        message(&ending).as_deref(),
        Some("assetvc: error: no such file")
    );
}

#[test]
fn a_closed_output_ends_quietly_with_success() {
    let closed = crate::output::StdoutClosed;
    let closed = std::io::Error::new(std::io::ErrorKind::BrokenPipe, closed);
    let result: Result<Outcome> = Err(closed.wrap("writing".into()).wrap("merging".into()));
    let ending = Ending::of(&result);
    assert!(matches!(ending, Ending::OutputClosed), "{ending:?}");
    assert_eq!((status(&ending), message(&ending)), (0, None));
}

#[test]
fn a_merge_error_names_the_version_by_its_file() {
    let e = parse_error();
    let error = Error::Merge {
        error: Box::new(merge::MergeError::Parse {
            version: merge::Version::Ours,
            error: e.clone(),
        }),
        file: "ours.sjson".into(),
        versions: Box::new(["base.sjson", "ours.sjson", "theirs.sjson"].map(String::from)),
    };
    assert_eq!(
        error.to_string(),
        format!(
            "ours.sjson:{}:{}: {}; nothing was written",
            e.line, e.col, e.kind
        )
    );
}

#[test]
fn a_merge_error_past_parsing_names_the_file() {
    let error = Error::Merge {
        error: Box::new(merge::MergeError::Coherence(
            merge::coherence::CoherenceError::BaseUnreadable,
        )),
        file: "lvl\u{1b}.sjson".into(),
        versions: Box::new(["b", "o", "t"].map(String::from)),
    };
    let result: Result<Outcome> = Err(error);
    let message = message(&Ending::of(&result)).unwrap_or_default();
    assert!(message.starts_with("assetvc: error: lvl"), "{message}");
    assert!(!message.contains('\u{1b}'), "escaped: {message}");
    assert!(message.contains("could not be read again"), "{message}");
}

#[test]
fn the_worst_outcome_is_the_one_with_the_higher_status() {
    for a in Outcome::ALL {
        for b in Outcome::ALL {
            let worst = a.worst(b);
            let code = |o: Outcome| status(&Ending::Outcome(o));
            assert_eq!(code(worst), code(a).max(code(b)), "{a:?} {b:?}");
            assert!(worst == a || worst == b);
        }
    }
    assert_eq!(
        Outcome::done_unless(false, Outcome::Problems),
        Outcome::Done
    );
    assert_eq!(
        Outcome::done_unless(true, Outcome::Problems),
        Outcome::Problems
    );
}

#[test]
fn commit_aborted_counts_its_assets() {
    let one = Error::CommitAborted { problems: 1 }.to_string();
    assert!(one.starts_with("commit aborted"), "{one}");
    assert!(one.contains("1 asset failed the checks"), "{one}");
    let two = Error::CommitAborted { problems: 2 }.to_string();
    assert!(two.contains("2 assets failed the checks"), "{two}");
}

#[test]
fn contexts_are_joined_and_causes_not_repeated() {
    let io = || std::io::Error::other("disk full");
    let e = io().wrap("cannot write a.level".into());
    assert_eq!(chain(&e), "cannot write a.level: disk full");
    let e = Err::<(), _>(io()).context("a.level").context("merging");
    assert_eq!(chain(&e.unwrap_err()), "merging: a.level: disk full");
    let e = failure!("no such file").wrap("merging".into());
    assert_eq!(alternate(&e.wrap("a".into())), "a: merging: no such file");
    let e = Error::from(io()).wrap("a.level".into());
    assert_eq!(alternate(&e), "a.level: disk full");
}

#[test]
fn a_store_error_ends_the_chain() {
    let e = store::Error::NotARepository {
        path: ".".into(),
        source: Box::new(std::io::Error::other("not found")),
    };
    let e = Error::from(e).wrap("opening".into());
    assert_eq!(chain(&e), "opening: not a git repository: .");
}

/// The errors of [`every_error`] and any other failure, each carrying `text` where it
/// carries words.
fn errors_with(text: &str) -> Vec<Error> {
    let parse = merge::MergeError::Parse {
        version: merge::Version::Base,
        error: parse_error(),
    };
    let coherence = merge::MergeError::Coherence(merge::coherence::CoherenceError::Internal);
    let merge = |error| Error::Merge {
        error: Box::new(error),
        file: text.into(),
        versions: Box::new([text, text, text].map(String::from)),
    };
    let typed = [
        Error::BadInput(text.into()),
        Error::Usage(text.into()),
        merge(parse),
        merge(coherence),
        Error::Blocked(text.into()),
        Error::Failed(text.into()),
        Error::Output {
            command: "expr",
            source: std::io::Error::other(text.to_string()),
        },
    ];
    let mut all: Vec<Error> = typed.into_iter().collect();
    all.push(failure!("{text}").wrap(text.to_string()));
    all
}

proptest::proptest! {
    /// Whatever a failure carries (file names, messages, control characters read from a
    /// repository), its final message is safe for a terminal, mapping it never panics
    /// and its status is one of the documented ones.
    #[test]
    fn every_final_message_is_terminal_safe(text in "\\PC*|[\\x00-\\x1f\\x7f\\u{202e}a-z:\\n]{0,40}") {
        for e in errors_with(&text) {
            let result: Result<Outcome> = Err(e);
            let ending = Ending::of(&result);
            let message = message(&ending).unwrap_or_default();
            proptest::prop_assert_eq!(report::safe(&message), message.as_str());
            proptest::prop_assert!([1, 2].contains(&status(&ending)));
        }
    }
}

#[test]
fn a_failure_with_words_is_said_without_its_contexts() {
    let usage = Error::Usage("check --explain needs a file".into());
    let result: Result<Outcome> = Err(usage.wrap("checking".into()).wrap("a".into()));
    let ending = Ending::of(&result);
    assert_eq!(
        message(&ending).as_deref(),
        Some("assetvc: check --explain needs a file")
    );
    let other: Result<Outcome> = Err(failure!("the branch moved").wrap("pushing".into()));
    assert_eq!(
        message(&Ending::of(&other)).as_deref(),
        Some("assetvc: error: pushing: the branch moved")
    );
}
