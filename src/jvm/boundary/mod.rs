//! The one JNI boundary: every call into a JNIEnv that can throw goes through [`catch`], and
//! every `extern "system"` body runs in [`entry`] (or [`entry_quiet`], for a method that must
//! never throw). Java strings and classes cross it through [`string`], [`strings`](fn@strings),
//! [`new_string_array`], [`as_class`] and [`load_class`], each written once here.

mod classes;
mod exceptions;
mod guard;
mod strings;

pub use self::classes::{as_class, load_class};
pub use self::exceptions::{catch, clear_pending, describe_minimal, CallError};
pub use self::guard::{entry, entry_quiet, BoundaryError, ThrowAs};
pub use self::strings::{new_string_array, string, strings, strings_or_empty};
