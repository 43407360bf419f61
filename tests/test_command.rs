//! `scripts/test.sh`, the README's test command: a failing stage does not hide the others.
//! The script runs in a copy of the checkout's layout where `cargo` and the stage scripts are
//! stand-ins that record their call, so the test takes a second and runs nothing real.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn write_executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_failing_stage_does_not_stop_the_others_and_fails_the_command_at_the_end() {
    let root =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("test-command-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let checkout = root.join("checkout");
    fs::create_dir_all(checkout.join("examples/leaks-project")).unwrap();
    let script = checkout.join("scripts/test.sh");
    write_executable(
        &script,
        &fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test.sh")).unwrap(),
    );
    let calls = root.join("calls");
    // `cargo fmt --check` fails, as it does on an unformatted file; everything else passes.
    write_executable(
        &root.join("bin/cargo"),
        &format!(
            "#!/bin/sh\necho \"cargo $*\" >> '{}'\n[ \"$1\" != fmt ]\n",
            calls.display()
        ),
    );
    for stage in ["test-gradle-plugin.sh", "fuzz.sh", "probe-hostile.sh"] {
        write_executable(
            &checkout.join("scripts").join(stage),
            &format!("#!/bin/sh\necho \"{stage} $*\" >> '{}'\n", calls.display()),
        );
    }
    write_executable(
        &checkout.join("tests/release/run-consumer.sh"),
        &format!(
            "#!/bin/sh\necho \"run-consumer.sh $*\" >> '{}'\n",
            calls.display()
        ),
    );
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    let output = Command::new("bash")
        .arg(&script)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let calls = fs::read_to_string(&calls).unwrap();
    for stage in [
        "cargo fmt --check",
        "cargo clippy",
        "cargo doc",
        "cargo test --locked --all-targets",
        "cargo package",
        "cargo test\n",
        "cargo test --locked --features j4rs",
        "test-gradle-plugin.sh",
        "run-consumer.sh",
        "fuzz.sh 60",
        "probe-hostile.sh",
    ] {
        assert!(calls.contains(stage), "{stage} did not run:\n{calls}");
    }
    // The summary names each stage, its status and its time; the failure is said at the end.
    let summary = &stdout[stdout.find("== test: summary").expect(&stdout)..];
    let line = |name: &str| {
        summary
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{summary}"))
            .to_string()
    };
    assert!(line("fmt").contains("FAILED (exit 1)"), "{summary}");
    for stage in [
        "clippy",
        "cargo test",
        "junit, gradle, maven",
        "release consumer",
        "fuzz",
        "hostile inputs",
    ] {
        let line = line(stage);
        assert!(line.contains(" ok ") && line.ends_with(" s"), "{line}");
    }
    assert!(line("total").contains("FAILED"), "{summary}");
    fs::remove_dir_all(&root).unwrap();
}

/// `mvn -B -q` prints nothing but ESC[0m per console stream (Maven's console library resets the
/// colour as it ends): `scripts/setup.sh` printed four of them. Every script that runs a quiet
/// Maven sets `-Djansi.noreset=true` in MAVEN_OPTS.
#[test]
fn scripts_that_run_a_quiet_maven_switch_off_its_colour_reset() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut scripts = Vec::new();
    for dir in ["scripts", "tests/junit", "tests/release", "gradle-plugin"] {
        for entry in fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "sh") {
                scripts.push(path);
            }
        }
    }
    let mut missing = Vec::new();
    for script in &scripts {
        let text = fs::read_to_string(script).unwrap();
        let quiet_maven = text.lines().any(|line| {
            !line.trim_start().starts_with('#') && line.contains("mvn ") && line.contains(" -q ")
        });
        if quiet_maven
            && !text.contains("MAVEN_OPTS=\"${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true\"")
        {
            missing.push(script.strip_prefix(root).unwrap().display().to_string());
        }
    }
    assert!(scripts.len() > 5, "{scripts:?}");
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "quiet mvn without -Djansi.noreset=true"
    );
}
