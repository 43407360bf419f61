//! The tags allocation sampling gives the objects it samples, and its count of those still alive.
//!
//! A sampled object's tag carries everything sampling needs to know about it, so sampling keeps
//! no table per object: a mark (the tag is sampling's), the sampling session (a tag left over
//! from an earlier session is not this one's), a serial (tags are unique and sort in allocation
//! order) and the index of its allocation stack in the session's table of distinct stacks. What
//! sampling keeps grows with the distinct stacks, not with the objects; the JVM keeps the tags.
//!
//! The cap is on the sampled objects still *alive*: [`LiveCount`] goes up at tagging and down
//! in the JVM's `ObjectFree` event, whose handler touches this atomic only (it runs where
//! taking sampling's lock could deadlock: HotSpot posts it during or just after a collection,
//! from a thread that may wait for one parked in `SetTag` under that lock).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::sys;

/// Bits 52 to 63: what every sampling tag starts with (positive: the top bit is 0).
const MARK: i64 = 0x485;
const MARK_SHIFT: u32 = 52;
/// Bits 44 to 51: the session.
const SESSION_SHIFT: u32 = 44;
/// Bits 14 to 43: the serial, so tags sort in allocation order within a session.
const SERIAL_SHIFT: u32 = 14;
const SERIAL_BITS: u32 = 30;
/// Bits 0 to 13: the stack's index.
const STACK_BITS: u32 = 14;

/// Distinct allocation stacks (with the class's kind) a session keeps at most; an object
/// allocated at a new stack past this is not recorded (and counted as dropped).
pub const MAX_STACKS: usize = 8_192;
/// Sampled objects alive at once at most: past this, new objects are not recorded until some
/// die. A million tags cost the JVM's tag map about 70 MiB at worst.
pub const MAX_LIVE: u64 = 1_000_000;
/// Serials a session hands out at most (about a billion).
pub const MAX_SERIAL: u32 = (1 << SERIAL_BITS) - 1;

/// A decoded sampling tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleTag {
    /// The session that tagged the object (1 to 255).
    pub session: u8,
    /// The object's number in its session, from 0, in allocation order.
    pub serial: u32,
    /// Index of its allocation stack in the session's table.
    pub stack: u16,
}

impl SampleTag {
    /// The tag, or `None` if a part is out of its range (a serial past [`MAX_SERIAL`], a stack
    /// index past [`MAX_STACKS`], session 0).
    pub fn encode(self) -> Option<sys::jlong> {
        if self.session == 0 || self.serial > MAX_SERIAL || usize::from(self.stack) >= MAX_STACKS {
            return None;
        }
        Some(
            (MARK << MARK_SHIFT)
                | (i64::from(self.session) << SESSION_SHIFT)
                | (i64::from(self.serial) << SERIAL_SHIFT)
                | i64::from(self.stack),
        )
    }

    /// The parts of `tag`, if it is a sampling tag.
    pub fn decode(tag: sys::jlong) -> Option<SampleTag> {
        if tag >> MARK_SHIFT != MARK {
            return None;
        }
        let session = ((tag >> SESSION_SHIFT) & 0xff) as u8;
        let serial = ((tag >> SERIAL_SHIFT) & i64::from(MAX_SERIAL)) as u32;
        let stack = (tag & ((1 << STACK_BITS) - 1)) as u16;
        (session != 0 && usize::from(stack) < MAX_STACKS).then_some(SampleTag {
            session,
            serial,
            stack,
        })
    }

    /// Whether `tag` is one that `session` gave.
    pub fn of_session(tag: sys::jlong, session: u8) -> bool {
        SampleTag::decode(tag).is_some_and(|t| t.session == session)
    }
}

/// The next session after `session`: 1 to 255, then 1 again (0 is never a session).
pub fn next_session(session: u8) -> u8 {
    session.checked_add(1).unwrap_or(1)
}

/// The session whose tags the live count follows (0 while none runs), and its count of
/// sampled objects alive. Lock-free: `ObjectFree`'s handler uses it.
pub struct LiveCount {
    session: AtomicU8,
    live: AtomicU64,
}

impl LiveCount {
    /// No session, nothing alive.
    pub const fn new() -> LiveCount {
        LiveCount {
            session: AtomicU8::new(0),
            live: AtomicU64::new(0),
        }
    }

