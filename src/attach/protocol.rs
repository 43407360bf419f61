//! The HotSpot attach protocol, version 1, as every HotSpot JVM since JDK 6 speaks it over the
//! `.java_pid<pid>` Unix socket (HotSpot's `attachListener_linux.cpp`; JDK 24 added a version
//! 2 that JVMs of then still accept version 1 alongside).
//!
//! One request per connection: `1\0<command>\0<arg0>\0<arg1>\0<arg2>\0`, always three
//! arguments (empty ones as a lone `\0`), a command of at most 16 bytes and arguments of at most
//! 1024. The reply is the status as decimal digits and `\n` (0 is success), then the command's
//! output until the JVM closes the connection. Newer JVMs send the status first and stream the
//! output after it, so some failures (a heap dump that cannot be written) arrive as text after
//! status 0.

use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// The protocol version this module speaks.
const PROTOCOL_VERSION: &[u8] = b"1";
/// HotSpot's `AttachOperation::name_length_max`.
pub(crate) const MAX_COMMAND_BYTES: usize = 16;
/// HotSpot's `AttachOperation::arg_length_max`: a longer argument makes the JVM drop the
/// request without an answer.
pub(crate) const MAX_ARGUMENT_BYTES: usize = 1024;
/// The status a JVM answers a request of an unknown protocol version with
/// (`ATTACH_ERROR_BADVERSION`).
pub(crate) const STATUS_BAD_VERSION: i32 = 101;

/// How long one read waits before the caller checks that the JVM still runs: short enough
/// that a JVM that ended is noticed at once, long enough not to spin.
pub(crate) const LIVENESS_POLL: Duration = Duration::from_millis(200);

/// How long a connection that broke off is given to turn out as the JVM's end. The kernel
/// closes an ending process's sockets before the process shows as ended in `/proc`, so right
/// after the connection breaks the JVM can still look alive.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Whether the process ends within [`EXIT_GRACE`] (checked every few milliseconds), for a
/// connection that broke off: a JVM that keeps running dropped the request instead.
pub(crate) fn ends_soon(is_running: &dyn Fn() -> bool) -> bool {
    let deadline = Instant::now() + EXIT_GRACE;
    while is_running() {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Why a request could not be encoded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RequestError {
    /// An argument holds a NUL byte, which would end it early.
    Nul { index: usize },
    /// An argument is longer than the JVM accepts.
    TooLong { index: usize, len: usize },
}

/// Encodes a version-1 request. `command` is one of HotSpot's fixed names.
pub(crate) fn encode_request(command: &str, args: [&[u8]; 3]) -> Result<Vec<u8>, RequestError> {
    debug_assert!(command.len() <= MAX_COMMAND_BYTES && !command.contains('\0'));
    let mut request =
        Vec::with_capacity(command.len() + 8 + args.iter().map(|a| a.len()).sum::<usize>());
    request.extend_from_slice(PROTOCOL_VERSION);
    request.push(0);
    request.extend_from_slice(command.as_bytes());
    request.push(0);
    for (index, arg) in args.into_iter().enumerate() {
        if arg.contains(&0) {
            return Err(RequestError::Nul { index });
        }
        if arg.len() > MAX_ARGUMENT_BYTES {
            return Err(RequestError::TooLong {
                index,
                len: arg.len(),
            });
        }
        request.extend_from_slice(arg);
        request.push(0);
    }
    Ok(request)
}

/// An argument given as a path: its bytes as the file system knows them.
pub(crate) fn path_bytes(path: &std::path::Path) -> &[u8] {
    path.as_os_str().as_bytes()
}

/// The JVM's answer to one request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reply {
    pub status: i32,
    pub output: String,
}

/// Why no complete reply arrived.
#[derive(Debug)]
pub(crate) enum ReplyError {
    /// The process ended (or was found ended when the connection closed early).
    Ended,
    /// The JVM still runs but sent nothing for the whole reply timeout.
    Silent { waited: Duration },
    /// The connection closed before a status line, or the status line is not a number.
    Malformed { detail: String },
    /// Reading the socket failed.
    Io(io::Error),
}

/// Sends `request` and reads the reply. Reads wait at most [`LIVENESS_POLL`] each; between
/// them `is_running` tells whether the JVM still runs, so a JVM that ends mid-request is an
/// error at once and a stopped one after `reply_timeout` of silence, never a hang.
pub(crate) fn exchange(
    stream: &mut UnixStream,
    request: &[u8],
    reply_timeout: Duration,
    is_running: &dyn Fn() -> bool,
) -> Result<Reply, ReplyError> {
    // The request is a few hundred bytes: it fits the socket buffer, so the write does not wait
    // for the JVM; a write error means the JVM closed its end.
    stream
        .set_write_timeout(Some(LIVENESS_POLL))
        .map_err(ReplyError::Io)?;
    if let Err(e) = stream.write_all(request) {
        return Err(if ends_soon(is_running) {
            ReplyError::Ended
        } else {
            ReplyError::Io(e)
        });
    }
    stream
        .set_read_timeout(Some(LIVENESS_POLL))
        .map_err(ReplyError::Io)?;
    let bytes = read_until_closed(stream, reply_timeout, is_running)?;
    parse_reply(bytes, is_running)
}

/// Reads until the JVM closes the connection.
fn read_until_closed(
    stream: &mut impl Read,
    reply_timeout: Duration,
    is_running: &dyn Fn() -> bool,
) -> Result<Vec<u8>, ReplyError> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    let mut last_data = Instant::now();
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => {
                bytes.extend_from_slice(&chunk[..n]);
                last_data = Instant::now();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                if !is_running() {
                    return Err(ReplyError::Ended);
                }
                let waited = last_data.elapsed();
                if waited >= reply_timeout {
                    return Err(ReplyError::Silent { waited });
                }
            }
            // A JVM killed mid-reply can reset the connection instead of closing it.
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset && ends_soon(is_running) => {
                return Err(ReplyError::Ended)
            }
            Err(e) => return Err(ReplyError::Io(e)),
        }
    }
}

