//! The regression gate of every front end that keeps accepted growth: the cargo harness (its
//! insta snapshots) and the JUnit extension (its baseline file). A run passes when every node
//! that grows is accepted; accepted nodes that no longer grow are stale.
//!
//! A node is identified by what a fix changes, not by what an unrelated edit moves: its path,
//! its most telling kind of growth, the children that grew, and the methods that grew it. Line
//! numbers are not part of it (a comment line added above the growing code moves them), and
//! neither is how the node was attributed: a baseline written without the agent ("not
//! attributed") accepts the same node attributed with it, and the other way round.

pub use super::normalized::without_line_numbers;
use super::normalized::{
    from_the_instance, normalized_node, normalized_sampled_class, normalized_survivors,
};
use super::ScenarioReport;

/// Accepted growth: the blocks of a snapshot or baseline file (see [`Baseline::parse`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    blocks: Vec<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Block {
    /// As written: keyed by [`judge`], which knows the scenario; shown as is when stale.
    text: String,
}

/// What identifies a growing node for the gate.
#[derive(Clone, Debug, PartialEq, Eq)]
struct GateKey {
    /// The path's lines, without line numbers.
    path: Vec<String>,
    /// `grows in:`.
    kind: Option<String>,
    /// `grows:` lines (the children that grew).
    grows: Vec<String>,
    /// `Class.method` of the attributed stacks' frames to look at, sorted and each once (how
    /// many stacks name a method, and in which order, varies with folding and with the order
    /// of equal counts: a baseline written with `[run, run]` accepts `[run]`); empty when not
    /// attributed.
    methods: Vec<String>,
}

impl GateKey {
    /// Parses a normalized block (see [`normalized_node`]).
    fn of_block(text: &str) -> GateKey {
        let mut key = GateKey {
            path: Vec::new(),
            kind: None,
            grows: Vec::new(),
            methods: Vec::new(),
        };
        for line in text.lines().map(str::trim_end) {
            if let Some(kind) = line.strip_prefix("    grows in: ") {
                key.kind = Some(kind.to_owned());
            } else if let Some(child) = line.strip_prefix("    grows: ") {
                key.grows.push(without_line_numbers(child));
            } else if let Some(frame) = line.strip_prefix("        at ") {
                let method = frame.split('(').next().unwrap_or(frame);
                key.methods.push(method.to_owned());
            } else if line.starts_with("    ") {
                // `attribution:` and `not attributed:`: how it was found, not what grows.
            } else {
                key.path.push(without_line_numbers(line));
            }
        }
        key.methods.sort();
        key.methods.dedup();
        key
    }

    /// The same node: equal paths, kinds and children, and the same methods where both sides
    /// know them.
    fn accepts(&self, found: &GateKey) -> bool {
        self.path == found.path
            && self.kind == found.kind
            && self.grows == found.grows
            && (self.methods.is_empty()
                || found.methods.is_empty()
                || self.methods == found.methods)
    }
}

impl Baseline {
    /// The blocks of `text`: groups of non-blank lines; lines starting with `#` are comments.
    pub fn parse(text: &str) -> Baseline {
        let mut blocks = Vec::new();
        let mut current = String::new();
        let mut push = |current: &mut String| {
            if !current.is_empty() {
                blocks.push(Block {
                    text: std::mem::take(current),
                });
            }
        };
        for line in text.lines().filter(|line| !line.starts_with('#')) {
            if line.trim().is_empty() {
                push(&mut current);
            } else {
                current.push_str(line.trim_end());
                current.push('\n');
            }
        }
        push(&mut current);
        Baseline { blocks }
    }

    /// Whether nothing is accepted.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// A report judged against a [`Baseline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// For each growing node of the report, then each class whose JFR samples grew, then each
    /// common path of JFR survivors, in order: whether the baseline lacks it.
    pub new: Vec<bool>,
    /// Accepted blocks (as written) that no longer grow.
    pub stale: Vec<String>,
}

impl Judgement {
    /// Whether the gate passes: nothing new grows. Stale blocks are reported, not failed on
    /// here; each front end says what it does with them.
    pub fn passes(&self) -> bool {
        !self.new.iter().any(|&new| new)
    }

    /// How many growing nodes the baseline accepts.
    pub fn accepted(&self) -> usize {
        self.new.iter().filter(|&&new| !new).count()
    }

