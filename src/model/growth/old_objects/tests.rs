use super::paths::path_text;
use super::*;
use crate::jfr::{ChainObject, OldObjectSample, Referrer, SampleDump, SampleRoot, Via};

/// A sample builder: the sampled object's class, then its referrers from the nearest out.
struct Chain {
    sample: OldObjectSample,
}

fn object(class: &str) -> ChainObject {
    ChainObject {
        class: class.into(),
        description: None,
        array_length: None,
    }
}

fn class_object(name: &str) -> ChainObject {
    ChainObject {
        class: "java.lang.Class".into(),
        description: Some(format!("Class Name: {name}")),
        array_length: None,
    }
}

fn field(name: &str) -> Via {
    Via::Field {
        name: name.into(),
        is_static: false,
    }
}

fn static_field(name: &str) -> Via {
    Via::Field {
        name: name.into(),
        is_static: true,
    }
}

fn slot() -> Via {
    Via::ArrayElement { index: 3 }
}

fn main_stack() -> SampleRoot {
    SampleRoot {
        system: "Threads".into(),
        kind: "Stack Variable".into(),
        description: Some("Thread Name: main".into()),
    }
}

fn frame(class: &str, method: &str, line: i32) -> JfrFrame {
    JfrFrame {
        class: class.into(),
        method: method.into(),
        line: Some(line),
        loader: Some("app".into()),
        module_location: None,
    }
}

impl Chain {
    fn of(class: &str) -> Chain {
        Chain {
            sample: OldObjectSample {
                dump_time: 10_000_000_000,
                allocation_time: 5_000_000_000,
                age: Duration::from_secs(5),
                heap_used_at_last_gc: 0,
                object: object(class),
                referrers: Vec::new(),
                root: Some(main_stack()),
                thread: Some("main".into()),
                stack: vec![frame("app.Service", "leak", 30)],
                stack_truncated: false,
            },
        }
    }

    fn from(mut self, via: Via, object: ChainObject) -> Chain {
        self.sample.referrers.push(Referrer {
            via,
            object,
            skipped: 0,
        });
        self
    }

    fn root(mut self, root: Option<SampleRoot>) -> Chain {
        self.sample.root = root;
        self
    }

    fn thread(mut self, name: &str) -> Chain {
        self.sample.thread = Some(name.into());
        self
    }

    fn at(mut self, line: i32, age_seconds: u64) -> Chain {
        self.sample.stack = vec![frame("app.Service", "leak", line)];
        self.sample.age = Duration::from_secs(age_seconds);
        self
    }

    fn texts(&self) -> Vec<String> {
        path_text(&sample_path(&self.sample).0)
    }
}

/// A session's payload in `static List<Session> SESSIONS` (an `ArrayList`).
fn leaked_payload() -> Chain {
    Chain::of("byte[]")
        .from(field("payload"), object("app.Service$Session"))
        .from(slot(), object("java.lang.Object[]"))
        .from(field("elementData"), object("java.util.ArrayList"))
        .from(static_field("SESSIONS"), class_object("app.Service"))
}

#[test]
fn a_static_list_is_seen_through_its_internals_from_the_class_root() {
    assert_eq!(
        leaked_payload().texts(),
        [
            "GcRoot(Class)",
            "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList",
            "ARRAY_ENTRY ArrayList.[x] -> instance of app.Service$Session",
            "INSTANCE_FIELD Service$Session.payload -> instance of byte[]",
        ]
    );
}

#[test]
fn map_values_keys_and_set_elements_are_entries_of_their_collection() {
    let map = |via_entry: Via| {
        Chain::of("app.Value")
            .from(via_entry, object("java.util.HashMap$Node"))
            .from(field("next"), object("java.util.HashMap$Node"))
            .from(slot(), object("java.util.HashMap$Node[]"))
            .from(field("table"), object("java.util.LinkedHashMap"))
            .from(field("cache"), object("app.Registry"))
            .from(static_field("INSTANCE"), class_object("app.Registry"))
            .texts()
    };
    assert_eq!(
        map(field("value"))[2..],
        [
            "INSTANCE_FIELD Registry.cache -> instance of java.util.LinkedHashMap",
            "ARRAY_ENTRY LinkedHashMap.[x] -> instance of app.Value"
        ]
    );
    assert_eq!(
        map(field("key")).last().unwrap(),
        "ARRAY_ENTRY LinkedHashMap.[key] -> instance of app.Value"
    );
    let set = Chain::of("app.Listener")
        .from(field("key"), object("java.util.HashMap$Node"))
        .from(slot(), object("java.util.HashMap$Node[]"))
        .from(field("table"), object("java.util.HashMap"))
        .from(field("map"), object("java.util.HashSet"))
        .from(static_field("LISTENERS"), class_object("app.Bus"))
        .texts();
    assert_eq!(
        set[1..],
        [
            "STATIC_FIELD Bus.LISTENERS -> instance of java.util.HashSet",
            "ARRAY_ENTRY HashSet.[x] -> instance of app.Listener"
        ]
    );
}

