//! Bad input gets one clear line on stderr and exit status 2.

use super::support::{corpus_classes, heapgrowth, heapgrowth_on};

fn assert_error(scenarios: &[&str], extra: &[&str], expected: &[&str]) -> String {
    let output = heapgrowth(scenarios, extra);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    for part in expected {
        assert!(stderr.contains(part), "stderr lacks {part:?}: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn an_unknown_class_is_named() {
    assert_error(
        &["corpus.DoesNotExist"],
        &[],
        &["corpus.DoesNotExist", "not found"],
    );
}

#[test]
fn a_class_that_is_not_runnable_is_refused() {
    assert_error(
        &["corpus.bad.NotARunnable"],
        &[],
        &["corpus.bad.NotARunnable", "Runnable"],
    );
}

#[test]
fn a_class_without_a_public_no_arg_constructor_is_refused() {
    assert_error(
        &["corpus.bad.NoDefaultConstructor"],
        &[],
        &["corpus.bad.NoDefaultConstructor", "constructor"],
    );
}

#[test]
fn a_constructor_that_throws_is_reported_with_its_exception() {
    assert_error(
        &["corpus.bad.ThrowsInConstructor"],
        &[],
        &["corpus.bad.ThrowsInConstructor", "Exception"],
    );
}

#[test]
fn a_scenario_that_throws_is_reported_with_the_loop_number_and_stack() {
    let output = heapgrowth(&["corpus.bad.ThrowsInRun"], &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loop 3"), "{stderr}");
    assert!(stderr.contains("boom on loop 3"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("at corpus.bad.ThrowsInRun.run(ThrowsInRun.java:"),
        "the report has the stack: {stdout}"
    );
}

#[test]
fn a_failing_scenario_does_not_lose_the_report_of_the_others() {
    let output = heapgrowth(
        &["corpus.bad.ThrowsInRun", "corpus.leaks.StaticListLeak"],
        &["--format", "json"],
    );
    assert_eq!(output.status.code(), Some(2));
    let document = super::support::json(&output);
    assert!(document["scenarios"][0]["error"]
        .as_str()
        .unwrap()
        .contains("loop 3"));
    assert_eq!(
        document["scenarios"][1]["growing"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_missing_jdk_is_named() {
    assert_error(
        &["corpus.leaks.StaticListLeak"],
        &["--java-home", "/nonexistent/jdk"],
        &["/nonexistent/jdk"],
    );
}

#[test]
fn a_jvm_that_will_not_start_is_reported() {
    assert_error(
        &["corpus.leaks.StaticListLeak"],
        &["--jvm-arg=-XX:+NoSuchOptionAnywhere"],
        &["JVM"],
    );
}

#[test]
fn options_that_cannot_work_are_refused() {
    assert_error(
        &["corpus.leaks.StaticListLeak"],
        &["--max-snapshots", "1"],
        &["--max-snapshots"],
    );
}

#[test]
fn a_classpath_with_only_separators_is_refused() {
    let output = heapgrowth_on(":", &["corpus.leaks.StaticListLeak"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("--classpath names no directory or jar"),
        "{stderr}"
    );
}

#[test]
fn a_classpath_that_ends_in_a_separator_is_read_without_its_empty_entry() {
    // As `ls *.jar | tr '\n' :` makes it.
    let classpath = format!("{}:", corpus_classes().display());
    let output = heapgrowth_on(
        &classpath,
        &["corpus.leaks.StaticListLeak"],
        &["--no-attribution"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the leak is found: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("StaticListLeak"), "{stdout}");
}
