//! The files a JUnit test writes into the report directory: `<test>.txt` (the full tree report,
//! the stale baseline blocks, the `Baseline:` and `Agent:` lines), `<test>.json` and
//! `<test>.html`, then `index.html`. Each is written as every front end writes its reports
//! ([`crate::output`]). The texts are the extension's (JUnit API 7), byte for byte.

use crate::jvmti::AgentCapabilities;
use crate::line::escape_line;

use super::java_text::{absolute, resolve};

/// The line of the text report that says how the run compares with the baseline.
pub(super) const BASELINE_LINE: &str = "Baseline: ";

/// Why a test JVM without `-agentpath:` has no agent, and what that costs.
const NO_AGENT: &str = "heapgrowth's JVMTI agent is not loaded (no -agentpath: option): \
    attribution can only put recording proxies in fields, which the test code can see, and \
    cannot watch fields or sample allocations; the Gradle plugin and the Maven plugin's \
    prepare-agent goal add the agent";

/// One line saying which JVMTI capabilities heapgrowth's agent has in this JVM, or why there is
/// none: `agent` is `None` without an `-agentpath:` option.
pub(super) fn agent_status_line(agent: Option<&Result<AgentCapabilities, String>>) -> String {
    match agent {
        None => NO_AGENT.to_owned(),
        Some(Ok(caps)) => format!(
            "heapgrowth's JVMTI agent loaded at JVM start: tag objects {}, field-modification events {}, \
             line numbers {}",
            yes(caps.tag_objects),
            yes(caps.field_modification_events),
            yes(caps.line_numbers)
        ),
        Some(Err(reason)) => reason.clone(),
    }
}

fn yes(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

/// `1 new, 2 accepted, 1 fixed (stale)`, leaving out what is none; `nothing grows` for all
/// none.
pub(super) fn baseline_counts(
    new_nodes: usize,
    accepted_nodes: usize,
    stale_blocks: usize,
) -> String {
    let parts: Vec<String> = [
        (new_nodes, "new"),
        (accepted_nodes, "accepted"),
        (stale_blocks, "fixed (stale)"),
    ]
    .iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, what)| format!("{count} {what}"))
    .collect();
    if parts.is_empty() {
        "nothing grows".into()
    } else {
        parts.join(", ")
    }
}

/// What a failing test's message says about accepting the growth instead of fixing it.
pub(super) fn how_to_accept(baseline_file: Option<&str>) -> String {
    let rewrite = "run the tests once with -Dheapgrowth.updateBaseline=true (Gradle: -Pheapgrowth.updateBaseline=true)";
    match baseline_file {
        None => format!(
            "To accept this growth instead of fixing it, name a baseline file (system property heapgrowth.baseline; \
             Gradle: heapGrowth {{ baseline = file('heapgrowth-baseline.txt') }}; Maven plugin: <baseline>) \
             and {rewrite}."
        ),
        Some(file) => format!(
            "To accept this growth instead of fixing it, {rewrite}: that writes it to the baseline {}, to commit.",
            absolute(file)
        ),
    }
}

/// What the `Baseline:` line of the text report says, for a run the gate judged.
pub(super) struct BaselineLine<'a> {
    /// `heapgrowth.baseline`, if set.
    pub(super) file: Option<&'a str>,
    /// Whether the baseline is rewritten from this run.
    pub(super) updating: bool,
    /// Growing nodes the baseline lacks.
    pub(super) new: usize,
    /// Growing nodes it accepts.
    pub(super) accepted: usize,
    /// Its blocks that no longer grow.
    pub(super) stale: usize,
}

/// The text report: the full tree report, the stale blocks, the `Baseline:` line (a judged
/// run only) and the `Agent:` line.
pub(super) fn text_report(
    full_text: &str,
    stale: &str,
    baseline_file: Option<&str>,
    judged: Option<BaselineLine>,
    agent: &str,
) -> String {
    let mut report = full_text.to_owned();
    if !stale.is_empty() {
        report.push_str(&format!(
            "\nBaseline paths that no longer grow (remove them from {}):\n\n{stale}",
            java_null(baseline_file)
        ));
    }
    if let Some(line) = judged {
        let counts = if line.updating && line.file.is_some() {
            format!(
                "{} accepted (the baseline was rewritten from this run)",
                line.new + line.accepted
            )
        } else {
            baseline_counts(line.new, line.accepted, line.stale)
        };
        let file = match line.file {
            None => "no baseline file (system property heapgrowth.baseline)".to_owned(),
            Some(file) => format!("file {}", absolute(file)),
        };
        report.push_str(&format!("\n{BASELINE_LINE}{counts}; {file}\n"));
    }
    report.push_str(&format!("\nAgent: {agent}\n"));
    report
}

