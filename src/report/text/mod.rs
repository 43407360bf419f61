//! The text report, laid out as shark lays out a growing node:
//!
//! ```text
//! ┬───
//! │ GcRoot(ThreadObject) (14 objects)
//! │
//! ├─INSTANCE_FIELD CartTest.cart -> instance of com.example.cart.Cart (1 objects)
//! │
//! ╰→INSTANCE_FIELD Cart.itemsById -> instance of java.util.LinkedHashMap (1 objects)
//!     Retained size: 777 B (+ 132 B)
//!     Retained objects: 32 (+ 6)
//!     Children:
//!     10 objects (2 new): ARRAY_ENTRY LinkedHashMap.[x] -> instance of com.example.cart.Item
//! ```

use std::fmt::Write;

use super::{LoopUnit, ScenarioReport, Verdict};
use crate::attribution::{Attribution, Origin, StackCount, StackFrame, TEXT_FRAMES};
use crate::growth::{render_trend_rows, GrowingNode, GrowthKind, PathStep, RuleOrigin, TrendRow};
use crate::line::escape_line;

mod old_objects;

use old_objects::render_old_objects;

/// How much of each recorded stack the text report shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StackDepth {
    /// Up to and including the frame to look at (the user's line), the JDK's and libraries'
    /// frames before it summed up when there are many; the rest is in the JSON report.
    #[default]
    ToThePlaceToLook,
    /// Every frame (`--full-stacks`).
    Full,
}

