//! Issue 32: the stacks of an attribution in the same order every run, stacks that differ only
//! where the user does not look folded into one, and the clean twins clean. The ten-run check
//! is `scripts/attribution-stability.sh` (opt-in).

use super::attribution_lines::{marked, names_the_line};
use super::growth_classes::clean_on;
use super::support::{corpus_classes, heapgrowth_on, json, library_classpath};

/// The frame to look at of each stack of `attribution`, in order.
fn places(attribution: &serde_json::Value) -> Vec<String> {
    attribution["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|stack| {
            let look = stack["place_to_look"].as_u64().unwrap_or(0) as usize;
            stack["frames"][look].as_str().unwrap().to_owned()
        })
        .collect()
}

/// No two stacks of `attribution` could have been folded: the same place to look and the same
/// innermost class and method.
fn none_foldable(attribution: &serde_json::Value) {
    let stacks = attribution["stacks"].as_array().unwrap();
    let keys: Vec<(String, String, String)> = stacks
        .iter()
        .map(|stack| {
            let look = stack["place_to_look"].as_u64().unwrap_or(0) as usize;
            let inner = &stack["frame_details"][0];
            (
                stack["frames"][look].as_str().unwrap().to_owned(),
                format!("{}.{}", inner["class"], inner["method"]),
                // The operation: the headline without its count.
                stack["headline"]
                    .as_str()
                    .unwrap()
                    .split_once(' ')
                    .unwrap()
                    .1
                    .to_owned(),
            )
        })
        .collect();
    for (i, key) in keys.iter().enumerate() {
        assert!(
            !keys[i + 1..]
                .iter()
                .any(|other| other.0 == key.0 && other.1 == key.1),
            "two stacks fold: {attribution}"
        );
    }
}

