//! Ignore rules: growth a user (or heapgrowth itself, for the JDK and common libraries) knows
//! about and accepts.
//!
//! A rule is a pattern and a reason. The pattern is matched against the location of each step
//! of a node's path, `Owner.name`, with the owner fully qualified or without its package
//! (`com.example.Cache.entries` or `Cache.entries`; `java.util.HashMap.[x]`;
//! `java.util.TimerThread.mainLoop` for a stack local), and for a root group against
//! `GcRoot(Kind)` and the group as the report shows it (`GcRoot(ThreadObject "worker-*")`).
//! `*` matches any run of characters, `?` one character. A node is ignored when any step of its
//! path matches, so a rule covers everything below the step it names. Rules name locations, not
//! classes: a rule for a class of objects would also hide a leak of them through any other
//! path. Ignored growth is never dropped silently: the report lists it with the reason.
//!
//! One syntax everywhere (command line, ignore file, annotation): the pattern, then
//! optionally whitespace and the reason.

/// Why a rule exists: a rule of heapgrowth's own, or the user's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOrigin {
    /// Growth inside the JDK that levels off, listed in [`KNOWN_JDK_GROWTH`].
    KnownJdkGrowth,
    /// Growth inside a common library that levels off, listed in [`KNOWN_LIBRARY_GROWTH`].
    KnownLibraryGrowth,
    /// A rule the user gave; the string says where (`--ignore`, `ignore file x.txt:3`).
    User(String),
}

/// One ignore rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreRule {
    /// The glob matched against each step (see the module docs).
    pub pattern: String,
    /// Why the growth is accepted, as the report shows it.
    pub reason: String,
    /// Where the rule comes from.
    pub origin: RuleOrigin,
}

/// Growth inside the JDK itself that happens while a JVM warms up and then stops, seen under
/// test runners (Surefire, Gradle) in the first hundred loops or so of a test: caches the JDK
/// fills once per distinct method type, lambda shape or reflective call. None of it is code a
/// user can change; all of it levels off. Each entry: pattern, reason. They match fields and
/// root groups, never a stack frame's locals (`LOCAL` steps): a JDK frame such as
/// `LambdaForm$MH.invoke` holds what it was called with, the user's objects.
pub const KNOWN_JDK_GROWTH: &[(&str, &str)] = &[
    (
        "java.lang.invoke.MethodType.internTable",
        "JDK: the MethodType intern table gains an entry per method type the JVM links",
    ),
    (
        "java.lang.invoke.LambdaForm*",
        "JDK: lambda forms are compiled and cached as call sites are linked",
    ),
    (
        "java.lang.invoke.MethodTypeForm*",
        "JDK: cached lambda forms of each method type",
    ),
    (
        "java.lang.invoke.ClassSpecializer*",
        "JDK: method handle species are generated once per shape",
    ),
    (
        "java.lang.invoke.DirectMethodHandle*",
        "JDK: direct method handle caches fill as methods are linked",
    ),
    (
        "java.lang.invoke.Invokers*",
        "JDK: invoker caches fill as method types are linked",
    ),
    (
        "jdk.internal.reflect.*",
        "JDK: reflection generates accessors for methods called often",
    ),
    (
        "java.lang.ThreadGroup.threads",
        "JDK: a thread group lists its threads (threads that grow are reported as their own root group)",
    ),
];

/// Growth inside common libraries that is bounded by the library itself, at a bound larger than
/// a run's confirmation reaches (1000 loops by default), so that heapgrowth would report it as
/// growing: seen under tests of ordinary code that uses the library. The bound is the library's,
/// not a setting of the user's (a cache the user sizes is the user's to accept). Each entry:
/// pattern, reason. Like [`KNOWN_JDK_GROWTH`] they never match a stack frame's locals, and they
/// name only the library's own internals, below which no object of the user's is kept.
pub const KNOWN_LIBRARY_GROWTH: &[(&str, &str)] = &[
    (
        "com.fasterxml.jackson.core.sym.*",
        "Jackson 2 keeps each distinct field name it parses in its JsonFactory's symbol tables, \
         up to 12,000 (6,000 read from bytes), then starts over: JSON keyed by ids fills them \
         unless JsonFactory.Feature.CANONICALIZE_FIELD_NAMES is off",
    ),
    (
        "tools.jackson.core.sym.*",
        "Jackson 3 keeps each distinct property name it parses in its JsonFactory's symbol \
         tables, up to 12,000 (6,000 read from bytes), then starts over: JSON keyed by ids fills \
         them unless TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES is off",
    ),
];

impl RuleOrigin {
    /// Whether the rule is one of heapgrowth's own ([`IgnoreRule::built_in`]).
    pub fn is_built_in(&self) -> bool {
        !matches!(self, RuleOrigin::User(_))
    }

    /// As reports name it: `known JDK growth`, `known library growth`, or where the user gave
    /// the rule (`--ignore`, `ignore file FILE:LINE`).
    pub fn label(&self) -> &str {
        match self {
            RuleOrigin::KnownJdkGrowth => "known JDK growth",
            RuleOrigin::KnownLibraryGrowth => "known library growth",
            RuleOrigin::User(place) => place,
        }
    }
}

