//! Reading a heap dump while the JVM writes it.
//!
//! HotSpot writes a dump front to back, a segment of about 1 MiB at a time, and each segment
//! is complete when it reaches the file (its length is set in the buffer before the write).
//! Writing takes most of a dump's time (four fifths of it for a heap of a million objects;
//! the full collection before it is the rest), so the reader's sequential passes and its
//! indexing can run beside it: when the dump returns, what is left is the lookups and the
//! roots. The JVM keeps both cores busy for much of a dump (the VM thread walks the heap, the
//! calling thread writes the file, collector threads run before), so the follower runs only
//! on idle cores: at normal priority it slowed dumps by as much as it saved.
//!
//! The file is only ever read below the length it had when looked at, and only whole
//! records are read. Anything this way does not handle as the reader does (a sub-record split
//! across segments, objects out of id order, a class dump after the first object, an error)
//! drops what was read ahead, and the finished file is read the usual way: the graph is the
//! same either way, and so are the errors.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread::Thread;
use std::time::Duration;

use super::classes::{self, ResolvedClasses};
use super::index::{self, GrowingColumns, ObjectColumns};
use super::records::{Id4, Id8, IdWidth};
use super::scan::{self, Header, HeapScan, TopLevel, TopLevelScan};
use super::{assemble, check_object_count, read_graph, HprofError, ReadLimits};
use crate::heap::graph::{DumpBytes, DumpMapping};
use crate::heap::HeapGraph;

/// How long finishing waits for the follower to hand over what it read, once it runs at
/// normal priority again: it answers within a millisecond or two when the machine is idle, as
/// it is once the dump returns.
const HAND_OVER_WAIT: Duration = Duration::from_millis(500);

/// How long finishing waits for a follower that could not be given its normal priority back
/// (an unprivileged user: see [`crate::parallel::back_to_normal_priority`]). On an idle machine
/// it answers as fast as at normal priority. On a busy one it gets a millisecond of CPU every
/// few hundred (its weight is 3 against a busy process's 1,024), so waiting longer would only
/// delay the usual read, which then does the work at normal priority.
const IDLE_HAND_OVER_WAIT: Duration = Duration::from_millis(20);

/// How long [`DumpFollower::abandon`] waits for the follower to let go of a failed dump: it
/// looks at `stop` between reads of at most [`MOST_READ_AT_ONCE`].
const ABANDON_WAIT: Duration = Duration::from_secs(10);

/// How often the follower looks at the file's length.
const POLL: Duration = Duration::from_millis(1);

/// New bytes worth reading: fewer wait for the next look (a segment is about 1 MiB).
const READ_AHEAD_STEP: u64 = 256 << 10;

/// Bytes read at most between two looks at `stop` (a few milliseconds of reading): a follower
/// that fell behind and is told to stop hands over (or, left behind, lets go of its memory and
/// the file) after this much, not after the whole backlog. Tests lower it so that their small
/// dumps are read in several bounded steps too.
const MOST_READ_AT_ONCE: u64 = if cfg!(test) { 200 } else { 4 << 20 };

/// Objects the columns have room for at first when no count is expected (a JVM's first dump).
/// They grow as objects come: a large column grows where it is (the allocator remaps its
/// pages), so a small start costs a few small copies, and room never written is never
/// resident. A first dump of a million objects left 6 to 17 ms to read after the dump this
/// way, against 22 to 51 ms when its columns were built after it; the peak resident memory
/// of reading and analysing it rose by 4 MB of 35 (2 to 4 MB of 107 at 5 million objects).
const ROOM_WITHOUT_A_COUNT: usize = 1 << 16;

/// Bytes within which any header [`scan::read_header`] accepts ends.
const HEADER_READ_BYTES: u64 = 64 + 12;

/// Reads a heap dump while another process (or thread) writes it, on a thread of its own.
///
/// Start one before asking the JVM for the dump, at the path it will write; once the dump
/// call has returned, [`finish`](DumpFollower::finish) gives the graph, as [`super::open`]
/// would. Dropping it without finishing tells the thread to stop.
pub struct DumpFollower {
    path: PathBuf,
    limits: ReadLimits,
    stop: Arc<AtomicBool>,
    /// The follower thread, and where it hands over what it read when it stops.
    thread: Option<(Thread, Receiver<Followed>)>,
    /// The follower thread's id for the scheduler (0 until it has started), to give it its
    /// priority back when it must let go of the file at once ([`DumpFollower::abandon`]).
    tid: Arc<AtomicI32>,
}

