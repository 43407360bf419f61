//! The watched JVM as a [`SnapshotSource`]: a class histogram at each tick, a live heap dump
//! per snapshot, and allocation sampling of the classes that grow, for attribution.

use std::path::Path;
use std::time::Instant;

use super::interval::{lowered_interval, Lowering};
use super::{ConfirmationDue, StopReason, Tick, Ticks, WatchEvent};
use crate::attach::{
    AgentLibrary, AttachError, AttachedJvm, AttachedSampling, ClassHistogram, SamplingReport,
    MAX_SAMPLED_CLASSES,
};
use crate::attribution::{attached, Attribution};
use crate::engine::{Advance, ScenarioError, Snapshot, SnapshotSource};
use crate::growth::{
    ClassTrend, ClassTrendConfig, ConfirmationCut, GrowthSearch, PathStep, SearchOutcome,
};
use crate::line::escape_line;
use crate::report::{confirmation_due, elapsed_ms, LoopUnit, ScenarioReport, Subject};

/// Ticks a watch waits at most, after growth is confirmed, for a sampling's first live objects
/// of the growing classes ([`Watched::last_samples`]).
const FIRST_SAMPLES_WAIT: u32 = 10;

/// The watched JVM as a [`SnapshotSource`]: each snapshot a live dump, each advance a tick and
/// a histogram.
pub(super) struct Watched<'a> {
    pub(super) jvm: AttachedJvm,
    pub(super) trend: &'a mut ClassTrend,
    pub(super) ticks: &'a mut dyn Ticks,
    pub(super) events: &'a mut dyn FnMut(WatchEvent),
    /// Histograms taken.
    pub(super) interval: u32,
    /// Repetitions (interactive) or intervals (periodic) so far.
    pub(super) position: u32,
    /// `position` just before the current search's first dump: the search counts its loops
    /// from there, so that its geometric confirmation is relative to its own start, however
    /// long the watch ran before.
    pub(super) origin: u32,
    /// Periodic: confirmation dumps wait for the intervals the search asks for (see
    /// [`Watched::advance`]); interactive: every Enter dumps.
    pub(super) spaced_confirmation: bool,
    /// Whether the last snapshot left candidates to confirm.
    pub(super) confirming: bool,
    pub(super) stopped: Option<StopReason>,
    /// The agent, once extracted; `None` with attribution off.
    pub(super) agent: Option<AgentLibrary>,
    pub(super) sampling: Option<AttachedSampling>,
    /// The classes `sampling` samples.
    pub(super) sampled: Vec<String>,
    /// Why there is no sampling, once that is known.
    pub(super) no_sampling: Option<String>,
    pub(super) sampling_interval: u32,
    /// The lowerings of `sampling_interval` so far ([`super::interval`]), told in the report.
    pub(super) lowerings: Vec<Lowering>,
    /// The watch's interval (histograms taken) when `sampling` started.
    pub(super) sampling_started_at: u32,
    /// Each candidate path of the current search, with the search's position when it became
    /// one (its confirmation dumps are at twice and four times that).
    pub(super) candidate_since: Vec<(Vec<PathStep>, u32)>,
    /// The error that ended the watch because the JVM ended; the report so far stands.
    pub(super) ended: Option<String>,
}

