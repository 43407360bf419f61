//! Reading old-object samples from a `.jfr` file.
//!
//! **Which reader, and why.** The JDK's own `jfr print --json` (the `jfr` tool of the watched
//! JVM's JDK), not a reader of the chunk format of our own. Measured on this machine kind
//! (`docs/bench.md`, "watch --jfr"): 0.52 s + 0.17 s per MB of recording (0.27 ms per sample),
//! the fixed part the tool's own JVM starting; one dump of a full default queue (256 samples)
//! is a file of 0.1 to 0.3 MB (most of it the chunk's metadata), read in about half a second,
//! at an interval of seconds to minutes. The tool reads whatever version of the format its JDK
//! writes. The price is a JDK: a JRE has no `jfr`, and then [`JfrTool::for_jvm`] says so. A
//! queue raised to 10 000 samples would take about 3 s per read, and then a reader of our own
//! would pay for itself.
//!
//! The JSON nests every reference of a sample's chain two levels deeper than the one before
//! (`object.referrer.object...`), and JFR keeps up to about 200 references per chain, so it is
//! parsed without serde_json's nesting limit, on a thread with a stack sized for it.
//!
//! Before the tool runs, [`check_recording`] walks the file's chunk headers: a file cut short
//! (a full disk) is one clear error, not whatever the tool prints when its reader runs off the
//! end.

use std::fs;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;

use super::{
    java_class_name, ChainObject, JfrError, JfrFrame, OldObjectSample, Referrer, SampleRoot, Via,
};

/// `FLR\0`: every chunk starts with it.
const CHUNK_MAGIC: &[u8; 4] = b"FLR\0";
/// A chunk header: magic, version, then sizes, offsets and times (big-endian).
const CHUNK_HEADER_BYTES: u64 = 68;
/// Frames `jfr print` keeps per stack: as many as the JVM records by default (the tool's own
/// default is 5).
const STACK_DEPTH: u32 = 64;
/// The event, as the tool filters by name.
const EVENT: &str = "jdk.OldObjectSample";
/// Stack of the thread that parses the tool's JSON: deep enough for chains of a few thousand
/// references, far more than JFR keeps.
const PARSER_STACK_BYTES: usize = 64 << 20;
/// The `static` bit of a field's modifiers.
const ACC_STATIC: u32 = 0x0008;

/// What [`check_recording`] found in a complete file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordingInfo {
    /// Chunks in the file.
    pub chunks: u32,
    /// Bytes.
    pub bytes: u64,
}

/// Checks that `path` is a complete JFR recording: one or more chunks, each with the magic, a
/// version this reader knows (1 or 2), and a size that ends within the file, the last at its end.
pub fn check_recording(path: &Path) -> Result<RecordingInfo, JfrError> {
    let bytes = fs::read(path).map_err(|source| JfrError::Io {
        what: format!("read {}", path.display()),
        source,
    })?;
    check_chunks(&bytes).map_err(|detail| JfrError::Truncated {
        path: path.to_path_buf(),
        detail,
    })
}

fn check_chunks(bytes: &[u8]) -> Result<RecordingInfo, String> {
    let file_len = bytes.len() as u64;
    if file_len == 0 {
        return Err("the file is empty".into());
    }
    let mut offset = 0u64;
    let mut chunks = 0u32;
    while offset < file_len {
        let at = |what: &str| format!("chunk {} at byte {offset}: {what}", chunks + 1);
        let remaining = file_len - offset;
        if remaining < CHUNK_HEADER_BYTES {
            return Err(at(&format!(
                "the file ends {remaining} bytes into its {CHUNK_HEADER_BYTES}-byte header"
            )));
        }
        let header = &bytes[offset as usize..(offset + CHUNK_HEADER_BYTES) as usize];
        if &header[..4] != CHUNK_MAGIC {
            return Err(at("no chunk starts there (not a JFR recording?)"));
        }
        let major = u16::from_be_bytes([header[4], header[5]]);
        if !(1..=2).contains(&major) {
            return Err(at(&format!("unknown format version {major}")));
        }
        let field = |index: usize| {
            let start = 8 + 8 * index;
            u64::from_be_bytes(header[start..start + 8].try_into().expect("8 bytes"))
        };
        let (size, constant_pools, metadata) = (field(0), field(1), field(2));
        if size < CHUNK_HEADER_BYTES {
            return Err(at(&format!(
                "its size is {size} bytes (a chunk the JVM did not finish writing)"
            )));
        }
        if size > remaining {
            return Err(at(&format!(
                "it is {size} bytes long but the file ends {remaining} bytes after its start \
                 (cut short)"
            )));
        }
        for (what, position) in [("constant pools", constant_pools), ("metadata", metadata)] {
            if position < CHUNK_HEADER_BYTES || position >= size {
                return Err(at(&format!(
                    "its {what} at {position} lie outside its {size} bytes"
                )));
            }
        }
        offset += size;
        chunks += 1;
    }
    Ok(RecordingInfo {
        chunks,
        bytes: file_len,
    })
}

