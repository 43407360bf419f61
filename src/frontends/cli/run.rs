//! `heapgrowth run`: scenarios in loops, in a JVM this process starts.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::args::{KeepDumps, RunArgs};
use super::reporting::{say, Reporting};
use crate::engine::{self, RunOptions};
use crate::jvm::JvmOptions;
use crate::report::EXIT_ERROR;
use crate::settings::{SettingError, SettingsRequest, Source};

pub(super) fn run(args: RunArgs) -> ExitCode {
    let mut request = match request(&args) {
        Ok(request) => request,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    // Every path the run writes is checked before the JVM starts.
    let checked = Reporting::new(&args.output, &run_inputs(&args), request.unmatched()).and_then(
        |reporting| {
            let keep_dumps_dir = match args.keep_dumps {
                KeepDumps::Never => None,
                KeepDumps::Failed | KeepDumps::All => Some(
                    crate::output::check_dir("--keep-dumps-dir", &args.keep_dumps_dir)
                        .map_err(|e| e.to_string())?,
                ),
            };
            Ok((Arc::new(reporting), keep_dumps_dir))
        },
    );
    let (reporting, keep_dumps_dir) = match checked {
        Ok(checked) => checked,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let settings = keep_dumps_dir
        .map_or(Ok(()), |dir| {
            request.set(Source::CommandLine, "keep_dumps_dir", dir)
        })
        .and_then(|()| request.resolve());
    let settings = match settings {
        Ok(settings) => settings,
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
        attribution: settings.attribution,
        settings: settings.search,
        keep_dumps_in: settings.keep_dumps_dir,
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

/// The run's settings as the command line gives them: clap has checked each value, so only
/// the ignore rules and files can be wrong, and the request says so when it resolves.
fn request(args: &RunArgs) -> Result<SettingsRequest, SettingError> {
    let mut request = SettingsRequest::command_line();
    let from = Source::CommandLine;
    request.set(from, "warmup", args.warmup.to_string())?;
    request.set(
        from,
        "loops_per_snapshot",
        args.loops_per_snapshot.to_string(),
    )?;
    request.set(from, "max_snapshots", args.max_snapshots.to_string())?;
    request.set(from, "confirm_loops", args.confirm_loops.to_string())?;
    request.set(from, "time_budget", args.time_budget.to_string())?;
    request.set(from, "jfr", args.jfr.to_string())?;
    request.set(from, "keep_dumps", args.keep_dumps.policy().name())?;
    request.set(from, "attribution", (!args.no_attribution).to_string())?;
    args.ignores.give(&mut request)?;
    Ok(request)
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
