//! The texts the JUnit extension shows for a test: the text report `<test>.txt` (the tree
//! report, the stale baseline paths, the `Baseline:` and `Agent:` lines), the message of what
//! the test throws (an error, an aborted test, a `HeapGrowthFailure` and its one-line summary,
//! each ending with the `HTML report:` line), the notices printed to `System.err`, and where the
//! reports go ([`report_dir`]).
//!
//! Ported from `HeapGrowthExtension.interceptTestMethod` and its helpers (issue 31) byte for
//! byte, conditions included; the golden outputs of the Java (`tests/junit/golden/`) are the
//! tests. Paths are shown as Java's `Path.toString()` shows them (repeated `/` collapsed, a
//! trailing `/` dropped, `.` and `..` kept) and `toAbsolutePath()` makes them absolute against
//! the working directory (Java's `user.dir`), without resolving anything.
//!
//! Plain data in, `String` out: `run_test` builds a [`TestRun`] from the search and the
//! request, calls [`text_report`] and [`conclude`], and does what the [`Conclusion`] says.

use std::path::{Path, PathBuf};

use crate::java_text;
use crate::report::baseline;

/// The text report's line that says how the run compares with the baseline (the index page
/// reads it back).
pub(super) const BASELINE_LINE: &str = "Baseline: ";

/// How the search ended, as the baseline gate labels it (`clean`, `growing`, `inconclusive`,
/// `error`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunStatus {
    /// Judged, and nothing the baseline does not accept grows.
    Clean,
    /// A path grows that the baseline does not accept.
    Growing,
    /// Nothing new grew, but the search could not judge (its time budget ended it).
    Inconclusive,
    /// The scenario could not be run.
    Error,
}

impl RunStatus {
    /// The status of a gate label (`GateStatus::label`), or `None` for another word: how the
    /// golden cases name it.
    #[cfg(test)]
    pub(super) fn from_label(label: &str) -> Option<Self> {
        match label {
            "clean" => Some(Self::Clean),
            "growing" => Some(Self::Growing),
            "inconclusive" => Some(Self::Inconclusive),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

/// What one test's run gives the texts: all plain data.
#[derive(Clone, Copy, Debug)]
pub(super) struct TestRun<'a> {
    /// `<class>.<method>`.
    pub name: &'a str,
    /// How the search ended.
    pub status: RunStatus,
    /// The gate's message (the whole tree report when growing, the reason otherwise).
    pub message: &'a str,
    /// The scenario's tree report (`render_scenario`).
    pub full_text: &'a str,
    /// The baseline's blocks that no longer grow, "" for none.
    pub stale: &'a str,
    /// Growing nodes the baseline does not accept.
    pub new_nodes: usize,
    /// Growing nodes the baseline accepts.
    pub accepted_nodes: usize,
    /// Baseline blocks that no longer grow.
    pub stale_blocks: usize,
    /// The agent's status line (`reports::agent_status_line`).
    pub agent: &'a str,
    /// `heapgrowth.baseline` as given (a blank property is none).
    pub baseline: Option<&'a Path>,
    /// `heapgrowth.updateBaseline=true`.
    pub update: bool,
    /// Where the reports go ([`report_dir`]).
    pub report_dir: &'a Path,
    /// What relative paths are absolute against: the working directory (Java's `user.dir`).
    pub cwd: &'a Path,
}

/// What the test throws after its reports are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Thrown {
    /// Nothing: the test passes.
    Nothing,
    /// `IllegalStateException(message)`: heapgrowth could not run the test.
    IllegalState(String),
    /// `TestAbortedException(message)`: the search could not judge.
    Aborted(String),
    /// `HeapGrowthFailure(message, summary)`: `summary` is its one-line `getMessage()`.
    Failure {
        /// The whole report, how to accept the growth, the agent line and the page.
        message: String,
        /// The report's first line and where the whole report is.
        summary: String,
    },
}

/// The end of a test, in the order the extension does it: rewrite the baseline section when
/// `rewrite_baseline` (an error of that rewrite fails the test before anything is printed),
/// then print each notice with `System.err.println`, then throw [`Conclusion::thrown`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Conclusion {
    /// Whether this test's section of the baseline is rewritten from this run.
    pub rewrite_baseline: bool,
    /// Lines for `System.err.println` (not fd 2: Surefire captures `System.err` only).
    pub notices: Vec<String>,
    /// What the test throws.
    pub thrown: Thrown,
}

/// The text report `<name>.txt`: the tree report, the stale baseline paths if any, the
/// `Baseline:` line when the search judged (clean or growing), and the `Agent:` line.
pub(super) fn text_report(run: &TestRun) -> String {
    let mut report = run.full_text.to_owned();
    if !run.stale.is_empty() {
        report.push_str(&format!(
            "\nBaseline paths that no longer grow (remove them from {}):\n\n{}",
            java_or_null(run.baseline),
            run.stale
        ));
    }
    if matches!(run.status, RunStatus::Clean | RunStatus::Growing) {
        let judged = if run.update && run.baseline.is_some() {
            format!(
                "{} accepted (the baseline was rewritten from this run)",
                run.new_nodes + run.accepted_nodes
            )
        } else {
            baseline::counts(run.new_nodes, run.accepted_nodes, run.stale_blocks)
        };
        let file = match run.baseline {
            None => "no baseline file (system property heapgrowth.baseline)".to_owned(),
            Some(file) => format!("file {}", java_text::absolute(file, run.cwd)),
        };
        report.push_str(&format!("\n{BASELINE_LINE}{judged}; {file}\n"));
    }
    report.push_str(&format!("\nAgent: {}\n", run.agent));
    report
}

