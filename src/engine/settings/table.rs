//! Every setting a user can give, once: its key, what it takes, its default, one line of doc,
//! and its name in each front end, or why a front end does not offer it. The front ends keep
//! their own typed members (clap fields, annotation attributes, Gradle properties, Maven
//! parameters, builder methods); `settings::tests` checks each against this table, and
//! `docs/reference.md` holds the table as [`render_markdown`] writes it.
//!
//! The table states today's truth, gaps included: a front end that lacks a setting says why in
//! [`Setting::not_in`] rather than being left blank.

use crate::engine::{
    DEFAULT_SCENARIO_TIMEOUT, DEFAULT_TIME_BUDGET, MAX_CONFIRM_LOOPS, MAX_LOOPS_PER_SNAPSHOT,
};
use crate::growth::{
    DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT, DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
    MAX_SNAPSHOTS_PER_SEARCH,
};

/// What a setting takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A number of loops or snapshots, `min..=max` (checked by
    /// [`SearchSettings::validate`](crate::engine::SearchSettings::validate), not by the front
    /// ends).
    Count {
        /// The least accepted.
        min: u32,
        /// The most accepted.
        max: u32,
    },
    /// A number of seconds, at least `min`.
    Seconds {
        /// The least accepted.
        min: u64,
    },
    /// On or off.
    Switch,
    /// One file or directory.
    Path,
    /// Files, the setting repeated (one where a front end takes a single value).
    Paths,
    /// An ignore rule, `PATTERN [REASON]`, the setting repeated.
    Rule,
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// A setting's value when nobody sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DefaultValue {
    /// A number, taken from the code's constant.
    Number(u64),
    /// On (`true`) or off.
    Switch(bool),
    /// A word or a path, as the front ends spell it.
    Text(&'static str),
    /// Nothing unless set.
    Unset,
}

impl DefaultValue {
    /// As the docs and the command line's `--help` show it; empty for [`DefaultValue::Unset`].
    pub fn render(self) -> String {
        match self {
            DefaultValue::Number(number) => number.to_string(),
            DefaultValue::Switch(true) => "on".into(),
            DefaultValue::Switch(false) => "off".into(),
            DefaultValue::Text(text) => text.into(),
            DefaultValue::Unset => String::new(),
        }
    }
}

/// Where a user gives settings: one column of the table each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrontEnd {
    /// `heapgrowth run` (and `diff`, `watch` for the ignore rules): a flag.
    Cli,
    /// The JUnit extension: a system property of the test JVM (set by hand, or by the Gradle
    /// and Maven plugins from their own settings).
    JUnitProperty,
    /// The JUnit extension: an attribute of `@HeapGrowthTest`, for one test.
    JUnitAnnotation,
    /// The Gradle plugin: a property of the `heapGrowth { }` block.
    Gradle,
    /// The Maven plugin: a `<configuration>` parameter of `prepare-agent`.
    Maven,
    /// The cargo test harness: a method of the `Harness` builder.
    Harness,
}

impl FrontEnd {
    /// Every front end, in the table's column order.
    pub const ALL: [FrontEnd; 6] = [
        FrontEnd::Cli,
        FrontEnd::JUnitProperty,
        FrontEnd::JUnitAnnotation,
        FrontEnd::Gradle,
        FrontEnd::Maven,
        FrontEnd::Harness,
    ];

    /// The column heading of the docs.
    pub fn heading(self) -> &'static str {
        match self {
            FrontEnd::Cli => "command line",
            FrontEnd::JUnitProperty => "JUnit system property",
            FrontEnd::JUnitAnnotation => "`@HeapGrowthTest`",
            FrontEnd::Gradle => "Gradle `heapGrowth { }`",
            FrontEnd::Maven => "Maven `prepare-agent`",
            FrontEnd::Harness => "cargo `Harness`",
        }
    }
}

