//! Attaching to a running HotSpot JVM on Linux the way `jcmd` does, without a JDK: heap dumps,
//! class histograms, diagnostic commands, JFR recordings of old-object samples (`jfr.rs`) and
//! agents for `heapgrowth watch --pid`.
//!
//! [`Target::check`] looks at the process first and only [`Target::attach`] ever signals it.
//! The order of the checks matters, because the attach handshake is a SIGQUIT and SIGQUIT is
//! dangerous to the wrong process: most programs die of it (with a core dump), and a JVM whose
//! attach mechanism is disabled prints a thread dump into its output instead.
//!
//! 1. **The process exists** (`/proc/<pid>`).
//! 2. **It runs as our effective uid** (`Uid:` of `/proc/<pid>/status`), refused otherwise
//!    even when we are root: root could attach, but the JVM writes the heap dump itself, as its
//!    own user, and could not write into our owner-only private directory; dumps hold every
//!    secret of the heap and must stay in such a directory.
//! 3. **It is a HotSpot JVM**: `/proc/<pid>/maps` shows `libjvm.so` (as for `java` and for
//!    programs that embed a JVM through JNI), and not OpenJ9's VM library (OpenJ9 ships a
//!    `libjvm.so` too but attaches another way).
//! 4. **Its attach mechanism is enabled**: the first flag of `sun.rt.jvmCapabilities` in its
//!    perf-data file `hsperfdata_<user>/<pid>` (read by `perfdata.rs`) is `1`; `0` means `-XX:+DisableAttachMechanism`. A JVM started with `-XX:-UsePerfData` has
//!    no such file: then nothing tells, the attach is tried and a timeout explains the
//!    possible cause.
//!
//! [`Target::attach`] then does what `jcmd` does. If the JVM's socket `.java_pid<pid>` is not
//! in its `/tmp` yet, it creates the trigger file `.attach_pid<pid>` in the JVM's working
//! directory (or its `/tmp`), checks that the JVM catches SIGQUIT (a JVM started with `-Xrs`
//! does not, and would die), sends one SIGQUIT (through a pidfd opened while the pid was
//! checked, so never to a process that got the pid later), and waits a bounded time for the
//! socket. The socket must be ours and owner-only, as the JVM creates it; anything else in
//! `/tmp` under that name is not talked to.
//!
//! Containers: the JVM knows itself by the pid of its own pid namespace (`NSpid:`) and keeps
//! its files in its own `/tmp`, reached as `/proc/<pid>/root/tmp`. Heap dumps go to a path the
//! JVM opens in its own file system, so [`AttachedJvm::dump_heap`] checks that the JVM sees
//! our directory at the same path.
//!
//! Every operation is one request on a new connection, as `jcmd` makes them. Reads wait in
//! short steps and check between them that the JVM still runs, so a JVM that ends mid-request
//! is an error at once ([`AttachError::JvmEnded`]), and one that stops answering is an error
//! after [`AttachOptions::reply_timeout`], never a hang.

mod histogram;
mod jfr;
mod perfdata;
mod process;
mod protocol;
mod sampling;

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

pub use histogram::{ClassCount, ClassHistogram};
pub use jfr::{
    OldObjectRecording, QueueSize, RecordingSettings, DEFAULT_MAX_AGE, DEFAULT_MAX_SIZE_BYTES,
    DEFAULT_OLD_OBJECT_QUEUE_SIZE,
};
use perfdata::AttachSupport;
use process::{ProcessHandle, VmKind};
use protocol::{ReplyError, RequestError};
pub use sampling::{
    AgentLibrary, AttachedSampling, SampledStack, SamplingReport, WatchedClass,
    DEFAULT_SAMPLING_INTERVAL, MAX_SAMPLED_CLASSES,
};

/// How long [`Target::attach`] waits for the JVM to open its attach socket: `jcmd`'s default
/// (`sun.tools.attach.attachTimeout`). A healthy JVM opens it within milliseconds; one busy in
/// a long garbage collection can take seconds.
pub const DEFAULT_ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an operation may go without a byte from the JVM. JDK 17 sends nothing until a
/// heap dump is written, and dumping a heap of tens of gigabytes takes minutes, so this is
/// generous; a JVM that ended is noticed at once regardless.
pub const DEFAULT_REPLY_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The longest pause between two looks for the attach socket: the wait starts at
/// [`FIRST_POLL`] and doubles, so a fast JVM is attached within milliseconds and a slow one
/// is not polled more than five times a second.
const LONGEST_POLL: Duration = Duration::from_millis(200);
const FIRST_POLL: Duration = Duration::from_millis(5);

