//! Where heapgrowth writes: one policy for every front end (`run`, `diff`, `watch`, the cargo
//! harness, kept heap dumps).
//!
//! Paths come from users and may lie in directories other users write to (`/tmp`, a shared CI
//! workspace). So every output is resolved and checked before any work ([`check_outputs`]):
//! its directory exists and takes a new file, a file already there can be replaced (not another
//! user's in a sticky directory such as `/tmp`), it is no directory and no special file, it is not
//! one of the inputs (by device and inode, so neither a hard link nor a symlink hides one), and
//! no two outputs are the same file. Paths are resolved without following a symbolic link that
//! another user owns (only the user's own and root's are followed): such a link could send the
//! report, or a heap dump, wherever its owner likes. Files are written to a new temporary file
//! beside the target (created exclusively, so nothing planted at its name is followed) and
//! renamed over it ([`write_file`]): a reader never sees half a report, and a failed write
//! leaves the earlier file as it was. Directories made inside a shared directory are made
//! exclusively and checked for owner and mode once made ([`private_dir_in`]).

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// Symbolic links followed while resolving one path before it counts as a loop (Linux's own
/// limit).
const MAX_LINKS: usize = 40;

/// An output path that cannot be written, found before any work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// A symbolic link on the way that another user owns.
    #[error(
        "{flag} {path}: {link} is a symbolic link owned by another user (uid {owner}); heapgrowth \
         does not write through it (name the place it points to, if you trust it)"
    )]
    ForeignSymlink {
        /// The option.
        flag: String,
        /// The path given.
        path: String,
        /// The link.
        link: String,
        /// Its owner.
        owner: u32,
    },
    /// Anything else about one path.
    #[error("{flag} {path}: {why}")]
    Unusable {
        /// The option.
        flag: String,
        /// The path given.
        path: String,
        /// Why, in a few words.
        why: String,
    },
    /// An output that is one of the inputs.
    #[error("{flag} {path} is the same file as the input {input}: it would be replaced")]
    SameAsInput {
        /// The option.
        flag: String,
        /// The path given.
        path: String,
        /// The input.
        input: String,
    },
    /// Two outputs that are one file.
    #[error(
        "{flag} {path} and {other_flag} {other} are the same file: one would replace the other"
    )]
    SameAsOutput {
        /// The option.
        flag: String,
        /// The path given.
        path: String,
        /// The other option.
        other_flag: String,
        /// Its path.
        other: String,
    },
}

/// An output file, checked: write it with [`write_file`] at [`OutputFile::target`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// The option that named it (`--output`), for messages.
    pub flag: String,
    /// The path as given, for messages.
    pub given: PathBuf,
    /// Where it is written: the path with the user's own symbolic links resolved.
    pub target: PathBuf,
}

/// Checks the outputs `(flag, path)` against each other and against `inputs` (files the run
/// reads: dumps, ignore files), before any work. See the module's header for what is checked.
pub fn check_outputs(
    outputs: &[(&str, &Path)],
    inputs: &[&Path],
) -> Result<Vec<OutputFile>, OutputError> {
    let mut checked: Vec<(OutputFile, Option<(u64, u64)>)> = Vec::new();
    for &(flag, path) in outputs {
        let shown = || crate::line::escape_line(&path.display().to_string());
        let unusable = |why: String| OutputError::Unusable {
            flag: flag.to_owned(),
            path: shown(),
            why,
        };
        let target = resolve(path).map_err(|error| error.for_option(flag, path))?;
        let existing_meta = match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => return Err(unusable("it is a directory".into())),
            Ok(meta) if !meta.is_file() => {
                return Err(unusable(
                    "it is not a regular file (a report is written to a new file renamed over \
                     it; leave the option out to write to stdout)"
                        .into(),
                ))
            }
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(unusable(e.to_string())),
        };
        let dir = parent_of(&target);
        probe_writable(dir).map_err(|e| {
            unusable(format!(
                "cannot create a file in {}: {e}",
                crate::line::escape_line(&dir.display().to_string())
            ))
        })?;
        let existing = existing_meta.as_ref().map(|meta| (meta.dev(), meta.ino()));
        for input in inputs {
            let same = match (existing, fs::metadata(input)) {
                (Some(id), Ok(meta)) => id == (meta.dev(), meta.ino()),
                _ => false,
            };
            if same {
                return Err(OutputError::SameAsInput {
                    flag: flag.to_owned(),
                    path: shown(),
                    input: crate::line::escape_line(&input.display().to_string()),
                });
            }
        }
        for (other, other_id) in &checked {
            if other.target == target || (existing.is_some() && existing == *other_id) {
                return Err(OutputError::SameAsOutput {
                    flag: flag.to_owned(),
                    path: shown(),
                    other_flag: other.flag.clone(),
                    other: crate::line::escape_line(&other.given.display().to_string()),
                });
            }
        }
        if let Some(why) = existing_meta.and_then(|meta| cannot_replace(dir, &meta)) {
            return Err(unusable(why));
        }
        checked.push((
            OutputFile {
                flag: flag.to_owned(),
                given: path.to_path_buf(),
                target,
            },
            existing,
        ));
    }
    Ok(checked.into_iter().map(|(output, _)| output).collect())
}

