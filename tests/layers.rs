//! The layers depend one way: each module below may name only the modules listed for it (in
//! code; comments and doc links may point anywhere). A new dependency that points up fails here
//! rather than in review. Test modules (`tests.rs`, `jvm_tests.rs`) may use anything: they
//! check a layer through the ones above it.
//!
//! Besides the layers: the model has no JNI, raw JNI calls happen only in `src/jvm` (through
//! its boundary), no two files of a folder use each other both ways, and the front ends do not
//! use each other.

use std::path::{Path, PathBuf};

/// Any crate module.
const ANY: &[&str] = &["*"];

/// `(module directory, crate modules its code may use)`. The entry with the longest matching
/// directory applies, so `src/jvm/jvmti` overrides `src/jvm`. The names are the short ones
/// `lib.rs` re-exports (`crate::growth`, `crate::tempdir`, ...).
const ALLOWED: &[(&str, &[&str])] = &[
    // Leaf helpers every layer may use: nothing above them (`support` is their own folder).
    (
        "src/support",
        &[
            "support",
            "class_name",
            "line",
            "output",
            "parallel",
            "settings_file",
            "tempdir",
        ],
    ),
    // The model's folder itself (its `mod.rs`); each part has its own entry below.
    ("src/model", &["model", "heap", "hprof", "jfr", "growth"]),
    // The model: nothing above it.
    ("src/model/heap", &["heap", "parallel"]),
    // The reader builds the model.
    (
        "src/model/hprof",
        &["hprof", "heap", "parallel", "class_name"],
    ),
    // The growth search reads the model only (and JFR's samples, for `watch --jfr`).
    (
        "src/model/growth",
        &[
            "growth",
            "heap",
            "hprof",
            "jfr",
            "parallel",
            "line",
            "class_name",
        ],
    ),
    // The JFR reader and its samples: nothing else of the crate but the spelling of names.
    ("src/model/jfr", &["jfr", "class_name"]),
    // Raw JVMTI: nothing else of the crate.
    ("src/jvm/jvmti", &["jvmti"]),
    // Every call into a JNIEnv or JVMTI env.
    ("src/jvm", &["jvm", "jvmti", "tempdir", "line"]),
    // A JVM heapgrowth did not start.
    (
        "src/attach",
        &["attach", "jvm", "jvmti", "tempdir", "class_name"],
    ),
    (
        "src/attribution",
        &[
            "attribution",
            "growth",
            "attach",
            "jvm",
            "jvmti",
            "jfr",
            "class_name",
        ],
    ),
    (
        "src/report",
        &[
            "report",
            "growth",
            "attribution",
            "attach",
            "heap",
            "hprof",
            "jfr",
            "line",
            "output",
        ],
    ),
    // Everything above, and its own parts.
    (
        "src/engine",
        &[
            "support",
            "class_name",
            "line",
            "output",
            "parallel",
            "settings_file",
            "tempdir",
            "heap",
            "hprof",
            "jfr",
            "growth",
            "jvm",
            "jvmti",
            "attach",
            "attribution",
            "report",
            "engine",
            "settings",
            "old_object_session",
        ],
    ),
    ("src/frontends", ANY),
];

/// Files of `src/` that belong to no layer.
const OUTSIDE_LAYERS: &[&str] = &["src/lib.rs", "src/main.rs"];

/// Pairs of files in one folder that still use each other, `(folder, file stem, file stem)`,
/// each being broken by its own step of issue 31 (§3 of docs/plans/issue-31.md); delete an
/// entry when its cycle is gone. An entry no pair needs any more does not fail.
const MUTUAL_NOT_YET_BROKEN: &[(&str, &str, &str)] = &[
    // Cycle 1: `engine/mod.rs` and `old_object_session.rs` (through `crate::` paths, so the
    // scan below, which reads `super::` paths of files other than `mod.rs`, does not see it).
    ("src/engine", "mod", "old_object_session"),
    // Cycle 2.
    ("src/model/growth", "decode", "tree"),
    // Cycle 3.
    ("src/model/heap", "graph", "storage"),
    // Cycle 6.
    ("src/report", "gate", "normalized"),
];