/// All scenarios, one after the other.
pub fn render_text(reports: &[ScenarioReport], depth: StackDepth) -> String {
    reports
        .iter()
        .map(|report| render_scenario(report, depth))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One scenario: a header line, then each growing node as a tree, then what leveled off and
/// what ignore rules kept out.
pub fn render_scenario(report: &ScenarioReport, depth: StackDepth) -> String {
    let mut out = String::new();
    match &report.result {
        Err(error) => {
            let _ = writeln!(
                out,
                "{} {}: error: {}",
                report.subject.title(),
                escape_line(&report.scenario),
                escape_line(error)
            );
        }
        Ok(outcome) if report.old_objects.is_some() => {
            let samples = report.old_objects.as_ref().expect("checked by the guard");
            render_old_objects(&mut out, report, outcome.snapshots, samples, depth);
        }
        Ok(outcome) => {
            let verdict = report.verdict();
            let summary = match (outcome.growing.len(), verdict.as_ref()) {
                (0, Some(Verdict::Inconclusive(_))) => "inconclusive".to_owned(),
                (0, _) => "no growing objects".to_owned(),
                (1, _) => "1 growing node".to_owned(),
                (n, _) => format!("{n} growing nodes"),
            };
            let unit = report.loop_unit;
            let title = report.subject.title();
            let name = escape_line(&report.scenario);
            let _ = match unit {
                LoopUnit::Loops | LoopUnit::Intervals => writeln!(
                    out,
                    "{title} {name}: {summary} after {} {} in {} snapshots",
                    outcome.loops,
                    unit.plural(),
                    outcome.snapshots
                ),
                LoopUnit::Dumps | LoopUnit::Snapshots => writeln!(
                    out,
                    "{title} {name}: {summary} over {} {}",
                    outcome.snapshots,
                    unit.plural()
                ),
            };
            render_verdict_reason(&mut out, verdict.as_ref());
            if let Some(why) = &report.not_attributed {
                let _ = writeln!(out, "Not attributed: {}", escape_line(why));
            }
            render_settling_cut_short(&mut out, &report.settling_cut_short, unit);
            render_class_trends(&mut out, &report.class_trends);
            for (node, attribution) in report.growing() {
                out.push('\n');
                render_node(&mut out, node, attribution, depth, unit);
            }
            for node in &outcome.unconfirmed {
                let _ = writeln!(
                    out,
                    "\nNot confirmed (watching ended before its confirmation snapshots; grew in {} over {} {} to {}): {}",
                    kinds(&node.kinds),
                    unit.plural(),
                    node.history.first().map_or(0, |s| s.loops),
                    node.confirmed.to_loop,
                    last_step(&node.path)
                );
            }
            for leveled in &outcome.leveled_off {
                let _ = writeln!(
                    out,
                    "\nLeveled off after {} {} (grew in {} up to that snapshot, then no more; not a leak): {}",
                    unit.singular(),
                    leveled.last_growth_loop,
                    kinds(&leveled.kinds),
                    last_step(&leveled.path)
                );
            }
            for gone in &outcome.gone_on_retake {
                let last = gone.history.last();
                let _ = writeln!(
                    out,
                    "\nGone when retaken (grew in {} to {} children objects by {} {}; the snapshot taken again after the settler's bound for a timer's tick had {}: a structure a background thread empties on its own tick; not growth): {}",
                    kinds(&gone.kinds),
                    last.map_or(0, |s| s.values.children_objects),
                    unit.singular(),
                    last.map_or(0, |s| s.loops),
                    gone.retaken_children_objects,
                    last_step(&gone.path)
                );
            }
            for awaiting in &outcome.awaiting_cleanup {
                let (objects, new) = awaiting.last_and_new();
                let _ = writeln!(
                    out,
                    "\nAwaiting cleanup ({objects} objects, {new:+} since the snapshot before: references the GC cleared and what only they hold, not yet removed by their owner; not counted as growth): {}",
                    last_step(&awaiting.path)
                );
            }
            for ignored in &outcome.ignored {
                let why = why_ignored(&ignored.pattern, &ignored.reason, &ignored.origin);
                let _ = writeln!(
                    out,
                    "\nIgnored ({}): {}",
                    escape_line(&why),
                    last_step(&ignored.path)
                );
            }
        }
    }
    if !report.kept_dumps.is_empty() {
        let paths: Vec<String> = report
            .kept_dumps
            .iter()
            .map(|path| escape_line(&path.display().to_string()))
            .collect();
        let _ = writeln!(
            out,
            "\nHeap dumps kept (they hold every secret in the heap; delete them when done): {}",
            paths.join(", ")
        );
    }
    if let Some(why) = &report.dumps_not_kept {
        let _ = writeln!(out, "\nHeap dumps not kept: {}", escape_line(why));
    }
    out
}

/// The line under the headline of an inconclusive report: what the search did not see.
fn render_verdict_reason(out: &mut String, verdict: Option<&Verdict>) {
    if let Some(reason) = verdict.and_then(Verdict::reason) {
        let _ = writeln!(out, "Not judged: {}", escape_line(reason));
    }
}

/// The line that says before which snapshots settling was cut short by its bounds.
fn render_settling_cut_short(out: &mut String, at: &[u32], unit: LoopUnit) {
    let Some((&first, rest)) = at.split_first() else {
        return;
    };
    let more = match rest.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let _ = writeln!(
        out,
        "Settling cut short before the snapshot at {} {first}{more}: the scenario's threads were \
         still busy after 2 s, or a timer thread of its did not wake and sleep again within \
         1.5 s; such a snapshot may hold work still in progress",
        unit.singular()
    );
}

/// The class-trend table of a watch: the classes whose live counts rose between class
/// histograms, next to the paths the dumps found for them.
fn render_class_trends(out: &mut String, rows: &[TrendRow]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nClass trend (live objects after a full GC, one value per snapshot interval):"
    );
    for line in render_trend_rows(rows) {
        let _ = writeln!(out, "    {}", escape_line(&line));
    }
}

/// The last step of `path`, escaped: steps hold names from the heap.
fn last_step(path: &[PathStep]) -> String {
    path.last()
        .map(|step| escape_line(&step.with_source()))
        .unwrap_or_default()
}

fn kinds(kinds: &[GrowthKind]) -> String {
    let labels: Vec<&str> = kinds.iter().map(|kind| kind.label()).collect();
    labels.join(", ")
}