/// The text every HotSpot version prints when a heap dump was written completely; any other
/// answer, even with status 0, is a failure (newer JVMs report failures as text after 0).
const DUMP_CREATED: &str = "Heap dump file created";

/// The line HotSpot prints before it writes a heap dump.
const DUMP_STARTED: &str = "Dumping heap to ";

/// The prefix of the `load` command's answer that carries `Agent_OnAttach`'s return value.
const AGENT_RETURN_CODE: &str = "return code:";

/// Why attaching to a JVM, or an operation on it, failed. Each message is one line that says
/// what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttachError {
    /// There is no process with that pid.
    #[error("no process with pid {pid}: check the pid (`ps -C java -o pid,user,args` lists Java processes)")]
    NoSuchProcess {
        /// The pid asked for.
        pid: u32,
    },

    /// The process runs as another user.
    #[error(
        "pid {pid} runs as {}, heapgrowth watches only JVMs of its own user{} (uid {own_uid}): \
         run heapgrowth as {}",
        user_label(.user.as_deref(), *.uid),
        .own_user.as_deref().map(|u| format!(" {u}")).unwrap_or_default(),
        .user.as_deref().map(|u| format!("user {u}")).unwrap_or_else(|| format!("uid {uid}"))
    )]
    OtherUser {
        /// The process.
        pid: u32,
        /// Its effective (or file-system) uid.
        uid: u32,
        /// That uid's name, if `/etc/passwd` has one.
        user: Option<String>,
        /// Our effective uid.
        own_uid: u32,
        /// Our user's name.
        own_user: Option<String>,
    },

    /// The process does not run a JVM.
    #[error("pid {pid} ({command}) is not a Java virtual machine: give the pid of a running java process")]
    NotAJvm {
        /// The process.
        pid: u32,
        /// Its command name (`/proc/<pid>/comm`).
        command: String,
    },

    /// The process runs a JVM that is not HotSpot.
    #[error(
        "pid {pid} ({command}) is an {vm} JVM: heapgrowth attaches to HotSpot JVMs \
         (OpenJDK, Temurin, Oracle and the like) only"
    )]
    NotHotSpot {
        /// The process.
        pid: u32,
        /// Its command name.
        command: String,
        /// Which JVM it is.
        vm: &'static str,
    },

    /// The JVM's perf data says its attach mechanism is disabled.
    #[error(
        "the JVM with pid {pid} was started with -XX:+DisableAttachMechanism: restart it \
         without that option to watch it"
    )]
    AttachDisabled {
        /// The JVM.
        pid: u32,
    },

    /// The JVM does not catch SIGQUIT, which would kill it instead of starting its attach
    /// listener.
    #[error(
        "the JVM with pid {pid} does not handle SIGQUIT (started with -Xrs?), so its attach \
         listener cannot be started without killing it: restart it without -Xrs or with \
         -XX:+StartAttachListener"
    )]
    SigquitNotHandled {
        /// The JVM.
        pid: u32,
    },

    /// The JVM's perf data still said "starting" at the end of the attach timeout.
    #[error(
        "the JVM with pid {pid} did not finish starting within {}: try again once it runs",
        seconds(*.waited)
    )]
    StillStarting {
        /// The JVM.
        pid: u32,
        /// How long we waited.
        waited: Duration,
    },

    /// The JVM did not open its attach socket in time.
    #[error(
        "the JVM with pid {pid} did not open its attach socket {} within {}{}: try again, or \
         give it a longer attach timeout",
        .socket.display(),
        seconds(*.waited),
        .unchecked.as_deref().map(|why| format!(
            " (heapgrowth could not check that its attach mechanism is enabled: {why}; it may \
             have been started with -XX:+DisableAttachMechanism)"
        )).unwrap_or_default()
    )]
    AttachTimeout {
        /// The JVM.
        pid: u32,
        /// The socket waited for.
        socket: PathBuf,
        /// How long we waited.
        waited: Duration,
        /// Why the capability check could not be made, if it could not.
        unchecked: Option<String>,
    },

    /// Something that is not the JVM's private socket has the socket's name.
    #[error(
        "{} {detail}, so it is not the attach socket of a JVM of this user: remove it if no \
         JVM of yours uses it",
        .socket.display()
    )]
    SocketNotPrivate {
        /// The path.
        socket: PathBuf,
        /// What is wrong with it.
        detail: String,
    },

    /// The JVM ended while we attached to it or waited for its answer.
    #[error("the JVM with pid {pid} ended during {during} (its output or hs_err_pid{pid}.log may say why)")]
    JvmEnded {
        /// The JVM.
        pid: u32,
        /// What we were doing: `attach` or the command.
        during: String,
    },

    /// The JVM runs but sent nothing for the whole reply timeout.
    #[error(
        "the JVM with pid {pid} sent nothing for {} during {command}: it may be stopped or \
         stuck; check it, or give it a longer reply timeout",
        seconds(*.waited)
    )]
    NoReply {
        /// The JVM.
        pid: u32,
        /// The command.
        command: String,
        /// How long it was silent.
        waited: Duration,
    },

    /// The answer does not follow the attach protocol.
    #[error(
        "the JVM with pid {pid} {detail} to {command}: it does not speak attach protocol \
         version 1 as HotSpot does; check that pid {pid} is a HotSpot JVM"
    )]
    BadReply {
        /// The JVM.
        pid: u32,
        /// The command.
        command: String,
        /// What was wrong.
        detail: String,
    },

    /// The JVM answered with a non-zero status.
    #[error("the JVM with pid {pid} refused {command} (status {status}): {message}")]
    CommandFailed {
        /// The JVM.
        pid: u32,
        /// The command.
        command: String,
        /// The status it answered.
        status: i32,
        /// The message it sent with it.
        message: String,
    },

    /// An argument cannot be sent.
    #[error("cannot send {command} to the JVM: {reason}")]
    InvalidArgument {
        /// The command.
        command: String,
        /// What is wrong with the argument and what to do.
        reason: String,
    },

    /// The heap dump's path is not in a private directory of ours, or is taken.
    #[error(
        "cannot dump the heap to {}: {detail}; give a new path in a directory only this user \
         can use (a PrivateTempDir)",
        .path.display()
    )]
    DumpPath {
        /// The path given.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },

    /// The JVM sees another file system (a container) without our dump directory.
    #[error(
        "the JVM with pid {pid} runs in another file system (a container) where {} is not the \
         same directory: run heapgrowth inside that container",
        .dir.display()
    )]
    DumpNotVisible {
        /// The JVM.
        pid: u32,
        /// Our dump directory.
        dir: PathBuf,
    },

    /// The JVM did not write the heap dump.
    #[error("the JVM with pid {pid} could not write the heap dump {}: {message}", .path.display())]
    DumpFailed {
        /// The JVM.
        pid: u32,
        /// The dump's path.
        path: PathBuf,
        /// The JVM's message (or what is wrong with the file).
        message: String,
    },

    /// The histogram text could not be read.
    #[error("cannot read the class histogram of the JVM with pid {pid}: {detail}")]
    HistogramUnreadable {
        /// The JVM.
        pid: u32,
        /// What did not fit.
        detail: String,
    },

    /// The JVM could not load the agent library.
    #[error("the JVM with pid {pid} could not load the agent {}: {message}", .library.display())]
    AgentNotLoaded {
        /// The JVM.
        pid: u32,
        /// The library.
        library: PathBuf,
        /// The JVM's message.
        message: String,
    },

    /// The JVM runs without the Flight Recorder (`--jfr`).
    #[error(
        "the JVM with pid {pid} has its Flight Recorder disabled (started with \
         -XX:-FlightRecorder?): --jfr needs it; start the JVM without that option, or leave out \
         --jfr (heap dumps)"
    )]
    FlightRecorderDisabled {
        /// The JVM.
        pid: u32,
    },

    /// `JFR.start` answered something other than a started recording.
    #[error("the JVM with pid {pid} did not start the JFR recording: {message}")]
    RecordingNotStarted {
        /// The JVM.
        pid: u32,
        /// The JVM's answer, on one line.
        message: String,
    },

    /// `JFR.dump` answered something other than a written file.
    #[error("the JVM with pid {pid} did not dump the JFR recording to {}: {message}", .path.display())]
    RecordingNotDumped {
        /// The JVM.
        pid: u32,
        /// Where the dump was to go.
        path: PathBuf,
        /// The JVM's answer or what is wrong with the file, on one line.
        message: String,
    },

    /// The agent loaded, but its `Agent_OnAttach` returned an error.
    #[error(
        "the agent {} failed to start in the JVM with pid {pid}: its Agent_OnAttach returned \
         {code} (the JVM's output may say why)",
        .library.display()
    )]
    AgentFailed {
        /// The JVM.
        pid: u32,
        /// The library.
        library: PathBuf,
        /// `Agent_OnAttach`'s return value.
        code: i32,
    },

    /// heapgrowth's agent in the JVM refused or failed an allocation sampling command.
    #[error("allocation sampling in the JVM with pid {pid} failed ({command}): {message}")]
    SamplingFailed {
        /// The JVM.
        pid: u32,
        /// The agent's command: `start`, `report` or `stop`.
        command: String,
        /// The agent's reason.
        message: String,
    },

    /// heapgrowth's agent answered, but its reply file is missing or malformed.
    #[error(
        "cannot read the reply of heapgrowth's agent in the JVM with pid {pid} to {command}: \
         {detail} (is {} heapgrowth's agent library?)",
        .library.display()
    )]
    SamplingReplyUnreadable {
        /// The JVM.
        pid: u32,
        /// The agent's command.
        command: String,
        /// The library loaded.
        library: PathBuf,
        /// What is wrong with the reply.
        detail: String,
    },

    /// A file or socket operation failed.
    #[error("cannot {what}: {source}")]
    Io {
        /// What we tried.
        what: String,
        /// The error.
        source: io::Error,
    },
}

