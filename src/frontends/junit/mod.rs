//! The JUnit front end: the engine's side of `NativeEngine.search`, called by the JUnit
//! extension (`jvm-glue/src/junit/java/dev/heapgrowth/junit/`).
//!
//! Here the JVM already runs (the test JVM of Gradle, Surefire or any JUnit Platform launcher)
//! and loaded this library with `System.load`; heapgrowth does not start a JVM. The extension
//! passes the test's settings through as `key=value` strings and gets a typed `TestOutcome`
//! back; everything between is here, once: the request is parsed (`request`), the test
//! method is searched as a [`crate::engine::Driver`] whose loops call back into the extension
//! (`driver`), the run is judged against the baseline ([`crate::report::gate`], which the cargo
//! harness shares), the reports are written (`reports`, [`crate::report::index_page`]), the
//! baseline rewritten when asked (`baseline_file`), and the outcome (`outcome`) says what the
//! extension throws and prints.
//!
//! The JNI exports are in `exports.rs`, thin, through [`crate::jvm::boundary::entry`]; every call
//! into Java goes through `jvm::test_callback`: no raw JNI call is made here.
//!
//! The test JVM can end under a search (a cancelled CI build sends SIGTERM or SIGHUP): it runs
//! its shutdown hooks and exits, and no Rust destructor deletes the heap dumps. The extension's
//! shutdown hook calls `NativeEngine.closing()`, which stops new dumps, waits for the one being
//! written and deletes every private directory of this process (see `dump_gate`).

mod baseline_file;
mod driver;
mod dump_gate;
mod exports;
mod outcome;
mod reports;
mod request;

use std::path::Path;
use std::sync::Arc;

use jni::objects::JObject;
use jni::JNIEnv;

use crate::engine::{self, Progress};
use crate::jvm::boundary::BoundaryError;
use crate::jvm::test_callback::{self, TestCallback};
use crate::jvm::{JavaAccess, LiveAgent};
use crate::line::escape_line;
use crate::report::gate::{judge, Baseline, GateStatus, Judgement};
use crate::report::{render_html, render_scenario, to_json, ScenarioReport, StackDepth};

use self::driver::TestMethod;
use self::dump_gate::DUMPS;
use self::outcome::{Conclusion, RunStatus, TestRun, Thrown};
use self::request::TestRequest;

/// What the extension does with a test's run: `TestOutcome.Status` in Java.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Nothing grows, or only what the baseline accepts: the test passes.
    Clean,
    /// The baseline was rewritten from the run: the test passes.
    BaselineUpdated,
    /// A path grows that the baseline does not accept: `HeapGrowthFailure`.
    Growing,
    /// The search could not judge: the test is skipped with the reason.
    Inconclusive,
    /// heapgrowth could not run the test: `IllegalStateException`.
    Error,
}

impl Status {
    /// The name of the Java enum constant.
    fn java_name(self) -> &'static str {
        match self {
            Status::Clean => "CLEAN",
            Status::BaselineUpdated => "BASELINE_UPDATED",
            Status::Growing => "GROWING",
            Status::Inconclusive => "INCONCLUSIVE",
            Status::Error => "ERROR",
        }
    }
}

/// What `NativeEngine.search` returns: the extension prints `notices` on `System.err` (which
/// Surefire captures; fd 2 it does not), then throws what `status` says with `message`.
#[derive(Debug, PartialEq, Eq)]
struct TestOutcome {
    status: Status,
    /// The message of the exception the extension throws ("" for a passing test).
    message: String,
    /// `HeapGrowthFailure.getMessage()`: the report's first line and where the whole report
    /// is ("" unless the status is `Growing`).
    summary: String,
    /// Lines for `System.err`.
    notices: Vec<String>,
}