fn render_node(
    out: &mut String,
    node: &GrowingNode,
    attribution: Option<&Attribution>,
    depth: StackDepth,
    unit: LoopUnit,
) {
    out.push_str("┬───\n");
    let last = node.path.len().saturating_sub(1);
    for (depth, step) in node.path.iter().enumerate() {
        let line = format!(
            "{} ({} objects)",
            escape_line(&step.with_source()),
            step.objects
        );
        if depth == last {
            let _ = writeln!(out, "╰→{line}");
        } else if depth == 0 {
            let _ = writeln!(out, "│ {line}\n│");
        } else {
            let _ = writeln!(out, "├─{line}\n│");
        }
    }
    render_growth(out, node, unit);
    let retained = &node.retained;
    // No change is shown where the snapshot before did not measure it.
    let change = |increase: Option<i64>, show: &dyn Fn(u64) -> String| {
        increase.map_or(String::new(), |increase| {
            format!(" ({} {})", sign(increase), show(increase.unsigned_abs()))
        })
    };
    let _ = writeln!(
        out,
        "    Retained size: {}{}",
        format_bytes(retained.bytes),
        change(retained.bytes_increase, &format_bytes)
    );
    let _ = writeln!(
        out,
        "    Retained objects: {}{}",
        retained.objects,
        change(retained.objects_increase, &|objects| objects.to_string())
    );
    out.push_str("    Children:\n");
    let spread = node.kinds.contains(&GrowthKind::Spread);
    // A node can have hundreds of children (a root group, a class with many statics); the
    // ones that changed tell the story, the rest are summed up when there are many.
    let show_all = node.children.len() <= MAX_UNCHANGED_CHILDREN_SHOWN;
    let mut hidden = 0;
    for child in &node.children {
        if spread && child.new_below != 0 {
            // Growth spread over paths: what each child path holds, itself and below.
            let _ = writeln!(
                out,
                "    {} objects at or below ({} new): {}",
                child.below,
                child.new_below,
                escape_line(&child.step.with_source())
            );
        } else if child.new == 0 && child.new_bytes != 0 {
            // Growth in bytes: the same objects got longer.
            let _ = writeln!(
                out,
                "    {} objects (0 new, {} {}): {}",
                child.objects,
                sign(child.new_bytes),
                format_bytes(child.new_bytes.unsigned_abs()),
                escape_line(&child.step.with_source())
            );
        } else if show_all || child.new != 0 {
            let _ = writeln!(
                out,
                "    {} objects ({} new): {}",
                child.objects,
                child.new,
                escape_line(&child.step.with_source())
            );
        } else {
            hidden += 1;
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "    ... and {hidden} unchanged children");
    }
    if let Some(attribution) = attribution {
        render_attribution(out, attribution, depth);
    }
}

/// What grew, with its last value and change, and over which loops it was confirmed:
/// `Grows in: objects (1088, +816), references (1088, +816)`.
fn render_growth(out: &mut String, node: &GrowingNode, unit: LoopUnit) {
    let mut history = node.history.iter().rev();
    let (Some(last), before) = (history.next(), history.next()) else {
        return;
    };
    let measures: Vec<String> = node
        .kinds
        .iter()
        .map(|&kind| {
            let now = last.values.get(kind);
            let change = now as i64 - before.map_or(0, |b| b.values.get(kind)) as i64;
            let shown = match kind {
                GrowthKind::Bytes => format!(
                    "{}, {} {}",
                    format_bytes(now),
                    sign(change),
                    format_bytes(change.unsigned_abs())
                ),
                _ => format!("{now}, {}{}", sign(change), change.unsigned_abs()),
            };
            format!("{} ({shown})", kind.label())
        })
        .collect();
    let _ = writeln!(out, "    Grows in: {}", measures.join(", "));
    let confirmed = &node.confirmed;
    if confirmed.snapshots == 0 {
        // A candidate at the last snapshot: nothing after it could confirm it.
        let why = confirmed.cut.map_or("", |cut| cut.reason());
        let _ = writeln!(
            out,
            "    Not confirmed: a candidate at {} {}, then {why}",
            unit.singular(),
            confirmed.to_loop
        );
        return;
    }
    let _ = write!(
        out,
        "    Confirmed: a new high at each of {} snapshots from {unit} {} to {unit} {}",
        confirmed.snapshots,
        confirmed.from_loop,
        confirmed.to_loop,
        unit = unit.singular()
    );
    match confirmed.cut {
        Some(cut) => {
            let _ = writeln!(out, " (stopped early: {})", cut.reason());
        }
        None => out.push('\n'),
    }
}