/// One setting: its key, what it takes, its default, and its name in each front end.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The key, as [`SettingsRequest::set`](super::SettingsRequest::set) takes it.
    pub key: &'static str,
    /// What it takes.
    pub kind: Kind,
    /// Its value when nobody sets it.
    pub default: DefaultValue,
    /// One line: what it does.
    pub doc: &'static str,
    /// The `heapgrowth run` flag, with its dashes.
    pub cli: Option<&'static str>,
    /// The JUnit extension's system property.
    pub property: Option<&'static str>,
    /// The `@HeapGrowthTest` attribute.
    pub annotation: Option<&'static str>,
    /// The Gradle `heapGrowth { }` property.
    pub gradle: Option<&'static str>,
    /// The Maven `prepare-agent` parameter.
    pub maven: Option<&'static str>,
    /// The cargo harness builder method (the [`SearchSettings`] field, for those that go
    /// through `Harness::settings`).
    ///
    /// [`SearchSettings`]: crate::engine::SearchSettings
    pub harness: Option<&'static str>,
    /// The environment variable that overrides the harness builder for one run.
    pub env: Option<&'static str>,
    /// The front ends that do not offer it, and why.
    pub not_in: &'static [(FrontEnd, &'static str)],
}

impl Setting {
    /// Its name in `front_end`, if that front end offers it.
    pub fn name_in(&self, front_end: FrontEnd) -> Option<&'static str> {
        match front_end {
            FrontEnd::Cli => self.cli,
            FrontEnd::JUnitProperty => self.property,
            FrontEnd::JUnitAnnotation => self.annotation,
            FrontEnd::Gradle => self.gradle,
            FrontEnd::Maven => self.maven,
            FrontEnd::Harness => self.harness,
        }
    }

    /// Why `front_end` does not offer it, if [`Setting::not_in`] says.
    pub fn why_not_in(&self, front_end: FrontEnd) -> Option<&'static str> {
        self.not_in
            .iter()
            .find(|(missing, _)| *missing == front_end)
            .map(|(_, why)| *why)
    }
}

/// The setting with `key`.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|setting| setting.key == key)
}

/// The setting `front_end` calls `name` (`heapgrowth.timeBudget` as a
/// [`FrontEnd::JUnitProperty`], `timeBudgetSeconds` as a [`FrontEnd::JUnitAnnotation`]): how a
/// front end given names (the JUnit extension's `key=value` pairs) finds the key that
/// [`SettingsRequest::set`](super::SettingsRequest::set) takes.
pub fn setting_named(front_end: FrontEnd, name: &str) -> Option<&'static Setting> {
    SETTINGS
        .iter()
        .find(|setting| setting.name_in(front_end) == Some(name))
}

/// Why the build-tool plugins lack the settings of one test or of `heapgrowth run` only.
const PLUGINS_PASS_PROPERTIES: &str = "the plugin passes the extension's system properties only";

