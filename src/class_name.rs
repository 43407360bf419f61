//! How class names are spelled across heapgrowth: as the heap model spells them
//! (`java.util.HashMap$Node`, `byte[]`, `java.lang.Object[][]`), from the JVM's internal forms
//! that heap dumps, class histograms and JFR recordings use. A leaf: every layer may use it.

/// `java/util/ArrayList` → `java.util.ArrayList`, `[Ljava/lang/Object;` → `java.lang.Object[]`,
/// `[[I` → `int[][]`. Names already in Java form (Android's dumps, `java.lang.Object[]`) pass
/// through; an array descriptor that doesn't parse is kept as it is (with dots), so nothing is
/// lost.
pub fn java_class_name(internal: &str) -> String {
    let dotted = internal.replace('/', ".");
    let dimensions = dotted.bytes().take_while(|&b| b == b'[').count();
    if dimensions == 0 {
        return dotted;
    }
    let element = match &dotted[dimensions..] {
        "Z" => "boolean",
        "B" => "byte",
        "C" => "char",
        "S" => "short",
        "I" => "int",
        "J" => "long",
        "F" => "float",
        "D" => "double",
        other => match other.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
            Some(class) => class,
            None => return dotted,
        },
    };
    format!("{element}{}", "[]".repeat(dimensions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_names_and_descriptors_become_java_names() {
        assert_eq!(
            java_class_name("java/util/HashMap$Node"),
            "java.util.HashMap$Node"
        );
        assert_eq!(java_class_name("[Ljava/lang/Object;"), "java.lang.Object[]");
        assert_eq!(java_class_name("[Ljava.lang.Object;"), "java.lang.Object[]");
        assert_eq!(
            java_class_name("[[Ljava/lang/String;"),
            "java.lang.String[][]"
        );
        assert_eq!(java_class_name("[B"), "byte[]");
        assert_eq!(java_class_name("[[J"), "long[][]");
        assert_eq!(java_class_name("[Z"), "boolean[]");
        // Already Java names, and what does not parse, pass through.
        assert_eq!(java_class_name("java.lang.Object[]"), "java.lang.Object[]");
        assert_eq!(java_class_name("int[]"), "int[]");
        assert_eq!(java_class_name("[Q"), "[Q");
        assert_eq!(java_class_name("["), "[");
        assert_eq!(java_class_name("[II"), "[II");
    }
}
