//! One request for the settings of a run, from whatever front end gives them: each value is
//! given as `key=value` text with its [`Source`] ([`SettingsRequest::set`]), and
//! [`SettingsRequest::resolve`] turns them into typed settings. It is the one place ignore
//! rules are assembled, in one order for every front end: the built-in rules unless switched
//! off, then the project's `heapgrowth-ignore.txt`, then the ignore files, then the inline
//! rules, each inline rule's origin and error prefix taken from its source.
//!
//! What still differs between front ends is named here, once: which unmatched rules are warned
//! about ([`WarnUnmatched`]), and that only the command line keeps every dump.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ignore_file_rules;
use super::table::{setting, Kind, Setting, SETTINGS};
use crate::engine::{DumpPolicy, SearchSettings};
use crate::growth::{IgnoreRule, RuleOrigin};
use crate::java_text;
use crate::report::{unmatched_rule_warning, unmatched_rules, ScenarioReport};

/// Where a value comes from: it decides how the text is read, how an error names it, and
/// which value wins when two sources give the same setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// A `heapgrowth` flag, already checked by clap.
    CommandLine,
    /// A method of the cargo harness's builder.
    Harness,
    /// An environment variable that overrides the harness's builder for one run.
    Environment,
    /// A system property of a JUnit test JVM (`heapgrowth.warmup=5`), read as the Java
    /// extension reads it: numbers by `Integer.parseInt` of the trimmed text, a blank one or
    /// a negative number meaning the default, switches by `Boolean.getBoolean`.
    SystemProperty,
    /// An attribute of `@HeapGrowthTest`, as Java prints it: a negative number, or `false`,
    /// is the attribute's default and leaves the setting to the system property.
    Annotation,
}

impl Source {
    /// Every source.
    pub const ALL: [Source; 5] = [
        Source::CommandLine,
        Source::Harness,
        Source::Environment,
        Source::SystemProperty,
        Source::Annotation,
    ];

    /// The name of `setting` from this source ([`Setting::cli`], [`Setting::harness`],
    /// [`Setting::env`], [`Setting::property`] or [`Setting::annotation`]).
    fn name_of(self, setting: &Setting) -> Option<&'static str> {
        match self {
            Source::CommandLine => setting.cli,
            Source::Harness => setting.harness,
            Source::Environment => setting.env,
            Source::SystemProperty => setting.property,
            Source::Annotation => setting.annotation,
        }
    }

    /// Which of two sources that give one setting wins: a test's attribute over the build's
    /// system property, the environment over the harness's builder.
    fn rank(self) -> u8 {
        match self {
            Source::CommandLine | Source::Harness | Source::SystemProperty => 0,
            Source::Environment | Source::Annotation => 1,
        }
    }

    /// The value `value` of the setting named `name`, as an error names it: `--ignore "x"`,
    /// `ignore_growth("x")`, `HEAPGROWTH_KEEP_DUMPS=x`, `system property heapgrowth.warmup=x`,
    /// `@HeapGrowthTest(ignore = "x")`. Text is quoted where the user wrote it in quotes.
    fn spell(self, name: &str, value: &str, quoted: bool) -> String {
        let value = if quoted {
            format!("{value:?}")
        } else {
            value.to_owned()
        };
        match self {
            Source::CommandLine => format!("{name} {value}"),
            Source::Harness => format!("{name}({value})"),
            Source::Environment => format!("{name}={value}"),
            Source::SystemProperty => format!("system property {name}={value}"),
            Source::Annotation => format!("@HeapGrowthTest({name} = {value})"),
        }
    }

    /// The origin of the inline ignore rules of this source, as reports and warnings name it:
    /// `--ignore`, `Harness::ignore_growth`, `@HeapGrowthTest(ignore)`.
    fn rule_origin(self) -> Option<RuleOrigin> {
        let name = self.name_of(setting(IGNORE)?)?;
        let label = match self {
            Source::CommandLine => name.to_owned(),
            Source::Harness => format!("Harness::{name}"),
            Source::Annotation => format!("@HeapGrowthTest({name})"),
            Source::Environment | Source::SystemProperty => return None,
        };
        Some(RuleOrigin::User(label))
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::CommandLine => "the command line",
            Source::Harness => "the cargo harness",
            Source::Environment => "the environment",
            Source::SystemProperty => "a system property",
            Source::Annotation => "@HeapGrowthTest",
        })
    }
}

/// A setting that cannot be used, in one line that names where it was given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingError {
    /// A number that is not one: `system property heapgrowth.warmup=x is not a number`.
    #[error("{given} is not a number")]
    NotANumber {
        /// Where it was given.
        from: Source,
        /// The setting and its value, as the source spells them.
        given: String,
    },
    /// A word the setting does not take:
    /// `system property heapgrowth.keepDumps=x: expected never or failed`.
    #[error("{given}: expected {expected}")]
    NotAChoice {
        /// Where it was given.
        from: Source,
        /// The setting and its value, as the source spells them.
        given: String,
        /// The words it takes: `never or failed`.
        expected: String,
    },
    /// An inline ignore rule that does not parse: `--ignore "*": ...`.
    #[error("{given}: {reason}")]
    BadRule {
        /// Where it was given.
        from: Source,
        /// The rule, as the source spells it.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An ignore file (the project's or one a setting names) that cannot be used, or a rule
    /// in it that does not parse; the text names the file (and the line).
    #[error("{0}")]
    IgnoreFile(String),
    /// A key this source does not give (see the table's [`Setting::not_in`]): a front end's
    /// mistake, not the user's.
    #[error("{from} has no setting {key:?}")]
    NotOffered {
        /// Where it was given.
        from: Source,
        /// The key.
        key: String,
    },
}

