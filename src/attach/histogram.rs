//! The class histogram a HotSpot JVM prints for `inspectheap` (what `jmap -histo` and
//! `jcmd GC.class_histogram` show): one row per loaded class with its instance count and bytes,
//! then a total.
//!
//! ```text
//!  num     #instances         #bytes  class name (module)
//! -------------------------------------------------------
//!    1:         33770        2405384  [B (java.base@17.0.15)
//!   42:          1000          24000  Leak$Item
//! Total        172802       11804328
//! ```
//!
//! Names are spelled as the JVM spells classes internally: binary names with `.`
//! (`java.util.HashMap$Node`), arrays as descriptors (`[B`, `[Ljava.lang.Object;`), hidden
//! classes with their address (`Foo$$Lambda/0x...`). Classes of named modules carry the module
//! (and its version) in parentheses; classes of the class path carry nothing.

/// One row of a class histogram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCount {
    /// The class as the histogram spells it: `java.lang.String`, `Leak$Item`, `[B`,
    /// `[Ljava.lang.Object;`. Two rows can have the same name: classes of the same name defined
    /// by different class loaders.
    pub name: String,
    /// The named module the class belongs to, with its version if it has one
    /// (`java.base@17.0.15`); `None` for classes of the unnamed module (the class path).
    pub module: Option<String>,
    /// Instances on the heap.
    pub instances: u64,
    /// Bytes those instances take (shallow sizes).
    pub bytes: u64,
}

impl ClassCount {
    /// The name as the heap model spells classes ([`crate::heap::ClassInfo::name`]): arrays as
    /// `byte[]` and `java.lang.Object[][]`, other classes unchanged.
    pub fn java_name(&self) -> String {
        crate::class_name::java_class_name(&self.name)
    }
}

/// A class histogram: the rows in the JVM's order (most bytes first) and its totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassHistogram {
    /// One row per class.
    pub classes: Vec<ClassCount>,
    /// The `Total` line's instance count.
    pub total_instances: u64,
    /// The `Total` line's bytes.
    pub total_bytes: u64,
}

impl ClassHistogram {
    /// Instances of the classes named `name` (histogram spelling), summed over class loaders;
    /// 0 if there are none.
    pub fn instances_of(&self, name: &str) -> u64 {
        self.classes
            .iter()
            .filter(|c| c.name == name)
            .map(|c| c.instances)
            .sum()
    }
}

/// Parses the JVM's histogram text. The error says what did not fit: the JVM's own message
/// when it sent one instead of a table, or the first line that is not a row.
pub(crate) fn parse(text: &str) -> Result<ClassHistogram, String> {
    let mut lines = text.lines();
    // Anything before the header (older JVMs print nothing, but a warning would go here) is
    // skipped; no header at all means the JVM answered with a message instead.
    if !lines.by_ref().any(is_header) {
        let message = text.trim();
        return Err(if message.is_empty() {
            "the JVM sent no histogram".to_string()
        } else {
            format!("the JVM sent no histogram but: {}", one_line(message))
        });
    }
    let mut classes = Vec::new();
    for line in lines {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.bytes().all(|b| b == b'-') {
            continue;
        }
        if let Some(totals) = trimmed.strip_prefix("Total") {
            let numbers: Vec<&str> = totals.split_whitespace().collect();
            let [instances, bytes] = numbers[..] else {
                return Err(format!("unreadable total line {trimmed:?}"));
            };
            return Ok(ClassHistogram {
                classes,
                total_instances: number(instances, trimmed)?,
                total_bytes: number(bytes, trimmed)?,
            });
        }
        classes.push(parse_row(trimmed).ok_or_else(|| format!("unreadable row {trimmed:?}"))?);
    }
    Err(format!(
        "the histogram ends without a Total line after {} rows (the JVM may have ended)",
        classes.len()
    ))
}

fn is_header(line: &str) -> bool {
    line.contains("#instances") && line.contains("#bytes")
}

fn number(text: &str, line: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a count in {line:?}"))
}

/// `   1:         33770        2405384  [B (java.base@17.0.15)`, already trimmed.
fn parse_row(row: &str) -> Option<ClassCount> {
    let (rank, rest) = split_word(row)?;
    rank.strip_suffix(':')?.parse::<u64>().ok()?;
    let (instances, rest) = split_word(rest)?;
    let (bytes, rest) = split_word(rest)?;
    let (name, module) = split_module(rest.trim());
    if name.is_empty() {
        return None;
    }
    Some(ClassCount {
        name: name.to_string(),
        module: module.map(str::to_string),
        instances: instances.parse().ok()?,
        bytes: bytes.parse().ok()?,
    })
}

/// The first whitespace-separated word and what follows it.
fn split_word(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace)?;
    Some((&text[..end], &text[end..]))
}

/// Splits `name (module@version)` into the name and the module. HotSpot appends the module as
/// ` (name)` or ` (name@version)`, neither of which holds a space, so only such a last
/// parenthesised word counts: a class name with spaces (legal in class files) stays whole.
fn split_module(text: &str) -> (&str, Option<&str>) {
    if let Some(inner) = text.strip_suffix(')') {
        if let Some(open) = inner.rfind(" (") {
            let module = &inner[open + 2..];
            if !module.is_empty() && !module.contains(char::is_whitespace) {
                return (inner[..open].trim_end(), Some(module));
            }
        }
    }
    (text, None)
}

fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of `inspectheap -all` from OpenJDK 17.0.15 running `Leak.java` in the source
    /// launcher (which loads javac, hence the compiler's classes), with the real Total line.
    const JDK17: &str = " num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:          3816        4022232  [I (java.base@17.0.15)
   2:         33770        2405384  [B (java.base@17.0.15)
   3:         26162         627888  java.lang.String (java.base@17.0.15)
   6:          2782         289888  [Ljava.util.HashMap$Node; (java.base@17.0.15)
  14:             1         131088  [Lcom.sun.tools.javac.util.SharedNameTable$NameImpl; (jdk.compiler@17.0.15)
  42:          1000          24000  Leak$Item
  50:          1051          16816  com.sun.tools.javac.code.Symtab$$Lambda$77/0x00007fc8a80e7d80 (jdk.compiler@17.0.15)
1345:             1             16  sun.nio.fs.NativeBuffers$1 (java.base@17.0.15)
Total        172802       11804328
";

    /// The same from Temurin 25.0.3: hidden classes lost their sequence number.
    const JDK25: &str = " num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:        140547        7293808  [B (java.base@25.0.3)
   4:           103         863168  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)
  38:          2321          37136  com.sun.tools.javac.code.Symtab$$Lambda/0x00000000580ecef8 (jdk.compiler@25.0.3)
  48:          1000          24000  Leak$Item
1491:             1             16  sun.nio.fs.NativeBuffers$1 (java.base@25.0.3)
Total        399011       18929584
";

    #[test]
    fn jdk17_histogram_rows_modules_and_total() {
        let h = parse(JDK17).unwrap();
        assert_eq!(h.classes.len(), 8);
        assert_eq!(
            h.classes[1],
            ClassCount {
                name: "[B".into(),
                module: Some("java.base@17.0.15".into()),
                instances: 33770,
                bytes: 2405384,
            }
        );
        let item = h.classes.iter().find(|c| c.name == "Leak$Item").unwrap();
        assert_eq!(
            (item.instances, item.bytes, item.module.as_deref()),
            (1000, 24000, None)
        );
        assert_eq!(
            h.classes[6].name,
            "com.sun.tools.javac.code.Symtab$$Lambda$77/0x00007fc8a80e7d80"
        );
        assert_eq!(h.classes[6].module.as_deref(), Some("jdk.compiler@17.0.15"));
        assert_eq!(h.classes[3].name, "[Ljava.util.HashMap$Node;");
        assert_eq!((h.total_instances, h.total_bytes), (172802, 11804328));
        assert_eq!(h.instances_of("Leak$Item"), 1000);
        assert_eq!(h.instances_of("NoSuchClass"), 0);
    }

    #[test]
    fn jdk25_histogram() {
        let h = parse(JDK25).unwrap();
        assert_eq!(h.classes.len(), 5);
        assert_eq!(h.classes[1].name, "[Ljdk.internal.vm.FillerElement;");
        assert_eq!(
            h.classes[2].name,
            "com.sun.tools.javac.code.Symtab$$Lambda/0x00000000580ecef8"
        );
        assert_eq!(h.instances_of("Leak$Item"), 1000);
        assert_eq!((h.total_instances, h.total_bytes), (399011, 18929584));
    }

    #[test]
    fn jdk8_header_without_modules() {
        let text = " num     #instances         #bytes  class name
----------------------------------------------
   1:          1000          24000  Leak$Item
Total          1000          24000
";
        let h = parse(text).unwrap();
        assert_eq!(h.classes[0].module, None);
        assert_eq!(h.total_instances, 1000);
    }

    #[test]
    fn classes_of_the_same_name_from_two_loaders_add_up() {
        let text = " num     #instances         #bytes  class name (module)
   1:             3             72  p.Item
   2:             2             48  p.Item
Total             5            120
";
        assert_eq!(parse(text).unwrap().instances_of("p.Item"), 5);
    }

    #[test]
    fn a_module_without_version_and_a_name_with_spaces() {
        assert_eq!(split_module("a.B (my.module)"), ("a.B", Some("my.module")));
        assert_eq!(split_module("odd name (x)"), ("odd name", Some("x")));
        assert_eq!(split_module("odd (name) here"), ("odd (name) here", None));
        assert_eq!(split_module("a.B (two words)"), ("a.B (two words)", None));
    }

    #[test]
    fn a_message_instead_of_a_table_is_an_error_that_quotes_it() {
        let err = parse("Invalid argument to inspectheap operation: -some\n").unwrap_err();
        assert!(err.contains("Invalid argument to inspectheap"), "{err}");
        assert!(parse("").unwrap_err().contains("no histogram"));
    }

    #[test]
    fn a_cut_off_table_or_a_strange_row_is_an_error() {
        let cut = &JDK17[..JDK17.find("Total").unwrap()];
        assert!(parse(cut).unwrap_err().contains("without a Total"));
        let strange = JDK17.replace("  42:          1000", "  42:          many");
        assert!(parse(&strange).unwrap_err().contains("unreadable row"));
    }
}
