//! Which recorded class definitions make a node grow: a generator defines a class per call under
//! a name with a serial in it (`Handler497`, `GeneratedHandler000497`, `Proxy$12`), while a class
//! the loops load once (lazily, on first use) is not the growth. So the classes still loaded
//! after the loops are grouped by their name with every digit run as `*` (and a hidden class's
//! address suffix dropped), and only a group with a class for at least half the loops counts.

use std::collections::BTreeMap;

use crate::class_name::stable_class_name;

/// A class defined during the attribution loops and still loaded after a full collection: its
/// name (`Class.getName()`) and its stack's index.
pub type DefinedClass<'a> = (&'a str, usize);

/// The stacks (indices) of the `survivors` that grow the node, or why none does. `defined` is
/// how many classes the node's loaders defined during the `loops` loops (survivors or not).
pub fn growing_definitions(
    survivors: &[DefinedClass],
    defined: u64,
    loops: u32,
) -> Result<Vec<usize>, String> {
    if survivors.is_empty() {
        return Err(if defined == 0 {
            format!(
                "the class-definition recorder saw no class defined during the {loops} attribution loops"
            )
        } else {
            format!(
                "no class defined during the {loops} attribution loops was still loaded after a \
                 full collection ({defined} defined, {defined} unloaded)"
            )
        });
    }
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &(name, stack) in survivors {
        groups.entry(name_pattern(name)).or_default().push(stack);
    }
    // A class per loop, with some slack for a loop whose class a cache still held.
    let enough = (loops as usize).div_ceil(2).max(1);
    let growing: Vec<usize> = groups
        .values()
        .filter(|stacks| stacks.len() >= enough)
        .flatten()
        .copied()
        .collect();
    if growing.is_empty() {
        let (pattern, stacks) = groups
            .iter()
            .max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.0.cmp(a.0)))
            .expect("survivors is not empty");
        return Err(format!(
            "classes were defined during the {loops} attribution loops, but no name pattern had \
             a class for at least half of them (largest: {pattern}, {} class(es))",
            stacks.len()
        ));
    }
    Ok(growing)
}

/// `corpus.gen.Handler497` → `corpus.gen.Handler*`; a hidden class's `/0x...` suffix dropped.
fn name_pattern(name: &str) -> String {
    let mut pattern = String::with_capacity(name.len());
    for c in stable_class_name(name).chars() {
        if !c.is_ascii_digit() {
            pattern.push(c);
        } else if !pattern.ends_with('*') {
            pattern.push('*');
        }
    }
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_per_loop_under_one_name_pattern_grows() {
        let survivors = [
            ("corpus.gen.Handler7", 0),
            ("corpus.gen.Helper", 1),
            ("corpus.gen.Handler8", 2),
            ("corpus.gen.Handler9", 3),
            ("corpus.gen.Handler10", 4),
        ];
        // Handler* has 4 classes in 4 loops; the Helper loaded once is not the growth.
        assert_eq!(growing_definitions(&survivors, 5, 4), Ok(vec![0, 2, 3, 4]));
        // Half the loops is enough.
        assert_eq!(growing_definitions(&survivors[..3], 3, 4), Ok(vec![0, 2]));
    }

    #[test]
    fn hidden_classes_group_without_their_address() {
        assert_eq!(
            name_pattern("corpus.Gen$$Lambda/0x0000000801003a00"),
            "corpus.Gen$$Lambda"
        );
        assert_eq!(
            name_pattern("corpus.app.GeneratedHandler000497"),
            "corpus.app.GeneratedHandler*"
        );
    }

    #[test]
    fn says_why_when_nothing_grows() {
        assert_eq!(
            growing_definitions(&[], 0, 4),
            Err(
                "the class-definition recorder saw no class defined during the 4 attribution loops"
                    .into()
            )
        );
        assert_eq!(
            growing_definitions(&[], 4, 4),
            Err(
                "no class defined during the 4 attribution loops was still loaded after a full \
                 collection (4 defined, 4 unloaded)"
                    .into()
            )
        );
        assert_eq!(
            growing_definitions(&[("a.One", 0), ("b.Two", 1)], 2, 4),
            Err(
                "classes were defined during the 4 attribution loops, but no name pattern had a \
                 class for at least half of them (largest: a.One, 1 class(es))"
                    .into()
            )
        );
    }
}