/// After the children: each recorded stack, most frequent first.
fn render_attribution(out: &mut String, attribution: &Attribution, depth: StackDepth) {
    match attribution {
        Attribution::Attributed {
            kind,
            stacks,
            caveats,
            hints,
        } => {
            for stack in stacks {
                let _ = writeln!(
                    out,
                    "\n    {}{}",
                    escape_line(&stack.headline(kind)),
                    folded_note(stack)
                );
                render_stack(out, stack, depth);
                render_made_at(out, stack, depth);
            }
            for hint in hints {
                let _ = writeln!(out, "\n    Hint: {}", escape_line(hint));
            }
            for caveat in caveats {
                let _ = writeln!(out, "\n    Note: {}", escape_line(caveat));
            }
        }
        Attribution::NotAttributed { reason } => {
            let _ = writeln!(out, "\n    Not attributed: {}", escape_line(reason));
        }
    }
}

/// Under a kept-by stack, where its objects were made: `made at X` (the made-at stack's place to
/// look, or its first frame), or with `--full-stacks` that stack's frames.
fn render_made_at(out: &mut String, stack: &StackCount, depth: StackDepth) {
    let Some(made_at) = &stack.made_at else {
        return;
    };
    let Some(first) = made_at.first() else {
        return;
    };
    let look = crate::attribution::place_to_look(made_at).map_or(first, |i| &made_at[i]);
    let _ = writeln!(out, "        made at {}", escape_line(&look.to_string()));
    if depth == StackDepth::Full {
        for frame in made_at {
            let _ = writeln!(out, "            at {}", escape_line(&frame.to_string()));
        }
    }
}

/// After a headline, only when stacks were folded into this one (see
/// [`crate::attribution::group`]): ` (2 stacks folded)`; the stack shown is the most recorded.
fn folded_note(stack: &StackCount) -> String {
    if stack.folded > 1 {
        format!(" ({} stacks folded)", stack.folded)
    } else {
        String::new()
    }
}

/// Frames between the growing call and the place to look shown one by one; more are summed up.
const MAX_FRAMES_BEFORE_THE_PLACE_TO_LOOK: usize = 3;
/// The user's own callers shown after the place to look.
const MAX_CALLERS_AFTER_THE_PLACE_TO_LOOK: usize = 2;

/// The growing call, then (at [`StackDepth::ToThePlaceToLook`]) the frames up to the one to
/// look at, marked: `at corpus.libs.GuavaCacheLeak.run(GuavaCacheLeak.java:42)   ← look here`.
fn render_stack(out: &mut String, stack: &StackCount, depth: StackDepth) {
    let frames = &stack.frames;
    let mark = stack.place_to_look();
    let shown = match (depth, mark) {
        (StackDepth::Full, _) => frames.len(),
        // And the user's own callers right after it, which tell one call site from another.
        (StackDepth::ToThePlaceToLook, Some(mark)) => (mark + 1..frames.len())
            .take(MAX_CALLERS_AFTER_THE_PLACE_TO_LOOK)
            .take_while(|&i| frames[i].origin == Origin::User)
            .last()
            .map_or(mark + 1, |i| i + 1),
        (StackDepth::ToThePlaceToLook, None) => frames.len().min(TEXT_FRAMES),
    };
    let mut i = 0;
    while i < shown {
        if let (StackDepth::ToThePlaceToLook, Some(mark), 1) = (depth, mark, i) {
            if mark > MAX_FRAMES_BEFORE_THE_PLACE_TO_LOOK + 1 {
                let _ = writeln!(
                    out,
                    "        ... {} frames in {}",
                    mark - 1,
                    code_of(&frames[1..mark])
                );
                i = mark;
                continue;
            }
        }
        let marker = if Some(i) == mark {
            "   ← look here"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "        at {}{marker}",
            escape_line(&frames[i].to_string())
        );
        i += 1;
    }
    let hidden = frames.len() - shown;
    if hidden > 0 {
        let frames = if hidden == 1 { "frame" } else { "frames" };
        let _ = writeln!(
            out,
            "        ... {hidden} more {frames} (--full-stacks, or the JSON report)"
        );
    }
}

