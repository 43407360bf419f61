//! The text report of JFR old-object samples (`watch --jfr`).

use std::fmt::Write;

use super::{render_stack, render_verdict_reason, why_ignored, StackDepth};
use crate::attribution::StackCount;
use crate::growth::old_objects::{SampledPath, SurvivingPath};
use crate::growth::{render_sample_trend_rows, TrendRow};
use crate::line::escape_line;
use crate::report::{OldObjectReport, ScenarioReport, Verdict};

/// Allocation stacks shown per path of old-object samples (the JSON has up to 10).
const SAMPLE_STACKS_SHOWN: usize = 3;

/// A report of JFR old-object samples (`watch --jfr`): a header, what sampling can tell, the
/// samples per dump, the trend of the growing classes, then each growing class's paths as
/// trees from the root to the sampled objects, with ages, threads and allocation stacks.
pub(super) fn render_old_objects(
    out: &mut String,
    report: &ScenarioReport,
    dumps: u32,
    samples: &OldObjectReport,
    depth: StackDepth,
) {
    let outcome = &samples.outcome;
    let verdict = report.verdict();
    let mut found = Vec::new();
    match outcome.growing.len() {
        0 => {}
        1 => found.push("1 growing class".to_owned()),
        n => found.push(format!("{n} growing classes")),
    }
    match outcome.survivors.len() {
        0 => {}
        1 => found.push("1 path of survivors spread over the recording".to_owned()),
        n => found.push(format!("{n} paths of survivors spread over the recording")),
    }
    let summary = match verdict.as_ref() {
        _ if !found.is_empty() => found.join(" and "),
        Some(Verdict::Inconclusive(_)) => "inconclusive".to_owned(),
        _ => "no growing class".to_owned(),
    };
    let _ = writeln!(
        out,
        "{} {}: {summary} over {dumps} JFR dumps of old-object samples",
        report.subject.title(),
        escape_line(&report.scenario)
    );
    // A sampling the time budget stopped early is inconclusive: this says why.
    render_verdict_reason(out, verdict.as_ref());
    let _ = writeln!(out, "Sampling: {}", samples.sampling_limits());
    let counted: Vec<String> = outcome
        .dumps
        .iter()
        .map(|dump| dump.counted().to_string())
        .collect();
    // The attach listener's handle area keeps the strings of heapgrowth's requests alive, one
    // more per dump: how many the last dump held, not their sum.
    let own = outcome.dumps.last().map_or(0, |dump| dump.own);
    let judged_dumps = outcome.judged_dumps();
    let _ = writeln!(
        out,
        "Judged: {} sample(s) over {} dump(s){}, {}",
        samples.samples_judged(),
        outcome.dumps.len(),
        if judged_dumps < outcome.dumps.len() {
            format!(
                " ({judged_dumps} of them with samples that changed, or after a full \
                 collection: only those move the trend)"
            )
        } else {
            String::new()
        },
        match samples.collections {
            Some(n) => format!("{n} garbage collection(s) during the recording"),
            None => "garbage collections during the recording unknown".to_owned(),
        }
    );
    let _ = writeln!(
        out,
        "Samples counted at each dump: {}{}",
        if counted.is_empty() {
            "none".to_owned()
        } else {
            counted.join(", ")
        },
        if own > 0 {
            format!(" (the last also {own} of heapgrowth's own requests, left out)")
        } else {
            String::new()
        }
    );
    let rows: Vec<TrendRow> = outcome.growing.iter().map(|c| c.trend.clone()).collect();
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "\nClass trend (old-object samples alive at each JFR dump, one value per interval):"
        );
        for line in render_sample_trend_rows(&rows) {
            let _ = writeln!(out, "    {}", escape_line(&line));
        }
    }
    for (c, class) in outcome.growing.iter().enumerate() {
        for (p, path) in class.paths.iter().enumerate() {
            let stacks = samples
                .stacks
                .get(c)
                .and_then(|paths| paths.get(p))
                .map_or(&[][..], Vec::as_slice);
            out.push('\n');
            render_sampled_path(out, &class.trend.class, path, stacks, depth);
        }
        let (paths, other_samples) = class.other_paths;
        if paths > 0 {
            let _ = writeln!(
                out,
                "\n    ... and {paths} more path(s) of {} with {other_samples} sample(s) at the \
                 last dump, not rising",
                escape_line(&class.trend.class)
            );
        }
    }
    for (s, survivors) in outcome.survivors.iter().enumerate() {
        let stacks = samples
            .survivor_stacks
            .get(s)
            .map_or(&[][..], Vec::as_slice);
        out.push('\n');
        render_survivors(out, survivors, stacks, depth);
    }
    for ignored in &outcome.ignored {
        let why = why_ignored(&ignored.pattern, &ignored.reason, &ignored.origin);
        let _ = writeln!(
            out,
            "\nIgnored ({}): {} sample(s) at the last dump",
            escape_line(&why),
            ignored.samples
        );
    }
}