#[test]
fn a_user_subclass_of_a_map_is_seen_through_by_its_internal_classes() {
    let texts = Chain::of("app.Value")
        .from(field("value"), object("java.util.HashMap$Node"))
        .from(slot(), object("java.util.HashMap$Node[]"))
        .from(field("table"), object("app.MyMap"))
        .from(static_field("MAP"), class_object("app.Holder"))
        .texts();
    assert_eq!(
        texts.last().unwrap(),
        "ARRAY_ENTRY MyMap.[x] -> instance of app.Value"
    );
}

#[test]
fn a_linked_chain_folds_into_one_step_and_a_plain_array_is_an_array_entry() {
    let texts = Chain::of("app.Node")
        .from(field("next"), object("app.Node"))
        .from(field("next"), object("app.Node"))
        .from(field("next"), object("app.Node"))
        .from(field("head"), object("app.Queue"))
        .from(slot(), object("app.Queue[]"))
        .from(static_field("QUEUES"), class_object("app.Pool"))
        .texts();
    assert_eq!(
        texts,
        [
            "GcRoot(Class)",
            "STATIC_FIELD Pool.QUEUES -> instance of app.Queue[]",
            "ARRAY_ENTRY Queue[].[x] -> instance of app.Queue",
            "INSTANCE_FIELD Queue.head -> instance of app.Node",
            "INSTANCE_FIELD Node.next -> instance of app.Node",
        ]
    );
}

#[test]
fn stack_roots_are_the_threads_and_no_root_is_no_path() {
    let texts = Chain::of("app.Item")
        .from(slot(), object("java.lang.Object[]"))
        .from(field("elementData"), object("java.util.ArrayList"))
        .root(Some(SampleRoot {
            system: "Threads".into(),
            kind: "Stack Variable".into(),
            description: Some("Thread Name: worker-12".into()),
        }))
        .texts();
    assert_eq!(
        texts,
        [
            "GcRoot(ThreadObject \"worker-*\")",
            "LOCAL Thread.<frame> -> instance of java.util.ArrayList",
            "ARRAY_ENTRY ArrayList.[x] -> instance of app.Item",
        ]
    );
    assert!(Chain::of("app.Item").root(None).texts().is_empty());
    let jni = Chain::of("app.Item")
        .root(Some(SampleRoot {
            system: "Global JNI Handles".into(),
            kind: "Global JNI Handle".into(),
            description: None,
        }))
        .texts();
    assert_eq!(jni, ["GcRoot(JniGlobal)"]);
}

#[test]
fn lambda_class_names_lose_their_address() {
    let texts = Chain::of("app.Bus$$Lambda$14/0x0000000800c03000")
        .from(slot(), object("java.lang.Object[]"))
        .from(field("elementData"), object("java.util.ArrayList"))
        .from(static_field("HANDLERS"), class_object("app.Bus"))
        .texts();
    assert_eq!(
        texts.last().unwrap(),
        "ARRAY_ENTRY ArrayList.[x] -> instance of app.Bus$$Lambda"
    );
}

fn dump(time: i64, samples: Vec<OldObjectSample>) -> SampleDump {
    SampleDump {
        time,
        samples,
        earlier: 0,
        file_bytes: 0,
    }
}

