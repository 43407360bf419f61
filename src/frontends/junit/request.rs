//! One test's request, parsed once from the `key=value` list the extension passes without
//! reading it (`HeapGrowthExtension.request`): `@name=value` for each `@HeapGrowthTest`
//! attribute (one entry per element of an array), `name=value` for the system properties
//! `heapgrowth.*`, `basedir`, `surefire.test.class.path` and `surefire.real.class.path`, and
//! `jvm.arg=<arg>` for each of the JVM's input arguments.
//!
//! The values are read as the extension read them before (JUnit API version 7), so that every
//! message and every default stays: numbers as `Integer.parseInt(value.trim())`, switches as
//! `Boolean.getBoolean`, paths as `Path.of` (blank: none), and the errors come in the order the
//! extension threw them.

use std::path::{Path, PathBuf};

use crate::engine::SearchSettings;
use crate::growth::{IgnoreRule, RuleOrigin};
use crate::jvm::boundary::BoundaryError;
use crate::report::baseline::java_trim as trim;

use super::outcome::{java_blank as is_blank, java_display};

/// Where the rules of a test's `@HeapGrowthTest(ignore = ...)` come from, as reports say.
pub(super) const ANNOTATION_RULES: &str = "@HeapGrowthTest(ignore)";

/// The settings of one test run, parsed and checked.
#[derive(Debug)]
pub(super) struct TestRequest {
    /// The search's settings, validated.
    pub(super) settings: SearchSettings,
    /// `heapgrowth.baseline` (a blank property is none).
    pub(super) baseline_file: Option<PathBuf>,
    /// The baseline file's text ("" when it does not exist).
    pub(super) baseline_text: Option<String>,
    /// `heapgrowth.updateBaseline`: rewrite the test's section instead of checking it.
    pub(super) update_baseline: bool,
    /// Where the last two heap dumps of a failing test go (`heapgrowth.keepDumps=failed`),
    /// unless the baseline is being rewritten.
    pub(super) keep_dumps_dir: Option<PathBuf>,
    /// Where the test's reports go, as Java's `Path` shows it.
    pub(super) report_dir: PathBuf,
    /// The library named by the JVM's `-agentpath:` option, if it is heapgrowth's agent.
    pub(super) agent_path: Option<String>,
}

/// Why a request cannot run, as the exception the extension threw for it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum SettingError {
    /// The baseline file cannot be used (`SettingsFileException`).
    #[error("{0}")]
    SettingsFile(String),
    /// A system property has a value that means nothing (`IllegalArgumentException`).
    #[error("{0}")]
    Property(String),
    /// An ignore file or rule, or settings that cannot work (`IllegalStateException`).
    #[error("{0}")]
    Settings(String),
}

impl From<SettingError> for BoundaryError {
    fn from(error: SettingError) -> BoundaryError {
        match error {
            SettingError::SettingsFile(message) => BoundaryError::settings_file(message),
            SettingError::Property(message) => BoundaryError::illegal_argument(message),
            SettingError::Settings(message) => BoundaryError::illegal_state(message),
        }
    }
}

/// The `key=value` pairs, looked up as the extension looked up its system properties.
struct Pairs<'p>(Vec<(&'p str, &'p str)>);

impl<'p> Pairs<'p> {
    fn new(pairs: &'p [String]) -> Self {
        Pairs(
            pairs
                .iter()
                .map(|pair| pair.split_once('=').unwrap_or((pair.as_str(), "")))
                .collect(),
        )
    }

