//! Tests of `heapgrowth::harness`, run as a user runs it: this test binary is also a user's
//! `harness = false` test target over the Java fixtures in `tests/harness/fixtures/` (when
//! [`FIXTURE_ENV`] is set), and each test below runs it as a child process with libtest's
//! command line, then checks its output, its exit status and the snapshot files.
//!
//! Every run of a fixture scenario starts a JVM (about 1–3 s), so tests filter to the scenarios
//! they need.

#[cfg(feature = "j4rs")]
mod j4rs;
mod support;

use std::path::PathBuf;
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};
use support::{Fixture, FIXTURE_ENV};

type TestFn = fn() -> Result<(), Failed>;

fn main() {
    if std::env::var_os(FIXTURE_ENV).is_some() {
        support::fixture_harness();
    }
    let tests: &[(&str, TestFn)] = &[
        (
            "list_names_the_scenarios_of_the_package",
            list_names_the_scenarios_of_the_package,
        ),
        ("list_from_a_jar", list_from_a_jar),
        (
            "list_applies_filters_exact_skip_and_ignored",
            list_applies_filters_exact_skip_and_ignored,
        ),
        (
            "package_without_scenarios_fails",
            package_without_scenarios_fails,
        ),
        ("clean_scenario_passes", clean_scenario_passes),
        ("new_leak_fails_with_a_diff", new_leak_fails_with_a_diff),
        (
            "accepted_leak_passes_twenty_times",
            accepted_leak_passes_twenty_times,
        ),
        (
            "fixed_leak_fails_until_accepted",
            fixed_leak_fails_until_accepted,
        ),
        (
            "accepted_leak_survives_moved_lines_and_other_attribution",
            accepted_leak_survives_moved_lines_and_other_attribution,
        ),
        (
            "an_ignore_rule_of_the_builder_silences_its_path_only",
            an_ignore_rule_of_the_builder_silences_its_path_only,
        ),
        (
            "kept_dumps_exist_after_a_failing_trial_only",
            kept_dumps_exist_after_a_failing_trial_only,
        ),
        (
            "a_failing_trial_leaves_its_html_report_and_names_it",
            a_failing_trial_leaves_its_html_report_and_names_it,
        ),
        (
            "a_first_run_says_how_to_accept_and_accepting_leaves_no_pending_snapshot",
            a_first_run_says_how_to_accept_and_accepting_leaves_no_pending_snapshot,
        ),
        (
            "a_leak_sampled_by_jfr_fails_with_its_class",
            a_leak_sampled_by_jfr_fails_with_its_class,
        ),
        (
            "java_sources_are_compiled_from_scratch_at_each_run",
            java_sources_are_compiled_from_scratch_at_each_run,
        ),
        (
            "java_sources_that_do_not_compile_fail_with_javac_messages",
            java_sources_that_do_not_compile_fail_with_javac_messages,
        ),
        ("missing_class_fails_clearly", missing_class_fails_clearly),
        (
            "crashing_jvm_fails_only_its_trial",
            crashing_jvm_fails_only_its_trial,
        ),
    ];
    #[allow(unused_mut)]
    let mut trials: Vec<Trial> = tests
        .iter()
        .map(|&(name, test)| Trial::test(name, test))
        .collect();
    #[cfg(feature = "j4rs")]
    trials.extend(j4rs::trials());
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

const ALL_SCENARIOS: &str = "\
fixtures.Clean: test
fixtures.Crash: test
fixtures.DoesNotExist: test
fixtures.Leak: test
fixtures.Unfinished: test
fixtures.ViaSuperclass: test
";

/// The leak of `fixtures.Leak` in the normalized form, without its attribution lines.
const LEAK_REPORT: &str = "\
GcRoot(Class)
╰→STATIC_FIELD Leak.ITEMS -> instance of java.util.ArrayList
    grows in: objects
    grows: ARRAY_ENTRY ArrayList.[x] -> instance of fixtures.Leak$Entry
";

// Discovery: public concrete top-level Runnables with a public no-arg constructor, in the
// package only (not fixtures.sub), Runnable also through a superclass; plus the named class.
fn list_names_the_scenarios_of_the_package() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let run = fixture.run(&["--list"], &[])?;
    run.expect_status(0)?;
    run.expect_stdout_starts(ALL_SCENARIOS)?;
    // nextest's form: one `name: test` line per test and nothing else.
    let terse = fixture.run(&["--list", "--format", "terse"], &[])?;
    terse.expect_status(0)?;
    check(terse.stdout == ALL_SCENARIOS, || {
        format!("terse list:\n{}", terse.stdout)
    })
}

