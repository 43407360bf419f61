//! Private temporary directories that are deleted on drop and on Ctrl-C.
//!
//! Heap dumps hold every secret in the heap, and the extracted JVM glue (jar and agent library)
//! is code the JVM will execute, so both go into a directory only the current user can read or
//! write, with a name nobody can guess in advance, created with `mkdir`'s fail-if-exists semantics
//! (so an attacker cannot pre-create it or plant a symlink there).
//!
//! Every live [`PrivateTempDir`] is recorded in a process-wide registry so that the handler
//! installed by [`install_interrupt_cleanup`] can delete them all before the process exits on
//! Ctrl-C. (The JVM is started with `-Xrs`, so it leaves SIGINT and SIGTERM to us.)
//!
//! A process killed outright (SIGKILL, the OOM killer, a JVM crash) deletes nothing, so each
//! name carries its creator's pid and start time, and the first directory a process creates
//! removes the directories of creators that are gone (see [`remove_leftovers_of_ended_runs`]).

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Exit status after Ctrl-C, as shells report a process killed by SIGINT (128 + 2).
pub const INTERRUPTED_EXIT_STATUS: i32 = 130;

/// How many random names to try before giving up; a collision of 128 random bits means
/// something other than chance (an attacker racing us, or a broken random source).
const MAX_CREATE_ATTEMPTS: usize = 16;

/// Directories that exist right now and must be deleted if the process is interrupted.
struct Registry {
    live: Vec<(u64, PathBuf)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { live: Vec::new() });
static NEXT_ID: AtomicU64 = AtomicU64::new(0);
/// Set by [`stop_on_first_interrupt`]: the first interrupt asks the work to stop.
static STOP_ON_FIRST: AtomicBool = AtomicBool::new(false);
/// Set by the first interrupt when [`STOP_ON_FIRST`] is.
static STOP_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Locks the registry, also after a panic elsewhere poisoned it: the list stays consistent
/// because every critical section is a single push or remove.
fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A directory readable and writable only by the current user (mode 0700), with an
/// unpredictable name, deleted with everything in it when dropped or when the process is
/// interrupted (see [`install_interrupt_cleanup`]).
#[derive(Debug)]
pub struct PrivateTempDir {
    id: u64,
    path: PathBuf,
}

impl PrivateTempDir {
    /// Creates `heapgrowth-<purpose>-<pid>-<start time>-<32 random hex digits>` under
    /// `$TMPDIR` (or `/tmp`). The first call in a process also removes what runs that ended
    /// without cleaning up left there ([`remove_leftovers_of_ended_runs`]).
    ///
    /// `purpose` only makes the directory recognisable (for example `"jvm"` or `"dumps"`).
    pub fn new(purpose: &str) -> io::Result<PrivateTempDir> {
        let parent = std::env::temp_dir();
        static SWEPT: OnceLock<()> = OnceLock::new();
        SWEPT.get_or_init(|| {
            // Best effort: a leftover we cannot remove is no reason to fail this run.
            let _ = remove_leftovers_of_ended_runs(&parent);
        });
        Self::new_in(&parent, purpose)
    }

    /// Like [`PrivateTempDir::new`], under `parent` instead of the system temporary directory.
    pub fn new_in(parent: &Path, purpose: &str) -> io::Result<PrivateTempDir> {
        // The registry lock is held while the directory is created, so a Ctrl-C arriving
        // between `mkdir` and the registration cannot miss it.
        let mut registry = registry();
        let mut last_error = None;
        for _ in 0..MAX_CREATE_ATTEMPTS {
            let (pid, started) = this_process();
            let path = parent.join(format!(
                "heapgrowth-{purpose}-{pid}-{started}-{}",
                random_hex()?
            ));
            // `mkdir` fails with EEXIST instead of reusing an existing entry (directory or
            // symlink): the O_EXCL guarantee for directories.
            match fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let dir = PrivateTempDir {
                        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                        path,
                    };
                    registry.live.push((dir.id, dir.path.clone()));
                    drop(registry);
                    // From here on, dropping `dir` on error deletes it again.
                    dir.make_private()?;
                    return Ok(dir);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_error = Some(e),
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "cannot create a temporary directory in {}: {e}",
                            parent.display()
                        ),
                    ))
                }
            }
        }
        Err(last_error.unwrap_or_else(|| io::Error::other("no attempt made")))
    }

    /// The umask can only take permissions away; an umask such as 0200 would leave the owner
    /// unable to write. Set exactly 0700 and check that we own what we created.
    fn make_private(&self) -> io::Result<()> {
        fs::set_permissions(&self.path, fs::Permissions::from_mode(0o700))?;
        let meta = fs::symlink_metadata(&self.path)?;
        // Safety: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o777 != 0o700 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "temporary directory {} is not private after creation",
                    self.path.display()
                ),
            ));
        }
        Ok(())
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTempDir {
    fn drop(&mut self) {
        registry().live.retain(|(id, _)| *id != self.id);
        // Errors are ignored: Drop must not panic, and a directory that is already gone (deleted
        // by someone else) is the state we want anyway.
        let _ = remove_dir_all_retrying(&self.path);
    }
}

