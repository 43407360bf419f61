//! Runs the recorders on a scenario in a live JVM: follow the node's path, install a recorder,
//! run the loops, remove the recorder (always), group what it saw.
//!
//! Recorders the scenario cannot observe come first: a JVMTI field watch (on the node's own
//! field, or on the internal size field of the containers it holds), then allocation sampling,
//! which needs no field at all. A recording proxy, which the scenario could see (another class
//! and identity in its field), is the last resort: where the agent is missing, or where the
//! others saw nothing. Each recorder that saw nothing adds its reason to the answer.

use std::collections::HashMap;

use super::class_definitions::growing_definitions;
use super::kept_by::{self, group_kept, is_removing, split_owner_stack, FieldCount, KeptEvent};
use super::{
    group, operations, order_per_loop, remove_hints, split_container_stack, without_host_frames,
    Attribution, Frame, RecordKind, Recorded, StackFrame,
};
use crate::growth::{GrowingNode, StepKind};
use crate::jvm::{
    ActiveClassDefinitions, JvmError, LiveAgent, LiveNode, LiveScenario, OwnerFields, Recorder,
};
use crate::jvmti::{ReadRecord, SampleRecord, WatchRecord};

/// Attributes `node` by running `loops` more loops of `scenario` with a recorder in place.
/// `agent` is heapgrowth's JVMTI agent, when the JVM has it. Never fails: every problem
/// becomes [`Attribution::NotAttributed`] with its reason. The scenario's fields are restored
/// and watches switched off whatever happens.
pub fn attribute(
    agent: Option<LiveAgent>,
    scenario: &mut dyn LiveScenario,
    node: &GrowingNode,
    loops: u32,
) -> Attribution {
    match attribute_inner(agent, scenario, node, loops) {
        Ok(attribution) => order_per_loop(attribution, loops),
        Err(error) => Attribution::not_attributed(describe(&error)),
    }
}

fn attribute_inner(
    agent: Option<LiveAgent>,
    scenario: &mut dyn LiveScenario,
    node: &GrowingNode,
    loops: u32,
) -> Result<Attribution, JvmError> {
    let steps: Vec<[&str; 4]> = node.path.iter().map(step_strings).collect();
    let start = scenario.path_start()?;
    let user = UserCode {
        scenario_source: start.scenario_code_source()?,
    };
    if is_class_root_group(node) {
        let Some(agent) = agent else {
            return Ok(Attribution::not_attributed(CLASS_ROOTS_NO_AGENT));
        };
        if !agent.capabilities.tag_objects {
            return Ok(Attribution::not_attributed(NO_TAGS_FOR_CLASSES));
        }
        let recording = start.record_all_class_definitions(agent.jvmti)?;
        return with_class_definitions(scenario, Some(recording), loops, &user);
    }
    let live = start.follow_path(&steps, agent)?;
    let mut saw_nothing: Vec<String> = Vec::new();
    match agent {
        Some(agent) => {
            let watched = match live.recorder()? {
                Recorder::None { reason } => return Ok(Attribution::not_attributed(reason)),
                Recorder::FieldWrites { label } => {
                    with_watch(agent, scenario, &live, loops, Some(label), &user)?
                }
                Recorder::ContainerWrites { label } => {
                    match with_watch(agent, scenario, &live, loops, None, &user)? {
                        Attribution::NotAttributed { reason } => Attribution::not_attributed(
                            format!("{reason} (watched {label}'s internal size field)"),
                        ),
                        attributed => attributed,
                    }
                }
                Recorder::Allocations { reason } => Attribution::not_attributed(reason),
            };
            if matches!(watched, Attribution::Attributed { .. }) && !sees_the_user(&watched) {
                // Seen only on a thread that runs no user code (a timer's worker moving
                // entries): the reachability pass may name the user's call; else the watch's.
                let sampled = with_allocations(agent, scenario, &live, node, loops, &user)?;
                return Ok(if sees_the_user(&sampled) {
                    sampled
                } else {
                    watched
                });
            }
            if let Some(attributed) = note(watched, &mut saw_nothing) {
                return Ok(attributed);
            }
            if gains_classes(node) {
                let defined = if agent.capabilities.tag_objects {
                    let recording = live.record_class_definitions(agent.jvmti)?;
                    with_class_definitions(scenario, recording, loops, &user)?
                } else {
                    Attribution::not_attributed(NO_TAGS_FOR_CLASSES)
                };
                if let Some(attributed) = note(defined, &mut saw_nothing) {
                    return Ok(attributed);
                }
            }
            let sampled = with_allocations(agent, scenario, &live, node, loops, &user)?;
            if let Some(attributed) = note(sampled, &mut saw_nothing) {
                return Ok(attributed);
            }
        }
        None => {
            if let Recorder::None { reason } = live.recorder()? {
                return Ok(Attribution::not_attributed(reason));
            }
            saw_nothing.push(NO_AGENT.to_owned());
        }
    }
    match live.proxy_fit()? {
        None => {
            let proxied = with_proxies(scenario, &live, loops, &user)?;
            if let Some(attributed) = note(proxied, &mut saw_nothing) {
                return Ok(attributed);
            }
        }
        Some(unfit) if agent.is_none() => saw_nothing.push(unfit),
        Some(_) => {}
    }
    Ok(Attribution::not_attributed(saw_nothing.join("; ")))
}

