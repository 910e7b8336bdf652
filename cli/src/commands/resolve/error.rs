//! Why `assetvc resolve` changed nothing: each failure worded as the command always said
//! it (the file as the user named it, `shown`, first).

/// Why `resolve` changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The file could not be read: `<file>: <why>`.
    #[error("{shown}: {source}")]
    Read {
        /// The file as the user named it.
        shown: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not parse: the diagnostic (`file:line:col: reason` and the line),
    /// then that nothing changed.
    #[error("{report}\nassetvc: {shown} does not parse; nothing changed")]
    DoesNotParse {
        /// The file as the user named it.
        shown: String,
        /// The parse error's diagnostic.
        report: String,
    },
    /// A version the merge recorded does not parse: its diagnostic, the version named
    /// `<file> (<side>)`.
    #[error("{0}")]
    RecordedDoesNotParse(String),
    /// The journal (the recorded versions) could not be read or the file written:
    /// `<file>: <why>`.
    #[error("{shown}: {source}")]
    Store {
        /// The file as the user named it.
        shown: String,
        /// Why.
        source: store::Error,
    },
    /// The file, once edited, no longer parsed (a bug: nothing was written).
    #[error("internal error: the edited {shown} does not parse ({error}); nothing changed")]
    EditedDoesNotParse {
        /// The file as the user named it.
        shown: String,
        /// The parse error.
        error: sjson::ParseError,
    },
    /// OBJECT names none of the objects with recorded conflicts (listed, else `none`).
    #[error(
        "{shown}: no object {wanted:?} among the recorded conflicts (objects with conflicts: {})",
        if .listed.is_empty() { "none".to_string() } else { .listed.join(", ") }
    )]
    NoSuchObject {
        /// The file as the user named it.
        shown: String,
        /// The OBJECT asked for.
        wanted: String,
        /// The objects with conflicts, as shown.
        listed: Vec<String>,
    },
    /// OBJECT names more than one object with recorded conflicts.
    #[error("{shown}: {wanted:?} is ambiguous; candidates: {}", .candidates.join(", "))]
    Ambiguous {
        /// The file as the user named it.
        shown: String,
        /// The OBJECT asked for.
        wanted: String,
        /// The objects it could name, as shown.
        candidates: Vec<String>,
    },
}
