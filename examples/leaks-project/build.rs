//! Compiles the Java scenarios into `$OUT_DIR/classes` (a Gradle or Maven project would point
//! the harness at `build/classes/java/main` or `target/classes` instead).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let sources = Path::new("java/src");
    println!("cargo:rerun-if-changed={}", sources.display());
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    let classes = Path::new(&std::env::var("OUT_DIR").unwrap()).join("classes");
    // From scratch each time: the class of a deleted or renamed scenario would otherwise stay
    // and still run as a test.
    if classes.exists() {
        std::fs::remove_dir_all(&classes).expect("the old classes can be removed");
    }
    let mut files = Vec::new();
    collect_java_files(sources, &mut files);
    let javac = match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin/javac"),
        None => PathBuf::from("javac"),
    };
    let status = Command::new(javac)
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .args(&files)
        .status()
        .expect("javac runs (install a JDK 17+ or set JAVA_HOME)");
    assert!(status.success(), "the Java scenarios compile");
}

fn collect_java_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_java_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "java") {
            files.push(path);
        }
    }
}