impl DumpFollower {
    /// Starts following the file that is about to be written at `path`, within the default
    /// [`ReadLimits`], for a dump of about `expected_objects` objects (the last dump's count,
    /// say). Without that count the columns start with room for 65,536 objects and grow as
    /// objects come.
    pub fn start(path: &Path, expected_objects: Option<usize>) -> DumpFollower {
        Self::start_reading_every(
            path,
            ReadLimits::default(),
            expected_objects,
            READ_AHEAD_STEP,
        )
    }

    /// [`start`](Self::start) within other limits, reading ahead whenever `step` new bytes
    /// are there (tests use small dumps).
    pub(super) fn start_reading_every(
        path: &Path,
        limits: ReadLimits,
        expected_objects: Option<usize>,
        step: u64,
    ) -> DumpFollower {
        let stop = Arc::new(AtomicBool::new(false));
        let tid = Arc::new(AtomicI32::new(0));
        // From this thread: one the follower started would have its idle priority for good.
        crate::heap::resident::start_watcher();
        let thread = {
            let (path, limits, stop) = (path.to_path_buf(), limits.clone(), Arc::clone(&stop));
            let (hand_over, handed_over) = std::sync::mpsc::sync_channel(1);
            let its_tid = Arc::clone(&tid);
            std::thread::Builder::new()
                .name("heapgrowth-dump-reader".into())
                .spawn(move || {
                    its_tid.store(crate::parallel::thread_id(), Ordering::Release);
                    crate::parallel::yield_to_every_other_thread();
                    let _ = hand_over.send(follow(&path, &limits, expected_objects, step, &stop));
                })
                // Without a thread the dump is read the usual way once it is written.
                .ok()
                .map(|handle| (handle.thread().clone(), handed_over))
        };
        DumpFollower {
            path: path.to_path_buf(),
            limits,
            stop,
            thread,
            tid,
        }
    }

    /// For a dump that failed (a full disk): stops the thread and waits until it has closed
    /// the file and unmapped it, so that the space of a file deleted now is freed now, not
    /// when a thread that runs only on idle cores gets to look at `stop` (on a busy machine,
    /// after the next scenario had failed for want of that space too). The thread gets its
    /// normal priority back for that where the user may give it (root); elsewhere it still
    /// gets a moment within a second or so, and reads at most 4 MiB before
    /// it looks.
    pub fn abandon(mut self) {
        self.stop.store(true, Ordering::Release);
        let Some((thread, handed_over)) = self.thread.take() else {
            return;
        };
        crate::parallel::back_to_normal_priority(self.tid.load(Ordering::Acquire));
        thread.unpark();
        // What it read is dropped here: its mapping and file with it. Gone (a panic there is
        // a bug) closes them too.
        drop(handed_over.recv_timeout(ABANDON_WAIT));
    }

    /// The graph of the dump, which the writer must have finished: what was read ahead,
    /// completed, or the whole file read the usual way.
    pub fn finish(mut self) -> Result<HeapGraph, HprofError> {
        self.read().0
    }

    /// [`finish`](Self::finish), and whether what was read ahead was used.
    pub(super) fn read(&mut self) -> (Result<HeapGraph, HprofError>, bool) {
        let followed = self.stop_thread();
        let bytes = match final_bytes(&self.path, followed.view) {
            Ok(bytes) => bytes,
            Err(source) => {
                let path = self.path.clone();
                return (Err(HprofError::Io { path, source }), false);
            }
        };
        // Mostly unread (a busy machine left the follower no time), the rest is better read
        // the usual way, which shares it between threads.
        let half_read = |ahead: &ReadAhead| ahead.read_to() >= bytes.as_slice().len() as u64 / 2;
        let completed = followed
            .ahead
            .filter(half_read)
            .and_then(|ahead| ahead.complete(bytes.as_slice(), &self.limits));
        match completed {
            Some(read) => {
                let graph = assemble(
                    bytes,
                    read.header,
                    &read.top,
                    read.scan,
                    read.classes,
                    read.columns,
                    &self.limits,
                );
                (graph, true)
            }
            None => (read_graph(bytes, &self.limits), false),
        }
    }