impl IgnoreRule {
    /// Parses `PATTERN [REASON]`: the pattern up to the first whitespace, the rest (trimmed)
    /// the reason; without one, the reason says where the rule came from.
    pub fn parse(text: &str, origin: RuleOrigin) -> Result<IgnoreRule, String> {
        let text = text.trim();
        // A root group as the report names it has a space in it: `GcRoot(ThreadObject "w-*")`.
        let pattern_end = match text.strip_prefix("GcRoot(") {
            Some(rest) => rest.find(')').map(|end| "GcRoot(".len() + end + 1),
            None => text.find(char::is_whitespace),
        }
        .unwrap_or(text.len());
        let (pattern, reason) = (&text[..pattern_end], text[pattern_end..].trim());
        if pattern.is_empty() {
            return Err("an ignore rule needs a pattern".into());
        }
        if pattern.chars().all(|c| matches!(c, '*' | '?' | '.')) {
            return Err(format!(
                "the ignore pattern '{pattern}' matches every path; name a class and field \
                 (com.example.Cache.entries, com.example.Cache.*)"
            ));
        }
        let reason = if reason.is_empty() {
            match &origin {
                RuleOrigin::User(place) => format!("ignored by {place}"),
                built_in => built_in.label().to_owned(),
            }
        } else {
            reason.to_owned()
        };
        Ok(IgnoreRule {
            pattern: pattern.to_owned(),
            reason,
            origin,
        })
    }

    /// The rules of an ignore file: one rule per line, `#` starts a comment line, blank lines
    /// are skipped. Errors name the line.
    pub fn parse_file(text: &str, file: &str) -> Result<Vec<IgnoreRule>, String> {
        text.lines()
            .enumerate()
            .filter(|(_, line)| {
                let line = line.trim();
                !line.is_empty() && !line.starts_with('#')
            })
            .map(|(number, line)| {
                let place = format!("{file}:{}", number + 1);
                IgnoreRule::parse(line, RuleOrigin::User(format!("ignore file {place}")))
                    .map_err(|error| format!("{place}: {error}"))
            })
            .collect()
    }

    /// The built-in rules: known JDK growth, then known library growth.
    pub fn built_in() -> Vec<IgnoreRule> {
        let rules = |list: &[(&str, &str)], origin: RuleOrigin| {
            list.iter()
                .map(|&(pattern, reason)| IgnoreRule {
                    pattern: pattern.to_owned(),
                    reason: reason.to_owned(),
                    origin: origin.clone(),
                })
                .collect::<Vec<_>>()
        };
        let mut built_in = rules(KNOWN_JDK_GROWTH, RuleOrigin::KnownJdkGrowth);
        built_in.extend(rules(KNOWN_LIBRARY_GROWTH, RuleOrigin::KnownLibraryGrowth));
        built_in
    }

    /// Whether the step at `owner.name` matches, the owner fully qualified or without its
    /// package.
    pub fn matches_location(&self, owner: &str, name: &str) -> bool {
        let simple_owner = owner.rsplit_once('.').map_or(owner, |(_, simple)| simple);
        [owner, simple_owner].iter().any(|owner| {
            glob(
                self.pattern.as_bytes(),
                &Joined([owner.as_bytes(), b".", name.as_bytes(), b"", b""]),
            )
        })
    }

    /// Whether the root group of `kind` (`ThreadObject`) matches, with the `label` that tells
    /// groups of one kind apart (a thread name pattern) if it has one.
    pub fn matches_root(&self, kind: &str, label: &str) -> bool {
        let pattern = self.pattern.as_bytes();
        let kind = kind.as_bytes();
        glob(pattern, &Joined([b"GcRoot(", kind, b")", b"", b""]))
            || (!label.is_empty()
                && glob(
                    pattern,
                    &Joined([b"GcRoot(", kind, b" \"", label.as_bytes(), b"\")"]),
                ))
    }
}

/// Text in parts, matched as if joined: rules are matched against every new step of every
/// snapshot, and a string built for each match was a fifth of a small heap's analysis.
struct Joined<'a>([&'a [u8]; 5]);

impl Joined<'_> {
    fn len(&self) -> usize {
        self.0.iter().map(|part| part.len()).sum()
    }

    fn at(&self, mut index: usize) -> u8 {
        for part in &self.0 {
            if index < part.len() {
                return part[index];
            }
            index -= part.len();
        }
        unreachable!("index within len()")
    }
}