/// `remove_dir_all` can fail with "directory not empty" when another thread (for example the
/// JVM writing a heap dump) creates a file between the listing and the final `rmdir`; a few
/// retries settle that race.
fn remove_dir_all_retrying(path: &Path) -> io::Result<()> {
    let mut result = Ok(());
    for attempt in 0..REMOVE_ATTEMPTS {
        result = match fs::remove_dir_all(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            other => other,
        };
        if result.is_ok() {
            break;
        }
        // Another process may still be writing into the directory (a watched JVM finishing a
        // dump or a recording it was asked for): give it a moment to close the file.
        if attempt >= 2 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    result
}

/// Tries to remove a directory: three at once, then every 50 ms, about a second in all.
const REMOVE_ATTEMPTS: u32 = 24;

/// 128 bits from the kernel's random source as 32 hex digits: the name must be unpredictable,
/// not just unique.
pub(crate) fn random_hex() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        // Safety: the pointer and length describe the unfilled tail of `bytes`, which is
        // valid for writes; flags 0 means the blocking /dev/urandom source.
        let n = unsafe {
            libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0)
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// This process's pid and start time (clock ticks after boot, field 22 of `/proc/<pid>/stat`):
/// together they name a process once, even after its pid is reused.
fn this_process() -> (u32, u64) {
    static THIS: OnceLock<(u32, u64)> = OnceLock::new();
    *THIS.get_or_init(|| {
        let pid = std::process::id();
        (pid, process_start_time(pid).unwrap_or(0))
    })
}

/// The start time of process `pid`, or `None` when there is no such process.
fn process_start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces and ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// The creator `(pid, start time)` that a directory name made by [`PrivateTempDir::new_in`]
/// carries, or `None` for any other name.
fn creator_of(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix("heapgrowth-")?;
    let mut parts = rest.rsplitn(4, '-');
    let random = parts.next()?;
    let started = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let _purpose = parts.next()?;
    (random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit())).then_some((pid, started))
}

