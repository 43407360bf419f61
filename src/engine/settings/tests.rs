//! The settings table against the front ends and the docs: each front end offers each setting
//! under the table's name (or the table says why not), with the table's default, and the docs
//! list them all. The front ends' sources in Java are read as text.

use std::collections::BTreeMap;
use std::path::Path;

use clap::ArgAction;

use super::table::{
    render_markdown, setting, setting_named, DefaultValue, FrontEnd, Kind, Setting, SETTINGS,
};
use crate::engine::{DumpPolicy, SearchSettings, DEFAULT_TIME_BUDGET};
use crate::growth::{
    IgnoreRule, SearchConfig, DEFAULT_CONFIRM_LOOPS, DEFAULT_LOOPS_PER_SNAPSHOT,
    DEFAULT_MAX_SNAPSHOTS, DEFAULT_WARMUP_LOOPS,
};
use crate::harness::{Harness, KeepDumps, KEEP_DUMPS_ENV};

/// A file of the repository, as text.
fn source(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const ANNOTATION: &str = "jvm-glue/src/junit/java/dev/heapgrowth/junit/HeapGrowthTest.java";
const EXTENSION: &str = "jvm-glue/src/junit/java/dev/heapgrowth/junit/HeapGrowthExtension.java";
const GRADLE_SETTINGS: &str =
    "gradle-plugin/src/main/java/dev/heapgrowth/gradle/HeapGrowthSettings.java";
const GRADLE_ARGUMENTS: &str =
    "gradle-plugin/src/main/java/dev/heapgrowth/gradle/TestJvmArguments.java";
const MAVEN_MOJO: &str = "maven-plugin/src/main/java/dev/heapgrowth/maven/PrepareAgentMojo.java";
const REFERENCE: &str = "docs/reference.md";
const JUNIT_DOC: &str = "docs/junit.md";

/// Settings of the Java side that are not the table's: read before the engine loads
/// (`heapgrowth.skip`), or the Maven plugin's own (`propertyName`: which property it fills).
const NOT_ENGINE_SETTINGS: &[&str] = &["skip", "propertyName"];

/// Each setting is offered by each front end under a name, or the table says why not; never
/// both, never neither.
#[test]
fn every_setting_names_each_front_end_or_says_why_not() {
    let mut wrong = Vec::new();
    for setting in SETTINGS {
        for front_end in FrontEnd::ALL {
            match (setting.name_in(front_end), setting.why_not_in(front_end)) {
                (Some(_), None) => {}
                (None, Some(why)) if !why.is_empty() => {}
                (name, why) => wrong.push(format!(
                    "{} in {front_end:?}: name {name:?}, not_in {why:?}",
                    setting.key
                )),
            }
        }
        let keys = SETTINGS.iter().filter(|s| s.key == setting.key).count();
        if keys != 1 {
            wrong.push(format!("{} is {keys} rows", setting.key));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_front_end_exposes_every_setting() {
    let mut wrong = Vec::new();
    cli_flags(&mut wrong);
    annotation_attributes(&mut wrong);
    system_properties(&mut wrong);
    gradle_properties(&mut wrong);
    maven_parameters(&mut wrong);
    harness_methods(&mut wrong);
    assert!(
        wrong.is_empty(),
        "the front ends and src/engine/settings/table.rs differ:\n{}",
        wrong.join("\n")
    );
}

/// `heapgrowth run` has each flag, with the table's default; the ignore flags are on `diff`
/// and `watch` too, and so is `--no-attribution` on `watch`.
fn cli_flags(wrong: &mut Vec<String>) {
    let mut command = crate::frontends::cli::command();
    // Built as parsing builds it: a flag gets its implicit default then.
    command.build();
    let subcommand = |name: &str| {
        command
            .find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand {name}"))
    };
    for setting in SETTINGS {
        let Some(flag) = setting.cli else { continue };
        let mut commands = vec!["run"];
        if ["ignore", "ignore_file", "builtin_ignores"].contains(&setting.key) {
            commands.extend(["diff", "watch"]);
        }
        if setting.key == "attribution" {
            commands.push("watch");
        }
        for name in commands {
            let long = flag.trim_start_matches("--");
            let Some(arg) = subcommand(name)
                .get_arguments()
                .find(|arg| arg.get_long() == Some(long))
            else {
                wrong.push(format!("heapgrowth {name} has no {flag} ({})", setting.key));
                continue;
            };
            if let Some(problem) = cli_default_problem(setting, flag, arg) {
                wrong.push(format!("heapgrowth {name} {flag}: {problem}"));
            }
        }
    }
}

/// What is wrong with `arg`'s default and values, as the table states them.
fn cli_default_problem(setting: &Setting, flag: &str, arg: &clap::Arg) -> Option<String> {
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    let expected: Vec<String> = match (setting.kind, setting.default) {
        // A switch is a flag that turns the default around: `--no-x` for one that is on.
        (Kind::Switch, DefaultValue::Switch(on)) => {
            if !matches!(arg.get_action(), ArgAction::SetTrue) {
                return Some("is not a flag".into());
            }
            if flag.starts_with("--no-") != on {
                return Some(format!("does not turn the default ({on}) around"));
            }
            vec!["false".into()]
        }
        (Kind::Rule | Kind::Paths, DefaultValue::Unset) => {
            if !matches!(arg.get_action(), ArgAction::Append) {
                return Some("is not repeatable".into());
            }
            Vec::new()
        }
        (Kind::Choice(words), default) => {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .map(|value| value.get_name().to_owned())
                .collect();
            if values != words {
                return Some(format!("takes {values:?}, the table says {words:?}"));
            }
            vec![default.render()]
        }
        (_, DefaultValue::Unset) => Vec::new(),
        (_, default) => vec![default.render()],
    };
    (defaults != expected).then(|| format!("default {defaults:?}, the table says {expected:?}"))
}

/// `HeapGrowthTest.java` declares each attribute, of the kind's Java type; and every attribute
/// it declares is in the table.
fn annotation_attributes(wrong: &mut Vec<String>) {
    let text = source(ANNOTATION);
    // `int warmup() default -1;` -> ("warmup", "int")
    let declared: BTreeMap<String, String> = text
        .lines()
        .filter_map(|line| {
            let (declaration, _) = line.trim().split_once("() default ")?;
            let (java_type, name) = declaration.rsplit_once(' ')?;
            Some((name.to_owned(), java_type.to_owned()))
        })
        .collect();
    for setting in SETTINGS {
        let Some(name) = setting.annotation else {
            continue;
        };
        let java_type = match setting.kind {
            Kind::Count { .. } | Kind::Seconds { .. } => "int",
            Kind::Switch => "boolean",
            Kind::Rule | Kind::Paths => "String[]",
            Kind::Path | Kind::Choice(_) => "String",
        };
        match declared.get(name) {
            Some(declared_type) if declared_type == java_type => {}
            other => wrong.push(format!(
                "{ANNOTATION}: {} is `{other:?} {name}()`, expected `{java_type} {name}()`",
                setting.key
            )),
        }
    }
    for name in declared.keys() {
        if !SETTINGS.iter().any(|s| s.annotation == Some(name)) {
            wrong.push(format!(
                "{ANNOTATION}: attribute {name} is not in the table"
            ));
        }
    }
    if declared.is_empty() {
        wrong.push(format!("{ANNOTATION}: no attribute found"));
    }
}

/// The extension passes every `heapgrowth.` system property to the engine without reading it
/// (the JUnit front end's tests check that it reads each of the table's).
fn system_properties(wrong: &mut Vec<String>) {
    if !source(EXTENSION).contains("property.startsWith(\"heapgrowth.\")") {
        wrong.push(format!(
            "{EXTENSION} does not pass every heapgrowth. system property"
        ));
    }
}

/// `heapGrowth { }` has each property (a getter of `HeapGrowthSettings`), passed to the test
/// JVM as the table's system property; and every property it has is in the table.
fn gradle_properties(wrong: &mut Vec<String>) {
    let settings = source(GRADLE_SETTINGS);
    let passed = settings.clone() + &source(GRADLE_ARGUMENTS);
    // `public Property<Integer> getWarmup() {` -> "warmup"
    let getters: Vec<String> = settings
        .lines()
        .filter_map(|line| {
            let line = line.trim().strip_prefix("public ")?;
            let (_, getter) = line.split_once(" get")?;
            let (name, _) = getter.split_once("()")?;
            let mut chars = name.chars();
            let first = chars.next()?;
            Some(first.to_lowercase().chain(chars).collect())
        })
        .collect();
    for setting in SETTINGS {
        let Some(name) = setting.gradle else { continue };
        if !getters.iter().any(|getter| getter == name) {
            wrong.push(format!("{GRADLE_SETTINGS} has no property {name}"));
        }
        let Some(property) = setting.property else {
            wrong.push(format!(
                "{}: Gradle {name} but no system property",
                setting.key
            ));
            continue;
        };
        if !passed.contains(&format!("{property}\"")) && !passed.contains(&format!("{property}=")) {
            wrong.push(format!("the Gradle plugin does not pass {property}"));
        }
    }
    for getter in &getters {
        let known = SETTINGS.iter().any(|s| s.gradle == Some(getter.as_str()));
        if !known && !NOT_ENGINE_SETTINGS.contains(&getter.as_str()) {
            wrong.push(format!(
                "{GRADLE_SETTINGS}: property {getter} is not in the table"
            ));
        }
    }
    if getters.is_empty() {
        wrong.push(format!("{GRADLE_SETTINGS}: no property found"));
    }
}

/// `prepare-agent` has each parameter, as the table's system property; and every `heapgrowth.`
/// parameter it has is in the table.
fn maven_parameters(wrong: &mut Vec<String>) {
    let text = source(MAVEN_MOJO);
    // `@Parameter(property = "heapgrowth.warmup")` then `private Integer warmup;`
    let mut parameters: BTreeMap<String, String> = BTreeMap::new();
    let mut property: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("@Parameter(property = \"") {
            property = rest.split_once('"').map(|(name, _)| name.to_owned());
        } else if let (Some(field), Some(name)) = (line.strip_prefix("private "), &property) {
            if let Some(declaration) = field.strip_suffix(';') {
                let field_name = declaration.rsplit(' ').next().unwrap_or_default();
                parameters.insert(field_name.to_owned(), name.clone());
            }
            property = None;
        }
    }
    for setting in SETTINGS {
        let Some(name) = setting.maven else { continue };
        match parameters.get(name) {
            Some(given) if Some(given.as_str()) == setting.property => {}
            other => wrong.push(format!(
                "{MAVEN_MOJO}: <{name}> is the property {other:?}, the table says {:?}",
                setting.property
            )),
        }
    }
    for name in parameters.keys() {
        let known = SETTINGS.iter().any(|s| s.maven == Some(name.as_str()));
        if !known && !NOT_ENGINE_SETTINGS.contains(&name.as_str()) {
            wrong.push(format!("{MAVEN_MOJO}: <{name}> is not in the table"));
        }
    }
}

/// One call of a method of the harness's builder.
type BuilderCall = dyn Fn(Harness) -> Harness;

/// The harness's builder has each method: each is called here, so a method that is gone fails
/// the build of the tests; the names must be the table's.
fn harness_methods(wrong: &mut Vec<String>) {
    let search =
        |settings: SearchSettings| move |harness: Harness| harness.settings(settings.clone());
    let config = |config: SearchConfig| SearchSettings {
        search: config,
        ..SearchSettings::default()
    };
    let calls: Vec<(&str, Box<BuilderCall>)> = vec![
        (
            "settings(SearchSettings { warmup })",
            Box::new(search(SearchSettings {
                warmup: 1,
                ..SearchSettings::default()
            })),
        ),
        (
            "settings(SearchSettings { search: SearchConfig { loops_per_snapshot } })",
            Box::new(search(config(SearchConfig {
                loops_per_snapshot: 1,
                ..SearchConfig::default()
            }))),
        ),
        (
            "settings(SearchSettings { search: SearchConfig { max_snapshots } })",
            Box::new(search(config(SearchConfig {
                max_snapshots: 2,
                ..SearchConfig::default()
            }))),
        ),
        (
            "settings(SearchSettings { search: SearchConfig { confirm_loops } })",
            Box::new(search(config(SearchConfig {
                confirm_loops: 1,
                ..SearchConfig::default()
            }))),
        ),
        (
            "settings(SearchSettings { time_budget })",
            Box::new(search(SearchSettings {
                time_budget: DEFAULT_TIME_BUDGET,
                ..SearchSettings::default()
            })),
        ),
        (
            "settings(SearchSettings { jfr })",
            Box::new(search(SearchSettings {
                jfr: true,
                ..SearchSettings::default()
            })),
        ),
        (
            "settings(SearchSettings { ignore_rules })",
            Box::new(search(SearchSettings {
                ignore_rules: Vec::new(),
                ..SearchSettings::default()
            })),
        ),
        (
            "ignore_growth",
            Box::new(|h: Harness| h.ignore_growth("a.B.c")),
        ),
        (
            "ignore_file",
            Box::new(|h: Harness| h.ignore_file("rules.txt")),
        ),
        (
            "keep_dumps",
            Box::new(|h: Harness| h.keep_dumps(KeepDumps::Failed)),
        ),
    ];
    for (name, call) in &calls {
        let _configured = call(Harness::new());
        if !SETTINGS.iter().any(|s| s.harness == Some(name)) {
            wrong.push(format!("Harness::{name} is not in the table"));
        }
    }
    for setting in SETTINGS {
        let Some(name) = setting.harness else {
            continue;
        };
        if !calls.iter().any(|(called, _)| *called == name) {
            wrong.push(format!("the table's Harness::{name} is not called here"));
        }
    }
    let env = setting("keep_dumps").and_then(|s| s.env);
    if env != Some(KEEP_DUMPS_ENV) {
        wrong.push(format!(
            "keep_dumps: env {env:?}, the harness reads {KEEP_DUMPS_ENV}"
        ));
    }
}

/// The defaults that are not read from a constant in the table are checked against the code;
/// the counts' bounds against [`SearchSettings::validate`].
#[test]
fn defaults_and_bounds_are_the_codes() {
    let defaults = SearchSettings::default();
    let number = |key: &str| match setting(key).map(|s| s.default) {
        Some(DefaultValue::Number(number)) => number,
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(number("warmup"), u64::from(DEFAULT_WARMUP_LOOPS));
    assert_eq!(number("warmup"), u64::from(defaults.warmup));
    assert_eq!(
        number("loops_per_snapshot"),
        u64::from(DEFAULT_LOOPS_PER_SNAPSHOT)
    );
    assert_eq!(
        number("loops_per_snapshot"),
        u64::from(defaults.search.loops_per_snapshot)
    );
    assert_eq!(number("max_snapshots"), u64::from(DEFAULT_MAX_SNAPSHOTS));
    assert_eq!(
        number("max_snapshots"),
        u64::from(defaults.search.max_snapshots)
    );
    assert_eq!(number("confirm_loops"), u64::from(DEFAULT_CONFIRM_LOOPS));
    assert_eq!(
        number("confirm_loops"),
        u64::from(defaults.search.confirm_loops)
    );
    assert_eq!(number("time_budget"), defaults.time_budget.as_secs());
    let switch = |key: &str| setting(key).map(|s| s.default);
    assert_eq!(switch("jfr"), Some(DefaultValue::Switch(defaults.jfr)));
    assert_eq!(
        switch("builtin_ignores"),
        Some(DefaultValue::Switch(
            defaults.ignore_rules == IgnoreRule::built_in()
        ))
    );
    assert_eq!(
        switch("keep_dumps"),
        Some(DefaultValue::Text(DumpPolicy::default().name()))
    );
    let names: Vec<&str> = DumpPolicy::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(
        setting("keep_dumps").map(|s| s.kind),
        Some(Kind::Choice(&["never", "failed", "all"]))
    );
    assert_eq!(names, ["never", "failed", "all"]);

    // Each count's bounds are what validation takes: the bound passes, one past it fails.
    let with = |key: &str, value: u32| {
        let mut settings = SearchSettings::default();
        match key {
            "warmup" => settings.warmup = value,
            "loops_per_snapshot" => settings.search.loops_per_snapshot = value,
            "max_snapshots" => settings.search.max_snapshots = value,
            "confirm_loops" => settings.search.confirm_loops = value,
            _ => panic!("a count the test does not know: {key}"),
        }
        settings.validate().is_ok()
    };
    for setting in SETTINGS {
        match setting.kind {
            Kind::Count { min, max } => {
                assert!(
                    with(setting.key, min) && with(setting.key, max),
                    "{}",
                    setting.key
                );
                assert!(!with(setting.key, max + 1), "{} above {max}", setting.key);
                if min > 0 {
                    assert!(!with(setting.key, min - 1), "{} below {min}", setting.key);
                }
            }
            Kind::Seconds { min } if setting.key == "time_budget" => {
                let budget = |seconds| SearchSettings {
                    time_budget: std::time::Duration::from_secs(seconds),
                    ..SearchSettings::default()
                };
                assert!(budget(min).validate().is_ok() && budget(min - 1).validate().is_err());
            }
            _ => {}
        }
    }
}

/// A value validation refuses is named as the user gave it: the flag on the command line, the
/// system property and the attribute to a JUnit user, the builder's field to a cargo user.
#[test]
fn an_invalid_value_is_named_as_each_front_end_spells_it() {
    let settings = SearchSettings {
        search: SearchConfig {
            max_snapshots: 1,
            ..Default::default()
        },
        ..SearchSettings::default()
    };
    let error = settings.validate().unwrap_err();
    assert_eq!(error.key, "max_snapshots");
    assert!(
        error
            .to_string()
            .starts_with("--max-snapshots must be between 2 and "),
        "{error}"
    );
    let junit = error.message_in(&[FrontEnd::JUnitProperty, FrontEnd::JUnitAnnotation]);
    assert!(
        junit.starts_with("heapgrowth.maxSnapshots (maxSnapshots) must be between 2 and "),
        "{junit}"
    );
    assert!(!junit.contains("--"), "{junit}");
    let harness = error.message_in(&[FrontEnd::Harness]);
    assert!(
        harness.starts_with(
            "settings(SearchSettings { search: SearchConfig { max_snapshots } }) must be"
        ),
        "{harness}"
    );
    // Every refusal names a setting of the table, in every front end that offers it.
    let refusals = [
        SearchSettings {
            warmup: u32::MAX,
            ..SearchSettings::default()
        },
        SearchSettings {
            time_budget: std::time::Duration::ZERO,
            ..SearchSettings::default()
        },
        settings,
    ];
    for refused in refusals {
        let error = refused.validate().unwrap_err();
        let setting = setting(error.key).expect("a key of the table");
        for front_end in FrontEnd::ALL {
            if let Some(name) = setting.name_in(front_end) {
                assert!(
                    error.message_in(&[front_end]).starts_with(name),
                    "{error:?}"
                );
            }
        }
    }
}

const START: &str = "<!-- settings:start -->\n";
const END: &str = "<!-- settings:end -->";
/// Set to rewrite the block of `docs/reference.md` from the table.
const WRITE_DOC: &str = "HEAPGROWTH_WRITE_SETTINGS_DOC";

#[test]
fn docs_list_every_setting() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCE);
    let text = source(REFERENCE);
    let (Some(start), Some(end)) = (text.find(START), text.find(END)) else {
        panic!("{REFERENCE} has no {START:?} ... {END:?} block");
    };
    let block_start = start + START.len();
    let rendered = format!("\n{}\n", render_markdown());
    if std::env::var_os(WRITE_DOC).is_some() {
        let rewritten = format!("{}{rendered}{}", &text[..block_start], &text[end..]);
        std::fs::write(&path, rewritten).unwrap();
    } else {
        assert!(
            text[block_start..end] == rendered,
            "{REFERENCE}'s settings table is not src/engine/settings/table.rs's: rewrite it \
             with `{WRITE_DOC}=1 cargo test --lib docs_list_every_setting`, then review the \
             diff.\nexpected:\n{rendered}"
        );
    }
    let junit = source(JUNIT_DOC);
    // `heapgrowth.jfr` or `heapgrowth.jfr=true`.
    let missing: Vec<&str> = SETTINGS
        .iter()
        .filter_map(|s| s.property)
        .filter(|property| !junit.contains(&format!("`{property}")))
        .collect();
    assert!(missing.is_empty(), "{JUNIT_DOC} does not name {missing:?}");
    let attributes: Vec<&str> = SETTINGS
        .iter()
        .filter_map(|s| s.annotation)
        .filter(|attribute| !junit.contains(&format!("`{attribute}`")))
        .collect();
    assert!(
        attributes.is_empty(),
        "{JUNIT_DOC} does not name the attributes {attributes:?}"
    );
}

#[test]
fn a_front_end_name_finds_its_setting() {
    let key = |front_end, name| setting_named(front_end, name).map(|s| s.key);
    assert_eq!(
        key(FrontEnd::JUnitProperty, "heapgrowth.timeBudget"),
        Some("time_budget")
    );
    assert_eq!(
        key(FrontEnd::JUnitAnnotation, "timeBudgetSeconds"),
        Some("time_budget")
    );
    assert_eq!(
        key(FrontEnd::Cli, "--no-builtin-ignores"),
        Some("builtin_ignores")
    );
    assert_eq!(key(FrontEnd::Maven, "keepDumps"), Some("keep_dumps"));
    // A name of another front end, or of none.
    assert_eq!(key(FrontEnd::JUnitAnnotation, "heapgrowth.warmup"), None);
    assert_eq!(key(FrontEnd::JUnitProperty, "heapgrowth.skip"), None);
}
