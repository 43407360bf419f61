//! The process before anything is sent to it: the checks of [`Target::check`], and the attach
//! handshake of [`Target::attach`] (see the module documentation of `attach`).

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::attached_jvm::{AttachOptions, AttachedJvm};
use super::error::{io_error, AttachError};
use super::perfdata::{self, AttachSupport};
use super::process::{self, ProcessHandle, VmKind};
use super::{FIRST_POLL, LONGEST_POLL};

/// What the perf-data file told at [`Target::check`].
#[derive(Debug)]
enum PerfData {
    /// Attach is enabled.
    Enabled,
    /// The file exists but the JVM is still starting: look again before signalling.
    Starting(PathBuf),
    /// No file, or one we cannot read: the reason, for the timeout message.
    Unknown(String),
}

/// A process that passed the checks of [`Target::check`]: a HotSpot JVM of our user whose
/// attach mechanism is (as far as can be told) enabled. Nothing has been sent to it yet.
#[derive(Debug)]
pub struct Target {
    pid: u32,
    ns_pid: u32,
    command: String,
    start_time: u64,
    /// `/proc/<pid>/root`: the JVM's file system.
    root: PathBuf,
    /// The JVM's `/tmp` as we reach it.
    tmp: PathBuf,
    perf: PerfData,
    handle: ProcessHandle,
}

impl Target {
    /// Checks, without sending the process anything, that `pid` is a HotSpot JVM of our user
    /// with its attach mechanism enabled (see the [module documentation](super) for each check
    /// and why it is there).
    pub fn check(pid: u32) -> Result<Target, AttachError> {
        let no_such_process = || AttachError::NoSuchProcess { pid };
        // Pid 0 and pids beyond pid_t are no process; kill() would read 0 as "our group".
        if pid == 0 || pid > i32::MAX as u32 || !Path::new(&format!("/proc/{pid}")).exists() {
            return Err(no_such_process());
        }
        let read_error = |what: &str| {
            let what = format!("read {what} of pid {pid}");
            move |e: io::Error| match e.kind() {
                io::ErrorKind::NotFound => AttachError::NoSuchProcess { pid },
                _ => AttachError::Io { what, source: e },
            }
        };
        let start_time = process::start_time_if_running(pid).ok_or_else(no_such_process)?;
        let status = process::status(pid).map_err(read_error("/proc/<pid>/status"))?;

        let own_uid = process::effective_uid();
        for uid in [status.effective_uid(), status.filesystem_uid()] {
            if uid != own_uid {
                return Err(AttachError::OtherUser {
                    pid,
                    uid,
                    user: process::user_name(uid),
                    own_uid,
                    own_user: process::user_name(own_uid),
                });
            }
        }

        let maps = fs::read_to_string(format!("/proc/{pid}/maps"))
            .map_err(read_error("/proc/<pid>/maps"))?;
        match process::vm_kind(&maps) {
            VmKind::HotSpot => {}
            VmKind::OpenJ9 => {
                return Err(AttachError::NotHotSpot {
                    pid,
                    command: status.name,
                    vm: "OpenJ9",
                })
            }
            VmKind::None => {
                return Err(AttachError::NotAJvm {
                    pid,
                    command: status.name,
                })
            }
        }

        let root = PathBuf::from(format!("/proc/{pid}/root"));
        // Outside containers this is our own /tmp; if the JVM's root is out of reach, /tmp is
        // the best guess, as jcmd makes it.
        let tmp = match fs::metadata(root.join("tmp")) {
            Ok(meta) if meta.is_dir() => root.join("tmp"),
            _ => PathBuf::from("/tmp"),
        };
        let perf = match perfdata::find_file(&tmp, status.ns_pid, own_uid) {
            None => PerfData::Unknown(
                "it has no perf data file (it may run with -XX:-UsePerfData)".to_string(),
            ),
            Some(path) => match read_attach_support(&path) {
                Ok(AttachSupport::Enabled) => PerfData::Enabled,
                Ok(AttachSupport::Disabled) => return Err(AttachError::AttachDisabled { pid }),
                Ok(AttachSupport::NotYetKnown) => PerfData::Starting(path),
                Err(why) => PerfData::Unknown(why),
            },
        };
        let handle = ProcessHandle::open(pid, start_time).ok_or_else(no_such_process)?;
        Ok(Target {
            pid,
            ns_pid: status.ns_pid,
            command: status.name,
            start_time,
            root,
            tmp,
            perf,
            handle,
        })
    }

    /// The pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The pid as the JVM knows itself: different from [`Target::pid`] inside a container.
    pub fn namespace_pid(&self) -> u32 {
        self.ns_pid
    }

