//! "Kept by" before "made at": the call that made a new object reachable from a growing node,
//! told apart from the `new` that made it (issue 32).
//!
//! Allocation sampling names the line that allocated an object; when a scenario makes an object
//! on one line and hands it to a library on the next (`new Expiry(...)`, then
//! `timer.schedule(expiry, ...)`), the user needs the second line. Two recorders see it
//! ([`super::live`] runs them):
//!
//! - an **owner-field watch**: for an array node held in a field of a JDK or library object (a
//!   `java.util.TaskQueue`, an `ObjectOutputStream$HandleTable`, Netty's
//!   `DefaultFutureListeners`), every non-final field of the owner is watched; the add that stores
//!   into the array writes one of them (the owner's `size`) in the same call. The field whose
//!   writes match the node's growth is chosen afterwards ([`choose_growth_field`]);
//! - **link allocations**: the entry objects of linked containers (`ConcurrentLinkedQueue$Node`,
//!   `ConcurrentHashMap$Node`) and node arrays copied on every add are allocated inside the add,
//!   so their allocation stack is the linking call.
//!
//! Either stack is cut to the user's part ([`split_owner_stack`]) and named after the library or
//! JDK method the user called. The object's own allocation stack, when it is known and names
//! another line, goes with it as `made_at` ([`group_kept`]).

use std::collections::HashMap;

use super::{group, place_to_look, Origin, StackCount, StackFrame};
use crate::growth::{GrowingNode, GrowthKind};

/// A stack recorded inside a library's or the JDK's code on behalf of the user's (a write to
/// `TaskQueue.size` under `Timer.schedule`): the method the user's code called (the frame
/// right above the first user frame) and the stack from the user's first frame out. `None` if
/// no frame is the user's (a write on the library's own thread).
pub fn split_owner_stack(frames: &[StackFrame]) -> Option<(String, Vec<StackFrame>)> {
    let first_user = frames.iter().position(|f| f.origin == Origin::User)?;
    let operation = match first_user.checked_sub(1) {
        Some(called) => frames[called].frame.method.clone(),
        None => String::new(),
    };
    Some((operation, frames[first_user..].to_vec()))
}

/// Whether `operation` takes out rather than puts in (`remove`, `poll`, `cancel`, `reset`): a
/// write it makes to the owner's size is not what keeps the node's objects.
pub fn is_removing(operation: &str) -> bool {
    const PREFIXES: [&str; 9] = [
        "remove", "poll", "take", "clear", "purge", "cancel", "reset", "drain", "close",
    ];
    PREFIXES.iter().any(|prefix| operation.starts_with(prefix))
}

/// How many objects the node's children gained per attribution run of `loops` loops, at the
/// rate its children grew over the confirmation (`history`): what the writes of the field that
/// grows it should number.
pub fn expected_events(node: &GrowingNode, loops: u32) -> f64 {
    let at = |loops: u32| {
        node.history
            .iter()
            .find(|snapshot| snapshot.loops == loops)
            .map(|snapshot| snapshot.values.get(GrowthKind::Objects))
    };
    let (from, to) = (node.confirmed.from_loop, node.confirmed.to_loop);
    match (at(from), at(to)) {
        (Some(before), Some(after)) if to > from && after > before => {
            (after - before) as f64 / f64::from(to - from) * f64::from(loops)
        }
        _ => f64::from(loops),
    }
}

/// A watched field of the owner and what its watch saw.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldCount {
    /// The field's name.
    pub name: String,
    /// Whether it is an `int` (a size or count field: preferred on a tie).
    pub is_int: bool,
    /// Writes made by the user's code (a user frame on the stack), not by a removing call.
    pub adding_writes: u64,
}

/// The field whose adding writes are nearest `expected` ([`expected_events`]): ties go to an
/// `int` field, then to the name. `None` if no field saw an adding write.
pub fn choose_growth_field(fields: &[FieldCount], expected: f64) -> Option<usize> {
    (0..fields.len())
        .filter(|&i| fields[i].adding_writes > 0)
        .min_by(|&a, &b| {
            let distance = |i: usize| (fields[i].adding_writes as f64 - expected).abs();
            distance(a)
                .total_cmp(&distance(b))
                .then_with(|| fields[b].is_int.cmp(&fields[a].is_int))
                .then_with(|| fields[a].name.cmp(&fields[b].name))
        })
}