/// Whether `attribution` is attributed with a stack of which a frame is the user's code (else
/// it names a library's or the JDK's own thread).
fn sees_the_user(attribution: &Attribution) -> bool {
    match attribution {
        Attribution::Attributed { stacks, .. } => stacks
            .iter()
            .any(|stack| stack.frames.iter().any(|f| f.origin == super::Origin::User)),
        Attribution::NotAttributed { .. } => false,
    }
}

/// `attribution` if it attributed; otherwise its reason goes to `saw_nothing`.
fn note(attribution: Attribution, saw_nothing: &mut Vec<String>) -> Option<Attribution> {
    match attribution {
        Attribution::NotAttributed { reason } => {
            saw_nothing.push(reason);
            None
        }
        attributed => Some(attributed),
    }
}

/// Why nothing but a proxy can record without the agent. Every front end shows it, so it names
/// each way to load the agent rather than one build tool's.
const NO_AGENT: &str = "heapgrowth's JVMTI agent is not loaded, and only a recording proxy \
    works without it (for field watches, class definitions and allocation sampling, load the \
    agent with -agentpath:, as the Gradle plugin and the Maven plugin's prepare-agent goal do)";

/// The reachability pass (issue 32): one run of the attribution loops with allocation
/// sampling, of the node's growing classes and of its link classes, and a field watch: on the
/// owner's fields for an array held by a JDK or library object, else on the fields that link
/// the node's children, for writes of new objects. What made the new objects reachable comes
/// first: the owner's writes, the link objects' allocations, the linking writes (each "kept
/// by", with the linked object's allocation as "made at"); else the allocation stacks of the
/// node's new objects, `allocated at`.
fn with_allocations(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    node: &GrowingNode,
    loops: u32,
    user: &UserCode,
) -> Result<Attribution, JvmError> {
    let capabilities = agent.capabilities;
    if !capabilities.sampled_alloc_events || !capabilities.tag_objects {
        return Ok(Attribution::not_attributed(
            "allocation sampling needs the JVMTI capabilities \
             can_generate_sampled_object_alloc_events and can_tag_objects, which the agent lacks",
        ));
    }
    // A root group (a thread group) grows by its own objects (the Java side picks the classes
    // when there are no growing children to name).
    let root_group = node.path.len() == 1;
    let classes: Vec<&str> = node
        .children
        .iter()
        .filter(|child| !root_group && (child.new > 0 || child.new_bytes > 0))
        .map(|child| child.step.target.as_str())
        .collect();
    // A watch that cannot be set leaves sampling to do its work, and says why.
    let mut reasons = Vec::new();
    let owner = match capabilities.field_modification_events && !root_group {
        true => or_say(
            live.owner_watch(agent.jvmti, user.scenario_source.as_deref()),
            "owner-field watch",
            &mut reasons,
        ),
        false => None,
    };
    // A group of threads: the calls that start them keep them (the owner and value watches,
    // and the read watch of the owner's size, are not set on a root group). Where the watch
    // cannot run, the caveat says why.
    let mut thread_caveat = THREAD_CAVEAT.to_owned();
    let starts = match capabilities.field_access_events && root_group {
        true => match live.thread_start_watch(agent.jvmti) {
            Ok(Some(watch)) => Some(watch),
            Ok(None) => {
                thread_caveat = thread_caveat_because(
                    "this JDK's Thread has neither field start() reads first (holder, \
                     threadStatus) for a watch to see the call",
                );
                None
            }
            Err(error) => {
                thread_caveat = thread_caveat_because(&format!(
                    "the watch on Thread.start() could not be set: {}",
                    describe(&error)
                ));
                None
            }
        },
        false => None,
    };
    let sampling = live.sample_allocations(agent.jvmti, &classes, root_group, !root_group)?;
    // The fields that link the node's growing children below its objects, for a value watch
    // (one field watch at a time: not beside the owner-field watch).
    let linking: Vec<(&str, &str)> = node
        .children
        .iter()
        .filter(|child| child.new > 0 && child.step.kind == crate::growth::StepKind::InstanceField)
        .map(|child| (child.step.owner.as_str(), child.step.name.as_str()))
        .collect();
    let values = match owner.is_none() && capabilities.field_modification_events && !root_group {
        true => or_say(
            live.value_watch(agent.jvmti, &linking),
            "watch on the linking fields",
            &mut reasons,
        ),
        false => None,
    };
    // A thread's allocation buffer, made before sampling started, has no sample point: until
    // it is replaced, the thread's allocations are not seen (a scenario that allocates a few
    // objects a loop may never fill it). A collection retires every thread's buffer.
    let ran = scenario
        .collect_garbage()
        .and_then(|()| run_and_settle(scenario, loops));
    // The objects that are the node now: an array replaced on every add holds the new ones.
    let refreshed = live.refresh();
    let values = match values {
        Some((watch, label)) => Some((watch.stop()?, label)),
        None => None,
    };
    let starts = match starts {
        Some((watch, label)) => Some((watch.stop()?, label)),
        None => None,
    };
    let record = sampling.stop(live, !root_group)?;
    let watched = match owner {
        Some((watch, fields)) => Some((watch.stop_with_reads()?, fields)),
        None => None,
    };
    ran?;
    if let Some(reason) = refreshed? {
        return Ok(Attribution::not_attributed(format!(
            "the node's path could not be followed after the attribution loops: {reason}"
        )));
    }
    let caps = super::sampling_cap::cap_caveat(&record);
    let cap_reason = super::sampling_cap::cap_reason(&record);
    let found = Found::new(record, user, node);
    if let Some(((watch, reads), fields)) = watched {
        let recorder = format!("the watch on {}'s fields", fields.label);
        let cap = kept_by::cap_caveat(&recorder, watch.stacks.len(), watch.dropped);
        let missed = kept_by::cap_reason(&recorder, watch.stacks.len(), watch.dropped);
        match owner_writes(watch, reads, &fields, &found, node, loops, user) {
            Ok(attribution) => return Ok(with_caveats(attribution, caps.into_iter().chain(cap))),
            Err(reason) => reasons.extend(std::iter::once(reason).chain(missed)),
        }
    }
    let node_is_array = node
        .path
        .last()
        .is_some_and(|step| step.target.ends_with("[]"));
    if let Some(attribution) = link_allocations(&found, node_is_array) {
        return Ok(with_caveats(attribution, caps));
    }
    if let Some((watch, label)) = starts {
        let recorder = format!("the watch on Thread.start() (its read of {label})");
        let cap = kept_by::cap_caveat(&recorder, watch.stacks.len(), watch.dropped);
        let missed = kept_by::cap_reason(&recorder, watch.stacks.len(), watch.dropped);
        match thread_starts(watch, &found, user) {
            Some(attribution) => return Ok(with_caveats(attribution, caps.into_iter().chain(cap))),
            None => {
                let mut why = format!("{recorder} saw no start() called from the user's code");
                why.extend(missed.map(|reason| format!(" ({reason})")));
                thread_caveat = thread_caveat_because(&why);
            }
        }
    }
    if let Some((watch, label)) = values {
        let recorder = format!("the watch on {label}");
        let cap = kept_by::cap_caveat(&recorder, watch.stacks.len(), watch.dropped);
        match linking_writes(watch, &label, &found, user) {
            Ok(attribution) => return Ok(with_caveats(attribution, caps.into_iter().chain(cap))),
            Err(reason) => reasons.push(reason),
        }
    }
    let recorded: Vec<Recorded> = found
        .objects
        .iter()
        .zip(&found.stacks)
        .filter(|(object, _)| object.watched)
        .map(|(_, frames)| (String::new(), frames.clone()))
        .collect();
    let sampled = attributed(
        recorded,
        |_| RecordKind::Allocations,
        "allocation sampling saw no new object of the node's growing classes stay below it",
    );
    Ok(match sampled {
        Attribution::NotAttributed { reason } => {
            reasons.push(reason);
            // The cap said in the reason: the node's new objects may be past it.
            reasons.extend(cap_reason);
            Attribution::not_attributed(reasons.join("; "))
        }
        attributed if root_group => {
            with_caveats(attributed, std::iter::once(thread_caveat).chain(caps))
        }
        attributed => with_caveats(attributed, caps),
    })
}

