//! Reading dumps that real JVMs write: a tiny Java program, run in source-launcher mode
//! (`java File.java`, no compile step), dumps its own heap through `HotSpotDiagnosticMXBean`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::measure::{measure_parse_and_walk, walk_from_roots};
use crate::heap::{FieldValue, HeapGraph, ObjectKind, PrimitiveType, RootKind};

/// JDKs to test with: the one this machine kind always has, and JDK 25 where present
/// (their dumps differ: JDK 25 writes roots before objects).
const JDKS: [(&str, &str, bool); 2] = [
    ("JDK 17", "/usr/lib/jvm/java-17-openjdk-amd64", true),
    ("JDK 25", "/usr/lib/jvm/temurin-25-jdk-amd64", false),
];

/// A scratch directory for one test, removed on drop.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("heapgrowth-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a scratch directory");
        ScratchDir(dir)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `java <source> <args>` and returns its standard output.
fn run_java_source(
    java_home: &Path,
    dir: &Path,
    class_name: &str,
    source: &str,
    jvm_args: &[&str],
    args: &[&str],
) -> String {
    let source_path = dir.join(format!("{class_name}.java"));
    std::fs::write(&source_path, source).expect("write the Java source");
    let output = Command::new(java_home.join("bin/java"))
        .args(jvm_args)
        .arg(&source_path)
        .args(args)
        .output()
        .expect("run java");
    assert!(
        output.status.success(),
        "java {class_name} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const DUMP_SELF: &str = r#"
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class DumpSelf {
    static int[] KNOWN = new int[12345];
    static String GREETING = new String("snow \u2603 man");
    static String PLAIN = new String("plain latin-1: caf\u00e9");

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
    }
}
"#;

#[test]
fn reads_dumps_of_real_jvms() {
    for (name, home, required) in JDKS {
        let home = Path::new(home);
        if !home.join("bin/java").exists() {
            assert!(!required, "{name} is missing at {}", home.display());
            eprintln!(
                "note: {name} not found at {}; skipping its dump",
                home.display()
            );
            continue;
        }
        let dir = ScratchDir::new(&format!("real-dump-{}", name.replace(' ', "")));
        let dump = dir.0.join("self.hprof");
        // Read while the JVM writes it, as every run reads its dumps, and read again after.
        // About the count of a JDK's small test heap.
        let mut follower = super::DumpFollower::start(&dump, Some(70_000));
        run_java_source(
            home,
            &dir.0,
            "DumpSelf",
            DUMP_SELF,
            &[],
            &[dump.to_str().unwrap()],
        );
        let (followed, read_ahead) = follower.read();
        let followed = followed.unwrap_or_else(|e| panic!("{name}, followed: {e}"));
        eprintln!("{name}: the dump was read ahead while written: {read_ahead}");
        let graph = super::open(&dump).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_real_dump(name, &graph);
        assert_eq!(
            super::walk_checksum(&followed),
            super::walk_checksum(&graph),
            "{name}: the dump read while written"
        );
    }
}

fn check_real_dump(jdk: &str, graph: &HeapGraph) {
    assert!(
        graph.object_count() > 1000,
        "{jdk}: only {} objects",
        graph.object_count()
    );
    assert_eq!(graph.id_size(), 8);
    let string = graph
        .class_by_name("java.lang.String")
        .expect("java.lang.String");
    assert!(graph
        .class(string)
        .instance_fields
        .iter()
        .any(|f| f.name == "value"));
    assert!(graph.class_by_name("java.lang.Object[]").is_some());
    assert!(graph.class_by_name("int[]").is_some());
    assert!(
        graph
            .roots()
            .iter()
            .any(|r| r.kind == RootKind::ThreadObject),
        "{jdk}: no thread roots"
    );
    assert!(
        graph
            .roots()
            .iter()
            .any(|r| r.kind == RootKind::JavaFrame && r.thread.is_some()),
        "{jdk}: no Java frame root resolved to its thread"
    );
    // The local `bean` of main() is held by a frame the dump's stack traces name.
    let frames: Vec<String> = graph
        .roots()
        .iter()
        .filter_map(|r| r.frame)
        .map(|f| {
            let frame = &graph.frames()[f as usize];
            format!(
                "{}.{}({}:{:?})",
                frame.class, frame.method, frame.file, frame.line
            )
        })
        .collect();
    assert!(
        frames
            .iter()
            .any(|f| f.starts_with("DumpSelf.main(DumpSelf.java:Some(")),
        "{jdk}: no frame root in DumpSelf.main: {frames:?}"
    );

    let program = graph
        .class_by_name("DumpSelf")
        .expect("the program's class");
    // The source launcher defines the program in a loader of its own; the JDK's classes have
    // the boot loader.
    let loader = graph
        .class(program)
        .loader
        .expect("DumpSelf has a class loader");
    assert!(graph
        .class(graph.class_of(loader))
        .name
        .contains("MemoryClassLoader"));
    assert_eq!(graph.class(string).loader, None);
    let Some(FieldValue::Object(known_id)) = graph.static_field_value(program, "KNOWN") else {
        panic!("{jdk}: DumpSelf.KNOWN is not a reference")
    };
    let known = graph
        .index_of_id(known_id)
        .expect("KNOWN's array is in the dump");
    assert_eq!(
        graph.kind(known),
        ObjectKind::PrimitiveArray(PrimitiveType::Int)
    );
    assert_eq!(graph.array_length(known), Some(12345));
    assert_eq!(graph.shallow_size(known), 16 + 4 * 12345);
    let string_of = |field: &str| match graph.static_field_value(program, field) {
        Some(FieldValue::Object(id)) => graph.index_of_id(id).and_then(|s| graph.string_value(s)),
        _ => None,
    };
    assert_eq!(
        string_of("GREETING").as_deref(),
        Some("snow \u{2603} man"),
        "{jdk}"
    );
    assert_eq!(
        string_of("PLAIN").as_deref(),
        Some("plain latin-1: caf\u{e9}"),
        "{jdk}"
    );

    // KNOWN is reachable from the roots through DumpSelf's class object.
    let mut reached = vec![false; graph.object_count()];
    let mut queue: Vec<u32> = graph.roots().iter().map(|r| r.object).collect();
    for &o in &queue {
        reached[o as usize] = true;
    }
    let mut next = 0;
    while let Some(&o) = queue.get(next) {
        next += 1;
        graph.for_each_reference(o, |r| {
            if !reached[r.target as usize] {
                reached[r.target as usize] = true;
                queue.push(r.target);
            }
        });
    }
    assert!(
        reached[known as usize],
        "{jdk}: DumpSelf.KNOWN is not reachable from the roots"
    );
    // A live dump: nearly everything is reachable. What isn't (measured: 6 % under the source
    // launcher) is interned strings, and class objects and their reflection data, which HotSpot
    // reaches through the fields of `java.lang.Class` that it leaves out of dumps.
    let unreached = reached.iter().filter(|r| !**r).count();
    assert!(
        unreached * 10 < graph.object_count(),
        "{jdk}: {unreached} of {} unreachable",
        graph.object_count()
    );
    eprintln!(
        "{jdk}: {} objects, {} classes, {} roots, {unreached} not reachable from the roots",
        graph.object_count(),
        graph.class_count(),
        graph.roots().len()
    );
}

const MANY_OBJECTS: &str = r#"
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

public class ManyObjects {
    static final class Node { Node next; Object payload; int value; }
    static Node[] NODES;

    public static void main(String[] args) throws Exception {
        String path = args[0];
        int count = Integer.parseInt(args[1]);
        int runs = Integer.parseInt(args[2]);
        NODES = new Node[count];
        for (int i = 0; i < count; i++) { Node node = new Node(); node.value = i; NODES[i] = node; }
        for (int i = 0; i < count; i++) {
            NODES[i].next = NODES[(i + 1) % count];
            NODES[i].payload = NODES[(int) ((i * 7919L) % count)];
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long[] nanos = new long[runs];
        for (int run = 0; run < runs; run++) {
            new File(path).delete();
            long start = System.nanoTime();
            bean.dumpHeap(path, true);
            nanos[run] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.println("DUMP_MS " + nanos[runs / 2] / 1e6);
    }
}
"#;

/// Reader speed and model size on a JDK 17 dump of about a million live objects (set
/// `HEAPGROWTH_BENCH_OBJECTS` for another size). Targets from the anchors: (parse + walk) / dump
/// time ≤ 0.5, ≤ 20 model bytes per object. Run with
/// `cargo test --release -- --ignored --nocapture parse_real_dump_benchmark`.
#[test]
#[ignore = "a benchmark: slow, and meaningful only in release builds"]
fn parse_real_dump_benchmark() {
    const RUNS: usize = 5;
    let count: usize = std::env::var("HEAPGROWTH_BENCH_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let home = Path::new(JDKS[0].1);
    let dir = ScratchDir::new("benchmark");
    let dump = dir.0.join("many.hprof");
    let heap_size = format!("-Xmx{}m", 256 + count / 1000);
    let output = run_java_source(
        home,
        &dir.0,
        "ManyObjects",
        MANY_OBJECTS,
        &[&heap_size],
        &[
            dump.to_str().unwrap(),
            &count.to_string(),
            &RUNS.to_string(),
        ],
    );
    let dump_ms: f64 = output
        .lines()
        .find_map(|line| line.strip_prefix("DUMP_MS "))
        .and_then(|ms| ms.trim().parse().ok())
        .expect("the Java program prints DUMP_MS");
    let file_bytes = std::fs::metadata(&dump).unwrap().len();

    let mut runs: Vec<_> = (0..RUNS)
        .map(|_| measure_parse_and_walk(&dump).unwrap())
        .collect();
    runs.sort_by_key(|m| m.parse + m.walk);
    let median = &runs[RUNS / 2];
    let parse_ms = median.parse.as_secs_f64() * 1000.0;
    let walk_ms = median.walk.as_secs_f64() * 1000.0;
    let ratio = (parse_ms + walk_ms) / dump_ms;
    let bytes_per_object = median.model_bytes as f64 / median.objects as f64;
    println!(
        "parse_real_dump_benchmark: {} objects ({} reachable, {} references), dump file {:.1} MB\n  \
         dump {dump_ms:.1} ms | parse {parse_ms:.1} ms | bfs {walk_ms:.1} ms | (parse+bfs)/dump {ratio:.2} | \
         model {bytes_per_object:.1} bytes/object",
        median.objects,
        median.reachable,
        median.references,
        file_bytes as f64 / 1e6,
    );
    assert!(median.reachable >= count, "the nodes are reachable");
    // Sanity for the walk helper: same answer from an independent graph.
    let graph = super::open(&dump).unwrap();
    assert_eq!(walk_from_roots(&graph).0, median.reachable);
}
