//! What allocation sampling through the live-loaded agent (`heapgrowth watch`) costs the JVM it
//! watches: the allocation throughput of a child JVM's loop, without sampling and with it.
//!
//! ```text
//! cargo run --release --example live_sampling                # JAVA_HOME's or PATH's java
//! cargo run --release --example live_sampling -- /usr/lib/jvm/temurin-25-jdk-amd64
//! ```
//!
//! The child (`Alloc.java`, the source launcher) allocates 32-byte `Node`s as fast as one
//! thread can, keeps the last 4096 in a ring, and keeps one 16-byte `Leaked` per 16,384 nodes
//! for ever; every second it prints its rate per second of its own CPU time (the callbacks of
//! sampling run on it; other load on the machine changes wall-clock rates far more). Each configuration is measured as 3 pairs of 5
//! seconds off, then 5 seconds on (each after a second to settle), and the median change of the
//! pairs is printed:
//! - sampling `Leaked` (the growing class is rarely allocated: the usual case) at the default
//!   interval and at 4 KiB;
//! - sampling `Node` (every sample is a watched class: the worst case, each one a stack trace
//!   and a tag) at the default interval.
//!
//! A loop that does nothing but allocate is the worst case for sampling, whose cost is per
//! sample, that is per allocated byte; real code does more between allocations.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use heapgrowth::attach::{AgentLibrary, AttachedSampling, Target, DEFAULT_SAMPLING_INTERVAL};
use heapgrowth::tempdir::PrivateTempDir;

const ALLOC_JAVA: &str = r#"
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

public class Alloc {
    static final class Node {
        long a, b;
        Node next;
        Node(long a) { this.a = a; }
    }

    static final class Leaked {
        final long id;
        Leaked(long id) { this.id = id; }
    }

    static final List<Leaked> LEAKED = new ArrayList<>();
    static final Node[] RING = new Node[4096];

    public static void main(String[] args) {
        // Per second of this thread's CPU time, which the sampling's callbacks run on: other
        // processes on the machine change the wall-clock rate, not this one.
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.out.println("ready");
        long allocations = 0;
        long last = System.nanoTime();
        long lastCpu = threads.getCurrentThreadCpuTime();
        int slot = 0;
        while (true) {
            for (int i = 0; i < 100_000; i++) {
                RING[slot++ & 4095] = new Node(i);
                if ((slot & 16383) == 0) LEAKED.add(new Leaked(slot));
            }
            allocations += 100_000;
            long now = System.nanoTime();
            if (now - last >= 1_000_000_000L) {
                long cpu = threads.getCurrentThreadCpuTime();
                System.out.println("rate " + allocations * 1_000_000_000L / (cpu - lastCpu));
                allocations = 0;
                last = now;
                lastCpu = cpu;
            }
        }
    }
}
"#;

const MEASURED_SECONDS: usize = 5;
const PAIRS: usize = 3;

fn main() {
    let java_home = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| heapgrowth::jvm::find_jdk(None).expect("a JDK").home);
    let dir = PrivateTempDir::new("bench").unwrap();
    std::fs::write(dir.path().join("Alloc.java"), ALLOC_JAVA).unwrap();
    let mut child = Command::new(java_home.join("bin/java"))
        .arg("Alloc.java")
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start java");
    let (lines, rates) = mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    assert_eq!(rates.recv().unwrap(), "ready");
    let measure = |seconds: usize| -> f64 {
        // The first second after a change is partly before it.
        let _ = rates.recv();
        let mut values: Vec<f64> = (0..seconds)
            .map(|_| {
                rates.recv().unwrap()["rate ".len()..]
                    .parse::<f64>()
                    .unwrap()
            })
            .collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    // Warm-up: compilation, heap sizing.
    measure(8);

    let jvm = Target::check(child.id()).unwrap().attach().unwrap();
    let agent = AgentLibrary::extract().unwrap();
    println!("{}", version(&java_home));
    println!(
        "| sampling | samples/s (of the class) | allocations per CPU second off → on (median of {MEASURED_SECONDS} s, \
         {PAIRS} pairs) | change (median) |"
    );
    println!("|---|---|---|---|");
    for (class, interval) in [
        ("Alloc$Leaked", DEFAULT_SAMPLING_INTERVAL),
        ("Alloc$Leaked", 4096),
        ("Alloc$Node", DEFAULT_SAMPLING_INTERVAL),
    ] {
        // Off and on alternately, so that the machine's drift touches both alike.
        let mut pairs = Vec::new();
        let mut samples = (0, 0);
        for _ in 0..PAIRS {
            let off = measure(MEASURED_SECONDS);
            let sampling =
                AttachedSampling::start(&jvm, &agent, &[class.to_string()], interval).unwrap();
            let on = measure(MEASURED_SECONDS);
            let report = sampling.report(false).unwrap();
            sampling.stop().unwrap();
            let seconds = MEASURED_SECONDS as u64 + 1;
            samples = (
                report.sampled_allocations / seconds,
                report.samples / seconds,
            );
            pairs.push((off, on));
        }
        let mut changes: Vec<f64> = pairs.iter().map(|(off, on)| on / off - 1.0).collect();
        changes.sort_by(f64::total_cmp);
        let shown: Vec<String> = pairs
            .iter()
            .map(|(off, on)| format!("{:.0} → {:.0} M", off / 1e6, on / 1e6))
            .collect();
        println!(
            "| {class}, {interval} B | {} ({}) | {} | {:+.1} % |",
            samples.0,
            samples.1,
            shown.join(", "),
            changes[changes.len() / 2] * 100.0
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn version(java_home: &Path) -> String {
    std::fs::read_to_string(java_home.join("release"))
        .ok()
        .and_then(|r| {
            r.lines()
                .find_map(|l| l.strip_prefix("JAVA_VERSION="))
                .map(|v| format!("JDK {}", v.trim_matches('"')))
        })
        .unwrap_or_else(|| java_home.display().to_string())
}