fn list_from_a_jar() -> Result<(), Failed> {
    let fixture = Fixture::new()?.with_classpath(support::fixture_jar()?);
    let run = fixture.run(&["--list", "--format", "terse"], &[])?;
    run.expect_status(0)?;
    check(run.stdout == ALL_SCENARIOS, || {
        format!("list from the jar:\n{}", run.stdout)
    })
}

fn list_applies_filters_exact_skip_and_ignored() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let cases: &[(&[&str], &str)] = &[
        (&["Lea"], "fixtures.Leak: test\n"),
        (&["fixtures.Cl"], "fixtures.Clean: test\n"),
        (&["--exact", "fixtures.Cl"], ""),
        (&["--exact", "fixtures.Clean"], "fixtures.Clean: test\n"),
        (
            &["fixtures.", "--skip", "fixtures.C", "--skip", "Does"],
            "fixtures.Leak: test\nfixtures.Unfinished: test\nfixtures.ViaSuperclass: test\n",
        ),
        (&["--ignored"], "fixtures.Unfinished: test\n"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["--list", "--format", "terse"];
        all.extend_from_slice(args);
        let run = fixture.run(&all, &[])?;
        run.expect_status(0)?;
        check(run.stdout == *expected, || {
            format!("{args:?} listed:\n{}\nexpected:\n{expected}", run.stdout)
        })?;
    }
    // Running only ignored tests runs the ignored scenario (no growth, empty snapshot).
    fixture.write_snapshot("fixtures.Unfinished", "")?;
    let run = fixture.run(&["--ignored", "--test-threads", "1"], &[])?;
    run.expect_status(0)?;
    run.expect_stdout_contains("test fixtures.Unfinished ... ok")?;
    run.expect_stdout_contains("1 passed; 0 failed; 0 ignored")
}

/// Environment variables of a fixture run.
type Env = Vec<(String, String)>;

/// A fixture with no class path of its own, its sources in `sources/` and its compiled classes
/// under its own target directory.
fn sources_fixture(files: &[(&str, &str)]) -> Result<(Fixture, PathBuf, Env), Failed> {
    let fixture = Fixture::new()?
        .with_classpath(PathBuf::new())
        .with_package("sources");
    let sources = fixture.dir().join("sources");
    for (name, text) in files {
        std::fs::create_dir_all(&sources).map_err(|e| e.to_string())?;
        std::fs::write(sources.join(name), text).map_err(|e| e.to_string())?;
    }
    let env = vec![
        (
            support::SOURCES_ENV.to_owned(),
            sources.display().to_string(),
        ),
        (
            "CARGO_TARGET_DIR".to_owned(),
            fixture.dir().join("target").display().to_string(),
        ),
    ];
    Ok((fixture, sources, env))
}

fn borrowed(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

// Harness::java_sources: no build.rs; the trials (child processes) find the compiled classes,
// and a scenario whose source is deleted is gone at the next run.
fn java_sources_are_compiled_from_scratch_at_each_run() -> Result<(), Failed> {
    let (fixture, sources, env) = sources_fixture(&[
        (
            "Quiet.java",
            "package sources; public class Quiet implements Runnable { public void run() {} }",
        ),
        (
            "Gone.java",
            "package sources; public class Gone implements Runnable { public void run() {} }",
        ),
    ])?;
    let env = borrowed(&env);
    let list = fixture.run(&["--list", "--format", "terse", "sources."], &env)?;
    list.expect_status(0)?;
    check(
        list.stdout == "sources.Gone: test\nsources.Quiet: test\n",
        || format!("listed:\n{}", list.stdout),
    )?;
    fixture.write_snapshot("sources.Quiet", "")?;
    let run = fixture.run(&["--exact", "sources.Quiet"], &env)?;
    run.expect_status(0)?;
    run.expect_stdout_contains("test sources.Quiet ... ok")?;
    std::fs::remove_file(sources.join("Gone.java")).map_err(|e| e.to_string())?;
    let list = fixture.run(&["--list", "--format", "terse", "sources."], &env)?;
    list.expect_status(0)?;
    check(list.stdout == "sources.Quiet: test\n", || {
        format!("listed after Gone.java was deleted:\n{}", list.stdout)
    })
}

fn java_sources_that_do_not_compile_fail_with_javac_messages() -> Result<(), Failed> {
    let (fixture, _, env) = sources_fixture(&[(
        "Broken.java",
        "package sources; public class Broken implements Runnable { public void run() { undefined(); } }",
    )])?;
    let run = fixture.run(&[], &borrowed(&env))?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test heapgrowth::harness::java_sources ... FAILED")?;
    run.expect_stdout_contains("javac failed")?;
    run.expect_stdout_contains("cannot find symbol")?;
    // Nothing half-compiled is left to run.
    check(
        !fixture
            .dir()
            .join("target/heapgrowth/java-classes")
            .exists(),
        || "java-classes exists after a failed compile".into(),
    )
}

fn package_without_scenarios_fails() -> Result<(), Failed> {
    let fixture = Fixture::new()?.with_package("fixtures.empty");
    let run = fixture.run(&["scenarios_in"], &[])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test scenarios_in(fixtures.empty) ... FAILED")?;
    run.expect_stdout_contains("no scenario in package fixtures.empty on the class path")
}

fn clean_scenario_passes() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot("fixtures.Clean", "")?;
    let run = fixture.run(&["--exact", "fixtures.Clean"], &[])?;
    run.expect_status(0)?;
    run.expect_stdout_contains("test fixtures.Clean ... ok")?;
    run.expect_stdout_contains("1 passed; 0 failed")
}

