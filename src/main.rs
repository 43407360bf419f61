//! The `heapgrowth` command line.

use std::io::Write;
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use clap::{Parser, Subcommand, ValueEnum};
use heapgrowth::engine::{self, EngineError, RunOptions, SearchSettings};
use heapgrowth::growth::{
    IgnoreRule, RuleOrigin, SearchConfig, DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT,
    DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
};
use heapgrowth::jvm::JvmOptions;
use heapgrowth::line::escape_line;
use heapgrowth::report::{self, ScenarioReport, StackDepth, EXIT_ERROR};
use heapgrowth::settings;

#[derive(Parser)]
#[command(
    name = "heapgrowth",
    version,
    about = "Finds JVM memory that grows with every loop of a scenario",
    after_help = "Exit status: 0 clean (every scenario judged, nothing grows), 1 something \
                  grows, 2 error, 3 inconclusive (nothing found to grow, but a scenario could \
                  not be judged: the report says what was not seen)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios in loops and report the objects that grow with every loop.
    Run(RunArgs),
    /// Find what grows over heap dumps that already exist, oldest first (HotSpot or Android
    /// HPROF files, taken at the same point of a scenario repeated in between).
    Diff(DiffArgs),
    /// Watch a running JVM (attached to as jcmd does): take a heap dump each time you press
    /// Enter, or with --every at an interval once a class's live count keeps rising, and
    /// report what grows.
    Watch(WatchArgs),
}

#[derive(Parser)]
struct WatchArgs {
    /// The process id of the JVM (a HotSpot JVM of your own user).
    #[arg(long)]
    pid: u32,
    /// Look at this interval (e.g. 30s, 5m, 1h; 500ms) instead of at each press of Enter: a
    /// class histogram each time, heap dumps once a class keeps growing. Stops on Ctrl-C,
    /// after --for, or once growth is confirmed.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    every: Option<std::time::Duration>,
    /// Stop watching after this long (e.g. 10m), and report.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    for_at_most: Option<std::time::Duration>,
    /// With --every: take a heap dump at every interval, not only once a class's live count
    /// keeps rising.
    #[arg(long, conflicts_with = "jfr")]
    dump_every_interval: bool,
    /// Load no agent into the JVM: the growing nodes are then not attributed to the code that
    /// allocated them. (JDK 21+ prints a warning when an agent is loaded into a running JVM.)
    #[arg(long)]
    no_attribution: bool,
    /// Bytes allocated between two allocation samples of the agent (smaller: more samples,
    /// more cost to the JVM).
    #[arg(long, value_name = "BYTES", default_value_t = heapgrowth::attach::DEFAULT_SAMPLING_INTERVAL, value_parser = clap::value_parser!(u32).range(1..))]
    sampling_interval: u32,
    /// For heaps too big to dump: no heap dumps, a JFR recording of old-object samples
    /// instead, dumped with paths to GC roots at each interval (or Enter). Needs a JVM with its
    /// Flight Recorder and a JDK's `jfr` tool (beside the JVM or in JAVA_HOME); the sample
    /// queue (256) can only be raised when the JVM starts:
    /// -XX:FlightRecorderOptions:old-object-queue-size=N.
    #[arg(long, conflicts_with = "html")]
    jfr: bool,
    /// With --jfr: run a full collection (GC.run) in the JVM at this interval at most, before
    /// a dump of the recording: samples move only at collections, and a JVM that does not
    /// collect during the watch gives none to judge. Off by default: a full collection stops
    /// the application.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "jfr")]
    gc_every: Option<std::time::Duration>,
    #[command(flatten)]
    ignores: IgnoreArgs,
    #[command(flatten)]
    output: OutputArgs,
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
struct DiffArgs {
    /// The heap dumps, oldest first: 3 to 16 of them, taken at the same point of a scenario
    /// repeated in between. Five or more let growth be confirmed by the dumps after it. They
    /// are read in place, never changed or deleted.
    #[arg(required = true, value_name = "DUMP")]
    dumps: Vec<PathBuf>,
    /// The scenario's loops (repetitions) done by each dump, e.g. --loops 3,7,15,31,127: a
    /// bound that fills is told from a leak by its pace per loop. By default the dumps count as
    /// equally far apart. Dumps kept by `heapgrowth run --keep-dumps all` are listed with their
    /// loops in its JSON report (`snapshot_loops`).
    #[arg(long, value_delimiter = ',', value_name = "N,N,...")]
    loops: Option<Vec<u32>>,
    #[command(flatten)]
    ignores: IgnoreArgs,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Parser)]
