//! `heapgrowth diff`: the growth search over heap dumps that already exist, in the order given
//! (taken by hand with `jcmd GC.heap_dump`, by a test suite, by Android Studio).
//!
//! The dumps are a [`SnapshotSource`] like any other: the reader, the model, the search and
//! the report are those of `heapgrowth run`. What a dump cannot say is the code that grew it,
//! so the report says once that nothing is attributed, and why.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::engine::{
    search_source, Advance, Progress, ScenarioError, SearchSettings, Snapshot, SnapshotSource,
};
use crate::growth::{ConfirmationCut, SearchConfig, MAX_SNAPSHOTS_PER_SEARCH};
use crate::line::escape_line;
use crate::report::{LoopUnit, ScenarioReport, Subject};
use crate::tempdir::PrivateTempDir;

/// Why `diff` has nothing to attribute with, said once in its report.
pub const NOT_ATTRIBUTED: &str = "heap dumps hold the objects, not the code that made them; run \
     the scenario with `heapgrowth run` or the JUnit extension to name the lines that grow each \
     node";

/// The fewest dumps a diff takes: a path must set a new high at two dumps after the first, so
/// that one step of noise (a cleaner's list that was a little longer at the second dump) is not
/// reported.
pub const MIN_DUMPS: usize = 3;

/// The first bytes of every HPROF file (`JAVA PROFILE 1.0.x`).
const HPROF_MAGIC: &[u8] = b"JAVA PROFILE 1.0.";

/// Dumps that cannot be diffed, found before any is read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// Fewer than [`MIN_DUMPS`], or more than the search takes.
    #[error(
        "diff needs {MIN_DUMPS} to {MAX_SNAPSHOTS_PER_SEARCH} heap dumps, oldest first, got {0}: \
         what grows between two dumps alone cannot be told from a live heap's noise (a cleaner's \
         queue, a cache warming up)"
    )]
    DumpCount(usize),
    /// A dump given twice.
    #[error("{0} is given twice: each dump is one snapshot, oldest first")]
    Repeated(String),
    /// A dump that cannot be opened.
    #[error("cannot read heap dump {path}: {source}")]
    Unreadable {
        /// The path given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// `--loops` that don't fit the dumps.
    #[error(
        "--loops must give one count per dump ({dumps} here), each larger than the one before"
    )]
    Loops {
        /// How many dumps were given.
        dumps: usize,
    },
    /// A file that is not an HPROF heap dump.
    #[error("{0} is not an HPROF heap dump (it does not start with \"JAVA PROFILE 1.0.\")")]
    NotHprof(String),
}

/// Checks that `dumps` can be diffed: [`MIN_DUMPS`] to [`MAX_SNAPSHOTS_PER_SEARCH`] distinct files, each
/// readable and starting as an HPROF dump. Checked up front, so that a typo in the last name
/// does not cost the reading of all the others.
/// `loops`, when given, are the scenario's loops (repetitions) done by the time of each dump.
pub fn check_dumps(dumps: &[PathBuf], loops: Option<&[u32]>) -> Result<(), DiffError> {
    if !(MIN_DUMPS..=MAX_SNAPSHOTS_PER_SEARCH as usize).contains(&dumps.len()) {
        return Err(DiffError::DumpCount(dumps.len()));
    }
    if let Some(loops) = loops {
        if loops.len() != dumps.len() || loops.windows(2).any(|pair| pair[0] >= pair[1]) {
            return Err(DiffError::Loops { dumps: dumps.len() });
        }
    }
    let mut seen: Vec<(u64, u64)> = Vec::new();
    for path in dumps {
        let shown = || escape_line(&path.display().to_string());
        let unreadable = |source| DiffError::Unreadable {
            path: shown(),
            source,
        };
        // Opened without blocking and looked at before a byte is read: a FIFO would block
        // the read for ever, a device would be read without end, a directory cannot be.
        let mut file = crate::hprof::open_regular_file(path).map_err(unreadable)?;
        let meta = file.metadata().map_err(unreadable)?;
        let mut head = [0u8; HPROF_MAGIC.len()];
        let read = file.read(&mut head).map_err(unreadable)?;
        if read < head.len() || head != HPROF_MAGIC {
            return Err(DiffError::NotHprof(shown()));
        }
        // By device and inode: a hard link or a symbolic link to a dump given before is the
        // same dump.
        let id = (meta.dev(), meta.ino());
        if seen.contains(&id) {
            return Err(DiffError::Repeated(shown()));
        }
        seen.push(id);
    }
    Ok(())
}

