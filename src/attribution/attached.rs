//! Attribution in `heapgrowth watch --pid`: the allocation stacks that heapgrowth's agent,
//! loaded into the running JVM, sampled ([`crate::attach::AttachedSampling`]), turned into the
//! [`Attribution`] of a growing node, grouped and with the place to look marked as for
//! `heapgrowth run`.
//!
//! It is the only recorder a running JVM allows. Field watches (`writes to Owner.field`, and
//! the container size-field watches behind `calls to add()`) need the JVMTI capability
//! `can_generate_field_modification_events`, which only an agent loaded when the JVM starts
//! can have; recording proxies need heapgrowth's code in the JVM and would change what the
//! application sees. Every attribution made here says so ([`NO_FIELD_WATCHES`]).
//!
//! How it is used: start the sampling for the classes of the growing nodes' new objects
//! ([`sampled_classes`]) as soon as they are known, let the application run on (only objects
//! allocated from then on are seen), and turn a later report into one attribution per node
//! ([`attribute`]).

use std::path::{Path, PathBuf};

use super::{group_counted, Attribution, RecordKind, Recorded, StackFrame};
use crate::attach::{SamplingReport, MAX_SAMPLED_CLASSES};
use crate::growth::GrowingNode;

/// What watch mode cannot record, said with every attribution it makes.
pub const NO_FIELD_WATCHES: &str = "no field watch: watching writes to a field needs the JVMTI \
    capability can_generate_field_modification_events, which only an agent loaded when the JVM \
    starts (-agentpath:) can have, and heapgrowth watch loads its agent into a running JVM";

/// The classes to sample for `nodes`: the classes of each node's children that grew (its new
/// objects), each once, in the nodes' order, at most [`MAX_SAMPLED_CLASSES`].
pub fn sampled_classes<'a>(nodes: impl IntoIterator<Item = &'a GrowingNode>) -> Vec<String> {
    let mut classes: Vec<String> = Vec::new();
    for node in nodes {
        for class in growing_classes(node) {
            if !classes.contains(&class) && classes.len() < MAX_SAMPLED_CLASSES {
                classes.push(class);
            }
        }
    }
    classes
}

fn growing_classes(node: &GrowingNode) -> Vec<String> {
    let mut classes: Vec<String> = Vec::new();
    for child in &node.children {
        let class = &child.step.target;
        let grew = child.new > 0 || child.new_bytes > 0;
        // Roots have no class; a group of threads is named by a pattern (`worker-*`).
        if grew && !class.is_empty() && !class.contains('*') && !classes.contains(class) {
            classes.push(class.clone());
        }
    }
    classes
}

/// Whether `report` watches some of `node`'s growing classes, loaded in the JVM, but holds no
/// live sampled object of them yet: what more time can change. HotSpot samples a thread's
/// first allocation only once that thread has allocated about 512 KiB since sampling started,
/// whatever the interval asked for (its next sample is drawn when the thread starts, and again
/// only at each sample), which a slow leak's thread takes seconds to do.
pub fn sampled_nothing_yet(report: &SamplingReport, node: &GrowingNode) -> bool {
    let classes = growing_classes(node);
    let watched_and_loaded = classes.iter().any(|class| {
        report
            .classes
            .iter()
            .any(|watched| &watched.name == class && watched.loaded > 0)
    });
    watched_and_loaded
        && !report
            .stacks
            .iter()
            .any(|stack| stack.live_objects > 0 && classes.contains(&stack.class))
}