impl Watched<'_> {
    /// Waits for ticks and takes a histogram at each, until one is due for a dump: at once
    /// unless `gate`, else when a class qualifies. False when watching stopped first.
    pub(super) fn look(&mut self, gate: bool) -> Result<bool, ScenarioError> {
        loop {
            match self.ticks.next_tick() {
                Tick::Stop(reason) => {
                    self.stopped = Some(reason);
                    return Ok(false);
                }
                Tick::Now(repetitions) => {
                    self.position = self.position.saturating_add(repetitions.max(1));
                }
            }
            let histogram = self.jvm.class_histogram(true)?;
            self.fold(&histogram);
            if !gate || !self.trend.selected_classes().is_empty() {
                return Ok(true);
            }
        }
    }

    fn fold(&mut self, histogram: &ClassHistogram) {
        self.interval += 1;
        self.trend.observe(
            histogram
                .classes
                .iter()
                .map(|class| (class.java_name(), class.instances, class.bytes)),
            histogram.total_bytes,
        );
        let selected = self.trend.selected_rows();
        if !selected.is_empty() && self.sampled.is_empty() {
            // Until a dump finds a node, the classes that grow in the histograms.
            let classes: Vec<String> = selected
                .iter()
                .take(MAX_SAMPLED_CLASSES)
                .map(|row| row.class.clone())
                .collect();
            self.start_sampling(classes);
        }
        (self.events)(WatchEvent::Histogram {
            interval: self.interval,
            selected: &selected,
            heap_bytes: histogram.total_bytes,
        });
    }

    /// Starts allocation sampling on `classes`, or starts it over on them: first on the
    /// classes the trend selects (the sampling must run while they grow, before the search has
    /// confirmed anything), then on the classes of the candidate nodes' growing children once
    /// a dump finds them (a node's objects need not be of a class that leads the trend: a
    /// lambda class among strings), while their confirmation dumps are still to come.
    fn start_sampling(&mut self, classes: Vec<String>) {
        if self.no_sampling.is_some() || classes.is_empty() {
            return;
        }
        let Some(agent) = &self.agent else { return };
        if let Some(running) = self.sampling.take() {
            // Best effort: the agent's watchdog stops it with its directory anyway.
            let _ = running.stop();
        }
        match AttachedSampling::start(&self.jvm, agent, &classes, self.sampling_interval) {
            Ok(sampling) => {
                self.sampling = Some(sampling);
                self.sampling_started_at = self.interval;
                (self.events)(WatchEvent::SamplingStarted { classes: &classes });
                self.sampled = classes;
            }
            Err(error) => {
                self.no_sampling = Some(format!("allocation sampling did not start: {error}"))
            }
        }
    }

    /// Samples the candidates' classes if sampling does not watch them all yet: theirs first,
    /// then the trend's, up to [`MAX_SAMPLED_CLASSES`].
    fn sample_candidates(&mut self, nodes: &[crate::growth::GrowingNode]) {
        let mut classes = attached::sampled_classes(nodes);
        if classes.is_empty() || classes.iter().all(|class| self.sampled.contains(class)) {
            return;
        }
        for class in &self.sampled {
            if classes.len() < MAX_SAMPLED_CLASSES && !classes.contains(class) {
                classes.push(class.clone());
            }
        }
        self.start_sampling(classes);
    }

    /// Lowers the sampling interval for the rest of the watch if a candidate's growing classes
    /// have no sampled object alive although the sampling saw allocations
    /// ([`lowered_interval`]): at most once per dump, within its budget. The dump just ran a
    /// full collection, so what the agent counts now survived it.
    fn lower_interval_if_needed(&mut self, nodes: &[crate::growth::GrowingNode]) {
        let Some(sampling) = &mut self.sampling else {
            return;
        };
        // A sampling (re)started at this interval has seen too little to tell anything.
        if nodes.is_empty()
            || self.sampling_started_at >= self.interval
            || cannot_lower(sampling.interval_bytes(), &self.lowerings)
        {
            return;
        }
        let Ok(report) = sampling.report(false) else {
            // Attribution reads the samples again at the end and says why if it cannot.
            return;
        };
        for node in nodes {
            let classes = attached::sampled_classes(std::iter::once(node));
            let Some(to) = lowered_interval(&report, &classes, self.lowerings.len()) else {
                continue;
            };
            if sampling.set_interval(to).is_ok() {
                self.lowerings.push(Lowering {
                    from: report.interval_bytes,
                    to,
                    at_interval: self.interval,
                    classes,
                    sampled_allocations: report.sampled_allocations,
                });
                self.sampling_interval = to;
            }
            return;
        }
    }

    /// Attributes the growing nodes of `report` from the samples, and stops the sampling.
    pub(super) fn attribute(&mut self, report: &mut ScenarioReport) {
        let sampling = self.sampling.take();
        let Ok(outcome) = &report.result else {
            return;
        };
        if outcome.growing.is_empty() {
            return;
        }
        let (waited, samples) = match &sampling {
            Some(sampling) => {
                let (waited, samples) = self.last_samples(sampling, &outcome.growing);
                let samples = samples
                    .map_err(|error| format!("the allocation samples could not be read: {error}"));
                (waited, samples)
            }
            None => (
                0,
                Err(self.no_sampling.clone().unwrap_or_else(|| {
                    "no allocation sampling ran: no class kept growing in the class histograms"
                        .into()
                })),
            ),
        };
        match samples {
            Ok(samples) => {
                let source = attached::application_source(&samples);
                report.attributions = outcome
                    .growing
                    .iter()
                    .map(|node| Some(attached::attribute(&samples, node, source.as_deref())))
                    .collect();
            }
            Err(why) => report.not_attributed = Some(why),
        }
        let waited = (waited > 0).then(|| {
            format!(
                "allocation sampling had no live object of a growing node's classes when growth \
                 was confirmed, and heapgrowth waited {waited} more interval{} for its first \
                 samples (a thread is first sampled only after it has allocated about 512 KiB \
                 since sampling started)",
                if waited == 1 { "" } else { "s" }
            )
        });
        for caveat in self.lowerings.iter().map(Lowering::caveat).chain(waited) {
            for attribution in report.attributions.iter_mut().flatten() {
                match attribution {
                    Attribution::Attributed { caveats, .. } => caveats.push(caveat.clone()),
                    Attribution::NotAttributed { reason } => {
                        reason.push_str("; ");
                        reason.push_str(&caveat);
                    }
                }
            }
        }
        if let Some(sampling) = sampling {
            // Best effort: the JVM may have ended; the agent's watchdog stops it then.
            let _ = sampling.stop();
        }
    }

    /// The samples to attribute `nodes` from, read after a full collection (the last dump's,
    /// so that what the agent counts alive survived one), and the ticks waited for them.
    ///
    /// A periodic watch whose growing nodes' classes have no live sampled object yet
    /// ([`attached::sampled_nothing_yet`]) watches on for up to [`FIRST_SAMPLES_WAIT`] more
    /// ticks, each ending in a full collection, and reads the samples at the first at which
    /// every node has some, at the last, or when the ticks stop (time up, Ctrl-C) or the JVM
    /// ends (its report cannot be read). A sampling started by the dump that found the
    /// candidates has only the confirmation's intervals before this.
    fn last_samples(
        &mut self,
        sampling: &AttachedSampling,
        nodes: &[crate::growth::GrowingNode],
    ) -> (u32, Result<SamplingReport, AttachError>) {
        // An interactive watch's ticks are the user's Enters: it reports at once; so does a
        // watch whose ticks or JVM ended.
        let may_wait = self.spaced_confirmation && self.stopped.is_none() && self.ended.is_none();
        let mut waited = 0;
        loop {
            let samples = sampling.report(waited > 0);
            let awaited = matches!(&samples, Ok(report)
                if nodes.iter().any(|node| attached::sampled_nothing_yet(report, node)));
            if !may_wait || !awaited || waited == FIRST_SAMPLES_WAIT {
                return (waited, samples);
            }
            if waited == 0 {
                (self.events)(WatchEvent::AwaitingSamples {
                    at_most: FIRST_SAMPLES_WAIT,
                });
            }
            if let Tick::Stop(_) = self.ticks.next_tick() {
                return (waited, samples);
            }
            waited += 1;
        }
    }

    /// The report of a watch that stopped before any dump: nothing grew in the trend, which
    /// says so only once it had the values to select a class that grows.
    pub(super) fn report_without_dumps(
        &self,
        name: &str,
        trend: &ClassTrendConfig,
    ) -> ScenarioReport {
        let cut_short = too_few_histograms(self.interval, trend.values_to_select());
        ScenarioReport {
            result: Ok(SearchOutcome::default()),
            cut_short,
            ..self.failed(name, String::new())
        }
    }

    pub(super) fn failed(&self, name: &str, error: impl ToString) -> ScenarioReport {
        ScenarioReport {
            subject: Subject::Jvm,
            loop_unit: self.unit(),
            ..ScenarioReport::failed(name, escape_line(&error.to_string()))
        }
    }
}

