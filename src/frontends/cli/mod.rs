//! The `heapgrowth` command line: `run`, `diff` and `watch`, their arguments, and the report
//! each writes. The binary (`src/main.rs`) holds only the allocator and calls [`main`].

mod args;
mod diff;
mod reporting;
mod run;
mod watch;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use args::{DiffArgs, RunArgs, WatchArgs};
use reporting::say;

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

/// The command line as clap sees it: the settings table's test checks its flags and defaults.
#[cfg(test)]
pub(crate) fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// The command line's `main`: parses the arguments, runs the command, and gives its exit
/// status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = crate::tempdir::install_interrupt_cleanup() {
        // Not fatal: dumps are still deleted on every exit but Ctrl-C.
        say(format_args!(
            "warning: cannot install the Ctrl-C handler that deletes heap dumps: {error}"
        ));
    }
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Diff(args) => diff::diff(args),
        Command::Watch(args) => watch::watch(args),
    }
}
