//! What the reader refuses to read, as numbers a test can lower: the counts the model numbers
//! with 32-bit indexes, and the memory that reading and analysing a dump will need against what
//! the machine (and its cgroup) has available.
//!
//! The defaults are the real limits; tests build a 10-object dump and lower a limit to 5 to see
//! the error, rather than writing a dump of 2^32 objects.

use std::path::{Path, PathBuf};

use crate::heap::graph::class_word;

/// Limits of one read. [`Default`] gives the real ones; lower a field to test what happens at
/// the limit on a small dump.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadLimits {
    /// Objects (instances, arrays and class objects) the dump may hold. The model numbers
    /// objects with a `u32` ([`crate::heap::ObjectIndex`]): at most `u32::MAX`.
    pub max_objects: u64,
    /// Classes the dump may hold: the class word of an object keeps its kind in 2 bits and
    /// its class in the other 30, so at most 2^30.
    pub max_classes: u64,
    /// Entries of the tables the model numbers with a `u32` besides objects: the reference
    /// fields and the static fields of all classes together, and the frames of all thread
    /// stacks. A JVM writes far fewer; only a corrupt file reaches 2^32.
    pub max_table_entries: u64,
    /// Whether to refuse a dump that plainly cannot be analysed in the memory available.
    pub memory: MemoryCheck,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_objects: u32::MAX as u64,
            max_classes: class_word::MAX_CLASSES,
            max_table_entries: u32::MAX as u64,
            memory: MemoryCheck::Available,
        }
    }
}

impl ReadLimits {
    /// [`ReadLimits::max_objects`], never above what the model can number.
    pub(crate) fn object_limit(&self) -> u64 {
        self.max_objects.min(u32::MAX as u64)
    }

    /// [`ReadLimits::max_classes`], never above what the class word can number.
    pub(crate) fn class_limit(&self) -> u64 {
        self.max_classes.min(class_word::MAX_CLASSES)
    }

    /// [`ReadLimits::max_table_entries`], never above what a `u32` can number.
    pub(crate) fn table_limit(&self) -> u64 {
        self.max_table_entries.min(u32::MAX as u64)
    }
}

/// How [`ReadLimits`] checks memory, once the scan has counted the objects (before the
/// per-object arrays are allocated).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryCheck {
    /// Compare the estimate with what is available now: `MemAvailable + SwapFree` from
    /// `/proc/meminfo`, and the headroom of every memory cgroup the process is in. Skipped
    /// when [`SKIP_MEMORY_CHECK_ENV`] is set, when the estimate is under
    /// [`MEMORY_CHECK_FLOOR`], or where none of those figures can be read (not Linux).
    Available,
    /// Compare the estimate with this many bytes (tests; a caller that knows better).
    Assume(u64),
    /// Do not check.
    Off,
}

/// Set to any value but `0` or empty, this turns the memory check off (for every front end:
/// the error message names it).
pub const SKIP_MEMORY_CHECK_ENV: &str = "HEAPGROWTH_SKIP_MEMORY_CHECK";

/// Bytes per object that parse and analysis of one dump need at their peak, at least: below the
/// lowest peak measured (docs/bench.md, "Issue 16, after": 21.3 bytes per object on the 100 M
/// benchmark heap, 21.9 at 80 M, 22.0 at 20 M, 22.4 at 5 M, 23.3 on the service-shaped heap,
/// 23.8 on the 1 M benchmark heap; fixed costs are spread thinner the larger the heap). The
/// lowest, so the check only refuses what cannot fit; the dump itself is mapped (page cache),
/// not counted here (`available_for` says what a memory cgroup counts of it).
pub const PEAK_BYTES_PER_OBJECT: u64 = 21;

/// Below this estimate the memory check reads nothing: every machine the engine runs on has
/// that much, and small dumps (every unit test's) stay independent of the machine's load.
pub const MEMORY_CHECK_FLOOR: u64 = 64 << 20;

/// A figure of available memory and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Available {
    pub bytes: u64,
    pub source: String,
}

/// The memory the check compares with, or `None` when it doesn't apply. `mapped` is how much
/// of the dump's mapping is resident at once (`heap::resident` releases its pages once more
/// than a budget of them are): a memory cgroup counts those pages as in use, so they come off
/// its headroom. The rest of the dump is page cache the cgroup is charged for but that no
/// process maps, which the kernel reclaims before it kills; the address space holds the
/// whole mapping already.
pub(crate) fn available_for(check: &MemoryCheck, needed: u64, mapped: u64) -> Option<Available> {
    match check {
        MemoryCheck::Off => None,
        MemoryCheck::Assume(bytes) => Some(Available {
            bytes: *bytes,
            source: "the figure the caller gave".into(),
        }),
        MemoryCheck::Available => {
            if skip_requested(std::env::var_os(SKIP_MEMORY_CHECK_ENV))
                || needed < MEMORY_CHECK_FLOOR
            {
                return None;
            }
            probe_available(mapped)
        }
    }
}

/// Whether [`SKIP_MEMORY_CHECK_ENV`]'s value asks to skip the check.
pub(crate) fn skip_requested(value: Option<std::ffi::OsString>) -> bool {
    value.is_some_and(|value| !value.is_empty() && value != "0")
}

/// The smallest of what the system, each memory cgroup of this process (less the dump's
/// `mapped` pages) and the address-space limit have available.
fn probe_available(mapped: u64) -> Option<Available> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let system = meminfo.as_deref().and_then(system_available);
    let self_cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let cgroups = cgroup_readings(Path::new("/sys/fs/cgroup"), &self_cgroup);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let space = address_space_limit().map(|limit| AddressSpace {
        limit,
        in_use: virtual_size(&status).unwrap_or(0),
    });
    smallest_available(system, &cgroups, mapped, space)
}