impl SnapshotSource for Watched<'_> {
    fn subject(&self) -> Subject {
        Subject::Jvm
    }

    fn unit(&self) -> LoopUnit {
        if self.spaced_confirmation {
            LoopUnit::Intervals
        } else {
            LoopUnit::Snapshots
        }
    }

    fn position(&self) -> u32 {
        self.position - self.origin
    }

    fn take_snapshot(&mut self, new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        let started = Instant::now();
        match self.jvm.dump_heap(new_dump, true) {
            Ok(_) => {}
            // The JVM ended mid-dump: the search so far is the report, and says so.
            Err(error) if !self.jvm.is_running() => {
                self.ended = Some(error.to_string());
                return Ok(Snapshot::None(ConfirmationCut::WatchEnded));
            }
            Err(error) => return Err(error.into()),
        }
        Ok(Snapshot::Written {
            dump_ms: elapsed_ms(started),
        })
    }

    /// Detection dumps at every tick: the search needs consecutive snapshots to see records.
    /// A periodic watch confirms at the intervals the search asks for, twice and four times
    /// its age, as `run` confirms over geometrically spaced loops: a structure that churns
    /// with a period near the interval (a list cleared every few hundred milliseconds,
    /// dumped every 300 ms) can gain at each of a few consecutive ticks by aliasing alone,
    /// and seen that far apart it no longer does. Histograms go on at every tick between.
    fn advance(&mut self, requested: u32) -> Result<Advance, ScenarioError> {
        let target = if self.spaced_confirmation && self.confirming {
            self.position.saturating_add(requested.max(1))
        } else {
            self.position.saturating_add(1)
        };
        while self.position < target {
            match self.look(false) {
                Ok(true) => {}
                Ok(false) => return Ok(Advance::End(ConfirmationCut::WatchEnded)),
                // The JVM ended: the search so far is the report, and says so.
                Err(error) if !self.jvm.is_running() => {
                    self.ended = Some(error.to_string());
                    return Ok(Advance::End(ConfirmationCut::WatchEnded));
                }
                Err(error) => return Err(error),
            }
        }
        Ok(Advance::Ready)
    }

    fn after_snapshot(&mut self, search: &GrowthSearch) {
        let nodes = search.candidate_nodes();
        self.confirming = !nodes.is_empty();
        let position = self.position();
        self.candidate_since
            .retain(|(path, _)| nodes.iter().any(|node| node.path == *path));
        for node in &nodes {
            if !self
                .candidate_since
                .iter()
                .any(|(path, _)| *path == node.path)
            {
                self.candidate_since.push((node.path.clone(), position));
            }
        }
        let mut candidates: Vec<(Vec<PathStep>, ConfirmationDue)> = self
            .candidate_since
            .iter()
            .map(|(path, since)| {
                let due = if self.spaced_confirmation {
                    let (first, second) = confirmation_due(*since);
                    ConfirmationDue::AtIntervals(self.origin + first, self.origin + second)
                } else {
                    ConfirmationDue::NextSnapshots
                };
                (path.clone(), due)
            })
            .collect();
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        (self.events)(WatchEvent::Snapshot {
            interval: self.interval,
            candidates: &candidates,
        });
        self.sample_candidates(&nodes);
        self.lower_interval_if_needed(&nodes);
    }

    fn not_attributed(&self) -> Option<String> {
        None
    }
}

/// Whether the interval cannot be lowered any more: at the floor, or the budget spent.
fn cannot_lower(interval: u32, lowerings: &[Lowering]) -> bool {
    interval <= super::interval::INTERVAL_FLOOR || lowerings.len() >= super::interval::MAX_LOWERINGS
}

/// Why a watch that ended after `histograms` class histograms is not judged, if the class trend
/// needs more (`needed`) to see a class grow.
pub(super) fn too_few_histograms(histograms: u32, needed: usize) -> Option<String> {
    (histograms < needed as u32).then(|| {
        format!(
            "watching ended after {histograms} class histogram(s): the class trend needs \
             {needed} to see a class grow"
        )
    })
}