    /// The last value of `key` (a system property has one), or `None`.
    fn get(&self, key: &str) -> Option<&'p str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// Every value of `key`, in order.
    fn all(&self, key: &'p str) -> impl Iterator<Item = &'p str> + '_ {
        self.0
            .iter()
            .filter(move |(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    /// `Boolean.getBoolean(key)`: "true" in any case, nothing else.
    fn switch(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// A path property; blank means none.
    fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key).filter(|v| !is_blank(v)).map(PathBuf::from)
    }

    /// The attribute `@name` if it is not negative, else the property (blank: -1, the
    /// engine's default), parsed as `Integer.parseInt(value.trim())`.
    fn number(&self, attribute: &str, property: &str) -> Result<i32, SettingError> {
        let set = self
            .get(attribute)
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(-1);
        if set >= 0 {
            return Ok(set);
        }
        match self.get(property) {
            None => Ok(-1),
            Some(value) if is_blank(value) => Ok(-1),
            Some(value) => parse_int(trim(value)).ok_or_else(|| {
                SettingError::Property(format!(
                    "system property {property}={value} is not a number"
                ))
            }),
        }
    }
}

/// `Integer.parseInt`: an optional sign, then ASCII digits, within `int`'s range.
fn parse_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Rust's parser takes the same sign and digits, and refuses what overflows.
    text.parse().ok()
}

impl TestRequest {
    /// The request of `pairs`; the first error is the one the extension threw first.
    pub(super) fn parse(pairs: &[String]) -> Result<TestRequest, SettingError> {
        let pairs = Pairs::new(pairs);
        let baseline_file = pairs.path("heapgrowth.baseline");
        let update_baseline = pairs.switch("heapgrowth.updateBaseline");
        // Read before the search in both modes: a baseline that cannot be used fails at once.
        let baseline_text = match &baseline_file {
            None => None,
            Some(file) => {
                Some(super::baseline_file::read(file).map_err(SettingError::SettingsFile)?)
            }
        };
        let numbers = [
            pairs.number("@warmup", "heapgrowth.warmup")?,
            pairs.number("@loopsPerSnapshot", "heapgrowth.loopsPerSnapshot")?,
            pairs.number("@maxSnapshots", "heapgrowth.maxSnapshots")?,
            pairs.number("@confirmLoops", "heapgrowth.confirmLoops")?,
            pairs.number("@timeBudgetSeconds", "heapgrowth.timeBudget")?,
        ];
        let jfr = pairs.switch("@jfr") || pairs.switch("heapgrowth.jfr");
        // As the extension passed it: the path as Java's `Path` shows it.
        let ignore_file = pairs
            .path("heapgrowth.ignoreFile")
            .map(|file| java_display(&file));
        let keep_failed = keep_dumps(pairs.get("heapgrowth.keepDumps"))?;
        let report_dir = super::outcome::report_dir(|key| pairs.get(key).map(str::to_owned));
        // A rewrite passes whatever grows: nothing to keep then.
        let keep_dumps_dir = (keep_failed && !update_baseline).then(|| report_dir.join("dumps"));
        let rules: Vec<&str> = pairs.all("@ignore").collect();
        let mut settings = search_settings(numbers, jfr, &rules, ignore_file.as_deref())?;
        settings.keep_dumps = if keep_dumps_dir.is_some() {
            crate::engine::DumpPolicy::Failed
        } else {
            crate::engine::DumpPolicy::Never
        };
        Ok(TestRequest {
            settings,
            baseline_file,
            baseline_text,
            update_baseline,
            keep_dumps_dir,
            report_dir,
            agent_path: agent_path(pairs.all("jvm.arg")),
        })
    }
}

/// `heapgrowth.keepDumps` (trimmed): `failed` keeps the last two heap dumps of a failing
/// test; `never` or blank (the default) keeps none.
fn keep_dumps(value: Option<&str>) -> Result<bool, SettingError> {
    match trim(value.unwrap_or("never")) {
        "never" | "" => Ok(false),
        "failed" => Ok(true),
        other => Err(SettingError::Property(format!(
            "system property heapgrowth.keepDumps={other}: expected never or failed"
        ))),
    }
}

/// The library named by the first `-agentpath:` option that is heapgrowth's agent (its path
/// holds `heapgrowth_agent`), without the agent's options.
fn agent_path<'p>(arguments: impl Iterator<Item = &'p str>) -> Option<String> {
    arguments
        .filter_map(|argument| argument.strip_prefix("-agentpath:"))
        .map(|path| path.split_once('=').map_or(path, |(path, _options)| path))
        .find(|path| path.contains("heapgrowth_agent"))
        .map(str::to_owned)
}