// A scenario whose snapshot is empty starts leaking: the failure shows the new path as added
// lines of a diff, and nothing is written with INSTA_UPDATE=no.
fn new_leak_fails_with_a_diff() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot("fixtures.Leak", "")?;
    let run = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "no")])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.Leak ... FAILED")?;
    run.expect_stdout_contains("the growth report of fixtures.Leak differs from")?;
    // insta's diff: `+new results` lines with the path that appeared.
    run.expect_stdout_contains("+new results")?;
    for line in LEAK_REPORT.lines() {
        run.expect_stdout_matches(
            |stdout| stdout.lines().any(|l| l.contains('+') && l.ends_with(line)),
            line,
        )?;
    }
    // The full report with counts follows the diff.
    run.expect_stdout_contains("Retained size:")?;
    check(fixture.snapshot("fixtures.Leak")?.is_empty(), || {
        "the snapshot was changed".into()
    })
}

// A leak accepted into the snapshot passes; and twenty runs give the same snapshot
// (the normalized report is stable from run to run).
fn accepted_leak_passes_twenty_times() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let accept = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "always")])?;
    accept.expect_status(0)?;
    let snapshot = fixture.snapshot("fixtures.Leak")?;
    // The path, then whatever attribution adds (frames of the `add` calls).
    check(snapshot.starts_with(LEAK_REPORT), || {
        format!("accepted snapshot:\n{snapshot}")
    })?;
    let started = Instant::now();
    const RUNS: u32 = 20;
    for round in 1..=RUNS {
        let run = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "no")])?;
        run.expect_status(0)
            .map_err(|e| format!("run {round} of {RUNS}: {}", e.message().unwrap_or_default()))?;
    }
    eprintln!(
        "{RUNS} runs of fixtures.Leak gave the same snapshot in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

// The gate key is the path, the kind of growth, the children and the methods, not line
// numbers nor how attribution found it: a snapshot accepted before a comment line moved the
// growing code, or written by a run without the agent, still accepts the leak; another path
// does not.
fn accepted_leak_survives_moved_lines_and_other_attribution() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let accept = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "always")])?;
    accept.expect_status(0)?;
    let accepted = fixture.snapshot("fixtures.Leak")?;
    check(accepted.contains("at fixtures.Leak.run(Leak.java)"), || {
        format!("the snapshot holds the method without its line:\n{accepted}")
    })?;
    let variants = [
        (
            "a line number from before a comment line was added",
            accepted.replace("(Leak.java)", "(Leak.java:15)"),
        ),
        (
            "no attribution, as without the agent",
            LEAK_REPORT.to_owned()
                + "    not attributed: heapgrowth's JVMTI agent is not loaded, and only a \
                   recording proxy works without it\n",
        ),
    ];
    for (what, snapshot) in &variants {
        fixture.write_snapshot("fixtures.Leak", snapshot)?;
        let run = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "no")])?;
        run.expect_status(0)
            .map_err(|e| format!("{what}: {}", e.message().unwrap_or_default()))?;
        check(
            fixture.snapshot("fixtures.Leak")? == snapshot.trim_end(),
            || format!("{what}: a passing run must leave the snapshot as it was"),
        )?;
    }
    fixture.write_snapshot(
        "fixtures.Leak",
        &accepted.replace("Leak.ITEMS", "Leak.OTHER"),
    )?;
    let run = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "no")])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.Leak ... FAILED")
}