/// Every setting, search settings first, then those of what is kept and reported.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "warmup",
        kind: Kind::Count {
            min: 0,
            max: MAX_CONFIRM_LOOPS,
        },
        default: DefaultValue::Number(DEFAULT_WARMUP_LOOPS as u64),
        doc: "loops before the first snapshot (class loading, lazy initialisation)",
        cli: Some("--warmup"),
        property: Some("heapgrowth.warmup"),
        annotation: Some("warmup"),
        gradle: Some("warmup"),
        maven: Some("warmup"),
        harness: Some("settings(SearchSettings { warmup })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "loops_per_snapshot",
        kind: Kind::Count {
            min: 1,
            max: MAX_LOOPS_PER_SNAPSHOT,
        },
        default: DefaultValue::Number(DEFAULT_LOOPS_PER_SNAPSHOT as u64),
        doc: "loops between the first two snapshots; the gap doubles after each",
        cli: Some("--loops-per-snapshot"),
        property: Some("heapgrowth.loopsPerSnapshot"),
        annotation: Some("loopsPerSnapshot"),
        gradle: Some("loopsPerSnapshot"),
        maven: Some("loopsPerSnapshot"),
        harness: Some("settings(SearchSettings { search: SearchConfig { loops_per_snapshot } })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "max_snapshots",
        kind: Kind::Count {
            min: 2,
            max: MAX_SNAPSHOTS_PER_SEARCH,
        },
        default: DefaultValue::Number(DEFAULT_MAX_SNAPSHOTS as u64),
        doc: "snapshots of the detection phase (confirmation adds its own)",
        cli: Some("--max-snapshots"),
        property: Some("heapgrowth.maxSnapshots"),
        annotation: Some("maxSnapshots"),
        gradle: Some("maxSnapshots"),
        maven: Some("maxSnapshots"),
        harness: Some("settings(SearchSettings { search: SearchConfig { max_snapshots } })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "confirm_loops",
        kind: Kind::Count {
            min: 0,
            max: MAX_CONFIRM_LOOPS,
        },
        default: DefaultValue::Number(DEFAULT_CONFIRM_LOOPS as u64),
        doc: "loops the run reaches before growth counts as confirmed",
        cli: Some("--confirm-loops"),
        property: Some("heapgrowth.confirmLoops"),
        annotation: Some("confirmLoops"),
        gradle: Some("confirmLoops"),
        maven: Some("confirmLoops"),
        harness: Some("settings(SearchSettings { search: SearchConfig { confirm_loops } })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "time_budget",
        kind: Kind::Seconds { min: 1 },
        default: DefaultValue::Number(DEFAULT_TIME_BUDGET.as_secs()),
        doc: "seconds one scenario's search may take; confirmation then stops early and says so",
        cli: Some("--time-budget"),
        property: Some("heapgrowth.timeBudget"),
        // Named apart from the others: an annotation attribute has no unit to show.
        annotation: Some("timeBudgetSeconds"),
        gradle: Some("timeBudget"),
        maven: Some("timeBudget"),
        harness: Some("settings(SearchSettings { time_budget })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "jfr",
        kind: Kind::Switch,
        default: DefaultValue::Switch(false),
        doc: "JFR old-object samples instead of heap dumps, for heaps too big to dump",
        cli: Some("--jfr"),
        property: Some("heapgrowth.jfr"),
        annotation: Some("jfr"),
        gradle: Some("jfr"),
        maven: Some("jfr"),
        harness: Some("settings(SearchSettings { jfr })"),
        env: None,
        not_in: &[],
    },
    Setting {
        key: "ignore",
        kind: Kind::Rule,
        default: DefaultValue::Unset,
        doc: "accept growth on the paths a rule `PATTERN [REASON]` matches; repeatable",
        cli: Some("--ignore"),
        property: None,
        annotation: Some("ignore"),
        gradle: None,
        maven: None,
        harness: Some("ignore_growth"),
        env: None,
        not_in: &[
            (
                FrontEnd::JUnitProperty,
                "rules for every test go in an ignore file (`heapgrowth.ignoreFile`)",
            ),
            (
                FrontEnd::Gradle,
                "rules for every test go in an ignore file (`ignoreFile`)",
            ),
            (
                FrontEnd::Maven,
                "rules for every test go in an ignore file (`ignoreFile`)",
            ),
        ],
    },
    Setting {
        key: "ignore_file",
        kind: Kind::Paths,
        default: DefaultValue::Unset,
        doc: "a file of ignore rules, one per line (one file in JUnit, Gradle and Maven); the \
              project's `heapgrowth-ignore.txt` is read without it",
        cli: Some("--ignore-file"),
        property: Some("heapgrowth.ignoreFile"),
        annotation: None,
        gradle: Some("ignoreFile"),
        maven: Some("ignoreFile"),
        harness: Some("ignore_file"),
        env: None,
        not_in: &[(
            FrontEnd::JUnitAnnotation,
            "a file's rules are for every test: the rules of one test go in `ignore`",
        )],
    },
    Setting {
        key: "builtin_ignores",
        kind: Kind::Switch,
        default: DefaultValue::Switch(true),
        doc: "heapgrowth's rules for known growth of the JDK and of common libraries",
        cli: Some("--no-builtin-ignores"),
        property: None,
        annotation: None,
        gradle: None,
        maven: None,
        // A `SearchSettings` whose rules leave out `IgnoreRule::built_in()`.
        harness: Some("settings(SearchSettings { ignore_rules })"),
        env: None,
        not_in: &[
            (
                FrontEnd::JUnitProperty,
                "always on in tests: the JDK's own warm-up growth would fail them",
            ),
            (
                FrontEnd::JUnitAnnotation,
                "always on in tests: the JDK's own warm-up growth would fail them",
            ),
            (FrontEnd::Gradle, PLUGINS_PASS_PROPERTIES),
            (FrontEnd::Maven, PLUGINS_PASS_PROPERTIES),
        ],
    },
    Setting {
        key: "keep_dumps",
        kind: Kind::Choice(&["never", "failed", "all"]),
        default: DefaultValue::Text("never"),
        doc: "keep the heap dumps (owner-only): `failed` the last two of a failing scenario, \
              `all` every one (command line only); dumps hold every secret in the heap",
        cli: Some("--keep-dumps"),
        property: Some("heapgrowth.keepDumps"),
        annotation: None,
        gradle: Some("keepDumps"),
        maven: Some("keepDumps"),
        harness: Some("keep_dumps"),
        env: Some("HEAPGROWTH_KEEP_DUMPS"),
        not_in: &[(
            FrontEnd::JUnitAnnotation,
            "a choice for the whole build, not for one test",
        )],
    },
    Setting {
        key: "keep_dumps_dir",
        kind: Kind::Path,
        default: DefaultValue::Text("heapgrowth-dumps"),
        doc: "where kept dumps go, one directory per scenario run",
        cli: Some("--keep-dumps-dir"),
        property: None,
        annotation: None,
        gradle: None,
        maven: None,
        harness: None,
        env: None,
        not_in: &[
            (FrontEnd::JUnitProperty, "`dumps/` in the report directory"),
            (
                FrontEnd::JUnitAnnotation,
                "`dumps/` in the report directory",
            ),
            (FrontEnd::Gradle, "`dumps/` in the report directory"),
            (FrontEnd::Maven, "`dumps/` in the report directory"),
            (
                FrontEnd::Harness,
                "`target/heapgrowth/dumps` (`$CARGO_TARGET_DIR/heapgrowth/dumps`)",
            ),
        ],
    },
    Setting {
        key: "attribution",
        kind: Kind::Switch,
        default: DefaultValue::Switch(true),
        doc: "run the loops again with recorders to find the code that grows each node",
        cli: Some("--no-attribution"),
        property: None,
        annotation: None,
        gradle: None,
        maven: None,
        harness: None,
        env: None,
        not_in: &[
            (
                FrontEnd::JUnitProperty,
                "always on: a failing test shows the code to look at",
            ),
            (
                FrontEnd::JUnitAnnotation,
                "always on: a failing test shows the code to look at",
            ),
            (FrontEnd::Gradle, PLUGINS_PASS_PROPERTIES),
            (FrontEnd::Maven, PLUGINS_PASS_PROPERTIES),
            (
                FrontEnd::Harness,
                "always on: a failing trial shows the code to look at",
            ),
        ],
    },
    Setting {
        key: "agent",
        kind: Kind::Switch,
        default: DefaultValue::Switch(true),
        doc: "heapgrowth's JVMTI agent in the JVM; without it attribution only puts recording \
              proxies in fields",
        cli: Some("--no-agent"),
        property: None,
        annotation: None,
        gradle: None,
        maven: None,
        harness: None,
        env: None,
        not_in: &[
            (
                FrontEnd::JUnitProperty,
                "the test JVM's `-agentpath:` decides (the plugins add it)",
            ),
            (
                FrontEnd::JUnitAnnotation,
                "the test JVM's `-agentpath:` decides (the plugins add it)",
            ),
            (
                FrontEnd::Gradle,
                "always added to every `Test` task (linux-x86_64)",
            ),
            (FrontEnd::Maven, "always added to `argLine` (linux-x86_64)"),
            (FrontEnd::Harness, "always loaded into the trial's JVM"),
        ],
    },
    Setting {
        key: "scenario_timeout",
        kind: Kind::Seconds { min: 1 },
        default: DefaultValue::Number(DEFAULT_SCENARIO_TIMEOUT.as_secs()),
        doc: "seconds one scenario may run before it is stopped as blocked, its stack reported",
        cli: Some("--scenario-timeout"),
        property: None,
        annotation: None,
        gradle: None,
        maven: None,
        harness: None,
        env: None,
        not_in: &[
            (
                FrontEnd::JUnitProperty,
                "no limit: the build tool's test timeout applies",
            ),
            (
                FrontEnd::JUnitAnnotation,
                "no limit: the build tool's test timeout applies",
            ),
            (FrontEnd::Gradle, PLUGINS_PASS_PROPERTIES),
            (FrontEnd::Maven, PLUGINS_PASS_PROPERTIES),
            (FrontEnd::Harness, "always the default"),
        ],
    },
    Setting {
        key: "baseline",
        kind: Kind::Path,
        default: DefaultValue::Unset,
        doc: "the file of accepted growth paths, one section per test",
        cli: None,
        property: Some("heapgrowth.baseline"),
        annotation: None,
        gradle: Some("baseline"),
        maven: Some("baseline"),
        harness: None,
        env: None,
        not_in: &[
            (
                FrontEnd::Cli,
                "the exit status says whether anything grows; `--ignore` accepts growth",
            ),
            (
                FrontEnd::JUnitAnnotation,
                "one file for every test, a section each",
            ),
            (
                FrontEnd::Harness,
                "each scenario's insta snapshot, in `snapshot_dir` (default `snapshots`)",
            ),
        ],
    },
    Setting {
        key: "update_baseline",
        kind: Kind::Switch,
        default: DefaultValue::Switch(false),
        doc: "rewrite each test's section of the baseline from this run instead of checking it",
        cli: None,
        property: Some("heapgrowth.updateBaseline"),
        annotation: None,
        gradle: Some("updateBaseline"),
        maven: Some("updateBaseline"),
        harness: None,
        env: None,
        not_in: &[
            (FrontEnd::Cli, "no baseline"),
            (FrontEnd::JUnitAnnotation, "a choice for the whole run"),
            (
                FrontEnd::Harness,
                "`INSTA_UPDATE=always`, as for any insta snapshot",
            ),
        ],
    },
    Setting {
        key: "report_dir",
        kind: Kind::Path,
        default: DefaultValue::Text("build/reports/heapgrowth"),
        doc: "where each test's text, JSON and HTML reports and `index.html` go \
              (Maven: `target/heapgrowth-reports`)",
        cli: None,
        property: Some("heapgrowth.reportDir"),
        annotation: None,
        gradle: Some("reportDir"),
        maven: Some("reportDir"),
        harness: None,
        env: None,
        not_in: &[
            (
                FrontEnd::Cli,
                "`--output` and `--html` name the report files",
            ),
            (FrontEnd::JUnitAnnotation, "one directory for every test"),
            (
                FrontEnd::Harness,
                "a failing trial's HTML report goes to `target/heapgrowth/`",
            ),
        ],
    },
];

/// The table as `docs/reference.md` shows it, between `<!-- settings:start -->` and
/// `<!-- settings:end -->`: a row per setting, a column per front end (`—` where it is not
/// offered), then why each gap is there.
pub fn render_markdown() -> String {
    let code = |name: &str| format!("`{name}`");
    let mut out = String::new();
    out.push_str("| setting | default |");
    for front_end in FrontEnd::ALL {
        out.push_str(&format!(" {} |", front_end.heading()));
    }
    out.push_str(" what it does |\n|---|---|");
    for _ in FrontEnd::ALL {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for setting in SETTINGS {
        out.push_str(&format!(
            "| `{}` | {} |",
            setting.key,
            setting.default.render()
        ));
        for front_end in FrontEnd::ALL {
            let cell = match (setting.name_in(front_end), front_end) {
                (None, _) => "—".to_owned(),
                (Some(name), FrontEnd::Maven) => code(&format!("<{name}>")),
                (Some(name), FrontEnd::Harness) => match setting.env {
                    Some(env) => format!("{}, env {}", code(name), code(env)),
                    None => code(name),
                },
                (Some(name), _) => code(name),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push_str(&format!(" {} |\n", setting.doc));
    }
    out.push_str("\nWhere a front end does not offer a setting (— above):\n\n");
    for setting in SETTINGS {
        // One line per reason, naming every front end it holds for.
        let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
        for front_end in FrontEnd::ALL {
            if let Some(why) = setting.why_not_in(front_end) {
                match reasons.iter_mut().find(|(reason, _)| *reason == why) {
                    Some((_, front_ends)) => front_ends.push(front_end.heading()),
                    None => reasons.push((why, vec![front_end.heading()])),
                }
            }
        }
        for (why, front_ends) in reasons {
            out.push_str(&format!(
                "- `{}`, {}: {why}\n",
                setting.key,
                front_ends.join(", ")
            ));
        }
    }
    out
}