/// `path` resolved as [`check_outputs`] resolves an output (made absolute, the user's own and
/// root's symbolic links followed, another user's refused), for a file that is rewritten in
/// place rather than replaced: the JUnit baseline, which parallel test JVMs rewrite under a lock
/// on the file itself. The last component need not exist; every one before it must.
pub fn resolve_output(flag: &str, path: &Path) -> Result<PathBuf, OutputError> {
    resolve(path).map_err(|error| error.for_option(flag, path))
}

/// Writes `bytes` to a new file beside `target` and renames it over `target`. The temporary
/// file is created exclusively with an unpredictable name, so a file or link planted there is
/// never written through; a failed write removes it and leaves `target` as it was.
pub fn write_file(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let (mut file, temporary) = new_temporary_beside(target)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| fs::rename(&temporary, target));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// A new file, opened for writing, in `target`'s directory with a name of its own.
fn new_temporary_beside(target: &Path) -> io::Result<(fs::File, PathBuf)> {
    let mut last = None;
    for _ in 0..16 {
        let mut name = OsString::from(".");
        name.push(target.file_name().unwrap_or_default());
        name.push(format!(".heapgrowth-{:016x}.tmp", random_u64()));
        let temporary = parent_of(target).join(name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .mode(0o666)
            .open(&temporary)
        {
            Ok(file) => return Ok((file, temporary)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Why `file`, which exists in `dir`, cannot be replaced by a rename although `dir` takes new
/// files, or `None`. In a sticky directory (`/tmp`, a shared workspace made like it) the kernel
/// lets only the file's owner, the directory's owner or a process with `CAP_FOWNER` replace or
/// remove an entry. Root has `CAP_FOWNER`: as root the rename always worked, and an ordinary
/// user's run did all its work before the rename failed with EPERM and the report was lost.
fn cannot_replace(dir: &Path, file: &fs::Metadata) -> Option<String> {
    let dir_meta = fs::metadata(dir).ok()?;
    // Safety: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if dir_meta.mode() & libc::S_ISVTX == 0
        || file.uid() == me
        || dir_meta.uid() == me
        || has_cap_fowner()
    {
        return None;
    }
    Some(format!(
        "it is another user's file (uid {}) in a sticky directory ({}), which only its owner, \
         the directory's owner or root may replace; choose another name",
        file.uid(),
        crate::line::escape_line(&dir.display().to_string())
    ))
}

/// `CAP_FOWNER`'s bit in the capability masks of `/proc/self/status` (linux/capability.h).
const CAP_FOWNER: u32 = 3;

/// Whether this process has `CAP_FOWNER` in its effective set (root has; so may a service
/// given it). Without `/proc`, assumed not: the check then refuses what the kernel might allow.
fn has_cap_fowner() -> bool {
    let Ok(status) = fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << CAP_FOWNER) != 0)
}

/// Whether a file can be created in `dir` now: made and removed at once (a read-only file
/// system and ACLs answer too, which permission bits alone would not).
fn probe_writable(dir: &Path) -> io::Result<()> {
    let (_, temporary) = new_temporary_beside(&dir.join("probe"))?;
    fs::remove_file(temporary)
}

/// The directory of `path` (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Checks a directory the user names to keep files in (`--keep-dumps-dir`) before any work:
/// resolved as [`check_outputs`] resolves paths, it must be a directory that takes new files,
/// or not exist yet in one that does. Returns the resolved path.
pub fn check_dir(flag: &str, dir: &Path) -> Result<PathBuf, OutputError> {
    let shown = || crate::line::escape_line(&dir.display().to_string());
    let unusable = |why: String| OutputError::Unusable {
        flag: flag.to_owned(),
        path: shown(),
        why,
    };
    let resolved = resolve(dir).map_err(|error| error.for_option(flag, dir))?;
    let writable_dir = match fs::metadata(&resolved) {
        Ok(meta) if meta.is_dir() => &resolved,
        Ok(_) => return Err(unusable("it is not a directory".into())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => parent_of(&resolved),
        Err(e) => return Err(unusable(e.to_string())),
    };
    probe_writable(writable_dir).map_err(|e| {
        unusable(format!(
            "cannot create files in {}: {e}",
            crate::line::escape_line(&writable_dir.display().to_string())
        ))
    })?;
    Ok(resolved)
}

/// The directory `name` in `shared`, readable and writable by the current user only (0700),
/// made with `mkdir`'s fail-if-exists semantics and checked once made: a real directory (not a
/// link), owned by the current user, mode 0700. One that exists already is used again only if
/// it passes the same check (a directory of an earlier run of the user's); anything else (a
/// link, another user's directory, a group- or world-readable one) is refused. `shared` itself
/// must have been checked ([`check_dir`]); it is made (0700) if missing.
pub fn private_dir_in(shared: &Path, name: &str) -> io::Result<PathBuf> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(shared)?;
    let dir = shared.join(name);
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {
            // The mode asked for is cut by the umask; 0700 is what it must be.
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(&dir)?;
    // Safety: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o7777 != 0o700 {
        return Err(io::Error::other(format!(
            "{} exists and is not a private directory of this user (a {} owned by uid {}, mode \
             {:o}); remove it or choose another directory",
            crate::line::escape_line(&dir.display().to_string()),
            if meta.file_type().is_symlink() {
                "symbolic link"
            } else if meta.is_dir() {
                "directory"
            } else {
                "file"
            },
            meta.uid(),
            meta.mode() & 0o7777
        )));
    }
    Ok(dir)
}

/// Why [`resolve`] failed.
enum Resolve {
    Foreign { link: PathBuf, owner: u32 },
    Io(String),
}

impl Resolve {
    /// The error for option `flag`'s `path`.
    fn for_option(self, flag: &str, path: &Path) -> OutputError {
        let path = crate::line::escape_line(&path.display().to_string());
        match self {
            Resolve::Foreign { link, owner } => OutputError::ForeignSymlink {
                flag: flag.to_owned(),
                path,
                link: crate::line::escape_line(&link.display().to_string()),
                owner,
            },
            Resolve::Io(why) => OutputError::Unusable {
                flag: flag.to_owned(),
                path,
                why,
            },
        }
    }
}

/// `path` made absolute, with its symbolic links followed where they are the current user's or
/// root's; a link another user owns is an error. The last component need not exist (a new
/// output); every one before it must.
fn resolve(path: &Path) -> Result<PathBuf, Resolve> {
    // Safety: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut resolved = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir().map_err(|e| Resolve::Io(format!("no current directory: {e}")))?
    };
    let mut pending: Vec<OsString> = components(path);
    pending.reverse();
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match part.to_str() {
            Some("/") => resolved = PathBuf::from("/"),
            Some(".") => {}
            Some("..") => {
                resolved.pop();
            }
            _ => {
                let candidate = resolved.join(&part);
                match fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        if meta.uid() != me && meta.uid() != 0 {
                            return Err(Resolve::Foreign {
                                link: candidate,
                                owner: meta.uid(),
                            });
                        }
                        links += 1;
                        if links > MAX_LINKS {
                            return Err(Resolve::Io("too many levels of symbolic links".into()));
                        }
                        let target = fs::read_link(&candidate)
                            .map_err(|e| Resolve::Io(format!("{}: {e}", candidate.display())))?;
                        let mut more = components(&target);
                        more.reverse();
                        pending.extend(more);
                    }
                    Ok(_) => resolved = candidate,
                    Err(e) if e.kind() == io::ErrorKind::NotFound && pending.is_empty() => {
                        resolved = candidate
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        return Err(Resolve::Io(format!(
                            "directory {} does not exist",
                            crate::line::escape_line(&candidate.display().to_string())
                        )))
                    }
                    Err(e) => {
                        return Err(Resolve::Io(format!(
                            "{}: {e}",
                            crate::line::escape_line(&candidate.display().to_string())
                        )))
                    }
                }
            }
        }
    }
    Ok(resolved)
}