// `Harness::ignore_growth`: the leak's path is accepted without a snapshot entry, a rule for
// another path leaves it failing, and a bad rule fails the trial with its text.
fn an_ignore_rule_of_the_builder_silences_its_path_only() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot("fixtures.Leak", "")?;
    let ignored = fixture.run(
        &["--exact", "fixtures.Leak"],
        &[
            ("INSTA_UPDATE", "no"),
            (support::IGNORE_ENV, "fixtures.Leak.ITEMS kept on purpose"),
        ],
    )?;
    ignored.expect_status(0)?;
    let other = fixture.run(
        &["--exact", "fixtures.Leak"],
        &[
            ("INSTA_UPDATE", "no"),
            (support::IGNORE_ENV, "fixtures.Leak.OTHER not this one"),
        ],
    )?;
    other.expect_status(101)?;
    other.expect_stdout_contains("╰→STATIC_FIELD Leak.ITEMS -> instance of java.util.ArrayList")?;
    let bad = fixture.run(&["--exact", "fixtures.Leak"], &[(support::IGNORE_ENV, "*")])?;
    bad.expect_status(101)?;
    bad.expect_stdout_contains("ignore_growth(\"*\")")
}

// HEAPGROWTH_KEEP_DUMPS=failed: a failing trial leaves its last two dumps under the target
// directory, owner-only; the same trial passing against its accepted snapshot leaves none.
fn kept_dumps_exist_after_a_failing_trial_only() -> Result<(), Failed> {
    use std::os::unix::fs::PermissionsExt;
    let fixture = Fixture::new()?;
    let target = fixture.dir().join("target");
    let target_env = target.to_str().ok_or("a UTF-8 path")?;
    let kept = target.join("heapgrowth/dumps/fixtures.Leak");
    fixture.write_snapshot("fixtures.Leak", "")?;
    let env = [
        ("INSTA_UPDATE", "no"),
        ("HEAPGROWTH_KEEP_DUMPS", "failed"),
        ("CARGO_TARGET_DIR", target_env),
    ];
    let failing = fixture.run(&["--exact", "fixtures.Leak"], &env)?;
    failing.expect_status(101)?;
    failing.expect_stdout_contains("Heap dumps kept")?;
    for dump in ["snapshot-1.hprof", "snapshot-2.hprof"] {
        let mode = std::fs::metadata(kept.join(dump))
            .map_err(|e| format!("{}: {e}", kept.join(dump).display()))?
            .permissions()
            .mode();
        check(mode & 0o777 == 0o600, || {
            format!("{dump} has mode {mode:o}")
        })?;
    }
    std::fs::remove_dir_all(&kept).map_err(|e| e.to_string())?;
    let accept = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "always")])?;
    accept.expect_status(0)?;
    let passing = fixture.run(&["--exact", "fixtures.Leak"], &env)?;
    passing.expect_status(0)?;
    check(!kept.exists(), || {
        format!("{} exists after a passing trial", kept.display())
    })
}

// A failing trial writes its HTML report to target/heapgrowth/<scenario>.html and its failure
// message says where; once the trial passes, the page of the failure is gone.
fn a_failing_trial_leaves_its_html_report_and_names_it() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let target = fixture.dir().join("target");
    let target_env = target.to_str().ok_or("a UTF-8 path")?;
    let page = target.join("heapgrowth/fixtures.Leak.html");
    fixture.write_snapshot("fixtures.Leak", "")?;
    let env = [("INSTA_UPDATE", "no"), ("CARGO_TARGET_DIR", target_env)];
    let failing = fixture.run(&["--exact", "fixtures.Leak"], &env)?;
    failing.expect_status(101)?;
    failing.expect_stdout_contains(&format!("HTML report: {}", page.display()))?;
    let html = std::fs::read_to_string(&page).map_err(|e| format!("{}: {e}", page.display()))?;
    check(
        html.starts_with("<!DOCTYPE html>")
            && html.contains("<title>heapgrowth: fixtures.Leak</title>")
            && html.contains("STATIC_FIELD Leak.ITEMS -> instance of java.util.ArrayList"),
        || format!("the page of the failing trial: {html}"),
    )?;
    let accept = fixture.run(
        &["--exact", "fixtures.Leak"],
        &[("INSTA_UPDATE", "always"), ("CARGO_TARGET_DIR", target_env)],
    )?;
    accept.expect_status(0)?;
    let passing = fixture.run(&["--exact", "fixtures.Leak"], &env)?;
    passing.expect_status(0)?;
    check(!page.exists(), || {
        format!("{} exists after a passing trial", page.display())
    })
}