    /// `report` without the nodes the baseline accepts: what a failure shows.
    pub fn new_only(&self, report: &ScenarioReport) -> ScenarioReport {
        let mut new_only = report.clone();
        let nodes = report.growing().count();
        let (new_nodes, new_classes) = self.new.split_at(nodes.min(self.new.len()));
        if let Ok(outcome) = &mut new_only.result {
            let mut keep = new_nodes.iter();
            outcome.growing.retain(|_| *keep.next().unwrap_or(&true));
        }
        let mut keep = new_nodes.iter();
        new_only
            .attributions
            .retain(|_| *keep.next().unwrap_or(&true));
        if let Some(samples) = &mut new_only.old_objects {
            let mut keep = new_classes.iter();
            let kept: Vec<bool> = samples
                .outcome
                .growing
                .iter()
                .map(|_| *keep.next().unwrap_or(&true))
                .collect();
            let mut keep = kept.iter();
            samples.outcome.growing.retain(|_| *keep.next().unwrap());
            let mut keep = kept.iter();
            samples.stacks.retain(|_| *keep.next().unwrap_or(&true));
            let classes = kept.len().min(new_classes.len());
            let mut keep = new_classes[classes..].iter();
            let kept: Vec<bool> = samples
                .outcome
                .survivors
                .iter()
                .map(|_| *keep.next().unwrap_or(&true))
                .collect();
            let mut keep = kept.iter();
            samples.outcome.survivors.retain(|_| *keep.next().unwrap());
            let mut keep = kept.iter();
            samples
                .survivor_stacks
                .retain(|_| *keep.next().unwrap_or(&true));
        }
        new_only
    }
}

/// What a gated test comes to, for every front end that gates (the JUnit extension, the cargo
/// harness): the report's [`crate::report::Verdict`] with accepted growth taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateStatus {
    /// The scenario could not be run.
    Error,
    /// Growth the baseline does not accept.
    Growing,
    /// Nothing new grows, but the search could not judge: never a pass, as a gate that passes
    /// on what it did not see would pass every leak it missed. The cargo harness fails the
    /// test with the reason; JUnit reports it skipped with the reason.
    Inconclusive(String),
    /// Judged, and nothing new grows.
    Clean,
}

impl GateStatus {
    /// Of `report` judged as `judgement`.
    pub fn of(report: &ScenarioReport, judgement: &Judgement) -> GateStatus {
        match report.verdict() {
            None => GateStatus::Error,
            Some(_) if !judgement.passes() => GateStatus::Growing,
            Some(crate::report::Verdict::Inconclusive(reason)) => GateStatus::Inconclusive(reason),
            Some(_) => GateStatus::Clean,
        }
    }

    /// As the JUnit extension reads it: `error`, `growing`, `inconclusive`, `clean`.
    pub fn label(&self) -> &'static str {
        match self {
            GateStatus::Error => "error",
            GateStatus::Growing => "growing",
            GateStatus::Inconclusive(_) => "inconclusive",
            GateStatus::Clean => "clean",
        }
    }
}

