//! What `/proc` tells about a process, and the one signal the attach handshake sends. The only
//! `unsafe` code of the attach module is here (`geteuid`, `pidfd_open`, `pidfd_send_signal`,
//! `kill`).

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::Path;

/// SIGQUIT's bit in the `SigCgt`/`SigIgn` masks of `/proc/<pid>/status` (bit `signal - 1`).
const SIGQUIT_MASK: u64 = 1 << (libc::SIGQUIT - 1);

/// The fields of `/proc/<pid>/status` the attach checks use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    /// `Name:` (the same as `/proc/<pid>/comm`).
    pub name: String,
    /// `Uid:` real, effective, saved and file-system uid.
    pub uids: [u32; 4],
    /// The last `NSpid:` entry: the pid as the process sees itself inside its pid namespace
    /// (a container). Equal to the pid outside containers, and on kernels without `NSpid`.
    pub ns_pid: u32,
    /// `SigCgt:` signals with a handler.
    pub caught: u64,
    /// `SigIgn:` ignored signals.
    pub ignored: u64,
}

impl Status {
    pub fn effective_uid(&self) -> u32 {
        self.uids[1]
    }

    /// The uid the process opens files as (the dump, the attach socket).
    pub fn filesystem_uid(&self) -> u32 {
        self.uids[3]
    }

    /// Whether a SIGQUIT would run a handler rather than its default action (terminate with a
    /// core dump). A HotSpot JVM catches it unless started with `-Xrs`; before its signal
    /// handlers are installed (early start-up) it does not.
    pub fn handles_sigquit(&self) -> bool {
        self.caught & SIGQUIT_MASK != 0 && self.ignored & SIGQUIT_MASK == 0
    }
}

/// Reads `/proc/<pid>/status`.
pub(crate) fn status(pid: u32) -> io::Result<Status> {
    let text = fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_status(&text, pid).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("/proc/{pid}/status lacks the Name, Uid or signal lines"),
        )
    })
}

fn parse_status(text: &str, pid: u32) -> Option<Status> {
    let mut name = None;
    let mut uids = None;
    let mut ns_pid = pid;
    let mut caught = None;
    let mut ignored = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key {
            "Name" => name = Some(value.to_string()),
            "Uid" => {
                let parsed: Vec<u32> = value
                    .split_whitespace()
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .ok()?;
                uids = Some(parsed.try_into().ok()?);
            }
            "NSpid" => ns_pid = value.split_whitespace().last()?.parse().ok()?,
            "SigCgt" => caught = u64::from_str_radix(value, 16).ok(),
            "SigIgn" => ignored = u64::from_str_radix(value, 16).ok(),
            _ => {}
        }
    }
    Some(Status {
        name: name?,
        uids: uids?,
        ns_pid,
        caught: caught?,
        ignored: ignored?,
    })
}

/// The process's start time (clock ticks after boot, field 22 of `/proc/<pid>/stat`) while it
/// runs; `None` once it has ended, zombies included (a child JVM that exited but was not yet
/// reaped still has a `/proc` entry).
pub(crate) fn start_time_if_running(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces and ')'.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // Fields 4..=22 follow the state (field 3); the start time is the 19th of them.
    fields.nth(18)?.parse().ok()
}

/// Which Java virtual machine, if any, a process's memory maps show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VmKind {
    /// `libjvm.so` is mapped and it is not OpenJ9's.
    HotSpot,
    /// Eclipse OpenJ9 (which also ships a `libjvm.so`, but attaches another way).
    OpenJ9,
    /// No JVM library mapped.
    None,
}

/// Classifies `/proc/<pid>/maps` text. A JVM maps `libjvm.so` whether it was started by the
/// `java` launcher or created by an embedding program through JNI; the file may show as
/// `(deleted)` when the JDK was updated while the JVM runs.
pub(crate) fn vm_kind(maps: &str) -> VmKind {
    let mut jvm = false;
    for line in maps.lines() {
        // The path is the sixth field; it may contain spaces, so take the rest of the line.
        let Some(path) = line.splitn(6, char::is_whitespace).nth(5) else {
            continue;
        };
        let path = path.trim();
        let path = path.strip_suffix(" (deleted)").unwrap_or(path);
        let file = path.rsplit('/').next().unwrap_or(path);
        if file.starts_with("libj9vm") {
            return VmKind::OpenJ9;
        }
        jvm |= file == "libjvm.so";
    }
    if jvm {
        VmKind::HotSpot
    } else {
        VmKind::None
    }
}

/// This process's effective uid.
pub(crate) fn effective_uid() -> u32 {
    // Safety: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The name `/etc/passwd` gives `uid`, if any (no NSS lookups: the file is enough for a
/// message, and reading it needs no unsafe code).
pub(crate) fn user_name(uid: u32) -> Option<String> {
    let passwd = fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        (fields.nth(1)?.parse::<u32>().ok()? == uid).then(|| name.to_string())
    })
}

/// A process known by pid and start time, so that a signal never reaches another process that
/// got the pid after the checked one ended. Where the kernel has pidfds (Linux 5.3), the signal
/// goes through one opened while the start time still matched, which rules out pid reuse
/// entirely; elsewhere the start time is checked right before `kill`.
#[derive(Debug)]
pub(crate) struct ProcessHandle {
    pid: u32,
    start_time: u64,
    pidfd: Option<OwnedFd>,
}