/// Whether the node is the root group of classes itself (`GcRoot(Class)`, `GcRoot(StickyClass)`
/// with no step below): classes a loader defines and keeps that hold static fields.
fn is_class_root_group(node: &GrowingNode) -> bool {
    matches!(node.path.as_slice(), [root] if root.kind == StepKind::GcRoot
        && (root.name == "Class" || root.name == "StickyClass"))
}

/// Why a node that is the set of classes held as roots is not attributed without the agent.
const CLASS_ROOTS_NO_AGENT: &str = "the node is the set of classes held as GC roots, which grows \
    as classes are defined and kept; naming the code that defines them needs heapgrowth's JVMTI \
    agent (ClassLoad events): load it with -agentpath:";

/// Why class definitions cannot be recorded by an agent without tags.
const NO_TAGS_FOR_CLASSES: &str = "recording class definitions needs the JVMTI capability \
    can_tag_objects, which the agent lacks";

/// Whether the node gains classes: a class loader whose new children are classes it defined
/// (`CLASS` steps).
fn gains_classes(node: &GrowingNode) -> bool {
    node.children
        .iter()
        .any(|child| child.step.kind == StepKind::Class && child.new > 0)
}

/// The class-definition recorder: the stacks that defined the classes the node's loaders
/// defined during the loops and still hold after a full collection, when a name pattern has a
/// class for at least half the loops (a generator's class per call).
fn with_class_definitions(
    scenario: &mut dyn LiveScenario,
    recording: Option<ActiveClassDefinitions>,
    loops: u32,
    user: &UserCode,
) -> Result<Attribution, JvmError> {
    let Some(recording) = recording else {
        return Ok(Attribution::not_attributed(
            "the node's objects are not class loaders, whose class definitions heapgrowth could \
             record",
        ));
    };
    // Only classes still held after a full collection count: a class per loop that its loader
    // lets go is not the growth.
    let ran = run_and_settle(scenario, loops).and_then(|()| scenario.collect_garbage());
    let record = recording.stop()?;
    ran?;
    let survivors: Vec<(&str, usize)> = record
        .survivors
        .iter()
        .map(|class| (class.name.as_str(), class.stack))
        .collect();
    let growing = match growing_definitions(&survivors, record.defined, loops) {
        Ok(growing) => growing,
        Err(reason) => return Ok(Attribution::not_attributed(reason)),
    };
    let mut stacks: Vec<Option<Vec<Frame>>> = record.stacks.into_iter().map(Some).collect();
    let recorded: Vec<Recorded> = growing
        .into_iter()
        .filter_map(|i| stacks.get_mut(i)?.take())
        .filter_map(|frames| split_container_stack(&user.classify(frames)))
        .collect();
    Ok(attributed(
        recorded,
        |_| RecordKind::ClassDefinitions,
        "the class-definition recorder saw no class defined from code outside the JDK",
    ))
}

