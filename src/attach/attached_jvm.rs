//! A JVM whose attach listener runs, and the requests heapgrowth sends it.

use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::{io_error, AttachError};
use super::histogram::{self, ClassHistogram};
use super::protocol::{self, ReplyError, RequestError};
use super::{one_line, AGENT_RETURN_CODE, DEFAULT_ATTACH_TIMEOUT, DEFAULT_REPLY_TIMEOUT};
use super::{perfdata, process};
use super::{DUMP_CREATED, DUMP_STARTED};

/// Timeouts of [`Target::attach_with`](super::Target::attach_with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachOptions {
    /// How long to wait for the JVM to open its attach socket (and, for a JVM still starting,
    /// to finish starting first).
    pub attach_timeout: Duration,
    /// How long an operation may go without a byte from the JVM.
    pub reply_timeout: Duration,
}

impl Default for AttachOptions {
    fn default() -> AttachOptions {
        AttachOptions {
            attach_timeout: DEFAULT_ATTACH_TIMEOUT,
            reply_timeout: DEFAULT_REPLY_TIMEOUT,
        }
    }
}

/// A JVM whose attach listener runs. Each operation opens its own connection, as `jcmd`
/// does; the value holds no connection and can be kept between operations.
#[derive(Debug, Clone)]
pub struct AttachedJvm {
    pub(super) pid: u32,
    pub(super) start_time: u64,
    pub(super) root: PathBuf,
    pub(super) socket: PathBuf,
    pub(super) options: AttachOptions,
    /// The JVM's perf-data file, if it has one (for [`AttachedJvm::collections`]).
    pub(super) perf_file: Option<PathBuf>,
}

impl AttachedJvm {
    /// The JVM's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The same JVM with another reply timeout: for a request that must not wait long (the
    /// last one before the process exits).
    pub fn with_reply_timeout(&self, reply_timeout: Duration) -> AttachedJvm {
        AttachedJvm {
            options: AttachOptions {
                reply_timeout,
                ..self.options
            },
            ..self.clone()
        }
    }

    /// Whether the JVM still runs (it is not a zombie and its pid was not reused).
    pub fn is_running(&self) -> bool {
        process::start_time_if_running(self.pid) == Some(self.start_time)
    }