impl TestOutcome {
    /// The outcome of what the extension did once the reports were written.
    fn of(conclusion: Conclusion) -> TestOutcome {
        let (status, message, summary) = match conclusion.thrown {
            Thrown::Nothing if conclusion.rewrite_baseline => {
                (Status::BaselineUpdated, String::new(), String::new())
            }
            Thrown::Nothing => (Status::Clean, String::new(), String::new()),
            Thrown::IllegalState(message) => (Status::Error, message, String::new()),
            Thrown::Aborted(message) => (Status::Inconclusive, message, String::new()),
            Thrown::Failure { message, summary } => (Status::Growing, message, summary),
        };
        TestOutcome {
            status,
            message,
            summary,
            notices: conclusion.notices,
        }
    }

    /// The Java `TestOutcome` object.
    fn to_java<'local>(&self, env: &mut JNIEnv<'local>) -> Result<JObject<'local>, BoundaryError> {
        Ok(test_callback::new_test_outcome(
            env,
            self.status.java_name(),
            &self.message,
            &self.summary,
            &self.notices,
        )?)
    }
}

/// Runs the test method behind `callback` (the extension's `LoopCallback`) as the loops of a
/// growth search with the settings `pairs`, writes its reports, rewrites its baseline section
/// when asked, and says what the extension does next.
fn run_test<'local>(
    env: &mut JNIEnv<'local>,
    callback: &JObject<'local>,
    name: &str,
    pairs: &[String],
) -> Result<TestOutcome, BoundaryError> {
    let request = TestRequest::parse(pairs)?;
    // Without the agent, attribution has only recording proxies; an agent that was asked for
    // but cannot be used is an error the report says rather than a silent fallback.
    let agent = match &request.agent_path {
        None => None,
        Some(path) => Some(test_callback::agent_of_this_jvm(env, Path::new(path))?),
    };
    let access = java_access(env);
    let (live_agent, live, no_attribution) = match (&agent, access) {
        (Some(Err(reason)), _) => (None, None, Some(reason.clone())),
        (_, Err(reason)) => (None, None, Some(reason)),
        (agent, Ok(access)) => (
            agent
                .as_ref()
                .and_then(|agent| agent.as_ref().ok())
                .map(|(jvmti, capabilities)| LiveAgent {
                    jvmti,
                    capabilities: *capabilities,
                }),
            Some(access),
            None,
        ),
    };
    let dumps = DUMPS.dump_directory()?;
    let mut driver = TestMethod {
        callback: TestCallback::new(env, callback),
        loops_run: 0,
        agent: live_agent,
        live,
        no_attribution,
        threw: false,
    };
    let mut report = engine::search(
        &mut driver,
        name,
        &request.settings,
        dumps.path(),
        &Progress::new(false),
    );
    report.result = report
        .result
        .map_err(|error| dump_gate::failure_message(&DUMPS, error));
    let threw = driver.threw;
    // The test's section of the baseline; none while it is rewritten.
    let accepted = match &request.baseline_text {
        Some(text) if !request.update_baseline => crate::report::baseline::section(text, name),
        _ => String::new(),
    };
    let judgement = judge(&report, &Baseline::parse(&accepted));
    // Kept only for a test that fails (an error, or growth the baseline lacks).
    let failed = report.result.is_err() || !judgement.passes();
    let keep_in = request.keep_dumps_dir.as_deref();
    engine::settle_kept_dumps(&mut report, keep_in.filter(|_| failed));
    drop(dumps);
    // Only the annotation's rules (`WarnUnmatched::InlineOnly`): an ignore file's are shared by
    // every test, so a rule that fits one test matches nothing in the others.
    for warning in request.unmatched.warnings(std::slice::from_ref(&report)) {
        eprintln!("heapgrowth: {name}: warning: {warning}");
    }
    let result = gate(&report, &judgement);
    let agent_line = reports::agent_status_line(
        agent
            .as_ref()
            .map(|agent| agent.as_ref().map(|(_, caps)| *caps).map_err(Clone::clone))
            .as_ref(),
    );
    let cwd = outcome::working_directory();
    let run = TestRun {
        name,
        status: result.status,
        message: &result.message,
        full_text: &result.full_text,
        stale: &result.stale,
        new_nodes: result.counts.new,
        accepted_nodes: result.counts.accepted,
        stale_blocks: result.counts.stale,
        agent: &agent_line,
        baseline: request.baseline_file.as_deref(),
        update: request.update_baseline,
        report_dir: &request.report_dir,
        cwd: &cwd,
    };
    let text = outcome::text_report(&run);
    reports::write_all(&request.report_dir, name, &text, &result.json, &result.html)?;
    crate::report::index_page::rewrite(&request.report_dir)
        .map_err(|e| BoundaryError::illegal_state(e.to_string()))?;
    let conclusion = outcome::conclude(&run);
    if let (true, Some(file)) = (conclusion.rewrite_baseline, &request.baseline_file) {
        // The extension rethrows what a loop threw before it reads the outcome: no rewrite then.
        if !threw {
            // The Java threw its rewrite's errors as SettingsFileException or the IOException
            // it is a kind of.
            baseline_file::replace_section(file, name, &result.normalized)
                .map_err(BoundaryError::settings_file)?;
        }
    }
    Ok(TestOutcome::of(conclusion))
}

