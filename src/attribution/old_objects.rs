//! The allocation stacks of JFR old-object samples ([`crate::growth::old_objects`]) as the
//! report shows recorded stacks: grouped (the search did that), each frame marked as the JDK's
//! or the user's, so [`super::place_to_look`] marks the user's line as it does for stacks that
//! heapgrowth recorded itself.
//!
//! JFR names a frame's class, its class loader and its module, not where the class was loaded
//! from: a frame in the runtime image or of the boot or platform loader is the JDK's, any other
//! the user's. A library's jar cannot be told from the user's classes, so in a stack through a
//! library the first library frame the user's code called is marked; the frames below it say
//! where the user's code called it.
//!
//! In a JVM heapgrowth drives (`run --jfr`, a JUnit test with `jfr = true`), heapgrowth's own
//! loop and the reflection that calls the test method are cut, as from every recorded stack
//! ([`super::without_host_frames`]): they are not the user's, and the stacks that differ only
//! there are one.

use super::{group_counted, without_host_frames, Frame, Origin, StackCount, StackFrame};
use crate::growth::old_objects::SampledStack;

/// `stacks` as [`StackCount`]s (no operation: samples are allocations), most samples first.
pub fn sample_stacks(stacks: &[SampledStack]) -> Vec<StackCount> {
    group_counted(stacks.iter().map(|stack| {
        let frames = stack
            .frames
            .iter()
            .map(|frame| {
                StackFrame::with_origin(
                    Frame {
                        class: frame.class.clone(),
                        method: frame.method.clone(),
                        file: None,
                        line: frame.line,
                        code_source: None,
                    },
                    if frame.is_jdk() {
                        Origin::Jdk
                    } else {
                        Origin::User
                    },
                )
            })
            .collect();
        ((String::new(), without_host_frames(frames)), stack.samples)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jfr::JfrFrame;

    #[test]
    fn the_users_line_below_the_jdks_frames_is_the_place_to_look() {
        let frame = |class: &str, method: &str, line: i32, jdk: bool| JfrFrame {
            class: class.into(),
            method: method.into(),
            line: Some(line),
            loader: Some(if jdk { "bootstrap" } else { "app" }.into()),
            module_location: None,
        };
        let stacks = sample_stacks(&[SampledStack {
            samples: 7,
            frames: vec![
                frame("java.util.Arrays", "copyOf", 3481, true),
                frame("java.util.ArrayList", "grow", 237, true),
                frame("app.Service$Session", "<init>", 8, false),
                frame("app.Service", "main", 28, false),
            ],
            truncated: false,
        }]);
        assert_eq!(stacks[0].count, 7);
        assert_eq!(stacks[0].place_to_look(), Some(2));
        assert_eq!(
            stacks[0].frames[2].to_string(),
            "app.Service$Session.<init>(line 8)"
        );
    }

    #[test]
    fn heapgrowths_loop_and_the_reflection_calling_the_test_are_cut() {
        let frame = |class: &str, method: &str, jdk: bool| JfrFrame {
            class: class.into(),
            method: method.into(),
            line: Some(31),
            loader: Some(if jdk { "bootstrap" } else { "app" }.into()),
            module_location: None,
        };
        let test = || frame("com.example.ShopTest", "keepsReceipts", false);
        let host = || {
            vec![
                frame("java.lang.reflect.Method", "invoke", true),
                frame("dev.heapgrowth.junit.LoopCallback", "runLoops", false),
                frame("dev.heapgrowth.junit.NativeEngine", "search", false),
                frame(
                    "org.junit.platform.launcher.core.EngineExecutionOrchestrator",
                    "execute",
                    false,
                ),
            ]
        };
        // Before the JIT's accessor, the JDK's native one; after, a generated class.
        let native = [
            vec![test()],
            vec![
                frame(
                    "jdk.internal.reflect.NativeMethodAccessorImpl",
                    "invoke0",
                    true,
                ),
                frame(
                    "jdk.internal.reflect.NativeMethodAccessorImpl",
                    "invoke",
                    true,
                ),
                frame(
                    "jdk.internal.reflect.DelegatingMethodAccessorImpl",
                    "invoke",
                    true,
                ),
            ],
            host(),
        ]
        .concat();
        let generated = [
            vec![
                test(),
                frame(
                    "jdk.internal.reflect.GeneratedMethodAccessor7",
                    "invoke",
                    false,
                ),
            ],
            host(),
        ]
        .concat();
        let stacks = sample_stacks(&[
            SampledStack {
                samples: 1,
                frames: native,
                truncated: false,
            },
            SampledStack {
                samples: 50,
                frames: generated,
                truncated: true,
            },
        ]);
        assert_eq!(stacks.len(), 1, "{stacks:?}");
        assert_eq!(stacks[0].count, 51);
        assert_eq!(stacks[0].frames.len(), 1);
        assert_eq!(stacks[0].place_to_look(), Some(0));
    }
}
