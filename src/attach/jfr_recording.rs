//! A JFR recording of old-object samples (`watch --jfr`, see [`crate::jfr`]) in a JVM heapgrowth
//! attached to, started, dumped and stopped through diagnostic commands (`JFR.start`,
//! `JFR.dump`, `JFR.stop`), as `jcmd` sends them. The files it dumps are read by
//! [`crate::jfr::JfrTool`].
//!
//! * **Settings.** A `.jfc` file in our private directory (the JVM runs as our user, so it can
//!   read it there) enables `jdk.OldObjectSample` alone, with allocation stacks. Its `cutoff`
//!   (how long the JVM may search for paths to GC roots) is 0: every `JFR.dump` with
//!   `path-to-gc-roots=true` searches without a time limit whatever the settings say (the
//!   dump's snapshot sets the cutoff to `infinity`), and a zero cutoff keeps `JFR.stop` from
//!   searching once more for nothing.
//! * **Size.** On disk (`disk=true`) with `maxsize` bounded. Each dump writes its samples into
//!   every running recording, so without a bound every dump file would hold the samples of
//!   all the dumps before it; `maxage` drops the chunks of earlier dumps (each dump ends a
//!   chunk), and the reader keeps the newest dump's samples whatever the file holds.
//! * **Always stopped.** [`OldObjectRecording`] stops the recording when dropped (errors, an
//!   early return, the first Ctrl-C), and registers a stop with
//!   [`crate::tempdir::run_before_forced_exit`] for a second Ctrl-C, which exits at once.
//! * **Queue size.** The JVM fixes `old-object-queue-size` at start
//!   (`-XX:FlightRecorderOptions:old-object-queue-size=N`); [`QueueSize::of`] reads what the
//!   JVM was given from `VM.flags`.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{one_line, AttachError, AttachedJvm};
use crate::tempdir::ExitAction;

/// The queue size HotSpot uses unless `old-object-queue-size` was set at JVM start.
pub const DEFAULT_OLD_OBJECT_QUEUE_SIZE: u32 = 256;

/// The settings file's name in the private directory.
const SETTINGS_FILE: &str = "heapgrowth-old-objects.jfc";

/// The JFR settings: `jdk.OldObjectSample` only, with stack traces (see the module docs for the
/// cutoff).
const SETTINGS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by heapgrowth for one recording of watch with JFR; deleted with it (no double hyphen in an XML comment). -->
<configuration version="2.0" label="heapgrowth old objects" provider="heapgrowth"
    description="Old-object samples with allocation stacks; paths to GC roots come with each JFR.dump path-to-gc-roots=true">
  <event name="jdk.OldObjectSample">
    <setting name="enabled">true</setting>
    <setting name="stackTrace">true</setting>
    <setting name="cutoff">0 ns</setting>
  </event>
</configuration>
"#;

/// What `JFR.start` answers when it started a recording (JDK 17 to 25).
const STARTED: &str = "Started recording";
/// What `JFR.start` answers in a JVM started with `-XX:-FlightRecorder`.
const DISABLED: &str = "Flight Recorder is disabled";
/// What an error says of a JVM that answered nothing.
const NO_MESSAGE: &str = "it sent no message";
/// What `JFR.dump` answers when it wrote the file.
const DUMPED: &str = "Dumped recording";

/// The bound on the recording's size on disk. The samples of one dump of a full queue of 256
/// take about 10 KB and the metadata of a chunk about 100 KB; 64 MB leaves room for a queue
/// raised to hundreds of thousands.
pub const DEFAULT_MAX_SIZE_BYTES: u64 = 64 << 20;

/// How long the recording keeps a chunk. Each dump starts a chunk, and only the newest dump's
/// samples are read; a second keeps the file of a dump down to that dump's own chunk (the chunk
/// that holds its samples ends as it is written, so it is never older than this).
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(1);

