//! Whole-file POSIX record locks (`fcntl(F_SETLKW)`), the lock Java's `FileChannel.lock()`
//! takes: test JVMs that share a baseline file or a report directory (Gradle's
//! `maxParallelForks`) take turns through it. A POSIX lock belongs to the process, not to the
//! descriptor, so two threads of one process do not exclude each other: callers that can run
//! on several threads hold a `Mutex` as well.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// An exclusive lock on a whole file, held until dropped (or until the process closes any
/// descriptor of the file: a POSIX rule, so read and write through the locked one).
#[derive(Debug)]
pub struct FileLock<'f> {
    file: &'f File,
}

impl<'f> FileLock<'f> {
    /// Waits for, then takes, the exclusive lock on all of `file` (opened for writing).
    pub fn exclusive(file: &'f File) -> io::Result<FileLock<'f>> {
        loop {
            match set_lock(file, libc::F_WRLCK as libc::c_short, libc::F_SETLKW) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
                Ok(()) => return Ok(FileLock { file }),
            }
        }
    }
}

impl Drop for FileLock<'_> {
    /// Releases the lock; closing the file would too, so an error here loses nothing.
    fn drop(&mut self) {
        let _ = set_lock(self.file, libc::F_UNLCK as libc::c_short, libc::F_SETLK);
    }
}

/// `fcntl(file, command, {kind, whole file})`.
fn set_lock(file: &File, kind: libc::c_short, command: libc::c_int) -> io::Result<()> {
    // Safety: an all-zero `flock` is a valid value (start 0, length 0: the whole file).
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    // Safety: the descriptor is open for as long as `file` is borrowed, and `lock` is a valid
    // `flock` that outlives the call.
    let result = unsafe { libc::fcntl(file.as_raw_fd(), command, &mut lock) };
    if result == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_taken_released_and_taken_again() {
        let dir = crate::tempdir::PrivateTempDir::new("test").unwrap();
        let file = File::create(dir.path().join("lock")).unwrap();
        drop(FileLock::exclusive(&file).unwrap());
        let _again = FileLock::exclusive(&file).unwrap();
    }
}
