//! Settings files every front end reads the same way (an ignore file, a baseline), with one
//! error line for each way a file can be unusable.

use std::path::{Path, PathBuf};

/// A file a setting names (an ignore file, a baseline) that cannot be used; each message is one
/// line naming the file and what is wrong, as the failed test shows it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsFileError {
    /// The path is a directory.
    #[error("{what} {} is a directory", path.display())]
    Directory {
        /// What the file is for ("ignore file").
        what: &'static str,
        /// The path as given.
        path: PathBuf,
    },
    /// The file is not UTF-8 from byte `offset` (counted from 0) on.
    #[error("{what} {} is not UTF-8 at byte {offset}", path.display())]
    NotUtf8 {
        /// What the file is for.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// The first byte that is not UTF-8.
        offset: usize,
    },
    /// Missing, not readable.
    #[error("cannot read the {what} {}: {source}", path.display())]
    Unreadable {
        /// What the file is for.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The text of the `what` file at `path`.
pub fn read_settings_file(what: &'static str, path: &Path) -> Result<String, SettingsFileError> {
    let unreadable = |source| SettingsFileError::Unreadable {
        what,
        path: path.to_path_buf(),
        source,
    };
    // Asked first: reading a directory fails with an error that does not say what it is on
    // every Rust version this crate supports (io::ErrorKind::IsADirectory is from 1.83).
    if std::fs::metadata(path).map_err(unreadable)?.is_dir() {
        return Err(SettingsFileError::Directory {
            what,
            path: path.to_path_buf(),
        });
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    String::from_utf8(bytes).map_err(|e| SettingsFileError::NotUtf8 {
        what,
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}
