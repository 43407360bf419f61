//! Compiling the Java corpus once per test run, running the binary, and normalising reports.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// The corpus classes, compiled once for this test binary.
pub fn corpus_classes() -> &'static Path {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES.get_or_init(|| compile_once("tests/corpus/src", "corpus-classes"))
}

/// The bundled example (`examples/cart`, as `scripts/run-example.sh` compiles it), compiled
/// once per process.
pub fn example_classes() -> &'static Path {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    CLASSES.get_or_init(|| compile_once("examples/cart/src", "example-classes"))
}

/// Compiles the Java sources under `sources` (relative to the checkout) into a directory named
/// after `name` and this process: test binaries running at the same time must not delete each
/// other's classes.
fn compile_once(sources: &str, name: &str) -> PathBuf {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join(sources);
    let classes =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).unwrap();
    let mut files = Vec::new();
    collect_java_files(&sources, &mut files);
    let status = Command::new(javac())
        .args(["--release", "17", "-nowarn", "-d"])
        .arg(&classes)
        .args(&files)
        .status()
        .expect("javac runs");
    assert!(status.success(), "{} compiles", sources.display());
    classes
}

fn javac() -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin/javac"),
        None => PathBuf::from("javac"),
    }
}

fn collect_java_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_java_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "java") {
            files.push(path);
        }
    }
}

/// The scenarios that use real libraries (`tests/corpus/libs`), compiled once for this test
/// binary, and the libraries' jars, as one class path.
pub fn library_classpath() -> &'static str {
    static CLASSPATH: OnceLock<String> = OnceLock::new();
    CLASSPATH.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let jars_dir = root.join("target/corpus-libs");
        let mut jars: Vec<PathBuf> = std::fs::read_dir(&jars_dir)
            .unwrap_or_else(|e| {
                panic!(
                    "{}: {e}; run scripts/setup.sh, which fetches the libraries of \
                     tests/corpus/libs/pom.xml from Maven Central",
                    jars_dir.display()
                )
            })
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "jar"))
            .collect();
        jars.sort();
        assert!(
            !jars.is_empty(),
            "no jars in {}: run scripts/setup.sh",
            jars_dir.display()
        );
        let jars = std::env::join_paths(&jars).unwrap().into_string().unwrap();
        let classes = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("library-classes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&classes);
        std::fs::create_dir_all(&classes).unwrap();
        let mut files = Vec::new();
        collect_java_files(&root.join("tests/corpus/libs/src"), &mut files);
        let status = Command::new(javac())
            .args(["--release", "17", "-nowarn", "-cp", &jars, "-d"])
            .arg(&classes)
            .args(&files)
            .status()
            .expect("javac runs");
        assert!(status.success(), "the library scenarios compile");
        format!("{}:{jars}", classes.display())
    })
}

/// Runs `heapgrowth run` on corpus scenarios with extra arguments.
pub fn heapgrowth(scenarios: &[&str], extra: &[&str]) -> Output {
    heapgrowth_on(corpus_classes().to_str().unwrap(), scenarios, extra)
}

/// Runs `heapgrowth run` on scenarios of `classpath` with extra arguments.
pub fn heapgrowth_on(classpath: &str, scenarios: &[&str], extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_heapgrowth"));
    command.arg("run").arg("--classpath").arg(classpath);
    for scenario in scenarios {
        command.args(["--scenario", scenario]);
    }
    command.args(extra).output().expect("heapgrowth runs")
}

/// Output as text, with what differs between runs of the same scenario taken out: the size of
/// root groups (class and thread counts vary with JIT and class loading), retained sizes
/// (object headers and padding differ between JVMs), the JDK's own growth that the
/// built-in rules ignore (how much of the JDK's warm-up a run catches depends on the JIT), and
/// the line that says settling was cut short (whether a settle hits its bound depends on the
/// machine's load).
pub fn normalized(stdout: &[u8]) -> String {
    String::from_utf8_lossy(stdout)
        .split("\n\nIgnored (known JDK growth: ")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once('\n').map_or("", |(_, rest)| rest)
            }
        })
        .collect::<String>()
        .lines()
        .filter(|line| !line.trim_start().starts_with("Retained "))
        .filter(|line| !line.starts_with("Settling cut short "))
        .map(|line| match (line.find("GcRoot("), line.rfind(" (")) {
            (Some(_), Some(count)) if line.ends_with(" objects)") => line[..count].to_owned(),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks a run of a leaking scenario: exit status 1, exactly `growing_lines` (the `╰→` lines
/// of the normalized report, in report order), and the normalized report as the insta snapshot
/// `snapshot` in `snapshots/`. Returns the report.
pub fn assert_leaks(output: &Output, growing_lines: &[&str], snapshot: &str) -> String {
    assert_eq!(
        output.status.code(),
        Some(1),
        "{snapshot} leaks; stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report = normalized(&output.stdout);
    let growing: Vec<&str> = report
        .lines()
        .filter(|line| line.starts_with("╰→"))
        .collect();
    assert_eq!(growing, growing_lines, "{report}");
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(snapshot, report);
    });
    report
}

/// Parses the JSON output.
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is JSON ({error}); stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The step texts of a sampled path of a JSON report's `old_objects` (`--jfr`), root first.
pub fn sampled_path_steps(path: &serde_json::Value) -> Vec<&str> {
    path["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["text"].as_str().unwrap())
        .collect()
}

/// The frames of a sampled path's most frequent allocation stack, and the index of the frame
/// to look at (which it must have).
pub fn first_stack(path: &serde_json::Value) -> (Vec<&str>, usize) {
    let stack = &path["stacks"][0];
    let frames = stack["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| frame.as_str().unwrap())
        .collect();
    let look = stack["place_to_look"].as_u64().expect("a line to look at") as usize;
    (frames, look)
}

/// The names in `dir`, sorted (what a run left in its $TMPDIR).
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A child JVM running a one-file program from a directory of its own (what `watch` attaches
/// to), killed and reaped, with its directory and attach file removed, on drop.
pub struct ChildJvm {
    child: Child,
    dir: PathBuf,
}

impl ChildJvm {
    /// A fresh directory `name` under the tests' temporary directory, holding `source` as
    /// `file`.
    pub fn directory(name: &str, file: &str, source: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), source).unwrap();
        dir
    }

    /// Runs `command` in `dir` (from [`ChildJvm::directory`]) and waits for the program's first
    /// line, `ready`; its later output is read and dropped, so its writes never fail.
    pub fn spawn(mut command: Command, dir: PathBuf) -> ChildJvm {
        let mut child = command
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("java starts");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready", "the program started");
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        });
        ChildJvm { child, dir }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Whether the process has ended within `within`. A JVM killed with SIGKILL can be reaped
    /// only once the kernel has ended all of its threads, but its main thread shows as a zombie
    /// in `/proc/<pid>/stat` (where heapgrowth looks) as soon as that one thread has ended: on
    /// a busy machine the others can take a while longer.
    pub fn ends_within(&mut self, within: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        while self.alive() {
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        true
    }
}

impl Drop for ChildJvm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_file(format!("/tmp/.java_pid{}", self.child.id()));
    }
}
