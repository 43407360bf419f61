//! Allocation sampling in a running JVM, for attribution in `heapgrowth watch --pid`: heapgrowth's
//! own agent library, loaded into the JVM through the attach mechanism, samples allocations of
//! a few classes, tags each sampled object with its allocation stack, and counts on request how
//! many of each stack's objects are still alive.
//!
//! The sampling runs inside the JVM, in the agent's C code (see the live-loading comment in
//! `agent/heapgrowth_agent.c`), because nothing of heapgrowth's Rust runs in that process. Each
//! command is one `load` of the library with the command in its options (HotSpot runs
//! `Agent_OnAttach` again on every load of the same library), and the agent answers in a reply
//! file in a private directory of ours that the JVM, running as our user, can write.
//!
//! Its twin, `jvm/jvmti/allocation_sampling.rs`, samples allocations in a JVM heapgrowth
//! started or a test JVM, from Rust through JVMTI: there are two because nothing of
//! heapgrowth's Rust runs in an attached JVM, so here the same recording is the agent's C.
//!
//! What a live-loaded agent can do, and what it cannot:
//! - **Sampling and tagging** are live-phase capabilities (`can_generate_sampled_object_alloc_events`,
//!   `can_tag_objects`): a running HotSpot JVM gives them to an agent loaded into it.
//! - **Field watches** are not: they need `can_generate_field_modification_events`, which only
//!   an agent loaded when the JVM starts (`-agentpath:`, `Agent_OnLoad`) can have. So `watch`
//!   attributes by allocation site only, never by the writes to a field.
//!
//! Sampling is by bytes, not by objects: each thread takes a sample about once every
//! `interval` bytes it allocates (a random distance with that mean), so the counts are of
//! sampled objects. A thread's first sample after the start can come up to HotSpot's previous
//! interval (512 KiB by default) later. Only objects allocated since the start are seen.
//!
//! If heapgrowth ends without [`AttachedSampling::stop`] (Ctrl-C, a crash), its private
//! directories are deleted (a SIGKILL leaves them until the next heapgrowth run removes them),
//! and the agent's watchdog thread sees the reply directory gone within a second and stops
//! the sampling itself: a JVM is never left sampling for the rest of its life.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::{AttachError, AttachedJvm};
use crate::jvm::embedded::{self, ExtractedAgent};
use crate::jvmti::Frame;
use crate::tempdir::PrivateTempDir;

/// The sampling interval [`AttachedSampling::start`] is usually given: 32 KiB, one sample per
/// 32 KiB a thread allocates. HotSpot's default (512 KiB) rarely catches a leak of small
/// objects within a few minutes; 32 KiB catches one of a few kilobytes a second within a
/// minute. The cost is per sample, about half a microsecond of the allocating thread for an
/// unwatched class: a loop that does nothing but allocate (7 GB/s on one thread) loses about
/// 10 % of its allocation rate, a program that does anything between its allocations far less
/// (measured in `docs/bench.md`, "Live allocation sampling").
pub const DEFAULT_SAMPLING_INTERVAL: u32 = 32 * 1024;

/// The most classes one sampling watches (the agent's table of names).
pub const MAX_SAMPLED_CLASSES: usize = 16;

/// How long a drop waits for the JVM to answer `stop`: a stopped or stuck JVM must not hold
/// heapgrowth up for the whole reply timeout. The agent's watchdog stops the sampling anyway
/// once the reply directory is gone.
const STOP_ON_DROP_TIMEOUT: Duration = Duration::from_secs(10);

/// What a frame whose method the JVM no longer knows (its class was unloaded) is named.
const UNLOADED_CLASS: &str = "<unloaded class>";

/// The first line of every reply the agent wrote successfully.
const REPLY_OK: &str = "ok";
/// The first field of a failed command's reply.
const REPLY_ERROR: &str = "error";
/// The last line of a complete report.
const REPORT_END: &str = "end";

/// heapgrowth's agent library, extracted from the heapgrowth binary into a private directory
/// (owner-only, deleted on drop) from which a JVM of our user can load it.
///
/// Keep one for the whole time a JVM is watched: each load of the same path reaches the same
/// loaded library, and so the same sampling; a library extracted again, at another path, is a
/// second copy in the JVM that knows nothing of the first one's sampling.
#[derive(Debug)]
pub struct AgentLibrary {
    extracted: ExtractedAgent,
}