/// The address-space limit of this process (`ulimit -v`, RLIMIT_AS), if it has one: past it
/// every allocation fails, whatever memory the machine has.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // Safety: getrlimit writes the struct it is given, which lives for the call.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// `VmSize` of `/proc/self/status`, in bytes: the address space in use (the dump's mapping
/// included).
pub(crate) fn virtual_size(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))?;
    let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The address-space limit and what of it is in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AddressSpace {
    pub limit: u64,
    pub in_use: u64,
}

/// `MemAvailable + SwapFree` of `/proc/meminfo`, in bytes (swap counts: it would fit, slowly).
pub(crate) fn system_available(meminfo: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        meminfo.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
    };
    Some(field("MemAvailable")?.saturating_add(field("SwapFree").unwrap_or(0)))
}

/// One memory cgroup's limit and use, in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CgroupReading {
    pub dir: PathBuf,
    pub limit: u64,
    pub usage: u64,
    /// Page cache in `usage` (file pages): the kernel reclaims it before it kills.
    pub reclaimable: u64,
}

impl CgroupReading {
    fn headroom(&self) -> u64 {
        self.limit
            .saturating_sub(self.usage.saturating_sub(self.reclaimable))
    }
}

/// cgroup v1 writes this (or a page-rounded neighbour) for "no limit".
const V1_UNLIMITED: u64 = 1 << 62;

/// The limited memory cgroups of this process, from the one it is in up to the root of the
/// hierarchy (a parent's limit binds too). `self_cgroup` is `/proc/self/cgroup`; cgroup v2 has
/// the line `0::PATH` and files under `root`, v1 a line `N:memory:PATH` and files under
/// `root/memory`.
pub(crate) fn cgroup_readings(root: &Path, self_cgroup: &str) -> Vec<CgroupReading> {
    let read = |dir: &Path, file: &str| std::fs::read_to_string(dir.join(file)).ok();
    let stat_sum = |text: &str, keys: &[&str]| -> u64 {
        text.lines()
            .filter_map(|line| line.split_once(' '))
            .filter(|(key, _)| keys.contains(key))
            .filter_map(|(_, value)| value.trim().parse::<u64>().ok())
            .sum()
    };
    let mut readings = Vec::new();
    for line in self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let v2 = controllers.is_empty();
        if !v2 && !controllers.split(',').any(|c| c == "memory") {
            continue;
        }
        let mount = if v2 {
            root.to_path_buf()
        } else {
            root.join("memory")
        };
        let leaf = mount.join(path.trim_start_matches('/'));
        // In a container the hierarchy's root may be the container's own cgroup, so the path
        // from /proc/self/cgroup need not exist under the mount: its root still counts.
        let mut dir = if leaf.is_dir() { leaf } else { mount.clone() };
        loop {
            let reading = if v2 {
                let limit = read(&dir, "memory.max").and_then(|t| t.trim().parse().ok());
                let usage = read(&dir, "memory.current").and_then(|t| t.trim().parse().ok());
                let file = read(&dir, "memory.stat").map_or(0, |t| stat_sum(&t, &["file"]));
                limit.zip(usage).map(|(limit, usage)| (limit, usage, file))
            } else {
                let limit = read(&dir, "memory.limit_in_bytes").and_then(|t| t.trim().parse().ok());
                let usage = read(&dir, "memory.usage_in_bytes").and_then(|t| t.trim().parse().ok());
                let file = read(&dir, "memory.stat").map_or(0, |t| {
                    stat_sum(&t, &["total_inactive_file", "total_active_file"])
                });
                limit
                    .zip(usage)
                    .filter(|&(limit, _)| limit < V1_UNLIMITED)
                    .map(|(limit, usage)| (limit, usage, file))
            };
            if let Some((limit, usage, reclaimable)) = reading {
                readings.push(CgroupReading {
                    dir: dir.clone(),
                    limit,
                    usage,
                    reclaimable,
                });
            }
            if dir == mount || !dir.pop() {
                break;
            }
        }
    }
    readings
}

/// The tightest of the system's figure, the cgroups' headroom less the dump's `mapped` pages,
/// and the room left under the address-space limit.
pub(crate) fn smallest_available(
    system: Option<u64>,
    cgroups: &[CgroupReading],
    mapped: u64,
    space: Option<AddressSpace>,
) -> Option<Available> {
    let mut best = system.map(|bytes| Available {
        bytes,
        source: "MemAvailable + SwapFree in /proc/meminfo".into(),
    });
    for cgroup in cgroups {
        let bytes = cgroup.headroom().saturating_sub(mapped);
        if best.as_ref().map_or(true, |b| bytes < b.bytes) {
            best = Some(Available {
                bytes,
                source: format!(
                    "memory cgroup {}: limit {}, {} in use of which {} page cache, less the \
                     dump's {} of mapped pages it will count",
                    cgroup.dir.display(),
                    human_bytes(cgroup.limit),
                    human_bytes(cgroup.usage),
                    human_bytes(cgroup.reclaimable),
                    human_bytes(mapped)
                ),
            });
        }
    }
    if let Some(space) = space {
        let bytes = space.limit.saturating_sub(space.in_use);
        if best.as_ref().map_or(true, |b| bytes < b.bytes) {
            best = Some(Available {
                bytes,
                source: format!(
                    "the address-space limit (ulimit -v) of {}, {} of it in use",
                    human_bytes(space.limit),
                    human_bytes(space.in_use)
                ),
            });
        }
    }
    best
}

/// `1.5 GiB`, `300.0 MiB`, `512 bytes`: for messages.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}
