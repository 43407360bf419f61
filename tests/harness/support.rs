//! The fixture side of this binary (a user's harness over the Java fixtures), compiling the
//! fixtures once, and running this binary as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use heapgrowth::engine::SearchSettings;
use heapgrowth::growth::SearchConfig;
use heapgrowth::harness::Harness;
use heapgrowth::tempdir::PrivateTempDir;
use libtest_mimic::Failed;

/// Set when this binary runs as the user's test target over the fixtures.
pub const FIXTURE_ENV: &str = "HEAPGROWTH_TEST_FIXTURE";
const CLASSPATH_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_CLASSPATH";
const PACKAGE_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_PACKAGE";
const SNAPSHOTS_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_SNAPSHOTS";
/// Set when the fixture harness should also have the Rust scenarios of `j4rs.rs`.
#[cfg(feature = "j4rs")]
pub const RUST_SCENARIOS_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_RUST";
/// An ignore rule for [`Harness::ignore_growth`], when set.
pub const IGNORE_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_IGNORE";
/// A directory of Java sources for [`Harness::java_sources`], when set.
pub const SOURCES_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_SOURCES";
/// Set when the fixture harness should sample JFR old objects instead of dumping the heap.
pub const JFR_ENV: &str = "HEAPGROWTH_TEST_FIXTURE_JFR";

/// What a user's `tests/leaks.rs` does, configured from the environment.
pub fn fixture_harness() -> ! {
    let env = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let harness = Harness::new()
        .classpath(env(CLASSPATH_ENV))
        .scenarios_in(&env(PACKAGE_ENV))
        .scenario("fixtures.DoesNotExist")
        .ignore("fixtures.Unfinished")
        .snapshot_dir(env(SNAPSHOTS_ENV))
        // Fewer loops than the default: the fixtures grow every loop, and it halves the time.
        .settings(SearchSettings {
            warmup: 2,
            search: SearchConfig {
                loops_per_snapshot: 1,
                ..SearchConfig::default()
            },
            jfr: std::env::var_os(JFR_ENV).is_some(),
            ..SearchSettings::default()
        });
    let harness = match std::env::var_os(SOURCES_ENV) {
        Some(dir) => harness.java_sources(dir),
        None => harness,
    };
    let harness = match std::env::var(IGNORE_ENV) {
        Ok(rule) => harness.ignore_growth(&rule),
        Err(_) => harness,
    };
    #[cfg(feature = "j4rs")]
    let harness = if std::env::var_os(RUST_SCENARIOS_ENV).is_some() {
        super::j4rs::with_rust_scenarios(harness)
    } else {
        harness
    };
    harness.run_from_args()
}

/// A snapshot directory of its own, and the fixture configuration.
pub struct Fixture {
    snapshots: PrivateTempDir,
    classpath: PathBuf,
    package: String,
}