struct RunArgs {
    /// Directories and jars with the scenario classes (repeat the flag, or separate with ':';
    /// empty entries, as a trailing ':' makes, are skipped).
    // Strings, not paths: clap refuses an empty path with "a value is required", which is
    // wrong about a classpath that ends in ':'.
    #[arg(long, required = true, value_delimiter = ':')]
    classpath: Vec<std::ffi::OsString>,
    /// A class that implements java.lang.Runnable with a public no-arg constructor; one run()
    /// is one loop. Repeat to run several, each in its own class loader.
    #[arg(long, required = true)]
    scenario: Vec<String>,
    /// JDK to start; defaults to JAVA_HOME, then `java` on PATH.
    #[arg(long)]
    java_home: Option<PathBuf>,
    /// Extra JVM option, e.g. --jvm-arg=-Xmx2g (repeatable).
    #[arg(long = "jvm-arg", allow_hyphen_values = true)]
    jvm_args: Vec<String>,
    /// Loops before the first snapshot.
    #[arg(long, default_value_t = DEFAULT_WARMUP_LOOPS)]
    warmup: u32,
    /// Loops between the first two snapshots; the gap doubles after each.
    #[arg(long, default_value_t = DEFAULT_LOOPS_PER_SNAPSHOT)]
    loops_per_snapshot: u32,
    /// Snapshots of the detection phase (more while a path keeps growing without being
    /// confirmed yet; confirmation adds its own).
    #[arg(long, default_value_t = DEFAULT_MAX_SNAPSHOTS)]
    max_snapshots: u32,
    /// Loops the run reaches before growth counts as confirmed (snapshots 4 times further
    /// apart each time, at least 2 of them): a bound reached by about half of them is seen
    /// to level off. At most 100000000.
    #[arg(long, default_value_t = DEFAULT_CONFIRM_LOOPS)]
    confirm_loops: u32,
    /// Seconds one scenario's search may take; confirmation then stops early and says so.
    #[arg(long, default_value_t = engine::DEFAULT_TIME_BUDGET.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    time_budget: u64,
    #[command(flatten)]
    ignores: IgnoreArgs,
    /// Keep heap dumps in --keep-dumps-dir, readable by you only: `failed` keeps the last two of
    /// each scenario that grows or fails, `all` every dump of every scenario (`heapgrowth diff`
    /// reads them). Dumps hold every secret in the heap (passwords, tokens, personal data):
    /// never by default.
    #[arg(long, value_enum, default_value_t = KeepDumps::Never)]
    keep_dumps: KeepDumps,
    /// Where --keep-dumps puts them, one directory per scenario run: NAME, or NAME-2, NAME-3, ...
    /// when NAME already holds something, so no run overwrites another's dumps (checked before
    /// the JVM starts; each run's directory is made 0700 and checked, so a link planted in a
    /// shared directory is refused).
    #[arg(long, value_name = "DIR", default_value = "heapgrowth-dumps")]
    keep_dumps_dir: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
    /// Seconds one scenario may run (its loops, snapshots and attribution) before it is stopped
    /// as blocked: its thread's stack is reported and the next scenario runs.
    #[arg(long, default_value_t = engine::DEFAULT_SCENARIO_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    scenario_timeout: u64,
    /// Skip attribution (the loops run again with recorders to find the code that grows each
    /// node); the report's attribution is then null.
    #[arg(long)]
    no_attribution: bool,
    /// Start the JVM without heapgrowth's JVMTI agent: attribution then only puts recording
    /// proxies in fields (which the scenario can see), as in a test JVM without -agentpath:.
    #[arg(long)]
    no_agent: bool,
    /// For heaps too big to dump: no heap dumps, a JFR recording of old-object samples in the
    /// scenario's JVM instead, dumped with paths to GC roots after each second of loops; the
    /// growing classes' samples give their paths and allocation stacks. Needs the JVM's Flight
    /// Recorder and its JDK's `jfr` tool. The snapshot options (--loops-per-snapshot,
    /// --max-snapshots, --confirm-loops) do not apply.
    #[arg(long, conflicts_with_all = ["html", "keep_dumps"])]
    jfr: bool,
}