    /// The process's command name (`/proc/<pid>/comm`, usually `java`).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Attaches with the default timeouts ([`AttachOptions::default`]).
    pub fn attach(&self) -> Result<AttachedJvm, AttachError> {
        self.attach_with(AttachOptions::default())
    }

    /// Starts the JVM's attach listener if it is not running yet (trigger file and one
    /// SIGQUIT, see the [module documentation](super)) and waits for its socket, at most
    /// `options.attach_timeout`.
    pub fn attach_with(&self, options: AttachOptions) -> Result<AttachedJvm, AttachError> {
        let started = Instant::now();
        let pid = self.pid;
        let ended = || AttachError::JvmEnded {
            pid,
            during: "attach".to_string(),
        };
        if !self.handle.is_running() {
            return Err(ended());
        }
        let socket = self.tmp.join(format!(".java_pid{}", self.ns_pid));
        let attached = AttachedJvm {
            pid,
            start_time: self.start_time,
            root: self.root.clone(),
            socket: socket.clone(),
            options,
            perf_file: perfdata::find_file(&self.tmp, self.ns_pid, process::effective_uid()),
        };
        if socket_is_listening(&socket)? {
            return Ok(attached);
        }

        let perf_checked = self.wait_until_started(started, options.attach_timeout)?;
        self.check_sigquit_is_handled(perf_checked, started, options.attach_timeout)?;
        let _trigger = TriggerFile::create(self)?;
        self.handle.send_sigquit().map_err(|e| {
            if e.raw_os_error() == Some(libc::ESRCH) {
                ended()
            } else {
                AttachError::Io {
                    what: format!("send SIGQUIT to the JVM with pid {pid}"),
                    source: e,
                }
            }
        })?;
        // One signal only: a second one to a JVM that does not start its listener (attach
        // disabled without perf data to tell) would print one more thread dump into its output.
        let mut pause = FIRST_POLL;
        loop {
            if socket_is_listening(&socket)? {
                return Ok(attached);
            }
            if !self.handle.is_running() {
                return Err(ended());
            }
            let waited = started.elapsed();
            if waited >= options.attach_timeout {
                return Err(AttachError::AttachTimeout {
                    pid,
                    socket,
                    waited,
                    unchecked: match &self.perf {
                        PerfData::Unknown(why) => Some(why.clone()),
                        _ => None,
                    },
                });
            }
            thread::sleep(pause.min(options.attach_timeout - waited));
            pause = (pause * 2).min(LONGEST_POLL);
        }
    }

    /// For a JVM whose perf data said "starting": waits until it says more, and refuses a JVM
    /// whose attach mechanism turns out disabled. Returns whether perf data was read.
    fn wait_until_started(&self, started: Instant, timeout: Duration) -> Result<bool, AttachError> {
        let path = match &self.perf {
            PerfData::Enabled => return Ok(true),
            PerfData::Unknown(_) => return Ok(false),
            PerfData::Starting(path) => path,
        };
        let mut pause = FIRST_POLL;
        loop {
            match read_attach_support(path) {
                Ok(AttachSupport::Enabled) => return Ok(true),
                Ok(AttachSupport::Disabled) => {
                    return Err(AttachError::AttachDisabled { pid: self.pid })
                }
                // The file went away with the JVM, or is being rewritten: the checks below
                // and the running check tell which.
                Ok(AttachSupport::NotYetKnown) | Err(_) => {}
            }
            if !self.handle.is_running() {
                return Err(AttachError::JvmEnded {
                    pid: self.pid,
                    during: "attach".to_string(),
                });
            }
            let waited = started.elapsed();
            if waited >= timeout {
                return Err(AttachError::StillStarting {
                    pid: self.pid,
                    waited,
                });
            }
            thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(LONGEST_POLL);
        }
    }

    /// Refuses to signal a JVM that would die of SIGQUIT. A JVM known to have finished
    /// starting (perf data) is judged at once; without perf data it may still be installing
    /// its signal handlers, so it gets until the timeout.
    fn check_sigquit_is_handled(
        &self,
        finished_starting: bool,
        started: Instant,
        timeout: Duration,
    ) -> Result<(), AttachError> {
        let mut pause = FIRST_POLL;
        loop {
            let status = process::status(self.pid).map_err(|_| AttachError::JvmEnded {
                pid: self.pid,
                during: "attach".to_string(),
            })?;
            if status.handles_sigquit() {
                return Ok(());
            }
            let waited = started.elapsed();
            if finished_starting || waited >= timeout {
                return Err(AttachError::SigquitNotHandled { pid: self.pid });
            }
            thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(LONGEST_POLL);
        }
    }
}

