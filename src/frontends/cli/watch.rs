//! `heapgrowth watch`: a running JVM, attached to, and what it says along the way.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::args::WatchArgs;
use super::reporting::{say, Reporting};
use crate::line::escape_line;
use crate::report::EXIT_ERROR;
use crate::settings::{SettingsRequest, Source};

pub(super) fn watch(args: WatchArgs) -> ExitCode {
    use crate::watch::{self, ConfirmationDue, Pace, WatchEvent, WatchOptions};
    let inputs: Vec<&Path> = args
        .ignores
        .ignore_file
        .iter()
        .map(PathBuf::as_path)
        .collect();
    let mut request = SettingsRequest::command_line();
    let prepared =
        Reporting::new(&args.output, &inputs, request.unmatched()).and_then(|reporting| {
            let attribution = (!args.no_attribution).to_string();
            request
                .set(Source::CommandLine, "attribution", attribution)
                .and_then(|()| args.ignores.give(&mut request))
                .and_then(|()| request.resolve())
                .map_err(|e| e.to_string())
                .map(|settings| (reporting, settings))
        });
    let (reporting, settings) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    // Ctrl-C ends the watch with its report; a second one quits at once.
    crate::tempdir::stop_on_first_interrupt();
    let options = WatchOptions {
        pid: args.pid,
        pace: if args.every.is_some() {
            Pace::Periodic
        } else {
            Pace::Interactive
        },
        class_gate: !args.dump_every_interval,
        trend: if args.jfr {
            crate::growth::ClassTrendConfig::old_object_samples()
        } else {
            Default::default()
        },
        settings: settings.search,
        attach: Default::default(),
        attribution: settings.attribution,
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
        WatchEvent::AwaitingSamples { at_most } => say(format_args!(
            "growth confirmed; allocation sampling has no live object of a growing node's classes \
             yet: waiting up to {at_most} more intervals for its first samples"
        )),
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
        crate::jfr_watch::watch_old_objects(&options, ticks.as_mut(), &mut events)
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