/// The watch `watch` started, or `None` with why not in `reasons` when it could not be set: a
/// watch that fails leaves allocation sampling to do its work.
fn or_say<T>(
    watch: Result<Option<T>, JvmError>,
    what: &str,
    reasons: &mut Vec<String>,
) -> Option<T> {
    watch.unwrap_or_else(|error| {
        reasons.push(format!("the {what} could not be set: {error}"));
        None
    })
}

/// What an attribution of a group of threads says where the agent cannot watch `start()` (no
/// `can_generate_field_access_events`): the allocation is all there is.
const THREAD_CAVEAT: &str = "the node is a group of threads, which the JVM keeps as GC roots \
    while they run: the call that keeps one is its start(), which no recorder here watches \
    without the JVMTI capability can_generate_field_access_events (the agent lacks it), so the \
    place shown is where the thread was allocated";

/// The caveat of a group of threads attributed at its allocation, because of `why`.
fn thread_caveat_because(why: &str) -> String {
    format!(
        "the node is a group of threads, which the JVM keeps as GC roots while they run: the \
         call that keeps one is its start(), but {why}, so the place shown is where the thread \
         was allocated"
    )
}

/// `attribution` with `caveats` added (an attributed one; a reason stays as it is).
fn with_caveats(
    attribution: Attribution,
    caveats: impl IntoIterator<Item = String>,
) -> Attribution {
    match attribution {
        Attribution::Attributed {
            kind,
            stacks,
            caveats: mut said,
            hints,
        } => {
            said.extend(caveats);
            Attribution::Attributed {
                kind,
                stacks,
                caveats: said,
                hints,
            }
        }
        not => not,
    }
}