/// heapgrowth's shared classes in the test JVM, from the extension's jar (JNI's `FindClass` in
/// a native method of `NativeEngine` uses its class loader).
fn java_access(env: &mut JNIEnv) -> Result<Arc<JavaAccess>, String> {
    JavaAccess::new(env).map(Arc::new).map_err(|e| {
        format!(
            "{e} (this heapgrowth-junit jar was not built by scripts/package-java.sh?); \
             attribution needs it"
        )
    })
}

/// The run judged against the baseline (accepted growth paths in normalized form).
#[derive(Debug, PartialEq, Eq)]
struct GateResult {
    /// Clean (nothing grows, or only accepted paths), growing (a path not in the baseline
    /// grows), inconclusive (nothing new grew, but the search could not judge: the time budget
    /// ended it too early) or an error.
    status: RunStatus,
    /// The test failure's message: the tree report of the new paths only (or the error).
    message: String,
    /// The tree report of every growing node, for `build/reports/heapgrowth/`.
    full_text: String,
    /// The JSON report.
    json: String,
    /// The normalized report of this run: what a baseline rewrite writes.
    normalized: String,
    /// Baseline blocks that no longer grow, separated by blank lines ("" if none).
    stale: String,
    /// The HTML report of the test (`<test>.html` in the report directory).
    html: String,
    /// Growing nodes the baseline lacks, growing nodes it accepts, and its blocks that no longer
    /// grow, for the report's `Baseline:` line (which the index's baseline column reads).
    counts: GateCounts,
}

/// The results for the extension, from the report and its judgement against the baseline.
fn gate(report: &ScenarioReport, judgement: &Judgement) -> GateResult {
    let full_text = render_scenario(report, StackDepth::default());
    let json = to_json(std::slice::from_ref(report));
    let html = render_html(std::slice::from_ref(report));
    let normalized = crate::report::render_normalized(report);
    let status = GateStatus::of(report, judgement);
    if status == GateStatus::Error {
        return GateResult {
            status: RunStatus::Error,
            message: full_text.clone(),
            full_text,
            json,
            normalized,
            stale: String::new(),
            html,
            counts: GateCounts::default(),
        };
    }
    // Nothing new grew, but the search could not judge: not clean. The extension reports the
    // test as skipped with this message, and rewrites no baseline from it.
    if let GateStatus::Inconclusive(why) = &status {
        return GateResult {
            status: RunStatus::Inconclusive,
            message: format!(
                "heapgrowth could not judge {}: {}",
                escape_line(&report.scenario),
                escape_line(why)
            ),
            full_text,
            json,
            normalized,
            stale: String::new(),
            html,
            counts: GateCounts::default(),
        };
    }
    let mut message = render_scenario(&judgement.new_only(report), StackDepth::default());
    let accepted = judgement.accepted();
    if accepted > 0 {
        message.push_str(&format!(
            "\n{accepted} more growing node(s) are accepted by the baseline.\n"
        ));
    }
    GateResult {
        status: if status == GateStatus::Growing {
            RunStatus::Growing
        } else {
            RunStatus::Clean
        },
        message,
        full_text,
        json,
        normalized,
        stale: judgement.stale.join("\n"),
        html,
        counts: GateCounts {
            new: judgement.new.iter().filter(|&&new| new).count(),
            accepted,
            stale: judgement.stale.len(),
        },
    }
}