    /// Stops the thread and takes what it read, if it hands it over within
    /// [`HAND_OVER_WAIT`] ([`IDLE_HAND_OVER_WAIT`] if it still runs only on idle cores). The
    /// engine never waits longer: without its work the dump is read the usual way, and the
    /// thread ends on its own (it looks at `stop` between reads).
    fn stop_thread(&mut self) -> Followed {
        self.stop.store(true, Ordering::Release);
        let Some((thread, handed_over)) = self.thread.take() else {
            return Followed::default();
        };
        // The dump is written and the JVM waits for this read: the thread no longer takes CPU
        // from the dump writer, and on a busy machine, at `SCHED_IDLE`, it would get none
        // (issue 33: every dump then paid the whole wait, and the usual read after it). Only
        // root may raise it: an ordinary user's follower that fell behind is not waited for.
        let raised = crate::parallel::back_to_normal_priority(self.tid.load(Ordering::Acquire));
        // Wakes it if it waits for the file to grow.
        thread.unpark();
        let wait = if raised {
            HAND_OVER_WAIT
        } else {
            IDLE_HAND_OVER_WAIT
        };
        // Late, or gone (a panic there is a bug): the usual read still gives the graph.
        handed_over.recv_timeout(wait).unwrap_or_default()
    }
}

impl Drop for DumpFollower {
    /// Tells the thread to stop, without waiting for it.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some((thread, _)) = self.thread.take() {
            thread.unpark();
        }
    }
}

/// The finished dump's bytes: through the follower's mapping if there is one (its pages are
/// mapped already: a new mapping would fault them all in again, in the analysis), else a new
/// mapping.
fn final_bytes(path: &Path, view: Option<GrowingView>) -> std::io::Result<DumpBytes> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    match view {
        // Safety: the file is finished, `len` bytes long, and not modified any more.
        Some(view) if view.reserved >= len => Ok(DumpBytes::Mapped(unsafe {
            view.mapping.with_len(len as usize)
        })),
        _ => super::map_whole(&file),
    }
}

/// What the follower thread leaves: what it read, and the mapping it read it through.
#[derive(Default)]
struct Followed {
    ahead: Option<ReadAhead>,
    view: Option<GrowingView>,
}

/// The follower thread: reads what has been written until told to stop.
fn follow(
    path: &Path,
    limits: &ReadLimits,
    expected_objects: Option<usize>,
    step: u64,
    stop: &AtomicBool,
) -> Followed {
    let mut file = None;
    let mut followed = Followed::default();
    let mut read_to = 0;
    while !stop.load(Ordering::Acquire) {
        if file.is_none() {
            file = File::open(path).ok();
        }
        if let Some(opened) = &file {
            let Ok(metadata) = opened.metadata() else {
                return Followed::default();
            };
            let len = metadata.len().min(read_to + step.max(MOST_READ_AT_ONCE));
            if len >= read_to + step {
                if followed
                    .view
                    .as_ref()
                    .map_or(true, |view| view.reserved < len)
                {
                    followed.view = GrowingView::map(opened, len);
                }
                let Some(view) = followed.view.as_ref() else {
                    return Followed::default();
                };
                // Safety: the writer has written these bytes and does not change them again.
                let data = unsafe { view.first(len) };
                let ahead = match followed.ahead.as_mut() {
                    Some(ahead) => ahead,
                    None => match scan::read_header(data) {
                        Ok(header) => followed
                            .ahead
                            .insert(ReadAhead::new(header, expected_objects)),
                        // Not all of it there yet (its name takes up to 64 bytes to end).
                        Err(_) if len < HEADER_READ_BYTES => {
                            std::thread::park_timeout(POLL);
                            continue;
                        }
                        Err(_) => return Followed::default(),
                    },
                };
                ahead.advance(data, false, limits);
                if ahead.broken {
                    return Followed::default();
                }
                read_to = len;
                continue;
            }
        }
        std::thread::park_timeout(POLL);
    }
    followed
}

/// Address space a [`GrowingView`] reserves at first: more than the dump of any heap whose
/// analysis fits in this machine kind's memory, and only address space.
const RESERVED_BYTES: u64 = 16 << 30;

/// A read-only mapping of a file that is still growing, reserved past its end so that one
/// mapping serves the whole dump (instead of a new one, and an unmapping, at every look), and
/// then the graph: its pages are mapped by the time the dump returns.
struct GrowingView {
    /// Its pages are released as those of a finished dump's mapping are.
    mapping: DumpMapping,
    reserved: u64,
}