/// Which of the user's ignore rules that matched no path a front end warns about (a
/// misspelled rule would otherwise let the growth it meant to accept fail the run without
/// saying why). The front ends differ today; this names the difference, once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarnUnmatched {
    /// Every rule the user gave (the command line).
    All,
    /// Only the inline rules (JUnit: a rule of an ignore file is shared by every test, so one
    /// that fits one test matches nothing in the others).
    InlineOnly,
    /// None (the cargo harness, so far).
    Never,
}

impl WarnUnmatched {
    /// The warnings for `reports`, one line each, without the front end's prefix.
    pub fn warnings(self, reports: &[ScenarioReport]) -> Vec<String> {
        let inline: Vec<RuleOrigin> = Source::ALL
            .iter()
            .filter_map(|source| source.rule_origin())
            .collect();
        unmatched_rules(reports)
            .into_iter()
            .filter(|rule| match self {
                WarnUnmatched::All => true,
                WarnUnmatched::InlineOnly => inline.contains(&rule.origin),
                WarnUnmatched::Never => false,
            })
            .map(unmatched_rule_warning)
            .collect()
    }
}

/// The settings of a run, resolved.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunSettings {
    /// How to search, with every ignore rule and the dump policy. Not validated:
    /// [`SearchSettings::validate`] runs where each front end ran it before, so that the order
    /// of errors stays.
    pub search: SearchSettings,
    /// Where the kept dumps of a scenario go, when any are kept.
    pub keep_dumps_dir: Option<PathBuf>,
    /// Whether attribution runs.
    pub attribution: bool,
    /// Which unmatched ignore rules to warn about.
    pub unmatched: WarnUnmatched,
}

/// A value and where it came from.
#[derive(Clone, Debug)]
struct Given<T> {
    value: T,
    from: Source,
}

/// The settings a front end gives, as text, until [`SettingsRequest::resolve`].
#[derive(Clone, Debug)]
#[must_use = "a request does nothing until resolved"]
pub struct SettingsRequest {
    /// Where the project's ignore file is looked for.
    project_dir: PathBuf,
    /// The front end's search settings before the request: the engine's defaults, or the
    /// harness's `settings(...)`.
    base: SearchSettings,
    unmatched: WarnUnmatched,
    warmup: Option<Given<u32>>,
    loops_per_snapshot: Option<Given<u32>>,
    max_snapshots: Option<Given<u32>>,
    confirm_loops: Option<Given<u32>>,
    time_budget: Option<Given<Duration>>,
    jfr: Option<Given<bool>>,
    builtin_ignores: bool,
    ignore_files: Vec<PathBuf>,
    /// Inline rules, as given: they are parsed after the ignore files are read, so that an
    /// unusable file is the error even when a rule is bad too.
    inline_rules: Vec<(Source, String)>,
    keep_dumps: Option<Given<DumpPolicy>>,
    keep_dumps_dir: Option<PathBuf>,
    attribution: bool,
}

/// The key of the inline ignore rules.
const IGNORE: &str = "ignore";

/// The dump policies outside the command line: JUnit and the harness keep the dumps of a
/// failure or none (`all` is for `heapgrowth diff` later, a command-line workflow).
const KEPT_OUTSIDE_THE_COMMAND_LINE: &[&str] = &["never", "failed"];

impl SettingsRequest {
    /// `heapgrowth run`, `diff` and `watch`: the project is the current directory, and every
    /// rule that matches nothing is warned about.
    pub fn command_line() -> SettingsRequest {
        SettingsRequest::new(".".into(), SearchSettings::default(), WarnUnmatched::All)
    }

    /// A JUnit test: the project is the test JVM's current directory (the project directory
    /// under Gradle and Maven), and only the annotation's rules are warned about.
    pub fn junit() -> SettingsRequest {
        SettingsRequest::new(
            ".".into(),
            SearchSettings::default(),
            WarnUnmatched::InlineOnly,
        )
    }

    /// A cargo harness trial: the project is the crate's directory, the base is the builder's
    /// `settings(...)` (its rules replace the built-in ones), and no rule is warned about.
    pub fn harness(crate_dir: PathBuf, base: SearchSettings) -> SettingsRequest {
        SettingsRequest::new(crate_dir, base, WarnUnmatched::Never)
    }

    fn new(project_dir: PathBuf, base: SearchSettings, unmatched: WarnUnmatched) -> Self {
        SettingsRequest {
            project_dir,
            base,
            unmatched,
            warmup: None,
            loops_per_snapshot: None,
            max_snapshots: None,
            confirm_loops: None,
            time_budget: None,
            jfr: None,
            builtin_ignores: true,
            ignore_files: Vec::new(),
            inline_rules: Vec::new(),
            keep_dumps: None,
            keep_dumps_dir: None,
            attribution: true,
        }
    }

    /// Which unmatched rules this front end warns about.
    pub fn unmatched(&self) -> WarnUnmatched {
        self.unmatched
    }