/// JNIEnv calls that may run Java code or touch its exceptions: only `src/jvm` makes them.
const RAW_JNI_CALLS: &[&str] = &[
    ".call_method(",
    ".call_static_method(",
    ".exception_check(",
    ".exception_clear(",
    ".get_string(",
    ".new_string(",
    ".throw_new(",
];

/// The one file outside `src/jvm` that may define `extern "system"` functions: the JUnit
/// extension's exports, which only name jni types in their signatures and call `jvm::boundary`.
const JNI_EXPORTS: &str = "src/frontends/junit/exports.rs";

/// The front ends a library front end (JUnit, the cargo harness) must not use.
const OTHER_FRONT_ENDS: &[&str] = &["cli", "diff", "watch", "jfr_watch"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `.rs` files under `dir`, recursively, but for test modules; relative to the crate.
fn sources(dir: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root().join(dir)];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with("tests.rs"))
            {
                found.push(path.strip_prefix(root()).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(root().join(file)).unwrap()
}

/// The modules `file` may use: those of the longest matching directory of [`ALLOWED`].
fn allowed_for(file: &Path) -> Option<&'static [&'static str]> {
    ALLOWED
        .iter()
        .filter(|(dir, _)| file.starts_with(dir))
        .max_by_key(|(dir, _)| Path::new(dir).components().count())
        .map(|(_, allowed)| *allowed)
}

/// The lines that are not comments.
fn code_lines(source: &str) -> impl Iterator<Item = &str> {
    source
        .lines()
        .map(str::trim_start)
        .filter(|code| !code.starts_with("//"))
}

fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

fn used_modules(source: &str) -> Vec<String> {
    let mut used = Vec::new();
    for code in code_lines(source) {
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name = identifier(after);
            // `heapgrowth::` or `$crate::` are not paths from inside the crate.
            let before = &rest[..at];
            if !before.ends_with('$') && !before.ends_with("heapgrowth::") && !name.is_empty() {
                used.push(name);
            }
            rest = after;
        }
    }
    used
}

/// The names of `siblings` that `source` reaches through `super::NAME` (also in a group,
/// `super::{NAME, ...}`), in code.
fn sibling_uses(source: &str, siblings: &[String]) -> Vec<String> {
    let code = code_lines(source).collect::<Vec<_>>().join("\n");
    let mut used = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("super::") {
        let at = from + found;
        // `before` is the whole code up to the match, so that the second `super::` of
        // `super::super::x` sees the first one's `:`.
        let before = &code[..at];
        let after = &code[at + "super::".len()..];
        from = at + "super::".len();
        // `super::super::x` and `not_super::x` are not a sibling's paths.
        if before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            continue;
        }
        let names = match after.strip_prefix('{') {
            Some(group) => {
                // The group's first path segments, outside nested groups.
                let mut depth = 0;
                let mut top = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        _ if depth == 0 => top.push(c),
                        _ => {}
                    }
                }
                top.split(',').map(|part| identifier(part.trim())).collect()
            }
            None => vec![identifier(after)],
        };
        for name in names {
            if siblings.contains(&name) && !used.contains(&name) {
                used.push(name);
            }
        }
    }
    used
}

