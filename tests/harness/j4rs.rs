//! Rust-written scenarios (feature `j4rs`): closures that call the Java fixture library
//! `fixtures.javalib.AuditLog` through j4rs, run by the fixture harness like Java scenarios.
//! Every test name contains `j4rs`, so `cargo test --features j4rs --test harness j4rs` runs
//! just these.

use heapgrowth::harness::j4rs::{InvocationArg, Jvm};
use heapgrowth::harness::Harness;
use libtest_mimic::{Failed, Trial};

use crate::support::{Fixture, RUST_SCENARIOS_ENV};

const LIBRARY: &str = "fixtures.javalib.AuditLog";
/// Calls `AuditLog.record`, which keeps every entry in a static list.
const LEAKING: &str = "rust.audit_record";
/// Calls `AuditLog.format` and reads the result into Rust: nothing is kept on the Java side.
const CLEAN: &str = "rust.audit_format";
/// Calls a method `ArrayList` does not have: j4rs returns the Java error.
const FAILING: &str = "rust.missing_method";

/// The leak of `rust.audit_record` in the normalized form, without attribution lines.
const LEAK_REPORT: &str = "\
GcRoot(Class)
╰→STATIC_FIELD AuditLog.ENTRIES -> instance of java.util.ArrayList
    grows in: objects
    grows: ARRAY_ENTRY ArrayList.[x] -> instance of java.lang.String
";

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "j4rs_leaking_rust_scenario_is_reported",
            j4rs_leaking_rust_scenario_is_reported,
        ),
        Trial::test(
            "j4rs_clean_rust_scenario_passes",
            j4rs_clean_rust_scenario_passes,
        ),
        Trial::test(
            "j4rs_failing_rust_scenario_names_the_loop",
            j4rs_failing_rust_scenario_names_the_loop,
        ),
    ]
}

/// The fixture harness with the Rust scenarios (the fixture side of this binary).
pub fn with_rust_scenarios(harness: Harness) -> Harness {
    harness
        .rust_scenario(LEAKING, |jvm: &Jvm| {
            jvm.invoke_static(LIBRARY, "record", &[InvocationArg::try_from("checkout")?])?;
            Ok::<(), heapgrowth::harness::j4rs::errors::J4RsError>(())
        })
        .rust_scenario(CLEAN, |jvm: &Jvm| {
            let line = InvocationArg::try_from("checkout")
                .and_then(|entry| jvm.invoke_static(LIBRARY, "format", &[entry]))
                .and_then(|instance| jvm.to_rust::<String>(instance))
                .map_err(|e| e.to_string())?;
            if line.starts_with("checkout 0") {
                Ok(())
            } else {
                Err(format!("AuditLog.format returned {line:?}"))
            }
        })
        .rust_scenario(FAILING, |jvm: &Jvm| {
            // An instance call: j4rs 0.25.3's `invoke_static` loses the exception a static
            // method throws (it logs "An Exception was thrown by Java" and returns Ok).
            let list = jvm.create_instance("java.util.ArrayList", InvocationArg::empty())?;
            jvm.invoke(&list, "noSuchMethod", InvocationArg::empty())?;
            Ok::<(), heapgrowth::harness::j4rs::errors::J4RsError>(())
        })
}

// A Rust scenario whose Java calls keep objects: reported with the Java path that holds them,
// and the report accepted into the snapshot matches on the next run.
fn j4rs_leaking_rust_scenario_is_reported() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot(LEAKING, "")?;
    let run = fixture.run(
        &["--exact", LEAKING],
        &[(RUST_SCENARIOS_ENV, "1"), ("INSTA_UPDATE", "no")],
    )?;
    run.expect_status(101)?;
    run.expect_stdout_contains(&format!("test {LEAKING} ... FAILED"))?;
    for line in LEAK_REPORT.lines() {
        run.expect_stdout_matches(
            |stdout| stdout.lines().any(|l| l.contains('+') && l.ends_with(line)),
            line,
        )?;
    }
    let accept = fixture.run(
        &["--exact", LEAKING],
        &[(RUST_SCENARIOS_ENV, "1"), ("INSTA_UPDATE", "always")],
    )?;
    accept.expect_status(0)?;
    let snapshot = fixture.snapshot(LEAKING)?;
    if !snapshot.starts_with(LEAK_REPORT) {
        return Err(format!("accepted snapshot:\n{snapshot}").into());
    }
    let again = fixture.run(
        &["--exact", LEAKING],
        &[(RUST_SCENARIOS_ENV, "1"), ("INSTA_UPDATE", "no")],
    )?;
    again.expect_status(0)?;
    again.expect_stdout_contains(&format!("test {LEAKING} ... ok"))
}

// A Rust scenario whose Java calls keep nothing (j4rs's own per-call objects included) passes
// with an empty snapshot.
fn j4rs_clean_rust_scenario_passes() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot(CLEAN, "")?;
    let run = fixture.run(
        &["--exact", CLEAN],
        &[(RUST_SCENARIOS_ENV, "1"), ("INSTA_UPDATE", "no")],
    )?;
    run.expect_status(0)?;
    run.expect_stdout_contains(&format!("test {CLEAN} ... ok"))?;
    run.expect_stdout_contains("1 passed; 0 failed")
}

// A Rust scenario whose Java call fails: the test fails with the scenario, the loop and j4rs's
// error, and the other tests of the run are not affected.
fn j4rs_failing_rust_scenario_names_the_loop() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let run = fixture.run(&["--exact", FAILING], &[(RUST_SCENARIOS_ENV, "1")])?;
    run.expect_status(101)?;
    run.expect_stdout_contains(&format!("test {FAILING} ... FAILED"))?;
    run.expect_stdout_contains(&format!(
        "scenario {FAILING} could not be run: Rust scenario {FAILING} failed in loop 1: "
    ))?;
    run.expect_stdout_contains("noSuchMethod")
}
