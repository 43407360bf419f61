//! `cargo test` integration: one test per scenario, each comparing its normalized growth report
//! with an insta snapshot.
//!
//! ```no_run
//! // The `main` of tests/leaks.rs, a test target with `harness = false`:
//! heapgrowth::harness::Harness::new()
//!     .classpath("java/build/classes") // directories and jars
//!     .scenarios_in("com.example.leaks") // every Runnable scenario in that package
//!     .run_from_args() // parses libtest's command line, runs, exits
//! ```
//!
//! Each test is named after its scenario class and runs in a child process of its own (the test
//! binary run again, see [`Harness::run_from_args`]), because a process can start only one JVM:
//! a crash fails that one test, and parallel tests don't share a heap. The child runs the
//! growth search ([`crate::engine`]) and compares [`render_normalized`](crate::report::render_normalized) with
//! `snapshots/<scenario>.snap` (relative to the crate's `CARGO_MANIFEST_DIR`) through insta, so
//! `cargo insta review`, `INSTA_UPDATE` and `INSTA_FORCE_PASS` work as for any insta test.
//! Design and costs: `docs/harness.md`.
//!
//! With the cargo feature `j4rs`, a scenario can also be a Rust closure that calls Java through
//! j4rs on the trial's JVM (`Harness::rust_scenario`).

mod child;
mod discover;
#[cfg(feature = "j4rs")]
mod rust;
mod trial;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Conclusion, Failed, Trial};

pub use crate::engine::KeepDumps;
use crate::engine::SearchSettings;
use crate::settings::{FrontEnd, RunSettings, SettingError, SettingsRequest, Source};

/// The j4rs that [`Harness::rust_scenario`] closures receive a `Jvm` of, re-exported so a user
/// crate calls Java with the same version.
#[cfg(feature = "j4rs")]
pub use j4rs;

/// Names the trial a child process runs; its presence makes [`Harness::run_from_args`] run that
/// one trial instead of the test list.
const TRIAL_ENV: &str = "HEAPGROWTH_HARNESS_TRIAL";
/// Where the child writes its verdict (`pass` or `fail`, then the message).
const RESULT_ENV: &str = "HEAPGROWTH_HARNESS_RESULT";
/// The snapshot directory when none is set: `snapshots/` next to the user's `Cargo.toml`.
const DEFAULT_SNAPSHOT_DIR: &str = "snapshots";

/// The test list of a `harness = false` test target: scenarios, where to find them, and where
/// their snapshots are.
#[must_use = "a Harness does nothing until run_from_args is called"]
pub struct Harness {
    classpath: Vec<PathBuf>,
    /// Directories of `.java` files compiled before the tests (see [`Harness::java_sources`]).
    java_sources: Vec<PathBuf>,
    packages: Vec<String>,
    classes: Vec<String>,
    ignored: Vec<String>,
    snapshot_dir: PathBuf,
    java_home: Option<PathBuf>,
    jvm_args: Vec<String>,
    settings: SearchSettings,
    /// Ignore rules (`PATTERN [REASON]`) and ignore files added with the builder, checked in
    /// the trial (a bad rule fails the trials, not the build).
    growth_rules: Vec<String>,
    ignore_files: Vec<PathBuf>,
    /// Keep the last two dumps of a failing trial (see [`Harness::keep_dumps`]).
    keep_dumps: KeepDumps,
    /// Rust scenarios by name, in the order they were added.
    #[cfg(feature = "j4rs")]
    rust_scenarios: Vec<(String, rust::RustScenarioFn)>,
    /// j4rs's jar, when not found next to the test binary.
    #[cfg(feature = "j4rs")]
    j4rs_jar: Option<PathBuf>,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// An empty test list with the engine's default search settings.
    pub fn new() -> Harness {
        Harness {
            classpath: Vec::new(),
            java_sources: Vec::new(),
            packages: Vec::new(),
            classes: Vec::new(),
            ignored: Vec::new(),
            snapshot_dir: PathBuf::from(DEFAULT_SNAPSHOT_DIR),
            java_home: None,
            jvm_args: Vec::new(),
            settings: SearchSettings::default(),
            growth_rules: Vec::new(),
            ignore_files: Vec::new(),
            keep_dumps: KeepDumps::Never,
            #[cfg(feature = "j4rs")]
            rust_scenarios: Vec::new(),
            #[cfg(feature = "j4rs")]
            j4rs_jar: None,
        }
    }