/// Removes the directories under `parent` that a heapgrowth process which no longer runs
/// created and could not delete (it was killed with SIGKILL, by the OOM killer, or its JVM
/// crashed), and returns them. Only directories owned by this user, with a name this module
/// makes, whose creator (pid and start time) is gone, are touched; those of runs still going
/// stay.
pub fn remove_leftovers_of_ended_runs(parent: &Path) -> io::Result<Vec<PathBuf>> {
    // Safety: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut removed = Vec::new();
    for entry in fs::read_dir(parent)?.flatten() {
        let name = entry.file_name();
        let Some((pid, started)) = name.to_str().and_then(creator_of) else {
            continue;
        };
        // symlink_metadata: a symlink with such a name is not ours to follow.
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        if process_start_time(pid) == Some(started) {
            continue;
        }
        if remove_dir_all_retrying(&entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    Ok(removed)
}

/// Deletes every live [`PrivateTempDir`] now, for a front end whose process is about to end
/// without running destructors (the JVM exiting under it, a test JVM's shutdown hook). Later
/// drops of those directories find them gone, which is fine.
pub fn delete_all_now() {
    drop(delete_all_live());
}

/// [`delete_all_now`], unless the registry is locked (by the thread that calls this, which
/// may be in the middle of registering a directory when its allocation fails): for a process
/// ending at once, where waiting could be for ever.
pub fn try_delete_all_now() {
    if let Ok(mut registry) = REGISTRY.try_lock() {
        for (_, path) in registry.live.drain(..) {
            let _ = remove_dir_all_retrying(&path);
        }
    }
}

/// Deletes every live [`PrivateTempDir`] and returns the registry lock still held, so no new
/// directory can appear before the caller exits.
fn delete_all_live() -> MutexGuard<'static, Registry> {
    let mut registry = registry();
    for (_, path) in registry.live.drain(..) {
        let _ = remove_dir_all_retrying(&path);
    }
    registry
}

/// Installs (once per process; later calls return the first call's result) a Ctrl-C handler
/// that deletes every live [`PrivateTempDir`] and exits with status 130.
///
/// With the `ctrlc` crate's `termination` feature the same happens on SIGTERM and SIGHUP.
/// Fails if another part of the program already installed a handler with the `ctrlc` crate.
pub fn install_interrupt_cleanup() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                // Runs on ctrlc's own thread, not in signal context, so locking and file system
                // calls are allowed.
                if STOP_ON_FIRST.load(Ordering::SeqCst)
                    && !STOP_REQUESTED.swap(true, Ordering::SeqCst)
                {
                    eprintln!(
                        "heapgrowth: stopping after the current step; press Ctrl-C again to quit \
                         at once (heap dumps are deleted either way)"
                    );
                    return;
                }
                run_exit_actions();
                let _held = delete_all_live();
                eprintln!("heapgrowth: interrupted; temporary files deleted");
                // `_exit`, not `std::process::exit`: `exit` would run the C++ static destructors
                // of libjvm while the JVM's threads are still running, which can crash or hang.
                // Safety: `_exit` has no preconditions; it ends the process immediately.
                unsafe { libc::_exit(INTERRUPTED_EXIT_STATUS) }
            })
            .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| io::Error::other(format!("cannot install the Ctrl-C handler: {e}")))
}

/// Undo actions for what this process did to another one (the JFR recording `watch --jfr`
/// starts in the watched JVM), run by the interrupt handler before it exits at once.
type ExitActions = Vec<(u64, Box<dyn Fn() + Send>)>;
static EXIT_ACTIONS: Mutex<ExitActions> = Mutex::new(Vec::new());

/// An action registered with [`run_before_forced_exit`]; dropping it unregisters it.
#[derive(Debug)]
pub struct ExitAction {
    id: u64,
}

/// Registers `action` to run when an interrupt ends the process at once (the first interrupt
/// without [`stop_on_first_interrupt`], or the second with it), so that the process's own
/// cleanup, which a forced exit skips, still happens. Unregistered when the returned value is
/// dropped: the normal path does its own cleanup. The action must be quick (it delays the exit)
/// and must not panic.
pub fn run_before_forced_exit(action: impl Fn() + Send + 'static) -> ExitAction {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    exit_actions().push((id, Box::new(action)));
    ExitAction { id }
}

impl Drop for ExitAction {
    fn drop(&mut self) {
        exit_actions().retain(|(id, _)| *id != self.id);
    }
}

fn exit_actions() -> MutexGuard<'static, ExitActions> {
    EXIT_ACTIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn run_exit_actions() {
    // Taken out first: an action must not run under the lock its own drop takes.
    let actions = std::mem::take(&mut *exit_actions());
    for (_, action) in actions {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(action));
    }
}

/// Makes the first interrupt (Ctrl-C, SIGTERM, SIGHUP) only ask the work to stop, for work
/// that ends with a report worth having (`heapgrowth watch`): [`stop_requested`] turns true,
/// and the work winds down, writes its report and deletes its directories itself. A second
/// interrupt deletes them all and exits at once, as without this.
pub fn stop_on_first_interrupt() {
    STOP_ON_FIRST.store(true, Ordering::SeqCst);
}