/// Where the report goes and how it looks (`run`, `diff`, `watch`).
#[derive(Parser)]
struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report to FILE instead of stdout (replacing it once the run is done).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page to FILE (replacing it once the run
    /// is done), whatever --format says.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Show every frame of the recorded stacks, not only those up to the line to look at.
    #[arg(long)]
    full_stacks: bool,
}

/// Which growth to leave out (`run`, `diff`, `watch`).
#[derive(Parser)]
struct IgnoreArgs {
    /// Ignore growth on paths through a step matching PATTERN: a glob over the step's
    /// `Owner.field` (the owner with or without its package), then optionally a reason, in one
    /// argument: --ignore 'com.example.Cache.entries warms up over 2000 loops'. Repeatable.
    #[arg(long = "ignore", value_name = "PATTERN [REASON]")]
    ignore: Vec<String>,
    /// A file of ignore rules, one per line as for --ignore; `#` starts a comment line. The
    /// project's `heapgrowth-ignore.txt` in the current directory is read without this flag.
    #[arg(long, value_name = "FILE")]
    ignore_file: Vec<PathBuf>,
    /// Don't apply heapgrowth's built-in rules for known growth of the JDK and of common
    /// libraries (listed in docs/reference.md, "Ignore rules"); that growth is then reported
    /// like any other. `--no-jdk-ignores` is the same flag, under its former name.
    #[arg(long, alias = "no-jdk-ignores")]
    no_builtin_ignores: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum KeepDumps {
    /// Delete every dump once read.
    Never,
    /// Keep the last two dumps of scenarios that grow or fail.
    Failed,
    /// Keep every dump of every scenario (for `heapgrowth diff` or another tool).
    All,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The allocator: the system's, ending the process with one line and exit status 2 when an
/// allocation fails (under `ulimit -v`, or where overcommit is off), instead of Rust's abort
/// with a backtrace. Every dump the run took is deleted first when that can be done without
/// waiting for a lock.
struct ExitWhenOutOfMemory;

#[global_allocator]
static ALLOCATOR: ExitWhenOutOfMemory = ExitWhenOutOfMemory;

// Safety: every call is the system allocator's, with the same layout and pointers; a null
// result ends the process instead of being returned.
unsafe impl std::alloc::GlobalAlloc for ExitWhenOutOfMemory {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        or_exit(std::alloc::System.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        or_exit(std::alloc::System.alloc_zeroed(layout), layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        or_exit(std::alloc::System.realloc(ptr, layout, new_size), new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
}

/// `ptr`, or the end of the process if it is null (an allocation of `size` bytes failed).
#[inline]
fn or_exit(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size)
    }
    ptr
}

#[cold]
fn out_of_memory(size: usize) -> ! {
    static ENDING: AtomicBool = AtomicBool::new(false);
    if !ENDING.swap(true, Ordering::SeqCst) {
        // Written without allocating: the size's digits into a buffer on the stack.
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = size;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let parts: [&[u8]; 3] = [
            b"heapgrowth: out of memory: an allocation of ",
            &digits[at..],
            b" bytes failed; the address-space limit (ulimit -v) or the memory (a cgroup's limit) \
              is too small for this work: raise it, or give fewer or smaller heap dumps\n",
        ];
        for part in parts {
            // Safety: write on stderr from a buffer that lives for the call.
            unsafe { libc::write(libc::STDERR_FILENO, part.as_ptr().cast(), part.len()) };
        }
        // Dumps hold every secret in the heap; small allocations may still succeed.
        heapgrowth::tempdir::try_delete_all_now();
    }
    // Safety: `_exit` has no preconditions; it ends the process at once (another thread that
    // fails too ends it the same way).
    unsafe { libc::_exit(EXIT_ERROR as i32) }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = heapgrowth::tempdir::install_interrupt_cleanup() {
        // Not fatal: dumps are still deleted on every exit but Ctrl-C.
        say(format_args!(
            "warning: cannot install the Ctrl-C handler that deletes heap dumps: {error}"
        ));
    }
    match cli.command {
        Command::Run(args) => run(args),
        Command::Diff(args) => diff(args),
        Command::Watch(args) => watch(args),
    }
}

fn run(args: RunArgs) -> ExitCode {
    // Every path the run writes is checked before the JVM starts.
    let checked = Reporting::new(&args.output, &run_inputs(&args)).and_then(|reporting| {
        let keep_dumps_dir = match args.keep_dumps {
            KeepDumps::Never => None,
            KeepDumps::Failed | KeepDumps::All => Some(
                heapgrowth::output::check_dir("--keep-dumps-dir", &args.keep_dumps_dir)
                    .map_err(|e| e.to_string())?,
            ),
        };
        Ok((Arc::new(reporting), keep_dumps_dir))
    });
    let (reporting, keep_dumps_dir) = match checked {
        Ok(checked) => checked,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let ignore_rules = match ignore_rules(&args.ignores) {
        Ok(rules) => rules,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let classpath: Vec<PathBuf> = args
        .classpath
        .into_iter()
        .filter(|entry| !entry.is_empty())
        .map(PathBuf::from)
        .collect();
    if classpath.is_empty() {
        say(format_args!(
            "--classpath names no directory or jar: give the directories and jars with the \
             scenario classes"
        ));
        return ExitCode::from(EXIT_ERROR);
    }
    let options = RunOptions {
        attribution: !args.no_attribution,
        settings: SearchSettings {
            warmup: args.warmup,
            search: SearchConfig {
                loops_per_snapshot: args.loops_per_snapshot,
                max_snapshots: args.max_snapshots,
                confirm_loops: args.confirm_loops,
            },
            time_budget: std::time::Duration::from_secs(args.time_budget),
            keep_last_dumps: false,
            keep_all_dumps: false,
            ignore_rules,
            jfr: args.jfr,
        },
        keep_dumps_in: keep_dumps_dir,
        keep_every_dump: matches!(args.keep_dumps, KeepDumps::All),
        ..RunOptions::new(
            JvmOptions {
                java_home: args.java_home,
                classpath,
                jvm_args: args.jvm_args,
                without_agent: args.no_agent,
                scenario_timeout: Some(std::time::Duration::from_secs(args.scenario_timeout)),
                ..JvmOptions::default()
            },
            args.scenario,
        )
    };
    // The JVM can end the process under the run (System.exit in a scenario, a crash): the
    // reports so far are then written the same way, from the JVM's exit hook.
    let at_jvm_end = Arc::clone(&reporting);
    let result = engine::run(&options, move |result| {
        at_jvm_end.finish(result);
    });
    ExitCode::from(reporting.finish(result))
}

fn diff(args: DiffArgs) -> ExitCode {
    let prepared = heapgrowth::diff::check_dumps(&args.dumps, args.loops.as_deref())
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let mut inputs: Vec<&Path> = args.dumps.iter().map(PathBuf::as_path).collect();
            inputs.extend(args.ignores.ignore_file.iter().map(PathBuf::as_path));
            let reporting = Reporting::new(&args.output, &inputs)?;
            let ignore_rules = ignore_rules(&args.ignores)?;
            for warning in heapgrowth::diff::order_warnings(&args.dumps) {
                say(format_args!("warning: {warning}"));
            }
            Ok((reporting, ignore_rules))
        });
    let (reporting, ignore_rules) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let settings = SearchSettings {
        ignore_rules,
        ..SearchSettings::default()
    };
    let progress = engine::Progress::new(true);
    let loops = args.loops.as_deref();
    let result = heapgrowth::diff::diff(&args.dumps, loops, &settings, &progress)
        .map(|report| vec![report])
        .map_err(EngineError::TempDir);
    ExitCode::from(reporting.finish(result))
}

fn watch(args: WatchArgs) -> ExitCode {
    use heapgrowth::watch::{self, ConfirmationDue, Pace, WatchEvent, WatchOptions};
    let inputs: Vec<&Path> = args
        .ignores
        .ignore_file
        .iter()
        .map(PathBuf::as_path)
        .collect();
    let prepared = Reporting::new(&args.output, &inputs)
        .and_then(|reporting| Ok((reporting, ignore_rules(&args.ignores)?)));
    let (reporting, ignore_rules) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    // Ctrl-C ends the watch with its report; a second one quits at once.
    heapgrowth::tempdir::stop_on_first_interrupt();
    let options = WatchOptions {
        pid: args.pid,
        pace: if args.every.is_some() {
            Pace::Periodic
        } else {
            Pace::Interactive
        },
        class_gate: !args.dump_every_interval,
        trend: if args.jfr {
            heapgrowth::growth::ClassTrendConfig::old_object_samples()
        } else {
            Default::default()
        },
        settings: SearchSettings {
            ignore_rules,
            ..SearchSettings::default()
        },
        attach: Default::default(),
        attribution: !args.no_attribution,
        sampling_interval: args.sampling_interval,
        gc_every: args.gc_every,
    };
    let mut ticks: Box<dyn watch::Ticks> = match args.every {
        Some(interval) => Box::new(watch::EveryInterval::new(interval, args.for_at_most)),
        None => Box::new(watch::OnEnter::new(
            std::io::BufReader::new(std::io::stdin()),
            args.for_at_most,
            || {
                say(format_args!(
                    "repeat the scenario, then press Enter (or type how many times you \
                     repeated it); q or Ctrl-D ends"
                ))
            },
        )),
    };
    let mut events = |event: WatchEvent| match event {
        WatchEvent::Attached { name } => say(format_args!("attached to {}", escape_line(name))),
        WatchEvent::Histogram {
            interval,
            selected,
            heap_bytes,
        } => {
            let classes: Vec<String> = selected
                .iter()
                .map(|row| {
                    format!(
                        "{} ({:+.0} objects per interval)",
                        escape_line(&row.class),
                        row.instances.slope_per_interval
                    )
                })
                .collect();
            let mib = heap_bytes as f64 / (1 << 20) as f64;
            match classes.is_empty() {
                true => say(format_args!(
                    "interval {interval}: live heap {mib:.1} MiB, no class keeps growing yet"
                )),
                false => say(format_args!(
                    "interval {interval}: live heap {mib:.1} MiB, growing: {}",
                    classes.join(", ")
                )),
            }
        }
        WatchEvent::Snapshot {
            interval,
            candidates,
        } => {
            let paths: Vec<String> = candidates
                .iter()
                .filter_map(|(path, due)| {
                    let step = escape_line(&path.last()?.with_source());
                    Some(match due {
                        ConfirmationDue::AtIntervals(first, second) => format!(
                            "{step} (confirmation dumps due at intervals {first} and {second})"
                        ),
                        ConfirmationDue::NextSnapshots => {
                            format!("{step} (confirmed by the next two snapshots if it grows on)")
                        }
                    })
                })
                .collect();
            match paths.is_empty() {
                true => say(format_args!(
                    "interval {interval}: heap dump read, no path growing yet"
                )),
                false => say(format_args!(
                    "interval {interval}: heap dump read, growing so far (not confirmed yet): {}",
                    paths.join("; ")
                )),
            }
        }
        WatchEvent::SamplingStarted { classes } => {
            let classes: Vec<String> = classes.iter().map(|c| escape_line(c)).collect();
            say(format_args!(
                "sampling allocations of {} for attribution",
                classes.join(", ")
            ))
        }
        WatchEvent::RecordingStarted {
            name,
            queue_size,
            queue_size_set_at_start,
        } => say(format_args!(
            "JFR recording {name} started: old-object samples, a queue of {queue_size}{}",
            if queue_size_set_at_start {
                ""
            } else {
                " (the default; raise it at JVM start with \
                 -XX:FlightRecorderOptions:old-object-queue-size=N)"
            }
        )),
        WatchEvent::OldObjectSamples {
            interval,
            samples,
            selected,
        } => {
            let classes: Vec<String> = selected
                .iter()
                .map(|row| {
                    format!(
                        "{} ({:+.1} samples per interval)",
                        escape_line(&row.class),
                        row.instances.slope_per_interval
                    )
                })
                .collect();
            match classes.is_empty() {
                true => say(format_args!(
                    "interval {interval}: JFR dump read, {samples} old-object samples, no class \
                     keeps growing yet"
                )),
                false => say(format_args!(
                    "interval {interval}: JFR dump read, {samples} old-object samples, growing: {}",
                    classes.join(", ")
                )),
            }
        }
        WatchEvent::Stopped { reason } => {
            say(format_args!("watching stopped: {}", reason.describe()))
        }
    };
    let result = if args.jfr {
        heapgrowth::jfr_watch::watch_old_objects(&options, ticks.as_mut(), &mut events)
    } else {
        watch::watch(&options, ticks.as_mut(), &mut events)
    };
    let result = match result {
        Ok(report) => Ok(vec![report]),
        Err(error) => {
            say(format_args!("{}", escape_line(&error.to_string())));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    ExitCode::from(reporting.finish(result))
}

/// How and where the report is written, and the exit status it gives.
struct Reporting {
    format: Format,
    depth: StackDepth,
    sink: ReportSink,
    /// `--html FILE`, checked.
    html: Option<heapgrowth::output::OutputFile>,
    /// Set by the first [`Reporting::finish`]: the JVM's exit hook and the end of the run can
    /// both get there (a scenario's thread calling System.exit as the run ends).
    finished: AtomicBool,
}

impl Reporting {
    /// Checks `--output` and `--html` against each other and `inputs` (see
    /// [`heapgrowth::output::check_outputs`]), before any work.
    fn new(args: &OutputArgs, inputs: &[&Path]) -> Result<Reporting, String> {
        let mut outputs: Vec<(&str, &Path)> = Vec::new();
        outputs.extend(args.output.as_deref().map(|path| ("--output", path)));
        outputs.extend(args.html.as_deref().map(|path| ("--html", path)));
        let mut checked = heapgrowth::output::check_outputs(&outputs, inputs)
            .map_err(|e| e.to_string())?
            .into_iter();
        let output = args.output.as_ref().and_then(|_| checked.next());
        let html = args.html.as_ref().and_then(|_| checked.next());
        Ok(Reporting {
            format: args.format,
            depth: if args.full_stacks {
                StackDepth::Full
            } else {
                StackDepth::ToThePlaceToLook
            },
            sink: ReportSink::new(output),
            html,
            finished: AtomicBool::new(false),
        })
    }

    /// Writes the report (or the run's error), the warnings and the error line; returns the exit
    /// status.
    fn finish(&self, result: Result<Vec<ScenarioReport>, EngineError>) -> u8 {
        if self.finished.swap(true, Ordering::SeqCst) {
            // The other writer has the report; the JVM's end makes the status 2 anyway.
            return EXIT_ERROR;
        }
        let reports = match result {
            Ok(reports) => reports,
            Err(error) => {
                say(format_args!("{}", escape_line(&error.to_string())));
                return EXIT_ERROR;
            }
        };
        let text = match self.format {
            Format::Text => report::render_text(&reports, self.depth),
            Format::Json => format!("{}\n", report::to_json(&reports)),
        };
        if let Err(error) = self.sink.write(&text) {
            say(format_args!("{error}"));
            return EXIT_ERROR;
        }
        if let Some(html) = &self.html {
            let page = report::render_html(&reports);
            if let Err(error) = report::write_report_file(&html.target, &page) {
                say(format_args!(
                    "cannot write the HTML report to {}: {error}",
                    escape_line(&html.given.display().to_string())
                ));
                return EXIT_ERROR;
            }
        }
        for rule in report::unmatched_rules(&reports) {
            say(format_args!(
                "warning: {}",
                report::unmatched_rule_warning(rule)
            ));
        }
        if let Some(failed) = reports.iter().find_map(|r| r.result.as_ref().err()) {
            // The first line is the error; the rest is a Java stack.
            say(format_args!(
                "{}",
                failed.lines().next().unwrap_or_default()
            ));
            return EXIT_ERROR;
        }
        report::exit_status(&reports)
    }
}

/// One `heapgrowth: ...` line on stderr. A stderr that cannot be written to (closed, full) is
/// no reason to panic or to change the exit status.
fn say(message: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "heapgrowth: {message}");
}

/// Where the report goes: `--output FILE`, or the process's stdout. Either way stdout holds the
/// report alone: file descriptor 1 is pointed at stderr when the run starts, so what the JVM
/// and the scenarios print there (a library logging to `System.out`) goes to stderr, and the
/// report is written to a copy of the original stdout.
struct ReportSink {
    target: Target,
}

enum Target {
    Stdout(Mutex<std::fs::File>),
    /// There was no stdout (closed file descriptor 1): like a closed pipe.
    NoStdout,
    File(heapgrowth::output::OutputFile),
}

impl ReportSink {
    /// `output` checked by [`heapgrowth::output::check_outputs`].
    fn new(output: Option<heapgrowth::output::OutputFile>) -> ReportSink {
        // Safety: fcntl and dup2 on the process's standard descriptors; the duplicate is a new
        // descriptor that this process owns from here on, and is close-on-exec. Descriptor 1
        // is pointed at stderr even when it was closed: else the next file the JVM opens would
        // get number 1, and System.out would write into it.
        let saved = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3) };
        unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) };
        let target = match output {
            Some(output) => Target::File(output),
            // Safety: `saved` is an open descriptor that nothing else owns.
            None if saved >= 0 => {
                Target::Stdout(Mutex::new(unsafe { std::fs::File::from_raw_fd(saved) }))
            }
            None => Target::NoStdout,
        };
        ReportSink { target }
    }