    /// Writes a heap dump to `path`, of live objects only (after a full GC) if `live`, of
    /// everything on the heap otherwise; the file is owner-only (0600) when this returns.
    ///
    /// `path` must be absolute, not exist yet, and be in a directory of ours that only we can
    /// use (a [`PrivateTempDir`](crate::tempdir::PrivateTempDir)): the JVM, running as our
    /// user, creates the file there, and the dump holds every secret of the heap.
    pub fn dump_heap(&self, path: &Path, live: bool) -> Result<(), AttachError> {
        let bad_path = |detail: &str| AttachError::DumpPath {
            path: path.to_path_buf(),
            detail: detail.to_string(),
        };
        if !path.is_absolute() {
            return Err(bad_path(
                "the path is not absolute (the JVM has another working directory)",
            ));
        }
        let dir = match path.parent() {
            Some(dir) if path.file_name().is_some() => dir,
            _ => return Err(bad_path("the path names no file")),
        };
        let own_uid = process::effective_uid();
        match fs::symlink_metadata(dir) {
            Ok(meta) if !meta.is_dir() => return Err(bad_path("its directory is not a directory")),
            Ok(meta) if meta.uid() != own_uid => {
                return Err(bad_path(&format!(
                    "its directory belongs to uid {}, not to us (uid {own_uid})",
                    meta.uid()
                )))
            }
            Ok(meta) if meta.mode() & 0o077 != 0 => {
                return Err(bad_path(&format!(
                    "its directory has mode {:03o}, others could read the dump",
                    meta.mode() & 0o777
                )))
            }
            Ok(_) => {}
            Err(e) => return Err(bad_path(&format!("its directory is unusable: {e}"))),
        }
        if fs::symlink_metadata(path).is_ok() {
            return Err(bad_path(
                "the file exists already (the JVM does not overwrite files)",
            ));
        }
        self.check_sees_directory(dir, "dumpheap")?;

        let output = self.execute(
            "dumpheap",
            "dumpheap",
            [
                protocol::path_bytes(path),
                if live { b"-live" } else { b"-all" },
                b"",
            ],
        )?;
        let failed = |message: String| {
            // A partial dump is of no use and holds secrets.
            if fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.uid() == own_uid) {
                let _ = fs::remove_file(path);
            }
            AttachError::DumpFailed {
                pid: self.pid,
                path: path.to_path_buf(),
                message,
            }
        };
        if !output.contains(DUMP_CREATED) {
            // The first line repeats the path ("Dumping heap to <path> ..."); the reason follows.
            let reason: String = output
                .lines()
                .filter(|l| !l.starts_with(DUMP_STARTED))
                .collect::<Vec<_>>()
                .join("\n");
            return Err(failed(one_line(&reason, "it sent no message")));
        }
        let meta = fs::symlink_metadata(path).map_err(|e| {
            failed(format!(
                "the JVM reported success but the file is unreadable: {e}"
            ))
        })?;
        if !meta.is_file() || meta.uid() != own_uid {
            return Err(failed(format!(
                "the file is not a regular file of ours (uid {})",
                meta.uid()
            )));
        }
        // The JVM creates the file with mode 0666 less its umask; the directory keeps others
        // out already, and the file itself must too once it leaves the directory.
        fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(io_error(format!(
            "make the heap dump {} owner-only",
            path.display()
        )))?;
        Ok(())
    }

    /// The class histogram (`jmap -histo`), of live objects only (after a full GC) if `live`.
    pub fn class_histogram(&self, live: bool) -> Result<ClassHistogram, AttachError> {
        // inspectheap's arguments (JDK 9 to 25): -live/-all, an output file (empty: the
        // reply), the number of parallel threads (empty: the JVM's default).
        let output = self.execute(
            "inspectheap",
            "inspectheap",
            [if live { b"-live" } else { b"-all" }, b"", b""],
        )?;
        histogram::parse(&output).map_err(|detail| AttachError::HistogramUnreadable {
            pid: self.pid,
            detail,
        })
    }

    /// Runs a diagnostic command line as `jcmd <pid> <command_line>` does (for example
    /// `GC.class_histogram` or `JFR.start name=x`) and returns its output. Most commands
    /// report their own failures in the output, which the caller judges.
    pub fn jcmd(&self, command_line: &str) -> Result<String, AttachError> {
        let name = command_line.split_whitespace().next().unwrap_or("");
        self.execute(
            "jcmd",
            &format!("jcmd {name}"),
            [command_line.as_bytes(), b"", b""],
        )
    }

    /// Garbage collections the JVM has run, all collectors together (the counters
    /// `sun.gc.collector.N.invocations` of its perf-data file, which `jstat` reads: the
    /// `PerfCounter.print` of `jcmd` is jcmd's own, not a command the JVM answers); `None` for
    /// a JVM without the file (`-XX:-UsePerfData`) or one that cannot be read.
    pub fn collections(&self) -> Option<u64> {
        let bytes = fs::read(self.perf_file.as_ref()?).ok()?;
        perfdata::collections(&bytes).ok().flatten()
    }

    /// Runs a full collection (`GC.run`, as `System.gc()` does).
    pub fn collect_garbage(&self) -> Result<(), AttachError> {
        self.jcmd("GC.run").map(drop)
    }

    /// Loads the native agent library at the absolute path `library` into the JVM and runs
    /// its `Agent_OnAttach` with `options`.
    pub fn load_agent(&self, library: &Path, options: &str) -> Result<(), AttachError> {
        self.load_agent_during(library, options, "load")
    }

    /// [`AttachedJvm::load_agent`], naming what the load is for in a
    /// [`AttachError::JvmEnded`] or [`AttachError::NoReply`] (`allocation sampling report`).
    pub(crate) fn load_agent_during(
        &self,
        library: &Path,
        options: &str,
        during: &str,
    ) -> Result<(), AttachError> {
        let not_loaded = |message: String| AttachError::AgentNotLoaded {
            pid: self.pid,
            library: library.to_path_buf(),
            message,
        };
        if !library.is_absolute() {
            return Err(not_loaded("give the library's absolute path".to_string()));
        }
        let reply = self.request(
            "load",
            during,
            [protocol::path_bytes(library), b"true", options.as_bytes()],
        )?;
        // JDK 17 answers a library it cannot load with a non-zero status, JDK 25 with
        // status 0 and a message; a loaded library with "return code: <Agent_OnAttach's>".
        let first_line = reply.output.lines().next().unwrap_or("").trim();
        match first_line
            .strip_prefix(AGENT_RETURN_CODE)
            .map(|c| c.trim().parse::<i32>())
        {
            Some(Ok(0)) if reply.status == 0 => Ok(()),
            Some(Ok(code)) => Err(AttachError::AgentFailed {
                pid: self.pid,
                library: library.to_path_buf(),
                code,
            }),
            _ => Err(not_loaded(one_line(
                &reply.output,
                &format!("status {} and no message", reply.status),
            ))),
        }
    }

    /// Fails unless the JVM opens `dir` as the same directory we do: outside containers
    /// always; inside one only if it is mounted there at the same path. A JVM that ended is
    /// [`AttachError::JvmEnded`] (`during` what), not a container: its `/proc/<pid>/root` is
    /// gone with it.
    pub(crate) fn check_sees_directory(&self, dir: &Path, during: &str) -> Result<(), AttachError> {
        let relative = dir.strip_prefix("/").unwrap_or(dir);
        let seen = self.root.join(relative);
        let visible = match fs::metadata(&seen) {
            Ok(_) => process::same_directory(dir, &seen),
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            // The JVM's root is out of our reach: we cannot tell, let the JVM try.
            Err(_) => true,
        };
        if visible {
            Ok(())
        } else if !self.is_running() {
            Err(AttachError::JvmEnded {
                pid: self.pid,
                during: during.to_string(),
            })
        } else {
            Err(AttachError::DumpNotVisible {
                pid: self.pid,
                dir: dir.to_path_buf(),
            })
        }
    }

    /// [`AttachedJvm::request`], with a non-zero status as [`AttachError::CommandFailed`].
    fn execute(
        &self,
        command: &'static str,
        during: &str,
        args: [&[u8]; 3],
    ) -> Result<String, AttachError> {
        let reply = self.request(command, during, args)?;
        if reply.status != 0 {
            return Err(AttachError::CommandFailed {
                pid: self.pid,
                command: during.to_string(),
                status: reply.status,
                message: one_line(&reply.output, "no message"),
            });
        }
        Ok(reply.output)
    }

    /// Sends one request on a new connection and reads the reply.
    fn request(
        &self,
        command: &'static str,
        during: &str,
        args: [&[u8]; 3],
    ) -> Result<protocol::Reply, AttachError> {
        let pid = self.pid;
        let request =
            protocol::encode_request(command, args).map_err(|e| AttachError::InvalidArgument {
                command: during.to_string(),
                reason: match e {
                    RequestError::Nul { index } => format!("argument {index} holds a NUL byte"),
                    RequestError::TooLong { index, len } => format!(
                        "argument {index} is {len} bytes, the attach protocol allows {}: use a \
                     shorter one",
                        protocol::MAX_ARGUMENT_BYTES
                    ),
                },
            })?;
        let ended = || AttachError::JvmEnded {
            pid,
            during: during.to_string(),
        };
        // Checked before connecting: a JVM that ended and left its socket, or whose pid a new
        // JVM took, must not get (or answer) our request.
        if !self.is_running() {
            return Err(ended());
        }
        let mut stream = UnixStream::connect(&self.socket).map_err(|e| {
            if !protocol::ends_soon(&|| self.is_running()) {
                io_error(format!(
                    "connect to the attach socket {} of the JVM with pid {pid}",
                    self.socket.display()
                ))(e)
            } else {
                ended()
            }
        })?;
        let reply = protocol::exchange(&mut stream, &request, self.options.reply_timeout, &|| {
            self.is_running()
        })
        .map_err(|e| match e {
            ReplyError::Ended => ended(),
            ReplyError::Silent { waited } => AttachError::NoReply {
                pid,
                command: during.to_string(),
                waited,
            },
            ReplyError::Malformed { detail } => AttachError::BadReply {
                pid,
                command: during.to_string(),
                detail,
            },
            ReplyError::Io(source) => AttachError::Io {
                what: format!("talk to the JVM with pid {pid} during {during}"),
                source,
            },
        })?;
        if reply.status == protocol::STATUS_BAD_VERSION {
            return Err(AttachError::BadReply {
                pid,
                command: during.to_string(),
                detail: "answered 'unknown protocol version'".to_string(),
            });
        }
        Ok(reply)
    }
}