/// The attribution of `node` from `report`: the allocation stacks of the objects of the node's
/// growing classes that are still in the heap, most live objects first. The frames of
/// `application_source` (a code source URL, see [`application_source`]) are the user's, as the
/// scenario's are in `heapgrowth run`; without it, class directories are.
///
/// The agent counts the objects of those classes alive anywhere in the heap, not only the
/// ones under the node (following the node's path in a running JVM would need heapgrowth's
/// Java code there): the caveats say so, and how the counts were sampled.
pub fn attribute(
    report: &SamplingReport,
    node: &GrowingNode,
    application_source: Option<&str>,
) -> Attribution {
    let classes = growing_classes(node);
    if classes.is_empty() {
        return Attribution::not_attributed(format!(
            "allocation sampling has no class to watch: none of the node's children that grew \
             names one; {NO_FIELD_WATCHES}"
        ));
    }
    let watched: Vec<&String> = classes
        .iter()
        .filter(|class| report.classes.iter().any(|w| &w.name == *class))
        .collect();
    if watched.is_empty() {
        return Attribution::not_attributed(format!(
            "allocation sampling did not watch {}: a watch samples a node's classes from the \
             dump at which it becomes a candidate, and sampling could not start on them then",
            classes.join(", ")
        ));
    }
    let not_loaded: Vec<&str> = watched
        .iter()
        .filter(|class| {
            report
                .classes
                .iter()
                .any(|w| w.name.as_str() == class.as_str() && w.loaded == 0)
        })
        .map(|class| class.as_str())
        .collect();
    let recorded = report
        .stacks
        .iter()
        .filter(|stack| watched.contains(&&stack.class) && stack.live_objects > 0)
        .map(|stack| {
            let frames = stack
                .frames
                .iter()
                .map(|frame| StackFrame::new(frame.clone(), application_source))
                .collect();
            ((String::new(), frames) as Recorded, stack.live_objects)
        });
    let stacks = group_counted(recorded);
    let names = watched
        .iter()
        .map(|class| class.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut notes: Vec<String> = Vec::new();
    if !not_loaded.is_empty() {
        notes.push(format!(
            "{} is not loaded in the JVM, so none of its objects could be sampled",
            not_loaded.join(", ")
        ));
    }
    if report.dropped() > 0 {
        notes.push(format!(
            "{} of {} sampled allocations of {names} were not recorded (the agent keeps at most \
             1,024 stacks and 100,000 sampled objects alive at a time)",
            report.dropped(),
            report.samples
        ));
    }
    if report.skipped > 0 {
        notes.push(format!(
            "{} of {} sampled allocations of {names} were skipped to bound the cost (the agent \
             records at most 5,000 a second): the counts are of a subsample",
            report.skipped, report.samples
        ));
    }
    if report.class_table_full {
        notes.push(
            "more classes of these names are loaded (by different class loaders) than the agent \
             watches (64); objects of the others were not sampled"
                .to_string(),
        );
    }
    if stacks.is_empty() {
        // The allocations sampled of every class tell a sampling that saw little from one
        // that saw nothing at all (not running, or the JVM not allocating).
        let mut reason = format!(
            "allocation sampling (about one sample in every {} bytes a thread allocates) found no \
             object of {names} allocated since it started that is still in the heap ({} sampled \
             so far, of {} allocations sampled of every class): a slow leak takes longer to be \
             sampled",
            report.interval_bytes, report.samples, report.sampled_allocations
        );
        for note in notes {
            reason.push_str("; ");
            reason.push_str(&note);
        }
        reason.push_str("; ");
        reason.push_str(NO_FIELD_WATCHES);
        return Attribution::not_attributed(reason);
    }
    let mut caveats = vec![
        format!(
            "sampled allocations: about one in every {} bytes each thread allocates is sampled, \
             so the counts are of sampled objects still in the heap, and only of objects \
             allocated since sampling started",
            report.interval_bytes
        ),
        format!(
            "objects of {names} alive anywhere in the heap are counted, not only those under this \
             node"
        ),
    ];
    caveats.extend(notes);
    caveats.push(NO_FIELD_WATCHES.to_string());
    Attribution::Attributed {
        kind: RecordKind::Allocations,
        stacks,
        caveats,
        hints: Vec::new(),
    }
}

/// The code source of the application's own code in `report`'s JVM, to pass to [`attribute`]:
/// the jar it was started with (`java -jar app.jar`), the source file of the source launcher
/// (`java Main.java`), or the code source of its main class (`java -cp ... app.Main`), as far
/// as a sampled frame shows it. `None` if no frame does: then class directories are the user's
/// code and jars libraries, as [`super::Origin::classify`] decides without a scenario.
pub fn application_source(report: &SamplingReport) -> Option<String> {
    let command = report.java_command.as_deref()?;
    let mut words = command.split_whitespace();
    let first = words.next()?;
    // The source launcher runs as a JDK main class with the source file as its first argument.
    let entry = if first.starts_with("jdk.compiler/") {
        words.next()?
    } else {
        first
    };
    let frames = || report.stacks.iter().flat_map(|stack| &stack.frames);
    if entry.ends_with(".jar") || entry.ends_with(".java") {
        let path = match (Path::new(entry).is_absolute(), &report.working_dir) {
            (true, _) => PathBuf::from(entry),
            (false, Some(dir)) => dir.join(entry),
            (false, None) => return None,
        };
        // The JVM names a class path entry by its real path (symbolic links resolved).
        let real = std::fs::canonicalize(&path).unwrap_or(path.clone());
        frames()
            .filter_map(|frame| frame.code_source.as_deref())
            .find(|source| file_url_path(source).is_some_and(|p| p == path || p == real))
            .map(str::to_owned)
    } else {
        frames()
            .find(|frame| frame.class == entry && frame.code_source.is_some())
            .and_then(|frame| frame.code_source.clone())
    }
}

/// The file a `file:` URL names (`file:/a%20b/app.jar` → `/a b/app.jar`).
fn file_url_path(url: &str) -> Option<PathBuf> {
    let path = url.strip_prefix("file:")?;
    let path = path.strip_prefix("//").unwrap_or(path);
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attach::{SampledStack, WatchedClass};
    use crate::attribution::{Frame, Origin};
    use crate::growth::{
        ChildGrowth, Confirmation, GrowthKind, PathStep, RetainedGrowth, StepKind,
    };

    fn frame(class: &str, method: &str, line: i32, code_source: Option<&str>) -> Frame {
        Frame {
            class: class.into(),
            method: method.into(),
            file: Some(format!("{}.java", class.rsplit('.').next().unwrap())),
            line: Some(line),
            code_source: code_source.map(str::to_owned),
        }
    }

    const APP: &str = "file:/srv/app.jar";

    fn stack(class: &str, live_objects: u64, line: i32) -> SampledStack {
        SampledStack {
            class: class.into(),
            live_objects,
            samples: live_objects + 3,
            frames: vec![
                frame("java.util.ArrayList", "add", 455, None),
                frame("app.Registry", "register", line, Some(APP)),
                frame("app.Main", "main", 9, Some(APP)),
            ],
        }
    }

    fn report(stacks: Vec<SampledStack>, loaded: u32) -> SamplingReport {
        SamplingReport {
            interval_bytes: 32768,
            samples: 40,
            classes: vec![WatchedClass {
                name: "app.Entry".into(),
                loaded,
            }],
            stacks,
            java_command: Some("app.jar --port 80".into()),
            working_dir: Some("/srv".into()),
            ..SamplingReport::default()
        }
    }

    fn node(child_classes: &[(&str, i64)]) -> GrowingNode {
        let step = |target: &str| PathStep {
            kind: StepKind::ArrayEntry,
            owner: "java.lang.Object[]".into(),
            name: "[x]".into(),
            target: target.into(),
            objects: 10,
            source: String::new(),
        };
        GrowingNode {
            path: vec![step("java.util.ArrayList"), step("java.lang.Object[]")],
            kinds: vec![GrowthKind::Objects],
            history: Vec::new(),
            confirmed: Confirmation {
                from_loop: 1,
                to_loop: 3,
                snapshots: 3,
                cut: None,
            },
            retained: RetainedGrowth::default(),
            children: child_classes
                .iter()
                .map(|&(target, new)| ChildGrowth {
                    step: step(target),
                    objects: 10,
                    new,
                    bytes: 160,
                    new_bytes: new * 16,
                    below: 0,
                    new_below: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn the_classes_sampled_are_those_of_the_children_that_grew() {
        let first = node(&[("app.Entry", 5), ("java.lang.String", 0), ("app.Entry", 2)]);
        let second = node(&[("app.Key", 1), ("app.Entry", 1)]);
        assert_eq!(sampled_classes([&first, &second]), ["app.Entry", "app.Key"]);
    }

    #[test]
    fn only_a_watched_loaded_class_without_live_samples_awaits_them() {
        let growing = node(&[("app.Entry", 5)]);
        // Watched and loaded, nothing sampled alive yet: more time can change that.
        assert!(sampled_nothing_yet(&report(vec![], 3), &growing));
        assert!(sampled_nothing_yet(
            &report(vec![stack("app.Entry", 0, 12)], 3),
            &growing
        ));
        // A live sample of the class: nothing to wait for.
        assert!(!sampled_nothing_yet(
            &report(vec![stack("app.Entry", 1, 12)], 3),
            &growing
        ));
        // Not loaded, or not watched at all: waiting cannot help.
        assert!(!sampled_nothing_yet(&report(vec![], 0), &growing));
        assert!(!sampled_nothing_yet(
            &report(vec![], 3),
            &node(&[("app.Other", 5)])
        ));
        // Live samples of another class do not count for this node's.
        let both = node(&[("app.Entry", 5), ("app.Key", 2)]);
        let mut key_only = report(vec![stack("app.Key", 4, 12)], 3);
        key_only.classes.push(WatchedClass {
            name: "app.Key".into(),
            loaded: 1,
        });
        assert!(!sampled_nothing_yet(&key_only, &both));
        assert!(sampled_nothing_yet(&key_only, &growing));
    }

    #[test]
    fn stacks_are_counted_by_live_objects_and_the_users_line_is_marked() {
        let growing = node(&[("app.Entry", 5)]);
        let sampled = report(
            vec![
                stack("app.Entry", 3, 40),
                stack("app.Entry", 20, 30),
                stack("app.Other", 99, 50),
            ],
            1,
        );
        let source = application_source(&sampled);
        assert_eq!(source.as_deref(), Some(APP));
        let Attribution::Attributed {
            kind,
            stacks,
            caveats,
            ..
        } = attribute(&sampled, &growing, source.as_deref())
        else {
            panic!("attributed");
        };
        assert_eq!(kind, RecordKind::Allocations);
        assert_eq!(
            stacks.iter().map(|s| s.count).collect::<Vec<_>>(),
            [20, 3],
            "the other class's stack is not the node's"
        );
        let top = &stacks[0];
        assert_eq!(top.frames[1].origin, Origin::User);
        let look = top.place_to_look().map(|i| top.frames[i].to_string());
        assert_eq!(
            look.as_deref(),
            Some("app.Registry.register(Registry.java:30)")
        );
        assert!(
            caveats[0].contains("one in every 32768 bytes"),
            "{caveats:?}"
        );
        assert!(caveats[1].contains("anywhere in the heap"), "{caveats:?}");
        assert_eq!(caveats.last().unwrap(), NO_FIELD_WATCHES);
        assert!(!caveats.iter().any(|c| c.contains("skipped")));

        let subsampled = SamplingReport {
            skipped: 7,
            dropped_table_full: 2,
            ..sampled
        };
        let Attribution::Attributed { caveats, .. } = attribute(&subsampled, &growing, None) else {
            panic!("attributed");
        };
        assert!(
            caveats
                .iter()
                .any(|c| c.starts_with("2 of 40 sampled allocations")),
            "{caveats:?}"
        );
        assert!(
            caveats
                .iter()
                .any(|c| c.starts_with("7 of 40") && c.contains("subsample")),
            "{caveats:?}"
        );
    }

    #[test]
    fn without_the_applications_jar_its_frames_are_a_library() {
        let growing = node(&[("app.Entry", 5)]);
        let sampled = report(vec![stack("app.Entry", 2, 30)], 1);
        let Attribution::Attributed { stacks, .. } = attribute(&sampled, &growing, None) else {
            panic!("attributed");
        };
        assert_eq!(
            stacks[0].frames[1].origin,
            Origin::Library("app.jar".into())
        );
    }

    #[test]
    fn nothing_sampled_says_why() {
        let growing = node(&[("app.Entry", 5)]);
        let reason = |attribution: Attribution| match attribution {
            Attribution::NotAttributed { reason } => reason,
            other => panic!("{other:?}"),
        };
        let none = reason(attribute(
            &SamplingReport {
                sampled_allocations: 900,
                ..report(Vec::new(), 1)
            },
            &growing,
            None,
        ));
        assert!(none.contains("found no object of app.Entry"), "{none}");
        assert!(
            none.contains("(40 sampled so far, of 900 allocations sampled of every class)"),
            "{none}"
        );
        assert!(none.ends_with(NO_FIELD_WATCHES), "{none}");
        let missing = reason(attribute(&report(Vec::new(), 0), &growing, None));
        assert!(
            missing.contains("app.Entry is not loaded in the JVM"),
            "{missing}"
        );
        let unwatched = reason(attribute(
            &report(Vec::new(), 1),
            &node(&[("app.Key", 1)]),
            None,
        ));
        assert!(unwatched.contains("did not watch app.Key"), "{unwatched}");
        let classless = reason(attribute(&report(Vec::new(), 1), &node(&[("x", 0)]), None));
        assert!(classless.contains("no class to watch"), "{classless}");
    }

    #[test]
    fn the_application_is_found_by_its_jar_source_file_or_main_class() {
        let mut sampled = report(vec![stack("app.Entry", 1, 30)], 1);
        // `java -jar /srv/app.jar`, absolute.
        sampled.java_command = Some("/srv/app.jar".into());
        assert_eq!(application_source(&sampled).as_deref(), Some(APP));
        // The source launcher, `java Main.java` (JDK 17 and 25 name their launcher classes
        // differently, both in jdk.compiler).
        sampled.stacks[0].frames[1].code_source = Some("file:/srv/My%20App.java".into());
        for launcher in [
            "jdk.compiler/com.sun.tools.javac.launcher.Main",
            "jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher",
        ] {
            sampled.java_command = Some(format!("{launcher} My App.java"));
            assert_eq!(application_source(&sampled), None, "split at the space");
        }
        sampled.stacks[0].frames[1].code_source = Some("file:/srv/Main.java".into());
        sampled.java_command =
            Some("jdk.compiler/com.sun.tools.javac.launcher.Main Main.java 5".into());
        assert_eq!(
            application_source(&sampled).as_deref(),
            Some("file:/srv/Main.java")
        );
        // A main class: its frame's code source.
        sampled.java_command = Some("app.Main".into());
        assert_eq!(application_source(&sampled).as_deref(), Some(APP));
        sampled.java_command = Some("app.Elsewhere".into());
        assert_eq!(application_source(&sampled), None);
    }

    #[test]
    fn file_urls_are_decoded() {
        assert_eq!(
            file_url_path("file:/a%20b/c.jar"),
            Some(PathBuf::from("/a b/c.jar"))
        );
        assert_eq!(file_url_path("file:///x/y/"), Some(PathBuf::from("/x/y/")));
        assert_eq!(file_url_path("jrt:/java.base"), None);
        assert_eq!(
            file_url_path("file:/bad%zz"),
            Some(PathBuf::from("/bad%zz"))
        );
    }
}
