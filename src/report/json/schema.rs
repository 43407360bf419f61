//! The types of the JSON document, in the order and with the names the document has.

use serde::Serialize;

use crate::growth::TrendRow;

#[derive(Serialize)]
pub(super) struct Document<'a> {
    pub(super) scenarios: Vec<JsonScenario<'a>>,
}

#[derive(Serialize)]
pub(super) struct JsonScenario<'a> {
    pub(super) scenario: &'a str,
    /// `growing`, `clean`, `inconclusive` (see [`crate::report::Verdict`]), or `error`.
    pub(super) verdict: &'static str,
    /// Why an inconclusive verdict is one; omitted for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) verdict_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<&'a str>,
    pub(super) loops: u32,
    pub(super) snapshots: u32,
    /// The loops at each snapshot (`heapgrowth diff --loops` takes them for dumps that
    /// `--keep-dumps all` kept).
    pub(super) snapshot_loops: &'a [u32],
    /// Why detection went on past its first three snapshots, at each snapshot it did; omitted
    /// where the snapshots were not the search's to choose (`diff`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) looked_longer: Option<Vec<JsonLookedLonger<'a>>>,
    pub(super) growing: Vec<JsonGrowing<'a>>,
    /// `heapgrowth watch`: candidates watching ended on before a confirmation snapshot;
    /// omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) unconfirmed: Vec<JsonUnconfirmed<'a>>,
    pub(super) leveled_off: Vec<JsonLeveledOff<'a>>,
    /// Candidates whose growth a snapshot retaken after the settling bound did not find (not
    /// growth); omitted when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) gone_on_retake: Vec<JsonGoneOnRetake<'a>>,
    /// Paths under which references the GC cleared kept piling up (not growth); omitted when
    /// none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) awaiting_cleanup: Vec<JsonAwaitingCleanup<'a>>,
    pub(super) ignored: Vec<JsonIgnored<'a>>,
    pub(super) timings_ms: JsonTimings<'a>,
    /// The loops at which the settling before a snapshot was cut short by its bounds; omitted
    /// when none was.
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    pub(super) settling_cut_short: &'a [u32],
    /// Heap dumps kept on request; omitted when none were.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) kept_dumps: Vec<String>,
    /// Why the dumps asked for could not be kept; omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dumps_not_kept: Option<&'a str>,
    /// What was searched: "heap dumps" (`diff`) or "jvm" (`watch`); omitted for a scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) subject: Option<&'static str>,
    /// What `loops` and the loop numbers count: "dumps" (`diff`), "snapshots" (an interactive
    /// `watch`) or "intervals" (a periodic `watch`); omitted for loops of a scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) loop_unit: Option<&'static str>,
    /// Why no node is attributed, once for the whole scenario; omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) not_attributed: Option<&'a str>,
    /// The class-trend table of `heapgrowth watch`; omitted when empty.
    #[serde(skip_serializing_if = "<[TrendRow]>::is_empty")]
    pub(super) class_trends: &'a [TrendRow],
    /// The JFR old-object samples of `heapgrowth watch --jfr`; omitted elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) old_objects: Option<JsonOldObjects<'a>>,
}

/// `watch --jfr`: what sampling can tell, each dump's counts, the growing classes.
#[derive(Serialize)]
pub(super) struct JsonOldObjects<'a> {
    pub(super) sampling: String,
    /// [`crate::report::OldObjectReport::stopped_early`]; omitted when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stopped_early: Option<&'a str>,
    /// Samples judged over all dumps (heapgrowth's own and ignored ones left out).
    pub(super) samples_judged: u64,
    /// Garbage collections from the recording's start to its last dump; null when unknown.
    pub(super) collections: Option<u64>,
    pub(super) queue_size: u32,
    pub(super) queue_size_set_at_start: bool,
    pub(super) dumps: Vec<JsonSampleDump>,
    pub(super) growing: Vec<JsonGrowingClass<'a>>,
    /// Common paths of survivors spread over the recording (growth past a full queue).
    pub(super) survivors: Vec<JsonSurvivors<'a>>,
    pub(super) ignored: Vec<JsonIgnoredSamples<'a>>,
}

#[derive(Serialize)]
pub(super) struct JsonSampleDump {
    /// Milliseconds since the Unix epoch.
    pub(super) time_ms: i64,
    pub(super) samples: u64,
    /// heapgrowth's own (the attach listener's), left out.
    pub(super) own: u64,
    pub(super) ignored: u64,
    pub(super) without_path: u64,
    /// The dump moved the trend: a collection ran since the last one that did (where
    /// collections cannot be counted: its samples changed).
    pub(super) judged: bool,
}

