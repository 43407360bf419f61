//! `heapgrowth diff` (issue 14): the growth search over heap dumps that already exist. The
//! dumps come from `heapgrowth run --keep-dumps all` on corpus scenarios, so `diff` reads the
//! very dumps `run` read and must name the same paths; synthetic dumps cover the Android layout;
//! bad input gives one line, exit 2, and leaves the dumps as they were.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use heapgrowth::heap::{FieldType, RootKind};
use heapgrowth::hprof::builder::{DumpOptions, HeapBuilder};
use serde_json::Value;

use super::support::{corpus_classes, entries, json};

/// Leaks and their clean twins: `run` and `diff` of its dumps must agree on each.
const SCENARIOS: &[&str] = &[
    "corpus.leaks.StaticListLeak",
    "corpus.leaks.InstanceFieldLeak",
    "corpus.leaks.LinkedChainLeak",
    "corpus.leaks.StringGrowthLeak",
    "corpus.leaks.ThreadLeak",
    "corpus.leaks.ThreadLocalLeak",
    "corpus.leaks.SlowLeak",
    "corpus.leaks.AlternatingClassesLeak",
    "corpus.leaks.TreeLeak",
    "corpus.clean.BoundedCache",
    "corpus.clean.SlowlyFillingCache",
    "corpus.clean.ThreadJoined",
    "corpus.clean.ThreadLocalCleaned",
    "corpus.clean.GarbageChurn",
    "corpus.clean.RingBufferBounded",
    "corpus.clean.TreeChurn",
];

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn heapgrowth(tmp: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_heapgrowth"))
        .env("TMPDIR", tmp)
        .args(args)
        .output()
        .expect("heapgrowth runs")
}

fn diff(tmp: &Path, dumps: &[PathBuf], extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_heapgrowth"));
    command
        .env("TMPDIR", tmp)
        .arg("diff")
        .args(dumps)
        .args(extra);
    command.output().expect("heapgrowth runs")
}

/// The dumps of one `run` of every scenario, kept with `--keep-dumps all`, and run's JSON
/// report; made once for the tests of this file.
struct KeptRun {
    report: Value,
    dumps_dir: PathBuf,
}

fn kept_run() -> &'static KeptRun {
    static RUN: OnceLock<KeptRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = scratch("kept-run");
        let tmp = dir.join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let dumps_dir = dir.join("dumps");
        let mut args = vec![
            "run".to_owned(),
            "--classpath".into(),
            corpus_classes().display().to_string(),
            "--no-attribution".into(),
            "--format".into(),
            "json".into(),
            "--keep-dumps".into(),
            "all".into(),
            "--keep-dumps-dir".into(),
            dumps_dir.display().to_string(),
        ];
        for scenario in SCENARIOS {
            args.push("--scenario".into());
            args.push((*scenario).into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = heapgrowth(&tmp, &args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(entries(&tmp), Vec::<String>::new(), "run left files");
        KeptRun {
            report: json(&output),
            dumps_dir,
        }
    })
}

/// A scenario's kept dumps, in the order a shell's `*.hprof` lists them.
fn dumps_of(scenario: &str) -> Vec<PathBuf> {
    let dir = kept_run().dumps_dir.join(scenario);
    let mut dumps: Vec<PathBuf> = entries(&dir).iter().map(|name| dir.join(name)).collect();
    dumps.retain(|path| path.extension().is_some_and(|e| e == "hprof"));
    dumps
}