/// How long the stop run at a forced exit may wait for the JVM: the process is quitting.
const STOP_AT_EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Bounds of the recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordingSettings {
    /// `maxsize` of `JFR.start`.
    pub max_size_bytes: u64,
    /// `maxage` of `JFR.start`.
    pub max_age: Duration,
}

impl Default for RecordingSettings {
    fn default() -> RecordingSettings {
        RecordingSettings {
            max_size_bytes: DEFAULT_MAX_SIZE_BYTES,
            max_age: DEFAULT_MAX_AGE,
        }
    }
}

/// The old-object queue of the JVM, as far as its flags tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSize {
    /// Samples the queue holds.
    pub samples: u32,
    /// Whether the JVM was started with `old-object-queue-size` (else [`Self::samples`] is
    /// HotSpot's default).
    pub set_at_start: bool,
}

impl QueueSize {
    /// The queue size `jvm` was started with (`VM.flags` shows `-XX:FlightRecorderOptions=...`
    /// when it was given), else HotSpot's default.
    pub fn of(jvm: &AttachedJvm) -> Result<QueueSize, AttachError> {
        Ok(QueueSize::from_flags(&jvm.jcmd("VM.flags")?))
    }

    /// From the text of `VM.flags`.
    pub fn from_flags(flags: &str) -> QueueSize {
        let set = flags
            .split_whitespace()
            .filter_map(|flag| flag.strip_prefix("-XX:FlightRecorderOptions="))
            .flat_map(|options| options.split(','))
            .filter_map(|option| option.strip_prefix("old-object-queue-size="))
            .filter_map(|n| n.trim().parse::<u32>().ok())
            // The JVM takes the last of a repeated option.
            .next_back();
        QueueSize {
            samples: set.unwrap_or(DEFAULT_OLD_OBJECT_QUEUE_SIZE),
            set_at_start: set.is_some(),
        }
    }
}

/// A running recording of old-object samples; stopped when dropped.
#[derive(Debug)]
pub struct OldObjectRecording {
    jvm: AttachedJvm,
    name: String,
    dir: PathBuf,
    dumps: u32,
    stopped: bool,
    _stop_at_exit: ExitAction,
}

impl OldObjectRecording {
    /// Writes the settings into `dir` (a private directory of ours that the JVM sees at the same
    /// path) and starts the recording `heapgrowth-<random>` in `jvm`.
    pub fn start(
        jvm: &AttachedJvm,
        dir: &Path,
        settings: RecordingSettings,
    ) -> Result<OldObjectRecording, AttachError> {
        let pid = jvm.pid();
        jvm.check_sees_directory(dir, "JFR.start")?;
        let settings_path = dir.join(SETTINGS_FILE);
        fs::write(&settings_path, SETTINGS).map_err(|source| AttachError::Io {
            what: format!("write the JFR settings {}", settings_path.display()),
            source,
        })?;
        let random = crate::tempdir::random_hex().map_err(|source| AttachError::Io {
            what: "draw a random recording name".into(),
            source,
        })?;
        let name = format!("heapgrowth-{}", &random[..16]);
        let reply = jvm.jcmd(&format!(
            "JFR.start name={name} settings={} disk=true maxsize={} maxage={}s",
            argument(&settings_path),
            settings.max_size_bytes,
            settings.max_age.as_secs().max(1)
        ))?;
        if reply.contains(DISABLED) {
            return Err(AttachError::FlightRecorderDisabled { pid });
        }
        if !reply.contains(STARTED) {
            return Err(AttachError::RecordingNotStarted {
                pid,
                message: one_line(&reply, NO_MESSAGE),
            });
        }
        let stop_jvm = jvm.with_reply_timeout(STOP_AT_EXIT_TIMEOUT);
        let stop_name = name.clone();
        let stop_at_exit = crate::tempdir::run_before_forced_exit(move || {
            let _ = stop_jvm.jcmd(&format!("JFR.stop name={stop_name}"));
        });
        Ok(OldObjectRecording {
            jvm: jvm.clone(),
            name,
            dir: dir.to_path_buf(),
            dumps: 0,
            stopped: false,
            _stop_at_exit: stop_at_exit,
        })
    }

