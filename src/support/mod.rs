//! Leaf helpers every layer may use: class-name spelling, text and paths as Java shows them,
//! terminal-safe lines, checked output files, private temporary directories, the worker pool.

pub mod class_name;
pub mod java_text;
pub mod line;
pub mod output;
pub(crate) mod parallel;
pub mod settings_file;
pub mod tempdir;
