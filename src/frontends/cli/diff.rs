//! `heapgrowth diff`: the growth search over heap dumps that already exist.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::args::{ignore_rules, DiffArgs};
use super::reporting::{say, Reporting};
use crate::engine::{self, EngineError, SearchSettings};
use crate::report::EXIT_ERROR;

pub(super) fn diff(args: DiffArgs) -> ExitCode {
    let prepared = crate::diff::check_dumps(&args.dumps, args.loops.as_deref())
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let mut inputs: Vec<&Path> = args.dumps.iter().map(PathBuf::as_path).collect();
            inputs.extend(args.ignores.ignore_file.iter().map(PathBuf::as_path));
            let reporting = Reporting::new(&args.output, &inputs)?;
            let ignore_rules = ignore_rules(&args.ignores)?;
            for warning in crate::diff::order_warnings(&args.dumps) {
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
    let result = crate::diff::diff(&args.dumps, loops, &settings, &progress)
        .map(|report| vec![report])
        .map_err(EngineError::TempDir);
    ExitCode::from(reporting.finish(result))
}