/// The growing nodes' paths of a JSON report's only (or named) scenario, as the text report
/// writes each step.
fn growing_paths(scenario: &Value) -> Vec<Vec<String>> {
    scenario["growing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            node["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|step| step["text"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn diff_of_a_runs_dumps_names_the_paths_run_named() {
    let run = kept_run();
    let tmp = scratch("same-paths");
    for scenario in SCENARIOS {
        let in_run = run.report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["scenario"] == *scenario)
            .unwrap_or_else(|| panic!("{scenario} in run's report"));
        let dumps = dumps_of(scenario);
        assert!(dumps.len() >= 3, "{scenario}: {} dumps kept", dumps.len());
        // The loops at each dump, from run's report: diff then judges the pace of growth per
        // loop as run did.
        let loops: Vec<String> = in_run["snapshot_loops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|loops| loops.to_string())
            .collect();
        assert_eq!(
            loops.len(),
            dumps.len(),
            "{scenario}: one dump per snapshot"
        );
        let loops = loops.join(",");
        let output = diff(&tmp, &dumps, &["--format", "json", "--loops", &loops]);
        let report = json(&output);
        let in_diff = &report["scenarios"][0];
        let expected = growing_paths(in_run);
        assert_eq!(
            growing_paths(in_diff),
            expected,
            "{scenario}: diff's paths against run's"
        );
        let leaks = !expected.is_empty();
        assert_eq!(
            scenario.contains(".leaks."),
            leaks,
            "{scenario}: run's verdict"
        );
        assert_eq!(
            output.status.code(),
            Some(if leaks { 1 } else { 0 }),
            "{scenario}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(in_diff["subject"], "heap dumps");
        // Why run took a snapshot past its third, for those detection took (not those of
        // confirmation). diff reads every dump it is given, and says nothing of the kind.
        let looked_after: Vec<&Value> = in_run["looked_longer"]
            .as_array()
            .unwrap()
            .iter()
            .map(|at| &at["after_loop"])
            .collect();
        let taken = in_run["snapshot_loops"].as_array().unwrap();
        assert!(
            looked_after.len() <= taken.len() - 3
                && looked_after.iter().zip(&taken[2..]).all(|(a, b)| *a == b),
            "{scenario}: {looked_after:?} against {taken:?}"
        );
        assert!(in_diff.get("looked_longer").is_none(), "{in_diff}");
        assert_eq!(
            in_diff["snapshot_loops"], in_run["snapshot_loops"],
            "{scenario}"
        );
        assert!(
            in_diff["not_attributed"]
                .as_str()
                .is_some_and(|why| why.contains("heap dumps hold the objects")),
            "{in_diff}"
        );
        assert_eq!(
            entries(&tmp),
            Vec::<String>::new(),
            "{scenario}: diff left files"
        );
    }
}

#[test]
fn diff_reads_dumps_in_place_and_writes_text_and_html() {
    let dumps = dumps_of("corpus.leaks.StaticListLeak");
    let before: Vec<_> = dumps
        .iter()
        .map(|path| std::fs::read(path).unwrap())
        .collect();
    let tmp = scratch("text-html");
    let out = scratch("text-html-out");
    let page = out.join("page.html");
    let mut args = vec!["--html".to_owned(), page.display().to_string()];
    args.push("--full-stacks".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = diff(&tmp, &dumps, &args);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    let first_line = text.lines().next().unwrap();
    assert_eq!(
        first_line,
        format!(
            "Heap dumps snapshot-1.hprof to snapshot-{n}.hprof: 1 growing node over {n} dumps",
            n = dumps.len()
        )
    );
    assert!(
        text.contains("╰→STATIC_FIELD StaticListLeak.items -> instance of java.util.ArrayList"),
        "{text}"
    );
    // Said once, not per node.
    assert_eq!(text.matches("Not attributed:").count(), 1, "{text}");
    assert!(text.contains(" to dump "), "{text}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("\"loop_unit\":\"dumps\""), "the page's data");
    // With --loops, the report counts loops.
    let loops: Vec<String> = (1..=dumps.len()).map(|n| (n * 10).to_string()).collect();
    let output = diff(&tmp, &dumps, &["--loops", &loops.join(",")]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "Heap dumps snapshot-1.hprof to snapshot-{n}.hprof: 1 growing node after {} loops in {n} snapshots",
            dumps.len() * 10,
            n = dumps.len()
        )),
        "{text}"
    );
    let after: Vec<_> = dumps
        .iter()
        .map(|path| std::fs::read(path).unwrap())
        .collect();
    assert!(before == after, "the dumps are unchanged");
    assert_eq!(entries(&tmp), Vec::<String>::new());
}

#[test]
fn diff_of_dumps_out_of_order_warns() {
    let mut dumps = dumps_of("corpus.leaks.StaticListLeak");
    // Kept dumps are written in order; make the modification times say so for certain.
    let now = std::time::SystemTime::now();
    for (n, path) in dumps.iter().enumerate() {
        let file = std::fs::File::options().append(true).open(path).unwrap();
        file.set_modified(now - std::time::Duration::from_secs(100 - n as u64))
            .unwrap();
    }
    dumps.swap(0, 1);
    let tmp = scratch("order");
    let output = diff(&tmp, &dumps, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("heapgrowth: warning: ")
            && stderr.contains("snapshot-1.hprof is older than")
            && stderr.contains("read in the order given"),
        "{stderr}"
    );
}

/// Exit status 2 and exactly one `heapgrowth:` line holding `part`; no panic, nothing left.
/// Input checked before reading gives no report; a dump that fails while read gives the
/// report's error line, as a scenario that fails in `run` does.
fn assert_one_error(tmp: &Path, output: &Output, part: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("heapgrowth:"))
        .collect();
    assert_eq!(ours.len(), 1, "{stderr}");
    assert!(ours[0].contains(part), "{part:?} in {}", ours[0]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.is_empty()
            || stdout.starts_with("Heap dumps d1.hprof to ")
                && stdout.contains(": error: cannot read heap dump"),
        "{stdout}"
    );
    assert_eq!(entries(tmp), Vec::<String>::new());
}

#[test]
fn bad_input_gives_one_line_and_changes_nothing() {
    let dir = scratch("bad");
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let dump = |n: usize| {
        let path = dir.join(format!("d{n}.hprof"));
        std::fs::write(&path, growing_list(n, DumpOptions::default())).unwrap();
        path
    };
    let (a, b, c) = (dump(1), dump(2), dump(3));
    let missing = dir.join("missing.hprof");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a dump").unwrap();
    let empty = dir.join("empty.hprof");
    std::fs::write(&empty, "").unwrap();
    let truncated = dir.join("truncated.hprof");
    let whole = std::fs::read(&c).unwrap();
    std::fs::write(&truncated, &whole[..whole.len() - 7]).unwrap();

    let cases: Vec<(Vec<PathBuf>, &str)> = vec![
        (vec![a.clone(), b.clone()], "diff needs 3 to 16 heap dumps"),
        (
            vec![a.clone(), b.clone(), missing.clone()],
            "cannot read heap dump",
        ),
        (
            vec![a.clone(), b.clone(), text],
            "is not an HPROF heap dump",
        ),
        (
            vec![a.clone(), b.clone(), empty],
            "is not an HPROF heap dump",
        ),
        (vec![a.clone(), b.clone(), dir.clone()], "it is a directory"),
        (vec![a.clone(), b.clone(), a.clone()], "is given twice"),
        (
            vec![a.clone(), b.clone(), truncated.clone()],
            "truncated.hprof",
        ),
        ((0..17).map(|_| a.clone()).collect(), "got 17"),
    ];
    for (dumps, part) in cases {
        assert_one_error(&tmp, &diff(&tmp, &dumps, &[]), part);
    }
    let three = [a.clone(), b.clone(), c.clone()];
    for loops in ["1,2", "1,2,3,4", "3,3,4", "5,4,6", "1,x,3"] {
        let output = diff(&tmp, &three, &["--loops", loops]);
        let part = if loops.contains('x') {
            "invalid value"
        } else {
            "--loops must give one count per dump (3 here)"
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{loops}: {stderr}");
        assert!(stderr.contains(part), "{loops}: {stderr}");
    }
    assert_eq!(
        std::fs::read(&truncated).unwrap(),
        &whole[..whole.len() - 7]
    );
    assert!(a.exists() && b.exists() && c.exists() && !missing.exists());
    // The same three, well formed: a leak.
    let output = diff(&tmp, &[a, b, c], &[]);
    assert_eq!(output.status.code(), Some(1));
}

/// A heap whose static list holds `3 * n` items, as dump `n` of a leak would.
fn growing_list(n: usize, options: DumpOptions) -> Vec<u8> {
    let mut h = if options.id_size == 4 {
        HeapBuilder::with_id_size(4)
    } else {
        HeapBuilder::new()
    };
    let object = h.class_named("java.lang.Object");
    let item = h.class("com.example.Item", Some(object), &[("id", FieldType::INT)]);
    let holder = h.class("com.example.Registry", Some(object), &[]);
    h.static_field(holder, "items", FieldType::Object);
    let items: Vec<_> = (0..3 * n)
        .map(|i| Some(h.instance(item, &[("id", (i as i32).into())])))
        .collect();
    let array = h.object_array("java.lang.Object[]", &items);
    h.set_static(holder, "items", array);
    h.root(RootKind::StickyClass, holder);
    h.write_with(&options)
}

#[test]
fn android_and_hotspot_dumps_give_the_same_report() {
    let dir = scratch("android");
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let hotspot = DumpOptions::default();
    let android = DumpOptions {
        id_size: 4,
        android: true,
        ..DumpOptions::default()
    };
    let mut reports = Vec::new();
    for (name, options) in [("hotspot", hotspot), ("android", android)] {
        let dumps: Vec<PathBuf> = (1..=6)
            .map(|n| {
                let path = dir.join(format!("{name}-{n}.hprof"));
                std::fs::write(&path, growing_list(n, options)).unwrap();
                path
            })
            .collect();
        if name == "android" {
            assert!(std::fs::read(&dumps[0])
                .unwrap()
                .starts_with(b"JAVA PROFILE 1.0.3\0"));
        }
        let output = diff(&tmp, &dumps, &["--format", "json"]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report = json(&output);
        let paths = growing_paths(&report["scenarios"][0]);
        assert_eq!(
            paths,
            vec![vec![
                "GcRoot(StickyClass)".to_owned(),
                "STATIC_FIELD Registry.items -> instance of java.lang.Object[]".to_owned(),
            ]],
            "{name}"
        );
        let node = &report["scenarios"][0]["growing"][0];
        assert_eq!(node["confirmed"]["cut"], Value::Null, "{name}: {node}");
        reports.push(paths);
    }
    assert_eq!(reports[0], reports[1]);
}