/// `leaked` payloads (alternating between two allocating lines) and `level` samples of a
/// cache that does not grow, plus one sample of heapgrowth's own.
fn service_dump(t: i64, leaked: u64, level: u64) -> SampleDump {
    let mut samples: Vec<OldObjectSample> = (0..leaked)
        .map(|i| {
            leaked_payload()
                .at(if i % 3 == 0 { 31 } else { 30 }, i + 1)
                .sample
        })
        .collect();
    samples.extend((0..level).map(|_| {
        Chain::of("byte[]")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("RECENT"), class_object("app.Cache"))
            .at(50, 1)
            .sample
    }));
    samples.push(
        Chain::of("java.lang.String")
            .thread("Attach Listener")
            .sample,
    );
    dump(t, samples)
}

/// How a JVM's collections come between dumps.
#[derive(Clone, Copy)]
enum Collections {
    /// Its own: the search tells them from the samples.
    Natural,
    /// A full collection heapgrowth ran before every dump, the same samples after each but for
    /// the collections (what the search did before it knew better).
    ForcedEveryDump,
}

/// A JVM that collects every third interval: its samples change only then, and the two dumps
/// between repeat the one before. Only the dumps whose samples changed move the trend, so the
/// leak is selected at the sixth of them; fed every dump, the repeats broke every rising streak
/// and the leak was never selected (read as clean when the watch ended).
#[test]
fn dumps_between_collections_do_not_break_a_leaks_streak() {
    let leak_at = |t: i64| 10 * (t / 3) as u64;
    let selected = |collections: Collections| {
        let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
        let mut first_selected = None;
        for t in 0..30 {
            let collected = t % 3 == 0;
            let forced = matches!(collections, Collections::ForcedEveryDump);
            let counts = search.observe(&service_dump(t, leak_at(t), 12), forced);
            assert_eq!(counts.judged, collected || forced);
            if first_selected.is_none() && !search.selected_classes().is_empty() {
                first_selected = Some(t);
            }
        }
        let judged = search.outcome().judged_dumps();
        (first_selected, judged)
    };
    assert_eq!(selected(Collections::Natural), (Some(15), 10));
    assert_eq!(selected(Collections::ForcedEveryDump), (None, 30));
}

/// A dump is judged when its samples are not those of the last judged dump: one sample more, one
/// fewer, or one allocated at another time is a change; the same samples in another order, at a
/// later dump time, their times read tens of nanoseconds apart (each dump is a JFR chunk that
/// converts times its own way), are not. After a full collection heapgrowth ran it is judged.
#[test]
fn a_dump_is_judged_when_its_samples_changed_or_after_a_full_collection() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    let first = service_dump(0, 3, 2);
    assert!(search.observe(&first, false).judged);
    let mut reordered = first.clone();
    reordered.samples.reverse();
    reordered.time += 1_000_000_000;
    for sample in &mut reordered.samples {
        sample.allocation_time += 39;
    }
    assert!(!search.observe(&reordered, false).judged);
    // heapgrowth's own sample (last in a service dump, now first) is not the JVM's: its change
    // is no change.
    let mut own_moved = reordered.clone();
    own_moved.samples[0].allocation_time += 2_000_000;
    assert!(!search.observe(&own_moved, false).judged);
    let mut moved = own_moved.clone();
    moved.samples[1].allocation_time += 2_000_000;
    assert!(search.observe(&moved, false).judged);
    let mut fewer = moved.clone();
    fewer.samples.pop();
    assert!(search.observe(&fewer, false).judged);
    assert!(!search.observe(&fewer, false).judged);
    // The same samples after a full collection heapgrowth ran are a flat value.
    assert!(search.observe(&fewer, true).judged);
    assert_eq!(search.outcome().judged_dumps(), 4);
}

