//! Attribution on code we did not write (issue 10): each leak names the user's line as the place
//! to look: the `// GROWS` line, or the `// ALLOCATED` line where only allocation sampling can
//! see the growth. Where the object is made on one line and handed to the JDK or a library on
//! the next, the call that made it reachable (kept by) is named, and the `new` as `made_at`
//! (issue 32). Through JDK packages no module opens, on other threads, in a running
//! thread's local variables, in containers that change without a field write to watch, and past
//! the frames of real libraries. The clean twins are clean; a scenario that watches its own
//! field sees nothing while attribution runs.

use std::path::Path;

use super::growth_classes::clean_on;
use super::support::{corpus_classes, heapgrowth_on, json, library_classpath};

/// `File.java:N` of each line of `source` (under `tests/corpus/`) that ends with `marker`.
pub(super) fn marked(source: &str, marker: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(source);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{source}: {e}"));
    let file = path.file_name().unwrap().to_str().unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains(marker))
        .map(|(i, _)| format!("{file}:{}", i + 1))
        .collect();
    assert!(!lines.is_empty(), "{source} has no {marker} line");
    lines
}

/// Runs the leaking `scenario` with attribution: exit 1, and every growing node attributed,
/// its most frequent stack's place to look at a `marker` line of `source`. Returns the nodes.
pub(super) fn names_the_line(
    classpath: &str,
    scenario: &str,
    source: &str,
    marker: &str,
) -> serde_json::Value {
    let output = heapgrowth_on(classpath, &[scenario], &["--format", "json"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{scenario} leaks: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = marked(source, marker);
    let nodes = json(&output)["scenarios"][0]["growing"].clone();
    for node in nodes.as_array().unwrap() {
        let attribution = &node["attribution"];
        assert_eq!(
            attribution["status"], "attributed",
            "{scenario}: {attribution}"
        );
        let stack = &attribution["stacks"][0];
        let look = stack["place_to_look"]
            .as_u64()
            .unwrap_or_else(|| panic!("{scenario}: no place to look in {stack}"));
        let frame = stack["frames"][look as usize].as_str().unwrap();
        assert!(
            lines
                .iter()
                .any(|line| frame.ends_with(&format!("({line})"))),
            "{scenario}: looks at {frame}, not at {marker} {lines:?}: {attribution}"
        );
        assert_eq!(
            stack["frame_details"][look as usize]["origin"], "user",
            "{scenario}: {stack}"
        );
    }
    nodes
}

fn jdk(scenario: &str, source: &str, marker: &str) -> serde_json::Value {
    names_the_line(
        corpus_classes().to_str().unwrap(),
        scenario,
        &format!("src/corpus/{source}"),
        marker,
    )
}

fn library(scenario: &str, source: &str, marker: &str) -> serde_json::Value {
    names_the_line(
        library_classpath(),
        scenario,
        &format!("libs/src/corpus/libs/{source}"),
        marker,
    )
}

fn jdk_clean(scenario: &str) {
    clean_on(corpus_classes().to_str().unwrap(), scenario);
}

fn library_clean(scenario: &str) {
    clean_on(library_classpath(), scenario);
}

/// Every node of `nodes` has its first stack's `made_at` at a `// ALLOCATED` line of `source`
/// (under `tests/corpus/`), in the user's code.
fn made_at(nodes: &serde_json::Value, source: &str) {
    let lines = marked(source, ALLOCATED);
    for node in nodes.as_array().unwrap() {
        let made = &node["attribution"]["stacks"][0]["made_at"];
        let look = made["place_to_look"]
            .as_u64()
            .unwrap_or_else(|| panic!("{source}: no made_at place in {node}"));
        let frame = made["frames"][look as usize].as_str().unwrap();
        assert!(
            lines
                .iter()
                .any(|line| frame.ends_with(&format!("({line})"))),
            "{source}: made at {frame}, not at {lines:?}: {node}"
        );
        assert_eq!(made["frame_details"][look as usize]["origin"], "user");
    }
}

/// The first stack of every node of `nodes` has no `made_at`: the object under the node was
/// made by the call that keeps it.
fn made_where_kept(nodes: &serde_json::Value) {
    for node in nodes.as_array().unwrap() {
        assert_eq!(
            node["attribution"]["stacks"][0]["made_at"],
            serde_json::Value::Null,
            "{node}"
        );
    }
}

const GROWS: &str = "// GROWS";
const ALLOCATED: &str = "// ALLOCATED";
const VIA: &str = "// VIA";

// 1. Paths through JDK packages that no module opens to heapgrowth: fields read through JNI.

#[test]
fn through_java_util_logging() {
    jdk(
        "corpus.leaks.JulHandlerLeak",
        "leaks/JulHandlerLeak.java",
        GROWS,
    );
    jdk(
        "corpus.attribution.JulConfigListenerLeak",
        "attribution/JulConfigListenerLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.JulConfigListenerRemoved");
}

#[test]
fn through_java_beans() {
    jdk(
        "corpus.leaks.PropertyChangeLeak",
        "app/ThemeSettings.java",
        GROWS,
    );
    // The listener array is copied on every add, inside addVetoableChangeListener.
    let nodes = jdk(
        "corpus.attribution.BeanListenerLeak",
        "attribution/BeanListenerLeak.java",
        GROWS,
    );
    made_at(&nodes, "src/corpus/attribution/BeanListenerLeak.java");
    jdk_clean("corpus.attribution.BeanListenerRemoved");
}

#[test]
fn through_java_util_concurrent_atomic() {
    jdk(
        "corpus.attribution.AtomicReferenceLeak",
        "attribution/AtomicReferenceLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.AtomicReferenceFlushed");
    library("corpus.libs.GuavaCacheLeak", "GuavaCacheLeak.java", GROWS);
    library(
        "corpus.libs.GuavaInternerLeak",
        "GuavaInternerLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.GuavaInternerBounded");
}

// 2. Roots on other threads: a pool worker's thread local, threads started per loop.

#[test]
fn a_thread_local_on_a_pool_worker() {
    let nodes = jdk(
        "corpus.attribution.PoolThreadLocalLeak",
        "attribution/PoolThreadLocalLeak.java",
        GROWS,
    );
    assert_eq!(nodes[0]["path"][0]["threads"], "pool-*-thread-*", "{nodes}");
    jdk_clean("corpus.attribution.PoolThreadLocalCleaned");
}

#[test]
fn threads_started_per_loop_are_attributed_at_their_start() {
    // A running thread is a GC root: what keeps one is the call of start(), which the watch on
    // the field start() writes sees (Thread.container, ThreadGroup.nthreads on JDK 17).
    let nodes = jdk("corpus.leaks.ThreadLeak", "leaks/ThreadLeak.java", GROWS);
    let attribution = &nodes[0]["attribution"];
    assert_eq!(attribution["kind"], "calls to start()", "{attribution}");
    assert!(
        !attribution
            .to_string()
            .contains("which no recorder here watches"),
        "{attribution}"
    );
    // The thread's allocation, where sampling paired it with the start, is its made-at.
    if !attribution["stacks"][0]["made_at"].is_null() {
        made_at(&nodes, "src/corpus/leaks/ThreadLeak.java");
    }
    jdk(
        "corpus.leaks.AsyncExecutorLeak",
        "leaks/AsyncExecutorLeak.java",
        GROWS,
    );
}

#[test]
fn an_executor_per_loop_is_attributed_at_the_call_not_in_its_thread_factory() {
    // The threads are allocated in the scenario's thread factory, which the pool calls back:
    // the place to look is the scenario's call that starts the pool. From JDK 21 on, every
    // ThreadPoolExecutor also registers its thread container in the JDK's
    // ThreadContainers.CONTAINER_REGISTRY (a set of weak references, given up at shutdown(),
    // which the scenario never calls): a second node that really grows, once a pool, and whose
    // place to look is the line that makes the pool.
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.leaks.ExecutorLeak"],
        &["--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1));
    let source = "src/corpus/leaks/ExecutorLeak.java";
    let submit = marked(source, GROWS);
    let made = marked(source, "Executors.newFixedThreadPool(");
    let nodes = json(&output)["scenarios"][0]["growing"].clone();
    let nodes = nodes.as_array().unwrap();
    let registry = |node: &serde_json::Value| {
        node["path"][1]["owner"] == "jdk.internal.vm.ThreadContainers"
            && node["path"][1]["name"] == "CONTAINER_REGISTRY"
    };
    let threads: Vec<_> = nodes.iter().filter(|node| !registry(node)).collect();
    assert_eq!(threads.len(), 1, "{nodes:?}");
    assert_eq!(threads[0]["path"][0]["kind"], "GC_ROOT", "{nodes:?}");
    assert!(nodes.len() <= 2, "{nodes:?}");
    for node in nodes {
        let lines = if registry(node) { &made } else { &submit };
        let attribution = &node["attribution"];
        assert_eq!(attribution["status"], "attributed", "{attribution}");
        let stack = &attribution["stacks"][0];
        let look = stack["place_to_look"].as_u64().unwrap() as usize;
        let frame = stack["frames"][look].as_str().unwrap();
        assert!(
            lines
                .iter()
                .any(|line| frame.ends_with(&format!("({line})"))),
            "looks at {frame}, not at {lines:?}: {attribution}"
        );
        assert_eq!(stack["frame_details"][look]["origin"], "user", "{stack}");
    }
}

// 3. Structures held only by a local variable of a running thread.

#[test]
fn a_running_threads_local_variables() {
    let nodes = jdk(
        "corpus.leaks.WorkerBatchLeak",
        "leaks/WorkerBatchLeak.java",
        GROWS,
    );
    let local = &nodes[0]["path"][1];
    assert_eq!(local["kind"], "LOCAL", "{nodes}");
    assert_eq!(local["name"], "run", "{nodes}");
    jdk(
        "corpus.attribution.LocalQueueLeak",
        "attribution/LocalQueueLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.LocalQueueDrained");
}

#[test]
fn a_local_variable_several_frames_deep() {
    jdk(
        "corpus.attribution.DeepLocalLeak",
        "attribution/DeepLocalLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.DeepLocalShipped");
}

#[test]
fn a_leak_on_an_error_path_looks_at_the_add_not_at_the_remove_of_the_other_loops() {
    // The node's watch records the removes of the loops that clean up beside the adds; the
    // coverage survey found the place to look at the remove (a later line of the same method).
    jdk(
        "corpus.leaks.ErrorPathLeak",
        "leaks/ErrorPathLeak.java",
        GROWS,
    );
    jdk(
        "corpus.leaks.RareErrorLeak",
        "leaks/RareErrorLeak.java",
        GROWS,
    );
}

// 4. Containers that change without a field write heapgrowth can watch.

#[test]
fn concurrent_maps() {
    jdk(
        "corpus.attribution.ConcurrentMapLeak",
        "attribution/ConcurrentMapLeak.java",
        GROWS,
    );
    jdk(
        "corpus.attribution.FinalConcurrentMapLeak",
        "attribution/FinalConcurrentMapLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.ConcurrentMapClean");
    jdk_clean("corpus.attribution.FinalConcurrentMapClean");
}

#[test]
fn copy_on_write_containers_and_arrays_replaced_on_every_add() {
    jdk(
        "corpus.attribution.CopyOnWriteSetLeak",
        "attribution/CopyOnWriteSetLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.CopyOnWriteSetUnsubscribed");
    // The copy that becomes the array is made by the add: its allocation links the alarm.
    let nodes = jdk(
        "corpus.attribution.ReplacedArrayLeak",
        "attribution/ReplacedArrayLeak.java",
        GROWS,
    );
    made_at(&nodes, "src/corpus/attribution/ReplacedArrayLeak.java");
    let caveats = &nodes[0]["attribution"]["caveats"];
    assert!(
        caveats[0]
            .as_str()
            .unwrap_or_default()
            .starts_with("the node's array is replaced by a copy on every add"),
        "{caveats}"
    );
    jdk_clean("corpus.attribution.ReplacedArrayRemoved");
}

#[test]
fn lock_free_queues_and_timer_queues() {
    // The queue's node is allocated by offer(): the link allocation names it.
    let nodes = jdk(
        "corpus.attribution.ConcurrentLinkedQueueLeak",
        "attribution/ConcurrentLinkedQueueLeak.java",
        GROWS,
    );
    assert_eq!(
        nodes[0]["attribution"]["kind"], "calls to offer()",
        "{nodes}"
    );
    made_at(
        &nodes,
        "src/corpus/attribution/ConcurrentLinkedQueueLeak.java",
    );
    jdk_clean("corpus.attribution.ConcurrentLinkedQueuePolled");
    // The timer's task array is stored into; the owner-field watch sees TaskQueue.size.
    let nodes = jdk(
        "corpus.leaks.TimerTaskLeak",
        "leaks/TimerTaskLeak.java",
        GROWS,
    );
    assert_eq!(
        nodes[0]["attribution"]["stacks"][0]["headline"], "4 call(s) to schedule()",
        "{nodes}"
    );
    made_at(&nodes, "src/corpus/leaks/TimerTaskLeak.java");
    // The executor makes the task it queues inside schedule(): made where it is kept.
    let nodes = jdk(
        "corpus.leaks.ScheduledCancelledLeak",
        "leaks/ScheduledCancelledLeak.java",
        GROWS,
    );
    made_where_kept(&nodes);
}

#[test]
fn a_stream_that_remembers_what_it_wrote() {
    // The handle table's array is stored into; the owner-field watch sees HandleTable.size.
    let nodes = jdk(
        "corpus.attribution.ObjectStreamKeepsLeak",
        "attribution/ObjectStreamKeepsLeak.java",
        GROWS,
    );
    assert_eq!(
        nodes[0]["attribution"]["kind"], "calls to writeObject()",
        "{nodes}"
    );
    made_at(&nodes, "src/corpus/attribution/ObjectStreamKeepsLeak.java");
    jdk_clean("corpus.attribution.ObjectStreamReset");
}

#[test]
fn churn_beside_the_survivor_does_not_use_up_sampling() {
    // 8,000 temporary items per loop beside the kept one: allocation sampling's cap counts live
    // objects (issue 32 §2.3), so the receipt of every attribution loop is sampled (with the
    // cap of 20,000 events, before, only the first 3 of 4, and a note of the cap). The texts of
    // a cap that is reached: `sampling_cap`'s unit tests.
    let nodes = jdk(
        "corpus.attribution.SampledChurnLeak",
        "attribution/SampledChurnLeak.java",
        GROWS,
    );
    let attribution = &nodes[0]["attribution"];
    assert_eq!(
        attribution["stacks"][0]["headline"], "4 object(s) allocated",
        "{attribution}"
    );
    assert_eq!(
        attribution["caveats"],
        serde_json::json!([]),
        "{attribution}"
    );
    jdk_clean("corpus.attribution.SampledChurnClean");
    // 25,000 temporary Strings per loop beside one kept in three CAS containers of a final
    // journal: each of the three nodes names its own line in the journal.
    let nodes = jdk(
        "corpus.attribution.ChurnBesideSurvivorLeak",
        "app/EventJournal.java",
        GROWS,
    );
    let mut looked: Vec<String> = nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            let stack = &node["attribution"]["stacks"][0];
            let look = stack["place_to_look"].as_u64().unwrap() as usize;
            let frame = stack["frames"][look].as_str().unwrap().to_owned();
            // Called from the scenario's line.
            let caller = stack["frames"][look + 1].as_str().unwrap_or_default();
            assert!(
                caller.ends_with(&format!(
                    "({})",
                    marked("src/corpus/attribution/ChurnBesideSurvivorLeak.java", VIA)[0]
                )),
                "{stack}"
            );
            frame
        })
        .collect();
    looked.sort();
    assert_eq!(
        looked,
        marked("src/corpus/app/EventJournal.java", GROWS)
            .iter()
            .map(|line| format!("corpus.app.EventJournal.record({line})"))
            .collect::<Vec<_>>(),
        "{nodes}"
    );
    jdk_clean("corpus.attribution.ChurnNoSurvivorClean");
    // One entry per loop in a long-lived Guava interner among 25,000 entries of a per-request
    // one.
    library(
        "corpus.libs.GuavaInternerChurnLeak",
        "GuavaInternerChurnLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.GuavaInternerChurnBounded");
}

#[test]
fn growth_deep_in_a_tree() {
    // A value watch on the field that links the new node (`parent.left = node`).
    let nodes = jdk("corpus.leaks.TreeLeak", "app/SearchTree.java", GROWS);
    assert!(
        nodes[0]["attribution"]["kind"]
            .as_str()
            .unwrap_or_default()
            .starts_with("writes to SearchTree$Node."),
        "{nodes}"
    );
    made_at(&nodes, "src/corpus/app/SearchTree.java");
}

// 6. Growth inside real libraries: past their frames to the user's call.

#[test]
fn caffeine() {
    library(
        "corpus.libs.CaffeineUnboundedLeak",
        "CaffeineUnboundedLeak.java",
        GROWS,
    );
    library(
        "corpus.libs.CaffeineWeakKeysLeak",
        "CaffeineWeakKeysLeak.java",
        GROWS,
    );
    // The map's entry is allocated by put(): the link allocation names it.
    let nodes = library(
        "corpus.libs.CaffeineAsyncCacheLeak",
        "CaffeineAsyncCacheLeak.java",
        GROWS,
    );
    made_at(&nodes, "libs/src/corpus/libs/CaffeineAsyncCacheLeak.java");
    library_clean("corpus.libs.CaffeineAsyncCacheInvalidated");
}

#[test]
fn netty() {
    // A listener array of a library object: the owner-field watch on DefaultFutureListeners.
    let nodes = library(
        "corpus.libs.NettyPromiseListenerLeak",
        "NettyPromiseListenerLeak.java",
        GROWS,
    );
    assert_eq!(
        nodes[0]["attribution"]["kind"], "calls to addListener()",
        "{nodes}"
    );
    made_at(&nodes, "libs/src/corpus/libs/NettyPromiseListenerLeak.java");
    library_clean("corpus.libs.NettyPromiseListenerRemoved");
    // The wheel's chains are written by the timer's worker only: the timeouts' allocation in
    // newTimeout() names the call. (Its clean twin runs in stability.rs.) Under load the search
    // sometimes reports the timeouts along another path, where they are attributed to the same
    // line as allocated there, without made_at: only the line is asserted.
    library(
        "corpus.libs.NettyWheelTimerLeak",
        "NettyWheelTimerLeak.java",
        GROWS,
    );
}

#[test]
fn guava() {
    library(
        "corpus.libs.GuavaEventBusLeak",
        "GuavaEventBusLeak.java",
        GROWS,
    );
    library(
        "corpus.libs.GuavaMultimapLeak",
        "GuavaMultimapLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.GuavaMultimapShipped");
}

#[test]
fn logback() {
    library(
        "corpus.libs.LogbackLoggerPerRequestLeak",
        "LogbackLoggerPerRequestLeak.java",
        GROWS,
    );
    // The user's line is the ninth frame, below logback's appender chain.
    library(
        "corpus.libs.LogbackListAppenderLeak",
        "LogbackListAppenderLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.LogbackListAppenderCleared");
}

#[test]
fn micrometer() {
    // Three growing maps, one of them a ConcurrentHashMap of meters reached first elsewhere.
    let nodes = library(
        "corpus.libs.MicrometerTagCardinalityLeak",
        "MicrometerTagCardinalityLeak.java",
        GROWS,
    );
    assert_eq!(nodes.as_array().unwrap().len(), 3, "{nodes}");
    library(
        "corpus.libs.MicrometerTimerPerUriLeak",
        "MicrometerTimerPerUriLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.MicrometerTimerPerRouteClean");
}

#[test]
fn commons_pool() {
    // The pool calls the scenario's factory back: past it to the borrow.
    library("corpus.libs.PoolBorrowLeak", "PoolBorrowLeak.java", GROWS);
    library(
        "corpus.libs.KeyedPoolPerRequestLeak",
        "KeyedPoolPerRequestLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.KeyedPoolPerTenantClean");
}

// 7. Class and class-loader leaks (issue 32): a class defined per call into a loader that lives.

#[test]
fn classes_defined_per_call_into_a_long_lived_loader() {
    // The node is the loader itself, its children its classes (CLASS steps).
    let nodes = jdk(
        "corpus.attribution.DefinedClassPerCallLeak",
        "app/TemplateLoader.java",
        GROWS,
    );
    assert_eq!(nodes.as_array().unwrap().len(), 1, "{nodes}");
    // The class-definition recorder (JVMTI ClassLoad on the node's loader).
    assert_eq!(
        nodes[0]["attribution"]["kind"], "classes defined at",
        "{nodes}"
    );
    jdk_clean("corpus.attribution.DefinedClassLoaderDropped");
    // Without the agent: no recorder but a proxy, which a loader in a static final field of
    // its own class's type cannot take; both reasons given.
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.attribution.DefinedClassPerCallLeak"],
        &["--format", "json", "--no-agent"],
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let reason = report["scenarios"][0]["growing"][0]["attribution"]["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("not attributed without the agent: {report}"))
        .to_owned();
    assert!(
        reason.starts_with("heapgrowth's JVMTI agent is not loaded")
            && reason.ends_with(
                "; a proxy needs a field declared as a Collection or Map interface, and \
                 DefinedClassPerCallLeak.GENERATOR is a corpus.app.TemplateLoader"
            ),
        "{reason}"
    );
}

#[test]
fn classes_defined_through_a_lookup_into_the_scenarios_loader() {
    // The set of class roots itself grows (no step below the root): every class defined is
    // recorded; and ClassLoader.classes, a field reflection hides, gets a container watch.
    let nodes = jdk(
        "corpus.attribution.LookupDefinedClassLeak",
        "app/LookupGenerator.java",
        GROWS,
    );
    let kinds: Vec<&str> = nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["attribution"]["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"classes defined at"), "{nodes}");
    assert!(kinds.contains(&"calls to defineClass()"), "{nodes}");
    jdk_clean("corpus.attribution.LookupHiddenClassDropped");
    // Without the agent, the class roots' reason says what would record them.
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.attribution.LookupDefinedClassLeak"],
        &["--format", "json", "--no-agent"],
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let roots = report["scenarios"][0]["growing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["path"].as_array().unwrap().len() == 1)
        .unwrap_or_else(|| panic!("no class-root node: {report}"));
    assert_eq!(
        roots["attribution"]["reason"],
        "the node is the set of classes held as GC roots, which grows as classes are defined and \
         kept; naming the code that defines them needs heapgrowth's JVMTI agent (ClassLoad \
         events): load it with -agentpath:"
    );
}

#[test]
fn a_class_looked_up_by_a_name_made_per_call() {
    // No class is defined: a parallel-capable loader keeps a lock per name asked for, in its
    // parallelLockMap and in those of the parents it delegates to (the scenario's loader, the
    // application's and the platform's), found or not. The map's entries are allocated by
    // loadClass() (getClassLoadingLock's putIfAbsent): link allocations name the user's call.
    let nodes = jdk(
        "corpus.attribution.ClassLookupPerNameLeak",
        "attribution/ClassLookupPerNameLeak.java",
        GROWS,
    );
    let nodes = nodes.as_array().unwrap();
    assert!(
        nodes
            .iter()
            .any(|node| node["path"][1]["name"] == "PLUGINS"),
        "no node at the plugin loader: {nodes:?}"
    );
    for node in nodes {
        let path = node["path"].as_array().unwrap();
        assert_eq!(path.last().unwrap()["name"], "parallelLockMap", "{node}");
        assert_eq!(
            node["attribution"]["kind"], "calls to loadClass()",
            "{node}"
        );
    }
    jdk_clean("corpus.attribution.ClassLookupFixedNamesClean");
    // Without the agent, each node's reason is true: the map is a final ConcurrentHashMap field.
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.attribution.ClassLookupPerNameLeak"],
        &["--format", "json", "--no-agent"],
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    for node in report["scenarios"][0]["growing"].as_array().unwrap() {
        let reason = node["attribution"]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("heapgrowth's JVMTI agent is not loaded")
                && reason.ends_with(
                    "; a proxy needs a field declared as a Collection or Map interface, and \
                     ClassLoader.parallelLockMap is a java.util.concurrent.ConcurrentHashMap"
                ),
            "{node}"
        );
    }
}

#[test]
fn byte_buddy_and_javassist() {
    // Byte Buddy: the generator loader, and a lock per new class name in the parallelLockMap of
    // each parent loader asked for it: a field reflection hides, followed through JNI.
    let nodes = library(
        "corpus.libs.ByteBuddyClassPerCallLeak",
        "ByteBuddyClassPerCallLeak.java",
        GROWS,
    );
    let generator = nodes
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["path"][1]["name"] == "GENERATED")
        .unwrap_or_else(|| panic!("no node at the generator loader: {nodes}"));
    assert_eq!(
        generator["attribution"]["kind"], "classes defined at",
        "{generator}"
    );
    let hidden = nodes
        .as_array()
        .unwrap()
        .iter()
        .filter(|node| {
            node["path"].as_array().unwrap().iter().any(|step| {
                step["owner"] == "java.lang.ClassLoader" && step["name"] == "parallelLockMap"
            })
        })
        .count();
    assert!(
        hidden >= 1,
        "no node through ClassLoader.parallelLockMap: {nodes}"
    );
    library_clean("corpus.libs.ByteBuddyTypeCacheClean");
    // Javassist: the ClassPool keeps every CtClass it made until detach().
    library(
        "corpus.libs.JavassistPoolLeak",
        "JavassistPoolLeak.java",
        GROWS,
    );
    library_clean("corpus.libs.JavassistDetachedOnce");
}

#[test]
fn the_text_report_shows_each_stack_down_to_the_users_line_and_marks_it() {
    let output = heapgrowth_on(library_classpath(), &["corpus.libs.GuavaCacheLeak"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = &marked("libs/src/corpus/libs/GuavaCacheLeak.java", GROWS)[0];
    assert!(
        stdout.contains(&format!(
            "        at corpus.libs.GuavaCacheLeak.run({line})   ← look here\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(" frames in guava-33.8.0-jre.jar\n"),
        "library frames are summed up: {stdout}"
    );
    // --full-stacks shows every frame, the library's too.
    let full = heapgrowth_on(
        library_classpath(),
        &["corpus.libs.GuavaCacheLeak"],
        &["--full-stacks"],
    );
    let full = String::from_utf8_lossy(&full.stdout);
    assert!(!full.contains(" frames in guava"), "{full}");
    assert!(
        full.contains("at com.google.common.cache.LocalCache.put("),
        "{full}"
    );
    assert!(full.contains("   ← look here\n"), "{full}");
}

// 7. A scenario that checks its own field (identity, class, lock, a cast, a copy published
// elsewhere) sees nothing with the agent's recorders; a proxy (without the agent) it sees, and
// the report says so.

#[test]
fn a_scenario_that_watches_its_own_field_sees_nothing_with_the_agent() {
    let classes = corpus_classes().to_str().unwrap();
    let plain = heapgrowth_on(
        classes,
        &["corpus.attribution.ObservesItsFieldLeak"],
        &["--no-attribution"],
    );
    assert_eq!(plain.status.code(), Some(1));
    // The scenario throws on the loop after it saw a change: attributed means it saw none.
    jdk(
        "corpus.attribution.ObservesItsFieldLeak",
        "attribution/ObservesItsFieldLeak.java",
        GROWS,
    );
    jdk_clean("corpus.attribution.ObservesItsFieldClean");

    let proxied = heapgrowth_on(
        classes,
        &["corpus.attribution.ObservesItsFieldLeak"],
        &["--format", "json", "--no-agent"],
    );
    let attribution = &json(&proxied)["scenarios"][0]["growing"][0]["attribution"];
    // Its cast is the first thing that breaks; the report says what it threw and why.
    let reason = attribution["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("the scenario threw during the attribution loops")
            && reason.contains("java.lang.ClassCastException")
            && reason.contains("the code casts the field to its concrete class"),
        "with a proxy the scenario sees it, and the report says what it threw: {attribution}"
    );
}

#[test]
fn a_proxy_the_scenario_kept_elsewhere_is_reported() {
    let nodes = names_the_line(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.PublishesItsFieldLeak",
        "src/corpus/attribution/PublishesItsFieldLeak.java",
        GROWS,
    );
    assert_eq!(nodes[0]["attribution"]["caveats"], serde_json::json!([]));
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.attribution.PublishesItsFieldLeak"],
        &["--format", "json", "--no-agent"],
    );
    let node = &json(&output)["scenarios"][0]["growing"][0];
    let attribution = &node["attribution"];
    assert_eq!(attribution["kind"], "calls to add()", "{attribution}");
    let caveats = attribution["caveats"].as_array().unwrap();
    // Which of the two static fields holding the list the path names is the JVM's order of a
    // class's fields: `items` on JDK 17, `lastSeen` (declared Object) on 25. Through `lastSeen`
    // the proxy goes into `items`, which holds the same list, and the report says so.
    let path = node["path"].as_array().unwrap();
    let elsewhere = "the proxy was in PublishesItsFieldLeak.items, a field that holds the same \
                     object as the node's PublishesItsFieldLeak.lastSeen (declared java.lang.Object";
    let through_last_seen = path.last().unwrap()["name"] == "lastSeen";
    assert_eq!(
        caveats
            .iter()
            .any(|caveat| caveat.as_str().unwrap().starts_with(elsewhere)),
        through_last_seen,
        "{node}"
    );
    assert!(
        caveats.iter().any(|caveat| caveat
            .as_str()
            .unwrap()
            .starts_with("the scenario kept 1 of the recording proxies after they were taken out of PublishesItsFieldLeak.items")),
        "{attribution}"
    );
}
