//! Real libraries from Maven Central (test-only; `scripts/setup.sh` fetches them into
//! `target/corpus-libs/`): each leak at the library field that grows, and its clean twin clean.
//! The scenarios are in `tests/corpus/libs/src`, their measured behaviour in the README there.

use super::growth_classes::{clean_on, leaks_on, levels_off_at_one_of, levels_off_on};
use super::support::{heapgrowth_on, library_classpath};

fn leak(scenario: &str, growing_line: &str) {
    leaks_on(library_classpath(), scenario, &[growing_line]);
}

/// The clean run's report.
fn clean(scenario: &str) -> String {
    clean_on(library_classpath(), scenario)
}

// Caffeine: maintenance runs on the common ForkJoinPool after the loop returns.

#[test]
fn caffeine_unbounded_cache_with_a_key_per_loop() {
    leak(
        "corpus.libs.CaffeineUnboundedLeak",
        "╰→INSTANCE_FIELD UnboundedLocalCache.data -> instance of java.util.concurrent.ConcurrentHashMap (1 objects)",
    );
}

#[test]
fn caffeine_cache_with_a_maximum_size_levels_off() {
    // Usually the entry map levels off. In 1 to 2 runs of 10 (measured on the same build) the
    // map's own count makes no streak and the growth is seen as spread below the cache object
    // that holds the map, its access-order deques and its write buffer; likely where the
    // asynchronous eviction stood at a dump decided through which of them some entries were
    // reached first. Either way the cache levels off and the run is clean.
    levels_off_at_one_of(
        library_classpath(),
        "corpus.libs.CaffeineBoundedClean",
        &[
            "INSTANCE_FIELD BoundedLocalCache.data -> instance of java.util.concurrent.ConcurrentHashMap",
            "INSTANCE_FIELD BoundedLocalCache$BoundedLocalManualCache.cache -> instance of com.github.benmanes.caffeine.cache.SSMS",
        ],
    );
}

#[test]
fn caffeine_weak_keys_held_by_their_values() {
    leak(
        "corpus.libs.CaffeineWeakKeysLeak",
        "╰→INSTANCE_FIELD BoundedLocalCache.data -> instance of java.util.concurrent.ConcurrentHashMap (1 objects)",
    );
}

#[test]
fn caffeine_weak_keys_that_die_are_clean() {
    clean("corpus.libs.CaffeineWeakKeysClean");
}

// Guava.

#[test]
fn guava_event_bus_with_a_subscriber_per_loop() {
    leak(
        "corpus.libs.GuavaEventBusLeak",
        "╰→ARRAY_ENTRY ConcurrentHashMap.[x] -> instance of java.util.concurrent.CopyOnWriteArraySet (1 objects)",
    );
}

#[test]
fn guava_event_bus_subscribers_unregistered_are_clean() {
    clean("corpus.libs.GuavaEventBusClean");
}

#[test]
fn guava_cache_without_a_bound() {
    leak(
        "corpus.libs.GuavaCacheLeak",
        "╰→INSTANCE_FIELD AtomicReferenceArray.array -> instance of java.lang.Object[] (4 objects)",
    );
}

#[test]
fn guava_cache_with_a_maximum_size_levels_off() {
    // Its entries are spread over four segment tables and an access queue; none of that is
    // reported once the bound is reached.
    levels_off_on(
        library_classpath(),
        "corpus.libs.GuavaCacheClean",
        "INSTANCE_FIELD AtomicReferenceArray.array -> instance of java.lang.Object[]",
    );
}

// Weak references the collector cleared (issue 29): a weak interner or cache with a key per
// loop that dies keeps the entries until it drains its reference queue, which is no growth; the
// strong interner keeps them all.

#[test]
fn guava_weak_interner_with_a_key_per_loop_is_clean() {
    clean("corpus.libs.GuavaWeakInternerClean");
}

#[test]
fn guava_strong_interner_with_a_key_per_loop() {
    leak(
        "corpus.libs.GuavaInternerLeak",
        "╰→INSTANCE_FIELD AtomicReferenceArray.array -> instance of java.lang.Object[] (4 objects)",
    );
}

#[test]
fn guava_cache_with_weak_keys_that_die_is_clean() {
    clean("corpus.libs.GuavaCacheWeakKeysClean");
}

#[test]
fn caffeine_weak_keys_and_soft_values_that_die_are_clean() {
    clean("corpus.libs.CaffeineWeakKeysSoftValuesClean");
}

// Apache Commons Pool 2.

#[test]
fn commons_pool_objects_borrowed_and_never_returned() {
    leak(
        "corpus.libs.PoolBorrowLeak",
        "╰→INSTANCE_FIELD GenericObjectPool.allObjects -> instance of java.util.concurrent.ConcurrentHashMap (1 objects)",
    );
}

#[test]
fn commons_pool_objects_returned_are_clean() {
    clean("corpus.libs.PoolBorrowReturnClean");
}