#[derive(Serialize)]
pub(super) struct JsonGrowingClass<'a> {
    pub(super) class: &'a str,
    pub(super) trend: &'a TrendRow,
    pub(super) paths: Vec<JsonSampledPath<'a>>,
    pub(super) other_paths: u64,
    pub(super) other_paths_samples: u64,
}

#[derive(Serialize)]
pub(super) struct JsonSurvivors<'a> {
    /// The step a gate keys it by (the last static field on the path, else its last step).
    pub(super) held_at: String,
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) samples: u64,
    pub(super) of_samples: u64,
    pub(super) share_percent: f64,
    pub(super) classes: Vec<JsonThreadSamples<'a>>,
    /// Its samples per quarter of the recording by allocation time, oldest first.
    pub(super) quarters: &'a [u64],
    pub(super) first_window_ms: u128,
    pub(super) confirmed_window_ms: u128,
    pub(super) ages_ms: JsonAges,
    pub(super) threads: Vec<JsonThreadSamples<'a>>,
    pub(super) stacks: Vec<JsonStack>,
}

#[derive(Serialize)]
pub(super) struct JsonSampledPath<'a> {
    /// Empty when JFR found no path to a GC root.
    pub(super) path: Vec<JsonStep<'a>>,
    /// Samples on the path at each dump of the class's trend.
    pub(super) counts: &'a [u64],
    pub(super) samples: u64,
    pub(super) references_left_out: u64,
    pub(super) ages_ms: JsonAges,
    pub(super) threads: Vec<JsonThreadSamples<'a>>,
    pub(super) stacks: Vec<JsonStack>,
}

#[derive(Serialize)]
pub(super) struct JsonAges {
    pub(super) youngest: u128,
    pub(super) median: u128,
    pub(super) oldest: u128,
}

#[derive(Serialize)]
pub(super) struct JsonThreadSamples<'a> {
    pub(super) name: &'a str,
    pub(super) samples: u64,
}

#[derive(Serialize)]
pub(super) struct JsonIgnoredSamples<'a> {
    pub(super) pattern: &'a str,
    pub(super) reason: &'a str,
    /// [`crate::growth::RuleOrigin::label`].
    pub(super) origin: &'a str,
    pub(super) samples: u64,
}

/// A path that grew for a while and stopped.
#[derive(Serialize)]
pub(super) struct JsonLeveledOff<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    pub(super) last_growth_loop: u32,
    pub(super) history: Vec<JsonValues>,
}

/// A candidate whose growth the retaken snapshot did not find.
#[derive(Serialize)]
pub(super) struct JsonGoneOnRetake<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    pub(super) history: Vec<JsonValues>,
    /// The objects of its children in the retaken snapshot.
    pub(super) retaken_children_objects: u64,
}

/// A path under which references the GC cleared kept piling up.
#[derive(Serialize)]
pub(super) struct JsonAwaitingCleanup<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    /// Objects awaiting cleanup among the node's children at the last snapshot, and how many
    /// more than at the one before.
    pub(super) objects: u64,
    pub(super) new: i64,
    pub(super) history: Vec<JsonAwaitingValues>,
}

#[derive(Serialize)]
pub(super) struct JsonAwaitingValues {
    pub(super) loops: u32,
    pub(super) objects: u64,
}

/// A path that kept detection going after a snapshot.
#[derive(Serialize)]
pub(super) struct JsonLookedLonger<'a> {
    pub(super) after_loop: u32,
    pub(super) why: &'static str,
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    /// How many paths kept it going, this one included.
    pub(super) paths: u32,
    pub(super) history: Vec<JsonValues>,
}

/// A candidate that was not confirmed: watching ended first.
#[derive(Serialize)]
pub(super) struct JsonUnconfirmed<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    pub(super) history: Vec<JsonValues>,
}

/// A path an ignore rule kept out of the search.
#[derive(Serialize)]
pub(super) struct JsonIgnored<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    pub(super) pattern: &'a str,
    pub(super) reason: &'a str,
    /// [`crate::growth::RuleOrigin::label`].
    pub(super) origin: &'a str,
    pub(super) history: Vec<JsonValues>,
}

/// A node's measures at one snapshot.
#[derive(Serialize)]
pub(super) struct JsonValues {
    pub(super) loops: u32,
    pub(super) objects: u64,
    pub(super) children_objects: u64,
    pub(super) references: u64,
    pub(super) children_bytes: u64,
    pub(super) spread_objects: u64,
}