fn components(path: &Path) -> Vec<OsString> {
    path.components()
        .map(|c| match c {
            Component::RootDir => OsString::from("/"),
            Component::CurDir => OsString::from("."),
            Component::ParentDir => OsString::from(".."),
            Component::Normal(name) => name.to_owned(),
            Component::Prefix(prefix) => prefix.as_os_str().to_owned(),
        })
        .collect()
}

/// 64 bits nobody can guess, for temporary names.
fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    if fs::File::open("/dev/urandom")
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut bytes))
        .is_err()
    {
        // Names are still created exclusively; guessing one only makes this write fail.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        return nanos ^ (std::process::id() as u64) << 32;
    }
    u64::from_ne_bytes(bytes)
}

/// A POSIX record lock (`fcntl(F_SETLKW)`, a write lock on the whole file) held on an open file
/// until dropped: the lock Java's `FileChannel.lock()` takes on Linux, so a Rust writer and a
/// Java one (an older extension in another test JVM) exclude each other. Such a lock belongs to
/// the process, not to the descriptor: any close of *another* descriptor of the same file by this
/// process drops it, and two threads of one process do not exclude each other. So read and write
/// the file only through [`RecordLock::file`], and take a process-wide mutex around the lock
/// when threads may contend (the JUnit extension's tests run in parallel threads).
#[derive(Debug)]
pub struct RecordLock<'f> {
    file: &'f fs::File,
}