// Logback.

#[test]
fn logback_logger_per_request_name() {
    leak(
        "corpus.libs.LogbackLoggerPerRequestLeak",
        "╰→INSTANCE_FIELD LoggerContext.loggerCache -> instance of java.util.concurrent.ConcurrentHashMap (1 objects)",
    );
}

#[test]
fn logback_fixed_logger_names_are_clean() {
    clean("corpus.libs.LogbackFixedLoggersClean");
}

// Micrometer: a meter per tag value, the classic cardinality leak. The registry holds each
// meter in three maps, three paths.

#[test]
fn micrometer_meter_per_unique_tag() {
    leaks_on(
        library_classpath(),
        "corpus.libs.MicrometerTagCardinalityLeak",
        &[
            "╰→INSTANCE_FIELD MeterRegistry.meterMap -> instance of java.util.concurrent.ConcurrentHashMap (1 objects)",
            "╰→INSTANCE_FIELD MeterRegistry.meterToPreFilterIdMap -> instance of java.util.HashMap (1 objects)",
            "╰→INSTANCE_FIELD MeterRegistry.preFilterIdToMeterMap -> instance of java.util.HashMap (1 objects)",
        ],
    );
}

#[test]
fn micrometer_bounded_tags_are_clean() {
    clean("corpus.libs.MicrometerBoundedTagsClean");
}

// Jackson: JSON keyed by ids brings a new field name each loop, which Jackson keeps in its
// symbol tables up to a bound the run never reaches; a built-in rule names that growth. The
// user's own list of what was parsed is still a leak. Jackson seeds its tables' hashing with the
// clock, so which node of a table grows, and when its intern cache (`InternCache`, 180 names)
// last grew, differ from run to run: the tests name the tables, not their nodes, and the leaks
// are checked without a snapshot of the whole report.

/// The `Ignored (...)` lines of `report` that name known library growth, each checked to be one
/// of Jackson's symbol tables (`CharsToNameCanonicalizer` for text, `ByteQuadsCanonicalizer`
/// for bytes) with the reason for Jackson `version`.
fn jackson_tables_ignored<'r>(report: &'r str, version: &str) -> Vec<&'r str> {
    let lines: Vec<&str> = report
        .lines()
        .filter(|line| line.starts_with("Ignored (known library growth: "))
        .collect();
    for line in &lines {
        assert!(line.contains(version), "{line}");
        assert!(line.contains("Canonicalizer"), "{line}");
    }
    lines
}

/// Runs a leak of Jackson: exit status 1 and `growing_line` the only growing node; the report.
fn jackson_leak(scenario: &str, growing_line: &str) -> String {
    let output = heapgrowth_on(library_classpath(), &[scenario], &["--no-attribution"]);
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{scenario} leaks: {report}");
    let growing: Vec<&str> = report.lines().filter(|l| l.starts_with("╰→")).collect();
    assert_eq!(growing, [growing_line], "{report}");
    report
}

#[test]
fn jackson_2_json_keyed_by_ids_is_known_library_growth() {
    let report = clean("corpus.libs.JacksonKeyedByIdClean");
    let ignored = jackson_tables_ignored(&report, "Jackson 2 keeps each distinct field name");
    for table in ["CharsToNameCanonicalizer", "ByteQuadsCanonicalizer"] {
        assert!(
            ignored.iter().any(|line| line.contains(table)),
            "{table}: {report}"
        );
    }
}

#[test]
fn jackson_2_parsed_maps_kept_by_the_user_leak() {
    let report = jackson_leak(
        "corpus.libs.JacksonKeyedByIdLeak",
        "╰→STATIC_FIELD JacksonKeyedByIdLeak.AUDIT -> instance of java.util.ArrayList (1 objects)",
    );
    let ignored = jackson_tables_ignored(&report, "Jackson 2 keeps each distinct field name");
    assert!(!ignored.is_empty(), "{report}");
}

#[test]
fn jackson_3_json_keyed_by_ids_is_known_library_growth() {
    let report = clean("corpus.libs.Jackson3KeyedByIdClean");
    let ignored = jackson_tables_ignored(&report, "Jackson 3 keeps each distinct property name");
    for table in ["CharsToNameCanonicalizer", "ByteQuadsCanonicalizer"] {
        assert!(
            ignored.iter().any(|line| line.contains(table)),
            "{table}: {report}"
        );
    }
}

#[test]
fn jackson_3_parsed_maps_kept_by_the_user_leak() {
    let report = jackson_leak(
        "corpus.libs.Jackson3KeyedByIdLeak",
        "╰→STATIC_FIELD Jackson3KeyedByIdLeak.AUDIT -> instance of java.util.ArrayList (1 objects)",
    );
    let ignored = jackson_tables_ignored(&report, "Jackson 3 keeps each distinct property name");
    assert!(!ignored.is_empty(), "{report}");
}
