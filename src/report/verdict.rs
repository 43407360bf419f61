//! The verdict of a report, the one every front end gives: growing, clean, or inconclusive with
//! the reason. A tool that once says "clean" where it saw nothing is switched off, so "clean"
//! is said only when the search saw enough to judge: snapshots until the search was done on
//! its own, JFR samples judged over collections. Everything else that found no growth is
//! inconclusive and says what was not seen.
//!
//! The command line turns verdicts into exit statuses ([`exit_status`]): 0 clean, 1 growing,
//! 2 error, 3 inconclusive. The JSON report writes `verdict` (and `verdict_reason`) for every
//! scenario; the text report's headline says it. A gate never passes an inconclusive test
//! ([`crate::report::gate::GateStatus`]): the cargo harness fails it with the reason (cargo's
//! tests have no third outcome), the JUnit extension reports it skipped with the reason.

use super::ScenarioReport;
use crate::growth::class_trend::TrendRow;
use crate::growth::old_objects::MIN_DUMPS_TO_JUDGE;

/// Exit status of a run whose every scenario was judged clean.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status of a run in which something grows.
pub const EXIT_GROWING: u8 = 1;
/// Exit status of a run that failed (bad input, a scenario that could not run, a JVM that
/// could not be started or attached to).
pub const EXIT_ERROR: u8 = 2;
/// Exit status of a run that found no growth but could not judge at least one scenario.
pub const EXIT_INCONCLUSIVE: u8 = 3;

/// What a report concludes about growth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Something grows (confirmed nodes, or JFR samples that show a leak).
    Growing,
    /// The search saw enough to judge, and nothing grows.
    Clean,
    /// Nothing was found to grow, but the search did not see enough to say it is clean: the
    /// reason says what it did not see.
    Inconclusive(String),
}

impl Verdict {
    /// As the JSON report writes it: `growing`, `clean`, `inconclusive`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Growing => "growing",
            Verdict::Clean => "clean",
            Verdict::Inconclusive(_) => "inconclusive",
        }
    }

    /// Why an inconclusive verdict is one; `None` for the others.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Inconclusive(reason) => Some(reason),
            _ => None,
        }
    }

    /// The command line's exit status for this verdict alone.
    pub fn exit_status(&self) -> u8 {
        match self {
            Verdict::Growing => EXIT_GROWING,
            Verdict::Clean => EXIT_CLEAN,
            Verdict::Inconclusive(_) => EXIT_INCONCLUSIVE,
        }
    }
}

/// Values of an undecided class shown in the reason: the latest ones.
const UNDECIDED_VALUES_SHOWN: usize = 6;

/// Why a watch that ended while the class trend had not decided on the classes of
/// `undecided` ([`ClassTrend::undecided_rows`]) is not clean; `None` when there are none.
/// `values` names what the first class's latest values are, `steps` what its streak counts.
///
/// [`ClassTrend::undecided_rows`]: crate::growth::class_trend::ClassTrend::undecided_rows
pub(crate) fn undecided_classes(
    undecided: &[TrendRow],
    trend: &str,
    values: &str,
    steps: &str,
) -> Option<String> {
    let class = undecided.first()?;
    let values_of_class = &class.instances.values;
    let shown = values_of_class[values_of_class.len().saturating_sub(UNDECIDED_VALUES_SHOWN)..]
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let state = if class.evaluated {
        format!(
            "it rose at the last {} of the {} {steps} in a row it needs to be selected",
            class.streak, class.required_streak
        )
    } else {
        format!(
            "it has {} value(s) since it reached the trend's floor, too few to judge",
            values_of_class.len()
        )
    };
    let more = match undecided.len() {
        1 => String::new(),
        n => format!(" (and {} more class(es))", n - 1),
    };
    Some(format!(
        "the {trend} had not decided on {} when the watch ended ({values}: {shown}): \
         {state}{more}; watch longer",
        class.class
    ))
}

impl ScenarioReport {
    /// The verdict; `None` for a scenario that failed (its error is the answer).
    pub fn verdict(&self) -> Option<Verdict> {
        self.result.as_ref().ok()?;
        Some(if self.has_growth() {
            Verdict::Growing
        } else {
            match self.inconclusive_reason() {
                Some(reason) => Verdict::Inconclusive(reason),
                None => Verdict::Clean,
            }
        })
    }

