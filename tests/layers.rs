//! The layers depend one way: each module below may name only the modules listed for it (in
//! code; comments and doc links may point anywhere). A new dependency that points up fails here
//! rather than in review. Test modules (`tests.rs`, `jvm_tests.rs`) may use anything: they
//! check a layer through the ones above it.

use std::path::Path;

/// `(module directory, crate modules its code may use)`.
const ALLOWED: &[(&str, &[&str])] = &[
    // The model: nothing above it.
    ("src/heap", &["heap", "parallel"]),
    // The reader builds the model.
    ("src/hprof", &["hprof", "heap", "parallel", "class_name"]),
    // The growth search reads the model only (and JFR's samples, for `watch --jfr`).
    (
        "src/growth",
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
    ("src/jfr", &["jfr", "class_name"]),
];

fn used_modules(source: &str) -> Vec<String> {
    let mut used = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
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

#[test]
fn lower_layers_do_not_use_higher_ones() {
    let mut violations = Vec::new();
    for (dir, allowed) in ALLOWED {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            .filter(|path| {
                !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with("tests.rs"))
            })
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no sources in {}", dir.display());
        for file in files {
            let source = std::fs::read_to_string(&file).unwrap();
            for module in used_modules(&source) {
                if !allowed.contains(&module.as_str()) {
                    violations.push(format!("{} uses crate::{module}", file.display()));
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
