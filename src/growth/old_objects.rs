//! Growth judged from JFR old-object samples (`heapgrowth watch --jfr`, seed 003): at each dump
//! of the recording, the samples still alive are grouped by class, by the reference path from
//! their GC root and by allocation stack; per-class sample counts feed a [`ClassTrend`] with the
//! sample preset ([`ClassTrendConfig::old_object_samples`]), and a class it selects is growing.
//! The seed's lesson: one long recording's 256 samples say little; counted per interval and
//! compared over time, they point at the leak.
//!
//! **Paths.** A sample's chain of referrers (object, field or array slot, object, ...) becomes
//! the reference-path form of the tree report ([`PathStep`]): `GcRoot(Class)`, then
//! `STATIC_FIELD Owner.field -> instance of X`, `INSTANCE_FIELD ...`, `ARRAY_ENTRY ...`, with
//! collections seen through their internals as the tree sees them (`ARRAY_ENTRY ArrayList.[x]`,
//! not `elementData -> Object[]`, by the same rules, matched by class name: a chain has no class
//! hierarchy) and a linked chain folded into one step. Where the tree names a field's declaring
//! class, a chain can only name the referring object's class. A static field's class comes from
//! its `java.lang.Class` object, and its root is `GcRoot(Class)` whichever root JFR happened to
//! reach that class object through first (a class's statics live as long as the class); a
//! thread's stack roots are `GcRoot(ThreadObject "name")` with a `LOCAL Thread.<frame>` step,
//! since JFR does not say which frame.
//!
//! **What is left out.** Samples allocated on the JVM's `Attach Listener` thread: that thread
//! runs heapgrowth's own requests, and its handle area keeps the strings of one `JFR.dump`
//! alive while the next runs, one more per dump, which would read as a slow leak. Samples on
//! a path an ignore rule matches, counted per rule as the tree report lists ignored growth.

use std::collections::HashMap;
use std::time::Duration;

use super::class_trend::{ClassTrend, ClassTrendConfig, ClassTrendConfigError, TrendRow};
use super::containers::{entry_fields_by_name, is_internal_class_name, keys_are_elements_by_name};
use super::ignore::{IgnoreRule, RuleOrigin};
use super::roots::thread_name_pattern;
use super::search::PathStep;
use super::tree::{stable_class_name, StepKind};
use crate::jfr::{ChainObject, JfrFrame, OldObjectSample, SampleDump, SampleRoot, Via};

/// The thread whose samples are heapgrowth's own (see the module docs).
pub const ATTACH_LISTENER_THREAD: &str = "Attach Listener";
/// Paths shown per growing class: the ones whose samples rose most.
pub const MAX_PATHS_PER_CLASS: usize = 3;
/// Distinct allocation stacks kept per path, most frequent first.
pub const MAX_STACKS_PER_PATH: usize = 10;
/// Dumps before samples without growth read as clean: the sample preset of the class trend
/// evaluates a class from its fourth value and selects it after a streak of three, so a leak
/// seen from the first dump is selected at the sixth at the earliest
/// ([`ClassTrendConfig::values_to_select`]).
pub const MIN_DUMPS_TO_JUDGE: usize = 6;

/// Settings of an [`OldObjectSearch`].
#[derive(Clone, Debug)]
pub struct OldObjectConfig {
    /// The class-trend rule's thresholds.
    pub trend: ClassTrendConfig,
    /// Paths whose samples are not counted.
    pub ignore_rules: Vec<IgnoreRule>,
}

impl Default for OldObjectConfig {
    fn default() -> OldObjectConfig {
        OldObjectConfig {
            trend: ClassTrendConfig::old_object_samples(),
            ignore_rules: IgnoreRule::built_in(),
        }
    }
}

/// What one dump held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpCounts {
    /// The dump's time, nanoseconds since the Unix epoch.
    pub time: i64,
    /// Samples of the dump.
    pub samples: u64,
    /// Of those, heapgrowth's own (allocated on the attach listener thread).
    pub own: u64,
    /// Of those, on paths ignore rules matched.
    pub ignored: u64,
    /// Of those, without a path (JFR found none).
    pub without_path: u64,
}