/// What the extension does once the reports are written: see [`Conclusion`].
pub(super) fn conclude(run: &TestRun) -> Conclusion {
    let page = java_text::resolve(
        &java_text::display(run.report_dir),
        &format!("{}.html", run.name),
    );
    let see_page = html_report_line(Path::new(&page), run.cwd);
    let ended = |thrown| Conclusion {
        rewrite_baseline: false,
        notices: Vec::new(),
        thrown,
    };
    match run.status {
        RunStatus::Error => {
            return ended(Thrown::IllegalState(format!(
                "heapgrowth could not run {}: {}{see_page}",
                run.name, run.message
            )))
        }
        RunStatus::Inconclusive => {
            return ended(Thrown::Aborted(format!(
                "{} (@HeapGrowthTest(timeBudgetSeconds = ...) or heapgrowth.timeBudget){see_page}",
                run.message
            )))
        }
        RunStatus::Clean | RunStatus::Growing => {}
    }
    if let (true, Some(file)) = (run.update, run.baseline) {
        return Conclusion {
            rewrite_baseline: true,
            notices: vec![baseline_updated_notice(file, run.name)],
            thrown: Thrown::Nothing,
        };
    }
    let mut notices = Vec::new();
    if !run.stale.is_empty() {
        notices.push(stale_notice(run.name, run.baseline, run.stale));
    }
    let thrown = if run.status == RunStatus::Growing {
        let text = java_text::resolve(
            &java_text::display(run.report_dir),
            &format!("{}.txt", run.name),
        );
        Thrown::Failure {
            message: format!(
                "{}\n{}\nAgent: {}{see_page}",
                run.message,
                how_to_accept_in(run.baseline, run.cwd),
                run.agent
            ),
            summary: failure_summary(run.message, Path::new(&text), run.cwd),
        }
    } else {
        Thrown::Nothing
    };
    Conclusion {
        rewrite_baseline: false,
        notices,
        thrown,
    }
}

/// What a failing test's message says about accepting the growth instead of fixing it; a
/// relative baseline path is shown absolute against `cwd` (the working directory).
pub(super) fn how_to_accept_in(baseline: Option<&Path>, cwd: &Path) -> String {
    let rewrite = "run the tests once with -Dheapgrowth.updateBaseline=true (Gradle: \
                   -Pheapgrowth.updateBaseline=true)";
    match baseline {
        None => format!(
            "To accept this growth instead of fixing it, name a baseline file (system property \
             heapgrowth.baseline; Gradle: heapGrowth {{ baseline = file('heapgrowth-baseline.txt') \
             }}; Maven plugin: <baseline>) and {rewrite}."
        ),
        Some(file) => format!(
            "To accept this growth instead of fixing it, {rewrite}: that writes it to the baseline \
             {}, to commit.",
            java_text::absolute(file, cwd)
        ),
    }
}

/// The line every thrown message ends with, its own line break first: `\nHTML report: <page>`.
pub(super) fn html_report_line(page: &Path, cwd: &Path) -> String {
    format!("\nHTML report: {}", java_text::absolute(page, cwd))
}

/// `HeapGrowthFailure.getMessage()`: the message's first line (after white space, as Java's
/// `strip` sees it) and where the whole text report is.
pub(super) fn failure_summary(message: &str, text_report: &Path, cwd: &Path) -> String {
    let stripped = message.trim_matches(java_text::is_whitespace);
    let first = if stripped.is_empty() {
        "heapgrowth: growing paths"
    } else {
        // Java's `lines()` ends a line at \n, \r or \r\n; `stripped` starts with none of them.
        stripped.split(['\n', '\r']).next().unwrap_or_default()
    };
    format!(
        "{first} (the whole report: {})",
        java_text::absolute(text_report, cwd)
    )
}

/// The notice after the baseline's section was rewritten.
pub(super) fn baseline_updated_notice(baseline: &Path, name: &str) -> String {
    format!(
        "heapgrowth: baseline {} updated for {name}",
        java_text::display(baseline)
    )
}

/// The notice that baseline blocks no longer grow (`stale` ends with its own line break).
pub(super) fn stale_notice(name: &str, baseline: Option<&Path>, stale: &str) -> String {
    format!(
        "heapgrowth: {name}: baseline paths no longer grow (remove them from {}):\n{stale}",
        java_or_null(baseline)
    )
}

