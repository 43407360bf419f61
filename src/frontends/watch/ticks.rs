//! Where a watch's ticks come from: an interval ([`EveryInterval`], `--every`) or the user's
//! Enter ([`OnEnter`]).

use std::io::BufRead;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{StopReason, Tick, Ticks};

/// Ticks at a fixed interval, until `for_at_most` has passed or an interrupt asks to stop.
#[derive(Debug)]
pub struct EveryInterval {
    interval: Duration,
    next: Instant,
    deadline: Option<Instant>,
}

impl EveryInterval {
    /// The first tick comes at once, the next `interval` later, and so on.
    pub fn new(interval: Duration, for_at_most: Option<Duration>) -> EveryInterval {
        let now = Instant::now();
        EveryInterval {
            interval,
            next: now,
            deadline: for_at_most.map(|d| now + d),
        }
    }
}

/// How often a wait checks for Ctrl-C.
const STOP_POLL: Duration = Duration::from_millis(50);

impl Ticks for EveryInterval {
    fn next_tick(&mut self) -> Tick {
        loop {
            if crate::tempdir::stop_requested() {
                return Tick::Stop(StopReason::Interrupted);
            }
            let now = Instant::now();
            if self.deadline.is_some_and(|deadline| now >= deadline) {
                return Tick::Stop(StopReason::TimeUp);
            }
            if now >= self.next {
                // A look that took longer than the interval is not caught up with a burst.
                self.next = (self.next + self.interval).max(now);
                return Tick::Now(1);
            }
            let until = self.deadline.map_or(self.next, |d| d.min(self.next));
            std::thread::sleep(until.saturating_duration_since(now).min(STOP_POLL));
        }
    }
}

/// Ticks at each line of input: an empty line is one repetition of the scenario, a number
/// that many; `q` or the end of input stops. Ctrl-C stops too.
pub struct OnEnter {
    lines: mpsc::Receiver<String>,
    deadline: Option<Instant>,
    prompt: Box<dyn FnMut() + Send>,
}

impl std::fmt::Debug for OnEnter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnEnter").finish_non_exhaustive()
    }
}

impl OnEnter {
    /// Reads lines of `input` on a thread of its own (so that Ctrl-C is seen while waiting);
    /// `prompt` is called before each wait.
    pub fn new(
        input: impl BufRead + Send + 'static,
        for_at_most: Option<Duration>,
        prompt: impl FnMut() + Send + 'static,
    ) -> OnEnter {
        let (send, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("heapgrowth-input".into())
            .spawn(move || {
                for line in input.lines() {
                    let Ok(line) = line else { break };
                    if send.send(line).is_err() {
                        break;
                    }
                }
            })
            .expect("a thread to read input");
        OnEnter {
            lines,
            deadline: for_at_most.map(|d| Instant::now() + d),
            prompt: Box::new(prompt),
        }
    }
}

impl Ticks for OnEnter {
    fn next_tick(&mut self) -> Tick {
        (self.prompt)();
        loop {
            if crate::tempdir::stop_requested() {
                return Tick::Stop(StopReason::Interrupted);
            }
            if self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return Tick::Stop(StopReason::TimeUp);
            }
            match self.lines.recv_timeout(STOP_POLL) {
                Ok(line) => match parse_repetitions(&line) {
                    Some(count) => return Tick::Now(count),
                    None if line.trim().eq_ignore_ascii_case("q") => {
                        return Tick::Stop(StopReason::EndOfInput)
                    }
                    // Anything else: ask again.
                    None => (self.prompt)(),
                },
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Tick::Stop(StopReason::EndOfInput)
                }
            }
        }
    }
}

/// An empty line is one repetition; a positive number that many.
pub(super) fn parse_repetitions(line: &str) -> Option<u32> {
    let line = line.trim();
    if line.is_empty() {
        return Some(1);
    }
    line.parse::<u32>().ok().filter(|&n| n > 0)
}
