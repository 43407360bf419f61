//! A sample's chain of referrers as a path in the tree report's form (see the module docs of
//! [`old_objects`](crate::growth::old_objects)).

use super::super::containers::{
    entry_fields_by_name, is_internal_class_name, keys_are_elements_by_name,
};
use super::super::roots::thread_name_pattern;
use crate::class_name::stable_class_name;
use crate::growth::{IgnoreRule, PathStep, StepKind};
use crate::jfr::{ChainObject, JfrFrame, OldObjectSample, SampleRoot, Via};

pub(super) fn path_text(path: &[PathStep]) -> Vec<String> {
    path.iter().map(PathStep::with_source).collect()
}

pub(super) fn frames_key(frames: &[JfrFrame]) -> Vec<(&str, &str, Option<i32>)> {
    frames
        .iter()
        .map(|f| (f.class.as_str(), f.method.as_str(), f.line))
        .collect()
}

/// Whether `rule` matches a step of `path` (a rule covers everything below the step).
pub(super) fn matches(rule: &IgnoreRule, path: &[PathStep]) -> bool {
    path.iter().any(|step| match step.kind {
        StepKind::GcRoot => rule.matches_root(&step.name, &step.target),
        _ => rule.matches_location(&step.owner, &step.name),
    })
}

fn step(kind: StepKind, owner: &str, name: &str, target: &str) -> PathStep {
    PathStep {
        kind,
        owner: stable_class_name(owner).into_owned(),
        name: name.to_owned(),
        target: stable_class_name(target).into_owned(),
        objects: 0,
        source: String::new(),
    }
}

fn root_step(name: &str, thread: Option<&str>) -> PathStep {
    PathStep {
        kind: StepKind::GcRoot,
        owner: String::new(),
        name: name.to_owned(),
        target: thread.map(thread_name_pattern).unwrap_or_default(),
        objects: 0,
        source: String::new(),
    }
}

/// The steps a sample's chain starts with: the root group and, for a thread's stack roots, the
/// `LOCAL` step to the outermost object. `outermost` is the object the root references;
/// `first` how it references the next one (if any).
fn root_steps(root: &SampleRoot, outermost: &ChainObject) -> Vec<PathStep> {
    let thread = root.thread_name();
    let local = |what: &str| step(StepKind::Local, "java.lang.Thread", what, &outermost.class);
    match (root.system.as_str(), root.kind.as_str()) {
        ("Threads", "Stack Variable") => vec![root_step("ThreadObject", thread), local("<frame>")],
        ("Threads", "Local JNI Handle") => {
            vec![root_step("ThreadObject", thread), local("<JNI local>")]
        }
        ("Threads", _) => vec![root_step("ThreadObject", thread), local("<VM handle>")],
        ("Class Loader Data", _) => vec![root_step("Class", None)],
        ("Global JNI Handles", _) => vec![root_step("JniGlobal", None)],
        ("Object Monitor", _) => vec![root_step("MonitorUsed", None)],
        ("Universe", _) => vec![root_step("VmInternal", None)],
        (system, _) => vec![root_step(&system.replace(' ', ""), None)],
    }
}

/// The path of a sample in the tree report's form (see the module docs), and the most
/// references JFR left out of its chain. Empty when the dump found no path.
pub fn sample_path(sample: &OldObjectSample) -> (Vec<PathStep>, u64) {
    let Some(root) = &sample.root else {
        return (Vec::new(), 0);
    };
    // Objects from the outermost (the one a root references) in to the sample, and how each
    // references the next one in.
    let objects: Vec<&ChainObject> = sample
        .referrers
        .iter()
        .rev()
        .map(|r| &r.object)
        .chain(std::iter::once(&sample.object))
        .collect();
    let links: Vec<&Via> = sample.referrers.iter().rev().map(|r| &r.via).collect();
    let left_out = sample.referrers.iter().map(|r| r.skipped).sum();

    let outermost = objects[0];
    let static_first = matches!(
        links.first(),
        Some(Via::Field {
            is_static: true,
            ..
        })
    ) && outermost.class_object_name().is_some();
    let mut steps = if static_first {
        // A class's statics live as long as the class: heapgrowth's root for them.
        vec![root_step("Class", None)]
    } else {
        root_steps(root, outermost)
    };
    // Inside a collection: its class, and whether its map keys are its elements.
    let mut container: Option<(&str, bool)> = None;
    for (index, via) in links.iter().enumerate() {
        let (from, to) = (objects[index], objects[index + 1]);
        let field = match via {
            Via::Field { name, .. } => Some(name.as_str()),
            _ => None,
        };
        if let Some((collection, keys_are_elements)) = container {
            let nested_rule = field.is_some_and(|name| {
                entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
            });
            if is_internal_class_name(&to.class) || nested_rule {
                continue;
            }
            let name = match field {
                Some("key") if !keys_are_elements => "[key]",
                _ => "[x]",
            };
            steps.push(step(StepKind::ArrayEntry, collection, name, &to.class));
            container = None;
            continue;
        }
        let enters = field.is_some_and(|name| {
            entry_fields_by_name(&from.class).is_some_and(|fields| fields.contains(&name))
                || is_internal_class_name(&to.class)
        });
        if enters {
            container = Some((&from.class, keys_are_elements_by_name(&from.class)));
            continue;
        }
        let next = match via {
            Via::Field {
                name,
                is_static: true,
            } => {
                let owner = from.class_object_name().unwrap_or(&from.class);
                step(StepKind::StaticField, owner, name, &to.class)
            }
            Via::Field { name, .. } => step(StepKind::InstanceField, &from.class, name, &to.class),
            Via::ArrayElement { .. } => step(StepKind::ArrayEntry, &from.class, "[x]", &to.class),
            Via::Unknown => step(StepKind::InstanceField, &from.class, "<unknown>", &to.class),
        };
        // A linked chain (`Node.next -> Node` again and again) is one step, as in the tree.
        if steps.last() != Some(&next) {
            steps.push(next);
        }
    }
    (steps, left_out)
}