/// Splits the status line from the output.
fn parse_reply(bytes: Vec<u8>, is_running: &dyn Fn() -> bool) -> Result<Reply, ReplyError> {
    let Some(newline) = bytes.iter().position(|&b| b == b'\n') else {
        // No status line: the connection closed before the JVM answered. If the JVM ended,
        // that is why; otherwise it dropped the request.
        if ends_soon(is_running) {
            return Err(ReplyError::Ended);
        }
        return Err(ReplyError::Malformed {
            detail: if bytes.is_empty() {
                "closed the connection without answering".to_string()
            } else {
                format!(
                    "sent {:?} without a status line",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
                )
            },
        });
    };
    let line = String::from_utf8_lossy(&bytes[..newline]);
    let status = line
        .trim()
        .parse::<i32>()
        .map_err(|_| ReplyError::Malformed {
            detail: format!("answered with the status line {line:?}, not a number"),
        })?;
    Ok(Reply {
        status,
        output: String::from_utf8_lossy(&bytes[newline + 1..]).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    #[test]
    fn requests_have_three_arguments_each_ending_in_nul() {
        assert_eq!(
            encode_request("inspectheap", [b"-live", b"", b""]).unwrap(),
            b"1\0inspectheap\0-live\0\0\0"
        );
        assert_eq!(
            encode_request("jcmd", [b"GC.class_histogram -all", b"", b""]).unwrap(),
            b"1\0jcmd\0GC.class_histogram -all\0\0\0"
        );
    }

    #[test]
    fn arguments_the_jvm_would_drop_are_refused() {
        assert_eq!(
            encode_request("jcmd", [b"a\0b", b"", b""]),
            Err(RequestError::Nul { index: 0 })
        );
        let long = vec![b'x'; MAX_ARGUMENT_BYTES + 1];
        assert_eq!(
            encode_request("dumpheap", [b"/p", &long, b""]),
            Err(RequestError::TooLong {
                index: 1,
                len: MAX_ARGUMENT_BYTES + 1
            })
        );
        let longest = vec![b'x'; MAX_ARGUMENT_BYTES];
        assert!(encode_request("dumpheap", [&longest, b"", b""]).is_ok());
    }

    /// A fake JVM on the other end of a socket pair: reads the request, then sends `reply`
    /// (or nothing) and closes.
    fn fake_jvm(reply: Option<&'static [u8]>) -> (UnixStream, thread::JoinHandle<Vec<u8>>) {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let jvm = thread::spawn(move || {
            let mut request = vec![0u8; 64];
            let n = theirs.read(&mut request).unwrap();
            request.truncate(n);
            if let Some(reply) = reply {
                theirs.write_all(reply).unwrap();
            }
            request
        });
        (ours, jvm)
    }

    #[test]
    fn status_and_output() {
        let (mut stream, jvm) = fake_jvm(Some(b"0\nHeap dump file created\n"));
        let request = encode_request("dumpheap", [b"/d/x.hprof", b"-all", b""]).unwrap();
        let reply = exchange(&mut stream, &request, Duration::from_secs(60), &|| true).unwrap();
        assert_eq!(
            reply,
            Reply {
                status: 0,
                output: "Heap dump file created\n".into()
            }
        );
        assert_eq!(jvm.join().unwrap(), request);
    }

    #[test]
    fn a_negative_status_with_a_message() {
        let (mut stream, _jvm) = fake_jvm(Some(b"-1\nOperation bogus not recognized!"));
        let reply = exchange(
            &mut stream,
            b"1\0x\0\0\0\0",
            Duration::from_secs(60),
            &|| true,
        )
        .unwrap();
        assert_eq!(reply.status, -1);
        assert_eq!(reply.output, "Operation bogus not recognized!");
    }

    #[test]
    fn a_connection_closed_without_status_is_the_end_of_the_jvm_if_it_ended() {
        let (mut stream, _jvm) = fake_jvm(None);
        let result = exchange(
            &mut stream,
            b"1\0x\0\0\0\0",
            Duration::from_secs(60),
            &|| false,
        );
        assert!(matches!(result, Err(ReplyError::Ended)), "{result:?}");

        let (mut stream, _jvm) = fake_jvm(None);
        let result = exchange(
            &mut stream,
            b"1\0x\0\0\0\0",
            Duration::from_secs(60),
            &|| true,
        );
        assert!(
            matches!(&result, Err(ReplyError::Malformed { detail }) if detail.contains("without answering")),
            "{result:?}"
        );
    }

    #[test]
    fn a_garbled_status_line() {
        let (mut stream, _jvm) = fake_jvm(Some(b"HTTP/1.1 400\n"));
        let result = exchange(
            &mut stream,
            b"1\0x\0\0\0\0",
            Duration::from_secs(60),
            &|| true,
        );
        assert!(
            matches!(result, Err(ReplyError::Malformed { .. })),
            "{result:?}"
        );
    }

    #[test]
    fn a_silent_jvm_that_ended_or_is_stuck_does_not_hang_the_reader() {
        // The peer keeps the connection open and sends nothing.
        let (mut stream, peer) = UnixStream::pair().unwrap();
        let result = exchange(
            &mut stream,
            b"1\0x\0\0\0\0",
            Duration::from_secs(600),
            &|| false,
        );
        assert!(matches!(result, Err(ReplyError::Ended)), "{result:?}");
        let result = exchange(&mut stream, b"1\0x\0\0\0\0", Duration::ZERO, &|| true);
        assert!(
            matches!(result, Err(ReplyError::Silent { .. })),
            "{result:?}"
        );
        drop(peer);
    }
}