/// Judges the growing nodes of `report` against `baseline`. A failed scenario has no growing
/// nodes: every accepted block is then stale, and the front end reports the error instead.
pub fn judge(report: &ScenarioReport, baseline: &Baseline) -> Judgement {
    let key = |block: &str| GateKey::of_block(&from_the_instance(block, &report.scenario));
    let found: Vec<GateKey> = report
        .growing()
        .map(|(node, attribution)| key(&normalized_node(node, attribution)))
        .chain(
            report
                .sampled_classes()
                .map(|class| key(&normalized_sampled_class(class))),
        )
        .chain(
            report
                .survivor_paths()
                .map(|step| key(&normalized_survivors(&step))),
        )
        .collect();
    // Accepted blocks are keyed here, with the scenario known: a block written when paths
    // still started at the front end's plumbing reads as the instance too.
    let accepted: Vec<GateKey> = baseline
        .blocks
        .iter()
        .map(|block| key(&block.text))
        .collect();
    let new = found
        .iter()
        .map(|found| !accepted.iter().any(|accepted| accepted.accepts(found)))
        .collect();
    let stale = baseline
        .blocks
        .iter()
        .zip(&accepted)
        .filter(|(_, accepted)| !found.iter().any(|found| accepted.accepts(found)))
        .map(|(block, _)| block.text.clone())
        .collect();
    Judgement { new, stale }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCEPTED: &str = "\
GcRoot(Class)
╰→STATIC_FIELD Cart.AUDIT -> instance of java.util.ArrayList
    grows in: objects
    grows: ARRAY_ENTRY ArrayList.[x] -> instance of com.example.Entry
    attribution: calls to add()
        at com.example.Cart.close(Cart.java:41)
";

    fn key(text: &str) -> GateKey {
        GateKey::of_block(text)
    }

    #[test]
    fn a_class_whose_jfr_samples_grow_fails_the_gate_until_the_baseline_accepts_it() {
        let report = crate::report::test_reports::old_object_samples();
        assert_eq!(report.sampled_classes().collect::<Vec<_>>(), ["byte[]"]);
        let unaccepted = judge(&report, &Baseline::default());
        assert!(!unaccepted.passes());
        assert_eq!(
            unaccepted.new_only(&report).sampled_classes().count(),
            1,
            "the failure shows the class"
        );
        // The baseline a rewrite writes accepts it, and then the failure would show nothing.
        let normalized = super::super::render_normalized(&report);
        assert_eq!(
            normalized,
            "JFR old-object samples of byte[]\n    grows in: samples\n"
        );
        let accepted = judge(&report, &Baseline::parse(&normalized));
        assert!(accepted.passes());
        assert_eq!(accepted.new_only(&report).sampled_classes().count(), 0);
        assert!(accepted.stale.is_empty());
        // Another class in the baseline does not accept it, and is stale.
        let other = judge(
            &report,
            &Baseline::parse("JFR old-object samples of char[]\n    grows in: samples\n"),
        );
        assert!(!other.passes());
        assert_eq!(other.stale.len(), 1);
    }

    #[test]
    fn line_numbers_are_not_part_of_the_key() {
        let moved = ACCEPTED.replace("Cart.java:41", "Cart.java:42");
        assert!(key(ACCEPTED).accepts(&key(&moved)));
    }

    #[test]
    fn attributed_and_not_attributed_blocks_accept_each_other() {
        let without_agent = ACCEPTED.replace(
            "    attribution: calls to add()\n        at com.example.Cart.close(Cart.java:41)\n",
            "    not attributed: heapgrowth's JVMTI agent is not loaded\n",
        );
        assert!(key(&without_agent).accepts(&key(ACCEPTED)));
        assert!(key(ACCEPTED).accepts(&key(&without_agent)));
        // Attributed the other way (a field watch instead of a container call) is the same node.
        let watched = ACCEPTED.replace("calls to add()", "field writes");
        assert!(key(ACCEPTED).accepts(&key(&watched)));
    }

    #[test]
    fn another_path_kind_child_or_method_is_another_node() {
        for changed in [
            ACCEPTED.replace("Cart.AUDIT", "Cart.HISTORY"),
            ACCEPTED.replace("grows in: objects", "grows in: bytes"),
            ACCEPTED.replace("com.example.Entry", "com.example.Other"),
            ACCEPTED.replace("Cart.close", "Cart.open"),
        ] {
            assert!(!key(ACCEPTED).accepts(&key(&changed)), "{changed}");
        }
    }

    // Issue 32: stacks that fold, and equal counts that come in another order, change the list
    // of `at` lines; a baseline written before (`run` twice) must still accept the node.
    #[test]
    fn methods_are_a_set_so_folded_and_reordered_stacks_are_the_same_node() {
        let two = |first: &str, second: &str| {
            ACCEPTED.replace(
                "        at com.example.Cart.close(Cart.java:41)\n",
                &format!("        at {first}\n        at {second}\n"),
            )
        };
        let written_before = two(
            "com.example.Cart.run(Cart.java:9)",
            "com.example.Cart.run(Cart.java:12)",
        );
        let folded = ACCEPTED.replace("Cart.close(Cart.java:41)", "Cart.run(Cart.java)");
        assert!(key(&written_before).accepts(&key(&folded)));
        assert!(key(&folded).accepts(&key(&written_before)));
        let both = two(
            "com.example.Cart.run(Cart.java:9)",
            "com.example.Cart.close(Cart.java:41)",
        );
        let reordered = two(
            "com.example.Cart.close(Cart.java:41)",
            "com.example.Cart.run(Cart.java:9)",
        );
        assert!(key(&both).accepts(&key(&reordered)));
        // A method the baseline does not name is still another node, and so is one it lacks.
        let another = two(
            "com.example.Cart.run(Cart.java:9)",
            "com.example.Cart.open(Cart.java:3)",
        );
        assert!(!key(&both).accepts(&key(&another)));
        assert!(!key(&written_before).accepts(&key(&both)));
        assert!(!key(&both).accepts(&key(&written_before)));
    }

    #[test]
    fn baselines_split_on_blank_lines_and_skip_comments() {
        let text = format!(
            "# accepted growth\n{ACCEPTED}\n\n{}",
            ACCEPTED.replace("AUDIT", "X")
        );
        let baseline = Baseline::parse(&text);
        assert_eq!(baseline.blocks.len(), 2);
        assert_eq!(baseline.blocks[0].text, ACCEPTED);
        assert!(Baseline::parse("# only a comment\n\n").is_empty());
    }
}
