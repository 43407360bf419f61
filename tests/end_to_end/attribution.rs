//! Attribution: each growing node names the code that grows it, by the recorder that fits:
//! with the agent, those the scenario cannot see (container watch, field-write watch,
//! allocation sampling); without it (`--no-agent`, a test JVM without `-agentpath:`), recording
//! proxies, whose fields are restored and whose leaks out are reported; the phase can be
//! switched off.

use std::path::Path;

use super::support::{heapgrowth, json};

/// `File.java:N` of the `nth` (from 0) line marked `// GROWS` in a corpus source file.
fn grows(source: &str, nth: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/src")
        .join(source);
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.trim_end().ends_with("// GROWS") || line.contains("// GROWS ("))
        .nth(nth)
        .unwrap_or_else(|| panic!("{source} has a GROWS marker #{nth}"))
        .0;
    format!(
        "{}:{}",
        path.file_name().unwrap().to_str().unwrap(),
        line + 1
    )
}

/// The JSON attribution of each growing node of one scenario.
fn attributions(scenario: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let output = heapgrowth(&[scenario], &args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{scenario} leaks: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document = json(&output);
    document["scenarios"][0]["growing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["attribution"].clone())
        .collect()
}

/// Checks one attributed node: its kind, and that the first frame of its most frequent stack is
/// the marked line `File.java:N`, with `count` calls.
fn assert_attributed(attribution: &serde_json::Value, kind: &str, frame_at: &str, count: u64) {
    assert_eq!(attribution["status"], "attributed", "{attribution}");
    assert_eq!(attribution["kind"], kind, "{attribution}");
    let stack = &attribution["stacks"][0];
    let first = stack["frames"][0].as_str().unwrap();
    assert!(
        first.ends_with(&format!("({frame_at})")),
        "{first} is not at {frame_at}: {attribution}"
    );
    assert_eq!(stack["count"], count, "{attribution}");
}

fn only(scenario: &str) -> serde_json::Value {
    only_with(scenario, &[])
}

fn only_with(scenario: &str, extra: &[&str]) -> serde_json::Value {
    let mut all = attributions(scenario, extra);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

/// Without the agent: recording proxies only.
const NO_AGENT: &[&str] = &["--no-agent"];

/// Checks that a proxy-recorded attribution says so.
fn assert_recorded_by_a_proxy(attribution: &serde_json::Value) {
    let caveats = attribution["caveats"].as_array().unwrap();
    assert!(
        caveats[0]
            .as_str()
            .unwrap()
            .starts_with("recorded by a proxy in the field"),
        "{attribution}"
    );
}

// 1. Recording proxies, without the agent.

#[test]
fn proxy_in_a_static_interface_field() {
    let attribution = only_with("corpus.leaks.StaticListLeak", NO_AGENT);
    assert_recorded_by_a_proxy(&attribution);
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/leaks/StaticListLeak.java", 0),
        4,
    );
    assert_eq!(
        attribution["stacks"][0]["frames"][0],
        "corpus.leaks.StaticListLeak.run(StaticListLeak.java:26)"
    );
}

#[test]
fn proxy_in_an_instance_field_whose_owner_is_found_through_the_path() {
    // Cart is reached from the scenario thread: ScenarioThread.scenario -> InstanceFieldLeak.cart.
    let attribution = only_with("corpus.leaks.InstanceFieldLeak", NO_AGENT);
    assert_recorded_by_a_proxy(&attribution);
    assert_attributed(
        &attribution,
        "calls to put()",
        &grows("corpus/app/Cart.java", 0),
        4,
    );
    let callers = attribution["stacks"][0]["frames"][1].as_str().unwrap();
    assert_eq!(
        callers,
        "corpus.leaks.InstanceFieldLeak.run(InstanceFieldLeak.java:28)"
    );
}

#[test]
fn proxies_in_every_owner_of_one_path() {
    // Three Registry objects share the path; one call per registry per loop, 4 loops.
    let attribution = only_with("corpus.leaks.SeveralOwnersLeak", NO_AGENT);
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/app/Registry.java", 0),
        12,
    );
}

#[test]
fn proxy_behind_a_static_final_singleton() {
    let attribution = only_with("corpus.leaks.ListenerLeak", NO_AGENT);
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/app/EventBus.java", 0),
        4,
    );
}

#[test]
fn fields_come_back_with_every_object_also_when_the_scenario_throws() {
    // The scenario throws on its second loop with a proxy in a field, and throws on every later
    // loop if a field it saw proxied does not hold its original list with every item: so the
    // second node is attributed only if the first field came back whole.
    let all = attributions("corpus.attribution.RestoreAfterThrow", NO_AGENT);
    assert_eq!(all.len(), 2, "{all:?}");
    let (threw, attributed) = if all[0]["status"] == "not_attributed" {
        (&all[0], &all[1])
    } else {
        (&all[1], &all[0])
    };
    let reason = threw["reason"].as_str().unwrap();
    assert!(
        reason.contains("threw during the attribution loops"),
        "{reason}"
    );
    assert!(
        reason.contains("thrown on purpose while a field is watched"),
        "{reason}"
    );
    let source = "corpus/attribution/RestoreAfterThrow.java";
    let frame = attributed["stacks"][0]["frames"][0].as_str().unwrap();
    assert!(
        frame.ends_with(&format!("({})", grows(source, 0)))
            || frame.ends_with(&format!("({})", grows(source, 1))),
        "{frame}"
    );
    assert_eq!(attributed["stacks"][0]["count"], 4, "{attributed}");
}

