//! The ignore files: the project's [`PROJECT_IGNORE_FILE`] and those a setting names.

use std::path::{Path, PathBuf};

use super::read_settings_file;
use crate::growth::IgnoreRule;

/// The project's ignore rules, read when the file exists in the project directory: the current
/// directory of `heapgrowth run`, of a test JVM under Gradle or Maven, and the crate directory
/// of the cargo harness. One file, so one rule holds in every front end.
pub const PROJECT_IGNORE_FILE: &str = "heapgrowth-ignore.txt";

/// The rules of [`PROJECT_IGNORE_FILE`] in `project_dir`, when there is one, then those of
/// each of `files` (the front end's setting), each file read once: a setting that names the
/// project file as well (`--ignore-file heapgrowth-ignore.txt`) would otherwise list its rules,
/// and warn about those that match nothing, twice.
pub fn ignore_file_rules(project_dir: &Path, files: &[PathBuf]) -> Result<Vec<IgnoreRule>, String> {
    let project = project_dir.join(PROJECT_IGNORE_FILE);
    let project = std::fs::symlink_metadata(&project)
        .is_ok()
        .then_some(project);
    let mut read = Vec::new();
    let mut rules = Vec::new();
    for path in project.iter().chain(files) {
        // One that can't be resolved is read all the same, for the error that says why.
        if let Ok(resolved) = std::fs::canonicalize(path) {
            if read.contains(&resolved) {
                continue;
            }
            read.push(resolved);
        }
        rules.extend(ignore_rules_in(path)?);
    }
    Ok(rules)
}

/// The rules of the ignore file at `path` (one per line, `#` comments; see
/// [`IgnoreRule::parse_file`]).
fn ignore_rules_in(path: &Path) -> Result<Vec<IgnoreRule>, String> {
    let text = read_settings_file("ignore file", path).map_err(|e| e.to_string())?;
    IgnoreRule::parse_file(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::PrivateTempDir;

    #[test]
    fn the_project_file_is_read_when_present() {
        let dir = PrivateTempDir::new("test").unwrap();
        assert_eq!(ignore_file_rules(dir.path(), &[]).unwrap(), Vec::new());
        std::fs::write(
            dir.path().join(PROJECT_IGNORE_FILE),
            "# known growth\ncom.example.Cache.entries warms up over 2000 loops\n",
        )
        .unwrap();
        let rules = ignore_file_rules(dir.path(), &[]).unwrap();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].pattern, "com.example.Cache.entries");
        std::fs::write(dir.path().join(PROJECT_IGNORE_FILE), "a.B.c\n*\n").unwrap();
        let error = ignore_file_rules(dir.path(), &[]).unwrap_err();
        assert!(
            error.contains(PROJECT_IGNORE_FILE) && error.contains(":2"),
            "{error}"
        );
    }

    #[test]
    fn a_file_named_twice_is_read_once() {
        let dir = PrivateTempDir::new("test").unwrap();
        let project = dir.path().join(PROJECT_IGNORE_FILE);
        std::fs::write(&project, "com.example.Cache.entries warms up\n").unwrap();
        let extra = dir.path().join("extra.txt");
        std::fs::write(&extra, "com.example.Pool.idle bounded by its size\n").unwrap();
        let patterns = |files: &[PathBuf]| -> Vec<String> {
            let rules = ignore_file_rules(dir.path(), files).unwrap();
            rules.into_iter().map(|rule| rule.pattern).collect()
        };
        // The project file named again, by another spelling of its path, and a file twice.
        let again = dir.path().join(".").join(PROJECT_IGNORE_FILE);
        assert_eq!(
            patterns(&[again, extra.clone(), extra.clone()]),
            ["com.example.Cache.entries", "com.example.Pool.idle"]
        );
        // The twin: two different files are both read.
        assert_eq!(
            patterns(&[extra]),
            ["com.example.Cache.entries", "com.example.Pool.idle"]
        );
        // A file that isn't there is still an error naming it.
        let missing = dir.path().join("missing.txt");
        let error = ignore_file_rules(dir.path(), std::slice::from_ref(&missing)).unwrap_err();
        assert!(error.contains(&missing.display().to_string()), "{error}");
    }

    #[test]
    fn unusable_files_are_one_line_naming_them() {
        let dir = PrivateTempDir::new("test").unwrap();
        let error = ignore_rules_in(dir.path()).unwrap_err();
        assert_eq!(
            error,
            format!("ignore file {} is a directory", dir.path().display())
        );
        let latin1 = dir.path().join("latin1.txt");
        std::fs::write(&latin1, b"caf\xe9\n").unwrap();
        let error = ignore_rules_in(&latin1).unwrap_err();
        assert_eq!(
            error,
            format!("ignore file {} is not UTF-8 at byte 3", latin1.display())
        );
    }
}