    /// Adds class path entries (directories and jars; several may be joined with `:`). Relative
    /// paths are relative to the crate's `CARGO_MANIFEST_DIR`.
    pub fn classpath(mut self, entries: impl AsRef<std::ffi::OsStr>) -> Harness {
        self.classpath
            .extend(std::env::split_paths(entries.as_ref()).filter(|p| !p.as_os_str().is_empty()));
        self
    }

    /// Compiles every `.java` file under `dir` (relative to `CARGO_MANIFEST_DIR`, searched at
    /// any depth) with the JDK's `javac` when the tests start, into
    /// `target/heapgrowth/java-classes/` (`$CARGO_TARGET_DIR/heapgrowth/` when set), which goes
    /// on the class path. Compiled from scratch at each run, so a deleted scenario does not
    /// linger as a test; the other [`Harness::classpath`] entries are javac's class path. A
    /// compile error fails the run with javac's messages. No `build.rs` is needed.
    pub fn java_sources(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.java_sources.push(dir.into());
        self
    }

    /// Adds a test for every scenario in `package` (not its subpackages): every public,
    /// concrete, top-level class that implements `Runnable` and has a public no-arg
    /// constructor. Found by reading the class files, without a JVM.
    pub fn scenarios_in(mut self, package: &str) -> Harness {
        self.packages.push(package.to_owned());
        self
    }

    /// Adds a test for one scenario class, by its fully qualified name.
    pub fn scenario(mut self, class_name: &str) -> Harness {
        self.classes.push(class_name.to_owned());
        self
    }

