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

/// A class name without what changes from one JVM run to the next: the address suffix of
/// hidden classes and the sequence number of JDK 17 lambda classes. Lambdas of one class then
/// share a name, which is what a reader wants from `Bus.listeners -> Screen$$Lambda` anyway,
/// and a report (and a baseline) is the same from run to run. The suffix comes in three
/// spellings: `Foo$$Lambda$14/0x…` (`Class.getName()`, heap dumps, JFR), `LambdaForm$MH+0x…`
/// (JDK 21+), and `Foo$$Lambda$14.0x…` (JVMTI's and JNI's class signatures, whose `/` is the
/// package separator, made dotted). No Java identifier starts with a digit, so none of the three
/// can be part of an ordinary name.
pub fn stable_class_name(name: &str) -> std::borrow::Cow<'_, str> {
    let Some(cut) = ["/0x", "+0x", ".0x"]
        .iter()
        .filter_map(|marker| name.find(marker))
        .min()
    else {
        return name.into();
    };
    let mut stable = name[..cut].to_owned();
    if let Some(lambda) = stable.find("$$Lambda") {
        stable.truncate(lambda + "$$Lambda".len());
    }
    // Past the marker, the address's hex digits.
    let suffix = name[cut + 3..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    stable.push_str(suffix);
    stable.into()
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

    #[test]
    fn hidden_and_lambda_class_names_lose_their_addresses() {
        for (name, stable) in [
            (
                "java.lang.invoke.LambdaForm$MH+0x00007fd0cc005c00",
                "java.lang.invoke.LambdaForm$MH",
            ),
            (
                "com.example.Screen$$Lambda$14/0x0000000800c03000",
                "com.example.Screen$$Lambda",
            ),
            (
                "com.example.Screen$$Lambda/0x0000000800c03000",
                "com.example.Screen$$Lambda",
            ),
            (
                "com.example.Screen$$Lambda/0x0000000800c03000[]",
                "com.example.Screen$$Lambda[]",
            ),
            // A JVMTI class signature made dotted, as stack frames spell it (issue 28).
            (
                "com.example.Screen$$Lambda$4.0x00007fbf1c005210",
                "com.example.Screen$$Lambda",
            ),
            (
                "java.lang.invoke.LambdaForm$MH.0x00007fd0cc005c00",
                "java.lang.invoke.LambdaForm$MH",
            ),
            ("java.util.HashMap$Node[]", "java.util.HashMap$Node[]"),
            ("com.example.x0.Y", "com.example.x0.Y"),
        ] {
            assert_eq!(stable_class_name(name), stable, "{name}");
        }
    }
}