    /// Gives the setting `key` (a key of [`SETTINGS`]) the value `value`, read as `from`
    /// writes it. Numbers and words are checked here, so errors come in the order the front
    /// end gives its values ([`SettingsRequest::set_all`] gives them in the table's order);
    /// ignore rules and files are checked by [`SettingsRequest::resolve`]. A value from a
    /// source that ranks below the one that set the setting already is not read at all (an
    /// attribute of `@HeapGrowthTest` wins over its system property, which then is not
    /// parsed).
    pub fn set(
        &mut self,
        from: Source,
        key: &str,
        value: impl Into<OsString>,
    ) -> Result<(), SettingError> {
        let not_offered = || SettingError::NotOffered {
            from,
            key: key.to_owned(),
        };
        let setting = setting(key).ok_or_else(not_offered)?;
        let name = from.name_of(setting).ok_or_else(not_offered)?;
        let value = value.into();
        let read = Reading {
            from,
            name,
            value: value.to_string_lossy().into_owned(),
        };
        match (setting.key, setting.kind) {
            ("warmup", Kind::Count { .. }) => put(&mut self.warmup, from, || read.count()),
            ("loops_per_snapshot", Kind::Count { .. }) => {
                put(&mut self.loops_per_snapshot, from, || read.count())
            }
            ("max_snapshots", Kind::Count { .. }) => {
                put(&mut self.max_snapshots, from, || read.count())
            }
            ("confirm_loops", Kind::Count { .. }) => {
                put(&mut self.confirm_loops, from, || read.count())
            }
            ("time_budget", Kind::Seconds { .. }) => put(&mut self.time_budget, from, || {
                Ok(read.number()?.map(Duration::from_secs))
            }),
            ("jfr", Kind::Switch) => put(&mut self.jfr, from, || read.switch()),
            ("builtin_ignores", Kind::Switch) => {
                if let Some(on) = read.switch()? {
                    self.builtin_ignores = on;
                }
                Ok(())
            }
            ("attribution", Kind::Switch) => {
                if let Some(on) = read.switch()? {
                    self.attribution = on;
                }
                Ok(())
            }
            (IGNORE, Kind::Rule) => {
                self.inline_rules.push((from, read.value));
                Ok(())
            }
            ("ignore_file", Kind::Paths) => {
                if from == Source::SystemProperty {
                    // One file, named as Java's `Path.of` names it.
                    self.ignore_files.clear();
                    if !java_text::is_blank(&read.value) {
                        self.ignore_files
                            .push(java_text::display(Path::new(&read.value)).into());
                    }
                } else {
                    self.ignore_files.push(value.into());
                }
                Ok(())
            }
            ("keep_dumps", Kind::Choice(words)) => {
                let words = if from == Source::CommandLine {
                    words
                } else {
                    KEPT_OUTSIDE_THE_COMMAND_LINE
                };
                put(&mut self.keep_dumps, from, || read.policy(words))
            }
            ("keep_dumps_dir", Kind::Path) => {
                self.keep_dumps_dir = Some(value.into());
                Ok(())
            }
            _ => Err(not_offered()),
        }
    }

    /// Gives each `(source, key, value)` of `given` as [`SettingsRequest::set`] does, in the
    /// table's order of settings and, for one setting, the higher-ranked source first; values
    /// of one setting and source keep their order (the rules of `@HeapGrowthTest(ignore)`).
    /// The first error is then the one the table's order meets first, whatever order the front
    /// end collected its values in (the JUnit extension's system properties come from a hash
    /// table), and an attribute is read before its system property, which it makes unread.
    /// A key the table lacks is given last, and is an error.
    pub fn set_all<K: AsRef<str>, V: Into<OsString>>(
        &mut self,
        given: impl IntoIterator<Item = (Source, K, V)>,
    ) -> Result<(), SettingError> {
        let mut given: Vec<(Source, K, V)> = given.into_iter().collect();
        given.sort_by_key(|(from, key, _)| {
            let row = SETTINGS.iter().position(|s| s.key == key.as_ref());
            (
                row.unwrap_or(SETTINGS.len()),
                std::cmp::Reverse(from.rank()),
            )
        });
        for (from, key, value) in given {
            self.set(from, key.as_ref(), value)?;
        }
        Ok(())
    }

    /// Where kept dumps go, for a front end that decides it rather than the user (JUnit: the
    /// report directory's `dumps/`, not in update mode; the harness: its target directory's).
    pub fn keep_dumps_in(&mut self, dir: PathBuf) {
        self.keep_dumps_dir = Some(dir);
    }