impl DumpCounts {
    /// The samples counted in the trend.
    pub fn counted(&self) -> u64 {
        self.samples - self.own - self.ignored
    }
}

/// Youngest, median and oldest age of a group's samples at the last dump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SampleAges {
    /// The youngest.
    pub youngest: Duration,
    /// The median.
    pub median: Duration,
    /// The oldest.
    pub oldest: Duration,
}

impl SampleAges {
    fn of(mut ages: Vec<Duration>) -> SampleAges {
        ages.sort();
        match (ages.first(), ages.last()) {
            (Some(&youngest), Some(&oldest)) => SampleAges {
                youngest,
                median: ages[ages.len() / 2],
                oldest,
            },
            _ => SampleAges::default(),
        }
    }
}

/// One allocation stack of a path's samples and how many samples have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledStack {
    /// Samples with this stack.
    pub samples: u64,
    /// Innermost first.
    pub frames: Vec<JfrFrame>,
    /// Whether the JVM cut the stack at its depth.
    pub truncated: bool,
}

/// The samples of a growing class on one path.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledPath {
    /// From the root to the sampled objects; empty when JFR found no path for them.
    pub path: Vec<PathStep>,
    /// Samples on the path at each dump of the class's trend (as many values as the trend row
    /// has, oldest first).
    pub counts: Vec<u64>,
    /// Samples at the last dump.
    pub samples: u64,
    /// The most references JFR left out of one of these samples' chains (it keeps about 100 at
    /// each end of a longer one); 0 for whole chains.
    pub references_left_out: u64,
    /// Their ages at the last dump.
    pub ages: SampleAges,
    /// Their allocation stacks, most frequent first, at most [`MAX_STACKS_PER_PATH`].
    pub stacks: Vec<SampledStack>,
    /// The threads that allocated them, most samples first.
    pub threads: Vec<(String, u64)>,
}

/// A class the trend selected, with the paths of its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct GrowingClass {
    /// Its trend (sample counts per dump).
    pub trend: TrendRow,
    /// Its paths whose samples rose most, at most [`MAX_PATHS_PER_CLASS`].
    pub paths: Vec<SampledPath>,
    /// Paths not shown, and their samples at the last dump.
    pub other_paths: (u64, u64),
}

/// Samples an ignore rule kept out at the last dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredSamples {
    /// The rule's pattern.
    pub pattern: String,
    /// Its reason.
    pub reason: String,
    /// Whose rule it is.
    pub origin: RuleOrigin,
    /// Samples it matched at the last dump.
    pub samples: u64,
}

/// What the samples show after the dumps so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OldObjectOutcome {
    /// Each dump's counts, oldest first.
    pub dumps: Vec<DumpCounts>,
    /// The classes selected at the last dump, strongest first.
    pub growing: Vec<GrowingClass>,
    /// Ignore rules that matched samples of the last dump.
    pub ignored: Vec<IgnoredSamples>,
    /// The user's rules that matched no sample's path at any dump (most often a misspelled
    /// field), in the order given.
    pub unmatched_rules: Vec<IgnoreRule>,
}

/// A sample as the search keeps it.
#[derive(Clone, Debug)]
struct Kept {
    class: String,
    path: Vec<PathStep>,
    left_out: u64,
    age: Duration,
    thread: Option<String>,
    stack: Vec<JfrFrame>,
    truncated: bool,
}

/// Sample counts per dump, judged with the class-trend rule (see the module docs).
#[derive(Debug)]
pub struct OldObjectSearch {
    trend: ClassTrend,
    rules: Vec<IgnoreRule>,
    dumps: Vec<DumpCounts>,
    /// Per (class, path): samples at each dump so far (index = dump).
    paths: HashMap<(String, Vec<PathStep>), Vec<u64>>,
    /// The last dump's counted samples.
    latest: Vec<Kept>,
    /// The last dump's ignored samples per rule (index into `rules`).
    latest_ignored: Vec<u64>,
    /// Per rule: whether it matched a sample's path at any dump.
    matched: Vec<bool>,
}