/// Warnings about the order of `dumps`: a dump older (by modification time) than one given
/// before it, as a shell's `*.hprof` gives `dump-10` before `dump-9`. Dumps are read in the
/// order given; this only says when that looks unintended.
pub fn order_warnings(dumps: &[PathBuf]) -> Vec<String> {
    let modified = |path: &PathBuf| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    dumps
        .windows(2)
        .filter_map(|pair| match (modified(&pair[0]), modified(&pair[1])) {
            (Some(earlier), Some(later)) if later < earlier => Some(format!(
                "{} is older than {}, which is given before it: dumps are read in the order \
                 given, oldest first",
                escape_line(&pair[1].display().to_string()),
                escape_line(&pair[0].display().to_string())
            )),
            _ => None,
        })
        .collect()
}

/// Search settings for dumps taken as they come: every dump is a detection snapshot, and a
/// candidate is confirmed by the dumps after it, by the same rules as in a run (a candidate
/// must gain at least [`crate::growth::MIN_CONFIRMATION_GROWTH`] objects at each: a tree
/// that churns gains one now and then, a leak between two dumps far more).
pub fn settings_for(dump_count: usize, base: &SearchSettings) -> SearchSettings {
    SearchSettings {
        search: SearchConfig {
            loops_per_snapshot: 1,
            max_snapshots: dump_count.clamp(2, MAX_SNAPSHOTS_PER_SEARCH as usize) as u32,
            confirm_loops: 0,
        },
        ..base.clone()
    }
}

/// The growth search over `dumps`, oldest first (check them with [`check_dumps`] first). The
/// dumps are read in place and never deleted or changed; `base`'s ignore rules apply, its loops
/// and time budget don't.
///
/// `loops` are the scenario's loops done by each dump, when known (dumps that `heapgrowth run`
/// kept: its report lists them). Whether a candidate keeps its pace, or slows down as a bound
/// fills, is judged per loop; without them the dumps count as equally far apart (dumps taken
/// after the same number of repetitions each, or at a fixed interval under steady load).
///
/// While it reads, SIGBUS ends the process with one line and exit status 2 (a dump another
/// program truncated under the mapping): call it only in a process without a JVM, as
/// `heapgrowth diff` does.
pub fn diff(
    dumps: &[PathBuf],
    loops: Option<&[u32]>,
    base: &SearchSettings,
    progress: &Progress,
) -> std::io::Result<ScenarioReport> {
    let settings = settings_for(dumps.len(), base);
    // Nothing is written there; the engine's loop wants a place for new dumps all the same.
    let unused = PrivateTempDir::new("diff")?;
    let _shrunk = ExitIfADumpShrinks::install(unused.path());
    let mut source = GivenDumps {
        dumps,
        loops,
        next: 0,
    };
    Ok(search_source(
        &mut source,
        &report_name(dumps),
        &settings,
        unused.path(),
        progress,
    ))
}

/// The report's name for a diff: the first and last dumps' file names.
fn report_name(dumps: &[PathBuf]) -> String {
    let name = |path: &Path| {
        path.file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string())
    };
    match dumps {
        [first, .., last] => format!("{} to {}", name(first), name(last)),
        _ => "no dumps".into(),
    }
}

/// The dumps of a diff, in order: the position of the `n`th dump is `n`, or its loops.
struct GivenDumps<'a> {
    dumps: &'a [PathBuf],
    loops: Option<&'a [u32]>,
    next: usize,
}

