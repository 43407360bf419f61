//! The `heapgrowth` command line.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use heapgrowth::report::EXIT_ERROR;

/// The allocator: the system's, ending the process with one line and exit status 2 when an
/// allocation fails (under `ulimit -v`, or where overcommit is off), instead of Rust's abort
/// with a backtrace. Every dump the run took is deleted first when that can be done without
/// waiting for a lock.
struct ExitWhenOutOfMemory;

#[global_allocator]
static ALLOCATOR: ExitWhenOutOfMemory = ExitWhenOutOfMemory;

// Safety: every call is the system allocator's, with the same layout and pointers; a null
// result ends the process instead of being returned.
unsafe impl std::alloc::GlobalAlloc for ExitWhenOutOfMemory {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        or_exit(std::alloc::System.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        or_exit(std::alloc::System.alloc_zeroed(layout), layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        or_exit(std::alloc::System.realloc(ptr, layout, new_size), new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
}

/// `ptr`, or the end of the process if it is null (an allocation of `size` bytes failed).
#[inline]
fn or_exit(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size)
    }
    ptr
}

#[cold]
fn out_of_memory(size: usize) -> ! {
    static ENDING: AtomicBool = AtomicBool::new(false);
    if !ENDING.swap(true, Ordering::SeqCst) {
        // Written without allocating: the size's digits into a buffer on the stack.
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = size;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let parts: [&[u8]; 3] = [
            b"heapgrowth: out of memory: an allocation of ",
            &digits[at..],
            b" bytes failed; the address-space limit (ulimit -v) or the memory (a cgroup's limit) \
              is too small for this work: raise it, or give fewer or smaller heap dumps\n",
        ];
        for part in parts {
            // Safety: write on stderr from a buffer that lives for the call.
            unsafe { libc::write(libc::STDERR_FILENO, part.as_ptr().cast(), part.len()) };
        }
        // Dumps hold every secret in the heap; small allocations may still succeed.
        heapgrowth::tempdir::try_delete_all_now();
    }
    // Safety: `_exit` has no preconditions; it ends the process at once (another thread that
    // fails too ends it the same way).
    unsafe { libc::_exit(EXIT_ERROR as i32) }
}

fn main() -> ExitCode {
    heapgrowth::frontends::cli::main()
}