impl OldObjectSearch {
    /// A search with no dump yet.
    pub fn new(config: OldObjectConfig) -> Result<OldObjectSearch, ClassTrendConfigError> {
        Ok(OldObjectSearch {
            trend: ClassTrend::new(config.trend)?,
            latest_ignored: vec![0; config.ignore_rules.len()],
            matched: vec![false; config.ignore_rules.len()],
            rules: config.ignore_rules,
            dumps: Vec::new(),
            paths: HashMap::new(),
            latest: Vec::new(),
        })
    }

    /// Folds in one dump's samples and returns its counts.
    pub fn observe(&mut self, dump: &SampleDump) -> DumpCounts {
        let mut counts = DumpCounts {
            time: dump.time,
            samples: dump.samples.len() as u64,
            ..DumpCounts::default()
        };
        let mut kept = Vec::new();
        self.latest_ignored.iter_mut().for_each(|n| *n = 0);
        for sample in &dump.samples {
            if sample.thread.as_deref() == Some(ATTACH_LISTENER_THREAD) {
                counts.own += 1;
                continue;
            }
            let (path, left_out) = sample_path(sample);
            let mut ignored_by = None;
            for (index, rule) in self.rules.iter().enumerate() {
                if matches(rule, &path) {
                    self.matched[index] = true;
                    ignored_by = ignored_by.or(Some(index));
                }
            }
            if let Some(rule) = ignored_by {
                counts.ignored += 1;
                self.latest_ignored[rule] += 1;
                continue;
            }
            if path.is_empty() {
                counts.without_path += 1;
            }
            kept.push(Kept {
                class: stable_class_name(&sample.object.class).into_owned(),
                path,
                left_out,
                age: sample.age,
                thread: sample.thread.clone(),
                stack: sample.stack.clone(),
                truncated: sample.stack_truncated,
            });
        }
        let dump_index = self.dumps.len();
        let mut per_class: HashMap<&str, u64> = HashMap::new();
        for sample in &kept {
            *per_class.entry(&sample.class).or_default() += 1;
            let history = self
                .paths
                .entry((sample.class.clone(), sample.path.clone()))
                .or_default();
            history.resize(dump_index + 1, 0);
            history[dump_index] += 1;
        }
        // Bytes 0 and no heap floor: see ClassTrendConfig::old_object_samples.
        self.trend
            .observe(per_class.into_iter().map(|(class, n)| (class, n, 0)), 0);
        self.dumps.push(counts);
        self.latest = kept;
        counts
    }

    /// The classes selected now, strongest first.
    pub fn selected_classes(&self) -> Vec<&str> {
        self.trend.selected_classes()
    }

    /// The trend rows of the classes selected now.
    pub fn selected_rows(&self) -> Vec<TrendRow> {
        self.trend.selected_rows()
    }

    /// The growing classes (those selected at the last dump) with their paths, stacks and ages.
    pub fn outcome(&self) -> OldObjectOutcome {
        let dumps = self.dumps.len();
        let growing = self
            .trend
            .selected_rows()
            .into_iter()
            .map(|trend| self.growing_class(trend, dumps))
            .collect();
        let ignored = self
            .rules
            .iter()
            .zip(&self.latest_ignored)
            .filter(|(_, &samples)| samples > 0)
            .map(|(rule, &samples)| IgnoredSamples {
                pattern: rule.pattern.clone(),
                reason: rule.reason.clone(),
                origin: rule.origin.clone(),
                samples,
            })
            .collect();
        let unmatched_rules = self
            .rules
            .iter()
            .zip(&self.matched)
            .filter(|(rule, &matched)| !matched && !rule.origin.is_built_in())
            .map(|(rule, _)| rule.clone())
            .collect();
        OldObjectOutcome {
            dumps: self.dumps.clone(),
            growing,
            ignored,
            unmatched_rules,
        }
    }