fn user_label(user: Option<&str>, uid: u32) -> String {
    match user {
        Some(name) => format!("user {name} (uid {uid})"),
        None => format!("uid {uid}"),
    }
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> AttachError {
    let what = what.into();
    move |source| AttachError::Io { what, source }
}

/// Timeouts of [`Target::attach_with`].
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
    /// with its attach mechanism enabled (see the [module documentation](self) for each check
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
    /// SIGQUIT, see the [module documentation](self)) and waits for its socket, at most
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

/// A JVM whose attach listener runs. Each operation opens its own connection, as `jcmd`
/// does; the value holds no connection and can be kept between operations.
#[derive(Debug, Clone)]
pub struct AttachedJvm {
    pid: u32,
    start_time: u64,
    root: PathBuf,
    socket: PathBuf,
    options: AttachOptions,
    /// The JVM's perf-data file, if it has one (for [`AttachedJvm::collections`]).
    perf_file: Option<PathBuf>,
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

/// The JVM's message on one line (lines joined with " / "), or `empty` if there is none.
pub(super) fn one_line(text: &str, empty: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    if joined.is_empty() {
        empty.to_string()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line_and_say_what_to_do() {
        let other = AttachError::OtherUser {
            pid: 42,
            uid: 65534,
            user: Some("nobody".into()),
            own_uid: 0,
            own_user: Some("root".into()),
        };
        assert_eq!(
            other.to_string(),
            "pid 42 runs as user nobody (uid 65534), heapgrowth watches only JVMs of its own \
             user root (uid 0): run heapgrowth as user nobody"
        );
        let unnamed = AttachError::OtherUser {
            pid: 42,
            uid: 1234,
            user: None,
            own_uid: 1000,
            own_user: None,
        };
        assert_eq!(
            unnamed.to_string(),
            "pid 42 runs as uid 1234, heapgrowth watches only JVMs of its own user (uid 1000): \
             run heapgrowth as uid 1234"
        );
        let timeout = AttachError::AttachTimeout {
            pid: 7,
            socket: "/tmp/.java_pid7".into(),
            waited: Duration::from_millis(10_050),
            unchecked: Some("it has no perf data file (it may run with -XX:-UsePerfData)".into()),
        };
        let text = timeout.to_string();
        assert!(text.contains("within 10.1 s"), "{text}");
        assert!(text.contains("-XX:-UsePerfData"), "{text}");
        assert!(text.contains("-XX:+DisableAttachMechanism"), "{text}");
        assert!(!text.contains('\n'));
    }

    #[test]
    fn jvm_messages_are_joined_into_one_line() {
        assert_eq!(
            one_line(
                "Dumping heap to /x ...\nUnable to create /x: File exists\n",
                "-"
            ),
            "Dumping heap to /x ... / Unable to create /x: File exists"
        );
        assert_eq!(one_line("\n \n", "no message"), "no message");
    }

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
