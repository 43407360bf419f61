//! The command line's arguments, as clap reads them, and the ignore flags they give the
//! settings request.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::engine::{self, DumpPolicy};
use crate::growth::{
    DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
};
use crate::settings::{SettingError, SettingsRequest, Source};

#[derive(Parser)]
pub(super) struct WatchArgs {
    /// The process id of the JVM (a HotSpot JVM of your own user).
    #[arg(long)]
    pub(super) pid: u32,
    /// Look at this interval (e.g. 30s, 5m, 1h; 500ms) instead of at each press of Enter: a
    /// class histogram each time, heap dumps once a class keeps growing. Stops on Ctrl-C,
    /// after --for, or once growth is confirmed.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(super) every: Option<std::time::Duration>,
    /// Stop watching after this long (e.g. 10m), and report.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    pub(super) for_at_most: Option<std::time::Duration>,
    /// With --every: take a heap dump at every interval, not only once a class's live count
    /// keeps rising.
    #[arg(long, conflicts_with = "jfr")]
    pub(super) dump_every_interval: bool,
    /// Load no agent into the JVM: the growing nodes are then not attributed to the code that
    /// allocated them. (JDK 21+ prints a warning when an agent is loaded into a running JVM.)
    #[arg(long)]
    pub(super) no_attribution: bool,
    /// Bytes allocated between two allocation samples of the agent (smaller: more samples,
    /// more cost to the JVM).
    #[arg(long, value_name = "BYTES", default_value_t = crate::attach::DEFAULT_SAMPLING_INTERVAL, value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) sampling_interval: u32,
    /// For heaps too big to dump: no heap dumps, a JFR recording of old-object samples
    /// instead, dumped with paths to GC roots at each interval (or Enter). Needs a JVM with its
    /// Flight Recorder and a JDK's `jfr` tool (beside the JVM or in JAVA_HOME); the sample
    /// queue (256) can only be raised when the JVM starts:
    /// -XX:FlightRecorderOptions:old-object-queue-size=N.
    #[arg(long, conflicts_with = "html")]
    pub(super) jfr: bool,
    /// With --jfr: run a full collection (GC.run) in the JVM at this interval at most, before
    /// a dump of the recording: samples move only at collections, and a JVM that does not
    /// collect during the watch gives none to judge. Off by default: a full collection stops
    /// the application.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "jfr")]
    pub(super) gc_every: Option<std::time::Duration>,
    #[command(flatten)]
    pub(super) ignores: IgnoreArgs,
    #[command(flatten)]
    pub(super) output: OutputArgs,
}