impl<'f> RecordLock<'f> {
    /// Waits for and takes a write lock on all of `file` (opened for writing).
    pub fn exclusive(file: &'f fs::File) -> io::Result<Self> {
        loop {
            match set_record_lock(file, libc::F_WRLCK as libc::c_short) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
                Ok(()) => return Ok(Self { file }),
            }
        }
    }

    /// The locked file.
    pub fn file(&self) -> &'f fs::File {
        self.file
    }
}

impl Drop for RecordLock<'_> {
    fn drop(&mut self) {
        // Closing the file would release it too; unlocking first lets a file kept open (or a
        // failed unlock, which there is nothing to do about) not hold others up.
        let _ = set_record_lock(self.file, libc::F_UNLCK as libc::c_short);
    }
}

/// `fcntl(F_SETLKW)` with `kind` (`F_WRLCK`, `F_UNLCK`) over the whole file, as Java's
/// `FileChannel.lock()` asks (start 0, length 0: to the end, however the file grows).
fn set_record_lock(file: &fs::File, kind: libc::c_short) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // Safety: `flock` is plain data, all zero is a valid value of it.
    let mut region: libc::flock = unsafe { std::mem::zeroed() };
    region.l_type = kind;
    region.l_whence = libc::SEEK_SET as libc::c_short;
    region.l_start = 0;
    region.l_len = 0;
    // Safety: the descriptor is open for as long as `file` is borrowed, and `region` is a valid
    // `flock` that fcntl only reads for F_SETLKW.
    let status = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLKW, &region) };
    if status == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "heapgrowth-output-test-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn message(result: Result<Vec<OutputFile>, OutputError>) -> String {
        result.unwrap_err().to_string()
    }

    /// Issue 30, defects 3 and 4: an output that is an input (also through a hard link or a
    /// link of the user's), two outputs that are one file, a directory, a missing or
    /// unwritable directory: each refused before any work.
    #[test]
    fn outputs_that_would_replace_an_input_or_each_other_are_refused() {
        let dir = scratch("refused");
        let input = dir.join("c.hprof");
        fs::write(&input, b"dump").unwrap();
        let hard = dir.join("hard.hprof");
        fs::hard_link(&input, &hard).unwrap();
        let soft = dir.join("soft.txt");
        symlink(&input, &soft).unwrap();
        let report = dir.join("report.txt");
        let inputs = [input.as_path()];
        for same in [&input, &hard, &soft] {
            let text = message(check_outputs(&[("--output", same)], &inputs));
            assert!(text.contains("is the same file as the input"), "{text}");
        }
        let text = message(check_outputs(
            &[("--output", &report), ("--html", &dir.join("./report.txt"))],
            &inputs,
        ));
        assert!(text.contains("are the same file"), "{text}");
        let text = message(check_outputs(&[("--html", &dir)], &inputs));
        assert!(text.ends_with("it is a directory"), "{text}");
        let text = message(check_outputs(
            &[("--output", &dir.join("missing/report.txt"))],
            &inputs,
        ));
        assert!(text.contains("does not exist"), "{text}");
        let closed = dir.join("closed");
        fs::create_dir(&closed).unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o500)).unwrap();
        let result = check_outputs(&[("--output", &closed.join("r.txt"))], &inputs);
        // Root writes anywhere: the check then passes, as the write would.
        if unsafe { libc::geteuid() } != 0 {
            assert!(message(result).contains("cannot create a file in"));
        }
        let fine = check_outputs(
            &[
                ("--output", &report),
                ("--html", &soft.with_extension("html")),
            ],
            &inputs,
        )
        .unwrap();
        assert_eq!(fine[0].target, report);
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            4,
            "the probes left nothing"
        );
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o700)).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_is_written_whole_through_a_rename_and_own_links_are_followed() {
        let dir = scratch("write");
        let real = dir.join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.txt");
        symlink("real.txt", &link).unwrap();
        let checked = check_outputs(&[("--output", &link)], &[]).unwrap();
        assert_eq!(checked[0].target, real);
        write_file(&checked[0].target, b"new").unwrap();
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let mut names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["link.txt", "real.txt"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_private_directory_is_made_exclusively_and_checked() {
        let shared = scratch("private");
        let made = private_dir_in(&shared, "Scenario").unwrap();
        let meta = fs::symlink_metadata(&made).unwrap();
        assert!(meta.is_dir() && meta.mode() & 0o777 == 0o700);
        // Made again by a later run: the same directory.
        assert_eq!(private_dir_in(&shared, "Scenario").unwrap(), made);
        // A link or an open directory at the name is refused, and left as it was.
        let elsewhere = scratch("private-elsewhere");
        symlink(&elsewhere, shared.join("Planted")).unwrap();
        let error = private_dir_in(&shared, "Planted").unwrap_err().to_string();
        assert!(error.contains("a symbolic link owned by uid"), "{error}");
        fs::create_dir(shared.join("Open")).unwrap();
        fs::set_permissions(shared.join("Open"), fs::Permissions::from_mode(0o755)).unwrap();
        let error = private_dir_in(&shared, "Open").unwrap_err().to_string();
        assert!(error.contains("mode 755"), "{error}");
        let mode = fs::metadata(&elsewhere).unwrap().mode() & 0o777;
        assert_ne!(mode, 0o700, "the link's target was not changed");
        fs::remove_dir_all(&shared).unwrap();
        fs::remove_dir_all(&elsewhere).unwrap();
    }
}