/// One kept-by event: the operation the user's code called, the stack from the user's frame
/// out, and the allocation stack of the object it linked, when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptEvent {
    /// The library's or JDK's method the user's code called (`schedule`).
    pub operation: String,
    /// From the user's first frame out (see [`split_owner_stack`]).
    pub frames: Vec<StackFrame>,
    /// Where the linked object was allocated, if it was sampled and paired with this event.
    pub made_at: Option<Vec<StackFrame>>,
    /// Which of the node's children that object belongs to, as [`made_rank`] ranks it.
    pub made_rank: u8,
}

/// [`made_rank`] of an object that belongs to a child the node holds as an element or in a
/// field (`[x]`, a field name): what the growth is made of.
pub const ELEMENT_CHILD: u8 = 0;
/// [`made_rank`] of an object that belongs only to the node's map keys (`[key]`).
pub const KEY_CHILD: u8 = 1;
/// [`made_rank`] of an object whose child is not known.
pub const UNKNOWN_CHILD: u8 = 2;

/// How well an object of `class` stands for what the node holds, among the node's `children`
/// (each its step's name, `[x]`, `[key]` or a field, and its target class): an element's or a
/// field's class ranks before a key's, so a per-user cache's made-at is the line that made the
/// value, not the one that made its key (a UUID). A class that is both (a `String` key and
/// value) is an element. Lower is better.
pub fn made_rank(class: Option<&str>, children: &[(&str, &str)]) -> u8 {
    let Some(class) = class else {
        return UNKNOWN_CHILD;
    };
    children
        .iter()
        .filter(|(_, target)| *target == class)
        .map(|(name, _)| match *name {
            "[key]" => KEY_CHILD,
            _ => ELEMENT_CHILD,
        })
        .min()
        .unwrap_or(UNKNOWN_CHILD)
}

/// The events grouped as [`group`] does, each stack with, as `made_at`, the allocation stack of
/// its events' objects of the best [`made_rank`] (a map's value before its key), of those the
/// one most of them share, when that one's place to look is another line than the stack's own.
/// Ties go to the allocation stack first in frame order.
pub fn group_kept(events: Vec<KeptEvent>) -> Vec<StackCount> {
    let look = |frames: &[StackFrame]| place_to_look(frames).map(|i| frames[i].clone());
    // (operation, place to look) → (allocation stack, rank) → events.
    type Made = HashMap<(Vec<StackFrame>, u8), u64>;
    let mut made: HashMap<(String, Option<StackFrame>), Made> = HashMap::new();
    let mut recorded = Vec::with_capacity(events.len());
    for event in events {
        if let Some(made_at) = event.made_at {
            let key = (event.operation.clone(), look(&event.frames));
            *made
                .entry(key)
                .or_default()
                .entry((made_at, event.made_rank))
                .or_default() += 1;
        }
        recorded.push((event.operation, event.frames));
    }
    let mut stacks = group(recorded);
    for stack in &mut stacks {
        let here = look(&stack.frames);
        let key = (stack.operation.clone(), here.clone());
        let Some(candidates) = made.get(&key) else {
            continue;
        };
        let text =
            |frames: &Vec<StackFrame>| frames.iter().map(ToString::to_string).collect::<Vec<_>>();
        let best = candidates
            .iter()
            .max_by(|a, b| {
                (b.0 .1.cmp(&a.0 .1))
                    .then_with(|| a.1.cmp(b.1))
                    .then_with(|| text(&b.0 .0).cmp(&text(&a.0 .0)))
            })
            .map(|((frames, _), _)| frames.clone());
        stack.made_at = best.filter(|frames| look(frames) != here && look(frames).is_some());
    }
    stacks
}