impl SnapshotSource for GivenDumps<'_> {
    fn subject(&self) -> Subject {
        Subject::HeapDumps
    }

    fn unit(&self) -> LoopUnit {
        match self.loops {
            Some(_) => LoopUnit::Loops,
            None => LoopUnit::Dumps,
        }
    }

    fn position(&self) -> u32 {
        match self.loops {
            Some(loops) => loops[self.next],
            None => self.next as u32 + 1,
        }
    }

    fn take_snapshot(&mut self, _new_dump: &Path) -> Result<Snapshot, ScenarioError> {
        Ok(Snapshot::Existing(self.dumps[self.next].clone()))
    }

    fn advance(&mut self, _requested: u32) -> Result<Advance, ScenarioError> {
        self.next += 1;
        // The search asks for more only while something is unconfirmed: a cut then is one.
        Ok(if self.next == self.dumps.len() {
            Advance::End(ConfirmationCut::DumpsRanOut)
        } else {
            Advance::Ready
        })
    }

    fn reads_to_the_end(&self) -> bool {
        true
    }

    fn not_attributed(&self) -> Option<String> {
        Some(NOT_ATTRIBUTED.into())
    }

    fn writes_dumps(&self) -> bool {
        false
    }
}

/// The message [`ExitIfADumpShrinks`] writes, and the directory it removes, made before the
/// handler is installed: a signal handler may only read them.
static ON_SHRUNK: std::sync::OnceLock<(Vec<u8>, std::ffi::CString)> = std::sync::OnceLock::new();

/// While it lives, a dump that shrinks under its mapping (truncated by another process while
/// `diff` reads it in place) ends the process with one line and exit status 2, instead of the
/// kernel's SIGBUS (exit 135, nothing said). Reads of a mapping past the end of its file raise
/// SIGBUS; checking every read instead would cost the reader on every record. The process
/// ends in the handler: the graph of a dump that changed under it means nothing. `diff` runs
/// no JVM in its process, so the handler is the process's own (a JVM uses SIGBUS itself).
struct ExitIfADumpShrinks {
    previous: libc::sigaction,
}

impl ExitIfADumpShrinks {
    /// Installs the handler; `private_dir` (empty: `diff` writes nothing there) is removed
    /// before the exit.
    fn install(private_dir: &Path) -> Option<ExitIfADumpShrinks> {
        use std::os::unix::ffi::OsStrExt;
        ON_SHRUNK.get_or_init(|| {
            let message = b"heapgrowth: a heap dump became shorter while it was read (another \
                program truncated or rewrote it): diff reads dumps in place; copy them first if \
                something else may write them\n"
                .to_vec();
            let dir =
                std::ffi::CString::new(private_dir.as_os_str().as_bytes()).unwrap_or_default();
            (message, dir)
        });
        // Safety: `on_sigbus` only calls async-signal-safe functions (write, rmdir, _exit) on
        // data fixed before it was installed; `action` is fully initialised (zeroed, then its
        // handler, mask and flags set).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            (libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0)
                .then_some(ExitIfADumpShrinks { previous })
        }
    }
}

impl Drop for ExitIfADumpShrinks {
    fn drop(&mut self) {
        // Safety: restores the action saved by `install`.
        unsafe { libc::sigaction(libc::SIGBUS, &self.previous, std::ptr::null_mut()) };
    }
}

/// Set by the first thread in [`on_sigbus`]: the reader's threads fault together.
static SHRUNK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_sigbus(_signal: libc::c_int) {
    if SHRUNK.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // Another thread says it and ends the process; returning would fault again.
        loop {
            // Safety: pause has no preconditions.
            unsafe { libc::pause() };
        }
    }
    if let Some((message, dir)) = ON_SHRUNK.get() {
        // Safety: write, rmdir and _exit are async-signal-safe; the buffers live for ever.
        unsafe {
            libc::write(libc::STDERR_FILENO, message.as_ptr().cast(), message.len());
            libc::rmdir(dir.as_ptr());
        }
    }
    // Safety: `_exit` has no preconditions; it ends the process at once.
    unsafe { libc::_exit(2) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 33: a diff's loop started a dump follower that polled its private directory
    /// for a `snapshot-N.hprof` that never comes, every millisecond, while it read the dumps.
    #[test]
    fn a_diff_starts_no_follower_for_dumps_nobody_writes() {
        let dumps = [PathBuf::from("a.hprof"), PathBuf::from("b.hprof")];
        let source = GivenDumps {
            dumps: &dumps,
            loops: None,
            next: 0,
        };
        let unused = PrivateTempDir::new("test").unwrap();
        let new_dump = unused.path().join("snapshot-1.hprof");
        assert!(crate::engine::follower_for(&source, &new_dump, Some(1_000)).is_none());
    }
}