impl AgentLibrary {
    /// Writes the embedded agent library into a new private temporary directory.
    pub fn extract() -> Result<AgentLibrary, AttachError> {
        let extracted = embedded::extract_agent().map_err(|source| AttachError::Io {
            what: "write heapgrowth's agent library into a private temporary directory".into(),
            source,
        })?;
        Ok(AgentLibrary { extracted })
    }

    /// The library's absolute path.
    pub fn path(&self) -> &Path {
        &self.extracted.library
    }
}

/// A class the sampling was asked to watch, and how many loaded classes have that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchedClass {
    /// The class as reports name it (`Leak$Item`, `byte[]`).
    pub name: String,
    /// Class objects of that name the agent found loaded (one per class loader that defines
    /// it); 0 means no object of it could be sampled.
    pub loaded: u32,
}

/// One allocation stack of sampled objects of one class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampledStack {
    /// The class of the objects allocated there.
    pub class: String,
    /// Sampled objects allocated there that are still in the heap.
    pub live_objects: u64,
    /// Objects sampled there since the start, dead ones included.
    pub samples: u64,
    /// The allocation stack, innermost first, at most 64 frames.
    pub frames: Vec<Frame>,
}

/// What the agent counted at one [`AttachedSampling::report`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SamplingReport {
    /// The sampling interval in bytes.
    pub interval_bytes: u32,
    /// Sampled allocations of any class since the start.
    pub sampled_allocations: u64,
    /// Sampled allocations of the watched classes since the start.
    pub samples: u64,
    /// Samples of the watched classes that were not recorded because the stack table was full.
    pub dropped_table_full: u64,
    /// Samples not recorded because the agent already tags as many objects as it may.
    pub dropped_tag_budget: u64,
    /// Samples not recorded because JVMTI failed (stack trace, tag).
    pub dropped_errors: u64,
    /// Samples of the watched classes not recorded because the agent records at most 5,000 a
    /// second (each costs a stack trace): the rest is a subsample, in time order.
    pub skipped: u64,
    /// Sampled objects still in the heap, over all stacks.
    pub tagged_objects: u64,
    /// The watched classes, as asked for.
    pub classes: Vec<WatchedClass>,
    /// Whether more loaded classes matched the names than the agent keeps (the rest are not
    /// sampled).
    pub class_table_full: bool,
    /// The stacks with live objects, most live objects first.
    pub stacks: Vec<SampledStack>,
    /// The JVM's `sun.java.command`: its main class or jar, and the arguments.
    pub java_command: Option<String>,
    /// The JVM's `java.class.path`.
    pub class_path: Option<String>,
    /// The JVM's working directory, as we see it.
    pub working_dir: Option<PathBuf>,
}

impl SamplingReport {
    /// Samples of the watched classes that were not recorded, for all reasons.
    pub fn dropped(&self) -> u64 {
        self.dropped_table_full + self.dropped_tag_budget + self.dropped_errors
    }
}

/// Allocation sampling running in an attached JVM; [`AttachedSampling::stop`] (or dropping
/// it) stops it and removes every tag. One at a time per JVM and [`AgentLibrary`].
#[derive(Debug)]
pub struct AttachedSampling {
    jvm: AttachedJvm,
    library: PathBuf,
    running: bool,
    next_reply: AtomicU32,
    interval_bytes: u32,
    /// Where the agent writes its replies; the agent's watchdog stops the sampling when this
    /// directory is gone. Last, so a drop stops the sampling before the directory goes.
    replies: PrivateTempDir,
}