/// The sampled objects found under the node, with their allocation stacks classified.
struct Found {
    objects: Vec<crate::jvmti::SampledObject>,
    stacks: Vec<Vec<StackFrame>>,
    /// Each object's [`kept_by::made_rank`] among the node's children.
    ranks: Vec<u8>,
    by_tag: HashMap<i64, usize>,
}

impl Found {
    fn new(record: SampleRecord, user: &UserCode, node: &GrowingNode) -> Found {
        let by_tag = record
            .objects
            .iter()
            .enumerate()
            .map(|(i, object)| (object.tag, i))
            .collect();
        let children: Vec<(&str, &str)> = node
            .children
            .iter()
            .map(|child| (child.step.name.as_str(), child.step.target.as_str()))
            .collect();
        Found {
            ranks: record
                .objects
                .iter()
                .map(|object| kept_by::made_rank(object.class.as_deref(), &children))
                .collect(),
            objects: record.objects,
            stacks: record
                .stacks
                .into_iter()
                .map(|frames| user.classify(frames))
                .collect(),
            by_tag,
        }
    }

    /// The allocation stack of the node's new object (of a growing class) tagged `tag`, if it is
    /// under the node, with its rank.
    fn made_at(&self, tag: Option<i64>) -> Option<(Vec<StackFrame>, u8)> {
        let i = *self.by_tag.get(&tag?)?;
        self.objects[i]
            .watched
            .then(|| (self.stacks[i].clone(), self.ranks[i]))
    }

    /// The allocation stacks of the node's new objects of a growing class, not links, first
    /// reached from `tag` (what a link object holds), each with its rank, best rank first
    /// (a map entry's value before its key).
    fn held_by(&self, tag: i64) -> Vec<(&Vec<StackFrame>, u8)> {
        let mut held: Vec<(&Vec<StackFrame>, u8)> = self
            .objects
            .iter()
            .zip(&self.stacks)
            .zip(&self.ranks)
            .filter(move |((object, _), _)| {
                object.watched && !object.link && object.referrer == Some(tag)
            })
            .map(|((_, frames), rank)| (frames, *rank))
            .collect();
        held.sort_by_key(|(_, rank)| *rank);
        held
    }
}

/// The owner-field watch's result: the writes of the field that grows the node, made by the
/// user's code through a call that adds, each with the object the thread made last before it
/// (when that object is under the node) as made-at. `Err(reason)` when none.
#[allow(clippy::too_many_arguments)]
fn owner_writes(
    watch: WatchRecord,
    reads: Option<ReadRecord>,
    fields: &OwnerFields,
    found: &Found,
    node: &GrowingNode,
    loops: u32,
    user: &UserCode,
) -> Result<Attribution, String> {
    let mut per_field: Vec<Vec<KeptEvent>> = vec![Vec::new(); fields.fields.len()];
    // The writes of removing calls: a remove that wrote removed something (no hint there).
    let mut removing: Vec<Recorded> = Vec::new();
    for ((frames, field), paired) in watch.stacks.into_iter().zip(watch.fields).zip(watch.paired) {
        let frames = user.classify(frames);
        let Some((operation, kept)) = split_owner_stack(&frames) else {
            continue;
        };
        if is_removing(&operation) {
            removing.push((operation, kept));
            continue;
        }
        if operation.is_empty() {
            continue;
        }
        if let Some(events) = per_field.get_mut(field) {
            let (made_at, made_rank) = match found.made_at(paired) {
                Some((frames, rank)) => (Some(frames), rank),
                None => (None, kept_by::UNKNOWN_CHILD),
            };
            events.push(KeptEvent {
                operation,
                frames: kept,
                made_at,
                made_rank,
            });
        }
    }
    let counts: Vec<FieldCount> = fields
        .fields
        .iter()
        .zip(&per_field)
        .map(|((name, is_int), events)| FieldCount {
            name: name.clone(),
            is_int: *is_int,
            adding_writes: events.len() as u64,
        })
        .collect();
    let Some(chosen) = kept_by::choose_growth_field(&counts, kept_by::expected_events(node, loops))
    else {
        return Err(format!(
            "the watch on {}'s fields saw no write made by a call from the user's code",
            fields.label
        ));
    };
    let stacks = group_kept(per_field.swap_remove(chosen));
    // The remove-like reads of the owner's size that wrote nothing: a remove that found nothing.
    // Only the reads the owner's own remove-like method makes (the innermost frame), one per
    // call: a caller that asks the size after its remove (Netty's removeListener0 calls size())
    // would count each call twice.
    let (hints, caveats) = match reads {
        Some(reads) => {
            let removes: Vec<Recorded> = reads
                .stacks
                .into_iter()
                .filter(|frames| {
                    frames
                        .first()
                        .is_some_and(|frame| crate::jvmti::is_remove_like(&frame.method))
                })
                .filter_map(|frames| split_owner_stack(&user.classify(frames)))
                .collect();
            let cut = reads.cut.then(remove_probe_cut);
            (remove_hints(&removes, &removing), cut.into_iter().collect())
        }
        None => (Vec::new(), Vec::new()),
    };
    Ok(Attribution::Attributed {
        kind: RecordKind::Calls(operations(&stacks)),
        stacks,
        caveats,
        hints,
    })
}

