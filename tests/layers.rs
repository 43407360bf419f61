//! The layers depend one way: each module below may name only the modules listed for it (in
//! code; comments and doc links may point anywhere). A new dependency that points up fails here
//! rather than in review. Test modules (`tests.rs`, `jvm_tests.rs`) may use anything: they
//! check a layer through the ones above it.
//!
//! Besides the layers: the model has no JNI, raw JNI calls happen only in `src/jvm` (through
//! its boundary), no two modules of a folder (files or folders) use each other both ways, and the
//! front ends do not use each other.

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
            "java_text",
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
            "java_text",
            "line",
            "output",
        ],
    ),
    // The JFR old-object session sits below the engine's search loop (`engine/jfr.rs` and the
    // watch front end use it): naming the engine again would bring back the two-way pair
    // `engine` <-> `old_object_session` that issue 31 broke.
    (
        "src/engine/old_object_session.rs",
        &[
            "old_object_session",
            "attach",
            "growth",
            "jfr",
            "line",
            "report",
            "tempdir",
        ],
    ),
    // Everything above, and its own parts.
    (
        "src/engine",
        &[
            "support",
            "class_name",
            "java_text",
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

/// `lib.rs`'s short names with the module paths they stand for: `growth` ->
/// `model::growth`, `jfr_watch` -> `frontends::watch::jfr`, ...
fn short_names() -> Vec<(String, Vec<String>)> {
    let lib = read(Path::new("src/lib.rs"));
    let code = code_lines(&lib).collect::<Vec<_>>().join(" ");
    let mut names = Vec::new();
    for statement in code.split(';').map(str::trim) {
        let Some(used) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let (prefix, items) = match used.split_once("::{") {
            Some((prefix, group)) => (prefix, group.trim_end_matches('}').split(',').collect()),
            None => ("", vec![used]),
        };
        for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
            let (path, alias) = match item.split_once(" as ") {
                Some((path, alias)) => (path.trim(), alias.trim()),
                None => (item, item.rsplit("::").next().unwrap()),
            };
            let full = prefix
                .split("::")
                .chain(path.split("::"))
                .filter(|segment| !segment.is_empty())
                .map(String::from)
                .collect();
            names.push((alias.to_string(), full));
        }
    }
    names
}

/// The module path of a source file: `src/model/growth/tree/walk.rs` is
/// `model::growth::tree::walk`, a folder's `mod.rs` is the folder, `lib.rs` the crate.
fn module_of(file: &Path) -> Vec<String> {
    let mut path: Vec<String> = file
        .strip_prefix("src")
        .unwrap()
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// `source` without its inline test module (`mod tests {` to its closing `}`, both at the start
/// of a line, as rustfmt writes them): there `super::` is the file itself, and tests may use
/// anything.
fn outside_inline_tests(source: &str) -> String {
    let mut kept = String::new();
    let mut in_tests = false;
    for line in source.lines() {
        if in_tests {
            in_tests = line != "}";
        } else if line == "mod tests {" {
            in_tests = true;
        } else {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// The module paths the code of `module` names through `crate::`, `super::` and `self::`,
/// made absolute (short names of `short` expanded), each up to the first segment after any
/// group: `super::{record::{self, Record}, Storage}` in `heap::graph` gives `heap::record` and
/// `heap::Storage`.
fn paths_used(
    source: &str,
    module: &[String],
    short: &[(String, Vec<String>)],
) -> Vec<Vec<String>> {
    let code = code_lines(&outside_inline_tests(source))
        .collect::<Vec<_>>()
        .join("\n");
    let mut used = Vec::new();
    let mut from = 0;
    while let Some((at, start)) = ["crate::", "super::", "self::"]
        .iter()
        .filter_map(|start| code[from..].find(start).map(|at| (from + at, *start)))
        .min()
    {
        from = at + start.len();
        // `super::super::x` is read whole at its first `super::`; `heapgrowth::x`, `$crate::x`
        // and `not_self::x` are not relative paths of the crate.
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$')
        {
            continue;
        }
        let mut base: Vec<String> = match start {
            "crate::" => Vec::new(),
            "self::" => module.to_vec(),
            _ => module[..module.len().saturating_sub(1)].to_vec(),
        };
        let mut rest = &code[from..];
        while let Some(after) = rest.strip_prefix("super::") {
            base.pop();
            rest = after;
        }
        let mut segments = Vec::new();
        loop {
            let name = identifier(rest);
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            segments.push(name);
            match rest.strip_prefix("::") {
                Some(after) => rest = after,
                None => break,
            }
        }
        if start == "crate::" {
            if let Some((_, full)) = short
                .iter()
                .find(|(alias, _)| segments.first() == Some(alias))
            {
                segments.splice(..1, full.iter().cloned());
            }
        }
        base.extend(segments);
        match rest.strip_prefix('{') {
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
                for part in top.split(',').map(|part| identifier(part.trim())) {
                    if !part.is_empty() && part != "self" {
                        used.push(base.iter().cloned().chain([part]).collect());
                    }
                }
            }
            None => used.push(base),
        }
    }
    used
}

/// The name [`ALLOWED`] knows a module path by: the short name of `lib.rs` it lies in
/// (the longest), else its top folder (`report`, `engine`, ...).
fn layer_of<'a>(target: &'a [String], short: &'a [(String, Vec<String>)]) -> &'a str {
    short
        .iter()
        .filter(|(_, full)| target.starts_with(full))
        .max_by_key(|(_, full)| full.len())
        .map_or(target[0].as_str(), |(alias, _)| alias.as_str())
}

/// The two modules of one folder that `module` naming `target` ties together, as
/// `(folder, user, used)`: the children of their deepest common module on either side, if the
/// used side is a module (a file or a folder) and not an item of that common module's `mod.rs`.
/// A module naming its own parts or its ancestors ties no two siblings.
fn sibling_edge(module: &[String], target: &[String]) -> Option<(PathBuf, String, String)> {
    let common = module
        .iter()
        .zip(target)
        .take_while(|(a, b)| a == b)
        .count();
    if common >= module.len() || common >= target.len() {
        return None;
    }
    let folder: PathBuf = Path::new("src").join(module[..common].iter().collect::<PathBuf>());
    let used = &target[common];
    let is_module = root().join(&folder).join(format!("{used}.rs")).is_file()
        || root().join(&folder).join(used).join("mod.rs").is_file();
    is_module.then(|| (folder, module[common].clone(), used.clone()))
}

#[test]
fn lower_layers_do_not_use_higher_ones() {
    let short = short_names();
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
        let source = read(file);
        for module in used_modules(&source) {
            if !allowed.contains(&module.as_str()) {
                violations.push(format!("{} uses crate::{module}", file.display()));
            }
        }
        // `super::` paths too: a file may not climb out of its layer that way either.
        let module = module_of(file);
        for target in paths_used(&source, &module, &short) {
            // A glob of an ancestor is an inline test module's `use super::*`.
            if module.starts_with(&target) {
                continue;
            }
            let layer = layer_of(&target, &short);
            if !allowed.contains(&layer) {
                violations.push(format!(
                    "{} uses {} (of {layer})",
                    file.display(),
                    target.join("::")
                ));
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
    let short = short_names();
    assert!(
        short
            .iter()
            .any(|(alias, full)| alias == "growth" && full == &["model", "growth"]),
        "lib.rs's short names were not read: {short:?}"
    );
    // `(folder, user, used, the file that uses)`: a folder module's files all speak for it.
    let mut edges: Vec<(PathBuf, String, String, PathBuf)> = Vec::new();
    for file in sources("src") {
        let module = module_of(&file);
        for target in paths_used(&read(&file), &module, &short) {
            if let Some((folder, from, to)) = sibling_edge(&module, &target) {
                if !edges
                    .iter()
                    .any(|(d, f, t, by)| (d, f, t, by) == (&folder, &from, &to, &file))
                {
                    edges.push((folder, from, to, file.clone()));
                }
            }
        }
    }
    let mut violations = Vec::new();
    for (folder, from, to, by) in &edges {
        if from >= to {
            continue;
        }
        let back: Vec<String> = edges
            .iter()
            .filter(|(d, f, t, _)| d == folder && f == to && t == from)
            .map(|(_, _, _, file)| file.display().to_string())
            .collect();
        if !back.is_empty() {
            violations.push(format!(
                "{0}/{from} and {0}/{to} use each other ({1} uses {to}; {2} uses {from})",
                folder.display(),
                by.display(),
                back.join(", ")
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
    let short = short_names();
    let module = ["model", "heap", "resident"].map(String::from);
    let source = "use super::graph::Node;\n// super::tree\nuse super::{\n    record::{self, Record},\n    Storage,\n};\nlet x = super::super::storage::f();\n";
    let siblings: Vec<String> = paths_used(source, &module, &short)
        .iter()
        .filter_map(|target| sibling_edge(&module, target))
        .map(|(folder, from, to)| {
            assert_eq!(
                (folder.as_path(), from.as_str()),
                (Path::new("src/model/heap"), "resident")
            );
            to
        })
        .collect();
    assert_eq!(siblings, ["graph", "record"]);
}

#[test]
fn the_sibling_scan_sees_crate_paths_and_folders() {
    let short = short_names();
    // A short name of lib.rs, and a folder module (`growth/tree/`) as the sibling.
    let finish = ["model", "growth", "search", "finish"].map(String::from);
    let source = "let t = crate::growth::tree::build(&graph);\n";
    let used = paths_used(source, &finish, &short);
    assert_eq!(used, [["model", "growth", "tree", "build"]]);
    assert_eq!(
        sibling_edge(&finish, &used[0]),
        Some(("src/model/growth".into(), "search".into(), "tree".into()))
    );
    // A short name that stands for a file inside a folder.
    let jfr = ["engine", "jfr"].map(String::from);
    let used = paths_used(
        "use crate::old_object_session::OldObjectSession;",
        &jfr,
        &short,
    );
    assert_eq!(
        sibling_edge(&jfr, &used[0]),
        Some((
            "src/engine".into(),
            "jfr".into(),
            "old_object_session".into()
        ))
    );
    // An item of the parent's `mod.rs`, and the module's own parts, tie no siblings.
    let session = ["engine", "old_object_session"].map(String::from);
    for source in ["use crate::engine::SearchSettings;", "use self::inner::X;"] {
        let used = paths_used(source, &session, &short);
        assert_eq!(used.len(), 1, "{source}");
        assert_eq!(sibling_edge(&session, &used[0]), None, "{source}");
    }
}