    /// Why this report, which found no growth, could not judge; `None` when it saw enough.
    fn inconclusive_reason(&self) -> Option<String> {
        if let Some(why) = &self.cut_short {
            return Some(why.clone());
        }
        let outcome = self.result.as_ref().ok()?;
        let unit = self.loop_unit;
        if let Some(node) = outcome.unconfirmed.first() {
            let more = match outcome.unconfirmed.len() {
                1 => String::new(),
                n => format!(" (and {} more candidate(s))", n - 1),
            };
            let step = node
                .path
                .last()
                .map(|step| step.with_source())
                .unwrap_or_default();
            let (first, second) = confirmation_due(node.confirmed.from_loop);
            return Some(format!(
                "watching ended at {unit} {} before the candidate {step} was confirmed{more}: \
                 its confirmation snapshots were due at {unit} {first} and {second}",
                node.confirmed.to_loop,
                unit = unit.singular(),
            ));
        }
        if let Some(samples) = &self.old_objects {
            if let Some(why) = &samples.stopped_early {
                return Some(why.clone());
            }
            let dumps = samples.outcome.dumps.len();
            if samples.samples_judged() == 0 {
                return Some(format!(
                    "no old-object sample was judged over {dumps} JFR dump(s): JFR reports a \
                     sample only once a garbage collection ran after its allocation, and only \
                     while its object lives, and some collectors' own collections bring none \
                     (ZGC on JDK 25: none after its own, new ones after each of --gc-every's) \
                     (watch longer, or with --gc-every)"
                ));
            }
            if samples.collections == Some(0) {
                return Some(
                    "no garbage collection ran during the recording: old-object samples move \
                     only at collections (watch with --gc-every, or longer)"
                        .to_owned(),
                );
            }
            let judged_dumps = samples.outcome.judged_dumps();
            if judged_dumps < MIN_DUMPS_TO_JUDGE && judged_dumps == dumps {
                return Some(format!(
                    "only {dumps} JFR dump(s) were read: the samples' trend is judged from \
                     {MIN_DUMPS_TO_JUDGE}"
                ));
            }
            if judged_dumps < MIN_DUMPS_TO_JUDGE {
                let collections = match samples.collections {
                    Some(n) => format!("{n} were counted during the recording"),
                    None => "this JVM's cannot be counted: its performance counters are off or \
                             unreadable"
                        .to_owned(),
                };
                return Some(format!(
                    "only {judged_dumps} of the {dumps} JFR dumps had samples that changed \
                     (old-object samples move only at garbage collections, and {collections}): \
                     the samples' trend is judged from {MIN_DUMPS_TO_JUDGE} such dumps (watch \
                     longer, or with --gc-every)"
                ));
            }
            let undecided = undecided_classes(
                &samples.outcome.undecided,
                "samples' trend",
                "samples at the last dumps that moved it",
                "dumps",
            );
            if undecided.is_some() {
                return undecided;
            }
        }
        if let Some(cut) = outcome.cut {
            return Some(format!(
                "{} after {} snapshot(s), before the search could judge",
                cut.reason(),
                outcome.snapshots
            ));
        }
        None
    }
}

/// Where the two confirmation snapshots of a candidate found at `position` of a watch fall:
/// twice and four times as far from the search's start (as `run` confirms over loops four
/// times apart, a watch has no confirmation loops to reach, so each is twice the last).
pub fn confirmation_due(position: u32) -> (u32, u32) {
    let position = position.max(1);
    (position.saturating_mul(2), position.saturating_mul(4))
}

