//! The child side of a trial: runs one scenario in this process's JVM, compares its normalized
//! report with the snapshot through insta, writes the verdict for the parent, and exits. A
//! failing trial leaves its HTML report in `target/heapgrowth/<scenario>.html` and says so.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::{heapgrowth_dir, trial::CRASH_LOG, Harness, RESULT_ENV};
use crate::engine::{run as run_engine, RunOptions};
use crate::jvm::JvmOptions;
use crate::report::gate::{judge, Baseline};
use crate::report::{
    render_html, render_normalized, render_scenario, write_report_file, ScenarioReport, StackDepth,
};
use crate::settings::WarnUnmatched;

/// Runs trial `name` and exits; the verdict goes to the file named by [`RESULT_ENV`].
pub(super) fn run(harness: &Harness, name: &str) -> ! {
    let Some(result_path) = std::env::var_os(RESULT_ENV).map(PathBuf::from) else {
        eprintln!(
            "heapgrowth: {RESULT_ENV} is not set; this process was not started by the harness"
        );
        std::process::exit(2);
    };
    let verdict = match outcome(harness, name, &result_path) {
        Ok(()) => "pass\n".to_owned(),
        Err(message) => format!("fail\n{message}"),
    };
    let _ = std::io::stdout().flush();
    let written = std::fs::write(&result_path, verdict);
    // The JVM stays up until the process exits (it cannot be destroyed); exit at once.
    std::process::exit(if written.is_ok() { 0 } else { 2 })
}

fn outcome(harness: &Harness, name: &str, result_path: &Path) -> Result<(), String> {
    let report = scenario_report(harness, name, result_path)?;
    judged(&report, harness, name).map_err(|message| with_page(&report, name, message))
}

/// The failure `message` of trial `name`, with the line naming its HTML report, written to
/// `target/heapgrowth/<name>.html` (or why it could not be).
fn with_page(report: &ScenarioReport, name: &str, message: String) -> String {
    let page = page_path(name);
    let html = render_html(std::slice::from_ref(report));
    // Checked and written as every front end writes its reports (crate::output).
    let written = page
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            crate::output::check_outputs(&[("the HTML report", &page)], &[])
                .map_err(|e| e.to_string())
        })
        .and_then(|checked| {
            write_report_file(&checked[0].target, &html).map_err(|e| e.to_string())
        });
    match written {
        Ok(()) => format!(
            "{message}
HTML report: {}",
            page.display()
        ),
        Err(error) => format!(
            "{message}
(the HTML report could not be written to {}: {error})",
            page.display()
        ),
    }
}

fn page_path(name: &str) -> PathBuf {
    heapgrowth_dir().join(format!("{name}.html"))
}

/// The trial's verdict: the gate against the accepted snapshot, then insta.
fn judged(report: &ScenarioReport, harness: &Harness, name: &str) -> Result<(), String> {
    if let Err(error) = &report.result {
        return Err(format!("scenario {name} could not be run: {error}"));
    }
    if let Some(crate::report::Verdict::Inconclusive(reason)) = report.verdict() {
        println!(
            "\nfull report:\n{}",
            render_scenario(report, StackDepth::default()).trim_end()
        );
        return Err(format!("heapgrowth could not judge {name}: {reason}"));
    }
    let snapshot = harness.snapshot_file(name);
    // The gate decides, as the JUnit baseline does: a comment line that moves the growing code,
    // or an attribution found another way, leaves an accepted snapshot passing.
    let accepted = std::fs::read_to_string(&snapshot).ok();
    if let Some(text) = &accepted {
        let judgement = judge(report, &Baseline::parse(snapshot_body(text)));
        if judgement.passes() && judgement.stale.is_empty() {
            return passed(report, name, &snapshot);
        }
    }
    // insta prints the diff and saves the new report as `.snap.new` (or accepts it, as
    // INSTA_UPDATE says).
    if compare_with_snapshot(&snapshot, name, &render_normalized(report)) {
        return passed(report, name, &snapshot);
    }
    // The full report adds the counts and sizes the snapshot leaves out.
    println!(
        "\nfull report:\n{}",
        render_scenario(report, StackDepth::default()).trim_end()
    );
    if accepted.is_none() {
        return Err(format!(
            "{name} has no snapshot yet ({}); that is expected the first time a scenario \
             runs: accept every new one with `INSTA_UPDATE=always cargo test`, or review them \
             with `cargo insta review` (`cargo install cargo-insta`)",
            snapshot.display()
        ));
    }
    Err(format!(
        "the growth report of {name} differs from {}; review with `cargo insta review`, \
         or accept with INSTA_UPDATE=always",
        snapshot.display()
    ))
}

