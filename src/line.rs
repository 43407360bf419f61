//! Text that must stay on one line: error lines and report headers carry names from the JVM
//! and the user (class, thread and scenario names), and any of them may contain a newline.

/// `text` with line breaks and other control characters escaped, so that a name from the
/// JVM (a class or thread name may contain a newline) cannot cut an error line in two.
pub fn escape_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_line("a.B"), "a.B");
        assert_eq!(escape_line("a\nB\tc\r"), "a\\nB\\tc\\r");
        assert_eq!(escape_line("Ünïcode"), "Ünïcode");
    }
}