#[test]
fn a_leaking_path_is_found_through_its_class_with_stacks_and_ages() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    let mut first_selected = None;
    for t in 0..10 {
        let counts = search.observe(&service_dump(t, 10 * t as u64, 12), true);
        assert_eq!((counts.own, counts.counted()), (1, 10 * t as u64 + 12));
        if first_selected.is_none() && !search.selected_classes().is_empty() {
            first_selected = Some(t);
        }
    }
    // byte[] holds 12 samples from the first dump: tracked from it, evaluated from the
    // fourth, selected after the streak of three.
    assert_eq!(first_selected, Some(5));
    let outcome = search.outcome();
    assert_eq!(outcome.dumps.len(), 10);
    let [class] = &outcome.growing[..] else {
        panic!("{:?}", outcome.growing)
    };
    assert_eq!(class.trend.class, "byte[]");
    // The leaking path first; the cache's flat path is left out (it did not rise).
    let [path] = &class.paths[..] else {
        panic!("{:?}", class.paths)
    };
    assert_eq!(
        path_text(&path.path)[1],
        "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList"
    );
    assert_eq!(class.other_paths, (1, 12));
    assert_eq!(path.samples, 90);
    assert_eq!(path.counts, (0..10).map(|t| 10 * t).collect::<Vec<u64>>());
    assert_eq!(
        path.stacks
            .iter()
            .map(|s| (s.samples, s.frames[0].line))
            .collect::<Vec<_>>(),
        [(60, Some(30)), (30, Some(31))]
    );
    assert_eq!(
        path.ages,
        SampleAges {
            youngest: Duration::from_secs(1),
            median: Duration::from_secs(46),
            oldest: Duration::from_secs(90),
        }
    );
    assert_eq!(path.threads, [("main".to_owned(), 90)]);
}

/// A dump at second `t` of a recording started at 0 whose queue is full: `leaked`
/// payloads allocated evenly over the whole recording, and `cached` entries of a bounded
/// cache that keeps each for `cache_life` seconds (allocated evenly within the last
/// `cache_life`), none of them rising in number.
fn saturated_dump(t: i64, leaked: u64, cached: u64, cache_life: f64) -> SampleDump {
    let second = 1_000_000_000i64;
    let at = |fraction: f64| (fraction * t as f64 * second as f64) as i64;
    let mut samples: Vec<OldObjectSample> = (0..leaked)
        .map(|i| {
            let mut sample = leaked_payload().at(30, 1).sample;
            sample.allocation_time = at((i as f64 + 0.5) / leaked as f64);
            sample
        })
        .collect();
    samples.extend((0..cached).map(|i| {
        let mut sample = Chain::of("byte[]")
            .from(slot(), object("java.lang.Object[]"))
            .from(field("elementData"), object("java.util.ArrayList"))
            .from(static_field("RECENT"), class_object("app.Cache"))
            .at(50, 1)
            .sample;
        let life = cache_life.min(t as f64);
        sample.allocation_time =
            at(1.0) - (life * second as f64 * (i as f64 + 0.5) / cached as f64) as i64;
        sample
    }));
    dump(t * second, samples)
}

#[test]
fn past_a_full_queue_a_leak_is_its_survivors_spread_over_the_recording() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    search.recording_started(0);
    let mut found = None;
    for t in 1..=12 {
        // The queue stays full: the same counts at every dump, so no trend can rise.
        search.observe(&saturated_dump(t, 200, 56, 3.0), true);
        assert!(search.selected_classes().is_empty(), "dump {t}");
        if found.is_none() && search.has_survivors() {
            found = Some(t);
        }
    }
    // Spread from the first dump (window 1 s), confirmed at a window four times as long
    // and of 10 s at least: the youngest survivor ends the window, just before the tenth
    // second's dump, so at the eleventh.
    assert_eq!(found, Some(11));
    let outcome = search.outcome();
    let [survivors] = &outcome.survivors[..] else {
        panic!("{:?}", outcome.survivors)
    };
    assert_eq!(
        survivors.key_step(),
        "STATIC_FIELD Service.SESSIONS -> instance of java.util.ArrayList"
    );
    // The common path goes down to the sessions, where payloads and sessions part ways.
    assert_eq!(
        path_text(&survivors.sampled.path).last().unwrap(),
        "INSTANCE_FIELD Service$Session.payload -> instance of byte[]"
    );
    assert_eq!(
        (survivors.sampled.samples, survivors.of_samples),
        (200, 256)
    );
    assert_eq!(survivors.quarters, [50, 50, 50, 50]);
    assert_eq!(survivors.classes, [("byte[]".to_owned(), 200)]);
    assert_eq!(survivors.sampled.stacks[0].frames[0].line, Some(30));
}

