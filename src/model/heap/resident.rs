//! The mapped dump's pages, released as the reader and the walk pass them, so that the
//! process's resident memory stays near the model's instead of growing by the whole dump.
//!
//! The reader maps a dump and reads it in place; every page it touches stays mapped until the
//! mapping goes. Read to the end (the passes, then the walk) a 2.4 GB dump adds 2.4 GB to the
//! resident set, which is what `top`, `/usr/bin/time` and a memory cgroup's accounting of
//! mapped memory show. The reader's passes go front to back, but the walk that builds the
//! path tree then reads records in the order it reaches objects, all over the file: no
//! position says which pages are done with. So the reader (at each segment it scans and each
//! run of objects it indexes) and the walk (at each block of objects) call
//! [`release_if_over_budget`]: once the process's resident file pages exceed what they were
//! before the dumps were read by more than [`RESIDENT_DUMP_BUDGET`], every page of every dump
//! mapping is released with `madvise(MADV_DONTNEED)`. A watcher thread does the same every
//! [`RESIDENT_CHECK_INTERVAL`] for what reads the dump between those calls (the dump
//! follower, the retained-size walk, names). The reading threads look themselves because
//! on a busy machine the watcher waits for a core while they map page after page (measured:
//! with the watcher alone, 0.8 to 2.1 GB of a 2.4 GB dump stayed resident at load 13). A page
//! read again after a release comes back from the page cache: a minor fault, no disk read
//! (the cost is measured in docs/bench.md, "Issue 33").
//!
//! Why `MADV_DONTNEED` on these read-only file mappings, not the alternatives:
//! - `MADV_DONTNEED` removes only this process's page table entries. The page cache keeps the
//!   pages (clean, nobody else's mapping: the first the kernel reclaims under pressure), so a
//!   re-read costs a minor fault, and the bytes read are the file's, as before.
//! - `MADV_COLD` only moves pages to the inactive list: they stay mapped and resident.
//! - `MADV_PAGEOUT` evicts them from the page cache as well: every re-read in the walk would
//!   be a disk read, it throws away the cache the next read of the same dump (another `diff`)
//!   would use, and a dump the JVM has just written is still dirty (it would start writeback).

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Bytes of dump pages the process may keep mapped before it releases them: small beside the
/// model of a dump that large (a 64 MiB dump holds about 1.3 M objects, whose model and
/// analysis take 25 to 30 MB; a 10 M-object dump's take 190 MB), and large enough that the
/// walk re-faults each page only a few times. Dumps smaller than this are never released, so
/// test heaps of up to about a million objects pay nothing. Tests lower it to see releases
/// on small dumps.
pub(crate) const RESIDENT_DUMP_BUDGET: u64 = if cfg!(test) { 2 << 20 } else { 64 << 20 };

/// The most of a mapping of `len` bytes that stays resident at once: the budget, and twice as
/// much again for what is mapped between two looks (a block of the walk's objects lies all
/// over the dump, and each fault maps up to 64 KiB around its page). Measured on a machine
/// with a load of 8, at 10 M and 50 M objects: the resident set's peak was at most 176 MB
/// above the process's own memory (docs/bench.md, "Issue 33").
pub(crate) fn most_resident(len: u64) -> u64 {
    len.min(3 * RESIDENT_DUMP_BUDGET)
}

/// How often the watcher reads the process's resident file pages (`/proc/self/statm`, a few
/// microseconds), while a dump is mapped.
const RESIDENT_CHECK_INTERVAL: Duration = Duration::from_millis(10);

/// A dump mapping whose pages are released once too many are resident. Registered while it
/// lives; unregistered before the mapping goes, which must outlive it (see
/// [`Released::register`]).
pub(crate) struct Released {
    id: u64,
}

impl Released {
    /// Has the pages of `len` bytes of mapping at `start` released whenever the dumps'
    /// resident pages exceed [`RESIDENT_DUMP_BUDGET`]. `None` where the process's
    /// resident pages cannot be read (no `/proc`): the pages then stay mapped, as they would
    /// without this. Where no watcher thread can be started (`ulimit -v`, a thread limit),
    /// only the reader's and the walk's own looks release them.
    ///
    /// # Safety
    ///
    /// `start..start + len` is a read-only mapping of a file (shared or private, never
    /// written through), which stays mapped until the returned value is dropped, and whose
    /// file is not modified while mapped. Releasing its pages then changes no byte that
    /// anything reads through it: a read after a release faults the file's bytes in again.
    pub(crate) unsafe fn register(start: *const u8, len: usize) -> Option<Released> {
        if len == 0 {
            return None;
        }
        start_watcher();
        let mut registry = lock();
        if registry.mappings.is_empty() {
            // What is resident before any dump is read: the binary, the libraries, a JVM's
            // files in the process that hosts one.
            registry.baseline = resident_file_bytes()?;
        }
        let id = registry.next_id;
        registry.next_id += 1;
        registry.mappings.push(Mapping {
            id,
            start: start as usize,
            len,
        });
        WAKE.notify_all();
        Some(Released { id })
    }
}

impl Drop for Released {
    /// Unregisters the mapping; waits for a release in progress, so the caller may unmap it
    /// right after.
    fn drop(&mut self) {
        lock().mappings.retain(|mapping| mapping.id != self.id);
    }
}