/// `30s`, `5m`, `1h`, `500ms`, or a number of seconds.
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (e.g. 30s, 5m, 1h, 500ms)"))?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" | "min" => number * 60.0,
        "h" => number * 3600.0,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?} (use ms, s, m or h)"
            ))
        }
    };
    if !(seconds > 0.0 && seconds < 1e9) {
        return Err(format!("{text:?} must be more than 0"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

#[derive(Parser)]
pub(super) struct DiffArgs {
    /// The heap dumps, oldest first: 3 to 16 of them, taken at the same point of a scenario
    /// repeated in between. Five or more let growth be confirmed by the dumps after it. They
    /// are read in place, never changed or deleted.
    #[arg(required = true, value_name = "DUMP")]
    pub(super) dumps: Vec<PathBuf>,
    /// The scenario's loops (repetitions) done by each dump, e.g. --loops 3,7,15,31,127: a
    /// bound that fills is told from a leak by its pace per loop. By default the dumps count as
    /// equally far apart. Dumps kept by `heapgrowth run --keep-dumps all` are listed with their
    /// loops in its JSON report (`snapshot_loops`).
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    pub(super) loops: Option<Vec<u32>>,
    #[command(flatten)]
    pub(super) ignores: IgnoreArgs,
    #[command(flatten)]
    pub(super) output: OutputArgs,
}

#[derive(Parser)]
pub(super) struct RunArgs {
    /// Directories and jars with the scenario classes (repeat the flag, or separate with ':';
    /// empty entries, as a trailing ':' makes, are skipped).
    // Strings, not paths: clap refuses an empty path with "a value is required", which is
    // wrong about a classpath that ends in ':'.
    #[arg(long, required = true, value_delimiter = ':')]
    pub(super) classpath: Vec<std::ffi::OsString>,
    /// A class that implements java.lang.Runnable with a public no-arg constructor; one run()
    /// is one loop. Repeat to run several, each in its own class loader.
    #[arg(long, required = true)]
    pub(super) scenario: Vec<String>,
    /// JDK to start; defaults to JAVA_HOME, then `java` on PATH.
    #[arg(long)]
    pub(super) java_home: Option<PathBuf>,
    /// Extra JVM option, e.g. --jvm-arg=-Xmx2g (repeatable).
    #[arg(long = "jvm-arg", allow_hyphen_values = true)]
    pub(super) jvm_args: Vec<String>,
    /// Loops before the first snapshot.
    #[arg(long, default_value_t = DEFAULT_WARMUP_LOOPS)]
    pub(super) warmup: u32,
    /// Loops between the first two snapshots; the gap doubles after each.
    #[arg(long, default_value_t = DEFAULT_LOOPS_PER_SNAPSHOT)]
    pub(super) loops_per_snapshot: u32,
    /// Snapshots of the detection phase (more while a path keeps growing without being
    /// confirmed yet; confirmation adds its own).
    #[arg(long, default_value_t = DEFAULT_MAX_SNAPSHOTS)]
    pub(super) max_snapshots: u32,
    /// Loops the run reaches before growth counts as confirmed (snapshots 4 times further
    /// apart each time, at least 2 of them): a bound reached by about half of them is seen
    /// to level off. At most 100000000.
    #[arg(long, default_value_t = DEFAULT_CONFIRM_LOOPS)]
    pub(super) confirm_loops: u32,
    /// Seconds one scenario's search may take; confirmation then stops early and says so.
    #[arg(long, default_value_t = engine::DEFAULT_TIME_BUDGET.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) time_budget: u64,
    #[command(flatten)]
    pub(super) ignores: IgnoreArgs,
    /// Keep heap dumps in --keep-dumps-dir, readable by you only: `failed` keeps the last two of
    /// each scenario that grows or fails, `all` every dump of every scenario (`heapgrowth diff`
    /// reads them). Dumps hold every secret in the heap (passwords, tokens, personal data):
    /// never by default.
    #[arg(long, value_enum, default_value_t = KeepDumps::Never)]
    pub(super) keep_dumps: KeepDumps,
    /// Where --keep-dumps puts them, one directory per scenario run: NAME, or NAME-2, NAME-3, ...
    /// when NAME already holds something, so no run overwrites another's dumps (checked before
    /// the JVM starts; each run's directory is made 0700 and checked, so a link planted in a
    /// shared directory is refused).
    #[arg(long, value_name = "DIR", default_value = "heapgrowth-dumps")]
    pub(super) keep_dumps_dir: PathBuf,
    #[command(flatten)]
    pub(super) output: OutputArgs,
    /// Seconds one scenario may run (its loops, snapshots and attribution) before it is stopped
    /// as blocked: its thread's stack is reported and the next scenario runs.
    #[arg(long, default_value_t = engine::DEFAULT_SCENARIO_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) scenario_timeout: u64,
    /// Skip attribution (the loops run again with recorders to find the code that grows each
    /// node); the report's attribution is then null.
    #[arg(long)]
    pub(super) no_attribution: bool,
    /// Start the JVM without heapgrowth's JVMTI agent: attribution then only puts recording
    /// proxies in fields (which the scenario can see), as in a test JVM without -agentpath:.
    #[arg(long)]
    pub(super) no_agent: bool,
    /// For heaps too big to dump: no heap dumps, a JFR recording of old-object samples in the
    /// scenario's JVM instead, dumped with paths to GC roots after each second of loops; the
    /// growing classes' samples give their paths and allocation stacks. Needs the JVM's Flight
    /// Recorder and its JDK's `jfr` tool. The snapshot options (--loops-per-snapshot,
    /// --max-snapshots, --confirm-loops) do not apply.
    #[arg(long, conflicts_with_all = ["html", "keep_dumps"])]
    pub(super) jfr: bool,
}

/// Where the report goes and how it looks (`run`, `diff`, `watch`).
#[derive(Parser)]
pub(super) struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(super) format: Format,
    /// Write the report to FILE instead of stdout (replacing it once the run is done).
    #[arg(long, value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page to FILE (replacing it once the run
    /// is done), whatever --format says.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
    /// Show every frame of the recorded stacks, not only those up to the line to look at.
    #[arg(long)]
    pub(super) full_stacks: bool,
}

/// Which growth to leave out (`run`, `diff`, `watch`).
#[derive(Parser)]
pub(super) struct IgnoreArgs {
    /// Ignore growth on paths through a step matching PATTERN: a glob over the step's
    /// `Owner.field` (the owner with or without its package), then optionally a reason, in one
    /// argument: --ignore 'com.example.Cache.entries warms up over 2000 loops'. Repeatable.
    #[arg(long = "ignore", value_name = "PATTERN [REASON]")]
    pub(super) ignore: Vec<String>,
    /// A file of ignore rules, one per line as for --ignore; `#` starts a comment line. The
    /// project's `heapgrowth-ignore.txt` in the current directory is read without this flag.
    #[arg(long, value_name = "FILE")]
    pub(super) ignore_file: Vec<PathBuf>,
    /// Don't apply heapgrowth's built-in rules for known growth of the JDK and of common
    /// libraries (listed in docs/reference.md, "Ignore rules"); that growth is then reported
    /// like any other. `--no-jdk-ignores` is the same flag, under its former name.
    #[arg(long, alias = "no-jdk-ignores")]
    pub(super) no_builtin_ignores: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum KeepDumps {
    /// Delete every dump once read.
    Never,
    /// Keep the last two dumps of scenarios that grow or fail.
    Failed,
    /// Keep every dump of every scenario (for `heapgrowth diff` or another tool).
    All,
}

impl KeepDumps {
    /// The engine's policy: this type only adds the help of each value.
    pub(super) fn policy(self) -> DumpPolicy {
        match self {
            KeepDumps::Never => DumpPolicy::Never,
            KeepDumps::Failed => DumpPolicy::Failed,
            KeepDumps::All => DumpPolicy::All,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum Format {
    Text,
    Json,
}

impl IgnoreArgs {
    /// Gives `request` the ignore flags; the request assembles the rules (the built-in ones
    /// unless --no-builtin-ignores, the project's `heapgrowth-ignore.txt` in the current
    /// directory, --ignore-file's, then --ignore's).
    pub(super) fn give(&self, request: &mut SettingsRequest) -> Result<(), SettingError> {
        let from = Source::CommandLine;
        request.set(
            from,
            "builtin_ignores",
            (!self.no_builtin_ignores).to_string(),
        )?;
        for file in &self.ignore_file {
            request.set(from, "ignore_file", file)?;
        }
        for rule in &self.ignore {
            request.set(from, "ignore", rule)?;
        }
        Ok(())
    }
}
