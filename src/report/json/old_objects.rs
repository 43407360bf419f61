//! The `old_objects` part of a scenario in the JSON document: what JFR old-object samples showed.

use super::schema::{
    JsonAges, JsonGrowingClass, JsonIgnoredSamples, JsonOldObjects, JsonSampleDump,
    JsonSampledPath, JsonSurvivors, JsonThreadSamples,
};
use super::{json_stack, path};
use crate::report::OldObjectReport;

pub(super) fn old_objects<'a>(report: &'a OldObjectReport) -> JsonOldObjects<'a> {
    let outcome = &report.outcome;
    let millis = |d: std::time::Duration| d.as_millis();
    JsonOldObjects {
        sampling: report.sampling_limits(),
        stopped_early: report.stopped_early.as_deref(),
        samples_judged: report.samples_judged(),
        collections: report.collections,
        queue_size: report.queue.samples,
        queue_size_set_at_start: report.queue.set_at_start,
        dumps: outcome
            .dumps
            .iter()
            .map(|dump| JsonSampleDump {
                time_ms: dump.time / 1_000_000,
                samples: dump.samples,
                own: dump.own,
                ignored: dump.ignored,
                without_path: dump.without_path,
                judged: dump.judged,
            })
            .collect(),
        growing: outcome
            .growing
            .iter()
            .enumerate()
            .map(|(c, class)| JsonGrowingClass {
                class: &class.trend.class,
                trend: &class.trend,
                paths: class
                    .paths
                    .iter()
                    .enumerate()
                    .map(|(p, sampled)| JsonSampledPath {
                        path: path(&sampled.path),
                        counts: &sampled.counts,
                        samples: sampled.samples,
                        references_left_out: sampled.references_left_out,
                        ages_ms: JsonAges {
                            youngest: millis(sampled.ages.youngest),
                            median: millis(sampled.ages.median),
                            oldest: millis(sampled.ages.oldest),
                        },
                        threads: sampled
                            .threads
                            .iter()
                            .map(|(name, samples)| JsonThreadSamples {
                                name,
                                samples: *samples,
                            })
                            .collect(),
                        stacks: report
                            .stacks
                            .get(c)
                            .and_then(|paths| paths.get(p))
                            .map_or(&[][..], Vec::as_slice)
                            .iter()
                            .map(|s| json_stack(s, format!("{} sample(s) allocated at", s.count)))
                            .collect(),
                    })
                    .collect(),
                other_paths: class.other_paths.0,
                other_paths_samples: class.other_paths.1,
            })
            .collect(),
        survivors: outcome
            .survivors
            .iter()
            .enumerate()
            .map(|(i, survivors)| {
                let sampled = &survivors.sampled;
                let named = |list: &'a [(String, u64)]| {
                    list.iter()
                        .map(|(name, samples)| JsonThreadSamples {
                            name,
                            samples: *samples,
                        })
                        .collect()
                };
                JsonSurvivors {
                    held_at: survivors.key_step(),
                    path: path(&sampled.path),
                    samples: sampled.samples,
                    of_samples: survivors.of_samples,
                    share_percent: (survivors.share_percent() * 10.0).round() / 10.0,
                    classes: named(&survivors.classes),
                    quarters: &survivors.quarters,
                    first_window_ms: millis(survivors.first_window),
                    confirmed_window_ms: millis(survivors.confirmed_window),
                    ages_ms: JsonAges {
                        youngest: millis(sampled.ages.youngest),
                        median: millis(sampled.ages.median),
                        oldest: millis(sampled.ages.oldest),
                    },
                    threads: named(&sampled.threads),
                    stacks: report
                        .survivor_stacks
                        .get(i)
                        .map_or(&[][..], Vec::as_slice)
                        .iter()
                        .map(|s| json_stack(s, format!("{} sample(s) allocated at", s.count)))
                        .collect(),
                }
            })
            .collect(),
        ignored: outcome
            .ignored
            .iter()
            .map(|ignored| JsonIgnoredSamples {
                pattern: &ignored.pattern,
                reason: &ignored.reason,
                origin: ignored.origin.label(),
                samples: ignored.samples,
            })
            .collect(),
    }
}
