//! Heap dumps against the test JVM's shutdown: the shutdown hook (`NativeEngine.closing()`)
//! closes the [`DumpGate`], after which no heap dump starts, waits for the one being written and
//! deletes every private directory of this process. A cancelled CI build sends SIGTERM or SIGHUP
//! to the test JVM, which then runs its shutdown hooks and exits: no Rust destructor runs to
//! delete the dumps a search was taking.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::jvm::JvmError;
use crate::tempdir::{self, PrivateTempDir};

/// How long the shutdown hook waits for a heap dump being written. A CI runner that cancels a
/// build sends SIGKILL soon after SIGTERM (GitHub Actions 2.5 s after, `docker stop` 10 s), and
/// a hook still waiting then deletes nothing; two seconds covers the dump of a test JVM's heap
/// of several hundred megabytes. After them the directory is deleted anyway, which is still
/// safe: the file's name goes at once (the JVM writes the rest into an unlinked file that
/// vanishes with the process) and a dump that has not opened its file yet cannot create it in a
/// directory that is gone. Waiting only spares the JVM writing into a deleted file.
pub(super) const SHUTDOWN_DUMP_WAIT: Duration = Duration::from_secs(2);

/// Why no heap dump is taken once the JVM is shutting down: the search fails with this.
const CLOSING_REASON: &str = "the test JVM is shutting down (SIGTERM, SIGHUP, Ctrl-C or \
    System.exit): heapgrowth takes no more heap dumps and has deleted the ones it took";

/// What the shutdown hook (`NativeEngine.closing()`) and the searches of this JVM agree on:
/// whether the JVM is closing and how many heap dumps are being written. One lock for both, so
/// a dump either starts before the hook closes the gate (and the hook waits for it) or sees the
/// gate closed and does not start.
///
/// The hook thread waits in native code, where it does not keep the JVM from reaching a
/// safepoint, so the dump (a VM operation) finishes while it waits; the lock is never held
/// while Java code runs, and the wait is bounded.
pub(super) struct DumpGate {
    state: Mutex<GateState>,
    /// Signalled each time a dump ends.
    dump_ended: Condvar,
}

struct GateState {
    closing: bool,
    in_progress: u32,
}

/// The gate of this process: one JVM, one shutdown.
pub(super) static DUMPS: DumpGate = DumpGate::new();

/// What the shutdown hook found when it closed the gate.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DumpsAtClose {
    /// No dump was being written.
    None,
    /// The dumps being written finished within the wait (and were deleted).
    Finished,
    /// A dump was still being written when the wait ended; its directory was deleted anyway.
    StillRunning,
}

impl DumpGate {
    const fn new() -> DumpGate {
        DumpGate {
            state: Mutex::new(GateState {
                closing: false,
                in_progress: 0,
            }),
            dump_ended: Condvar::new(),
        }
    }

    /// Locks the gate, also after a panic elsewhere poisoned it: each critical section leaves
    /// the two fields consistent.
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new private directory for one search's heap dumps, unless the JVM is closing. Created
    /// under the gate's lock, so the hook's deletion, which runs under it too, cannot miss it.
    pub(super) fn dump_directory(&self) -> Result<PrivateTempDir, String> {
        let gate = self.lock();
        if gate.closing {
            return Err(format!("heapgrowth cannot start: {CLOSING_REASON}"));
        }
        let dir = PrivateTempDir::new("dumps")
            .map_err(|e| format!("cannot create a private directory for heap dumps: {e}"))?;
        drop(gate);
        Ok(dir)
    }

    /// Whether the shutdown hook has closed the gate.
    pub(super) fn is_closing(&self) -> bool {
        self.lock().closing
    }

    /// Counts a dump to `path` as being written, unless the JVM is closing.
    pub(super) fn begin_dump(&self, path: &Path) -> Result<DumpInProgress<'_>, JvmError> {
        let mut gate = self.lock();
        if gate.closing {
            return Err(JvmError::HeapDumpFailed {
                reason: CLOSING_REASON.into(),
            });
        }
        gate.in_progress += 1;
        Ok(DumpInProgress {
            gate: self,
            path: path.to_path_buf(),
            counted: true,
        })
    }

    /// Closes the gate: no dump starts after this; waits up to `wait` for the dumps being
    /// written, then runs `delete_all` ([`tempdir::delete_all_now`] in the JVM) under the lock,
    /// so that a search which has not made its directory yet finds the gate closed.
    pub(super) fn close(&self, wait: Duration, delete_all: impl FnOnce()) -> DumpsAtClose {
        let mut gate = self.lock();
        gate.closing = true;
        let found = if gate.in_progress == 0 {
            DumpsAtClose::None
        } else {
            let (waited, timeout) = self
                .dump_ended
                .wait_timeout_while(gate, wait, |gate| gate.in_progress > 0)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            gate = waited;
            if timeout.timed_out() {
                DumpsAtClose::StillRunning
            } else {
                DumpsAtClose::Finished
            }
        };
        delete_all();
        drop(gate);
        found
    }
}