/// The exit status of a run with `reports`: an error wins, then growth, then an inconclusive
/// scenario; clean only when every scenario is.
pub fn exit_status(reports: &[ScenarioReport]) -> u8 {
    let verdicts: Vec<Option<Verdict>> = reports.iter().map(ScenarioReport::verdict).collect();
    if verdicts.iter().any(Option::is_none) {
        EXIT_ERROR
    } else if verdicts.contains(&Some(Verdict::Growing)) {
        EXIT_GROWING
    } else if verdicts
        .iter()
        .any(|v| matches!(v, Some(Verdict::Inconclusive(_))))
    {
        EXIT_INCONCLUSIVE
    } else {
        EXIT_CLEAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::growth::{ConfirmationCut, SearchOutcome};
    use crate::report::test_reports::old_object_samples;

    fn finished(outcome: SearchOutcome) -> ScenarioReport {
        ScenarioReport {
            result: Ok(outcome),
            ..ScenarioReport::failed("corpus.Clean", String::new())
        }
    }

    #[test]
    fn a_search_done_on_its_own_without_growth_is_clean() {
        let report = finished(SearchOutcome {
            snapshots: 3,
            ..SearchOutcome::default()
        });
        assert_eq!(report.verdict(), Some(Verdict::Clean));
        assert_eq!(exit_status(&[report]), EXIT_CLEAN);
    }

    #[test]
    fn a_search_cut_before_it_could_judge_is_inconclusive_with_the_reason() {
        let report = finished(SearchOutcome {
            snapshots: 2,
            cut: Some(ConfirmationCut::TimeBudget),
            ..SearchOutcome::default()
        });
        let verdict = report.verdict().unwrap();
        assert_eq!(verdict.label(), "inconclusive");
        assert_eq!(
            verdict.reason(),
            Some("the time budget ran out after 2 snapshot(s), before the search could judge")
        );
        assert_eq!(exit_status(&[report]), EXIT_INCONCLUSIVE);
    }

    #[test]
    fn a_report_cut_short_says_why_and_growth_wins_over_it() {
        let mut report = finished(SearchOutcome::default());
        report.cut_short = Some("the JVM ended after interval 4".into());
        assert_eq!(
            report.verdict(),
            Some(Verdict::Inconclusive(
                "the JVM ended after interval 4".into()
            ))
        );
        // Growth found before the JVM ended is growth.
        let growing = old_object_samples();
        assert!(growing.has_growth());
        let mut cut = growing.clone();
        cut.cut_short = Some("the JVM ended".into());
        assert_eq!(cut.verdict(), Some(Verdict::Growing));
        // One error, one growing, one inconclusive: the error wins; without it, growth.
        let failed = ScenarioReport::failed("x", "boom".into());
        assert_eq!(
            exit_status(&[report.clone(), cut.clone(), failed]),
            EXIT_ERROR
        );
        assert_eq!(exit_status(&[report, cut]), EXIT_GROWING);
    }

    #[test]
    fn growth_gone_when_retaken_is_clean_and_both_reports_list_it_with_the_cut_settles() {
        let step = |kind, name: &str, target: &str| crate::growth::PathStep {
            kind,
            owner: if name == "Class" {
                ""
            } else {
                "com.example.Cart"
            }
            .into(),
            name: name.into(),
            target: target.into(),
            objects: 1,
            source: String::new(),
        };
        let values = |loops, children_objects| crate::growth::SnapshotValues {
            loops,
            values: crate::growth::NodeValues {
                children_objects,
                ..Default::default()
            },
        };
        let mut report = finished(SearchOutcome {
            snapshots: 7,
            loops: 1000,
            gone_on_retake: vec![crate::growth::GoneOnRetake {
                path: vec![
                    step(crate::growth::StepKind::GcRoot, "Class", ""),
                    step(
                        crate::growth::StepKind::StaticField,
                        "queue",
                        "java.util.ArrayList",
                    ),
                ],
                kinds: vec![crate::growth::GrowthKind::Objects],
                history: vec![values(496, 372), values(1000, 504)],
                retaken_children_objects: 0,
            }],
            ..SearchOutcome::default()
        });
        report.settling_cut_short = vec![3, 1000];
        assert_eq!(report.verdict(), Some(Verdict::Clean));
        let text = crate::report::render_scenario(&report, Default::default());
        assert!(
            text.contains(
                "Settling cut short before the snapshot at loop 3 and 1 more: the scenario's \
                 threads were still busy after 2 s"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "Gone when retaken (grew in objects to 504 children objects by loop 1000; the \
                 snapshot taken again after the settler's bound for a timer's tick had 0: "
            ),
            "{text}"
        );
        assert!(
            text.ends_with("STATIC_FIELD Cart.queue -> instance of java.util.ArrayList\n"),
            "{text}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&crate::report::to_json(&[report])).unwrap();
        let scenario = &json["scenarios"][0];
        assert_eq!(scenario["verdict"], "clean");
        assert_eq!(scenario["settling_cut_short"], serde_json::json!([3, 1000]));
        assert_eq!(scenario["gone_on_retake"][0]["retaken_children_objects"], 0);
        assert_eq!(
            scenario["gone_on_retake"][0]["growth"],
            serde_json::json!(["objects"])
        );
    }

    /// The sample report with its growth taken away and `collections` counted: clean, as the
    /// tests below check before they take away what it needs to be.
    fn clean_old_object_samples(collections: u64) -> ScenarioReport {
        let mut report = old_object_samples();
        let samples = report.old_objects.as_mut().unwrap();
        samples.outcome.growing.clear();
        samples.collections = Some(collections);
        assert_eq!(report.verdict(), Some(Verdict::Clean));
        report
    }

    #[test]
    fn jfr_samples_without_a_judged_sample_or_a_collection_are_inconclusive() {
        let mut report = clean_old_object_samples(12);

        let samples = report.old_objects.as_mut().unwrap();
        samples.collections = Some(0);
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert!(why.starts_with("no garbage collection ran"), "{why}");

        let samples = report.old_objects.as_mut().unwrap();
        for dump in &mut samples.outcome.dumps {
            *dump = crate::growth::old_objects::DumpCounts {
                time: dump.time,
                judged: true,
                ..Default::default()
            };
        }
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert!(
            why.starts_with("no old-object sample was judged over 7"),
            "{why}"
        );

        let samples = report.old_objects.as_mut().unwrap();
        samples.outcome.dumps.truncate(2);
        samples.outcome.dumps[0].samples = 5;
        samples.collections = None;
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert!(why.starts_with("only 2 JFR dump(s) were read"), "{why}");
    }

    /// A JVM that collects every few intervals: its samples change only at the dumps after a
    /// collection, the others repeat them. Seven dumps with samples, two after a collection,
    /// are too few to judge a trend: not clean (a leaking service watched for 40 s with three
    /// collections read as clean before).
    #[test]
    fn jfr_dumps_that_followed_no_collection_do_not_make_a_clean_verdict() {
        let mut report = clean_old_object_samples(3);
        let samples = report.old_objects.as_mut().unwrap();
        for (at, dump) in samples.outcome.dumps.iter_mut().enumerate() {
            dump.judged = at == 0 || at == 4;
        }
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert!(
            why.starts_with(
                "only 2 of the 7 JFR dumps had samples that changed (old-object samples move \
                 only at garbage collections, and 3 were counted during the recording)"
            ),
            "{why}"
        );
        // Uncounted (-XX:-UsePerfData), the search told the repeats by their samples.
        report.old_objects.as_mut().unwrap().collections = None;
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert!(
            why.starts_with(
                "only 2 of the 7 JFR dumps had samples that changed (old-object samples move \
                 only at garbage collections, and this JVM's cannot be counted"
            ),
            "{why}"
        );
    }

    /// A watch that ends while the trend has not decided on a class is not clean: the leak of a
    /// JVM with the serial collector, whose class reached the tracking floor at the third of
    /// seven dumps after a collection (it would have been selected at the eighth), read as
    /// clean before.
    #[test]
    fn samples_whose_trend_had_not_decided_on_a_class_are_not_clean() {
        use crate::growth::class_trend::{ClassTrend, ClassTrendConfig};
        let mut report = clean_old_object_samples(7);
        let mut trend = ClassTrend::new(ClassTrendConfig::old_object_samples()).unwrap();
        for samples in [0, 5, 10, 16, 32, 37, 42] {
            trend.observe([("byte[]", samples, 0), ("java.lang.String", 3, 0)], 0);
        }
        let samples = report.old_objects.as_mut().unwrap();
        samples.outcome.undecided = trend.undecided_rows();
        let why = report.verdict().unwrap().reason().unwrap().to_owned();
        assert_eq!(
            why,
            "the samples' trend had not decided on byte[] when the watch ended (samples at the \
             last dumps that moved it: 10, 16, 32, 37, 42): it rose at the last 2 of the 3 \
             dumps in a row it needs to be selected; watch longer"
        );
        trend.observe([("byte[]", 47, 0)], 0);
        assert!(trend.undecided_rows().is_empty());
    }
}
