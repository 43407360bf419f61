//! End-to-end tests: the `heapgrowth` binary on the Java corpus in `tests/corpus/`. Each test
//! runs the binary in its own process, because a process can start only one JVM.

mod attribution;
mod attribution_lines;
mod attribution_order;
mod bad_input;
mod cleanup;
mod corpus;
mod diff;
mod growth_classes;
mod hostile;
mod html;
mod libraries;
mod run_jfr;
mod stability;
mod support;
mod survival;
mod unprivileged;
mod watch;
mod watch_jfr;