fn read_attach_support(path: &Path) -> Result<AttachSupport, String> {
    let bytes = fs::read(path)
        .map_err(|e| format!("its perf data file {} is unreadable: {e}", path.display()))?;
    perfdata::attach_support(&bytes).map_err(|e| {
        format!(
            "its perf data file {} is unreadable: {}",
            path.display(),
            e.0
        )
    })
}

/// Whether the JVM's attach socket is there and takes connections. A socket that refuses
/// them is left over from a JVM that was killed: the handshake makes the live JVM replace it.
/// Anything under the name that is not an owner-only socket of ours is refused, as `jcmd`
/// refuses it: another user could have put it there to receive our requests.
fn socket_is_listening(socket: &Path) -> Result<bool, AttachError> {
    let meta = match fs::symlink_metadata(socket) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io_error(format!("look at {}", socket.display()))(e)),
    };
    let not_private = |detail: String| AttachError::SocketNotPrivate {
        socket: socket.to_path_buf(),
        detail,
    };
    if !meta.file_type().is_socket() {
        return Err(not_private("is not a socket".to_string()));
    }
    let own_uid = process::effective_uid();
    if meta.uid() != own_uid {
        return Err(not_private(format!(
            "belongs to uid {}, not to us (uid {own_uid})",
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(not_private(format!(
            "has mode {:03o}, not owner-only",
            meta.mode() & 0o777
        )));
    }
    match UnixStream::connect(socket) {
        // The JVM reads an empty request as a client that went away (jcmd connects like
        // this too, to check it may).
        Ok(_) => Ok(true),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::ConnectionRefused | io::ErrorKind::NotFound
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(io_error(format!("connect to {}", socket.display()))(e)),
    }
}

/// The `.attach_pid<pid>` file that tells the JVM's SIGQUIT handler to start the attach
/// listener instead of printing a thread dump; removed again when dropped. The JVM looks in its
/// working directory first, then in its `/tmp`.
struct TriggerFile {
    /// `None` when the file was already there (another attacher's): not ours to remove.
    path: Option<PathBuf>,
}

impl TriggerFile {
    fn create(target: &Target) -> Result<TriggerFile, AttachError> {
        let name = format!(".attach_pid{}", target.ns_pid);
        let cwd = PathBuf::from(format!("/proc/{}/cwd", target.pid)).join(&name);
        let tmp = target.tmp.join(&name);
        let mut last_error = None;
        for path in [cwd, tmp] {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(_) => return Ok(TriggerFile { path: Some(path) }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Ok(TriggerFile { path: None })
                }
                // A working directory we cannot write (read-only, another owner): try /tmp.
                Err(e) => last_error = Some((path, e)),
            }
        }
        let (path, e) = last_error.expect("two attempts were made");
        Err(io_error(format!(
            "create the attach trigger file {} for the JVM with pid {}",
            path.display(),
            target.pid
        ))(e))
    }
}

impl Drop for TriggerFile {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            // Nothing to do if it is gone already (the JVM's directory went with it).
            let _ = fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn pids_that_cannot_be_processes() {
        for pid in [0, u32::MAX, i32::MAX as u32 + 1] {
            assert!(
                matches!(Target::check(pid), Err(AttachError::NoSuchProcess { .. })),
                "{pid}"
            );
        }
    }

    #[test]
    fn a_stale_socket_is_not_listening_and_a_foreign_file_is_refused() {
        let dir = crate::tempdir::PrivateTempDir::new("test").unwrap();
        let socket = dir.path().join(".java_pid1");
        assert!(!socket_is_listening(&socket).unwrap());
        // A socket whose listener is gone (a killed JVM's).
        drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
        fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(!socket_is_listening(&socket).unwrap());
        // A live one.
        fs::remove_file(&socket).unwrap();
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        fs::set_permissions(&socket, fs::Permissions::from_mode(0o600)).unwrap();
        assert!(socket_is_listening(&socket).unwrap());
        // Readable by others: not a JVM's.
        fs::set_permissions(&socket, fs::Permissions::from_mode(0o666)).unwrap();
        let err = socket_is_listening(&socket).unwrap_err();
        assert!(err.to_string().contains("not owner-only"), "{err}");
        drop(listener);
        // A plain file under the name.
        fs::remove_file(&socket).unwrap();
        fs::write(&socket, b"").unwrap();
        let err = socket_is_listening(&socket).unwrap_err();
        assert!(err.to_string().contains("is not a socket"), "{err}");
    }
}
