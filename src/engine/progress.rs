//! The one status line a run shows on a terminal.

use std::io::{IsTerminal, Write};

/// One status line on stderr, rewritten in place; silent when stderr is not a terminal.
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// Progress shown only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Progress {
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    pub(super) fn show(&self, message: std::fmt::Arguments) {
        if self.enabled {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K{message}");
            let _ = stderr.flush();
        }
    }

    pub(super) fn clear(&self) {
        if self.enabled {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
