//! Work split between threads: the dump reader's passes and the bitmap build use this.

/// At most this many threads share one piece of work. The anchors measured 20–25 % from a
/// second thread on a 2-core machine; more threads would compete with the caller's own work.
const MAX_THREADS: usize = 2;

/// How many threads should share a piece of work: one when it is too small to be worth
/// splitting, otherwise as many as the machine has, up to [`MAX_THREADS`].
pub(crate) fn threads(worth_splitting: bool) -> usize {
    if worth_splitting {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
    } else {
        1
    }
}

/// Lets the calling thread run only on cores that nothing else wants (Linux's `SCHED_IDLE`):
/// for work beside the JVM's own, such as reading a heap dump while the JVM writes it, which
/// at normal priority took CPU time from the collector threads and the dump writer and
/// slowed dumps by up to a tenth. Elsewhere, or if the call fails, nothing changes.
pub(crate) fn yield_to_every_other_thread() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // Safety: `param` is a valid sched_param; pid 0 is the calling thread. Failing
        // leaves the thread as it was, which is only slower.
        let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    }
}

/// The calling thread's id for the scheduler (Linux's `gettid`; 0 elsewhere).
pub(crate) fn thread_id() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // Safety: gettid has no preconditions and cannot fail.
        unsafe { libc::gettid() }
    }
    #[cfg(not(target_os = "linux"))]
    0
}

/// Undoes [`yield_to_every_other_thread`] for the thread `tid` (from [`thread_id`] on that
/// thread), so that it runs soon even on a busy machine; returns whether it did. A `tid` of 0
/// (not known) or a thread that has ended changes nothing.
///
/// Only root can count on it: Linux lets an unprivileged process leave `SCHED_IDLE` only when
/// `RLIMIT_NICE` allows nice 0 (`ulimit -e` of 20 or more; most systems give 0), so for most
/// users the thread stays at idle priority and callers must not wait on it as if it ran.
pub(crate) fn back_to_normal_priority(tid: i32) -> bool {
    #[cfg(target_os = "linux")]
    if tid > 0 {
        let param = libc::sched_param { sched_priority: 0 };
        // Safety: as in `yield_to_every_other_thread`; a stale tid fails with ESRCH, or (if
        // reused by another of this process's threads) gives it the normal policy it has.
        return unsafe { libc::sched_setscheduler(tid, libc::SCHED_OTHER, &param) } == 0;
    }
    false
}

/// Runs `work` on each of `items` at the same time, the first on this thread and each other
/// on a scoped thread of its own, and returns the results in the items' order. An item whose
/// thread cannot be started (a process limit, `ulimit -v`) is worked on by this thread after
/// the first. A worker only panics on a bug; the panic then surfaces here as it is.
pub(crate) fn on_each<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    std::thread::scope(|scope| {
        let work = &work;
        let started: Vec<_> = items
            .map(|item| {
                // The item comes back when no thread could be started for it.
                let item = std::sync::Mutex::new(Some(item));
                let item = std::sync::Arc::new(item);
                let theirs = std::sync::Arc::clone(&item);
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        let item = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                        work(item.expect("the item is taken once"))
                    })
                    .map_err(|_| item)
            })
            .collect();
        let mut results = vec![work(first)];
        results.extend(started.into_iter().map(|started| {
            match started {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(item) => {
                    let item = item.lock().unwrap_or_else(|p| p.into_inner()).take();
                    work(item.expect("no thread took the item"))
                }
            }
        }));
        results
    })
}

#[cfg(test)]
mod tests {
    /// The dump follower's hand-over waits long only for a thread it could raise: the answer
    /// must be the kernel's (`CAP_SYS_NICE`, or an `RLIMIT_NICE` that allows nice 0), not a
    /// guess. Run as root and as an ordinary user, it checks both answers.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_idle_thread_is_raised_only_where_the_user_may() {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // Safety: `limit` is a valid rlimit to fill.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NICE, &mut limit) }, 0);
        // CAP_SYS_NICE (bit 23 of the effective set): root has it, but not in a container
        // that drops it, as Docker does by default.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let effective = status
            .lines()
            .find_map(|line| line.strip_prefix("CapEff:"))
            .map(|hex| u64::from_str_radix(hex.trim(), 16).unwrap())
            .unwrap();
        let may = effective & (1 << 23) != 0 || limit.rlim_cur >= 20;
        let raised = std::thread::spawn(|| {
            super::yield_to_every_other_thread();
            // Safety: no preconditions.
            let idle = unsafe { libc::sched_getscheduler(0) } == libc::SCHED_IDLE;
            (idle, super::back_to_normal_priority(super::thread_id()))
        })
        .join()
        .unwrap();
        assert_eq!(raised, (true, may));
        // Nothing to raise without a thread id.
        assert!(!super::back_to_normal_priority(0));
    }

    #[test]
    fn results_come_back_in_order() {
        let items: Vec<u64> = (0..5).collect();
        assert_eq!(super::on_each(items, |i| i * 10), [0, 10, 20, 30, 40]);
        assert!(super::on_each(Vec::<u8>::new(), |i| i).is_empty());
    }
}