#[test]
fn a_cast_of_the_proxied_field_throws_and_the_reason_says_so() {
    // The scenario casts its List field to ArrayList: the cast fails while the proxy is in it.
    let attribution = only_with("corpus.attribution.CastsItsFieldLeak", NO_AGENT);
    assert_eq!(attribution["status"], "not_attributed", "{attribution}");
    let reason = attribution["reason"].as_str().unwrap();
    assert!(reason.contains("java.lang.ClassCastException"), "{reason}");
    assert!(
        reason.contains("load heapgrowth's JVMTI agent for recorders the code cannot see"),
        "{reason}"
    );
}

#[test]
fn with_the_agent_a_field_the_code_casts_is_watched_without_a_proxy() {
    let attribution = only("corpus.attribution.CastsItsFieldLeak");
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/attribution/CastsItsFieldLeak.java", 0),
        4,
    );
    assert_eq!(attribution["caveats"], serde_json::json!([]));
}

#[test]
fn with_the_agent_interface_fields_get_a_watch_not_a_proxy() {
    for (scenario, kind, source, count) in [
        (
            "corpus.leaks.StaticListLeak",
            "calls to add()",
            "corpus/leaks/StaticListLeak.java",
            4,
        ),
        (
            "corpus.leaks.InstanceFieldLeak",
            "calls to put()",
            "corpus/app/Cart.java",
            4,
        ),
        (
            "corpus.leaks.SeveralOwnersLeak",
            "calls to add()",
            "corpus/app/Registry.java",
            12,
        ),
    ] {
        let attribution = only(scenario);
        assert_attributed(&attribution, kind, &grows(source, 0), count);
        assert_eq!(attribution["caveats"], serde_json::json!([]), "{scenario}");
    }
}

// 2. Field-modification watch on the node's own field.

#[test]
fn writes_to_an_array_field_grown_by_hand() {
    let attribution = only("corpus.leaks.ArrayGrownByHandLeak");
    // The first GROWS line is the copy that replaces the array (the field write).
    assert_attributed(
        &attribution,
        "writes to ArrayGrownByHandLeak.items",
        &grows("corpus/leaks/ArrayGrownByHandLeak.java", 0),
        4,
    );
}

#[test]
fn writes_to_a_linked_list_head() {
    let attribution = only("corpus.leaks.LinkedChainLeak");
    assert_attributed(
        &attribution,
        "writes to LinkedChainLeak.head",
        &grows("corpus/leaks/LinkedChainLeak.java", 0),
        4,
    );
}

// 3. Field-modification watch on a container's size field, filtered to the live containers.

#[test]
fn container_in_a_concrete_typed_field() {
    let attribution = only("corpus.leaks.ConcreteTypeFieldLeak");
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/leaks/ConcreteTypeFieldLeak.java", 0),
        4,
    );
}

#[test]
fn container_in_a_thread_local() {
    let attribution = only("corpus.leaks.ThreadLocalLeak");
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/leaks/ThreadLocalLeak.java", 0),
        4,
    );
}

#[test]
fn containers_held_as_map_values() {
    // Four lists, values of values of a map: 4 adds per loop.
    let attribution = only("corpus.leaks.NestedMapLeak");
    assert_attributed(
        &attribution,
        "calls to add()",
        &grows("corpus/app/SessionStore.java", 0),
        16,
    );
}

// 4. Allocation sampling, when nothing else applies.

#[test]
fn allocations_of_objects_stored_into_a_final_array() {
    // Neither a collection nor a field write: a static final Object[] filled slot by slot.
    let attribution = only("corpus.attribution.PreallocatedSlotsLeak");
    assert_attributed(
        &attribution,
        "allocated at",
        &grows("corpus/attribution/PreallocatedSlotsLeak.java", 0),
        4,
    );
}

#[test]
fn without_the_agent_an_array_field_is_named_as_the_source_declares_it() {
    // The survey's --no-agent run: the reason said `... is a [Ljava.lang.Object;`.
    let attribution = only_with("corpus.attribution.PreallocatedSlotsLeak", NO_AGENT);
    assert_eq!(attribution["status"], "not_attributed", "{attribution}");
    let reason = attribution["reason"].as_str().unwrap();
    assert!(
        reason.ends_with(
            "a proxy needs a field declared as a Collection or Map interface, and \
             PreallocatedSlotsLeak.SLOTS is a java.lang.Object[]"
        ),
        "{reason}"
    );
}

#[test]
fn no_attribution_skips_the_phase() {
    let all = attributions("corpus.leaks.StaticListLeak", &["--no-attribution"]);
    assert_eq!(all, [serde_json::Value::Null]);
    let text = heapgrowth(&["corpus.leaks.StaticListLeak"], &["--no-attribution"]);
    assert!(!String::from_utf8_lossy(&text.stdout).contains("call(s) to"));
}