    /// The recording's name in the JVM (`heapgrowth-<random>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Dumps the recording with paths to GC roots into a new owner-only file of the private
    /// directory and returns its path; the caller reads and deletes it. The JVM is stopped at a
    /// safepoint while it searches the paths.
    pub fn dump(&mut self) -> Result<PathBuf, AttachError> {
        self.dumps += 1;
        let path = self.dir.join(format!("{}.jfr", self.dumps));
        let pid = self.jvm.pid();
        let failed = |message: String| {
            let _ = fs::remove_file(&path);
            AttachError::RecordingNotDumped {
                pid,
                path: path.clone(),
                message,
            }
        };
        let reply = self.jvm.jcmd(&format!(
            "JFR.dump name={} filename={} path-to-gc-roots=true",
            self.name,
            argument(&path)
        ))?;
        if !reply.contains(DUMPED) {
            return Err(failed(one_line(&reply, NO_MESSAGE)));
        }
        let meta = fs::symlink_metadata(&path).map_err(|e| {
            failed(format!(
                "the JVM reported success but the file is unreadable: {e}"
            ))
        })?;
        if !meta.is_file() || meta.uid() != super::process::effective_uid() {
            return Err(failed(format!(
                "the file is not a regular file of ours (uid {})",
                meta.uid()
            )));
        }
        // The JVM creates it with its umask; the directory keeps others out, the file too.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600))
            .map_err(|e| failed(format!("cannot make it owner-only: {e}")))?;
        Ok(path)
    }

    /// Stops the recording (without writing it anywhere).
    pub fn stop(mut self) -> Result<(), AttachError> {
        self.stop_once()
    }

    fn stop_once(&mut self) -> Result<(), AttachError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        if !self.jvm.is_running() {
            return Ok(());
        }
        self.jvm.jcmd(&format!("JFR.stop name={}", self.name))?;
        Ok(())
    }
}

impl Drop for OldObjectRecording {
    fn drop(&mut self) {
        // Nothing to do about an error here: the JVM ended, or refuses to talk.
        let _ = self.stop_once();
    }
}

/// A path as a diagnostic command argument: the JVM splits arguments at blanks unless they are
/// quoted.
fn argument(path: &Path) -> String {
    let text = path.display().to_string();
    if text.contains(char::is_whitespace) {
        format!("\"{text}\"")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_size_comes_from_the_flags_or_is_the_default() {
        let given = "-XX:CICompilerCount=2 -XX:FlightRecorderOptions=stackdepth=96,old-object-queue-size=4096 -XX:+UseG1GC";
        assert_eq!(
            QueueSize::from_flags(given),
            QueueSize {
                samples: 4096,
                set_at_start: true
            }
        );
        assert_eq!(
            QueueSize::from_flags("-XX:CICompilerCount=2 -XX:+UseG1GC"),
            QueueSize {
                samples: 256,
                set_at_start: false
            }
        );
    }

    #[test]
    fn settings_enable_the_old_object_event_alone_with_stacks() {
        assert_eq!(SETTINGS.matches("<event ").count(), 1);
        // XML forbids `--` in a comment: JFR would refuse the whole file.
        for comment in SETTINGS.split("<!--").skip(1) {
            let body = comment.split("-->").next().unwrap();
            assert!(!body.contains("--"), "{body}");
        }
        assert!(SETTINGS.contains(r#"<event name="jdk.OldObjectSample">"#));
        assert!(SETTINGS.contains(r#"<setting name="stackTrace">true</setting>"#));
    }

    #[test]
    fn paths_with_blanks_are_quoted() {
        assert_eq!(argument(Path::new("/tmp/a/1.jfr")), "/tmp/a/1.jfr");
        assert_eq!(argument(Path::new("/tmp/a b/1.jfr")), "\"/tmp/a b/1.jfr\"");
    }
}
