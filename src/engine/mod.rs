//! Runs scenarios end to end: loops, a live heap dump per snapshot into a private directory,
//! the dump read and diffed, the dump deleted.
//!
//! The loop is written once, against [`Driver`]: the command line drives Java `Runnable`s
//! ([`run`](fn@run)); other front ends (a Rust closure calling Java, a JUnit test method)
//! implement [`Driver`] and call [`search`].

pub mod old_object_session;
pub mod settings;

mod budget;
mod dumps;
mod jfr;
mod looped;
mod progress;
mod run;
mod source;
#[cfg(test)]
mod tests;

use std::time::Duration;

use crate::growth::{IgnoreRule, SearchConfig, DEFAULT_WARMUP_LOOPS, MAX_SNAPSHOTS_PER_SEARCH};
use crate::hprof::HprofError;
use crate::jvm::JvmError;
use crate::line::escape_line;

pub use budget::RETAKE_AFTER;
pub use dumps::{settle_kept_dumps, DumpPolicy, KeepDumps};
pub use jfr::{JFR_INTERVAL, MAX_JFR_DUMPS, MAX_JFR_LOOPS_PER_INTERVAL};
pub use looped::{search, Driver};
pub use progress::Progress;
pub use run::{run, RunOptions};
#[cfg(test)]
pub(crate) use source::follower_for;
pub use source::{search_source, Advance, Snapshot, SnapshotSource};

/// The time one scenario's search may take (loops, dumps and their analysis; attribution not
/// included) before confirmation stops where it is. A minute lets a test whose loop takes 50
/// ms reach the confirmation loops; a slower one is reported as confirmed over fewer loops,
/// and the report says so.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(60);

/// How long one scenario may run (constructor, loops, snapshots, attribution) before it is
/// given up as blocked: five times the default time budget, room for slow CI machines and
/// attribution, and still an end to a deadlock inside a CI job's own limit.
pub const DEFAULT_SCENARIO_TIMEOUT: Duration = Duration::from_secs(300);

/// The most `--loops-per-snapshot` may ask for: the gap doubles with each detection snapshot,
/// and a scenario's loops must stay in Java's `int` range.
pub const MAX_LOOPS_PER_SNAPSHOT: u32 = 1000;

/// The most `--confirm-loops` may ask for: confirmation runs up to four times more loops
/// than the last gap, and the total must stay in a `u32`.
pub const MAX_CONFIRM_LOOPS: u32 = 100_000_000;

/// How to search, for every front end: loops, snapshots, time budget, ignore rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// Loops before the first snapshot.
    pub warmup: u32,
    /// Loops per snapshot, detection snapshots and confirmation loops.
    pub search: SearchConfig,
    /// How long one scenario's search may take.
    pub time_budget: Duration,
    /// Which heap dumps of the search to keep in the private directory, listed in
    /// [`ScenarioReport::kept_dumps`](crate::report::ScenarioReport::kept_dumps), for
    /// [`settle_kept_dumps`] to move or delete: none (the default: every dump is deleted once
    /// read), the last two (`keepDumps = failed`), or every one (`--keep-dumps all`: to diff
    /// them later, or open them in another tool).
    pub keep_dumps: DumpPolicy,
    /// Paths left out of the search, reported as ignored. The default is heapgrowth's rules
    /// for known growth of the JDK and of common libraries ([`IgnoreRule::built_in`]); add to
    /// them rather than replacing them unless that growth should count.
    pub ignore_rules: Vec<IgnoreRule>,
    /// JFR old-object samples instead of heap dumps (`--jfr`, for heaps too big to dump): the
    /// loops run in intervals of [`JFR_INTERVAL`], each ended by a dump of the recording (see
    /// [`crate::old_object_session`]). The JVM needs its Flight Recorder and a JDK's `jfr` tool.
    pub jfr: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            warmup: DEFAULT_WARMUP_LOOPS,
            search: SearchConfig::default(),
            time_budget: DEFAULT_TIME_BUDGET,
            keep_dumps: DumpPolicy::Never,
            ignore_rules: IgnoreRule::built_in(),
            jfr: false,
        }
    }
}