    /// Writes `text`. A closed pipe (`heapgrowth run ... | head -1`) is not an error: the
    /// reader has what it wanted, as with any Unix tool.
    fn write(&self, text: &str) -> Result<(), String> {
        match &self.target {
            Target::NoStdout => Ok(()),
            Target::Stdout(file) => {
                let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                match file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    Err(e) => Err(format!("cannot write the report to stdout: {e}")),
                    Ok(()) => Ok(()),
                }
            }
            Target::File(output) => report::write_report_file(&output.target, text).map_err(|e| {
                format!(
                    "cannot write the report to {}: {e}",
                    escape_line(&output.given.display().to_string())
                )
            }),
        }
    }
}

/// What `run` reads that an output must not replace: the jars and other files of its class
/// path, and the ignore files.
fn run_inputs(args: &RunArgs) -> Vec<&Path> {
    args.classpath
        .iter()
        .map(Path::new)
        .filter(|entry| entry.is_file())
        .chain(args.ignores.ignore_file.iter().map(PathBuf::as_path))
        .collect()
}

/// The built-in rules (unless --no-builtin-ignores), then the project's `heapgrowth-ignore.txt` in
/// the current directory, then --ignore-file's, then --ignore's.
fn ignore_rules(args: &IgnoreArgs) -> Result<Vec<IgnoreRule>, String> {
    let mut rules = if args.no_builtin_ignores {
        Vec::new()
    } else {
        IgnoreRule::built_in()
    };
    rules.extend(settings::ignore_file_rules(
        Path::new("."),
        &args.ignore_file,
    )?);
    for rule in &args.ignore {
        rules.push(
            IgnoreRule::parse(rule, RuleOrigin::User("--ignore".into()))
                .map_err(|e| format!("--ignore {rule:?}: {e}"))?,
        );
    }
    Ok(rules)
}