/// `reportDir()`: `heapgrowth.reportDir` unless blank, else under Maven Surefire or Failsafe
/// (`surefire.test.class.path` or `surefire.real.class.path` set)
/// `<basedir>/target/heapgrowth-reports` (`target/heapgrowth-reports` without a non-blank
/// `basedir`), else Gradle's
/// `build/reports/heapgrowth`; shown as Java shows the path. `properties` gives a system
/// property's value, `None` when unset.
pub(super) fn report_dir(properties: impl Fn(&str) -> Option<String>) -> PathBuf {
    let set = |name: &str| properties(name).filter(|value| !java_text::is_blank(value));
    if let Some(configured) = set("heapgrowth.reportDir") {
        return PathBuf::from(java_text::display(Path::new(&configured)));
    }
    let maven = properties("surefire.test.class.path").is_some()
        || properties("surefire.real.class.path").is_some();
    if !maven {
        return PathBuf::from("build/reports/heapgrowth");
    }
    let target = match set("basedir") {
        Some(basedir) => java_text::display(Path::new(&format!("{basedir}/target"))),
        None => "target".to_owned(),
    };
    PathBuf::from(java_text::resolve(&target, "heapgrowth-reports"))
}

/// The working directory relative paths are shown from (Java's `user.dir`); `.` when it is gone.
pub(super) fn working_directory() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// A path in string concatenation: `null` for none, as Java prints a null `Path`.
fn java_or_null(path: Option<&Path>) -> String {
    path.map_or_else(|| "null".to_owned(), java_text::display)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::golden_tests::{escape, read_golden, records, unescape_str};

    /// `Golden.java` runs with `-Duser.dir=/golden/cwd`.
    const GOLDEN_CWD: &str = "/golden/cwd";

    #[test]
    fn reports_messages_and_notices_match_the_java_golden_output() {
        let mut out = String::new();
        let cases = records("cases/outcome.txt", 11);
        assert!(cases.len() >= 15);
        for c in &cases {
            let field = |i: usize| unescape_str(&c[i]);
            let counts: Vec<usize> = field(9).split(' ').map(|n| n.parse().unwrap()).collect();
            let baseline_file = (c[3] != "-").then(|| PathBuf::from(field(3)));
            let (report_dir, name, full_text) = (PathBuf::from(field(4)), field(5), field(6));
            let (message, stale, agent) = (field(7), field(8), field(10));
            let run = TestRun {
                name: &name,
                status: RunStatus::from_label(&field(1)).unwrap(),
                message: &message,
                full_text: &full_text,
                stale: &stale,
                new_nodes: counts[0],
                accepted_nodes: counts[1],
                stale_blocks: counts[2],
                agent: &agent,
                baseline: baseline_file.as_deref(),
                update: c[2] == "true",
                report_dir: &report_dir,
                cwd: Path::new(GOLDEN_CWD),
            };
            let mut record = |kind: &str, text: &str| {
                out.push_str(&format!("{}\t{kind}\t{}\n", c[0], escape(text)));
            };
            record("text", &text_report(&run));
            let conclusion = conclude(&run);
            if conclusion.rewrite_baseline {
                record("rewrite", &java_text::display(run.baseline.unwrap()));
            }
            for notice in &conclusion.notices {
                record("notice", notice);
            }
            match &conclusion.thrown {
                Thrown::Nothing => {}
                Thrown::IllegalState(message) => record("IllegalStateException", message),
                Thrown::Aborted(message) => record("TestAbortedException", message),
                Thrown::Failure { message, summary } => {
                    record("HeapGrowthFailure", message);
                    record("summary", summary);
                }
            }
        }
        assert_eq!(out, read_golden("expected/outcome.txt"));
    }

    #[test]
    fn paths_and_how_to_accept_match_the_java_golden_output() {
        let mut out = String::new();
        for p in records("cases/paths.txt", 1) {
            let path = PathBuf::from(unescape_str(&p[0]));
            let cwd = Path::new(GOLDEN_CWD);
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                p[0],
                escape(&java_text::display(&path)),
                escape(&java_text::absolute(&path, cwd)),
                escape(&how_to_accept_in(Some(&path), cwd))
            ));
        }
        out.push_str(&format!(
            "-\t-\t-\t{}\n",
            escape(&how_to_accept_in(None, Path::new(GOLDEN_CWD)))
        ));
        assert_eq!(out, read_golden("expected/paths.txt"));
    }

    #[test]
    fn report_dir_matches_the_java_golden_output() {
        let mut out = String::new();
        for c in records("cases/report_dir.txt", 1) {
            let set: Vec<(String, String)> = if c[0] == "-" {
                Vec::new()
            } else {
                c[0].split(' ')
                    .map(|pair| {
                        let pair = unescape_str(pair);
                        let (name, value) = pair.split_once('=').unwrap();
                        (name.to_owned(), value.to_owned())
                    })
                    .collect()
            };
            let dir = report_dir(|name| {
                set.iter()
                    .find(|(set_name, _)| set_name == name)
                    .map(|(_, value)| value.clone())
            });
            out.push_str(&format!("{}\t{}\n", c[0], escape(&dir.to_string_lossy())));
        }
        assert_eq!(out, read_golden("expected/report_dir.txt"));
    }
}