/// A Java string concatenation of a reference that may be null.
pub(super) fn java_null(value: Option<&str>) -> &str {
    value.unwrap_or("null")
}

/// Writes one report file as every front end writes its reports: the path checked (not a
/// directory or a special file, not through another user's symbolic link, in a directory that
/// takes a new file), then a new temporary file renamed over it.
pub(super) fn write_report(path: &str, text: &str) -> Result<(), String> {
    let path = std::path::PathBuf::from(path);
    let checked =
        crate::output::check_outputs(&[("report file", &path)], &[]).map_err(|e| e.to_string())?;
    crate::output::write_file(&checked[0].target, text.as_bytes()).map_err(|e| {
        format!(
            "cannot write the report file {}: {e}",
            escape_line(&path.display().to_string())
        )
    })
}

/// Writes the test's reports into `dir` (created first); returns the test's page. The index
/// of the pages is rewritten next (`index_page::rewrite`).
pub(super) fn write_all(
    dir: &str,
    name: &str,
    text: &str,
    json: &str,
    html: &str,
) -> Result<String, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the report directory {dir}: {e}"))?;
    write_report(&resolve(dir, &format!("{name}.txt")), text)?;
    write_report(&resolve(dir, &format!("{name}.json")), json)?;
    let page = resolve(dir, &format!("{name}.html"));
    write_report(&page, html)?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_counts_leave_out_what_is_none() {
        assert_eq!(baseline_counts(0, 0, 0), "nothing grows");
        assert_eq!(
            baseline_counts(1, 2, 1),
            "1 new, 2 accepted, 1 fixed (stale)"
        );
        assert_eq!(baseline_counts(0, 2, 1), "2 accepted, 1 fixed (stale)");
        assert_eq!(baseline_counts(0, 0, 3), "3 fixed (stale)");
    }

    #[test]
    fn the_text_report_adds_stale_blocks_baseline_and_agent_lines() {
        let cwd = std::env::current_dir().unwrap().display().to_string();
        let judged = BaselineLine {
            file: Some("b.txt"),
            updating: false,
            new: 1,
            accepted: 0,
            stale: 1,
        };
        assert_eq!(
            text_report("Scenario T.m: x\n", "S1\n", Some("b.txt"), Some(judged), "none"),
            format!(
                "Scenario T.m: x\n\nBaseline paths that no longer grow (remove them from b.txt):\n\nS1\n\
                 \nBaseline: 1 new, 1 fixed (stale); file {cwd}/b.txt\n\nAgent: none\n"
            )
        );
        let updating = BaselineLine {
            file: Some("/b.txt"),
            updating: true,
            new: 1,
            accepted: 2,
            stale: 0,
        };
        assert_eq!(
            text_report("R\n", "", Some("/b.txt"), Some(updating), "a"),
            "R\n\nBaseline: 3 accepted (the baseline was rewritten from this run); file /b.txt\n\nAgent: a\n"
        );
        let none = BaselineLine {
            file: None,
            updating: true,
            new: 0,
            accepted: 0,
            stale: 0,
        };
        assert_eq!(
            text_report("R\n", "", None, Some(none), "a"),
            "R\n\nBaseline: nothing grows; no baseline file (system property heapgrowth.baseline)\n\nAgent: a\n"
        );
        assert_eq!(text_report("E\n", "", None, None, "a"), "E\n\nAgent: a\n");
    }

    #[test]
    fn how_to_accept_names_the_baseline_or_how_to_name_one() {
        assert_eq!(
            how_to_accept(Some("/b.txt")),
            "To accept this growth instead of fixing it, run the tests once with \
             -Dheapgrowth.updateBaseline=true (Gradle: -Pheapgrowth.updateBaseline=true): that writes \
             it to the baseline /b.txt, to commit."
        );
        assert!(how_to_accept(None).starts_with(
            "To accept this growth instead of fixing it, name a baseline file (system property \
             heapgrowth.baseline; Gradle: heapGrowth { baseline = file('heapgrowth-baseline.txt') }; \
             Maven plugin: <baseline>) and run the tests once"
        ));
    }
}
