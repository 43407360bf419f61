//! Builds the two artifacts the heapgrowth library embeds and extracts at run time:
//! - `heapgrowth-glue.jar`: the Java side (`jvm-glue/src/main/java/**/*.java`), compiled with
//!   `javac --release 17` so it loads on every supported JVM;
//! - `libheapgrowth_agent.so`: the small JVMTI agent (`agent/heapgrowth_agent.c`), loaded with
//!   `-agentpath:` (see the comment at the top of that file for why it is a separate library).
//!
//! Both land in OUT_DIR and are embedded with `include_bytes!` by `src/jvm/embedded.rs`, so the
//! binary works after `cargo install` and inside other crates' test binaries.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const GLUE_SOURCES: &str = "jvm-glue/src/main/java";
const AGENT_SOURCE: &str = "agent/heapgrowth_agent.c";
/// The oldest JDK heapgrowth supports; the glue must be loadable there.
const JAVA_RELEASE: &str = "17";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={GLUE_SOURCES}");
    println!("cargo:rerun-if-changed={AGENT_SOURCE}");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let jdk = find_build_jdk();
    build_glue_jar(&jdk, &manifest_dir.join(GLUE_SOURCES), &out_dir);
    build_agent(&jdk, &manifest_dir.join(AGENT_SOURCE), &out_dir);
}

/// `JAVA_HOME`, else the JDK that `javac` on PATH belongs to (through symlinks such as
/// Debian's `/usr/bin/javac` → `/etc/alternatives/javac` → `/usr/lib/jvm/.../bin/javac`).
fn find_build_jdk() -> PathBuf {
    if let Some(home) = env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        if !home.join("bin/javac").is_file() {
            panic!(
                "heapgrowth build: JAVA_HOME={} has no bin/javac; set JAVA_HOME to a JDK (17 or newer), not a JRE",
                home.display()
            );
        }
        return home;
    }
    let javac = env::var_os("PATH")
        .map(|path| {
            env::split_paths(&path)
                .map(|dir| dir.join("javac"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file());
    let Some(javac) = javac else {
        panic!(
            "heapgrowth build: no JDK found: JAVA_HOME is not set and there is no `javac` on PATH; \
             install a JDK (17 or newer) and set JAVA_HOME to it"
        );
    };
    let real = fs::canonicalize(&javac)
        .unwrap_or_else(|e| panic!("heapgrowth build: cannot resolve {}: {e}", javac.display()));
    match real.parent().and_then(Path::parent) {
        Some(home) => home.to_path_buf(),
        None => panic!(
            "heapgrowth build: {} is not inside a JDK's bin directory; set JAVA_HOME to a JDK",
            real.display()
        ),
    }
}

fn build_glue_jar(jdk: &Path, glue_sources: &Path, out_dir: &Path) {
    let mut sources = Vec::new();
    collect_java_sources(glue_sources, &mut sources);
    sources.sort();
    if sources.is_empty() {
        panic!("heapgrowth build: no Java sources under {GLUE_SOURCES}");
    }

    // Start from an empty directory so classes of deleted sources do not linger in the jar.
    let classes = out_dir.join("glue-classes");
    let _ = fs::remove_dir_all(&classes);
    fs::create_dir_all(&classes).expect("create the glue classes directory");

    // An argument file keeps the command line short however many sources there are.
    let argfile = out_dir.join("glue-sources.txt");
    let listing: String = sources
        .iter()
        .map(|s| format!("\"{}\"\n", s.display()))
        .collect();
    fs::write(&argfile, listing).expect("write the javac argument file");
    let mut at_argfile = OsString::from("@");
    at_argfile.push(&argfile);

    let output = run(
        Command::new(jdk.join("bin/javac"))
            .args([
                "--release",
                JAVA_RELEASE,
                "-encoding",
                "UTF-8",
                "-Xlint:all",
                "-d",
            ])
            .arg(&classes)
            .arg(at_argfile),
        "javac",
    );
    // javac's warnings would vanish in cargo's captured output; surface them.
    for line in String::from_utf8_lossy(&output.stderr).lines() {
        println!("cargo:warning=javac: {line}");
    }

    let jar = out_dir.join("heapgrowth-glue.jar");
    let _ = fs::remove_file(&jar);
    run(
        Command::new(jdk.join("bin/jar"))
            .arg("--create")
            .arg("--file")
            .arg(&jar)
            .arg("-C")
            .arg(&classes)
            .arg("."),
        "jar",
    );
}

fn collect_java_sources(dir: &Path, sources: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("heapgrowth build: cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("read a directory entry").path();
        if path.is_dir() {
            collect_java_sources(&path, sources);
        } else if path.extension().is_some_and(|ext| ext == "java") {
            sources.push(path);
        }
    }
}

/// The cc crate only builds static libraries, but -agentpath: needs a shared object, so we
/// use the compiler (and target flags) cc finds and link with `-shared` ourselves.
fn build_agent(jdk: &Path, agent_source: &Path, out_dir: &Path) {
    let include = jdk.join("include");
    if !include.join("jvmti.h").is_file() {
        panic!(
            "heapgrowth build: {} has no jvmti.h; set JAVA_HOME to a full JDK (17 or newer)",
            include.display()
        );
    }
    let compiler = cc::Build::new().get_compiler();
    let mut command = compiler.to_command();
    command
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra"])
        // Never unmapped once loaded, not even when the JVM dlcloses it after an
        // Agent_OnAttach that returned an error: events and the watchdog thread of live
        // sampling may still run its code (see the live-loading comment in the agent).
        .arg("-Wl,-z,nodelete")
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(include.join("linux"))
        .arg("-o")
        .arg(out_dir.join("libheapgrowth_agent.so"))
        .arg(agent_source);
    run(&mut command, "the C compiler");
}

fn run(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("heapgrowth build: cannot run {what} ({command:?}): {e}"));
    if !output.status.success() {
        panic!(
            "heapgrowth build: {what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    output
}
