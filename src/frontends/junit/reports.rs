//! The files a JUnit test writes into the report directory: `<test>.txt` (its text is
//! `outcome::text_report`'s), `<test>.json` and `<test>.html`, each written as every front end
//! writes its reports ([`crate::output`]), and the `Agent:` line of the text report and the
//! failure message. The texts are the extension's (JUnit API 7), byte for byte.

use std::path::Path;

use crate::jvmti::AgentCapabilities;
use crate::line::escape_line;
use crate::report::write_checked_report;

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

/// Writes the test's reports into `dir` (created first, as `Files.createDirectories` did), each
/// checked and written as every front end writes its reports
/// ([`crate::report::write_checked_report`]). The index of the pages is rewritten next
/// ([`crate::report::index_page::rewrite`]).
pub(super) fn write_all(
    dir: &Path,
    name: &str,
    text: &str,
    json: &str,
    html: &str,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create the report directory {}: {e}",
            escape_line(&dir.display().to_string())
        )
    })?;
    for (extension, content) in [("txt", text), ("json", json), ("html", html)] {
        write_checked_report(&dir.join(format!("{name}.{extension}")), content)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_line_says_what_the_agent_can_do_or_why_there_is_none() {
        assert!(agent_status_line(None).starts_with("heapgrowth's JVMTI agent is not loaded"));
        assert_eq!(
            agent_status_line(Some(&Err("-agentpath:/x is not loaded in this JVM".into()))),
            "-agentpath:/x is not loaded in this JVM"
        );
    }

    #[test]
    fn the_reports_go_into_a_directory_created_first_and_a_bad_path_is_one_line() {
        let dir = crate::tempdir::PrivateTempDir::new("test").unwrap();
        let reports = dir.path().join("new/reports");
        write_all(&reports, "a.T.x", "text\n", "{}", "<html>").unwrap();
        for (file, content) in [
            ("a.T.x.txt", "text\n"),
            ("a.T.x.json", "{}"),
            ("a.T.x.html", "<html>"),
        ] {
            assert_eq!(
                std::fs::read_to_string(reports.join(file)).unwrap(),
                content
            );
        }
        std::fs::create_dir(reports.join("b.T.y.json")).unwrap();
        let error = write_all(&reports, "b.T.y", "", "", "").unwrap_err();
        assert!(
            error.contains("b.T.y.json") && !error.contains('\n'),
            "{error}"
        );
    }
}
