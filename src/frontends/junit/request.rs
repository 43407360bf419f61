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

use std::path::PathBuf;

use crate::engine::SearchSettings;
use crate::java_text;
use crate::jvm::boundary::BoundaryError;
use crate::settings::{
    setting_named, FrontEnd, SettingError, SettingsRequest, Source, WarnUnmatched,
};

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
    /// Which of the rules that matched nothing to warn about.
    pub(super) unmatched: WarnUnmatched,
}

/// Why a request cannot run, as the exception the extension threw for it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum RequestError {
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

impl From<RequestError> for BoundaryError {
    fn from(error: RequestError) -> BoundaryError {
        match error {
            RequestError::SettingsFile(message) => BoundaryError::settings_file(message),
            RequestError::Property(message) => BoundaryError::illegal_argument(message),
            RequestError::Settings(message) => BoundaryError::illegal_state(message),
        }
    }
}

/// A value the extension read itself before (a number, a word) threw
/// `IllegalArgumentException`; an ignore file or rule, `IllegalStateException`.
impl From<SettingError> for RequestError {
    fn from(error: SettingError) -> RequestError {
        let message = error.to_string();
        match error {
            SettingError::NotANumber { .. } | SettingError::NotAChoice { .. } => {
                RequestError::Property(message)
            }
            _ => RequestError::Settings(message),
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
        self.get(key).is_some_and(java_text::is_true)
    }

    /// A path property; blank means none.
    fn path(&self, key: &str) -> Option<PathBuf> {
        self.get(key)
            .filter(|v| !java_text::is_blank(v))
            .map(PathBuf::from)
    }

    /// The pairs that are search settings of the table, with their source: `@name` an
    /// attribute of `@HeapGrowthTest`, `heapgrowth.name` a system property. Other pairs
    /// (`heapgrowth.skip`, a property the table does not know) are not settings of a search,
    /// and are left alone as the extension always left them.
    fn search_settings(&self) -> Vec<(Source, &'static str, &'p str)> {
        self.0
            .iter()
            .filter_map(|&(name, value)| {
                let (from, setting) = match name.strip_prefix('@') {
                    Some(attribute) => (
                        Source::Annotation,
                        setting_named(FrontEnd::JUnitAnnotation, attribute)?,
                    ),
                    None => (
                        Source::SystemProperty,
                        setting_named(FrontEnd::JUnitProperty, name)?,
                    ),
                };
                (!OWN_SETTINGS.contains(&setting.key)).then_some((from, setting.key, value))
            })
            .collect()
    }
}

impl TestRequest {
    /// The request of `pairs`; the first error is the one the extension threw first.
    pub(super) fn parse(pairs: &[String]) -> Result<TestRequest, RequestError> {
        let pairs = Pairs::new(pairs);
        let baseline_file = pairs.path("heapgrowth.baseline");
        let update_baseline = pairs.switch("heapgrowth.updateBaseline");
        // Read before the search in both modes: a baseline that cannot be used fails at once.
        let baseline_text = match &baseline_file {
            None => None,
            Some(file) => {
                Some(super::baseline_file::read(file).map_err(RequestError::SettingsFile)?)
            }
        };
        if let (true, Some(file)) = (update_baseline, &baseline_file) {
            super::baseline_file::check_rewritable(file).map_err(RequestError::SettingsFile)?;
        }
        let report_dir = super::outcome::report_dir(|key| pairs.get(key).map(str::to_owned));
        let mut request = SettingsRequest::junit();
        request.set_all(pairs.search_settings())?;
        // A rewrite passes whatever grows: nothing to keep then.
        if !update_baseline {
            request.keep_dumps_in(report_dir.join("dumps"));
        }
        let resolved = request.resolve()?;
        resolved.search.validate().map_err(|e| {
            let names = [FrontEnd::JUnitProperty, FrontEnd::JUnitAnnotation];
            RequestError::Settings(e.message_in(&names))
        })?;
        Ok(TestRequest {
            settings: resolved.search,
            baseline_file,
            baseline_text,
            update_baseline,
            keep_dumps_dir: resolved.keep_dumps_dir,
            report_dir,
            agent_path: agent_path(pairs.all("jvm.arg")),
            unmatched: resolved.unmatched,
        })
    }
}

/// The settings this front end reads itself, for where the baseline and the reports are
/// rather than how to search; the settings request takes every other one of the table.
const OWN_SETTINGS: &[&str] = &["baseline", "update_baseline", "report_dir"];

/// The library named by the first `-agentpath:` option that is heapgrowth's agent (its path
/// holds `heapgrowth_agent`), without the agent's options.
fn agent_path<'p>(arguments: impl Iterator<Item = &'p str>) -> Option<String> {
    arguments
        .filter_map(|argument| argument.strip_prefix("-agentpath:"))
        .map(|path| path.split_once('=').map_or(path, |(path, _options)| path))
        .find(|path| path.contains("heapgrowth_agent"))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::growth::IgnoreRule;
    use crate::tempdir::PrivateTempDir;

    fn parse(pairs: &[&str]) -> Result<TestRequest, RequestError> {
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
                RequestError::Property(format!(
                    "system property heapgrowth.maxSnapshots={value} is not a number"
                ))
            );
        }
        // The numbers are read in order: warm-up's error comes first.
        assert_eq!(
            parse(&["heapgrowth.timeBudget=x", "heapgrowth.warmup=y"]).unwrap_err(),
            RequestError::Property("system property heapgrowth.warmup=y is not a number".into())
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
            RequestError::Property(
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
        let RequestError::Settings(error) = parse(&["@ignore=*"]).unwrap_err() else {
            panic!("not an illegal state");
        };
        assert!(
            error.starts_with("@HeapGrowthTest(ignore = \"*\"): "),
            "{error}"
        );
        let RequestError::Settings(missing) =
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
            RequestError::Settings(format!("ignore file {path} is a directory"))
        );
        let latin1 = dir.path().join("ignore.txt");
        std::fs::write(&latin1, b"com.example.A.b caf\xe9\n").unwrap();
        let latin1 = latin1.display().to_string();
        let pair = format!("heapgrowth.ignoreFile={latin1}");
        assert_eq!(
            parse(&[&pair]).unwrap_err(),
            RequestError::Settings(format!("ignore file {latin1} is not UTF-8 at byte 19"))
        );
    }

    #[test]
    fn bad_settings_are_refused_after_the_rules() {
        assert!(matches!(
            parse(&["@loopsPerSnapshot=0"]),
            Err(RequestError::Settings(_))
        ));
        assert!(matches!(
            parse(&["@timeBudgetSeconds=0"]),
            Err(RequestError::Settings(_))
        ));
        // The rule's error comes before the settings' one.
        let RequestError::Settings(error) =
            parse(&["@loopsPerSnapshot=0", "@ignore=*"]).unwrap_err()
        else {
            panic!("not an illegal state");
        };
        assert!(error.starts_with("@HeapGrowthTest(ignore"), "{error}");
    }

    /// A baseline to be rewritten that its user cannot write (a read-only file) is refused
    /// before the search; before, the search ran and the rewrite after it failed, and as root,
    /// which CI runs as, it was rewritten. As root the request is parsed on a thread whose
    /// file-system uid is nobody's (setfsuid is per thread, and drops the file capabilities).
    #[test]
    fn a_baseline_its_user_cannot_write_is_refused_before_a_rewrite() {
        use std::os::unix::fs::PermissionsExt;
        // Where nobody can reach it: the checkout may be in root's home.
        let dir = std::env::temp_dir().join(format!(
            "heapgrowth-unit-baseline-ro-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("baseline.txt");
        std::fs::write(&file, "## a.B.c\nx\n").unwrap();
        let baseline = format!("heapgrowth.baseline={}", file.display());
        let parsed = |mode: u32, update: bool| {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            let mut pairs = vec![baseline.clone()];
            if update {
                pairs.push("heapgrowth.updateBaseline=true".to_owned());
            }
            let parse = move || TestRequest::parse(&pairs).err();
            // Safety: geteuid has no preconditions and cannot fail.
            if unsafe { libc::geteuid() } != 0 {
                return Some(parse());
            }
            std::thread::spawn(move || {
                // Safety: setfsgid and setfsuid change this thread's file-system ids only; an
                // invalid id (u32::MAX) changes nothing and returns the current one.
                let changed = unsafe {
                    libc::setfsgid(65534);
                    libc::setfsuid(65534);
                    libc::setfsuid(u32::MAX) == 65534
                };
                changed.then(parse)
            })
            .join()
            .unwrap()
        };
        let Some(read_only) = parsed(0o444, true) else {
            eprintln!("skipped: this process cannot take another file-system uid");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        };
        let shown = file.display();
        assert_eq!(
            read_only,
            Some(RequestError::SettingsFile(format!(
                "cannot open the baseline file {shown}: AccessDeniedException: {shown} \
                 (heapgrowth.updateBaseline=true rewrites it)"
            )))
        );
        // Read only, it is fine; writable, it is fine to rewrite.
        assert_eq!(parsed(0o444, false), Some(None));
        assert_eq!(parsed(0o666, true), Some(None));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "## a.B.c\nx\n");
        // A missing file (and its directory) is made by the rewrite.
        let missing = format!("heapgrowth.baseline={}/new/baseline.txt", dir.display());
        assert!(parse(&[&missing, "heapgrowth.updateBaseline=true"]).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_baseline_file_is_read_first_and_a_missing_one_reads_as_empty() {
        let dir = PrivateTempDir::new("test").unwrap();
        let path = dir.path().display().to_string();
        let pair = format!("heapgrowth.baseline={path}//");
        assert_eq!(
            parse(&[&pair, "heapgrowth.warmup=x"]).unwrap_err(),
            RequestError::SettingsFile(format!("baseline file {path} is a directory"))
        );
        let missing = format!("heapgrowth.baseline={path}/none.txt");
        assert_eq!(
            parse(&[&missing]).unwrap().baseline_text.as_deref(),
            Some("")
        );
    }

    #[test]
    fn every_system_property_of_the_settings_table_is_read() {
        use crate::settings::{setting, DefaultValue, Kind, SETTINGS};
        let default = format!("{:?}", parse(DEFAULTS));
        for row in SETTINGS {
            let Some(property) = row.property else {
                continue;
            };
            let value = match row.kind {
                Kind::Count { .. } | Kind::Seconds { .. } => "7",
                Kind::Switch => "true",
                Kind::Choice(_) => "failed",
                Kind::Path | Kind::Paths | Kind::Rule => "elsewhere/x.txt",
            };
            let given = with_defaults(&[&format!("{property}={value}")]);
            assert_ne!(
                format!("{:?}", TestRequest::parse(&given)),
                default,
                "{property}={value} changes nothing"
            );
        }
        // The report directory's default is the table's.
        let Some(DefaultValue::Text(report_dir)) = setting("report_dir").map(|s| s.default) else {
            panic!("report_dir has no default");
        };
        assert_eq!(parse(DEFAULTS).unwrap().report_dir, Path::new(report_dir));
    }
}