    /// Adds a test for a scenario written in Rust: `scenario` is one loop, calling Java through
    /// j4rs on the trial's JVM (the same JVM the heap dumps come from). Java classes it uses
    /// come from [`Harness::classpath`], which is also put on the JVM's system class path for
    /// j4rs. The test is named `name` (which is also its snapshot's file name) and fails, like a
    /// Java scenario that throws, when `scenario` returns an error or panics.
    ///
    /// ```no_run
    /// use j4rs::InvocationArg;
    /// heapgrowth::harness::Harness::new()
    ///     .classpath("java/build/classes")
    ///     .rust_scenario("audit_log_record", |jvm: &j4rs::Jvm| {
    ///         jvm.invoke_static(
    ///             "com.example.AuditLog",
    ///             "record",
    ///             &[InvocationArg::try_from("checkout")?],
    ///         )?;
    ///         Ok::<(), j4rs::errors::J4RsError>(())
    ///     })
    ///     .run_from_args()
    /// ```
    #[cfg(feature = "j4rs")]
    pub fn rust_scenario<F, E>(mut self, name: &str, scenario: F) -> Harness
    where
        F: Fn(&j4rs::Jvm) -> Result<(), E> + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        let scenario: rust::RustScenarioFn =
            Arc::new(move |jvm: &j4rs::Jvm| scenario(jvm).map_err(|e| e.to_string()));
        self.rust_scenarios.push((name.to_owned(), scenario));
        self
    }

    /// j4rs's jar (`j4rs-<version>-jar-with-dependencies.jar`) for Rust scenarios; by default
    /// the one j4rs's build copied into `jassets/` above the test binary (`target/debug/`).
    #[cfg(feature = "j4rs")]
    pub fn j4rs_jar(mut self, jar: impl Into<PathBuf>) -> Harness {
        self.j4rs_jar = Some(jar.into());
        self
    }

    /// Marks a scenario as ignored: it runs only with `--ignored` or `--include-ignored`.
    pub fn ignore(mut self, name: &str) -> Harness {
        self.ignored.push(name.to_owned());
        self
    }

    /// Where the `.snap` files are; default `snapshots`, relative to `CARGO_MANIFEST_DIR`.
    pub fn snapshot_dir(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.snapshot_dir = dir.into();
        self
    }

    /// The JDK to start; default `JAVA_HOME`, then `java` on `PATH`.
    pub fn java_home(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.java_home = Some(dir.into());
        self
    }

    /// An extra JVM option for every scenario, for example `-Xmx512m`.
    pub fn jvm_arg(mut self, option: &str) -> Harness {
        self.jvm_args.push(option.to_owned());
        self
    }

    /// Accepts growth on the paths a rule matches, for every scenario: `PATTERN [REASON]` as
    /// for `heapgrowth run --ignore` (`"com.example.Cache.entries warms up over 2000 loops"`).
    /// Ignored paths are listed in the reports with their reason. The crate's
    /// `heapgrowth-ignore.txt` ([`crate::settings::PROJECT_IGNORE_FILE`]) is read too, when
    /// there is one.
    pub fn ignore_growth(mut self, rule: &str) -> Harness {
        self.growth_rules.push(rule.to_owned());
        self
    }

    /// Reads ignore rules from `file` (one per line, `#` comments), relative to
    /// `CARGO_MANIFEST_DIR`.
    pub fn ignore_file(mut self, file: impl Into<PathBuf>) -> Harness {
        self.ignore_files.push(file.into());
        self
    }

    /// `KeepDumps::Failed` keeps the last two heap dumps of each failing trial in
    /// `target/heapgrowth/dumps/<scenario>/` (`$CARGO_TARGET_DIR/heapgrowth/dumps/` when set),
    /// readable by you only; the environment variable `HEAPGROWTH_KEEP_DUMPS=failed` does the
    /// same for one run (`never` overrides the builder). Dumps hold every secret in the heap:
    /// never by default. Java scenarios only.
    pub fn keep_dumps(mut self, keep: KeepDumps) -> Harness {
        self.keep_dumps = keep;
        self
    }

    /// The settings of a trial: the builder's search settings with every ignore rule of the
    /// builder and the crate's `heapgrowth-ignore.txt`, and, for a Java scenario
    /// (`keeps_dumps`), which dumps to keep and where.
    fn run_settings(&self, keeps_dumps: bool) -> Result<RunSettings, String> {
        let mut request = SettingsRequest::harness(crate_dir(), self.settings.clone());
        let from = Source::Harness;
        let given = (|| {
            for file in &self.ignore_files {
                request.set(from, "ignore_file", in_crate(file))?;
            }
            for rule in &self.growth_rules {
                request.set(from, "ignore", rule)?;
            }
            Ok::<(), SettingError>(())
        })();
        // The environment overrides the builder for one run. Its error comes after those of
        // the rules, as it did before the request.
        let kept = if keeps_dumps {
            self.keep_dumps_of(&mut request)
        } else {
            Ok(())
        };
        let settings = given.and_then(|()| request.resolve());
        let settings = settings.map_err(|e| e.to_string())?;
        kept.map_err(|e| e.to_string())?;
        // Checked here, not only by the engine, so the message names the builder's field.
        settings
            .search
            .validate()
            .map_err(|e| e.message_in(&[FrontEnd::Harness]))?;
        Ok(settings)
    }

    /// Gives `request` the builder's [`Harness::keep_dumps`], then [`KEEP_DUMPS_ENV`], and
    /// where the dumps go.
    fn keep_dumps_of(&self, request: &mut SettingsRequest) -> Result<(), SettingError> {
        // `All` keeps nothing here yet, as before the request: the harness keeps the dumps of
        // a failure only.
        let builder = match self.keep_dumps {
            KeepDumps::Failed => KeepDumps::Failed,
            _ => KeepDumps::Never,
        };
        request.set(Source::Harness, "keep_dumps", builder.name())?;
        if let Ok(value) = std::env::var(KEEP_DUMPS_ENV) {
            request.set(Source::Environment, "keep_dumps", value)?;
        }
        request.keep_dumps_in(heapgrowth_dir().join("dumps"));
        Ok(())
    }

    /// Loops, snapshots, time budget and ignore rules (default: the engine's).
    pub fn settings(mut self, settings: SearchSettings) -> Harness {
        self.settings = settings;
        self
    }

    /// Parses libtest's command line, runs the selected scenarios, prints libtest's output and
    /// exits (status 101 when a test failed).
    ///
    /// In a child process started by the harness (the environment names one trial), it runs
    /// that one scenario instead, writes its verdict for the parent and exits.
    pub fn run_from_args(self) -> ! {
        if let Some(trial) = std::env::var_os(TRIAL_ENV) {
            child::run(&self, &trial.to_string_lossy())
        }
        self.run(&Arguments::from_args()).exit()
    }

    /// Runs the tests that `args` select (the parent side of [`Harness::run_from_args`]).
    pub fn run(self, args: &Arguments) -> Conclusion {
        let trials = self.trials(args.nocapture);
        libtest_mimic::run(args, trials)
    }

    fn trials(&self, nocapture: bool) -> Vec<Trial> {
        let spawner = match trial::Spawner::new(nocapture) {
            Ok(spawner) => Arc::new(spawner),
            Err(error) => {
                return vec![Trial::test("heapgrowth::harness", move || {
                    Err(Failed::from(error.clone()))
                })];
            }
        };
        if let Err(error) = self.compile_java_sources() {
            return vec![Trial::test(
                "heapgrowth::harness::java_sources",
                move || Err(Failed::from(error.clone())),
            )];
        }
        let mut names: Vec<String> = Vec::new();
        let mut trials = Vec::new();
        let classpath = self.resolved_classpath();
        for package in &self.packages {
            match discover::scenarios_in(&classpath, package) {
                Ok(found) if found.is_empty() => trials.push(failing_trial(
                    package,
                    format!(
                        "no scenario in package {package} on the class path {}: a scenario is a public, \
                         concrete, top-level class implementing Runnable with a public no-arg constructor",
                        display_paths(&classpath)
                    ),
                )),
                Ok(found) => names.extend(found),
                Err(error) => trials.push(failing_trial(package, format!("cannot list the scenarios of {package}: {error}"))),
            }
        }
        names.extend(self.classes.iter().cloned());
        #[cfg(feature = "j4rs")]
        names.extend(self.rust_scenarios.iter().map(|(name, _)| name.clone()));
        names.sort();
        names.dedup();
        for name in names {
            let ignored = self.ignored.contains(&name);
            let spawner = Arc::clone(&spawner);
            let trial_name = name.clone();
            trials.push(
                Trial::test(trial_name, move || spawner.run(&name)).with_ignored_flag(ignored),
            );
        }
        trials
    }

    /// The Rust scenario named `name`, if there is one.
    #[cfg(feature = "j4rs")]
    fn rust_scenario_named(&self, name: &str) -> Option<&rust::RustScenarioFn> {
        self.rust_scenarios
            .iter()
            .find(|(candidate, _)| candidate == name)
            .map(|(_, scenario)| scenario)
    }

    /// The class path: the entries given, then the classes compiled from
    /// [`Harness::java_sources`] (the parent process compiles them before any trial starts).
    fn resolved_classpath(&self) -> Vec<PathBuf> {
        let mut classpath: Vec<PathBuf> =
            self.classpath.iter().map(|path| in_crate(path)).collect();
        if !self.java_sources.is_empty() {
            classpath.push(compiled_classes_dir());
        }
        classpath
    }

    /// Compiles [`Harness::java_sources`] into [`compiled_classes_dir`], from scratch: into a
    /// new directory first, so that a failed compile leaves no half-written classes behind.
    fn compile_java_sources(&self) -> Result<(), String> {
        if self.java_sources.is_empty() {
            return Ok(());
        }
        let mut files = Vec::new();
        for dir in &self.java_sources {
            let dir = in_crate(dir);
            java_files_under(&dir, &mut files)
                .map_err(|e| format!("java_sources({}): {e}", dir.display()))?;
        }
        if files.is_empty() {
            return Err(format!(
                "java_sources: no .java file under {}",
                display_paths(
                    &self
                        .java_sources
                        .iter()
                        .map(|d| in_crate(d))
                        .collect::<Vec<_>>()
                )
            ));
        }
        files.sort();
        let jdk = crate::jvm::find_jdk(self.java_home.as_deref()).map_err(|e| e.to_string())?;
        let javac = jdk.home.join("bin/javac");
        if !javac.is_file() {
            return Err(format!(
                "java_sources: {} has no bin/javac (a JRE, not a JDK); set JAVA_HOME or Harness::java_home to a JDK",
                jdk.home.display()
            ));
        }
        let classes = compiled_classes_dir();
        let fresh = classes.with_extension(format!("new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&fresh);
        std::fs::create_dir_all(&fresh)
            .map_err(|e| format!("java_sources: cannot create {}: {e}", fresh.display()))?;
        let mut command = std::process::Command::new(&javac);
        command.arg("-d").arg(&fresh);
        let classpath: Vec<PathBuf> = self.classpath.iter().map(|path| in_crate(path)).collect();
        if !classpath.is_empty() {
            let joined = std::env::join_paths(&classpath).map_err(|e| e.to_string())?;
            command.arg("-classpath").arg(joined);
        }
        let output = command
            .args(&files)
            .output()
            .map_err(|e| format!("java_sources: cannot run {}: {e}", javac.display()))?;
        if !output.status.success() {
            let _ = std::fs::remove_dir_all(&fresh);
            return Err(format!(
                "java_sources: javac failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let _ = std::fs::remove_dir_all(&classes);
        std::fs::rename(&fresh, &classes).map_err(|e| {
            format!(
                "java_sources: cannot move the classes to {}: {e}",
                classes.display()
            )
        })
    }

    /// The snapshot file of scenario `name`.
    fn snapshot_file(&self, name: &str) -> PathBuf {
        in_crate(&self.snapshot_dir).join(format!("{name}.snap"))
    }
}

/// A test that fails with `message` (a package without scenarios, an unreadable class path),
/// so the problem shows in the test list instead of passing silently.
fn failing_trial(package: &str, message: String) -> Trial {
    Trial::test(format!("scenarios_in({package})"), move || {
        Err(Failed::from(message.clone()))
    })
}

/// Overrides [`Harness::keep_dumps`] for one run: `failed` or `never`.
pub const KEEP_DUMPS_ENV: &str = "HEAPGROWTH_KEEP_DUMPS";

/// `target/heapgrowth/` of the crate (`$CARGO_TARGET_DIR/heapgrowth/` when set): kept dumps and
/// the HTML pages of failing trials.
fn heapgrowth_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| crate_dir().join("target"), PathBuf::from)
        .join("heapgrowth")
}

/// Where [`Harness::java_sources`] are compiled to.
fn compiled_classes_dir() -> PathBuf {
    heapgrowth_dir().join("java-classes")
}

/// Appends every `.java` file under `dir`, at any depth.
fn java_files_under(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            java_files_under(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            files.push(path);
        }
    }
    Ok(())
}

/// The user crate's directory: `CARGO_MANIFEST_DIR` as cargo and nextest set it when they run a
/// test binary, else the current directory.
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

fn in_crate(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        crate_dir().join(path)
    }
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "(empty: add entries with Harness::classpath)".into();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}