impl ProcessHandle {
    /// A handle on `pid` if it still runs and started at `start_time`.
    pub fn open(pid: u32, start_time: u64) -> Option<ProcessHandle> {
        let pidfd = pidfd_open(pid);
        // Checked after opening: if the start time still matches, the pidfd (opened in between)
        // refers to the process that was checked.
        (start_time_if_running(pid)? == start_time).then_some(ProcessHandle {
            pid,
            start_time,
            pidfd,
        })
    }

    /// Whether the process still runs (not ended, not a zombie, pid not reused).
    pub fn is_running(&self) -> bool {
        start_time_if_running(self.pid) == Some(self.start_time)
    }

    /// Sends SIGQUIT. Fails with `ESRCH` when the process has ended.
    pub fn send_sigquit(&self) -> io::Result<()> {
        let result = match &self.pidfd {
            // Safety: the fd is a pidfd we own and keep open for the call; a null siginfo and
            // flags 0 are the documented "like kill()" form.
            Some(fd) => unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    fd.as_raw_fd(),
                    libc::SIGQUIT,
                    std::ptr::null::<libc::siginfo_t>(),
                    0,
                )
            },
            None => {
                if !self.is_running() {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                // Safety: kill has no memory preconditions; the pid is positive (checked by
                // the caller), so it names one process, never a process group.
                i64::from(unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGQUIT) })
            }
        };
        if result == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// `pidfd_open(pid, 0)`, or `None` where the kernel lacks it (or the process is gone).
fn pidfd_open(pid: u32) -> Option<OwnedFd> {
    // Safety: pidfd_open takes a pid and flags and returns a new fd or -1; no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // Safety: the kernel just returned this fd to us and nothing else owns it.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Whether `dir` is the same directory (device and inode) as `other`: used to tell whether a
/// process in another mount namespace sees one of our directories at the same path.
pub(crate) fn same_directory(dir: &Path, other: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(dir), fs::metadata(other)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Abridged `/proc/<pid>/status` of a `java` process (JDK 17, started from a shell that
    /// ignores SIGINT for background jobs).
    const JAVA_STATUS: &str = "Name:\tjava
Umask:\t0022
State:\tS (sleeping)
Tgid:\t23745
NSpid:\t23745
Pid:\t23745
Uid:\t0\t0\t0\t0
Gid:\t0\t0\t0\t0
SigBlk:\t0000000000000000
SigIgn:\t0000000000000002
SigCgt:\t2000000101005ccd
";

    #[test]
    fn status_fields() {
        let s = parse_status(JAVA_STATUS, 23745).unwrap();
        assert_eq!(s.name, "java");
        assert_eq!(s.uids, [0, 0, 0, 0]);
        assert_eq!(s.ns_pid, 23745);
        assert!(s.handles_sigquit());
    }

    #[test]
    fn namespaced_pid_is_the_innermost() {
        let text = JAVA_STATUS.replace("NSpid:\t23745", "NSpid:\t23745\t17\t1");
        assert_eq!(parse_status(&text, 23745).unwrap().ns_pid, 1);
        // Kernels before 4.1 have no NSpid line: the pid is its own.
        let old = JAVA_STATUS.replace("NSpid:\t23745\n", "");
        assert_eq!(parse_status(&old, 23745).unwrap().ns_pid, 23745);
    }

    #[test]
    fn sigquit_not_caught_or_ignored() {
        // `sleep`: no handlers at all, SIGQUIT would kill it.
        let sleep = JAVA_STATUS.replace("2000000101005ccd", "0000000000000000");
        assert!(!parse_status(&sleep, 1).unwrap().handles_sigquit());
        // Caught but also ignored (as a mask): not deliverable to a handler.
        let ignored = JAVA_STATUS.replace("SigIgn:\t0000000000000002", "SigIgn:\t0000000000000004");
        assert!(!parse_status(&ignored, 1).unwrap().handles_sigquit());
    }

    #[test]
    fn which_vm_the_maps_show() {
        let hotspot = "7f5a3c000000-7f5a3d000000 r-xp 00000000 08:01 1234   /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n";
        assert_eq!(vm_kind(hotspot), VmKind::HotSpot);
        let deleted = "7f5a3c000000-7f5a3d000000 r-xp 00000000 08:01 1234   /opt/jdk/lib/server/libjvm.so (deleted)\n";
        assert_eq!(vm_kind(deleted), VmKind::HotSpot);
        let spaces = "7f5a3c000000-7f5a3d000000 r-xp 00000000 08:01 1234   /opt/my jdk/lib/server/libjvm.so\n";
        assert_eq!(vm_kind(spaces), VmKind::HotSpot);
        let openj9 = format!(
            "{hotspot}7f5a3c000000-7f5a3d000000 r-xp 00000000 08:01 99  /opt/j9/lib/default/libj9vm29.so\n"
        );
        assert_eq!(vm_kind(&openj9), VmKind::OpenJ9);
        let sleep = "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 77  /usr/bin/sleep\n7ffd0000-7ffd1000 rw-p 00000000 00:00 0  [stack]\n";
        assert_eq!(vm_kind(sleep), VmKind::None);
        // A library whose name merely contains libjvm is not the JVM.
        let lookalike =
            "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 77  /opt/libjvm.so.backup/x.so\n";
        assert_eq!(vm_kind(lookalike), VmKind::None);
    }

    #[test]
    fn this_process_runs_and_has_a_start_time() {
        let me = std::process::id();
        let started = start_time_if_running(me).unwrap();
        let handle = ProcessHandle::open(me, started).unwrap();
        assert!(handle.is_running());
        // Another start time is another process that once had this pid.
        assert!(ProcessHandle::open(me, started + 1).is_none());
        assert_eq!(user_name(0).as_deref(), Some("root"));
    }
}