#[test]
fn a_bounded_cache_whose_entries_die_is_never_spread_past_their_life() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    search.recording_started(0);
    for t in 1..=30 {
        // Entries live 3 s: over the first three seconds they fill the window as a leak
        // would, but never at a window four times as long.
        search.observe(&saturated_dump(t, 0, 200, 3.0), true);
    }
    assert!(!search.has_survivors());
    assert!(search.outcome().survivors.is_empty());
    // A few leaked samples among many are not a share to judge.
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    search.recording_started(0);
    for t in 1..=30 {
        search.observe(&saturated_dump(t, 20, 200, 3.0), true);
    }
    assert!(!search.has_survivors());
}

#[test]
fn the_fewest_dumps_to_judge_are_those_the_sample_trend_needs() {
    assert_eq!(
        MIN_DUMPS_TO_JUDGE,
        ClassTrendConfig::old_object_samples().values_to_select()
    );
}

#[test]
fn a_flat_cache_and_heapgrowths_own_samples_are_not_growth() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    for t in 0..30 {
        // A level of 20 that wanders by up to 6 either way, and one more own sample per
        // dump (the attach listener's strings).
        let wander = [0, 6, 2, 5, 1, 3, 6, 0, 4, 2][t % 10];
        let mut dump = service_dump(t as i64, 0, 14 + wander);
        for _ in 0..t {
            dump.samples.push(
                Chain::of("java.lang.String")
                    .thread("Attach Listener")
                    .sample,
            );
        }
        search.observe(&dump, true);
        assert!(search.selected_classes().is_empty(), "dump {t}");
    }
    assert!(search.outcome().growing.is_empty());
}

#[test]
fn samples_on_ignored_paths_are_counted_per_rule_and_not_judged() {
    let rule = IgnoreRule::parse(
        "Service.SESSIONS kept on purpose",
        crate::growth::RuleOrigin::User("--ignore".into()),
    )
    .unwrap();
    let mut search = OldObjectSearch::new(OldObjectConfig {
        ignore_rules: vec![rule],
        ..OldObjectConfig::default()
    })
    .unwrap();
    for t in 0..10 {
        let counts = search.observe(&service_dump(t, 10 * t as u64, 12), true);
        assert_eq!(counts.ignored, 10 * t as u64);
    }
    let outcome = search.outcome();
    assert!(outcome.growing.is_empty());
    assert!(outcome.unmatched_rules.is_empty());
    assert_eq!(
        outcome.ignored,
        [IgnoredSamples {
            pattern: "Service.SESSIONS".into(),
            reason: "kept on purpose".into(),
            origin: crate::growth::RuleOrigin::User("--ignore".into()),
            samples: 90
        }]
    );
}

/// A leak seen by the samples of a JVM with the serial collector (measured: 0, 5, 10, 16, 32, 37
/// and 42 samples at the seven dumps after a collection of a 30 s watch): its class reaches the
/// tracking floor of 8 samples at the third, is evaluated from its fourth value after that and
/// selected after three rising in a row, at the eighth. Until then the trend has not decided on
/// it, and says so: seven dumps after a collection with no class selected read as clean before.
#[test]
fn a_leak_that_reaches_the_floor_late_is_undecided_until_selected() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    let mut undecided_at = Vec::new();
    for (t, leaked) in [0, 5, 10, 16, 32, 37, 42, 47].into_iter().enumerate() {
        search.observe(&service_dump(t as i64, leaked, 0), true);
        let outcome = search.outcome();
        let undecided: Vec<&str> = outcome.undecided.iter().map(|row| &row.class[..]).collect();
        let selected = search.selected_classes();
        assert!(undecided.is_empty() || selected.is_empty(), "{t}");
        if undecided == ["byte[]"] {
            undecided_at.push(t);
        } else {
            assert!(undecided.is_empty(), "{t}: {undecided:?}");
        }
        if t == 7 {
            assert_eq!(selected, ["byte[]"]);
        }
    }
    assert_eq!(undecided_at, [2, 3, 4, 5, 6]);
}

/// A level class the trend has evaluated, and one below the floor, leave nothing undecided:
/// the clean twin's samples can read as clean.
#[test]
fn level_samples_leave_no_class_undecided() {
    let mut search = OldObjectSearch::new(OldObjectConfig::default()).unwrap();
    for t in 0..8 {
        search.observe(&service_dump(t, 3, 20), true);
        let undecided = search.outcome().undecided.len();
        assert_eq!(undecided, usize::from(t < 3), "{t}");
    }
    assert!(search.selected_classes().is_empty());
}
