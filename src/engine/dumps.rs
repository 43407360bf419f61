//! Which heap dumps a search keeps ([`DumpPolicy`]), and where a front end moves them once it
//! knows whether the scenario failed. Dumps hold every secret in the heap: by default each is
//! deleted once read.

use std::collections::VecDeque;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::line::escape_line;
use crate::report::ScenarioReport;

/// A dump that has been read: deleted, as it holds every secret in the heap, unless it is one
/// of the latest `limit`.
pub(super) fn done_with(path: PathBuf, limit: usize, kept: &mut VecDeque<PathBuf>) {
    if limit == 0 {
        let _ = std::fs::remove_file(&path);
        return;
    }
    kept.push_back(path);
    while kept.len() > limit {
        if let Some(old) = kept.pop_front() {
            let _ = std::fs::remove_file(old);
        }
    }
}

/// Which heap dumps of a search a front end keeps (`--keep-dumps`, `keepDumps`,
/// [`Harness::keep_dumps`](crate::harness::Harness::keep_dumps)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DumpPolicy {
    /// Every dump is deleted once read (the default: dumps hold every secret in the heap).
    #[default]
    Never,
    /// The last two dumps of a failing scenario are kept, owner-only.
    Failed,
    /// Every dump of every scenario is kept, whatever it found (to diff them later, or open
    /// them in another tool).
    All,
}

/// The name the front ends used before [`DumpPolicy`].
pub type KeepDumps = DumpPolicy;

impl DumpPolicy {
    /// Every policy, in the order the command line lists them.
    pub const ALL: [DumpPolicy; 3] = [DumpPolicy::Never, DumpPolicy::Failed, DumpPolicy::All];

    /// The word that chooses it (`--keep-dumps failed`, `heapgrowth.keepDumps=failed`).
    pub const fn name(self) -> &'static str {
        match self {
            DumpPolicy::Never => "never",
            DumpPolicy::Failed => "failed",
            DumpPolicy::All => "all",
        }
    }

    /// How many of the latest dumps a search keeps in its private directory.
    pub fn kept_per_search(self) -> usize {
        match self {
            DumpPolicy::Never => 0,
            DumpPolicy::Failed => KEPT_DUMPS,
            DumpPolicy::All => usize::MAX,
        }
    }

    /// Whether the dumps a search kept are moved out of the private directory, for a scenario
    /// that failed (grew, or could not be searched) or not.
    pub fn moves(self, failed: bool) -> bool {
        match self {
            DumpPolicy::Never => false,
            DumpPolicy::Failed => failed,
            DumpPolicy::All => true,
        }
    }
}

/// How many dumps `keepDumps = failed` keeps: the last two, between which the growth was seen.
pub(super) const KEPT_DUMPS: usize = 2;

/// What a front end does with the dumps a search kept
/// ([`SearchSettings::keep_dumps`](super::SearchSettings::keep_dumps)) once it knows whether to
/// keep them: moved into `keep_in` (owner-only, one directory per scenario), or else deleted
/// now, so that the report names no dump that is gone with the private directory.
pub fn settle_kept_dumps(report: &mut ScenarioReport, keep_in: Option<&Path>) {
    match keep_in {
        Some(dir) => keep_dumps(report, dir),
        None => {
            for dump in report.kept_dumps.drain(..) {
                let _ = std::fs::remove_file(dump);
            }
        }
    }
}

/// Moves the dumps a search kept
/// ([`SearchSettings::keep_dumps`](super::SearchSettings::keep_dumps)) out of the private
/// directory into `dir/<scenario>/`, owner-only (directory 0700, files 0600), and records where
/// in [`ScenarioReport::kept_dumps`], or why not in [`ScenarioReport::dumps_not_kept`] (those
/// not moved go with the private directory).
pub(super) fn keep_dumps(report: &mut ScenarioReport, dir: &Path) {
    match move_kept_dumps(&report.kept_dumps, dir, &report.scenario) {
        Ok(moved) => report.kept_dumps = moved,
        Err(error) => {
            // Those not moved go with the private directory.
            report.kept_dumps.clear();
            report.dumps_not_kept = Some(error);
        }
    }
}

fn move_kept_dumps(kept: &[PathBuf], dir: &Path, scenario: &str) -> Result<Vec<PathBuf>, String> {
    if kept.is_empty() {
        return Ok(Vec::new());
    }
    let target = dir.join(unused_dir_name(dir, &file_name_of(scenario)));
    let fail = |e: std::io::Error| {
        format!(
            "cannot keep the heap dumps in {}: {e}",
            escape_line(&target.display().to_string())
        )
    };
    // The directory may be shared (`/tmp/dumps`): the scenario's own is made exclusively and
    // checked, so that no link another user planted there takes the dumps elsewhere.
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned());
    crate::output::private_dir_in(dir, &name.unwrap_or_default()).map_err(fail)?;
    let mut moved = Vec::new();
    // Numbers as wide as the last one, so that a shell's `*.hprof` lists them in order.
    let width = kept.len().to_string().len();
    for (number, path) in kept.iter().enumerate() {
        let to = target.join(format!("snapshot-{:0width$}.hprof", number + 1));
        // A rename keeps the file's 0600; across file systems, copy with the same mode.
        if std::fs::rename(path, &to).is_err() {
            let _ = std::fs::remove_file(&to);
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&to)
                .map_err(fail)?;
            let mut from = std::fs::File::open(path).map_err(fail)?;
            std::io::copy(&mut from, &mut out).map_err(fail)?;
            let _ = std::fs::remove_file(path);
        }
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
        moved.push(to);
    }
    Ok(moved)
}

/// `name`, or `name-2`, `name-3`, ...: the first that is not a directory already holding
/// something in `dir`. The same scenario run twice (twice in one invocation, or again the next
/// day) keeps each run's dumps beside the last's, and a run never overwrites or mixes with
/// the dumps of another. Anything else under the name (a link, a file) is left for
/// [`crate::output::private_dir_in`] to refuse.
pub(super) fn unused_dir_name(dir: &Path, name: &str) -> String {
    let holds_something = |candidate: &str| {
        let path = dir.join(candidate);
        std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_dir())
            && std::fs::read_dir(&path).map_or(true, |mut entries| entries.next().is_some())
    };
    let mut candidate = name.to_owned();
    let mut number = 1;
    while holds_something(&candidate) && number < MAX_RUNS_KEPT_UNDER_ONE_NAME {
        number += 1;
        candidate = format!("{name}-{number}");
    }
    candidate
}

/// Runs of one scenario whose dumps [`unused_dir_name`] keeps apart; past that, the last name
/// is reused (and the dumps there replaced), so a name never grows without end.
const MAX_RUNS_KEPT_UNDER_ONE_NAME: u32 = 1000;

/// `name` as one file name: path separators and control characters replaced.
fn file_name_of(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}