impl GrowingView {
    /// A view of at least `len` bytes of `file`.
    fn map(file: &File, len: u64) -> Option<GrowingView> {
        let reserved = len.max(RESERVED_BYTES).checked_next_power_of_two()?;
        let map = memmap2::MmapOptions::new()
            .len(usize::try_from(reserved).ok()?)
            .map_raw_read_only(file)
            .ok()?;
        // Safety: read-only; of none of its bytes yet (`first` reads only what is written),
        // and the writer does not change what it has written.
        let mapping = unsafe { DumpMapping::new(map, 0) };
        Some(GrowingView { mapping, reserved })
    }

    /// The first `len` bytes.
    ///
    /// # Safety
    ///
    /// `len` is at most the file's length (past it, pages of the mapping fault), and those
    /// bytes don't change while the slice lives.
    unsafe fn first(&self, len: u64) -> &[u8] {
        debug_assert!(len <= self.reserved);
        // Safety: the mapping is `reserved` bytes long; the caller promises the rest.
        unsafe { std::slice::from_raw_parts(self.mapping.as_ptr(), len as usize) }
    }
}

/// What the follower read ahead of the dump's end.
struct ReadAhead {
    header: Header,
    top: TopLevelScan,
    scan: HeapScan,
    /// Segments of `top` already scanned.
    scanned_segments: usize,
    /// The object count last checked against the memory available.
    objects_checked: u64,
    /// Objects the columns have room for when the first ones come: the count expected, else
    /// [`ROOM_WITHOUT_A_COUNT`].
    first_room: usize,
    /// Objects indexed so far, from the first object on.
    indexing: Option<Indexing>,
    /// The objects came out of id order: they are indexed at the end.
    out_of_order: bool,
    /// Something this way doesn't handle: the dump is read the usual way.
    broken: bool,
}

/// The columns being built, with the classes they were built with.
struct Indexing {
    classes: ResolvedClasses,
    /// What the classes were resolved from: if the finished dump has more, the class
    /// indexes in the columns may be wrong.
    class_dumps: usize,
    naming_records: u64,
    columns: GrowingColumns,
    /// Runs of the scan already indexed.
    runs_indexed: usize,
}

/// What a completed read ahead gives [`assemble`].
struct Read {
    header: Header,
    top: TopLevel,
    scan: HeapScan,
    classes: ResolvedClasses,
    columns: ObjectColumns,
}

impl ReadAhead {
    fn new(header: Header, expected_objects: Option<usize>) -> ReadAhead {
        ReadAhead {
            header,
            first_room: expected_objects.unwrap_or(ROOM_WITHOUT_A_COUNT),
            top: TopLevelScan::new(header),
            scan: HeapScan::default(),
            scanned_segments: 0,
            objects_checked: 0,
            indexing: None,
            out_of_order: false,
            broken: false,
        }
    }

    /// Where the records read so far end.
    fn read_to(&self) -> u64 {
        self.top.position()
    }

    /// Reads the whole records of `data`, the dump's first bytes (all of them if `complete`).
    fn advance(&mut self, data: &[u8], complete: bool, limits: &ReadLimits) {
        let advanced = if self.header.id_size == 8 {
            self.advance_with::<Id8>(data, complete, limits)
        } else {
            self.advance_with::<Id4>(data, complete, limits)
        };
        if advanced.is_none() {
            self.broken = true;
            // Gives back the columns' memory at once.
            self.indexing = None;
        }
    }

    fn advance_with<W: IdWidth>(
        &mut self,
        data: &[u8],
        complete: bool,
        limits: &ReadLimits,
    ) -> Option<()> {
        if self.broken {
            return None;
        }
        self.top.advance(data, complete).ok()?;
        let segments = &self.top.top().segments;
        for segment in &segments[self.scanned_segments..] {
            let found = scan::scan_whole_segments::<W>(data, std::slice::from_ref(segment))?;
            self.scan.append(found);
        }
        self.scanned_segments = segments.len();
        // The memory check the usual read makes before indexing, made as objects come: again
        // whenever their count has grown by a sixteenth (it reads /proc for large dumps).
        let objects = self.scan.objects();
        if objects > self.objects_checked + self.objects_checked / 16 {
            check_object_count(&self.scan, limits, data.len() as u64).ok()?;
            self.objects_checked = objects;
        }
        let first_objects_came =
            self.indexing.is_none() && !self.out_of_order && !self.scan.runs.is_empty();
        if first_objects_came {
            let classes = classes::resolve_classes(
                data,
                self.top.top(),
                &self.scan.class_dumps,
                self.header.id_size,
                limits,
            )
            .ok()?;
            self.indexing = Some(Indexing {
                classes,
                class_dumps: self.scan.class_dumps.len(),
                naming_records: self.top.naming_records(),
                columns: GrowingColumns::new(&self.scan, self.first_room),
                runs_indexed: 0,
            });
        }
        if let Some(indexing) = &mut self.indexing {
            for run in &self.scan.runs[indexing.runs_indexed..] {
                if !indexing
                    .columns
                    .add_run::<W>(data, &indexing.classes, run)
                    .ok()?
                {
                    // Out of id order: the usual indexing sorts them, at the end.
                    self.indexing = None;
                    self.out_of_order = true;
                    return Some(());
                }
            }
            indexing.runs_indexed = self.scan.runs.len();
        }
        Some(())
    }