fn render_sampled_path(
    out: &mut String,
    class: &str,
    path: &SampledPath,
    stacks: &[StackCount],
    depth: StackDepth,
) {
    let counts: Vec<String> = path.counts.iter().map(u64::to_string).collect();
    let here = format!(
        "Samples of {} here: {} at the last dump ({} at each dump)",
        escape_line(class),
        path.samples,
        counts.join(", ")
    );
    render_samples_at(out, class, path, &[here], stacks, depth);
}

/// A common path of survivors spread over the recording, as a tree with what it holds.
fn render_survivors(
    out: &mut String,
    survivors: &SurvivingPath,
    stacks: &[StackCount],
    depth: StackDepth,
) {
    let quarters: Vec<String> = survivors.quarters.iter().map(u64::to_string).collect();
    let classes: Vec<String> = survivors
        .classes
        .iter()
        .map(|(class, n)| format!("{} ({n})", escape_line(class)))
        .collect();
    let lines = [
        format!(
            "Survivors here: {} of the {} samples at the last dump ({:.0} %), allocated over \
             the whole recording ({} in each quarter of it, oldest first); spread when it was \
             {} long, and still at {}",
            survivors.sampled.samples,
            survivors.of_samples,
            survivors.share_percent(),
            quarters.join(", "),
            seconds(survivors.first_window),
            seconds(survivors.confirmed_window)
        ),
        format!("Classes: {}", classes.join(", ")),
    ];
    let class = survivors
        .classes
        .first()
        .map_or("objects", |(class, _)| class.as_str());
    render_samples_at(out, class, &survivors.sampled, &lines, stacks, depth);
}

/// The tree of `path`, then `lines`, ages, threads and allocation stacks of its samples.
fn render_samples_at(
    out: &mut String,
    class: &str,
    path: &SampledPath,
    lines: &[String],
    stacks: &[StackCount],
    depth: StackDepth,
) {
    out.push_str("┬───\n");
    let class = escape_line(class);
    if path.path.is_empty() {
        let _ = writeln!(
            out,
            "╰→{class} (JFR found no path to a GC root for these samples)"
        );
    }
    let last = path.path.len().saturating_sub(1);
    for (index, step) in path.path.iter().enumerate() {
        let line = escape_line(&step.with_source());
        if index == last {
            let _ = writeln!(out, "╰→{line}");
        } else if index == 0 {
            let _ = writeln!(out, "│ {line}\n│");
        } else {
            let _ = writeln!(out, "├─{line}\n│");
        }
    }
    for line in lines {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "    Ages at the last dump: {} to {}, median {}",
        seconds(path.ages.youngest),
        seconds(path.ages.oldest),
        seconds(path.ages.median)
    );
    let threads: Vec<String> = path
        .threads
        .iter()
        .map(|(name, n)| format!("{} ({n})", escape_line(name)))
        .collect();
    let _ = writeln!(out, "    Allocated by: {}", threads.join(", "));
    if path.references_left_out > 0 {
        let _ = writeln!(
            out,
            "    JFR left out up to {} references in the middle of these chains",
            path.references_left_out
        );
    }
    for stack in stacks.iter().take(SAMPLE_STACKS_SHOWN) {
        let _ = writeln!(
            out,
            "\n    {} sample(s) allocated at{}",
            stack.count,
            super::folded_note(stack)
        );
        render_stack(out, stack, depth);
    }
    if stacks.len() > SAMPLE_STACKS_SHOWN {
        let _ = writeln!(
            out,
            "\n    ... and {} more allocation stack(s) (the JSON report has up to 10)",
            stacks.len() - SAMPLE_STACKS_SHOWN
        );
    }
}

/// `0.8 s`, `21.4 s`, `12 min`.
fn seconds(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 600.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{:.0} min", seconds / 60.0)
    }
}