/// The caveat of a recorder that stopped recording at its cap: `recorded` events kept,
/// `dropped` more seen and not kept.
pub fn cap_caveat(recorder: &str, recorded: usize, dropped: u64) -> Option<String> {
    (dropped > 0).then(|| {
        format!(
            "{recorder} stopped recording after {recorded} events (its cap); {dropped} more \
             were not recorded, so the counts above are of the first {recorded} only"
        )
    })
}

/// [`cap_caveat`] for a recorder that saw nothing under the node: what it missed may have been.
pub fn cap_reason(recorder: &str, recorded: usize, dropped: u64) -> Option<String> {
    (dropped > 0).then(|| {
        format!(
            "{recorder} stopped recording after {recorded} events (its cap), and {dropped} more \
             were not recorded: the node's new objects may be among them"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::Frame;

    fn frame(text: &str, origin: Origin) -> StackFrame {
        let (call, line) = text.split_once(':').unwrap();
        let (class, method) = call.rsplit_once('.').unwrap();
        StackFrame {
            frame: Frame {
                class: class.into(),
                method: method.into(),
                file: Some(format!("{}.java", class.rsplit('.').next().unwrap())),
                line: line.parse().ok(),
                code_source: None,
            },
            origin,
        }
    }

    fn timer_write() -> Vec<StackFrame> {
        vec![
            frame("java.util.TaskQueue.add:99", Origin::Jdk),
            frame("java.util.Timer.sched:412", Origin::Jdk),
            frame("java.util.Timer.schedule:200", Origin::Jdk),
            frame("app.Sessions.run:88", Origin::User),
            frame("app.Main.loop:12", Origin::User),
        ]
    }

    #[test]
    fn an_owner_write_is_named_after_the_call_the_user_made() {
        let (operation, frames) = split_owner_stack(&timer_write()).unwrap();
        assert_eq!(operation, "schedule");
        assert_eq!(frames[0].to_string(), "app.Sessions.run(Sessions.java:88)");
        // Through a library: the library's method, not the JDK's below it.
        let netty = vec![
            frame(
                "lib.DefaultFutureListeners.add:60",
                Origin::Library("n.jar".into()),
            ),
            frame(
                "lib.DefaultPromise.addListener:180",
                Origin::Library("n.jar".into()),
            ),
            frame("app.Orders.run:40", Origin::User),
        ];
        assert_eq!(split_owner_stack(&netty).unwrap().0, "addListener");
        // The timer's own thread: no user frame, not the user's write.
        assert_eq!(split_owner_stack(&timer_write()[..3]), None);
    }

    #[test]
    fn removing_calls_are_told_apart() {
        assert!(is_removing("remove"));
        assert!(is_removing("removeListener"));
        assert!(is_removing("purge"));
        assert!(!is_removing("schedule"));
        assert!(!is_removing("writeObject"));
    }

    #[test]
    fn the_field_whose_writes_match_the_growth_is_chosen() {
        let field = |name: &str, is_int, adding_writes| FieldCount {
            name: name.into(),
            is_int,
            adding_writes,
        };
        // TaskQueue: size written once per add, the array only when it doubles, a mod count
        // twice per add.
        let fields = [
            field("queue", false, 0),
            field("modCount", true, 8),
            field("size", true, 4),
        ];
        assert_eq!(choose_growth_field(&fields, 4.0), Some(2));
        // A tie: the int field.
        let fields = [field("leader", false, 4), field("size", true, 4)];
        assert_eq!(choose_growth_field(&fields, 4.0), Some(1));
        // Nothing written by the user's code.
        assert_eq!(choose_growth_field(&[field("size", true, 0)], 4.0), None);
    }

    #[test]
    fn made_at_goes_with_the_stack_when_it_names_another_line() {
        let (operation, frames) = split_owner_stack(&timer_write()).unwrap();
        let allocated = vec![
            frame("app.Sessions.run:87", Origin::User),
            frame("app.Main.loop:12", Origin::User),
        ];
        let event = |made_at: Option<Vec<StackFrame>>| KeptEvent {
            operation: operation.clone(),
            frames: frames.clone(),
            made_at,
            made_rank: ELEMENT_CHILD,
        };
        let stacks = group_kept(vec![
            event(Some(allocated.clone())),
            event(Some(allocated.clone())),
            event(None),
        ]);
        assert_eq!(stacks.len(), 1);
        assert_eq!(stacks[0].count, 3);
        assert_eq!(stacks[0].made_at.as_deref(), Some(&allocated[..]));
        // Made on the line that keeps it: nothing to add.
        let same = group_kept(vec![event(Some(frames.clone()))]);
        assert_eq!(same[0].made_at, None);
    }

    #[test]
    fn a_value_ranks_before_a_key() {
        let children = [
            ("[key]", "java.lang.String"),
            ("[x]", "app.Session"),
            ("[key]", "java.util.UUID"),
            ("[x]", "java.util.UUID"),
        ];
        assert_eq!(made_rank(Some("app.Session"), &children), ELEMENT_CHILD);
        assert_eq!(made_rank(Some("java.lang.String"), &children), KEY_CHILD);
        // Both a key and a value: an element.
        assert_eq!(made_rank(Some("java.util.UUID"), &children), ELEMENT_CHILD);
        assert_eq!(made_rank(Some("app.Other"), &children), UNKNOWN_CHILD);
        assert_eq!(made_rank(None, &children), UNKNOWN_CHILD);
    }

    /// A per-user cache: each `put` links a key made on the line before (a UUID string) and a
    /// value; the key is reached first from the map's entry, and is made as often.
    fn cache_events(key_first: bool, value_line: &str) -> Vec<KeptEvent> {
        let put = vec![
            frame("app.Sessions.run:44", Origin::User),
            frame("app.Main.loop:12", Origin::User),
        ];
        let key = vec![
            frame("java.util.UUID.toString:470", Origin::Jdk),
            frame("app.Sessions.run:43", Origin::User),
            frame("app.Main.loop:12", Origin::User),
        ];
        let value = vec![
            frame(value_line, Origin::User),
            frame("app.Main.loop:12", Origin::User),
        ];
        let event = |made_at: &Vec<StackFrame>, made_rank| KeptEvent {
            operation: "put".into(),
            frames: put.clone(),
            made_at: Some(made_at.clone()),
            made_rank,
        };
        let mut events = Vec::new();
        for loop_ in 0..4 {
            let pair = [event(&key, KEY_CHILD), event(&value, ELEMENT_CHILD)];
            // The key alone for one more loop: the more frequent stack, still not chosen.
            if loop_ == 0 {
                events.push(event(&key, KEY_CHILD));
            }
            match key_first {
                true => events.extend(pair),
                false => events.extend(pair.into_iter().rev()),
            }
        }
        events
    }

    #[test]
    fn made_at_names_the_value_not_the_key() {
        for key_first in [true, false] {
            // The value made on a line of its own: that line.
            let stacks = group_kept(cache_events(key_first, "app.Sessions.run:42"));
            assert_eq!(stacks.len(), 1);
            assert_eq!(stacks[0].count, 9);
            let made_at = stacks[0].made_at.as_deref().unwrap();
            assert_eq!(made_at[0].to_string(), "app.Sessions.run(Sessions.java:42)");
            // Made on the put's own line: nothing to add (the key's line is not the value's).
            let stacks = group_kept(cache_events(key_first, "app.Sessions.run:44"));
            assert_eq!(stacks[0].made_at, None, "{:?}", stacks[0].made_at);
        }
    }

    #[test]
    fn a_capped_recorder_says_so() {
        assert_eq!(cap_caveat("allocation sampling", 20_000, 0), None);
        let caveat = cap_caveat("allocation sampling", 20_000, 512).unwrap();
        assert!(caveat.contains("after 20000 events"), "{caveat}");
        assert!(caveat.contains("512 more"), "{caveat}");
        assert_eq!(cap_reason("allocation sampling", 20_000, 0), None);
        let reason = cap_reason("allocation sampling", 20_000, 512).unwrap();
        assert!(reason.ends_with("may be among them"), "{reason}");
    }
}