/// A finished run of the fixture harness.
pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Fixture {
    pub fn new() -> Result<Fixture, Failed> {
        Ok(Fixture {
            snapshots: PrivateTempDir::new("heapgrowth-harness-test").map_err(|e| e.to_string())?,
            classpath: fixture_classes()?.to_owned(),
            package: "fixtures".into(),
        })
    }

    pub fn with_classpath(mut self, classpath: PathBuf) -> Fixture {
        self.classpath = classpath;
        self
    }

    pub fn with_package(mut self, package: &str) -> Fixture {
        self.package = package.into();
        self
    }

    /// Runs this binary as the fixture harness with libtest arguments `args`.
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Result<Run, Failed> {
        let mut command = Command::new(std::env::current_exe().map_err(|e| e.to_string())?);
        command
            .args(args)
            .env(FIXTURE_ENV, "1")
            .env(CLASSPATH_ENV, &self.classpath)
            .env(PACKAGE_ENV, &self.package)
            .env(SNAPSHOTS_ENV, self.snapshots.path())
            .env_remove("INSTA_UPDATE")
            .env_remove("INSTA_FORCE_PASS")
            .env_remove("CI")
            .envs(env.iter().copied());
        let output = command.output().map_err(|e| e.to_string())?;
        Ok(Run {
            status: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }

    /// Writes an accepted snapshot for `scenario` in insta's format.
    pub fn write_snapshot(&self, scenario: &str, content: &str) -> Result<(), Failed> {
        let text = format!("---\nsource: src/frontends/harness/child.rs\n---\n{content}");
        std::fs::write(self.snapshot_path(scenario), text).map_err(|e| e.to_string().into())
    }

    /// The content of `scenario`'s snapshot, without insta's header and trailing newlines.
    pub fn snapshot(&self, scenario: &str) -> Result<String, Failed> {
        let text =
            std::fs::read_to_string(self.snapshot_path(scenario)).map_err(|e| e.to_string())?;
        let body = text.splitn(3, "---\n").nth(2).ok_or("no insta header")?;
        Ok(body.trim_end().to_owned())
    }

    /// A directory of this fixture's own (its snapshots' parent is private to it).
    pub fn dir(&self) -> &Path {
        self.snapshots.path()
    }

    fn snapshot_path(&self, scenario: &str) -> PathBuf {
        self.snapshots.path().join(format!("{scenario}.snap"))
    }
}

impl Run {
    pub fn expect_status(&self, status: i32) -> Result<(), Failed> {
        self.expect(
            self.status == Some(status),
            &format!("exit status {status}"),
        )
    }

    pub fn expect_stdout_contains(&self, text: &str) -> Result<(), Failed> {
        self.expect(
            self.stdout.contains(text),
            &format!("stdout containing {text:?}"),
        )
    }

    pub fn expect_stdout_starts(&self, text: &str) -> Result<(), Failed> {
        self.expect(
            self.stdout.starts_with(text),
            &format!("stdout starting with {text:?}"),
        )
    }

    pub fn expect_stdout_matches(
        &self,
        test: impl Fn(&str) -> bool,
        what: &str,
    ) -> Result<(), Failed> {
        self.expect(test(&self.stdout), &format!("stdout with {what:?}"))
    }

    fn expect(&self, ok: bool, what: &str) -> Result<(), Failed> {
        if ok {
            return Ok(());
        }
        Err(format!(
            "expected {what}; got status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
        .into())
    }
}

/// The fixtures, compiled once per run of this binary.
pub fn fixture_classes() -> Result<&'static Path, Failed> {
    static CLASSES: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CLASSES
        .get_or_init(|| {
            let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/harness/fixtures");
            let classes = Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness-fixture-classes");
            let _ = std::fs::remove_dir_all(&classes);
            std::fs::create_dir_all(&classes).map_err(|e| e.to_string())?;
            let mut files = Vec::new();
            collect_java_files(&sources, &mut files);
            let status = Command::new(jdk_tool("javac"))
                .args(["--release", "17", "-nowarn", "-XDignore.symbol.file", "-d"])
                .arg(&classes)
                .args(&files)
                .status()
                .map_err(|e| format!("javac: {e}"))?;
            if !status.success() {
                return Err("the fixtures do not compile".into());
            }
            Ok(classes)
        })
        .as_deref()
        .map_err(|e| e.clone().into())
}

/// The fixtures packed in a jar (compressed, as `jar` writes it).
pub fn fixture_jar() -> Result<PathBuf, Failed> {
    let classes = fixture_classes()?;
    let jar = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("harness-fixtures-{}.jar", std::process::id()));
    let status = Command::new(jdk_tool("jar"))
        .arg("cf")
        .arg(&jar)
        .arg("-C")
        .arg(classes)
        .arg(".")
        .status()
        .map_err(|e| format!("jar: {e}"))?;
    if !status.success() {
        return Err("jar failed".into());
    }
    Ok(jar)
}

fn jdk_tool(name: &str) -> PathBuf {
    match std::env::var_os("JAVA_HOME") {
        Some(home) => Path::new(&home).join("bin").join(name),
        None => PathBuf::from(name),
    }
}

fn collect_java_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_java_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "java") {
            files.push(path);
        }
    }
}
