//! Settings files every front end reads the same way: ignore files (the project's
//! [`PROJECT_IGNORE_FILE`], found by each front end in its project directory, and those a
//! setting names), with one error line for each way a file can be unusable.

mod ignore_files;

pub use crate::support::settings_file::{read_settings_file, SettingsFileError};
pub use ignore_files::{ignore_file_rules, PROJECT_IGNORE_FILE};