    /// Reads the rest of the finished dump `data` and puts the passes' results together;
    /// `None` where the usual read must do it.
    fn complete(mut self, data: &[u8], limits: &ReadLimits) -> Option<Read> {
        self.advance(data, true, limits);
        if self.broken {
            return None;
        }
        let naming_records = self.top.naming_records();
        let top = self.top.finish(data.len() as u64).ok()?;
        let scan = self.scan;
        check_object_count(&scan, limits, data.len() as u64).ok()?;
        // The classes the columns were built with are the dump's if no class dump or name
        // came after them (resolving them again from the same records gives the same).
        let indexed = self
            .indexing
            .filter(|indexing| {
                indexing.class_dumps == scan.class_dumps.len()
                    && indexing.naming_records == naming_records
            })
            .and_then(|indexing| Some((indexing.columns.finish()?, indexing.classes)));
        let (columns, classes) = match indexed {
            Some(indexed) => indexed,
            // No objects, objects out of order, or classes that came late: the usual way.
            None => {
                let classes = classes::resolve_classes(
                    data,
                    &top,
                    &scan.class_dumps,
                    self.header.id_size,
                    limits,
                )
                .ok()?;
                let columns = if self.header.id_size == 8 {
                    index::index_objects::<Id8>(data, &scan, &classes)
                } else {
                    index::index_objects::<Id4>(data, &scan, &classes)
                };
                (columns.ok()?, classes)
            }
        };
        Some(Read {
            header: self.header,
            top,
            scan,
            classes,
            columns,
        })
    }
}

/// What the follower has read of `bytes` if it looked at the file when it was `cuts` bytes
/// long (ascending); `None` for a dump without a valid header.
#[cfg(test)]
fn read_ahead_until(
    bytes: &[u8],
    expected_objects: Option<usize>,
    cuts: impl IntoIterator<Item = usize>,
) -> Option<ReadAhead> {
    let header = scan::read_header(bytes).ok()?;
    let limits = ReadLimits::default();
    let mut ahead = ReadAhead::new(header, expected_objects);
    for cut in cuts {
        ahead.advance(&bytes[..cut], false, &limits);
    }
    Some(ahead)
}

/// How many objects the follower's columns hold after reading `bytes` as
/// [`read_ahead_until`] does, before the dump is finished.
#[cfg(test)]
pub(super) fn objects_indexed_ahead(
    bytes: &[u8],
    expected_objects: Option<usize>,
    cuts: impl IntoIterator<Item = usize>,
) -> usize {
    read_ahead_until(bytes, expected_objects, cuts)
        .expect("a valid header")
        .indexing
        .map_or(0, |indexing| indexing.columns.len())
}

/// Reads `bytes` as the follower would if it looked at the file when it was `cuts` bytes long
/// (ascending), then finished: `None` where the usual read would be used instead.
#[cfg(test)]
pub(super) fn read_ahead_at(
    bytes: Vec<u8>,
    expected_objects: Option<usize>,
    cuts: impl IntoIterator<Item = usize>,
) -> Option<Result<HeapGraph, HprofError>> {
    let limits = ReadLimits::default();
    let ahead = read_ahead_until(&bytes, expected_objects, cuts)?;
    let read = ahead.complete(&bytes, &limits)?;
    Some(assemble(
        DumpBytes::Owned(bytes),
        read.header,
        &read.top,
        read.scan,
        read.classes,
        read.columns,
        &limits,
    ))
}