/// `*` and `?` glob matching, linear in practice: on a mismatch after a `*`, the star takes
/// one more character (the classic two-pointer algorithm, no backtracking explosion).
fn glob(pattern: &[u8], text: &Joined) -> bool {
    let (mut p, mut t) = (0, 0);
    let len = text.len();
    let mut star: Option<(usize, usize)> = None;
    while t < len {
        // The star first: a `*` in the pattern is a wildcard even where the text has one.
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text.at(t)) {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> IgnoreRule {
        IgnoreRule::parse(text, RuleOrigin::User("--ignore".into())).unwrap()
    }

    #[test]
    fn a_rule_is_a_pattern_then_a_reason() {
        let rule = user("com.example.Cache.entries   warms up for 500 loops");
        assert_eq!(rule.pattern, "com.example.Cache.entries");
        assert_eq!(rule.reason, "warms up for 500 loops");
        assert_eq!(user("com.example.Cache.*").reason, "ignored by --ignore");
    }

    #[test]
    fn rules_that_match_everything_or_nothing_are_refused() {
        assert!(IgnoreRule::parse("  ", RuleOrigin::KnownJdkGrowth).is_err());
        let error = IgnoreRule::parse("** all", RuleOrigin::KnownJdkGrowth).unwrap_err();
        assert!(error.contains("'**' matches every path"), "{error}");
        assert!(IgnoreRule::parse("*.*", RuleOrigin::KnownJdkGrowth).is_err());
        assert!(IgnoreRule::parse("?.?", RuleOrigin::KnownJdkGrowth).is_err());
    }

    #[test]
    fn patterns_match_locations_with_or_without_the_package() {
        let rule = user("java.lang.invoke.MethodType.internTable");
        assert!(rule.matches_location("java.lang.invoke.MethodType", "internTable"));
        assert!(!rule.matches_location("java.lang.invoke.MethodType", "internTables"));
        let simple = user("Cart.AUDIT_TRAIL");
        assert!(simple.matches_location("com.example.cart.Cart", "AUDIT_TRAIL"));
        assert!(simple.matches_location("Cart", "AUDIT_TRAIL"));
        assert!(!simple.matches_location("com.example.cart.ShoppingCart", "AUDIT_TRAIL"));
        assert!(user("Outer$Inner.*").matches_location("com.example.Outer$Inner", "items"));
        assert!(user("?ava.util.HashMap.[x]").matches_location("java.util.HashMap", "[x]"));
    }

    #[test]
    fn patterns_name_locations_not_the_class_of_what_is_held() {
        // A rule for a class of objects would hide the same objects leaking anywhere else.
        let classes = user("com.example.*Session");
        assert!(!classes.matches_location("java.util.HashMap", "[x]"));
        assert!(!classes.matches_location("com.example.UserSession", "attributes"));
        assert!(user("com.example.*Session.*")
            .matches_location("com.example.UserSession", "attributes"));
    }

    #[test]
    fn root_groups_match_by_kind_or_as_the_report_names_them() {
        assert!(user("GcRoot(ThreadObject)").matches_root("ThreadObject", "worker-*"));
        assert!(user("GcRoot(ThreadObject \"worker-*\")").matches_root("ThreadObject", "worker-*"));
        assert!(user("GcRoot(ThreadObject*worker-*)").matches_root("ThreadObject", "worker-*"));
        assert!(!user("GcRoot(ThreadObject \"pool-*\")").matches_root("ThreadObject", "worker-*"));
        assert!(!user("GcRoot(Class)").matches_root("ThreadObject", ""));
        let with_reason = user("GcRoot(ThreadObject \"worker-*\")  one per request, by design");
        assert_eq!(with_reason.pattern, "GcRoot(ThreadObject \"worker-*\")");
        assert_eq!(with_reason.reason, "one per request, by design");
    }

    #[test]
    fn glob_stays_fast_on_patterns_that_backtrack() {
        let text = "a".repeat(10_000);
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!glob(
            pattern.as_bytes(),
            &Joined([text.as_bytes(), b"", b"", b"", b""])
        ));
    }

    #[test]
    fn text_in_parts_matches_as_the_joined_text() {
        let text = "java.util.HashMap.[x]";
        for pattern in [
            "java.util.*.[x]",
            "*Map.?x?",
            "java.util.HashMap.[x]",
            "*.table",
            "?",
        ] {
            let whole = glob(
                pattern.as_bytes(),
                &Joined([text.as_bytes(), b"", b"", b"", b""]),
            );
            for cut in 0..=text.len() {
                let (a, b) = text.as_bytes().split_at(cut);
                let parts = Joined([a, b"", b, b"", b""]);
                assert_eq!(
                    glob(pattern.as_bytes(), &parts),
                    whole,
                    "{pattern} at {cut}"
                );
            }
        }
        assert!(glob(
            b"java.util.*.[x]",
            &Joined([b"java.util.HashMap", b".", b"[x]", b"", b""])
        ));
        assert!(!glob(
            b"*.table",
            &Joined([b"java.util.HashMap", b".", b"[x]", b"", b""])
        ));
    }

    #[test]
    fn an_ignore_file_names_the_line_of_a_bad_rule() {
        let rules = IgnoreRule::parse_file(
            "# accepted\n\ncom.example.A.b  known\n  com.example.C.d\n",
            "x.txt",
        )
        .unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1].reason, "ignored by ignore file x.txt:4");
        let error = IgnoreRule::parse_file("com.example.A.b\n*\n", "x.txt").unwrap_err();
        assert!(error.starts_with("x.txt:2: "), "{error}");
    }
}