/// The caveat of a read watch for the remove hint that switched itself off.
fn remove_probe_cut() -> String {
    format!(
        "remove() probe cut short: the watch of the container's reads switched itself off after \
         {} reads (its cost), so calls to remove() that removed nothing may be missing from the \
         hints",
        super::sampling_cap::thousands(crate::jvmti::MAX_READ_EVENTS)
    )
}

/// Value-watched writes: the writes of a new object of a growing class, now under the node,
/// into a field that links the node's children (`parent.left = node`), with the object's
/// allocation as made-at. `Err(reason)` when none.
fn linking_writes(
    watch: WatchRecord,
    label: &str,
    found: &Found,
    user: &UserCode,
) -> Result<Attribution, String> {
    let events: Vec<KeptEvent> = watch
        .stacks
        .into_iter()
        .zip(watch.paired)
        .filter_map(|(frames, value)| {
            let (made_at, made_rank) = found.made_at(value)?;
            let frames = user.classify(frames);
            // A write on a thread that runs no user code (a timer's worker moving entries)
            // names no line of the user's: the allocation stacks do better.
            frames
                .iter()
                .any(|frame| frame.origin == super::Origin::User)
                .then_some(KeptEvent {
                    operation: String::new(),
                    frames,
                    made_at: Some(made_at),
                    made_rank,
                })
        })
        .collect();
    if events.is_empty() {
        return Err(format!(
            "the watch on {label} saw no new object written by the user's code that stayed \
             under the node"
        ));
    }
    let stacks = group_kept(events);
    Ok(Attribution::Attributed {
        kind: RecordKind::Writes(label.to_owned()),
        stacks,
        caveats: Vec::new(),
        hints: Vec::new(),
    })
}

/// The thread-start watch's result: the calls from the user's code that started threads
/// (`start()`, or a library call that starts one, such as an executor's `execute`), "kept by",
/// each with the object the starting thread was last seen to make, when it is under the node,
/// as made-at. `None` when the user's code started none.
fn thread_starts(watch: WatchRecord, found: &Found, user: &UserCode) -> Option<Attribution> {
    let events: Vec<KeptEvent> = watch
        .stacks
        .into_iter()
        .zip(watch.paired)
        .filter_map(|(frames, paired)| {
            // A start with no user frame below it (a pool's own thread adding a worker) names
            // no call of the user's: `None` here.
            let (operation, frames) = split_owner_stack(&user.classify(frames))?;
            let (made_at, made_rank) = match found.made_at(paired) {
                Some((frames, rank)) => (Some(frames), rank),
                None => (None, kept_by::UNKNOWN_CHILD),
            };
            Some(KeptEvent {
                operation,
                frames,
                made_at,
                made_rank,
            })
        })
        .collect();
    if events.is_empty() {
        return None;
    }
    let stacks = group_kept(events);
    Some(Attribution::Attributed {
        kind: RecordKind::Calls(operations(&stacks)),
        stacks,
        caveats: Vec::new(),
        hints: Vec::new(),
    })
}