/// Whether an interrupt asked the work to stop (see [`stop_on_first_interrupt`]).
pub fn stop_requested() -> bool {
    STOP_REQUESTED.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_actions_run_once_and_a_dropped_one_not_at_all() {
        let ran = std::sync::Arc::new(AtomicU64::new(0));
        let counter = std::sync::Arc::clone(&ran);
        let kept = run_before_forced_exit(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let counter = std::sync::Arc::clone(&ran);
        drop(run_before_forced_exit(move || {
            counter.fetch_add(100, Ordering::SeqCst);
        }));
        run_exit_actions();
        run_exit_actions();
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        drop(kept);
    }

    #[test]
    fn directory_is_private_and_deleted_on_drop() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().to_path_buf();
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.mode() & 0o777, 0o700);
        fs::create_dir(path.join("sub")).unwrap();
        fs::write(path.join("sub/file.hprof"), b"secret").unwrap();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn names_are_unpredictable_and_distinct() {
        let a = PrivateTempDir::new("test").unwrap();
        let b = PrivateTempDir::new("test").unwrap();
        assert_ne!(a.path(), b.path());
        let name = a.path().file_name().unwrap().to_str().unwrap();
        let (pid, _started) = creator_of(name).unwrap();
        assert_eq!(pid, std::process::id());
        let suffix = name.rsplit('-').next().unwrap();
        assert_eq!(suffix.len(), 32);
        assert!(suffix.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn names_carry_the_creator() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            creator_of(&format!("heapgrowth-jvm-12-345-{hex}")),
            Some((12, 345))
        );
        assert_eq!(
            creator_of(&format!("heapgrowth-two-words-12-345-{hex}")),
            Some((12, 345))
        );
        // Names of older versions (no creator) and of other programs are never touched.
        assert_eq!(creator_of(&format!("heapgrowth-jvm-{hex}")), None);
        assert_eq!(creator_of(&format!("other-jvm-12-345-{hex}")), None);
        assert_eq!(creator_of("heapgrowth-jvm-12-345-xyz"), None);
    }

    #[test]
    fn leftovers_of_ended_runs_are_removed_and_live_ones_kept() {
        let parent = PrivateTempDir::new("test").unwrap();
        let hex = "0123456789abcdef0123456789abcdef";
        let (pid, started) = this_process();
        // A process that ended: this pid with another start time (the pid was reused).
        let ended = parent
            .path()
            .join(format!("heapgrowth-dumps-{pid}-{}-{hex}", started + 1));
        fs::create_dir(&ended).unwrap();
        fs::write(ended.join("snapshot-1.hprof"), b"secret").unwrap();
        // This very process: still running.
        let live = parent
            .path()
            .join(format!("heapgrowth-dumps-{pid}-{started}-{hex}"));
        fs::create_dir(&live).unwrap();
        // Not a name of ours.
        let foreign = parent.path().join("heapgrowth-notes");
        fs::create_dir(&foreign).unwrap();
        // A symlink with our name pattern is left alone (and what it points at too).
        let link = parent
            .path()
            .join(format!("heapgrowth-x-{pid}-{}-{hex}", started + 2));
        std::os::unix::fs::symlink(&foreign, &link).unwrap();

        let removed = remove_leftovers_of_ended_runs(parent.path()).unwrap();
        assert_eq!(removed, vec![ended.clone()]);
        assert!(!ended.exists());
        assert!(live.is_dir());
        assert!(foreign.is_dir());
        assert!(link.symlink_metadata().is_ok());
    }

    #[test]
    fn registry_tracks_live_directories_only() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().to_path_buf();
        assert!(registry().live.iter().any(|(_, p)| *p == path));
        drop(dir);
        assert!(!registry().live.iter().any(|(_, p)| *p == path));
    }

    #[test]
    fn nested_directory_is_private_too() {
        // make_private sets exactly 0700 whatever the umask took away.
        let parent = PrivateTempDir::new("test").unwrap();
        let dir = PrivateTempDir::new_in(parent.path(), "inner").unwrap();
        let meta = fs::symlink_metadata(dir.path()).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
    }

    #[test]
    fn missing_parent_is_a_clear_error() {
        let err = PrivateTempDir::new_in(Path::new("/nonexistent/heapgrowth"), "x").unwrap_err();
        assert!(err.to_string().contains("/nonexistent/heapgrowth"), "{err}");
    }
}