    /// The typed settings: the base with every value set, and the ignore rules assembled
    /// (built-in unless switched off, the project's file, the ignore files, the inline rules).
    /// Dumps are kept only where they can go: a policy with no directory keeps what the base
    /// keeps (JUnit's update mode).
    pub fn resolve(self) -> Result<RunSettings, SettingError> {
        let mut search = self.base;
        let count = |given: Option<Given<u32>>, field: &mut u32| {
            if let Some(given) = given {
                *field = given.value;
            }
        };
        count(self.warmup, &mut search.warmup);
        count(
            self.loops_per_snapshot,
            &mut search.search.loops_per_snapshot,
        );
        count(self.max_snapshots, &mut search.search.max_snapshots);
        count(self.confirm_loops, &mut search.search.confirm_loops);
        if let Some(given) = self.time_budget {
            search.time_budget = given.value;
        }
        if let Some(given) = self.jfr {
            search.jfr = given.value;
        }
        if !self.builtin_ignores {
            search
                .ignore_rules
                .retain(|rule| !rule.origin.is_built_in());
        }
        search.ignore_rules.extend(
            ignore_file_rules(&self.project_dir, &self.ignore_files)
                .map_err(SettingError::IgnoreFile)?,
        );
        for (from, rule) in self.inline_rules {
            let origin = from.rule_origin().ok_or_else(|| SettingError::NotOffered {
                from,
                key: IGNORE.into(),
            })?;
            let parsed = IgnoreRule::parse(&rule, origin).map_err(|reason| {
                let name = setting(IGNORE).and_then(|s| from.name_of(s));
                SettingError::BadRule {
                    from,
                    given: from.spell(name.unwrap_or(IGNORE), &rule, true),
                    reason,
                }
            })?;
            search.ignore_rules.push(parsed);
        }
        let keep = self
            .keep_dumps
            .map_or(DumpPolicy::Never, |given| given.value);
        let keep_dumps_dir = self.keep_dumps_dir.filter(|_| keep != DumpPolicy::Never);
        if keep_dumps_dir.is_some() {
            search.keep_dumps = keep;
        }
        Ok(RunSettings {
            search,
            keep_dumps_dir,
            attribution: self.attribution,
            unmatched: self.unmatched,
        })
    }
}

/// Sets `slot` to what `parse` reads, unless a higher-ranked source set it already (then
/// `parse` is not called). `parse` gives `None` for a value that means "the default".
fn put<T>(
    slot: &mut Option<Given<T>>,
    from: Source,
    parse: impl FnOnce() -> Result<Option<T>, SettingError>,
) -> Result<(), SettingError> {
    if slot
        .as_ref()
        .is_some_and(|given| given.from.rank() > from.rank())
    {
        return Ok(());
    }
    if let Some(value) = parse()? {
        *slot = Some(Given { value, from });
    }
    Ok(())
}

/// One value being read, as its source writes it.
struct Reading {
    from: Source,
    /// The setting's name in the source.
    name: &'static str,
    value: String,
}

impl Reading {
    /// A whole number, or `None` for the default. From Java (a system property, an
    /// attribute), an `int` as `Integer.parseInt` reads it, a negative one meaning the
    /// default; a system property is trimmed first, and a blank one is the default too.
    /// (`Integer.parseInt` also takes non-ASCII digits; this takes ASCII ones only.)
    fn number(&self) -> Result<Option<u64>, SettingError> {
        let not_a_number = || SettingError::NotANumber {
            from: self.from,
            given: self.from.spell(self.name, &self.value, false),
        };
        match self.from {
            Source::SystemProperty | Source::Annotation => {
                let text = if self.from == Source::SystemProperty {
                    if java_text::is_blank(&self.value) {
                        return Ok(None);
                    }
                    java_text::trim(&self.value)
                } else {
                    &self.value
                };
                let number: i32 = text.parse().map_err(|_| not_a_number())?;
                Ok(u64::try_from(number).ok())
            }
            Source::CommandLine | Source::Harness | Source::Environment => {
                self.value.parse().map(Some).map_err(|_| not_a_number())
            }
        }
    }

    /// A number of loops or snapshots (see [`Reading::number`]).
    fn count(&self) -> Result<Option<u32>, SettingError> {
        match self.number()? {
            None => Ok(None),
            Some(number) => u32::try_from(number)
                .map(Some)
                .map_err(|_| SettingError::NotANumber {
                    from: self.from,
                    given: self.from.spell(self.name, &self.value, false),
                }),
        }
    }

    /// On or off, or `None` for "not said". A system property as `Boolean.getBoolean` reads
    /// it (`true` in any case is on, anything else off); an attribute's `false` is its
    /// default, which leaves the setting to the system property (as `jfr() ||
    /// Boolean.getBoolean("heapgrowth.jfr")` did).
    fn switch(&self) -> Result<Option<bool>, SettingError> {
        match (self.from, self.value.as_str()) {
            (Source::SystemProperty, value) => Ok(Some(java_text::is_true(value))),
            (Source::Annotation, "false") => Ok(None),
            (_, "true") => Ok(Some(true)),
            (_, "false") => Ok(Some(false)),
            _ => Err(SettingError::NotAChoice {
                from: self.from,
                given: self.from.spell(self.name, &self.value, false),
                expected: "true or false".into(),
            }),
        }
    }

    /// One of `words`, a dump policy. A system property is trimmed first, and an empty one is
    /// `never` (as the Java extension read it); the error shows the trimmed value.
    fn policy(&self, words: &[&str]) -> Result<Option<DumpPolicy>, SettingError> {
        let word = match self.from {
            Source::SystemProperty => match java_text::trim(&self.value) {
                "" => return Ok(Some(DumpPolicy::Never)),
                trimmed => trimmed,
            },
            _ => self.value.as_str(),
        };
        DumpPolicy::ALL
            .into_iter()
            .find(|policy| policy.name() == word && words.contains(&word))
            .map(Some)
            .ok_or_else(|| SettingError::NotAChoice {
                from: self.from,
                given: self.from.spell(self.name, word, false),
                expected: one_of(words),
            })
    }
}