#[derive(Serialize)]
pub(super) struct JsonConfirmed {
    pub(super) from_loop: u32,
    pub(super) to_loop: u32,
    pub(super) snapshots: u32,
    /// Why confirmation stopped before its loops, or null.
    pub(super) cut: Option<&'static str>,
}

#[derive(Serialize)]
pub(super) struct JsonTimings<'a> {
    pub(super) dump: &'a [u64],
    pub(super) parse: &'a [u64],
    pub(super) analysis: &'a [u64],
    pub(super) attribution: &'a [u64],
}

#[derive(Serialize)]
pub(super) struct JsonStep<'a> {
    /// The step as the text report writes it (`STATIC_FIELD Cart.items -> instance of ...`).
    pub(super) text: String,
    pub(super) kind: &'static str,
    pub(super) owner: Option<&'a str>,
    pub(super) name: &'a str,
    pub(super) target: Option<&'a str>,
    pub(super) objects: u64,
    /// For a root group of threads: the pattern of their names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) threads: Option<&'a str>,
    /// For `LOCAL`: where the frame was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) source: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct JsonChild<'a> {
    /// The child's step as the text report writes it.
    pub(super) text: String,
    pub(super) kind: &'static str,
    pub(super) owner: &'a str,
    pub(super) name: &'a str,
    pub(super) target: &'a str,
    pub(super) objects: u64,
    pub(super) new: i64,
    pub(super) bytes: u64,
    pub(super) new_bytes: i64,
    pub(super) below: u64,
    pub(super) new_below: i64,
}

#[derive(Serialize)]
pub(super) struct JsonRetained {
    pub(super) objects: u64,
    pub(super) bytes: u64,
    /// null when the snapshot before did not measure it.
    pub(super) objects_increase: Option<i64>,
    pub(super) bytes_increase: Option<i64>,
}

#[derive(Serialize)]
pub(super) struct JsonGrowing<'a> {
    pub(super) path: Vec<JsonStep<'a>>,
    pub(super) growth: Vec<&'static str>,
    pub(super) confirmed: JsonConfirmed,
    pub(super) children_objects: Vec<u64>,
    pub(super) history: Vec<JsonValues>,
    pub(super) retained: JsonRetained,
    pub(super) children: Vec<JsonChild<'a>>,
    /// `null` when attribution did not run.
    pub(super) attribution: Option<JsonAttribution>,
}

/// `{"status": "attributed", "kind": ..., "stacks": [...]}` or
/// `{"status": "not_attributed", "reason": ...}`.
#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(super) enum JsonAttribution {
    Attributed {
        kind: String,
        stacks: Vec<JsonStack>,
        caveats: Vec<String>,
        /// Calls that should have removed from the node and removed nothing (issue 32).
        hints: Vec<String>,
    },
    NotAttributed {
        reason: String,
    },
}

#[derive(Serialize)]
pub(super) struct JsonStack {
    /// `4 call(s) to add()`, as the text report heads the stack.
    pub(super) headline: String,
    pub(super) count: u64,
    /// `pkg.Class.method(File.java:LINE)`, innermost first.
    pub(super) frames: Vec<String>,
    /// The same frames as objects.
    pub(super) frame_details: Vec<JsonFrame>,
    /// The index of the frame to look at (see `attribution::place_to_look`), or null.
    pub(super) place_to_look: Option<usize>,
    /// Distinct stacks folded into this one (same operation, place to look and innermost
    /// method); omitted when there was only this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) folded: Option<u32>,
    /// Where the objects this stack linked were allocated, when another line (the stack above
    /// is then the call that made them reachable), or null.
    pub(super) made_at: Option<JsonMadeAt>,
}

/// The allocation stack of a kept-by stack's objects.
#[derive(Serialize)]
pub(super) struct JsonMadeAt {
    pub(super) frames: Vec<String>,
    pub(super) frame_details: Vec<JsonFrame>,
    pub(super) place_to_look: Option<usize>,
}

#[derive(Serialize)]
pub(super) struct JsonFrame {
    pub(super) class: String,
    pub(super) method: String,
    pub(super) file: Option<String>,
    pub(super) line: Option<i32>,
    /// `jdk`, `library` or `user`.
    pub(super) origin: &'static str,
    /// The library's jar, for `origin: "library"`.
    pub(super) library: Option<String>,
}