/// Link allocations: the entries a container allocated on an add, and a node array replaced on
/// every add, found under the node, at the user's call into the JDK or library code that
/// allocated them. A copy of the node's array (`node_is_array`) stands for every copy made at
/// its stack.
fn link_allocations(found: &Found, node_is_array: bool) -> Option<Attribution> {
    let mut events = Vec::new();
    let mut replaced = false;
    for (object, frames) in found.objects.iter().zip(&found.stacks) {
        if !object.link {
            continue;
        }
        let Some((operation, kept)) = split_owner_stack(frames) else {
            continue;
        };
        // Allocated by the user's own code: made there, not linked by a call.
        if operation.is_empty() {
            continue;
        }
        let held = found.held_by(object.tag);
        let copies = if object.node && node_is_array {
            replaced = true;
            object.allocated_here
        } else {
            1
        };
        for copy in 0..copies as usize {
            let made = held.get(copy % held.len().max(1));
            events.push(KeptEvent {
                operation: operation.clone(),
                frames: kept.clone(),
                made_at: made.map(|(frames, _)| (*frames).clone()),
                made_rank: made.map_or(kept_by::UNKNOWN_CHILD, |(_, rank)| *rank),
            });
        }
    }
    if events.is_empty() {
        return None;
    }
    let stacks = group_kept(events);
    let caveats = if replaced {
        vec![REPLACED_CAVEAT.to_owned()]
    } else {
        Vec::new()
    };
    Some(Attribution::Attributed {
        kind: RecordKind::Calls(operations(&stacks)),
        stacks,
        caveats,
        hints: Vec::new(),
    })
}

/// What an attribution by the copies of a node's array says.
const REPLACED_CAVEAT: &str = "the node's array is replaced by a copy on every add: counted \
    are the copies made at the stack that made the array in place now, during the attribution \
    loops";

/// A recording proxy in the node's field, then a check of whether the scenario kept it.
fn with_proxies(
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    loops: u32,
    user: &UserCode,
) -> Result<Attribution, JvmError> {
    if let Err(reason) = live.install_proxies()? {
        return Ok(Attribution::not_attributed(reason));
    }
    let ran = run_and_settle(scenario, loops);
    // Restored before anything else can fail; `LiveNode`'s drop restores too.
    live.restore()?;
    ran?;
    // Only a proxy the scenario still references survives a full collection.
    scenario.collect_garbage()?;
    let leaks = live.proxy_leaks()?;
    let calls = live
        .proxy_calls()?
        .into_iter()
        .map(|(method, frames)| (method, user.classify(frames)))
        .collect();
    // The proxy knows whether each remove removed: those that did are the removing writes.
    let (mut removed, mut nothing): (Vec<Recorded>, Vec<Recorded>) = (Vec::new(), Vec::new());
    for (method, did, frames) in live.proxy_removes()? {
        let call = (method, user.classify(frames));
        if did {
            removed.push(call);
        } else {
            nothing.push(call);
        }
    }
    let hints = remove_hints(&nothing, &removed);
    Ok(
        match attributed(
            calls,
            RecordKind::Calls,
            "the recording proxy saw no call that adds",
        ) {
            Attribution::Attributed { kind, stacks, .. } => Attribution::Attributed {
                kind,
                stacks,
                caveats: std::iter::once(PROXY_CAVEAT.to_owned())
                    .chain(leaks)
                    .collect(),
                hints,
            },
            not => not,
        },
    )
}

/// What a proxy-recorded attribution always says.
const PROXY_CAVEAT: &str = "recorded by a proxy in the field, the only recorder that fits \
    here: while it was there the scenario saw another class and identity in the field";