    fn growing_class(&self, trend: TrendRow, dumps: usize) -> GrowingClass {
        let window = trend.instances.values.len();
        let mut paths: Vec<(i64, SampledPath)> = self
            .paths
            .iter()
            .filter(|((class, _), _)| *class == trend.class)
            .filter_map(|((class, path), history)| {
                let counts: Vec<u64> = (dumps - window..dumps)
                    .map(|d| history.get(d).copied().unwrap_or(0))
                    .collect();
                let samples = *counts.last()?;
                if samples == 0 {
                    return None;
                }
                let rise = samples as i64 - counts[0] as i64;
                Some((rise, self.sampled_path(class, path, counts)))
            })
            .collect();
        // Most risen first; ties by samples, then by path text so the order never depends on
        // hashing.
        paths.sort_by(|(a_rise, a), (b_rise, b)| {
            b_rise
                .cmp(a_rise)
                .then(b.samples.cmp(&a.samples))
                .then_with(|| path_text(&a.path).cmp(&path_text(&b.path)))
        });
        let risen = paths.iter().filter(|(rise, _)| *rise > 0).count();
        let shown = risen.clamp(1, MAX_PATHS_PER_CLASS).min(paths.len());
        let others = &paths[shown..];
        let other_paths = (
            others.len() as u64,
            others.iter().map(|(_, p)| p.samples).sum(),
        );
        GrowingClass {
            trend,
            paths: paths.into_iter().take(shown).map(|(_, p)| p).collect(),
            other_paths,
        }
    }

    fn sampled_path(&self, class: &str, path: &[PathStep], counts: Vec<u64>) -> SampledPath {
        let samples: Vec<&Kept> = self
            .latest
            .iter()
            .filter(|s| s.class == class && s.path == path)
            .collect();
        let mut stacks: HashMap<(&[JfrFrame], bool), u64> = HashMap::new();
        let mut threads: HashMap<&str, u64> = HashMap::new();
        for sample in &samples {
            *stacks.entry((&sample.stack, sample.truncated)).or_default() += 1;
            *threads
                .entry(sample.thread.as_deref().unwrap_or("?"))
                .or_default() += 1;
        }
        let mut stacks: Vec<SampledStack> = stacks
            .into_iter()
            .map(|((frames, truncated), samples)| SampledStack {
                samples,
                frames: frames.to_vec(),
                truncated,
            })
            .collect();
        stacks.sort_by(|a, b| {
            b.samples
                .cmp(&a.samples)
                .then_with(|| frames_key(&a.frames).cmp(&frames_key(&b.frames)))
        });
        stacks.truncate(MAX_STACKS_PER_PATH);
        let mut threads: Vec<(String, u64)> = threads
            .into_iter()
            .map(|(name, n)| (name.to_owned(), n))
            .collect();
        threads.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        SampledPath {
            path: path.to_vec(),
            samples: samples.len() as u64,
            counts,
            references_left_out: samples.iter().map(|s| s.left_out).max().unwrap_or(0),
            ages: SampleAges::of(samples.iter().map(|s| s.age).collect()),
            stacks,
            threads,
        }
    }
}

fn path_text(path: &[PathStep]) -> Vec<String> {
    path.iter().map(PathStep::with_source).collect()
}

fn frames_key(frames: &[JfrFrame]) -> Vec<(&str, &str, Option<i32>)> {
    frames
        .iter()
        .map(|f| (f.class.as_str(), f.method.as_str(), f.line))
        .collect()
}

/// Whether `rule` matches a step of `path` (a rule covers everything below the step).
fn matches(rule: &IgnoreRule, path: &[PathStep]) -> bool {
    path.iter().any(|step| match step.kind {
        StepKind::GcRoot => rule.matches_root(&step.name, &step.target),
        _ => rule.matches_location(&step.owner, &step.name),
    })
}

fn step(kind: StepKind, owner: &str, name: &str, target: &str) -> PathStep {
    PathStep {
        kind,
        owner: stable_class_name(owner).into_owned(),
        name: name.to_owned(),
        target: stable_class_name(target).into_owned(),
        objects: 0,
        source: String::new(),
    }
}

fn root_step(name: &str, thread: Option<&str>) -> PathStep {
    PathStep {
        kind: StepKind::GcRoot,
        owner: String::new(),
        name: name.to_owned(),
        target: thread.map(thread_name_pattern).unwrap_or_default(),
        objects: 0,
        source: String::new(),
    }
}