// Without a snapshot a trial fails and says that is expected and how to accept; insta leaves
// the report as `.snap.new`, and the accepting run that passes removes it.
fn a_first_run_says_how_to_accept_and_accepting_leaves_no_pending_snapshot() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let first = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "new")])?;
    first.expect_status(101)?;
    first.expect_stdout_contains("fixtures.Leak has no snapshot yet")?;
    first.expect_stdout_contains("that is expected the first time a scenario runs")?;
    first.expect_stdout_contains("INSTA_UPDATE=always cargo test")?;
    let pending = fixture.dir().join("fixtures.Leak.snap.new");
    check(pending.exists(), || {
        format!("insta wrote no {}", pending.display())
    })?;
    let accept = fixture.run(&["--exact", "fixtures.Leak"], &[("INSTA_UPDATE", "always")])?;
    accept.expect_status(0)?;
    check(!pending.exists(), || {
        format!("{} is left after accepting", pending.display())
    })?;
    check(
        fixture
            .snapshot("fixtures.Leak")?
            .starts_with(LEAK_REPORT.trim_end()),
        || "the accepted snapshot holds the leak".into(),
    )
}

// A leak that was fixed fails against its old snapshot (the path shows as removed lines) until
// the empty report is accepted.
fn fixed_leak_fails_until_accepted() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot("fixtures.Clean", LEAK_REPORT)?;
    let run = fixture.run(&["--exact", "fixtures.Clean"], &[("INSTA_UPDATE", "no")])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.Clean ... FAILED")?;
    run.expect_stdout_contains("-old snapshot")?;
    run.expect_stdout_matches(
        |stdout| {
            stdout.lines().any(|l| {
                l.contains('-')
                    && l.ends_with("╰→STATIC_FIELD Leak.ITEMS -> instance of java.util.ArrayList")
            })
        },
        "removed leak line",
    )?;
    let accept = fixture.run(
        &["--exact", "fixtures.Clean"],
        &[("INSTA_UPDATE", "always")],
    )?;
    accept.expect_status(0)?;
    check(fixture.snapshot("fixtures.Clean")?.is_empty(), || {
        "the accepted snapshot is empty".into()
    })
}

// With jfr set (what `run --jfr` and `@HeapGrowthTest(jfr = true)` do), a trial records JFR
// old-object samples in its own JVM instead of dumping the heap; a class whose samples grow is
// a block of the snapshot, and a new one fails the trial with the class in insta's diff.
fn a_leak_sampled_by_jfr_fails_with_its_class() -> Result<(), Failed> {
    let fixture = Fixture::new()?.with_package("fixtures.jfr");
    fixture.write_snapshot("fixtures.jfr.Sessions", "")?;
    let run = fixture.run(
        &["--exact", "fixtures.jfr.Sessions"],
        &[("INSTA_UPDATE", "no"), (support::JFR_ENV, "1")],
    )?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.jfr.Sessions ... FAILED")?;
    run.expect_stdout_contains("the growth report of fixtures.jfr.Sessions differs from")?;
    for line in ["JFR old-object samples of byte[]", "    grows in: samples"] {
        run.expect_stdout_matches(
            |stdout| stdout.lines().any(|l| l.contains('+') && l.ends_with(line)),
            line,
        )?;
    }
    check(
        fixture.snapshot("fixtures.jfr.Sessions")?.is_empty(),
        || "the snapshot was changed".into(),
    )
}

fn missing_class_fails_clearly() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    let run = fixture.run(&["--exact", "fixtures.DoesNotExist"], &[])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.DoesNotExist ... FAILED")?;
    run.expect_stdout_contains("scenario fixtures.DoesNotExist could not be run: scenario class fixtures.DoesNotExist not found")
}

fn crashing_jvm_fails_only_its_trial() -> Result<(), Failed> {
    let fixture = Fixture::new()?;
    fixture.write_snapshot("fixtures.Clean", "")?;
    // `fixtures.C` selects Clean and Crash; they run in parallel, each in its own process.
    let run = fixture.run(&["fixtures.C", "--test-threads", "2"], &[])?;
    run.expect_status(101)?;
    run.expect_stdout_contains("test fixtures.Clean ... ok")?;
    run.expect_stdout_contains("test fixtures.Crash ... FAILED")?;
    // The trial's JVM reports its own crash (its abort hook): the scenario, the loops, and
    // the crash log.
    run.expect_stdout_contains("of fixtures.Crash: the JVM aborted")?;
    run.expect_stdout_contains("the JVM's crash log begins")?;
    run.expect_stdout_contains("SIGSEGV")?;
    run.expect_stdout_contains("1 passed; 1 failed")?;
    Ok(())
}

fn check(ok: bool, message: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(message().into())
    }
}
