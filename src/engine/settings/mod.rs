//! Settings, once for every front end: the table of every setting a user can give, with its
//! name in each front end ([`SETTINGS`]); the request that turns what a front end was given
//! into typed settings and assembles the ignore rules ([`SettingsRequest`]); and the settings
//! files every front end reads the same way: ignore files (the project's
//! [`PROJECT_IGNORE_FILE`], found by each front end in its project directory, and those a
//! setting names), with one error line for each way a file can be unusable.

mod ignore_files;
mod request;
mod table;
#[cfg(test)]
mod tests;

pub use crate::support::settings_file::{read_settings_file, SettingsFileError};
pub use ignore_files::{ignore_file_rules, PROJECT_IGNORE_FILE};
pub use request::{RunSettings, SettingError, SettingsRequest, Source, WarnUnmatched};
pub use table::{
    render_markdown, setting, setting_named, DefaultValue, FrontEnd, Kind, Setting, SETTINGS,
};
