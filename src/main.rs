//! The `heapgrowth` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use heapgrowth::engine::{self, LoopSettings, RunOptions};
use heapgrowth::growth::{
    SearchConfig, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
};
use heapgrowth::jvm::JvmOptions;
use heapgrowth::report;

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
    /// Loops between snapshots.
    #[arg(long, default_value_t = DEFAULT_LOOPS_PER_SNAPSHOT)]
    loops_per_snapshot: u32,
    /// Snapshots before confirmation (growth is then confirmed over 2 more).
    #[arg(long, default_value_t = DEFAULT_MAX_SNAPSHOTS)]
    max_snapshots: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Skip attribution (the loops run again with recorders to find the code that grows each
    /// node); the report's attribution is then null.
    #[arg(long)]
    no_attribution: bool,
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
    let options = RunOptions {
        attribution: !args.no_attribution,
        loops: LoopSettings {
            warmup: args.warmup,
            search: SearchConfig {
                loops_per_snapshot: args.loops_per_snapshot,
                max_snapshots: args.max_snapshots,
            },
        },
        ..RunOptions::new(
            JvmOptions {
                java_home: args.java_home,
                classpath: args.classpath,
                jvm_args: args.jvm_args,
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
        Format::Text => print!("{}", report::render_text(&reports)),
        Format::Json => println!("{}", report::to_json(&reports)),
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