impl SearchSettings {
    /// Checks settings that cannot work.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let search = &self.search;
        let invalid = |key, problem: String| Err(InvalidSetting { key, problem });
        if !(1..=MAX_LOOPS_PER_SNAPSHOT).contains(&search.loops_per_snapshot) {
            return invalid(
                "loops_per_snapshot",
                format!(
                    "must be between 1 and {MAX_LOOPS_PER_SNAPSHOT} (the gap between snapshots \
                     doubles from there)"
                ),
            );
        }
        if !(2..=MAX_SNAPSHOTS_PER_SEARCH).contains(&search.max_snapshots) {
            return invalid(
                "max_snapshots",
                format!("must be between 2 and {MAX_SNAPSHOTS_PER_SEARCH}"),
            );
        }
        if self.warmup > MAX_CONFIRM_LOOPS {
            return invalid("warmup", format!("must be at most {MAX_CONFIRM_LOOPS}"));
        }
        if self.search.confirm_loops > MAX_CONFIRM_LOOPS {
            return invalid(
                "confirm_loops",
                format!(
                    "must be at most {MAX_CONFIRM_LOOPS} (the loop count is kept in 32 bits; \
                     the time budget bounds how long confirmation runs)"
                ),
            );
        }
        if self.time_budget.is_zero() {
            return invalid("time_budget", "must be more than 0 seconds".into());
        }
        Ok(())
    }
}

/// A setting whose value cannot work: its key in the [settings table](settings::SETTINGS) and
/// what is wrong with the value. Shown with the setting's name in the front end the user set it
/// through ([`InvalidSetting::message_in`]); `Display` uses the command line's flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidSetting {
    /// The setting's key.
    pub key: &'static str,
    /// What is wrong, as the rest of a sentence whose subject is the setting.
    pub problem: String,
}

impl InvalidSetting {
    /// The message naming the setting as `front_ends` spell it (the first that offers it, the
    /// others in brackets: a JUnit user may have set a system property or an attribute).
    pub fn message_in(&self, front_ends: &[settings::FrontEnd]) -> String {
        let names: Vec<&str> = settings::setting(self.key)
            .map(|setting| {
                let mut names: Vec<&str> = Vec::new();
                for name in front_ends.iter().filter_map(|&f| setting.name_in(f)) {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                names
            })
            .unwrap_or_default();
        match names.split_first() {
            Some((first, [])) => format!("{first} {}", self.problem),
            Some((first, others)) => format!("{first} ({}) {}", others.join(", "), self.problem),
            None => format!("{} {}", self.key, self.problem),
        }
    }
}

impl std::fmt::Display for InvalidSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message_in(&[settings::FrontEnd::Cli]))
    }
}

impl std::error::Error for InvalidSetting {}

/// Errors that stop a whole run (a failing scenario only fails its own report).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The JVM could not be found or started.
    #[error(transparent)]
    Jvm(#[from] JvmError),
    /// The private directory for heap dumps could not be created.
    #[error("cannot create a private directory for heap dumps: {0}")]
    TempDir(#[from] std::io::Error),
    /// A setting that can't work.
    #[error(transparent)]
    InvalidSetting(#[from] InvalidSetting),
}

/// Why one scenario failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The JVM refused the scenario or the scenario threw.
    #[error(transparent)]
    Jvm(#[from] JvmError),
    /// A JVM heapgrowth attached to failed a request, or ended (`heapgrowth watch`).
    #[error(transparent)]
    Attach(#[from] crate::attach::AttachError),
    /// The heap dump could not be read.
    #[error("cannot read heap dump {path}: {source}")]
    Dump {
        /// The dump file (already deleted).
        path: String,
        /// What was wrong with it.
        source: HprofError,
    },
}

/// The error's one-line message, then the Java stack when there is one.
fn describe(error: ScenarioError) -> String {
    // One line, whatever the names in it hold (a class name may contain a newline).
    let mut text = escape_line(&error.to_string());
    if let ScenarioError::Jvm(jvm_error) = &error {
        if let Some(exception) = jvm_error.java_exception() {
            text.push('\n');
            text.push_str(exception.stack_trace().trim_end());
        }
    }
    text
}
