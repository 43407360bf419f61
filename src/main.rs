//! The `heapgrowth` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use heapgrowth::engine::{self, RunOptions, SearchSettings};
use heapgrowth::growth::{
    IgnoreRule, RuleOrigin, SearchConfig, DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT,
    DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
};
use heapgrowth::jvm::JvmOptions;
use heapgrowth::report::{self, StackDepth};

/// Exit status when nothing grows.
const EXIT_NO_GROWTH: u8 = 0;
/// Exit status when something grows.
const EXIT_GROWTH: u8 = 1;
/// Exit status on any error.
const EXIT_ERROR: u8 = 2;

#[derive(Parser)]
#[command(
    name = "heapgrowth",
    version,
    about = "Finds JVM memory that grows with every loop of a scenario"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios in loops and report the objects that grow with every loop.
    Run(RunArgs),
}

#[derive(Parser)]
struct RunArgs {
    /// Directories and jars with the scenario classes (repeat the flag, or separate with ':').
    #[arg(long, required = true, value_delimiter = ':')]
    classpath: Vec<PathBuf>,
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
    /// Ignore growth on paths through a step matching PATTERN: a glob over the step's
    /// `Owner.field` (the owner with or without its package), then optionally a reason, in one
    /// argument: --ignore 'com.example.Cache.entries warms up over 2000 loops'. Repeatable.
    #[arg(long = "ignore", value_name = "PATTERN [REASON]")]
    ignore: Vec<String>,
    /// A file of ignore rules, one per line as for --ignore; `#` starts a comment line.
    #[arg(long, value_name = "FILE")]
    ignore_file: Vec<PathBuf>,
    /// Don't apply heapgrowth's built-in rules for known JDK growth (they are listed in the
    /// README); that growth is then reported like any other.
    #[arg(long)]
    no_jdk_ignores: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Skip attribution (the loops run again with recorders to find the code that grows each
    /// node); the report's attribution is then null.
    #[arg(long)]
    no_attribution: bool,
    /// Show every frame of the recorded stacks, not only those up to the line to look at.
    #[arg(long)]
    full_stacks: bool,
    /// Start the JVM without heapgrowth's JVMTI agent: attribution then only puts recording
    /// proxies in fields (which the scenario can see), as in a test JVM without -agentpath:.
    #[arg(long)]
    no_agent: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = heapgrowth::tempdir::install_interrupt_cleanup() {
        // Not fatal: dumps are still deleted on every exit but Ctrl-C.
        eprintln!("heapgrowth: warning: cannot install the Ctrl-C handler that deletes heap dumps: {error}");
    }
    match cli.command {
        Command::Run(args) => run(args),
    }
}

fn run(args: RunArgs) -> ExitCode {
    let ignore_rules = match ignore_rules(&args) {
        Ok(rules) => rules,
        Err(error) => {
            eprintln!("heapgrowth: {error}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
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
            ignore_rules,
        },
        ..RunOptions::new(
            JvmOptions {
                java_home: args.java_home,
                classpath: args.classpath,
                jvm_args: args.jvm_args,
                without_agent: args.no_agent,
                ..JvmOptions::default()
            },
            args.scenario,
        )
    };
    let reports = match engine::run(&options) {
        Ok(reports) => reports,
        Err(error) => {
            eprintln!("heapgrowth: {error}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    match args.format {
        Format::Text => {
            let depth = if args.full_stacks {
                StackDepth::Full
            } else {
                StackDepth::ToThePlaceToLook
            };
            print!("{}", report::render_text(&reports, depth))
        }
        Format::Json => println!("{}", report::to_json(&reports)),
    }
    for rule in report::unmatched_rules(&reports) {
        eprintln!(
            "heapgrowth: warning: {}",
            report::unmatched_rule_warning(rule)
        );
    }
    if let Some(failed) = reports
        .iter()
        .find_map(|r| r.result.as_ref().err().map(|e| (&r.scenario, e)))
    {
        let first_line = failed.1.lines().next().unwrap_or_default();
        eprintln!("heapgrowth: {first_line}");
        return ExitCode::from(EXIT_ERROR);
    }
    if reports.iter().any(|r| r.has_growth()) {
        ExitCode::from(EXIT_GROWTH)
    } else {
        ExitCode::from(EXIT_NO_GROWTH)
    }
}

/// The built-in rules (unless --no-jdk-ignores), then --ignore-file's, then --ignore's.
fn ignore_rules(args: &RunArgs) -> Result<Vec<IgnoreRule>, String> {
    let mut rules = if args.no_jdk_ignores {
        Vec::new()
    } else {
        IgnoreRule::known_jdk_growth()
    };
    for file in &args.ignore_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read the ignore file {}: {e}", file.display()))?;
        rules.extend(IgnoreRule::parse_file(&text, &file.display().to_string())?);
    }
    for rule in &args.ignore {
        rules.push(
            IgnoreRule::parse(rule, RuleOrigin::User("--ignore".into()))
                .map_err(|e| format!("--ignore {rule:?}: {e}"))?,
        );
    }
    Ok(rules)
}
