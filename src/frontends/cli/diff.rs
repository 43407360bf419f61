//! `heapgrowth diff`: the growth search over heap dumps that already exist.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::args::DiffArgs;
use super::reporting::{say, Reporting};
use crate::engine::{self, EngineError};
use crate::report::EXIT_ERROR;
use crate::settings::SettingsRequest;

pub(super) fn diff(args: DiffArgs) -> ExitCode {
    let prepared = crate::diff::check_dumps(&args.dumps, args.loops.as_deref())
        .map_err(|e| e.to_string())
        .and_then(|()| {
            let mut inputs: Vec<&Path> = args.dumps.iter().map(PathBuf::as_path).collect();
            inputs.extend(args.ignores.ignore_file.iter().map(PathBuf::as_path));
            let mut request = SettingsRequest::command_line();
            let reporting = Reporting::new(&args.output, &inputs, request.unmatched())?;
            args.ignores.give(&mut request).map_err(|e| e.to_string())?;
            let settings = request.resolve().map_err(|e| e.to_string())?;
            for warning in crate::diff::order_warnings(&args.dumps) {
                say(format_args!("warning: {warning}"));
            }
            Ok((reporting, settings))
        });
    let (reporting, settings) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            say(format_args!("{error}"));
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let settings = settings.search;
    let progress = engine::Progress::new(true);
    let loops = args.loops.as_deref();
    let result = crate::diff::diff(&args.dumps, loops, &settings, &progress)
        .map(|report| vec![report])
        .map_err(EngineError::TempDir);
    ExitCode::from(reporting.finish(result))
}