/// The steps a sample's chain starts with: the root group and, for a thread's stack roots, the
/// `LOCAL` step to the outermost object. `outermost` is the object the root references;
/// `first` how it references the next one (if any).
fn root_steps(root: &SampleRoot, outermost: &ChainObject) -> Vec<PathStep> {
    let thread = root.thread_name();
    let local = |what: &str| step(StepKind::Local, "java.lang.Thread", what, &outermost.class);
    match (root.system.as_str(), root.kind.as_str()) {
        ("Threads", "Stack Variable") => vec![root_step("ThreadObject", thread), local("<frame>")],
        ("Threads", "Local JNI Handle") => {
            vec![root_step("ThreadObject", thread), local("<JNI local>")]
        }
        ("Threads", _) => vec![root_step("ThreadObject", thread), local("<VM handle>")],
        ("Class Loader Data", _) => vec![root_step("Class", None)],
        ("Global JNI Handles", _) => vec![root_step("JniGlobal", None)],
        ("Object Monitor", _) => vec![root_step("MonitorUsed", None)],
        ("Universe", _) => vec![root_step("VmInternal", None)],
        (system, _) => vec![root_step(&system.replace(' ', ""), None)],
    }
}

/// The path of a sample in the tree report's form (see the module docs), and the most
/// references JFR left out of its chain. Empty when the dump found no path.
pub fn sample_path(sample: &OldObjectSample) -> (Vec<PathStep>, u64) {
    let Some(root) = &sample.root else {
        return (Vec::new(), 0);
    };
    // Objects from the outermost (the one a root references) in to the sample, and how each
    // references the next one in.
    let objects: Vec<&ChainObject> = sample
        .referrers
        .iter()
        .rev()
        .map(|r| &r.object)
        .chain(std::iter::once(&sample.object))
        .collect();
    let links: Vec<&Via> = sample.referrers.iter().rev().map(|r| &r.via).collect();
    let left_out = sample.referrers.iter().map(|r| r.skipped).sum();

    let outermost = objects[0];
    let static_first = matches!(
        links.first(),
        Some(Via::Field {
            is_static: true,
            ..
        })
    ) && outermost.class_object_name().is_some();
    let mut steps = if static_first {
        // A class's statics live as long as the class: heapgrowth's root for them.
        vec![root_step("Class", None)]
    } else {
        root_steps(root, outermost)
    };
    // Inside a collection: its class, and whether its map keys are its elements.
    let mut container: Option<(&str, bool)> = None;
    for (index, via) in links.iter().enumerate() {
        let (from, to) = (objects[index], objects[index + 1]);
        let field = match via {
            Via::Field { name, .. } => Some(name.as_str()),
            _ => None,
        };
        if let Some((collection, keys_are_elements)) = container {
            let nested_rule = field.is_some_and(|name| {
                entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
            });
            if is_internal_class_name(&to.class) || nested_rule {
                continue;
            }
            let name = match field {
                Some("key") if !keys_are_elements => "[key]",
                _ => "[x]",
            };
            steps.push(step(StepKind::ArrayEntry, collection, name, &to.class));
            container = None;
            continue;
        }
        let enters = field.is_some_and(|name| {
            entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
                || is_internal_class_name(&to.class)
        });
        if enters {
            container = Some((&from.class, keys_are_elements_by_name(&from.class)));
            continue;
        }
        let next = match via {
            Via::Field {
                name,
                is_static: true,
            } => {
                let owner = from.class_object_name().unwrap_or(&from.class);
                step(StepKind::StaticField, owner, name, &to.class)
            }
            Via::Field { name, .. } => step(StepKind::InstanceField, &from.class, name, &to.class),
            Via::ArrayElement { .. } => step(StepKind::ArrayEntry, &from.class, "[x]", &to.class),
            Via::Unknown => step(StepKind::InstanceField, &from.class, "<unknown>", &to.class),
        };
        // A linked chain (`Node.next -> Node` again and again) is one step, as in the tree.
        if steps.last() != Some(&next) {
            steps.push(next);
        }
    }
    (steps, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jfr::Referrer;

    /// A sample builder: the sampled object's class, then its referrers from the nearest out.
    struct Chain {
        sample: OldObjectSample,
    }

    fn object(class: &str) -> ChainObject {
        ChainObject {
            class: class.into(),
            description: None,
            array_length: None,
        }
    }

    fn class_object(name: &str) -> ChainObject {
        ChainObject {
            class: "java.lang.Class".into(),
            description: Some(format!("Class Name: {name}")),
            array_length: None,
        }
    }

    fn field(name: &str) -> Via {
        Via::Field {
            name: name.into(),
            is_static: false,
        }
    }

    fn static_field(name: &str) -> Via {
        Via::Field {
            name: name.into(),
            is_static: true,
        }
    }

    fn slot() -> Via {
        Via::ArrayElement { index: 3 }
    }

    fn main_stack() -> SampleRoot {
        SampleRoot {
            system: "Threads".into(),
            kind: "Stack Variable".into(),
            description: Some("Thread Name: main".into()),
        }
    }

    fn frame(class: &str, method: &str, line: i32) -> JfrFrame {
        JfrFrame {
            class: class.into(),
            method: method.into(),
            line: Some(line),
            loader: Some("app".into()),
            module_location: None,
        }
    }

    impl Chain {
        fn of(class: &str) -> Chain {
            Chain {
                sample: OldObjectSample {
                    dump_time: 10_000_000_000,
                    allocation_time: 5_000_000_000,
                    age: Duration::from_secs(5),
                    heap_used_at_last_gc: 0,
                    object: object(class),
                    referrers: Vec::new(),
                    root: Some(main_stack()),
                    thread: Some("main".into()),
                    stack: vec![frame("app.Service", "leak", 30)],
                    stack_truncated: false,
                },
            }
        }

        fn from(mut self, via: Via, object: ChainObject) -> Chain {
            self.sample.referrers.push(Referrer {
                via,
                object,
                skipped: 0,
            });
            self
        }

        fn root(mut self, root: Option<SampleRoot>) -> Chain {
            self.sample.root = root;
            self
        }

        fn thread(mut self, name: &str) -> Chain {
            self.sample.thread = Some(name.into());
            self
        }

        fn at(mut self, line: i32, age_seconds: u64) -> Chain {
            self.sample.stack = vec![frame("app.Service", "leak", line)];
            self.sample.age = Duration::from_secs(age_seconds);
            self
        }

        fn texts(&self) -> Vec<String> {
            path_text(&sample_path(&self.sample).0)
        }
    }

    /// A session's payload in `static List<Session> SESSIONS` (an `ArrayList`).
    fn leaked_payload() -> Chain {
        Chain::of("byte[]")
            .from(field("payload"), object("app.Service$Session"))
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("SESSIONS"), class_object("app.Service"))
    }

    #[test]
    fn a_static_list_is_seen_through_its_internals_from_the_class_root() {
        assert_eq!(
            leaked_payload().texts(),
            [
                "GcRoot(Class)",
                "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList",
                "ARRAY_ENTRY ArrayList.[x] -> instance of app.Service$Session",
                "INSTANCE_FIELD Service$Session.payload -> instance of byte[]",
            ]
        );
    }

    #[test]
    fn map_values_keys_and_set_elements_are_entries_of_their_collection() {
        let map = |via_entry: Via| {
            Chain::of("app.Value")
                .from(via_entry, object("java.util.HashMap$Node"))
                .from(field("next"), object("java.util.HashMap$Node"))
                .from(slot(), object("java.util.HashMap$Node[]"))
                .from(field("table"), object("java.util.LinkedHashMap"))
                .from(field("cache"), object("app.Registry"))
                .from(static_field("INSTANCE"), class_object("app.Registry"))
                .texts()
        };
        assert_eq!(
            map(field("value"))[2..],
            [
                "INSTANCE_FIELD Registry.cache -> instance of java.util.LinkedHashMap",
                "ARRAY_ENTRY LinkedHashMap.[x] -> instance of app.Value"
            ]
        );
        assert_eq!(
            map(field("key")).last().unwrap(),
            "ARRAY_ENTRY LinkedHashMap.[key] -> instance of app.Value"
        );
        let set = Chain::of("app.Listener")
            .from(field("key"), object("java.util.HashMap$Node"))
            .from(slot(), object("java.util.HashMap$Node[]"))
            .from(field("table"), object("java.util.HashMap"))
            .from(field("map"), object("java.util.HashSet"))
            .from(static_field("LISTENERS"), class_object("app.Bus"))
            .texts();
        assert_eq!(
            set[1..],
            [
                "STATIC_FIELD Bus.LISTENERS -> instance of java.util.HashSet",
                "ARRAY_ENTRY HashSet.[x] -> instance of app.Listener"
            ]
        );
    }

    #[test]
    fn a_user_subclass_of_a_map_is_seen_through_by_its_internal_classes() {
        let texts = Chain::of("app.Value")
            .from(field("value"), object("java.util.HashMap$Node"))
            .from(slot(), object("java.util.HashMap$Node[]"))
            .from(field("table"), object("app.MyMap"))
            .from(static_field("MAP"), class_object("app.Holder"))
            .texts();
        assert_eq!(
            texts.last().unwrap(),
            "ARRAY_ENTRY MyMap.[x] -> instance of app.Value"
        );
    }

    #[test]
    fn a_linked_chain_folds_into_one_step_and_a_plain_array_is_an_array_entry() {
        let texts = Chain::of("app.Node")
            .from(field("next"), object("app.Node"))
            .from(field("next"), object("app.Node"))
            .from(field("next"), object("app.Node"))
            .from(field("head"), object("app.Queue"))
            .from(slot(), object("app.Queue[]"))
            .from(static_field("QUEUES"), class_object("app.Pool"))
            .texts();
        assert_eq!(
            texts,
            [
                "GcRoot(Class)",
                "STATIC_FIELD Pool.QUEUES -> instance of app.Queue[]",
                "ARRAY_ENTRY Queue[].[x] -> instance of app.Queue",
                "INSTANCE_FIELD Queue.head -> instance of app.Node",
                "INSTANCE_FIELD Node.next -> instance of app.Node",
            ]
        );
    }

    #[test]
    fn stack_roots_are_the_threads_and_no_root_is_no_path() {
        let texts = Chain::of("app.Item")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .root(Some(SampleRoot {
                system: "Threads".into(),
                kind: "Stack Variable".into(),
                description: Some("Thread Name: worker-12".into()),
            }))
            .texts();
        assert_eq!(
            texts,
            [
                "GcRoot(ThreadObject \"worker-*\")",
                "LOCAL Thread.<frame> -> instance of java.util.ArrayList",
                "ARRAY_ENTRY ArrayList.[x] -> instance of app.Item",
            ]
        );
        assert!(Chain::of("app.Item").root(None).texts().is_empty());
        let jni = Chain::of("app.Item")
            .root(Some(SampleRoot {
                system: "Global JNI Handles".into(),
                kind: "Global JNI Handle".into(),
                description: None,
            }))
            .texts();
        assert_eq!(jni, ["GcRoot(JniGlobal)"]);
    }

    #[test]
    fn lambda_class_names_lose_their_address() {
        let texts = Chain::of("app.Bus$$Lambda$14/0x0000000800c03000")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("HANDLERS"), class_object("app.Bus"))
            .texts();
        assert_eq!(
            texts.last().unwrap(),
            "ARRAY_ENTRY ArrayList.[x] -> instance of app.Bus$$Lambda"
        );
    }

    fn dump(time: i64, samples: Vec<OldObjectSample>) -> SampleDump {
        SampleDump {
            time,
            samples,
            earlier: 0,
            file_bytes: 0,
        }
    }

    /// `leaked` payloads (alternating between two allocating lines) and `level` samples of a
    /// cache that does not grow, plus one sample of heapgrowth's own.
    fn service_dump(t: i64, leaked: u64, level: u64) -> SampleDump {
        let mut samples: Vec<OldObjectSample> = (0..leaked)
            .map(|i| {
                leaked_payload()
                    .at(if i % 3 == 0 { 31 } else { 30 }, i + 1)
                    .sample
            })
            .collect();
        samples.extend((0..level).map(|_| {
            Chain::of("byte[]")
                .from(slot(), object("java.lang.Object[]"))
                .from(field("elementData"), object("java.util.ArrayList"))
                .from(static_field("RECENT"), class_object("app.Cache"))
                .at(50, 1)
                .sample
        }));
        samples.push(
            Chain::of("java.lang.String")
                .thread("Attach Listener")
                .sample,
        );
        dump(t, samples)
    }

    #[test]
    fn a_leaking_path_is_found_through_its_class_with_stacks_and_ages() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        let mut first_selected = None;
        for t in 0..10 {
            let counts = search.observe(&service_dump(t, 10 * t as u64, 12));
            assert_eq!((counts.own, counts.counted()), (1, 10 * t as u64 + 12));
            if first_selected.is_none() && !search.selected_classes().is_empty() {
                first_selected = Some(t);
            }
        }
        // byte[] holds 12 samples from the first dump: tracked from it, evaluated from the
        // fourth, selected after the streak of three.
        assert_eq!(first_selected, Some(5));
        let outcome = search.outcome();
        assert_eq!(outcome.dumps.len(), 10);
        let [class] = &outcome.growing[..] else {
            panic!("{:?}", outcome.growing)
        };
        assert_eq!(class.trend.class, "byte[]");
        // The leaking path first; the cache's flat path is left out (it did not rise).
        let [path] = &class.paths[..] else {
            panic!("{:?}", class.paths)
        };
        assert_eq!(
            path_text(&path.path)[1],
            "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList"
        );
        assert_eq!(class.other_paths, (1, 12));
        assert_eq!(path.samples, 90);
        assert_eq!(path.counts, (0..10).map(|t| 10 * t).collect::<Vec<u64>>());
        assert_eq!(
            path.stacks
                .iter()
                .map(|s| (s.samples, s.frames[0].line))
                .collect::<Vec<_>>(),
            [(60, Some(30)), (30, Some(31))]
        );
        assert_eq!(
            path.ages,
            SampleAges {
                youngest: Duration::from_secs(1),
                median: Duration::from_secs(46),
                oldest: Duration::from_secs(90),
            }
        );
        assert_eq!(path.threads, [("main".to_owned(), 90)]);
    }

    #[test]
    fn the_fewest_dumps_to_judge_are_those_the_sample_trend_needs() {
        assert_eq!(
            MIN_DUMPS_TO_JUDGE,
            ClassTrendConfig::old_object_samples().values_to_select()
        );
    }

    #[test]
    fn a_flat_cache_and_heapgrowths_own_samples_are_not_growth() {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        for t in 0..30 {
            // A level of 20 that wanders by up to 6 either way, and one more own sample per
            // dump (the attach listener's strings).
            let wander = [0, 6, 2, 5, 1, 3, 6, 0, 4, 2][t % 10];
            let mut dump = service_dump(t as i64, 0, 14 + wander);
            for _ in 0..t {
                dump.samples.push(
                    Chain::of("java.lang.String")
                        .thread("Attach Listener")
                        .sample,
                );
            }
            search.observe(&dump);
            assert!(search.selected_classes().is_empty(), "dump {t}");
        }
        assert!(search.outcome().growing.is_empty());
    }

    #[test]
    fn samples_on_ignored_paths_are_counted_per_rule_and_not_judged() {
        let rule = IgnoreRule::parse(
            "Service.SESSIONS kept on purpose",
            crate::growth::RuleOrigin::User("--ignore".into()),
        )
        .unwrap();
        let mut search = OldObjectSearch::new(OldObjectConfig {
            ignore_rules: vec![rule],
            ..OldObjectConfig::default()
        })
        .unwrap();
        for t in 0..10 {
            let counts = search.observe(&service_dump(t, 10 * t as u64, 12));
            assert_eq!(counts.ignored, 10 * t as u64);
        }
        let outcome = search.outcome();
        assert!(outcome.growing.is_empty());
        assert!(outcome.unmatched_rules.is_empty());
        assert_eq!(
            outcome.ignored,
            [IgnoredSamples {
                pattern: "Service.SESSIONS".into(),
                reason: "kept on purpose".into(),
                origin: crate::growth::RuleOrigin::User("--ignore".into()),
                samples: 90
            }]
        );
    }
}