#[test]
fn a_caches_put_comes_before_the_line_that_made_its_key() {
    let source = "src/corpus/attribution/UuidKeyCacheLeak.java";
    let nodes = names_the_line(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.UuidKeyCacheLeak",
        source,
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    let places = places(attribution);
    let grows = &marked(source, "// GROWS")[0];
    let key = &marked(source, "// ALLOCATED")[0];
    let at = |line: &str| format!("({line})");
    // The put is the first place to look (kept by: the map's entry is allocated by the put);
    // the key's line (new UUID(...).toString()) made only the key, not the session the cache
    // grows by: it is not "made at" (the value ranks before the key), and since the session is
    // made on the put's own line, there is no "made at" to add. When only allocation sampling
    // names the lines, the key's line comes after every stack at the put's line.
    assert!(places[0].ends_with(&at(grows)), "{places:?}");
    let first_key = places.iter().position(|p| p.ends_with(&at(key)));
    let last_put = places.iter().rposition(|p| p.ends_with(&at(grows)));
    let kept_by = attribution["kind"] == "calls to put()";
    assert!(
        (kept_by && attribution["stacks"][0]["made_at"].is_null())
            || matches!((last_put, first_key), (Some(put), Some(key)) if put < key),
        "{attribution}"
    );
    none_foldable(attribution);
    assert_eq!(attribution["hints"], serde_json::json!([]), "{attribution}");
    clean_on(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.UuidKeyCacheEvicted",
    );
}

#[test]
fn a_loading_lambdas_stacks_are_not_repeated() {
    let nodes = names_the_line(
        library_classpath(),
        "corpus.libs.CaffeineLoaderLambdaLeak",
        "libs/src/corpus/libs/CaffeineLoaderLambdaLeak.java",
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    none_foldable(attribution);
    // The lambda the cache calls back is passed over for the user's lines; no place to look
    // is written twice once line numbers are gone (what a baseline keeps).
    let places = places(attribution);
    assert!(!places.iter().any(|p| p.contains("lambda$")), "{places:?}");
    let mut methods: Vec<&str> = places
        .iter()
        .map(|p| p.split('(').next().unwrap())
        .collect();
    let count = methods.len();
    methods.dedup();
    assert_eq!(methods.len(), count, "{places:?}");
    clean_on(
        library_classpath(),
        "corpus.libs.CaffeineLoaderLambdaBounded",
    );
}

#[test]
fn a_method_reference_unsubscribed_by_another_one_leaks() {
    let nodes = names_the_line(
        corpus_classes().to_str().unwrap(),
        "corpus.leaks.MethodRefUnsubscribeLeak",
        "src/corpus/app/PriceFeed.java",
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    assert_eq!(attribution["kind"], "calls to add()", "{nodes}");
    // The unsubscribe that removed nothing, once a loop, is hinted at (the remove-like reads of
    // ArrayList.size with the agent).
    let hints = attribution["hints"].as_array().unwrap();
    let unsubscribe = marked("src/corpus/app/PriceFeed.java", "subscribers.remove(")[0].clone();
    assert_eq!(hints.len(), 1, "{attribution}");
    let expected = |loops: &serde_json::Value| {
        format!(
            "{loops} call(s) to remove() at corpus.app.PriceFeed.unsubscribe({unsubscribe}) \
             removed nothing: what was passed was never in the node (a lambda or method \
             reference written at the call is a new object each time)"
        )
    };
    assert_eq!(
        hints[0].as_str().unwrap(),
        expected(&attribution["stacks"][0]["count"]),
        "{attribution}"
    );
    // Without the agent the recording proxy sees the removes, and that the list's size did not
    // change: the same hint.
    let output = heapgrowth_on(
        corpus_classes().to_str().unwrap(),
        &["corpus.leaks.MethodRefUnsubscribeLeak"],
        &["--format", "json", "--no-agent"],
    );
    let proxied = &json(&output)["scenarios"][0]["growing"][0]["attribution"];
    assert_eq!(proxied["kind"], "calls to add()", "{proxied}");
    assert_eq!(
        proxied["hints"],
        serde_json::json!([expected(&proxied["stacks"][0]["count"])]),
        "{proxied}"
    );
    clean_on(
        corpus_classes().to_str().unwrap(),
        "corpus.clean.MethodRefKeptUnsubscribed",
    );
}

#[test]
fn a_listener_unregistered_from_a_copy_on_write_list_by_another_method_reference_leaks() {
    // A CopyOnWriteArrayList has no size field: the container watch is on its array, and its
    // remove reads the array once (getArray()) and writes nothing when it finds nothing.
    let nodes = names_the_line(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.EventBusMethodRefUnregisterLeak",
        "src/corpus/app/EventBus.java",
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    assert_eq!(attribution["kind"], "calls to add()", "{nodes}");
    let unregister = &marked("src/corpus/app/EventBus.java", "listeners.remove(")[0];
    assert_eq!(
        attribution["hints"],
        serde_json::json!([format!(
            "{} call(s) to remove() at corpus.app.EventBus.unregister({unregister}) removed \
             nothing: what was passed was never in the node (a lambda or method reference \
             written at the call is a new object each time)",
            attribution["stacks"][0]["count"]
        )]),
        "{attribution}"
    );
    clean_on(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.EventBusListenerKeptUnregistered",
    );
}

#[test]
fn a_netty_listener_removed_by_another_method_reference_leaks() {
    // The listeners of a Netty promise: no container watch (an array in DefaultFutureListeners),
    // the owner-field watch names addListener(), and the remove-like reads of the owner's size
    // (DefaultFutureListeners.remove reads it once and writes nothing when it finds nothing)
    // give the hint.
    let source = "libs/src/corpus/libs/NettyMethodRefUnsubscribeLeak.java";
    let nodes = names_the_line(
        library_classpath(),
        "corpus.libs.NettyMethodRefUnsubscribeLeak",
        source,
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    assert_eq!(attribution["kind"], "calls to addListener()", "{nodes}");
    let remove = &marked(source, "shutdown.removeListener(")[0];
    assert_eq!(
        attribution["hints"],
        serde_json::json!([format!(
            "{} call(s) to removeListener() at \
             corpus.libs.NettyMethodRefUnsubscribeLeak.run({remove}) removed nothing: what was \
             passed was never in the node (a lambda or method reference written at the call is \
             a new object each time)",
            attribution["stacks"][0]["count"]
        )]),
        "{attribution}"
    );
    clean_on(
        library_classpath(),
        "corpus.libs.NettyListenerFieldUnsubscribed",
    );
}

#[test]
fn the_remove_probe_cuts_itself_short_on_a_hot_field_and_says_so() {
    let nodes = names_the_line(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.HotReadListLeak",
        "src/corpus/attribution/HotReadListLeak.java",
        "// GROWS",
    );
    let attribution = &nodes[0]["attribution"];
    assert_eq!(attribution["kind"], "calls to add()", "{attribution}");
    assert_eq!(attribution["hints"], serde_json::json!([]), "{attribution}");
    assert!(
        attribution["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|caveat| caveat
                .as_str()
                .unwrap()
                .starts_with("remove() probe cut short: the watch of the container's reads switched itself off after 200,000 reads")),
        "{attribution}"
    );
    clean_on(
        corpus_classes().to_str().unwrap(),
        "corpus.attribution.HotReadListCleared",
    );
}