    /// Starts counting for `session`, from 0.
    pub fn start(&self, session: u8) {
        self.live.store(0, Ordering::SeqCst);
        self.session.store(session, Ordering::SeqCst);
    }

    /// Stops counting: frees of any tag no longer count.
    pub fn stop(&self) {
        self.session.store(0, Ordering::SeqCst);
    }

    /// One more object of the session tagged.
    pub fn tagged(&self) {
        self.live.fetch_add(1, Ordering::SeqCst);
    }

    /// An object tagged `tag` was freed: one less alive if it is the session's. Never blocks
    /// or allocates.
    pub fn freed(&self, tag: sys::jlong) {
        let session = self.session.load(Ordering::SeqCst);
        if session != 0 && SampleTag::of_session(tag, session) {
            // Saturating: a free can never make the count wrap.
            let _ = self
                .live
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    /// Sampled objects of the session alive as far as the frees seen tell.
    pub fn live(&self) -> u64 {
        self.live.load(Ordering::SeqCst)
    }

    /// The session counted, 0 for none.
    pub fn session(&self) -> u8 {
        self.session.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_keeps_its_parts() {
        for parts in [
            SampleTag {
                session: 1,
                serial: 0,
                stack: 0,
            },
            SampleTag {
                session: 255,
                serial: MAX_SERIAL,
                stack: (MAX_STACKS - 1) as u16,
            },
            SampleTag {
                session: 7,
                serial: 123_456,
                stack: 42,
            },
        ] {
            let tag = parts.encode().unwrap();
            assert!(tag > 0, "{tag:#x}");
            assert_eq!(SampleTag::decode(tag), Some(parts));
            assert!(SampleTag::of_session(tag, parts.session));
            assert!(!SampleTag::of_session(tag, next_session(parts.session)));
        }
    }

    #[test]
    fn parts_out_of_range_make_no_tag() {
        let ok = SampleTag {
            session: 3,
            serial: 5,
            stack: 5,
        };
        assert_eq!(SampleTag { session: 0, ..ok }.encode(), None);
        assert_eq!(
            SampleTag {
                serial: MAX_SERIAL + 1,
                ..ok
            }
            .encode(),
            None
        );
        assert_eq!(
            SampleTag {
                stack: MAX_STACKS as u16,
                ..ok
            }
            .encode(),
            None
        );
    }

    #[test]
    fn tags_sort_in_allocation_order_whatever_their_stacks() {
        let tag = |serial, stack| {
            SampleTag {
                session: 9,
                serial,
                stack,
            }
            .encode()
            .unwrap()
        };
        assert!(tag(1, 8_000) < tag(2, 0));
        assert!(tag(2, 0) < tag(2, 1));
    }

    #[test]
    fn other_recorders_tags_are_not_sampling_tags() {
        // The class tags, the field watch's and the heap walks' tags, and 0.
        for tag in [
            0,
            0x4847_414c_4c43_4c01,
            0x4847_5448_0000_0000,
            0x4847_4c4f_0000_0001,
            -1,
            i64::MAX,
        ] {
            assert_eq!(SampleTag::decode(tag), None, "{tag:#x}");
        }
    }

    #[test]
    fn sessions_skip_zero() {
        assert_eq!(next_session(0), 1);
        assert_eq!(next_session(1), 2);
        assert_eq!(next_session(255), 1);
    }

    #[test]
    fn the_live_count_follows_its_session_only_and_never_wraps() {
        let count = LiveCount::new();
        let tag = |session| {
            SampleTag {
                session,
                serial: 1,
                stack: 1,
            }
            .encode()
            .unwrap()
        };
        count.start(4);
        for _ in 0..3 {
            count.tagged();
        }
        count.freed(tag(4));
        // Another session's tag (left on an object by an earlier session), another recorder's.
        count.freed(tag(3));
        count.freed(0x4847_414c_4c43_4c01);
        assert_eq!(count.live(), 2);
        count.freed(tag(4));
        count.freed(tag(4));
        count.freed(tag(4));
        assert_eq!(count.live(), 0);
        count.tagged();
        count.stop();
        count.freed(tag(4));
        assert_eq!(
            count.live(),
            1,
            "a free after the session stopped does not count"
        );
        assert_eq!(count.session(), 0);
    }
}