impl AttachedSampling {
    /// Loads `agent` into `jvm` and starts sampling, about once every `interval_bytes` each
    /// thread allocates (see [`DEFAULT_SAMPLING_INTERVAL`]; 0 samples every allocation), the
    /// allocations of `classes`, named as reports name them (`Leak$Item`, `byte[]`; a JVM
    /// descriptor such as `[B` is taken too). Exact classes only, not subclasses; a class that is
    /// not loaded yet is watched from when it is.
    ///
    /// The interval is the JVM's, for every JVMTI agent in it: a profiler that samples too
    /// sees it changed, and [`AttachedSampling::stop`] sets HotSpot's default (512 KiB) back.
    /// JDK 21 and newer print a warning on the JVM's standard error the first time an agent is
    /// loaded into it (`A JVM TI agent has been loaded dynamically`), unless it was started with
    /// `-XX:+EnableDynamicAgentLoading`; with `-XX:-EnableDynamicAgentLoading` the load fails.
    pub fn start(
        jvm: &AttachedJvm,
        agent: &AgentLibrary,
        classes: &[String],
        interval_bytes: u32,
    ) -> Result<AttachedSampling, AttachError> {
        let invalid = |reason: String| AttachError::InvalidArgument {
            command: "allocation sampling start".into(),
            reason,
        };
        if classes.is_empty() {
            return Err(invalid("name at least one class to sample".into()));
        }
        if classes.len() > MAX_SAMPLED_CLASSES {
            return Err(invalid(format!(
                "{} classes named, the agent samples at most {MAX_SAMPLED_CLASSES} at a time",
                classes.len()
            )));
        }
        if interval_bytes > i32::MAX as u32 {
            return Err(invalid(format!(
                "the interval {interval_bytes} is more than JVMTI takes ({} bytes)",
                i32::MAX
            )));
        }
        let signatures = classes
            .iter()
            .map(|name| {
                signature_of(name).ok_or_else(|| invalid(format!("{name:?} is not a class name")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let replies = PrivateTempDir::new("sampling").map_err(|source| AttachError::Io {
            what: "create a private directory for the agent's replies".into(),
            source,
        })?;
        if !replies.path().to_str().is_some_and(|p| !p.contains(',')) {
            return Err(invalid(format!(
                "the agent's options cannot carry the directory {} (a comma, or not UTF-8): set \
                 TMPDIR to a plainer directory",
                replies.path().display()
            )));
        }
        for dir in [
            replies.path(),
            agent.path().parent().unwrap_or(Path::new("/")),
        ] {
            jvm.check_sees_directory(dir, "agent load")?;
        }
        let mut sampling = AttachedSampling {
            jvm: jvm.clone(),
            library: agent.path().to_path_buf(),
            running: false,
            next_reply: AtomicU32::new(0),
            interval_bytes,
            replies,
        };
        let interval = interval_bytes.to_string();
        let mut args: Vec<&str> = vec![&interval];
        args.extend(signatures.iter().map(String::as_str));
        sampling.command("start", &args, "allocation sampling start")?;
        sampling.running = true;
        Ok(sampling)
    }

    /// The sampling interval in bytes.
    pub fn interval_bytes(&self) -> u32 {
        self.interval_bytes
    }

    /// Changes the running sampling's interval to `interval_bytes` (0 samples every
    /// allocation): the samples taken so far stay, and each thread takes its samples at the new
    /// interval from its next one on. The interval is the JVM's, as at
    /// [`AttachedSampling::start`].
    pub fn set_interval(&mut self, interval_bytes: u32) -> Result<(), AttachError> {
        if interval_bytes > i32::MAX as u32 {
            return Err(AttachError::InvalidArgument {
                command: "allocation sampling interval".into(),
                reason: format!(
                    "the interval {interval_bytes} is more than JVMTI takes ({} bytes)",
                    i32::MAX
                ),
            });
        }
        self.command(
            "interval",
            &[&interval_bytes.to_string()],
            "allocation sampling interval",
        )?;
        self.interval_bytes = interval_bytes;
        Ok(())
    }

    /// Counts the sampled objects of each allocation stack that are still in the heap; with
    /// `live`, after a full garbage collection (JVMTI's, which `-XX:+DisableExplicitGC` does not
    /// prevent), so that unreachable objects are not counted. Right after a live heap dump or
    /// class histogram, which collected already, `false` is enough.
    pub fn report(&self, live: bool) -> Result<SamplingReport, AttachError> {
        let lines = self.command(
            "report",
            &[if live { "1" } else { "0" }],
            "allocation sampling report",
        )?;
        let mut report =
            parse_report(&lines).map_err(|detail| self.unreadable("report", detail))?;
        report.working_dir = fs::read_link(format!("/proc/{}/cwd", self.jvm.pid())).ok();
        Ok(report)
    }

    /// Stops the sampling: events off, every tag removed, the agent's tables freed, the
    /// JVM's sampling interval back at HotSpot's default. The library stays loaded (HotSpot
    /// never unloads an agent), idle, and a later [`AttachedSampling::start`] uses it again.
    pub fn stop(mut self) -> Result<(), AttachError> {
        self.running = false;
        self.command("stop", &[], "allocation sampling stop")
            .map(drop)
    }

    /// Runs one agent command and returns its reply's lines after `ok`.
    fn command(&self, verb: &str, args: &[&str], during: &str) -> Result<Vec<String>, AttachError> {
        self.command_on(&self.jvm, verb, args, during)
    }

    fn command_on(
        &self,
        jvm: &AttachedJvm,
        verb: &str,
        args: &[&str],
        during: &str,
    ) -> Result<Vec<String>, AttachError> {
        let number = self.next_reply.fetch_add(1, Ordering::Relaxed);
        let reply = self.replies.path().join(format!("{verb}-{number}"));
        let reply_text = reply.to_str().expect("checked to be UTF-8 at start");
        let options: Vec<&str> = [verb, reply_text]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let loaded = jvm.load_agent_during(&self.library, &options.join(","), during);
        let text = fs::read_to_string(&reply);
        let _ = fs::remove_file(&reply);
        let _ = fs::remove_file(reply.with_extension("partial"));
        let refused = |text: &str| {
            let first = text.lines().next()?;
            let message = first.strip_prefix(REPLY_ERROR)?.strip_prefix('\t')?;
            Some(AttachError::SamplingFailed {
                pid: self.jvm.pid(),
                command: verb.to_string(),
                message: unescape(message),
            })
        };
        match (loaded, text) {
            (Ok(()), Ok(text)) => {
                let mut lines = text.lines();
                if lines.next() != Some(REPLY_OK) {
                    return Err(refused(&text).unwrap_or_else(|| {
                        self.unreadable(verb, "it does not start with `ok`".into())
                    }));
                }
                Ok(lines.map(str::to_owned).collect())
            }
            (Ok(()), Err(e)) => Err(self.unreadable(verb, format!("the agent wrote none ({e})"))),
            (Err(AttachError::AgentFailed { .. }), Ok(text)) if refused(&text).is_some() => {
                Err(refused(&text).expect("checked"))
            }
            (Err(e), _) => Err(e),
        }
    }

    fn unreadable(&self, verb: &str, detail: String) -> AttachError {
        AttachError::SamplingReplyUnreadable {
            pid: self.jvm.pid(),
            command: verb.to_string(),
            library: self.library.clone(),
            detail,
        }
    }
}

impl Drop for AttachedSampling {
    fn drop(&mut self) {
        if self.running {
            self.running = false;
            // Best effort: a JVM that ended has nothing to stop; one that does not answer now
            // has its watchdog stop the sampling once the reply directory is deleted below.
            let impatient = self
                .jvm
                .with_reply_timeout(STOP_ON_DROP_TIMEOUT.min(self.jvm.options.reply_timeout));
            let _ = self.command_on(&impatient, "stop", &[], "allocation sampling stop");
        }
    }
}

/// The JVM descriptor of a class named as reports name it: `a.B$C` → `La/B$C;`,
/// `int[][]` → `[[I`, `java.lang.String[]` → `[Ljava/lang/String;`; a descriptor of an array
/// (`[B`) stays as it is. `None` for what cannot be a class (a primitive type, an empty name,
/// characters the agent's options or JVM names cannot hold).
pub(crate) fn signature_of(name: &str) -> Option<String> {
    let forbidden =
        |c: char| c == ',' || c == ';' || c == '/' || c.is_control() || c.is_whitespace();
    if let Some(element) = name.strip_prefix('[') {
        let element = element.trim_start_matches('[');
        let valid = match element.strip_prefix('L') {
            Some(class) => class.strip_suffix(';').is_some_and(|c| {
                !c.is_empty() && !c.contains([',', ';', '[']) && !c.chars().any(char::is_control)
            }),
            None => element.len() == 1 && "ZBCSIJFD".contains(element),
        };
        return valid.then(|| name.to_string());
    }
    let mut base = name;
    let mut dimensions = 0;
    while let Some(inner) = base.strip_suffix("[]") {
        base = inner;
        dimensions += 1;
    }
    if base.is_empty() || base.contains(forbidden) || base.contains(['[', ']']) {
        return None;
    }
    let element = match primitive_descriptor(base) {
        Some(_) if dimensions == 0 => return None,
        Some(descriptor) => descriptor.to_string(),
        None => format!("L{};", base.replace('.', "/")),
    };
    Some(format!("{}{element}", "[".repeat(dimensions)))
}

/// A class name as reports give it from its JVM descriptor: `La/B$C;` → `a.B$C`, `[[I` →
/// `int[][]`.
pub(crate) fn name_of(signature: &str) -> String {
    let element = signature.trim_start_matches('[');
    let dimensions = signature.len() - element.len();
    let base = match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
        Some(class) => class.replace('/', "."),
        None => PRIMITIVES
            .iter()
            .find(|(_, d)| element.len() == 1 && element.starts_with(*d))
            .map_or_else(|| element.to_string(), |(n, _)| (*n).to_string()),
    };
    format!("{base}{}", "[]".repeat(dimensions))
}

const PRIMITIVES: [(&str, char); 8] = [
    ("boolean", 'Z'),
    ("byte", 'B'),
    ("char", 'C'),
    ("short", 'S'),
    ("int", 'I'),
    ("long", 'J'),
    ("float", 'F'),
    ("double", 'D'),
];

fn primitive_descriptor(name: &str) -> Option<char> {
    PRIMITIVES.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

/// Undoes the agent's escaping of `\t`, `\n`, `\r` and `\\` in a field.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Reads the lines of a report after its `ok` line (see `report` in the agent): counters, the
/// classes, two system properties, then `stack` lines each followed by its `frame` lines, then
/// `end`. Stacks come out most live objects first.
fn parse_report(lines: &[String]) -> Result<SamplingReport, String> {
    let mut report = SamplingReport::default();
    let mut ended = false;
    for (number, line) in lines.iter().enumerate() {
        let bad = |what: &str| format!("line {} ({what}): {line:?}", number + 2);
        if ended {
            return Err(bad("after the end"));
        }
        let fields: Vec<String> = line.split('\t').map(unescape).collect();
        let count = |i: usize| -> Result<u64, String> {
            fields
                .get(i)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad("not a count"))
        };
        match fields[0].as_str() {
            "interval" => {
                report.interval_bytes =
                    u32::try_from(count(1)?).map_err(|_| bad("interval out of range"))?
            }
            "events" => report.sampled_allocations = count(1)?,
            "samples" => report.samples = count(1)?,
            "dropped-table-full" => report.dropped_table_full = count(1)?,
            "dropped-tag-budget" => report.dropped_tag_budget = count(1)?,
            "dropped-errors" => report.dropped_errors = count(1)?,
            "skipped" => report.skipped = count(1)?,
            "tagged" => report.tagged_objects = count(1)?,
            "class-refs-full" => report.class_table_full = count(1)? != 0,
            "class" if fields.len() == 3 => report.classes.push(WatchedClass {
                name: name_of(&fields[1]),
                loaded: u32::try_from(count(2)?).map_err(|_| bad("count out of range"))?,
            }),
            "property" if fields.len() == 3 => match fields[1].as_str() {
                "sun.java.command" => report.java_command = Some(fields[2].clone()),
                "java.class.path" => report.class_path = Some(fields[2].clone()),
                _ => {}
            },
            "stack" if fields.len() == 4 => report.stacks.push(SampledStack {
                class: name_of(&fields[1]),
                live_objects: count(2)?,
                samples: count(3)?,
                frames: Vec::new(),
            }),
            "frame" if fields.len() == 6 => {
                let stack = report
                    .stacks
                    .last_mut()
                    .ok_or_else(|| bad("a frame before any stack"))?;
                let line: i32 = fields[4].parse().map_err(|_| bad("not a line number"))?;
                let some = |text: &String| (!text.is_empty()).then(|| text.clone());
                stack.frames.push(Frame {
                    class: match fields[1].as_str() {
                        "" => UNLOADED_CLASS.to_string(),
                        signature => name_of(signature),
                    },
                    method: fields[2].clone(),
                    file: some(&fields[3]),
                    line: (line >= 0).then_some(line),
                    code_source: some(&fields[5]),
                });
            }
            REPORT_END if fields.len() == 1 => ended = true,
            _ => return Err(bad("not a report line")),
        }
    }
    if !ended {
        return Err(format!(
            "it ends after {} lines without `end`",
            lines.len() + 1
        ));
    }
    report.stacks.sort_by(|a, b| {
        b.live_objects
            .cmp(&a.live_objects)
            .then(b.samples.cmp(&a.samples))
    });
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_become_descriptors_and_back() {
        for (name, signature) in [
            ("Leak$Item", "LLeak$Item;"),
            ("java.lang.String", "Ljava/lang/String;"),
            ("int[]", "[I"),
            ("java.lang.Object[][]", "[[Ljava/lang/Object;"),
        ] {
            assert_eq!(signature_of(name).as_deref(), Some(signature), "{name}");
            assert_eq!(name_of(signature), name);
        }
        // Descriptors of arrays, as class histograms name them, are taken as they are.
        assert_eq!(signature_of("[B").as_deref(), Some("[B"));
        assert_eq!(
            signature_of("[Ljava.lang.String;").as_deref(),
            Some("[Ljava.lang.String;")
        );
        for not_a_class in ["", "int", "a,b", "a b", "a;b", "[Q", "[L;", "x[]y", "[]"] {
            assert_eq!(signature_of(not_a_class), None, "{not_a_class:?}");
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_report_is_read_with_its_stacks_most_live_first() {
        let report = parse_report(&lines(
            "interval\t32768\nevents\t900\nsamples\t40\ndropped-table-full\t1\n\
             dropped-tag-budget\t2\ndropped-errors\t3\nskipped\t7\ntagged\t12\nclass-refs-full\t0\n\
             class\tLLeak$Item;\t1\nclass\t[I\t0\n\
             property\tsun.java.command\tLeak.java 1000\nproperty\tjava.class.path\t\n\
             stack\tLLeak$Item;\t2\t9\n\
             frame\tLLeak;\tchurn\tLeak.java\t30\tfile:/t/Leak.java\n\
             stack\tLLeak$Item;\t10\t10\n\
             frame\tLLeak;\tleak\tLeak.java\t20\tfile:/t/Leak.java\n\
             frame\tLjava/lang/Thread;\trun\t\t-1\t\n\
             frame\tLa\\tb;\tm\\\\x\tA.java\t1\t\n\
             frame\t\tgone\t\t-1\t\n\
             end",
        ))
        .unwrap();
        assert_eq!(report.interval_bytes, 32768);
        assert_eq!(
            (
                report.sampled_allocations,
                report.samples,
                report.tagged_objects
            ),
            (900, 40, 12)
        );
        assert_eq!(report.dropped(), 6);
        assert_eq!(report.skipped, 7);
        assert_eq!(
            report.classes,
            [
                WatchedClass {
                    name: "Leak$Item".into(),
                    loaded: 1
                },
                WatchedClass {
                    name: "int[]".into(),
                    loaded: 0
                },
            ]
        );
        assert_eq!(report.java_command.as_deref(), Some("Leak.java 1000"));
        assert_eq!(report.class_path.as_deref(), Some(""));
        assert_eq!(report.stacks.len(), 2);
        let leak = &report.stacks[0];
        assert_eq!(
            (leak.class.as_str(), leak.live_objects, leak.samples),
            ("Leak$Item", 10, 10)
        );
        let frames: Vec<String> = leak.frames.iter().map(ToString::to_string).collect();
        assert_eq!(
            frames,
            [
                "Leak.leak(Leak.java:20)",
                "java.lang.Thread.run(Unknown Source)",
                "a\tb.m\\x(A.java:1)",
                "<unloaded class>.gone(Unknown Source)"
            ]
        );
        assert_eq!(
            leak.frames[0].code_source.as_deref(),
            Some("file:/t/Leak.java")
        );
        assert_eq!(leak.frames[1].code_source, None);
        assert_eq!(report.stacks[1].frames[0].method, "churn");
    }

    #[test]
    fn incomplete_or_foreign_reports_are_refused() {
        let err = parse_report(&lines("interval\t1\nsamples\t2")).unwrap_err();
        assert!(err.contains("without `end`"), "{err}");
        let err = parse_report(&lines("frame\tLA;\tm\tA.java\t1\t\nend")).unwrap_err();
        assert!(err.contains("before any stack"), "{err}");
        let err = parse_report(&lines("samples\tmany\nend")).unwrap_err();
        assert!(err.contains("not a count"), "{err}");
        let err = parse_report(&lines("end\nsamples\t1")).unwrap_err();
        assert!(err.contains("after the end"), "{err}");
    }

    #[test]
    fn agent_fields_are_unescaped() {
        assert_eq!(unescape(r"a\tb\nc\\d\re"), "a\tb\nc\\d\re");
        assert_eq!(unescape(r"end\"), "end\\");
    }
}
