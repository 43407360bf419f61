//! Leaf helpers every layer may use: class-name spelling, terminal-safe lines, checked output
//! files, whole-file locks, private temporary directories, the worker pool.

pub mod class_name;
pub mod file_lock;
pub mod line;
pub mod output;
pub(crate) mod parallel;
pub mod settings_file;
pub mod tempdir;