/// A passing trial keeps no dumps (those the engine kept because something grew are deleted),
/// no `.snap.new` and no HTML page of an earlier failure: the accepted snapshot holds.
fn passed(report: &ScenarioReport, name: &str, snapshot: &Path) -> Result<(), String> {
    let mut pending = snapshot.as_os_str().to_owned();
    pending.push(".new");
    let _ = std::fs::remove_file(pending);
    let _ = std::fs::remove_file(page_path(name));
    for dump in &report.kept_dumps {
        let _ = std::fs::remove_file(dump);
    }
    if let Some(dir) = report.kept_dumps.first().and_then(|dump| dump.parent()) {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// An insta snapshot file's content, after its `---` header.
fn snapshot_body(text: &str) -> &str {
    text.strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text, |(_header, body)| body)
}

fn scenario_report(
    harness: &Harness,
    name: &str,
    result_path: &Path,
) -> Result<ScenarioReport, String> {
    let trial_dir = result_path.parent().unwrap_or(Path::new("."));
    // Fields added to JvmOptions later keep their defaults.
    #[allow(clippy::needless_update)]
    let jvm = JvmOptions {
        java_home: harness.java_home.clone(),
        classpath: harness.resolved_classpath(),
        jvm_args: jvm_args(harness, trial_dir),
        scenario_timeout: Some(crate::engine::DEFAULT_SCENARIO_TIMEOUT),
        ..JvmOptions::default()
    };
    #[cfg(feature = "j4rs")]
    if let Some(scenario) = harness.rust_scenario_named(name) {
        let j4rs_jar = harness.j4rs_jar.as_deref().map(super::in_crate);
        let settings = harness.run_settings(false)?;
        let report = super::rust::scenario_report(
            scenario,
            name,
            jvm,
            &settings.search,
            j4rs_jar.as_deref(),
        )?;
        warn_unmatched(settings.unmatched, name, &report);
        return Ok(report);
    }
    let settings = harness.run_settings(true)?;
    let unmatched = settings.unmatched;
    let mut options = RunOptions::new(jvm, vec![name.to_owned()]);
    options.settings = settings.search;
    options.keep_dumps_in = settings.keep_dumps_dir;
    options.progress = false;
    // When the scenario ends the JVM (System.exit, a crash), the verdict is still written.
    let verdict_path = result_path.to_path_buf();
    let trial = name.to_owned();
    let mut reports = run_engine(&options, move |ended| {
        let message = match ended {
            Ok(reports) => reports
                .iter()
                .find_map(|r| r.result.as_ref().err().cloned())
                .unwrap_or_else(|| "the JVM ended the process".into()),
            Err(e) => format!("cannot run scenario {trial}: {e}"),
        };
        let _ = std::fs::write(&verdict_path, format!("fail\n{message}"));
    })
    .map_err(|e| format!("cannot run scenario {name}: {e}"))?;
    let report = reports
        .pop()
        .ok_or_else(|| format!("the engine returned no report for {name}"))?;
    warn_unmatched(unmatched, name, &report);
    Ok(report)
}

/// Prints the warnings about ignore rules that matched nothing the harness gives (none so far:
/// see [`WarnUnmatched`]).
fn warn_unmatched(unmatched: WarnUnmatched, name: &str, report: &ScenarioReport) {
    for warning in unmatched.warnings(std::slice::from_ref(report)) {
        println!("heapgrowth: {name}: warning: {warning}");
    }
}

/// The user's JVM options, then: the crash log into the trial's private directory (the parent
/// quotes it), and no core file.
fn jvm_args(harness: &Harness, trial_dir: &Path) -> Vec<String> {
    let mut args = harness.jvm_args.clone();
    args.push(format!(
        "-XX:ErrorFile={}",
        trial_dir.join(CRASH_LOG).display()
    ));
    args.push("-XX:-CreateCoredumpOnCrash".into());
    args
}

/// Whether `normalized` matches the snapshot; insta prints the diff and records the new
/// snapshot as its environment says (`INSTA_UPDATE`, `INSTA_FORCE_PASS`).
fn compare_with_snapshot(snapshot: &Path, name: &str, normalized: &str) -> bool {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot.parent().unwrap_or(Path::new(".")));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(format!("heapgrowth normalized growth report of {name}"));
    // insta fails by panicking; its message is replaced by ours, so keep the hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let matched = catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.to_owned(), normalized));
    }));
    let _ = std::panic::take_hook();
    matched.is_ok()
}
