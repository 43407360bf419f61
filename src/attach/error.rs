//! Why attaching to a JVM, or an operation on it, failed.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

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

pub(super) fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> AttachError {
    let what = what.into();
    move |source| AttachError::Io { what, source }
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
}