/// Releases every page of a read-only dump mapping now (the pages stay in the page cache).
///
/// # Safety
///
/// As for [`Released::register`]: `start..start + len` is a read-only file mapping, mapped
/// for the whole call, whose file does not change.
unsafe fn release(start: *const u8, len: usize) {
    // Safety: the caller's promise; `madvise` needs a page-aligned start, which a mapping
    // has. On an error (none is expected on such a range) the pages simply stay mapped.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
}

struct Mapping {
    id: u64,
    start: usize,
    len: usize,
}

struct Registry {
    mappings: Vec<Mapping>,
    /// The process's resident file bytes without dump pages: read when the first mapping
    /// registers and after each release, and lowered when the process unmaps other files.
    baseline: u64,
    next_id: u64,
    releases: u64,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    mappings: Vec::new(),
    baseline: 0,
    next_id: 0,
    releases: 0,
});

/// Wakes the watcher when a mapping registers.
static WAKE: Condvar = Condvar::new();

fn lock() -> MutexGuard<'static, Registry> {
    // Nothing panics while holding the lock; if something did, the list is still whole.
    REGISTRY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts the watcher thread, once per process (tried once: without it the reading threads'
/// own looks still release the pages). A thread starts with its parent's priority, and only
/// root may raise an idle-priority thread (see [`crate::parallel::back_to_normal_priority`]),
/// so the dump follower calls this before its thread goes to idle priority.
pub(crate) fn start_watcher() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let _ = std::thread::Builder::new()
            .name("heapgrowth-dump-pages".into())
            .spawn(watch);
    });
}

/// The watcher: sleeps while no dump is mapped, else looks every
/// [`RESIDENT_CHECK_INTERVAL`].
fn watch() {
    // Started by whichever thread maps a dump first, which may run at idle priority (a busy
    // machine starves it, and a late look lets the pages pile up): raised where allowed.
    crate::parallel::back_to_normal_priority(crate::parallel::thread_id());
    let mut registry = lock();
    loop {
        registry = if registry.mappings.is_empty() {
            WAKE.wait(registry)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        } else {
            WAKE.wait_timeout(registry, RESIDENT_CHECK_INTERVAL)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0
        };
        release_over_budget(&mut registry);
    }
}

/// Releases the dumps' pages now if more than [`RESIDENT_DUMP_BUDGET`] of them are resident,
/// as the watcher does at each look. The walk calls this too, every few blocks of objects:
/// on a busy machine the watcher can wait for a core while the walk maps page after page.
pub(crate) fn release_if_over_budget() {
    release_over_budget(&mut lock());
}

fn release_over_budget(registry: &mut Registry) {
    if registry.mappings.is_empty() {
        return;
    }
    let Some(resident) = resident_file_bytes() else {
        return;
    };
    // Other files the process unmapped (a JVM's, a graph's that was dropped) lower it.
    registry.baseline = registry.baseline.min(resident);
    if resident > registry.baseline.saturating_add(RESIDENT_DUMP_BUDGET) {
        for mapping in &registry.mappings {
            // Safety: registered mappings stay mapped until they unregister, which waits
            // for the registry's lock, held here; `register`'s caller promised the rest.
            unsafe { release(mapping.start as *const u8, mapping.len) };
        }
        registry.releases += 1;
        registry.baseline = resident_file_bytes().unwrap_or(resident);
    }
}

/// How many times the watcher has released the dumps' pages in this process.
#[cfg(test)]
pub(crate) fn releases() -> u64 {
    lock().releases
}

/// The process's resident file-backed (and shared memory) pages, in bytes: the third field of
/// `/proc/self/statm`, a count the kernel keeps (reading it walks no page tables).
fn resident_file_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(2)?.parse().ok()?;
    // Safety: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages.saturating_mul(u64::try_from(page_size).ok()?))
}

/// The resident bytes of this process's mapping that starts at `start` (its `Rss` line in
/// `/proc/self/smaps`): this mapping's alone, whatever other tests map meanwhile.
#[cfg(test)]
pub(crate) fn mapping_rss(start: *const u8) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let wanted = format!("{:x}-", start as usize);
    let mut lines = smaps.lines().skip_while(|line| !line.starts_with(&wanted));
    assert!(lines.next().is_some(), "no mapping at {wanted}");
    let rss = lines
        .find_map(|line| line.strip_prefix("Rss:"))
        .expect("an Rss line");
    rss.trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .unwrap()
        * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_pages_read_the_same_bytes_again() {
        let path = std::env::temp_dir().join(format!("heapgrowth-pages-{}", std::process::id()));
        let bytes: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let map = memmap2::MmapOptions::new()
            .map_raw_read_only(&file)
            .unwrap();
        // Safety: the mapping is read-only and lives to the end of the test.
        let read = || unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) }.to_vec();
        assert!(read() == bytes);
        assert!(mapping_rss(map.as_ptr()) >= 4 << 20, "all of it read");
        // Safety: as above.
        unsafe { release(map.as_ptr(), map.len()) };
        assert_eq!(mapping_rss(map.as_ptr()), 0, "none of it resident");
        assert!(read() == bytes, "read again from the page cache");
    }
}