#[test]
fn lower_layers_do_not_use_higher_ones() {
    let files = sources("src");
    for (dir, _) in ALLOWED {
        assert!(
            files.iter().any(|file| file.starts_with(dir)),
            "no sources in {dir}"
        );
    }
    let mut violations = Vec::new();
    for file in &files {
        let Some(allowed) = allowed_for(file) else {
            if !OUTSIDE_LAYERS
                .iter()
                .any(|outside| file == Path::new(outside))
            {
                violations.push(format!("{} is in no layer of ALLOWED", file.display()));
            }
            continue;
        };
        if allowed == ANY {
            continue;
        }
        for module in used_modules(&read(file)) {
            if !allowed.contains(&module.as_str()) {
                violations.push(format!("{} uses crate::{module}", file.display()));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn model_has_no_jni() {
    let mut violations = Vec::new();
    for file in sources("src/model") {
        let source = read(&file);
        for code in code_lines(&source) {
            if ["jni::", "JNIEnv", "jvmti"]
                .iter()
                .any(|jni| code.contains(jni))
            {
                violations.push(format!("{}: {code}", file.display()));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn jni_calls_only_in_jvm() {
    let mut violations = Vec::new();
    for file in sources("src") {
        if file.starts_with("src/jvm") {
            continue;
        }
        let source = read(&file);
        for code in code_lines(&source) {
            for call in RAW_JNI_CALLS {
                if code.contains(call) {
                    violations.push(format!("{} calls {call}: {code}", file.display()));
                }
            }
            if code.contains("extern \"system\"") && file != Path::new(JNI_EXPORTS) {
                violations.push(format!("{} exports to Java: {code}", file.display()));
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn sibling_files_do_not_use_each_other_both_ways() {
    let mut edges = Vec::new();
    for file in sources("src") {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = file.parent().unwrap();
        // In `mod.rs`, `lib.rs` and `main.rs`, `super::` is the folder's parent.
        if ["mod", "lib", "main"].contains(&stem.as_str()) {
            continue;
        }
        let mut siblings: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|sibling| *sibling != "mod" && *sibling != stem)
            .collect();
        siblings.sort();
        for used in sibling_uses(&read(&file), &siblings) {
            edges.push((dir.to_path_buf(), stem.clone(), used));
        }
    }
    let mut violations = Vec::new();
    for (dir, from, to) in &edges {
        let back = edges
            .iter()
            .any(|(d, f, t)| d == dir && f == to && t == from);
        let allowed = MUTUAL_NOT_YET_BROKEN.iter().any(|(d, a, b)| {
            dir == Path::new(d) && ((from == a && to == b) || (from == b && to == a))
        });
        if back && from < to && !allowed {
            violations.push(format!(
                "{0}/{from}.rs and {0}/{to}.rs use each other",
                dir.display()
            ));
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn frontends_do_not_use_each_other() {
    let mut violations = Vec::new();
    for dir in ["src/frontends/junit", "src/frontends/harness"] {
        let files = sources(dir);
        assert!(!files.is_empty(), "no sources in {dir}");
        for file in files {
            let source = read(&file);
            for module in used_modules(&source) {
                if OTHER_FRONT_ENDS.contains(&module.as_str()) {
                    violations.push(format!("{} uses crate::{module}", file.display()));
                }
            }
            for code in code_lines(&source) {
                for other in OTHER_FRONT_ENDS {
                    if code.contains(&format!("frontends::{other}::"))
                        || code.contains(&format!("frontends::{other};"))
                    {
                        violations.push(format!("{} uses {other}: {code}", file.display()));
                    }
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_scan_sees_uses_and_skips_comments() {
    let source =
        "use crate::heap::HeapGraph;\n/// [`crate::engine`]\nlet x = crate::report::write(y);\n";
    assert_eq!(used_modules(source), ["heap", "report"]);
}

#[test]
fn the_sibling_scan_reads_paths_and_groups() {
    let siblings: Vec<String> = ["graph", "record", "storage", "tree"]
        .map(String::from)
        .to_vec();
    let source = "use super::graph::Node;\n// super::tree\nuse super::{\n    record::{self, Record},\n    Storage,\n};\nlet x = super::super::storage::f();\n";
    assert_eq!(sibling_uses(source, &siblings), ["graph", "record"]);
}