/// A heap dump being written, counted in its [`DumpGate`] until [`finish`](Self::finish)ed or
/// dropped.
pub(super) struct DumpInProgress<'g> {
    gate: &'g DumpGate,
    path: PathBuf,
    counted: bool,
}

impl DumpInProgress<'_> {
    /// The dump has returned. If the JVM started closing meanwhile, the file is deleted at once
    /// (it holds every secret in the heap and nothing will read it) and the search fails.
    pub(super) fn finish(mut self) -> Result<(), JvmError> {
        if self.end() {
            return Err(JvmError::HeapDumpFailed {
                reason: CLOSING_REASON.into(),
            });
        }
        Ok(())
    }

    /// Uncounts the dump (once), deleting its file first if the JVM is closing; returns
    /// whether it is.
    fn end(&mut self) -> bool {
        let mut gate = self.gate.lock();
        if gate.closing {
            // Before uncounting: the hook deletes the directory only once no dump is counted.
            let _ = std::fs::remove_file(&self.path);
        }
        if self.counted {
            self.counted = false;
            gate.in_progress -= 1;
            self.gate.dump_ended.notify_all();
        }
        gate.closing
    }
}

impl Drop for DumpInProgress<'_> {
    /// A dump abandoned by an early return or a panic must not keep the hook waiting.
    fn drop(&mut self) {
        self.end();
    }
}

/// The message of a search that failed: once the JVM is closing, the shutdown is the cause (the
/// hook deleted the dump a search was still reading, so the error it saw was "No such file"),
/// and the message says so before what the search saw.
pub(super) fn failure_message(gate: &DumpGate, error: String) -> String {
    if gate.is_closing() {
        format!("{CLOSING_REASON}; the search stopped with: {error}")
    } else {
        error
    }
}

/// `NativeEngine.closing()`: closes the gate of this process, deletes the dumps and says on
/// stderr what it found.
pub(super) fn close_at_shutdown() {
    match DUMPS.close(SHUTDOWN_DUMP_WAIT, tempdir::delete_all_now) {
        DumpsAtClose::None => {}
        DumpsAtClose::Finished => eprintln!(
            "heapgrowth: the JVM is shutting down: waited for the heap dump in progress and \
             deleted it"
        ),
        DumpsAtClose::StillRunning => eprintln!(
            "heapgrowth: the JVM is shutting down: a heap dump still running after {} s was \
             deleted while being written",
            SHUTDOWN_DUMP_WAIT.as_secs()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 11: SIGTERM or SIGHUP while a dump is written must not leave the dump.
    #[test]
    fn closing_waits_for_the_dump_being_written_deletes_it_and_lets_no_dump_start() {
        let gate = DumpGate::new();
        let dir = PrivateTempDir::new("test").unwrap();
        let file = dir.path().join("snapshot-1.hprof");
        let dump = gate.begin_dump(&file).unwrap();
        let (found, finished) = std::thread::scope(|scope| {
            // The JVM creates the file, and is still writing it when the hook closes the gate.
            std::fs::write(&file, b"every secret").unwrap();
            let writer = scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(&file, b"every secret in the heap").unwrap();
                dump.finish()
            });
            std::thread::sleep(Duration::from_millis(20));
            let found = gate.close(Duration::from_secs(30), || {
                assert!(!file.exists(), "deleting before the dump returned");
            });
            (found, writer.join().unwrap())
        });
        assert_eq!(found, DumpsAtClose::Finished);
        let error = finished.unwrap_err().to_string();
        assert!(error.contains("the test JVM is shutting down"), "{error}");
        assert!(!file.exists(), "the dump finished after closing stayed");
        assert!(gate.begin_dump(&file).is_err());
        assert!(gate.dump_directory().unwrap_err().contains("shutting down"));
    }

    #[test]
    fn closing_stops_waiting_for_a_dump_that_does_not_return_and_deletes_anyway() {
        let gate = DumpGate::new();
        let dump = gate
            .begin_dump(Path::new("/nonexistent/snapshot-1.hprof"))
            .unwrap();
        let mut deleted = false;
        let found = gate.close(Duration::from_millis(50), || deleted = true);
        assert_eq!((found, deleted), (DumpsAtClose::StillRunning, true));
        drop(dump);
        assert_eq!(gate.lock().in_progress, 0);
        let mut deleted_again = false;
        assert_eq!(
            gate.close(Duration::from_secs(30), || deleted_again = true),
            DumpsAtClose::None
        );
        assert!(deleted_again);
    }

    // A test JVM killed while a search read its last dump: the hook deleted the file under the
    // reader, whose "No such file" alone would hide the cause.
    #[test]
    fn a_search_failing_after_the_gate_closed_names_the_shutdown_first() {
        let gate = DumpGate::new();
        let unreadable = "cannot read heap dump snapshot-3.hprof: No such file or directory";
        assert_eq!(failure_message(&gate, unreadable.into()), unreadable);
        gate.close(Duration::ZERO, || {});
        let message = failure_message(&gate, unreadable.into());
        assert!(
            message.starts_with("the test JVM is shutting down"),
            "{message}"
        );
        assert!(
            message.ends_with(&format!("the search stopped with: {unreadable}")),
            "{message}"
        );
    }
}