/// The samples of the newest dump in a recording file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleDump {
    /// The dump's time, nanoseconds since the Unix epoch (0 when there was no sample).
    pub time: i64,
    /// Its samples, in the file's order.
    pub samples: Vec<OldObjectSample>,
    /// Samples of earlier dumps the file also held (left out).
    pub earlier: usize,
    /// Bytes of the file.
    pub file_bytes: u64,
}

impl SampleDump {
    /// The samples of the newest dump among `samples` (all of one dump share its time: the JVM
    /// writes them with one timestamp).
    pub fn newest(samples: Vec<OldObjectSample>, file_bytes: u64) -> SampleDump {
        let time = samples.iter().map(|s| s.dump_time).max().unwrap_or(0);
        let total = samples.len();
        let samples: Vec<OldObjectSample> = samples
            .into_iter()
            .filter(|s| s.dump_time == time)
            .collect();
        SampleDump {
            time,
            earlier: total - samples.len(),
            samples,
            file_bytes,
        }
    }
}

/// The JDK's `jfr` tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JfrTool {
    path: PathBuf,
}

impl JfrTool {
    /// The `jfr` tool at `path`.
    pub fn at(path: impl Into<PathBuf>) -> JfrTool {
        JfrTool { path: path.into() }
    }

    /// The tool of the JDK the JVM with `pid` runs from: beside its executable (`bin/java`), or
    /// in the JDK of the `libjvm.so` it maps (a program that embeds the JVM), else in
    /// `JAVA_HOME`. An error names every place looked at.
    pub fn for_jvm(pid: u32) -> Result<JfrTool, JfrError> {
        let mut candidates = Vec::new();
        if let Ok(exe) = fs::read_link(format!("/proc/{pid}/exe")) {
            if let Some(bin) = exe.parent() {
                candidates.push(bin.join("jfr"));
            }
        }
        if let Ok(maps) = fs::read_to_string(format!("/proc/{pid}/maps")) {
            if let Some(home) = java_home_of_libjvm(&maps) {
                candidates.push(home.join("bin/jfr"));
            }
        }
        if let Some(home) = std::env::var_os("JAVA_HOME") {
            candidates.push(Path::new(&home).join("bin/jfr"));
        }
        candidates.dedup();
        match candidates.iter().find(|path| is_executable(path)) {
            Some(path) => Ok(JfrTool::at(path)),
            None => Err(JfrError::NoReader {
                tried: if candidates.is_empty() {
                    "the JVM's directory (unreadable) and JAVA_HOME (not set)".into()
                } else {
                    candidates
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            }),
        }
    }

    /// Where the tool is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the file ([`check_recording`]), runs `jfr print --json` on it and returns the
    /// samples of its newest dump.
    pub fn read(&self, recording: &Path) -> Result<SampleDump, JfrError> {
        let info = check_recording(recording)?;
        let failed = |message: String| JfrError::ReadFailed {
            tool: self.path.clone(),
            path: recording.to_path_buf(),
            message,
        };
        let mut child = Command::new(&self.path)
            .arg("print")
            .arg("--json")
            .arg("--stack-depth")
            .arg(STACK_DEPTH.to_string())
            .arg("--events")
            .arg(EVENT)
            .arg(recording)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| JfrError::Io {
                what: format!("run {}", self.path.display()),
                source,
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let parsed = std::thread::Builder::new()
            .name("heapgrowth-jfr-json".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn(move || {
                // Read whole, then parsed: serde_json parses a slice several times faster
                // than a reader, and the output is a few MB.
                let mut json = Vec::new();
                BufReader::new(stdout)
                    .read_to_end(&mut json)
                    .map_err(|e| format!("cannot read its output: {e}"))?;
                parse_samples(&json)
            })
            .map_err(|source| JfrError::Io {
                what: "start a thread to read the JSON".into(),
                source,
            })?
            .join()
            .unwrap_or_else(|_| Err("the JSON parser panicked".into()));
        let status = child.wait().map_err(|source| JfrError::Io {
            what: format!("wait for {}", self.path.display()),
            source,
        })?;
        let errors = errors.join().unwrap_or_default();
        if !status.success() {
            let message = errors
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("it printed nothing on stderr");
            return Err(failed(format!("it exited with {status}: {message}")));
        }
        let samples =
            parsed.map_err(|e| failed(format!("its output is not the JSON expected: {e}")))?;
        Ok(SampleDump::newest(samples, info.bytes))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `<home>` of the first `<home>/lib/server/libjvm.so` (or another VM variant's directory)
/// that `maps` shows.
fn java_home_of_libjvm(maps: &str) -> Option<PathBuf> {
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| path.ends_with("/libjvm.so"))
        .and_then(|path| Path::new(path).ancestors().nth(3).map(Path::to_path_buf))
}

/// Parses the tool's JSON into samples (of every dump the file holds).
pub fn parse_samples(json: &[u8]) -> Result<Vec<OldObjectSample>, String> {
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    deserializer.disable_recursion_limit();
    let document = JsonDocument::deserialize(&mut deserializer).map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    document
        .recording
        .events
        .into_iter()
        .filter(|event| event.kind == EVENT)
        .map(|event| event.values.sample())
        .collect()
}

#[derive(Deserialize)]
struct JsonDocument {
    recording: JsonRecording,
}

#[derive(Deserialize)]
struct JsonRecording {
    events: Vec<JsonEvent>,
}

#[derive(Deserialize)]
struct JsonEvent {
    #[serde(rename = "type")]
    kind: String,
    values: JsonValues,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonValues {
    start_time: String,
    allocation_time: Option<String>,
    object_age: Option<String>,
    last_known_heap_usage: Option<u64>,
    object: Option<JsonObject>,
    array_elements: Option<i64>,
    root: Option<JsonRoot>,
    event_thread: Option<JsonThread>,
    stack_trace: Option<JsonStack>,
}

#[derive(Deserialize)]
struct JsonObject {
    #[serde(rename = "type")]
    class: Option<JsonClass>,
    description: Option<String>,
    referrer: Option<Box<JsonReferrer>>,
}

#[derive(Deserialize)]
struct JsonReferrer {
    array: Option<JsonArray>,
    field: Option<JsonField>,
    object: Option<JsonObject>,
    #[serde(default)]
    skip: i64,
}

#[derive(Deserialize)]
struct JsonArray {
    size: i64,
    index: i64,
}

#[derive(Deserialize)]
struct JsonField {
    name: Option<String>,
    #[serde(default)]
    modifiers: u32,
}

#[derive(Deserialize)]
struct JsonClass {
    #[serde(rename = "classLoader")]
    loader: Option<Box<JsonLoader>>,
    name: Option<String>,
    package: Option<JsonPackage>,
}

#[derive(Deserialize)]
struct JsonLoader {
    #[serde(rename = "type")]
    class: Option<JsonClass>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct JsonPackage {
    module: Option<JsonModule>,
}

#[derive(Deserialize)]
struct JsonModule {
    location: Option<String>,
}

#[derive(Deserialize)]
struct JsonRoot {
    description: Option<String>,
    system: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonThread {
    java_name: Option<String>,
    os_name: Option<String>,
}

#[derive(Deserialize)]
struct JsonStack {
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    frames: Vec<JsonFrame>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonFrame {
    method: Option<JsonMethod>,
    line_number: Option<i64>,
}

#[derive(Deserialize)]
struct JsonMethod {
    #[serde(rename = "type")]
    class: Option<JsonClass>,
    name: Option<String>,
}

impl JsonClass {
    fn java_name(&self) -> String {
        self.name
            .as_deref()
            .map_or_else(|| "<unknown class>".into(), java_class_name)
    }

    fn loader_name(&self) -> Option<String> {
        let loader = self.loader.as_deref()?;
        loader
            .name
            .clone()
            .or_else(|| loader.class.as_ref().map(JsonClass::java_name))
    }
}

impl JsonObject {
    fn chain_object(&self, array_length: Option<u64>) -> ChainObject {
        ChainObject {
            class: self
                .class
                .as_ref()
                .map_or_else(|| "<unknown class>".into(), JsonClass::java_name),
            description: self.description.clone(),
            array_length,
        }
    }
}

impl JsonValues {
    fn sample(self) -> Result<OldObjectSample, String> {
        let dump_time = parse_instant(&self.start_time)?;
        let allocation_time = match &self.allocation_time {
            Some(text) => parse_instant(text)?,
            None => dump_time,
        };
        let age = match &self.object_age {
            Some(text) => parse_duration(text)?,
            None => Duration::from_nanos(dump_time.saturating_sub(allocation_time).max(0) as u64),
        };
        let object = self.object.ok_or("an event without its object")?;
        // HotSpot writes Integer.MIN_VALUE for an object that is no array.
        let array_length = self.array_elements.filter(|&n| n >= 0).map(|n| n as u64);
        let sampled = object.chain_object(array_length);
        let mut referrers = Vec::new();
        let mut next = object.referrer;
        while let Some(referrer) = next {
            let referrer = *referrer;
            let Some(from) = referrer.object else { break };
            let via = match (&referrer.field, &referrer.array) {
                (Some(field), _) => Via::Field {
                    name: field.name.clone().unwrap_or_else(|| "<field>".into()),
                    is_static: field.modifiers & ACC_STATIC != 0,
                },
                (None, Some(array)) => Via::ArrayElement {
                    index: array.index.max(0) as u64,
                },
                (None, None) => Via::Unknown,
            };
            let length = referrer
                .array
                .as_ref()
                .map(|array| array.size.max(0) as u64);
            referrers.push(Referrer {
                via,
                object: from.chain_object(length),
                skipped: referrer.skip.max(0) as u64,
            });
            next = from.referrer;
        }
        let root = self.root.and_then(|root| {
            let system = root.system?;
            Some(SampleRoot {
                system,
                kind: root.kind.unwrap_or_else(|| "<unknown>".into()),
                description: root.description,
            })
        });
        let (stack, stack_truncated) = match self.stack_trace {
            Some(stack) => (
                stack
                    .frames
                    .into_iter()
                    .filter_map(|frame| {
                        let method = frame.method?;
                        let class = method.class?;
                        Some(JfrFrame {
                            class: class.java_name(),
                            method: method.name.unwrap_or_else(|| "<method>".into()),
                            line: frame
                                .line_number
                                .filter(|&line| line >= 0)
                                .and_then(|line| i32::try_from(line).ok()),
                            loader: class.loader_name(),
                            module_location: class
                                .package
                                .and_then(|p| p.module)
                                .and_then(|m| m.location),
                        })
                    })
                    .collect(),
                stack.truncated,
            ),
            None => (Vec::new(), false),
        };
        Ok(OldObjectSample {
            dump_time,
            allocation_time,
            age,
            heap_used_at_last_gc: self.last_known_heap_usage.unwrap_or(0),
            object: sampled,
            referrers,
            root,
            thread: self
                .event_thread
                .and_then(|thread| thread.java_name.or(thread.os_name)),
            stack,
            stack_truncated,
        })
    }
}

/// `2026-12-01T15:04:57.906981998Z` (or with `+01:00`) as nanoseconds since the Unix epoch.
fn parse_instant(text: &str) -> Result<i64, String> {
    let bad = || format!("{text:?} is not a time");
    let (date, rest) = text.split_once('T').ok_or_else(bad)?;
    let mut date_parts = date.splitn(3, '-');
    let number = |part: Option<&str>| part.and_then(|p| p.parse::<i64>().ok()).ok_or_else(bad);
    let (year, month, day) = (
        number(date_parts.next())?,
        number(date_parts.next())?,
        number(date_parts.next())?,
    );
    let (clock, offset_seconds) = if let Some(clock) = rest.strip_suffix('Z') {
        (clock, 0)
    } else {
        let cut = rest.rfind(['+', '-']).ok_or_else(bad)?;
        let (clock, offset) = rest.split_at(cut);
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let (hours, minutes) = offset[1..].split_once(':').ok_or_else(bad)?;
        let hours: i64 = hours.parse().map_err(|_| bad())?;
        let minutes: i64 = minutes.parse().map_err(|_| bad())?;
        (clock, sign * (hours * 3600 + minutes * 60))
    };
    let mut clock_parts = clock.splitn(3, ':');
    let hour: i64 = clock_parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(bad)?;
    let minute: i64 = clock_parts
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(bad)?;
    let seconds = clock_parts.next().ok_or_else(bad)?;
    let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
    let second: i64 = whole.parse().map_err(|_| bad())?;
    let nanos = fraction_nanos(fraction).ok_or_else(bad)?;
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds;
    Ok(seconds * 1_000_000_000 + nanos)
}

/// Up to nine digits after the decimal point as nanoseconds.
fn fraction_nanos(fraction: &str) -> Option<i64> {
    if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let padded = format!("{fraction:0<9}");
    padded.parse().ok()
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian), Howard Hinnant's algorithm.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Java's `Duration.toString()`: `PT4.875355596S`, `PT1M2.5S`, `PT2H`; a negative duration
/// is 0.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration");
    let mut rest = text.strip_prefix("PT").ok_or_else(bad)?;
    let mut nanos: i128 = 0;
    while !rest.is_empty() {
        let cut = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .ok_or_else(bad)?;
        let (number, unit_and_rest) = rest.split_at(cut);
        let unit = unit_and_rest.chars().next().ok_or_else(bad)?;
        let negative = number.starts_with('-');
        let number = number.trim_start_matches('-');
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let whole: i128 = whole.parse().map_err(|_| bad())?;
        let fraction = fraction_nanos(fraction).ok_or_else(bad)? as i128;
        let scale: i128 = match unit {
            'H' => 3600,
            'M' => 60,
            'S' => 1,
            _ => return Err(bad()),
        };
        let part = (whole * 1_000_000_000 + fraction) * scale;
        nanos += if negative { -part } else { part };
        rest = &unit_and_rest[1..];
    }
    Ok(Duration::from_nanos(nanos.clamp(0, u64::MAX as i128) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk header of `size` bytes with its pools and metadata inside it.
    fn chunk(size: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(CHUNK_MAGIC);
        bytes.extend_from_slice(&2u16.to_be_bytes());
        bytes.extend_from_slice(&1u16.to_be_bytes());
        bytes.extend_from_slice(&size.to_be_bytes());
        bytes.extend_from_slice(&(size - 10).to_be_bytes());
        bytes.extend_from_slice(&(size - 20).to_be_bytes());
        bytes.resize(size as usize, 0);
        bytes
    }

    #[test]
    fn whole_chunks_pass_and_a_cut_one_is_named_with_its_offsets() {
        let mut two = chunk(200);
        two.extend(chunk(300));
        assert_eq!(
            check_chunks(&two),
            Ok(RecordingInfo {
                chunks: 2,
                bytes: 500
            })
        );
        let cut = &two[..450];
        assert_eq!(
            check_chunks(cut).unwrap_err(),
            "chunk 2 at byte 200: it is 300 bytes long but the file ends 250 bytes after its \
             start (cut short)"
        );
        assert_eq!(
            check_chunks(&two[..230]).unwrap_err(),
            "chunk 2 at byte 200: the file ends 30 bytes into its 68-byte header"
        );
        assert_eq!(check_chunks(&[]).unwrap_err(), "the file is empty");
        assert!(check_chunks(&b"not a recording. ".repeat(5))
            .unwrap_err()
            .contains("not a JFR recording"));
        let mut unfinished = chunk(200);
        unfinished[8..16].copy_from_slice(&0u64.to_be_bytes());
        assert!(check_chunks(&unfinished)
            .unwrap_err()
            .contains("did not finish writing"));
    }

    #[test]
    fn times_and_durations_as_the_tool_prints_them() {
        assert_eq!(parse_instant("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(
            parse_instant("2026-12-01T15:04:57.906981998Z"),
            Ok(1_796_137_497_906_981_998)
        );
        assert_eq!(
            parse_instant("2026-12-01T16:04:57.9+01:00"),
            Ok(1_796_137_497_900_000_000)
        );
        assert!(parse_instant("yesterday").is_err());
        assert_eq!(
            parse_duration("PT4.875355596S"),
            Ok(Duration::new(4, 875_355_596))
        );
        assert_eq!(
            parse_duration("PT1M2.5S"),
            Ok(Duration::from_millis(62_500))
        );
        assert_eq!(parse_duration("PT2H"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("PT-0.5S"), Ok(Duration::ZERO));
        assert!(parse_duration("5 s").is_err());
    }

    #[test]
    fn libjvm_in_the_maps_names_its_java_home() {
        let maps = "7f00-7f01 r-xp 00000000 08:01 1234 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n";
        assert_eq!(
            java_home_of_libjvm(maps),
            Some(PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"))
        );
        assert_eq!(
            java_home_of_libjvm("7f00-7f01 r-xp 0 0 0 /lib/libc.so\n"),
            None
        );
    }

    /// One event as `jfr print --json` of OpenJDK 17.0.15 prints it (class loaders and
    /// packages shortened to what the reader uses): a `byte[]` in a session held by a static
    /// list, allocated in the session's constructor.
    const ONE_EVENT: &str = r#"{"recording": {"events": [{"type": "jdk.OldObjectSample", "values": {
      "startTime": "2026-12-01T15:04:57.906981998Z", "duration": "PT0.065612755S",
      "eventThread": {"osName": "main", "javaName": "main", "javaThreadId": 1},
      "stackTrace": {"truncated": false, "frames": [
        {"method": {"type": {"classLoader": {"type": {"name": "com\/sun\/tools\/javac\/launcher\/Main$MemoryClassLoader"}, "name": null},
                             "name": "JfrService$Session", "package": null},
                    "name": "<init>", "descriptor": "(J)V"}, "lineNumber": 8, "type": "Inlined"},
        {"method": {"type": {"classLoader": {"type": null, "name": "bootstrap"}, "name": "java\/lang\/reflect\/Method",
                             "package": {"name": "java\/lang", "module": {"name": "java.base", "location": "jrt:\/java.base"}}},
                    "name": "invoke"}, "lineNumber": -1, "type": "Native"}]},
      "allocationTime": "2026-12-01T15:04:53.031626402Z", "objectAge": "PT4.875355596S",
      "lastKnownHeapUsage": 646704128,
      "object": {"address": 1, "type": {"name": "[B"}, "description": null,
        "referrer": {"array": null, "field": {"name": "payload", "modifiers": 16}, "skip": 0,
          "object": {"address": 2, "type": {"name": "JfrService$Session"}, "description": null,
            "referrer": {"array": {"size": 2048, "index": 17}, "field": null, "skip": 3,
              "object": {"address": 3, "type": {"name": "[Ljava\/lang\/Object;"}, "description": null,
                "referrer": {"array": null, "field": {"name": "SESSIONS", "modifiers": 2072}, "skip": 0,
                  "object": {"address": 4, "type": {"name": "java\/lang\/Class"}, "description": "Class Name: JfrService",
                    "referrer": null}}}}}}},
      "arrayElements": 4096,
      "root": {"description": "Thread Name: main", "system": "Threads", "type": "Stack Variable"}}}]}}"#;

    #[test]
    fn an_event_of_the_tool_becomes_a_sample() {
        let samples = parse_samples(ONE_EVENT.as_bytes()).unwrap();
        assert_eq!(samples.len(), 1);
        let sample = &samples[0];
        assert_eq!(sample.object.class, "byte[]");
        assert_eq!(sample.object.array_length, Some(4096));
        assert_eq!(sample.age, Duration::new(4, 875_355_596));
        assert_eq!(sample.heap_used_at_last_gc, 646_704_128);
        assert_eq!(sample.thread.as_deref(), Some("main"));
        let chain: Vec<(String, Via, u64)> = sample
            .referrers
            .iter()
            .map(|r| (r.object.class.clone(), r.via.clone(), r.skipped))
            .collect();
        assert_eq!(
            chain,
            [
                (
                    "JfrService$Session".to_owned(),
                    Via::Field {
                        name: "payload".into(),
                        is_static: false
                    },
                    0
                ),
                (
                    "java.lang.Object[]".to_owned(),
                    Via::ArrayElement { index: 17 },
                    3
                ),
                (
                    "java.lang.Class".to_owned(),
                    Via::Field {
                        name: "SESSIONS".into(),
                        is_static: true
                    },
                    0
                ),
            ]
        );
        assert_eq!(sample.referrers[1].object.array_length, Some(2048));
        assert_eq!(
            sample.referrers[2].object.class_object_name(),
            Some("JfrService")
        );
        assert_eq!(sample.root.as_ref().unwrap().kind, "Stack Variable");
        let frames: Vec<(&str, &str, Option<i32>, bool)> = sample
            .stack
            .iter()
            .map(|f| (f.class.as_str(), f.method.as_str(), f.line, f.is_jdk()))
            .collect();
        assert_eq!(
            frames,
            [
                ("JfrService$Session", "<init>", Some(8), false),
                ("java.lang.reflect.Method", "invoke", None, true)
            ]
        );
        assert_eq!(
            sample.stack[0].loader.as_deref(),
            Some("com.sun.tools.javac.launcher.Main$MemoryClassLoader")
        );
    }

    #[test]
    fn a_chain_deeper_than_serde_jsons_default_limit_is_read() {
        // 300 references: 600 levels of nesting, past serde_json's default of 128.
        let mut object = r#"{"type": {"name": "java/lang/Class"}, "description": "Class Name: Head", "referrer": null}"#.to_owned();
        for _ in 0..300 {
            object = format!(
                r#"{{"type": {{"name": "Node"}}, "referrer": {{"field": {{"name": "next", "modifiers": 0}}, "skip": 0, "object": {object}}}}}"#
            );
        }
        let document = format!(
            r#"{{"recording": {{"events": [{{"type": "jdk.OldObjectSample", "values": {{"startTime": "2026-12-01T15:04:57Z", "object": {object}}}}}]}}}}"#
        );
        let parsed = std::thread::Builder::new()
            .stack_size(PARSER_STACK_BYTES)
            .spawn(move || parse_samples(document.as_bytes()))
            .unwrap()
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(parsed[0].referrers.len(), 300);
    }

    #[test]
    fn only_the_newest_dump_is_kept() {
        let mut older = parse_samples(ONE_EVENT.as_bytes()).unwrap().remove(0);
        older.dump_time -= 5_000_000_000;
        let newer = parse_samples(ONE_EVENT.as_bytes()).unwrap().remove(0);
        let dump = SampleDump::newest(vec![older, newer.clone(), newer.clone()], 10);
        assert_eq!(dump.samples, [newer.clone(), newer.clone()]);
        assert_eq!((dump.time, dump.earlier), (newer.dump_time, 1));
    }

    #[test]
    fn output_that_is_not_the_tools_json_is_an_error() {
        assert!(parse_samples(b"jfr print: file is empty").is_err());
        assert!(parse_samples(br#"{"recording": {"events": [{"type": "jdk.OldObjectSample", "values": {"startTime": "now"}}]}}"#).is_err());
    }
}
