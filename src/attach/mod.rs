//! Attaching to a running HotSpot JVM on Linux the way `jcmd` does, without a JDK: heap dumps,
//! class histograms, diagnostic commands, JFR recordings of old-object samples
//! (`jfr_recording.rs`) and agents for `heapgrowth watch --pid` (`agent_sampling.rs`).
//!
//! The files: `target.rs` checks a process and attaches (everything before the first signal),
//! `attached_jvm.rs` sends requests to a JVM that listens, `error.rs` says what failed.
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

mod agent_sampling;
mod attached_jvm;
mod error;
mod histogram;
mod jfr_recording;
mod perfdata;
mod process;
mod protocol;
mod target;

use std::time::Duration;

pub use agent_sampling::{
    AgentLibrary, AttachedSampling, SampledStack, SamplingReport, WatchedClass,
    DEFAULT_SAMPLING_INTERVAL, MAX_SAMPLED_CLASSES,
};
pub use attached_jvm::{AttachOptions, AttachedJvm};
pub use error::AttachError;
pub use histogram::{ClassCount, ClassHistogram};
pub use jfr_recording::{
    OldObjectRecording, QueueSize, RecordingSettings, DEFAULT_MAX_AGE, DEFAULT_MAX_SIZE_BYTES,
    DEFAULT_OLD_OBJECT_QUEUE_SIZE,
};
pub use target::Target;

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
}
