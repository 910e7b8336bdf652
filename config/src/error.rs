//! Why a configuration cannot be used.

/// Why a configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// The text is not a valid configuration (bad TOML, unknown field, wrong type).
    #[error("{path}:{line}:{col}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// 1-based line (1 when the error has no position).
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        message: String,
    },
    /// A setting (from git config or a derived value) is invalid.
    #[error("{setting}: {message}")]
    Setting {
        /// The setting, e.g. `assetvc.check.glsl.command`.
        setting: String,
        /// What is wrong.
        message: String,
    },
    /// A glob pattern does not compile.
    #[error("{path}: pattern {pattern:?}: {message}")]
    Pattern {
        /// The file (or setting) the pattern comes from.
        path: String,
        /// The pattern.
        pattern: String,
        /// What is wrong.
        message: String,
    },
}