/// The settings of one test: `[warmup, loopsPerSnapshot, maxSnapshots, confirmLoops,
/// timeBudgetSeconds]` (negative: the default), the built-in ignore rules, then those of
/// `ignore_file`, then the test's own `rules`; validated.
fn search_settings(
    [warmup, loops_per_snapshot, max_snapshots, confirm_loops, time_budget]: [i32; 5],
    jfr: bool,
    rules: &[&str],
    ignore_file: Option<&str>,
) -> Result<SearchSettings, SettingError> {
    let mut settings = SearchSettings::default();
    let set = |value: i32, field: &mut u32| {
        if value >= 0 {
            *field = value as u32;
        }
    };
    set(warmup, &mut settings.warmup);
    set(loops_per_snapshot, &mut settings.search.loops_per_snapshot);
    set(max_snapshots, &mut settings.search.max_snapshots);
    set(confirm_loops, &mut settings.search.confirm_loops);
    if time_budget >= 0 {
        settings.time_budget = std::time::Duration::from_secs(time_budget as u64);
    }
    settings.jfr = jfr;
    // The project's file, found in the test JVM's working directory (the project directory
    // under Gradle and Maven), then the one the build names.
    let files: Vec<PathBuf> = ignore_file.map(PathBuf::from).into_iter().collect();
    settings.ignore_rules.extend(
        crate::settings::ignore_file_rules(Path::new("."), &files)
            .map_err(SettingError::Settings)?,
    );
    for rule in rules {
        let origin = RuleOrigin::User(ANNOTATION_RULES.into());
        settings
            .ignore_rules
            .push(IgnoreRule::parse(rule, origin).map_err(|e| {
                SettingError::Settings(format!("@HeapGrowthTest(ignore = {rule:?}): {e}"))
            })?);
    }
    settings
        .validate()
        .map_err(|e| SettingError::Settings(e.to_string()))?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tempdir::PrivateTempDir;

    fn parse(pairs: &[&str]) -> Result<TestRequest, SettingError> {
        let pairs: Vec<String> = pairs.iter().map(|p| (*p).to_owned()).collect();
        TestRequest::parse(&pairs)
    }

    /// The annotation's defaults, as the extension passes them.
    const DEFAULTS: &[&str] = &[
        "@warmup=-1",
        "@loopsPerSnapshot=-1",
        "@maxSnapshots=-1",
        "@confirmLoops=-1",
        "@timeBudgetSeconds=-1",
        "@jfr=false",
    ];

    fn with_defaults(more: &[&str]) -> Vec<String> {
        DEFAULTS
            .iter()
            .chain(more)
            .map(|p| (*p).to_owned())
            .collect()
    }

    #[test]
    fn defaults_everywhere_give_the_engines_defaults() {
        let request = TestRequest::parse(&with_defaults(&[])).unwrap();
        assert_eq!(request.settings, SearchSettings::default());
        assert_eq!(request.report_dir, Path::new("build/reports/heapgrowth"));
        assert_eq!(
            (
                request.baseline_file,
                request.update_baseline,
                request.keep_dumps_dir,
                request.agent_path
            ),
            (None, false, None, None)
        );
    }

    #[test]
    fn an_attribute_wins_over_the_property_which_wins_over_the_default() {
        let request = TestRequest::parse(&with_defaults(&[
            "@warmup=0",
            "heapgrowth.warmup=not read at all",
            "heapgrowth.loopsPerSnapshot= 3 ",
            "heapgrowth.maxSnapshots=+4",
            "heapgrowth.confirmLoops=-7",
            "heapgrowth.timeBudget=   ",
            "heapgrowth.jfr=TRUE",
        ]))
        .unwrap();
        let settings = &request.settings;
        assert_eq!(
            (
                settings.warmup,
                settings.search.loops_per_snapshot,
                settings.search.max_snapshots,
                settings.search.confirm_loops,
                settings.time_budget,
                settings.jfr
            ),
            (
                0,
                3,
                4,
                SearchSettings::default().search.confirm_loops,
                SearchSettings::default().time_budget,
                true
            )
        );
    }

    #[test]
    fn every_attribute_sets_its_setting() {
        let request = parse(&[
            "@warmup=0",
            "@loopsPerSnapshot=3",
            "@maxSnapshots=4",
            "@confirmLoops=200",
            "@timeBudgetSeconds=10",
            "@jfr=true",
        ])
        .unwrap();
        let custom = &request.settings;
        assert_eq!(
            (
                custom.warmup,
                custom.search.loops_per_snapshot,
                custom.search.max_snapshots,
                custom.search.confirm_loops,
                custom.time_budget.as_secs(),
                custom.jfr,
            ),
            (0, 3, 4, 200, 10, true)
        );
    }

    #[test]
    fn a_property_that_is_not_an_int_is_an_illegal_argument_naming_its_raw_value() {
        for value in [" 3x", "2147483648", "", "+", "1.5", "\u{0}"] {
            let pair = format!("heapgrowth.maxSnapshots={value}");
            let result = TestRequest::parse(&with_defaults(&[&pair]));
            if value.is_empty() {
                assert!(result.is_ok(), "blank means the default");
                continue;
            }
            assert_eq!(
                result.unwrap_err(),
                SettingError::Property(format!(
                    "system property heapgrowth.maxSnapshots={value} is not a number"
                ))
            );
        }
        // The numbers are read in order: warm-up's error comes first.
        assert_eq!(
            parse(&["heapgrowth.timeBudget=x", "heapgrowth.warmup=y"]).unwrap_err(),
            SettingError::Property("system property heapgrowth.warmup=y is not a number".into())
        );
    }

    #[test]
    fn booleans_are_true_in_any_case_and_nothing_else() {
        for (value, jfr) in [
            ("True", true),
            ("true ", false),
            ("yes", false),
            ("1", false),
        ] {
            let pair = format!("heapgrowth.jfr={value}");
            assert_eq!(parse(&[&pair]).unwrap().settings.jfr, jfr, "{value:?}");
        }
        assert!(parse(&["@jfr=true"]).unwrap().settings.jfr);
    }

    #[test]
    fn keep_dumps_is_trimmed_checked_and_keeps_nothing_while_the_baseline_is_rewritten() {
        assert_eq!(
            parse(&["heapgrowth.keepDumps= sometimes "]).unwrap_err(),
            SettingError::Property(
                "system property heapgrowth.keepDumps=sometimes: expected never or failed".into()
            )
        );
        let kept = parse(&[
            "heapgrowth.keepDumps= failed",
            "heapgrowth.reportDir=out//r/",
        ]);
        assert_eq!(
            kept.unwrap().keep_dumps_dir.as_deref(),
            Some(Path::new("out/r/dumps"))
        );
        let updating = parse(&[
            "heapgrowth.keepDumps=failed",
            "heapgrowth.updateBaseline=true",
        ]);
        assert_eq!(updating.unwrap().keep_dumps_dir, None);
        // Checked in update mode too.
        assert!(parse(&["heapgrowth.keepDumps=x", "heapgrowth.updateBaseline=true"]).is_err());
    }

    #[test]
    fn the_report_dir_is_the_property_else_mavens_else_gradles() {
        let dir = |pairs: &[&str]| parse(pairs).unwrap().report_dir.display().to_string();
        assert_eq!(dir(&["heapgrowth.reportDir=/r//x/"]), "/r/x");
        assert_eq!(dir(&["heapgrowth.reportDir= "]), "build/reports/heapgrowth");
        assert_eq!(
            dir(&["surefire.real.class.path="]),
            "target/heapgrowth-reports"
        );
        assert_eq!(
            dir(&["surefire.test.class.path=a.jar", "basedir=/m/mod/"]),
            "/m/mod/target/heapgrowth-reports"
        );
        assert_eq!(dir(&["basedir=/m"]), "build/reports/heapgrowth");
    }

    #[test]
    fn the_agent_is_the_first_agentpath_of_heapgrowths_agent_without_options() {
        let request = parse(&[
            "jvm.arg=-Xmx1g",
            "jvm.arg=-agentpath:/opt/other/libprofiler.so=start",
            "jvm.arg=-agentpath:/x/libheapgrowth_agent.so=a=b",
            "jvm.arg=-agentpath:/y/libheapgrowth_agent.so",
        ]);
        assert_eq!(
            request.unwrap().agent_path.as_deref(),
            Some("/x/libheapgrowth_agent.so")
        );
    }

    #[test]
    fn a_tests_ignore_rules_come_after_the_built_in_ones_and_bad_ones_are_refused() {
        let request = parse(&["@ignore=com.example.Cache.* warms up"]).unwrap();
        let last = request.settings.ignore_rules.last().unwrap();
        assert_eq!(
            (last.pattern.as_str(), last.reason.as_str()),
            ("com.example.Cache.*", "warms up")
        );
        assert_eq!(
            request.settings.ignore_rules.len(),
            IgnoreRule::built_in().len() + 1
        );
        let SettingError::Settings(error) = parse(&["@ignore=*"]).unwrap_err() else {
            panic!("not an illegal state");
        };
        assert!(
            error.starts_with("@HeapGrowthTest(ignore = \"*\"): "),
            "{error}"
        );
        let SettingError::Settings(missing) =
            parse(&["heapgrowth.ignoreFile=/nonexistent/ignore.txt"]).unwrap_err()
        else {
            panic!("not an illegal state");
        };
        assert!(missing.contains("/nonexistent/ignore.txt"), "{missing}");
    }

    // Issue 11: these errors said neither the file nor where it went wrong.
    #[test]
    fn an_ignore_file_that_is_a_directory_or_not_utf8_is_one_line_naming_it() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().display().to_string();
        let pair = format!("heapgrowth.ignoreFile={path}");
        assert_eq!(
            parse(&[&pair]).unwrap_err(),
            SettingError::Settings(format!("ignore file {path} is a directory"))
        );
        let latin1 = dir.path().join("ignore.txt");
        std::fs::write(&latin1, b"com.example.A.b caf\xe9\n").unwrap();
        let latin1 = latin1.display().to_string();
        let pair = format!("heapgrowth.ignoreFile={latin1}");
        assert_eq!(
            parse(&[&pair]).unwrap_err(),
            SettingError::Settings(format!("ignore file {latin1} is not UTF-8 at byte 19"))
        );
    }

    #[test]
    fn bad_settings_are_refused_after_the_rules() {
        assert!(matches!(
            parse(&["@loopsPerSnapshot=0"]),
            Err(SettingError::Settings(_))
        ));
        assert!(matches!(
            parse(&["@timeBudgetSeconds=0"]),
            Err(SettingError::Settings(_))
        ));
        // The rule's error comes before the settings' one.
        let SettingError::Settings(error) =
            parse(&["@loopsPerSnapshot=0", "@ignore=*"]).unwrap_err()
        else {
            panic!("not an illegal state");
        };
        assert!(error.starts_with("@HeapGrowthTest(ignore"), "{error}");
    }

    #[test]
    fn the_baseline_file_is_read_first_and_a_missing_one_reads_as_empty() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().display().to_string();
        let pair = format!("heapgrowth.baseline={path}//");
        assert_eq!(
            parse(&[&pair, "heapgrowth.warmup=x"]).unwrap_err(),
            SettingError::SettingsFile(format!("baseline file {path} is a directory"))
        );
        let missing = format!("heapgrowth.baseline={path}/none.txt");
        assert_eq!(
            parse(&[&missing]).unwrap().baseline_text.as_deref(),
            Some("")
        );
    }
}