/// `field`: `Some(label)` for writes to the node's own field, `None` for a container's size field.
fn with_watch(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    loops: u32,
    field: Option<String>,
    user: &UserCode,
) -> Result<Attribution, JvmError> {
    let capabilities = agent.capabilities;
    if !capabilities.field_modification_events || !capabilities.tag_objects {
        return Ok(Attribution::not_attributed(
            "the JVMTI agent lacks can_generate_field_modification_events or can_tag_objects \
             (it must be loaded with -agentpath: at JVM start, and the JVM must offer them)",
        ));
    }
    let watch = live.watch(agent.jvmti)?;
    let ran = run_and_settle(scenario, loops);
    let (record, reads) = watch.stop_with_reads()?;
    ran?;
    let cap = kept_by::cap_caveat("the field watch", record.stacks.len(), record.dropped);
    let stacks = record
        .stacks
        .into_iter()
        .map(|frames| user.classify(frames));
    let watched = match field {
        Some(label) => {
            let recorded: Vec<Recorded> = stacks.map(|frames| (String::new(), frames)).collect();
            let nothing = format!("the field watch saw no write to {label}");
            attributed(recorded, |_| RecordKind::Writes(label.clone()), &nothing)
        }
        None => {
            let recorded: Vec<Recorded> = stacks
                .filter_map(|frames| split_container_stack(&frames))
                .collect();
            let hints = match &reads {
                Some(reads) => {
                    let removing: Vec<Recorded> = reads
                        .stacks
                        .iter()
                        .filter_map(|frames| split_container_stack(&user.classify(frames.clone())))
                        .collect();
                    remove_hints(&removing, &recorded)
                }
                None => Vec::new(),
            };
            let cut = reads.as_ref().is_some_and(|reads| reads.cut);
            match attributed(recorded, RecordKind::Calls, "the field watch saw no change") {
                Attribution::Attributed {
                    kind,
                    stacks,
                    mut caveats,
                    ..
                } => {
                    if cut {
                        caveats.push(format!(
                            "remove() probe cut short: the watch of the container's reads \
                             switched itself off after {} reads (its cost), so calls to remove() \
                             that removed nothing may be missing from the hints",
                            super::sampling_cap::thousands(crate::jvmti::MAX_READ_EVENTS)
                        ));
                    }
                    Attribution::Attributed {
                        kind,
                        stacks,
                        caveats,
                        hints,
                    }
                }
                not => not,
            }
        }
    };
    Ok(with_caveats(watched, cap))
}

/// Runs the attribution loops, then waits for the work they handed to other threads (a task
/// on the common pool that adds to the node), so the recorder is still in place when it runs.
fn run_and_settle(scenario: &mut dyn LiveScenario, loops: u32) -> Result<(), JvmError> {
    scenario.run_loops(loops)?;
    scenario.settle()
}

/// What tells the user's code from the JDK's and libraries' in recorded stacks.
struct UserCode {
    /// Where the scenario's (or test's) class was loaded from.
    scenario_source: Option<String>,
}

impl UserCode {
    /// `frames` classified, without heapgrowth's own frames and those below them.
    fn classify(&self, frames: Vec<Frame>) -> Vec<StackFrame> {
        let frames = frames
            .into_iter()
            .map(|frame| StackFrame::new(frame, self.scenario_source.as_deref()))
            .collect();
        without_host_frames(frames)
    }
}

fn attributed(
    recorded: Vec<Recorded>,
    kind: impl FnOnce(Vec<String>) -> RecordKind,
    nothing: &str,
) -> Attribution {
    let stacks = group(recorded);
    if stacks.is_empty() {
        return Attribution::not_attributed(format!("{nothing} during the attribution loops"));
    }
    Attribution::Attributed {
        kind: kind(operations(&stacks)),
        stacks,
        caveats: Vec::new(),
        hints: Vec::new(),
    }
}

/// Whether the scenario failed because it cast the field holding our proxy to its concrete
/// class.
fn casts_the_proxy(error: &JvmError) -> bool {
    matches!(error, JvmError::ScenarioThrew { exception, .. }
        if exception.class == "java.lang.ClassCastException" && exception.to_string().contains("proxy"))
}

fn describe(error: &JvmError) -> String {
    match error {
        JvmError::ScenarioThrew {
            loop_number,
            exception,
            ..
        } => {
            let hint = if casts_the_proxy(error) {
                " (the code casts the field to its concrete class, which fails while a recording \
                 proxy is in it; load heapgrowth's JVMTI agent for recorders the code cannot see)"
            } else {
                ""
            };
            format!(
                "the scenario threw during the attribution loops (loop {loop_number}): \
                 {exception}{hint}; the recorder was removed (fields restored, watches off)"
            )
        }
        other => format!("attribution failed: {other}"),
    }
}

/// A path step as the Java side takes it: kind, owner, name, target.
fn step_strings(step: &crate::growth::PathStep) -> [&str; 4] {
    [
        step.kind.label(),
        step.owner.as_str(),
        step.name.as_str(),
        step.target.as_str(),
    ]
}