/// Where `frames` come from, for a summary line: `guava-33.8.0-jre.jar and the JDK`.
fn code_of(frames: &[StackFrame]) -> String {
    let mut places: Vec<&str> = Vec::new();
    for frame in frames {
        let place = match &frame.origin {
            Origin::Jdk => "the JDK",
            Origin::Library(jar) => jar.as_str(),
            Origin::User => "your code",
        };
        if !places.contains(&place) {
            places.push(place);
        }
    }
    let places = match places.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    // A jar's name comes from the JVM, like the frames'.
    escape_line(&places)
}

/// Children listed even when unchanged, if the node has no more than this many.
const MAX_UNCHANGED_CHILDREN_SHOWN: usize = 5;

/// What an `Ignored (...)` line says of the rule: the user's pattern and reason, or which
/// built-in list it is from and why (`src/report/html.js` says the same).
fn why_ignored(pattern: &str, reason: &str, origin: &RuleOrigin) -> String {
    if origin.is_built_in() {
        let reason = reason.strip_prefix("JDK: ").unwrap_or(reason);
        format!("{}: {reason}", origin.label())
    } else {
        format!("{pattern}: {reason}")
    }
}

fn sign(value: i64) -> char {
    if value < 0 {
        '-'
    } else {
        '+'
    }
}

fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::attribution::{Frame, RecordKind};

    /// A stack of `frames`: `jdk:`, `lib:` or `app:` then `Class.method:line`.
    fn stack(frames: &[&str]) -> StackCount {
        let frames = frames
            .iter()
            .map(|text| {
                let (origin, call) = text.split_once(':').unwrap();
                let (call, line) = call.split_once(':').unwrap();
                let (class, method) = call.rsplit_once('.').unwrap();
                let origin = match origin {
                    "jdk" => Origin::Jdk,
                    "lib" => Origin::Library("lib-1.0.jar".into()),
                    _ => Origin::User,
                };
                let file = format!("{}.java", class.rsplit('.').next().unwrap());
                StackFrame {
                    frame: Frame {
                        class: class.into(),
                        method: method.into(),
                        file: Some(file),
                        line: line.parse().ok(),
                        code_source: None,
                    },
                    origin,
                }
            })
            .collect();
        StackCount {
            count: 4,
            operation: "put".into(),
            frames,
            made_at: None,
            folded: 1,
        }
    }

    fn rendered(stack: &StackCount, depth: StackDepth) -> String {
        let mut out = String::new();
        render_stack(&mut out, stack, depth);
        out
    }

    // Issue 32: folded stacks say so after the headline, hints come before the notes.
    #[test]
    fn folded_stacks_and_hints_are_shown() {
        let mut folded = stack(&["app:app.Prices.update:42"]);
        folded.folded = 3;
        let attribution = Attribution::Attributed {
            kind: RecordKind::Calls(vec!["put".into()]),
            stacks: vec![folded, stack(&["app:app.Prices.other:50"])],
            caveats: vec!["a caveat".into()],
            hints: vec!["2 call(s) to remove() at X removed nothing".into()],
        };
        let mut out = String::new();
        render_attribution(&mut out, &attribution, StackDepth::ToThePlaceToLook);
        assert_eq!(
            out,
            "
    4 call(s) to put() (3 stacks folded)
        at app.Prices.update(Prices.java:42)   ← look here

    4 call(s) to put()
        at app.Prices.other(Prices.java:50)   ← look here

    Hint: 2 call(s) to remove() at X removed nothing

    Note: a caveat
"
        );
    }

    #[test]
    fn a_stack_is_shown_down_to_the_place_to_look_then_the_users_callers() {
        let growing = stack(&[
            "jdk:java.util.HashMap.put:610",
            "lib:lib.Segment.put:30",
            "lib:lib.Segment.lockedPut:31",
            "lib:lib.Cache.put:12",
            "lib:lib.Cache$Manual.put:13",
            "app:app.Prices.update:42",
            "app:app.PricesTest.updates:9",
            "app:app.PricesTest.lambda:10",
            "app:app.PricesTest.all:11",
            "jdk:java.lang.Thread.run:840",
        ]);
        assert_eq!(
            rendered(&growing, StackDepth::ToThePlaceToLook),
            "        at java.util.HashMap.put(HashMap.java:610)
        ... 4 frames in lib-1.0.jar
        at app.Prices.update(Prices.java:42)   ← look here
        at app.PricesTest.updates(PricesTest.java:9)
        at app.PricesTest.lambda(PricesTest.java:10)
        ... 2 more frames (--full-stacks, or the JSON report)
"
        );
        let full = rendered(&growing, StackDepth::Full);
        assert_eq!(full.lines().count(), 10, "{full}");
        assert!(
            full.contains("at lib.Segment.lockedPut(Segment.java:31)\n"),
            "{full}"
        );
    }

    #[test]
    fn a_place_to_look_first_in_the_stack_and_no_place_at_all() {
        let first = stack(&["app:app.Cart.add:17", "app:app.Run.run:11"]);
        assert_eq!(
            rendered(&first, StackDepth::ToThePlaceToLook),
            "        at app.Cart.add(Cart.java:17)   ← look here\n        at app.Run.run(Run.java:11)\n"
        );
        let library_only = stack(&[
            "jdk:java.util.ArrayList.add:455",
            "lib:lib.A.a:1",
            "lib:lib.B.b:2",
            "lib:lib.C.c:3",
            "lib:lib.D.d:4",
            "lib:lib.E.e:5",
        ]);
        let text = rendered(&library_only, StackDepth::ToThePlaceToLook);
        assert!(!text.contains("look here"), "{text}");
        assert!(
            text.ends_with("at lib.D.d(D.java:4)\n        ... 1 more frame (--full-stacks, or the JSON report)\n"),
            "{text}"
        );
    }

    #[test]
    fn a_kept_by_stack_says_where_its_objects_were_made() {
        let mut kept = stack(&["app:app.Sessions.run:88", "app:app.Main.loop:12"]);
        // An allocation event's stack starts at the `new`, before the constructor runs.
        let made = stack(&["app:app.Sessions.run:87", "app:app.Main.loop:12"]);
        kept.made_at = Some(made.frames);
        let mut out = String::new();
        render_made_at(&mut out, &kept, StackDepth::ToThePlaceToLook);
        assert_eq!(out, "        made at app.Sessions.run(Sessions.java:87)\n");
        let mut full = String::new();
        render_made_at(&mut full, &kept, StackDepth::Full);
        assert!(
            full.ends_with("            at app.Main.loop(Main.java:12)\n"),
            "{full}"
        );
        // Without it, nothing.
        kept.made_at = None;
        let mut none = String::new();
        render_made_at(&mut none, &kept, StackDepth::Full);
        assert_eq!(none, "");
    }

    #[test]
    fn bytes_are_shown_in_binary_units() {
        assert_eq!(format_bytes(777), "777 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3.0 MiB");
    }

    /// A report of `watch --jfr` on samples like those of a service that leaks sessions into a
    /// static list, as a whole: header, sampling limits, counts, the trend, the path as a
    /// tree, ages, threads, stacks with the line to look at, what was ignored.
    #[test]
    fn a_report_of_old_object_samples_reads_as_a_tree_with_the_sampling_limits() {
        let report = crate::report::test_reports::old_object_samples();
        assert!(report.has_growth());
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!("watch-jfr-report", render_scenario(&report, StackDepth::default()));
        });
    }
}