/// How the run compares with the baseline, in numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct GateCounts {
    /// Growing nodes the baseline lacks.
    new: usize,
    /// Growing nodes it accepts.
    accepted: usize,
    /// Its blocks that no longer grow.
    stale: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::growth::GrowingNode;
    use crate::report::normalized_node;

    fn growing(field: &str) -> GrowingNode {
        use crate::growth::{
            ChildGrowth, Confirmation, GrowthKind, PathStep, RetainedGrowth, StepKind,
        };
        let step = |kind, owner: &str, name: &str, target: &str| PathStep {
            kind,
            owner: owner.into(),
            name: name.into(),
            target: target.into(),
            objects: 1,
            source: String::new(),
        };
        GrowingNode {
            path: vec![
                step(StepKind::GcRoot, "", "Class", ""),
                step(
                    StepKind::StaticField,
                    "com.example.Cart",
                    field,
                    "java.util.ArrayList",
                ),
            ],
            kinds: vec![GrowthKind::Objects],
            history: Vec::new(),
            confirmed: Confirmation {
                from_loop: 17,
                to_loop: 1088,
                snapshots: 3,
                cut: None,
            },
            retained: RetainedGrowth::default(),
            children: vec![ChildGrowth {
                step: step(
                    StepKind::ArrayEntry,
                    "java.util.ArrayList",
                    "[x]",
                    "com.example.Item",
                ),
                objects: 6,
                new: 2,
                bytes: 96,
                new_bytes: 32,
                below: 6,
                new_below: 2,
            }],
        }
    }

    fn report_growing(fields: &[&str]) -> ScenarioReport {
        ScenarioReport {
            scenario: "com.example.CartTest.leaks".into(),
            result: Ok(crate::growth::SearchOutcome {
                loops: 23,
                snapshots: 7,
                growing: fields.iter().map(|field| growing(field)).collect(),
                ..Default::default()
            }),
            attributions: Vec::new(),
            timings: Default::default(),
            kept_dumps: Vec::new(),
            dumps_not_kept: None,
            subject: Default::default(),
            loop_unit: Default::default(),
            not_attributed: None,
            class_trends: Vec::new(),
            old_objects: None,
            cut_short: None,
            settling_cut_short: Vec::new(),
        }
    }

    /// The gate as `search` runs it: the report judged against `baseline`.
    fn gated(report: &ScenarioReport, baseline: &str) -> GateResult {
        gate(report, &judge(report, &Baseline::parse(baseline)))
    }

    #[test]
    fn the_gate_passes_accepted_paths_fails_new_ones_and_lists_stale_ones() {
        let report = report_growing(&["AUDIT", "HISTORY"]);
        let baseline = format!(
            "## com.example.CartTest.leaks\n{}\n{}",
            normalized_node(&growing("AUDIT"), None),
            normalized_node(&growing("REMOVED"), None)
        );
        let result = gated(&report, &baseline);
        assert_eq!(result.status, RunStatus::Growing);
        assert!(
            result.message.contains("Cart.HISTORY"),
            "{}",
            result.message
        );
        assert!(
            !result.message.contains("Cart.AUDIT"),
            "accepted path in the failure: {}",
            result.message
        );
        assert!(result
            .message
            .contains("1 more growing node(s) are accepted"));
        assert!(result.stale.contains("Cart.REMOVED") && !result.stale.contains("Cart.AUDIT"));
        // One new (HISTORY), one accepted (AUDIT), one stale (REMOVED).
        assert_eq!(
            result.counts,
            GateCounts {
                new: 1,
                accepted: 1,
                stale: 1
            }
        );
        assert!(
            result.full_text.contains("Cart.AUDIT") && result.full_text.contains("Cart.HISTORY")
        );
        // The page, like the full text, shows every growing node.
        assert!(result.html.contains("Cart.AUDIT") && result.html.contains("Cart.HISTORY"));

        let all_accepted = gated(&report_growing(&["AUDIT"]), &baseline);
        assert_eq!(all_accepted.status, RunStatus::Clean);
        assert_eq!(
            all_accepted.counts,
            GateCounts {
                new: 0,
                accepted: 1,
                stale: 1
            }
        );
        // The rewrite content is the normalized report, which the baseline reads back.
        let rewritten = Baseline::parse(&all_accepted.normalized);
        let judged = judge(&report_growing(&["AUDIT"]), &rewritten);
        assert!(judged.passes() && judged.stale.is_empty(), "{judged:?}");
    }

    #[test]
    fn a_search_the_time_budget_cut_before_it_could_judge_is_inconclusive_not_clean() {
        let mut report = report_growing(&[]);
        if let Ok(outcome) = &mut report.result {
            outcome.cut = Some(crate::growth::ConfirmationCut::TimeBudget);
        }
        let result = gated(&report, "");
        assert_eq!(result.status, RunStatus::Inconclusive);
        assert_eq!(
            result.message,
            "heapgrowth could not judge com.example.CartTest.leaks: the time budget ran out after \
             7 snapshot(s), before the search could judge"
        );
        assert!(result
            .full_text
            .contains("\nNot judged: the time budget ran out"));
        // A cut search that found growth fails as any other.
        let mut growing = report_growing(&["AUDIT"]);
        if let Ok(outcome) = &mut growing.result {
            outcome.cut = Some(crate::growth::ConfirmationCut::TimeBudget);
        }
        assert_eq!(gated(&growing, "").status, RunStatus::Growing);
    }

    #[test]
    fn the_outcome_says_what_the_extension_throws_and_a_rewrite_passes() {
        let conclusion = |rewrite_baseline, thrown| Conclusion {
            rewrite_baseline,
            notices: vec!["heapgrowth: a notice".into()],
            thrown,
        };
        let updated = TestOutcome::of(conclusion(true, Thrown::Nothing));
        assert_eq!(
            (updated.status.java_name(), updated.notices.len()),
            ("BASELINE_UPDATED", 1)
        );
        assert_eq!(
            TestOutcome::of(conclusion(false, Thrown::Nothing)).status,
            Status::Clean
        );
        let error = TestOutcome::of(conclusion(false, Thrown::IllegalState("E".into())));
        assert_eq!((error.status, error.message.as_str()), (Status::Error, "E"));
        let aborted = TestOutcome::of(conclusion(false, Thrown::Aborted("A".into())));
        assert_eq!(aborted.status.java_name(), "INCONCLUSIVE");
        let failure = TestOutcome::of(conclusion(
            false,
            Thrown::Failure {
                message: "M".into(),
                summary: "S".into(),
            },
        ));
        assert_eq!(
            (
                failure.status.java_name(),
                failure.message.as_str(),
                failure.summary.as_str()
            ),
            ("GROWING", "M", "S")
        );
    }

    #[test]
    fn an_error_report_fails_the_gate_with_its_message() {
        let report = ScenarioReport::failed("T.m", "heap dump failed: disk full".into());
        let result = gated(&report, "GcRoot(Class)\n");
        assert_eq!(result.status, RunStatus::Error);
        assert!(result.message.contains("disk full"));
    }
}