/// `never or failed`, `never, failed or all`.
fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::growth::SearchOutcome;
    use crate::settings::PROJECT_IGNORE_FILE;
    use crate::tempdir::PrivateTempDir;

    /// A request of `front_end`'s kind whose project is `dir`.
    fn in_project(mut request: SettingsRequest, dir: &std::path::Path) -> SettingsRequest {
        request.project_dir = dir.to_owned();
        request
    }

    fn user_rules(settings: &RunSettings) -> Vec<(String, String)> {
        settings
            .search
            .ignore_rules
            .iter()
            .filter(|rule| !rule.origin.is_built_in())
            .map(|rule| (rule.pattern.clone(), rule.origin.label().to_owned()))
            .collect()
    }

    #[test]
    fn rules_come_built_in_then_project_file_then_files_then_inline() {
        let dir = PrivateTempDir::new("test").unwrap();
        std::fs::write(dir.path().join(PROJECT_IGNORE_FILE), "a.Project.rule p\n").unwrap();
        let file = dir.path().join("more.txt");
        std::fs::write(&file, "a.File.rule f\n").unwrap();
        let mut request = in_project(SettingsRequest::command_line(), dir.path());
        // Inline rules given before the file still come after it.
        request
            .set(Source::CommandLine, "ignore", "a.Inline.first i")
            .unwrap();
        request
            .set(Source::CommandLine, "ignore_file", &file)
            .unwrap();
        request
            .set(Source::CommandLine, "ignore", "a.Inline.second i")
            .unwrap();
        let settings = request.resolve().unwrap();
        let built_in = IgnoreRule::built_in();
        assert!(!built_in.is_empty());
        assert_eq!(settings.search.ignore_rules[..built_in.len()], built_in[..]);
        let file_origin = format!("ignore file {}:1", file.display());
        let project_origin = format!(
            "ignore file {}:1",
            dir.path().join(PROJECT_IGNORE_FILE).display()
        );
        assert_eq!(
            user_rules(&settings),
            [
                ("a.Project.rule".to_owned(), project_origin),
                ("a.File.rule".to_owned(), file_origin),
                ("a.Inline.first".to_owned(), "--ignore".to_owned()),
                ("a.Inline.second".to_owned(), "--ignore".to_owned()),
            ]
        );
        assert_eq!(settings.search.ignore_rules.len(), built_in.len() + 4);
    }

    #[test]
    fn switching_off_the_built_in_rules_keeps_the_users() {
        let dir = PrivateTempDir::new("test").unwrap();
        std::fs::write(dir.path().join(PROJECT_IGNORE_FILE), "a.Project.rule p\n").unwrap();
        let mut request = in_project(SettingsRequest::command_line(), dir.path());
        request
            .set(Source::CommandLine, "builtin_ignores", "false")
            .unwrap();
        request
            .set(Source::CommandLine, "ignore", "a.B.c why")
            .unwrap();
        let settings = request.resolve().unwrap();
        let patterns: Vec<&str> = settings
            .search
            .ignore_rules
            .iter()
            .map(|rule| rule.pattern.as_str())
            .collect();
        assert_eq!(patterns, ["a.Project.rule", "a.B.c"]);
    }

    #[test]
    fn the_harness_base_rules_replace_the_built_in_ones() {
        let dir = PrivateTempDir::new("test").unwrap();
        let base = SearchSettings {
            ignore_rules: Vec::new(),
            ..SearchSettings::default()
        };
        let mut request = SettingsRequest::harness(dir.path().to_owned(), base);
        request.set(Source::Harness, "ignore", "a.B.c").unwrap();
        let settings = request.resolve().unwrap();
        assert_eq!(
            user_rules(&settings),
            [("a.B.c".to_owned(), "Harness::ignore_growth".to_owned())]
        );
        assert_eq!(settings.search.ignore_rules.len(), 1);
        assert_eq!(settings.unmatched, WarnUnmatched::Never);
    }

    #[test]
    fn a_bad_inline_rule_is_named_as_its_source_writes_it() {
        let reason = IgnoreRule::parse("*", RuleOrigin::User(String::new())).unwrap_err();
        for (from, expected_prefix, origin) in [
            (Source::CommandLine, r#"--ignore "*""#, "--ignore"),
            (
                Source::Annotation,
                r#"@HeapGrowthTest(ignore = "*")"#,
                "@HeapGrowthTest(ignore)",
            ),
            (
                Source::Harness,
                r#"ignore_growth("*")"#,
                "Harness::ignore_growth",
            ),
        ] {
            let dir = PrivateTempDir::new("test").unwrap();
            let mut request = in_project(SettingsRequest::junit(), dir.path());
            request.set(from, "ignore", "a.Good.rule").unwrap();
            request.set(from, "ignore", "*").unwrap();
            let error = request.clone().resolve().unwrap_err();
            assert_eq!(error.to_string(), format!("{expected_prefix}: {reason}"));
            assert!(matches!(error, SettingError::BadRule { from: f, .. } if f == from));
            // The good rule before it carries the source's origin.
            let mut good = in_project(SettingsRequest::junit(), dir.path());
            good.set(from, "ignore", "a.Good.rule").unwrap();
            let settings = good.resolve().unwrap();
            assert_eq!(
                user_rules(&settings),
                [("a.Good.rule".to_owned(), origin.to_owned())]
            );
        }
    }

    #[test]
    fn an_unusable_ignore_file_is_the_error_before_a_bad_inline_rule() {
        let dir = PrivateTempDir::new("test").unwrap();
        let missing = dir.path().join("missing.txt");
        let mut request = in_project(SettingsRequest::command_line(), dir.path());
        request.set(Source::CommandLine, "ignore", "*").unwrap();
        request
            .set(Source::CommandLine, "ignore_file", &missing)
            .unwrap();
        let error = request.resolve().unwrap_err();
        assert!(matches!(error, SettingError::IgnoreFile(_)), "{error:?}");
        assert!(
            error.to_string().contains(&missing.display().to_string()),
            "{error}"
        );
        // The project's file is read before the files named.
        std::fs::write(dir.path().join(PROJECT_IGNORE_FILE), "*\n").unwrap();
        let mut request = in_project(SettingsRequest::command_line(), dir.path());
        request
            .set(Source::CommandLine, "ignore_file", &missing)
            .unwrap();
        let error = request.resolve().unwrap_err().to_string();
        assert!(error.contains(PROJECT_IGNORE_FILE), "{error}");
        assert!(!error.contains("missing.txt"), "{error}");
    }

    #[test]
    fn system_property_numbers_read_as_the_java_extension_read_them() {
        let warmup = |value: &str| {
            let mut request = SettingsRequest::junit();
            request
                .set(Source::SystemProperty, "warmup", value)
                .map(|()| request.warmup.map(|given| given.value))
        };
        assert_eq!(warmup(" 7 "), Ok(Some(7)));
        assert_eq!(warmup("+7"), Ok(Some(7)));
        assert_eq!(warmup("007"), Ok(Some(7)));
        // Blank, or negative: the default.
        assert_eq!(warmup(""), Ok(None));
        assert_eq!(warmup(" \t\u{2003}"), Ok(None));
        assert_eq!(warmup("-3"), Ok(None));
        // The value is shown as given, untrimmed.
        assert_eq!(
            warmup(" x ").unwrap_err().to_string(),
            "system property heapgrowth.warmup= x  is not a number"
        );
        // A Java int: one more is not a number.
        assert_eq!(warmup("2147483647"), Ok(Some(2147483647)));
        assert_eq!(
            warmup("2147483648").unwrap_err().to_string(),
            "system property heapgrowth.warmup=2147483648 is not a number"
        );
        // A non-breaking space is not blank to Java, nor trimmed.
        assert!(warmup("\u{A0}").is_err());
        let mut request = SettingsRequest::junit();
        assert_eq!(
            request
                .set(Source::SystemProperty, "time_budget", "1.5")
                .unwrap_err()
                .to_string(),
            "system property heapgrowth.timeBudget=1.5 is not a number"
        );
    }

    #[test]
    fn an_attribute_wins_over_its_system_property_which_is_then_not_read() {
        let mut request = SettingsRequest::junit();
        request.set(Source::Annotation, "warmup", "5").unwrap();
        request
            .set(Source::SystemProperty, "warmup", "not read")
            .unwrap();
        // A negative attribute is the attribute's default: the property decides.
        request
            .set(Source::Annotation, "max_snapshots", "-1")
            .unwrap();
        request
            .set(Source::SystemProperty, "max_snapshots", "7")
            .unwrap();
        request
            .set(Source::Annotation, "loops_per_snapshot", "-1")
            .unwrap();
        assert_eq!(
            request
                .set(Source::SystemProperty, "loops_per_snapshot", "x")
                .unwrap_err()
                .to_string(),
            "system property heapgrowth.loopsPerSnapshot=x is not a number"
        );
        // An attribute given after the property still wins.
        request
            .set(Source::SystemProperty, "confirm_loops", "10")
            .unwrap();
        request
            .set(Source::Annotation, "confirm_loops", "20")
            .unwrap();
        request.set(Source::Annotation, "time_budget", "9").unwrap();
        let settings = request.resolve().unwrap().search;
        assert_eq!(settings.warmup, 5);
        assert_eq!(settings.search.max_snapshots, 7);
        assert_eq!(
            settings.search.loops_per_snapshot,
            SearchSettings::default().search.loops_per_snapshot
        );
        assert_eq!(settings.search.confirm_loops, 20);
        assert_eq!(settings.time_budget, Duration::from_secs(9));
    }

    #[test]
    fn set_all_gives_the_values_in_the_tables_order_attributes_first() {
        // As the JUnit extension collects them: system properties in a hash table's order.
        let properties = [
            (Source::SystemProperty, "keep_dumps", "sometimes"),
            (Source::SystemProperty, "max_snapshots", "x"),
            (Source::SystemProperty, "warmup", "not read"),
            (Source::SystemProperty, "loops_per_snapshot", "y"),
        ];
        let attributes = [
            (Source::Annotation, "ignore", "a.First.rule"),
            (Source::Annotation, "warmup", "5"),
            (Source::Annotation, "loops_per_snapshot", "-1"),
            (Source::Annotation, "ignore", "a.Second.rule"),
        ];
        let error = |given: Vec<(Source, &str, &str)>| {
            let mut request = SettingsRequest::junit();
            request.set_all(given).unwrap_err().to_string()
        };
        let mut given: Vec<(Source, &str, &str)> = properties.to_vec();
        given.extend(attributes);
        // The first in the table's order is the error; warmup's attribute leaves its
        // property unread.
        assert_eq!(
            error(given.clone()),
            "system property heapgrowth.loopsPerSnapshot=y is not a number"
        );
        given.retain(|(_, key, _)| *key != "loops_per_snapshot");
        assert_eq!(
            error(given.clone()),
            "system property heapgrowth.maxSnapshots=x is not a number"
        );
        given.retain(|(_, key, _)| *key != "max_snapshots");
        assert_eq!(
            error(given.clone()),
            "system property heapgrowth.keepDumps=sometimes: expected never or failed"
        );
        given.retain(|(_, key, _)| *key != "keep_dumps");
        let dir = PrivateTempDir::new("test").unwrap();
        let mut request = in_project(SettingsRequest::junit(), dir.path());
        request.set_all(given).unwrap();
        let settings = request.resolve().unwrap();
        assert_eq!(settings.search.warmup, 5);
        let origin = "@HeapGrowthTest(ignore)".to_owned();
        assert_eq!(
            user_rules(&settings),
            [
                ("a.First.rule".to_owned(), origin.clone()),
                ("a.Second.rule".to_owned(), origin)
            ]
        );
        // A key the table lacks is an error, after the others.
        let mut request = SettingsRequest::junit();
        let unknown = request.set_all([
            (Source::SystemProperty, "no_such_setting", "1"),
            (Source::SystemProperty, "warmup", "x"),
        ]);
        assert_eq!(
            unknown.unwrap_err().to_string(),
            "system property heapgrowth.warmup=x is not a number"
        );
    }

    #[test]
    fn jfr_is_on_when_the_attribute_or_the_property_says_so() {
        let jfr = |attribute: &str, property: &str| {
            let mut request = SettingsRequest::junit();
            request.set(Source::Annotation, "jfr", attribute).unwrap();
            request
                .set(Source::SystemProperty, "jfr", property)
                .unwrap();
            request.resolve().unwrap().search.jfr
        };
        assert!(jfr("true", "no"));
        assert!(jfr("false", "TRUE"));
        assert!(jfr("false", "tRuE"));
        // `Boolean.getBoolean`: anything but "true" is off, untrimmed.
        assert!(!jfr("false", " true"));
        assert!(!jfr("false", "yes"));
    }

    #[test]
    fn keep_dumps_reads_each_source_as_before() {
        let policy = |from: Source, value: &str| {
            let mut request = SettingsRequest::junit();
            request.keep_dumps_in("dumps".into());
            request
                .set(from, "keep_dumps", value)
                .map_err(|e| e.to_string())?;
            let settings = request.resolve().map_err(|e| e.to_string())?;
            Ok::<_, String>((settings.search.keep_dumps, settings.keep_dumps_dir))
        };
        let kept = |policy| Ok((policy, Some(PathBuf::from("dumps"))));
        let not_kept = Ok((DumpPolicy::Never, None));
        // The system property is trimmed; empty is never; `all` is the command line's.
        assert_eq!(
            policy(Source::SystemProperty, " failed "),
            kept(DumpPolicy::Failed)
        );
        assert_eq!(policy(Source::SystemProperty, " "), not_kept);
        assert_eq!(policy(Source::SystemProperty, "never"), not_kept);
        assert_eq!(
            policy(Source::SystemProperty, " all "),
            Err("system property heapgrowth.keepDumps=all: expected never or failed".into())
        );
        // The environment is not trimmed, and an empty one is an error.
        assert_eq!(
            policy(Source::Environment, "failed"),
            kept(DumpPolicy::Failed)
        );
        assert_eq!(
            policy(Source::Environment, " failed"),
            Err("HEAPGROWTH_KEEP_DUMPS= failed: expected never or failed".into())
        );
        assert_eq!(
            policy(Source::Environment, ""),
            Err("HEAPGROWTH_KEEP_DUMPS=: expected never or failed".into())
        );
        assert_eq!(policy(Source::CommandLine, "all"), kept(DumpPolicy::All));
        assert_eq!(
            policy(Source::CommandLine, "some"),
            Err("--keep-dumps some: expected never, failed or all".into())
        );
        assert_eq!(
            policy(Source::Annotation, "failed"),
            Err("@HeapGrowthTest has no setting \"keep_dumps\"".into())
        );
    }

    #[test]
    fn the_environment_overrides_the_harness_builder_both_ways() {
        let dir = PrivateTempDir::new("test").unwrap();
        let resolve = |builder: &str, env: &str| {
            let mut request =
                SettingsRequest::harness(dir.path().to_owned(), SearchSettings::default());
            request.set(Source::Harness, "keep_dumps", builder).unwrap();
            request.set(Source::Environment, "keep_dumps", env).unwrap();
            // The builder given again after the environment does not undo it.
            request.set(Source::Harness, "keep_dumps", builder).unwrap();
            request.keep_dumps_in(dir.path().join("dumps"));
            let settings = request.resolve().unwrap();
            (
                settings.search.keep_dumps,
                settings.keep_dumps_dir.is_some(),
            )
        };
        assert_eq!(resolve("failed", "never"), (DumpPolicy::Never, false));
        assert_eq!(resolve("never", "failed"), (DumpPolicy::Failed, true));
    }

    #[test]
    fn a_policy_with_nowhere_to_keep_dumps_keeps_what_the_base_keeps() {
        // JUnit's update mode: `heapgrowth.keepDumps=failed` is read (and checked) but no
        // directory is given.
        let mut request = SettingsRequest::junit();
        request
            .set(Source::SystemProperty, "keep_dumps", "failed")
            .unwrap();
        let settings = request.resolve().unwrap();
        assert_eq!(settings.search.keep_dumps, DumpPolicy::Never);
        assert_eq!(settings.keep_dumps_dir, None);
        // And a directory without a policy keeps nothing.
        let mut request = SettingsRequest::command_line();
        request
            .set(Source::CommandLine, "keep_dumps_dir", "kept")
            .unwrap();
        assert_eq!(request.resolve().unwrap().keep_dumps_dir, None);
    }

    #[test]
    fn the_ignore_file_property_is_one_path_as_java_names_it() {
        let mut request = SettingsRequest::junit();
        request
            .set(Source::SystemProperty, "ignore_file", "first.txt")
            .unwrap();
        request
            .set(
                Source::SystemProperty,
                "ignore_file",
                "/no//such/dir//rules.txt/",
            )
            .unwrap();
        assert_eq!(
            request.ignore_files,
            [PathBuf::from("/no/such/dir/rules.txt")]
        );
        let error = request.resolve().unwrap_err().to_string();
        assert!(error.contains("/no/such/dir/rules.txt"), "{error}");
        let mut request = SettingsRequest::junit();
        request
            .set(Source::SystemProperty, "ignore_file", "  ")
            .unwrap();
        assert!(request.ignore_files.is_empty());
    }

    #[test]
    fn a_source_gives_only_the_settings_the_table_gives_it() {
        let mut request = SettingsRequest::junit();
        let refused = [
            (Source::SystemProperty, "ignore"),
            (Source::Annotation, "ignore_file"),
            (Source::Annotation, "keep_dumps"),
            (Source::SystemProperty, "attribution"),
            (Source::CommandLine, "no_such_setting"),
            // In the table, but a front end's own: not the engine's to resolve.
            (Source::SystemProperty, "baseline"),
        ];
        for (from, key) in refused {
            let error = request.set(from, key, "x").unwrap_err();
            assert_eq!(
                error,
                SettingError::NotOffered {
                    from,
                    key: key.into()
                }
            );
        }
    }

    #[test]
    fn command_line_values_become_the_settings() {
        let mut request = SettingsRequest::command_line();
        let from = Source::CommandLine;
        for (key, value) in [
            ("warmup", "11"),
            ("loops_per_snapshot", "12"),
            ("max_snapshots", "13"),
            ("confirm_loops", "4000000000"),
            ("time_budget", "15"),
            ("jfr", "true"),
            ("attribution", "false"),
        ] {
            request.set(from, key, value).unwrap();
        }
        let settings = request.resolve().unwrap();
        let search = &settings.search;
        assert_eq!(
            (
                search.warmup,
                search.search.loops_per_snapshot,
                search.search.max_snapshots,
                search.search.confirm_loops
            ),
            (11, 12, 13, 4_000_000_000)
        );
        assert_eq!(search.time_budget, Duration::from_secs(15));
        assert!(search.jfr && !settings.attribution);
        assert_eq!(settings.unmatched, WarnUnmatched::All);
        let mut request = SettingsRequest::command_line();
        assert_eq!(
            request.set(from, "jfr", "yes").unwrap_err().to_string(),
            "--jfr yes: expected true or false"
        );
    }

    #[test]
    fn each_front_end_warns_about_its_own_unmatched_rules() {
        let user = |pattern: &str, origin: &str| IgnoreRule {
            pattern: pattern.into(),
            reason: String::new(),
            origin: RuleOrigin::User(origin.into()),
        };
        let report = ScenarioReport {
            result: Ok(SearchOutcome {
                unmatched_rules: vec![
                    user("a.Annotation.rule", "@HeapGrowthTest(ignore)"),
                    user("a.File.rule", "ignore file rules.txt:1"),
                    user("a.Flag.rule", "--ignore"),
                ],
                ..SearchOutcome::default()
            }),
            ..ScenarioReport::failed("Scenario", String::new())
        };
        let reports = std::slice::from_ref(&report);
        let warned = |unmatched: WarnUnmatched| -> Vec<String> {
            unmatched
                .warnings(reports)
                .iter()
                .map(|warning| warning.split('\'').nth(1).unwrap_or_default().to_owned())
                .collect()
        };
        assert_eq!(
            warned(WarnUnmatched::All),
            ["a.Annotation.rule", "a.File.rule", "a.Flag.rule"]
        );
        assert_eq!(
            warned(WarnUnmatched::InlineOnly),
            ["a.Annotation.rule", "a.Flag.rule"]
        );
        assert!(warned(WarnUnmatched::Never).is_empty());
        assert_eq!(
            WarnUnmatched::All.warnings(reports)[1],
            unmatched_rule_warning(&user("a.File.rule", "ignore file rules.txt:1"))
        );
        // Which each front end gets.
        assert_eq!(
            SettingsRequest::junit().unmatched(),
            WarnUnmatched::InlineOnly
        );
        assert_eq!(
            SettingsRequest::command_line().unmatched(),
            WarnUnmatched::All
        );
    }

    #[test]
    fn choices_are_listed_as_a_sentence() {
        assert_eq!(one_of(&["never", "failed"]), "never or failed");
        assert_eq!(one_of(&["never", "failed", "all"]), "never, failed or all");
    }
}
