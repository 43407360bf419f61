//! Runs the recorders on a scenario in a live JVM: follow the node's path, install the
//! recorder, run the loops, remove the recorder (always), group what it saw.

use super::{
    group, operations, split_container_stack, without_host_frames, Attribution, RecordKind,
    Recorded,
};
use crate::growth::GrowingNode;
use crate::jvm::{JvmError, LiveAgent, LiveNode, LiveScenario, Recorder};

/// Attributes `node` by running `loops` more loops of `scenario` with a recorder in place.
/// Never fails: every problem becomes [`Attribution::NotAttributed`] with its reason. The
/// scenario's fields are restored and watches switched off whatever happens.
pub fn attribute(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    node: &GrowingNode,
    loops: u32,
) -> Attribution {
    match attribute_inner(agent, scenario, node, loops) {
        Ok(attribution) => attribution,
        Err(error) => Attribution::not_attributed(describe(&error)),
    }
}

fn attribute_inner(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    node: &GrowingNode,
    loops: u32,
) -> Result<Attribution, JvmError> {
    let steps: Vec<[&str; 4]> = node.path.iter().map(step_strings).collect();
    let live = scenario.path_start()?.follow_path(&steps)?;
    match live.recorder()? {
        Recorder::Proxy => match with_proxies(scenario, &live, loops) {
            Err(error) if casts_the_proxy(&error) => match live.without_proxy()? {
                Recorder::ContainerWrites { .. } => with_watch(agent, scenario, &live, loops, None),
                _ => Ok(Attribution::not_attributed(describe(&error))),
            },
            other => other,
        },
        Recorder::FieldWrites { label } => {
            match with_watch(agent, scenario, &live, loops, Some(label.clone()))? {
                // Growth without a write to the field (elements stored into an array it
                // holds): what is left is where the new objects were allocated.
                Attribution::NotAttributed { .. } => {
                    let reason = format!("no write to {label} during the attribution loops");
                    with_allocations(agent, scenario, &live, node, loops, reason)
                }
                attributed => Ok(attributed),
            }
        }
        Recorder::Allocations { reason } => {
            with_allocations(agent, scenario, &live, node, loops, reason)
        }
        Recorder::ContainerWrites { label } => {
            with_watch(agent, scenario, &live, loops, None).map(|a| match a {
                Attribution::NotAttributed { reason } => Attribution::not_attributed(format!(
                    "{reason} (watched {label}'s internal size field)"
                )),
                attributed => attributed,
            })
        }
        Recorder::None { reason } => Ok(Attribution::not_attributed(reason)),
    }
}

/// The last resort: allocation stacks of the objects that are under the node's growing
/// children after the loops and were allocated during them. `reason`: why nothing better fit.
fn with_allocations(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    node: &GrowingNode,
    loops: u32,
    reason: String,
) -> Result<Attribution, JvmError> {
    let capabilities = agent.capabilities;
    if !capabilities.sampled_alloc_events || !capabilities.tag_objects {
        return Ok(Attribution::not_attributed(format!(
            "{reason}; allocation sampling needs the JVMTI capabilities \
             can_generate_sampled_object_alloc_events and can_tag_objects, which the agent lacks"
        )));
    }
    // A root group (a thread group) grows by its own objects; other nodes by their children.
    let root_group = node.path.len() == 1;
    let growing: Vec<[&str; 4]> = if root_group {
        node.path.iter().map(step_strings).collect()
    } else {
        node.children
            .iter()
            .filter(|child| child.new > 0 || child.new_bytes > 0)
            .map(|child| step_strings(&child.step))
            .collect()
    };
    let own_classes;
    let classes: Vec<&str> = if root_group {
        own_classes = live.target_class_names()?;
        own_classes.iter().map(String::as_str).collect()
    } else {
        growing.iter().map(|step| step[3]).collect()
    };
    let sampling = live.sample_allocations(agent.jvmti, &classes)?;
    let ran = scenario.run_loops(loops);
    let record = sampling.stop(live, &growing)?;
    ran?;
    let recorded: Vec<Recorded> = record
        .stacks
        .into_iter()
        .map(|frames| {
            (
                String::new(),
                without_host_frames(frames.iter().map(ToString::to_string).collect()),
            )
        })
        .collect();
    Ok(attributed(
        recorded,
        |_| RecordKind::Allocations,
        &format!("{reason}; allocation sampling saw no new object stay under the node"),
    ))
}

fn with_proxies(
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    loops: u32,
) -> Result<Attribution, JvmError> {
    if let Err(reason) = live.install_proxies()? {
        return Ok(Attribution::not_attributed(reason));
    }
    let ran = scenario.run_loops(loops);
    // Restored before anything else can fail; `LiveNode`'s drop restores too.
    live.restore()?;
    ran?;
    let calls = live.proxy_calls()?;
    Ok(attributed(
        calls,
        RecordKind::Calls,
        "the recording proxy saw no call that adds",
    ))
}

/// `field`: `Some(label)` for writes to the node's own field, `None` for a container's size field.
fn with_watch(
    agent: LiveAgent,
    scenario: &mut dyn LiveScenario,
    live: &LiveNode,
    loops: u32,
    field: Option<String>,
) -> Result<Attribution, JvmError> {
    let capabilities = agent.capabilities;
    if !capabilities.field_modification_events || !capabilities.tag_objects {
        return Ok(Attribution::not_attributed(
            "the JVMTI agent lacks can_generate_field_modification_events or can_tag_objects \
             (it must be loaded with -agentpath: at JVM start, and the JVM must offer them)",
        ));
    }
    let watch = live.watch(agent.jvmti)?;
    let ran = scenario.run_loops(loops);
    let record = watch.stop()?;
    ran?;
    let stacks = record
        .stacks
        .into_iter()
        .map(|frames| without_host_frames(frames.iter().map(ToString::to_string).collect()));
    Ok(match field {
        Some(label) => {
            let recorded: Vec<Recorded> = stacks.map(|frames| (String::new(), frames)).collect();
            attributed(
                recorded,
                |_| RecordKind::Writes(label.clone()),
                "the field watch saw no write",
            )
        }
        None => {
            let recorded: Vec<Recorded> = stacks
                .filter_map(|frames| split_container_stack(&frames))
                .collect();
            attributed(recorded, RecordKind::Calls, "the field watch saw no change")
        }
    })
}

fn attributed(
    recorded: Vec<Recorded>,
    kind: impl FnOnce(Vec<String>) -> RecordKind,
    nothing: &str,
) -> Attribution {
    let stacks = group(recorded);
    if stacks.is_empty() {
        return Attribution::not_attributed(format!(
            "{nothing} during the attribution loops (the growth may happen in code the recorder does not see)"
        ));
    }
    Attribution::Attributed {
        kind: kind(operations(&stacks)),
        stacks,
    }
}

/// Whether the scenario failed because it cast the field holding our proxy to its concrete
/// class: a documented limitation of proxies, for which the container watch stands in.
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
                " (the code casts the watched field to its concrete class, which fails while a \
                 recording proxy is in it)"
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
