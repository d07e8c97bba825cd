//! Output of an external in an earlier statement of a run (`^echo hi; 5`):
//! nu writes it to the stack's stdout, which here is a pipe whose lines
//! join the run's printed output, as `print`'s do — never the terminal of
//! the process (the user's, or the plugin's protocol pipe).

use std::{
    fs::File,
    io::{Read, Write},
    os::fd::OwnedFd,
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use super::print::PrintSink;

/// Written after a run to know when everything before it was read.
const MARK: &[u8] = b"\x1b]nu-agent:flush\x07";
/// Bytes of such output kept per run; the rest is cut with a note.
const KEEP: usize = 1024 * 1024;
/// How long [`StdoutPipe::flush`] waits for the reader.
const FLUSH_WAIT: Duration = Duration::from_millis(500);

/// The pipe a session's stack writes to, and the thread that reads it.
pub(crate) struct StdoutPipe {
    writer: File,
    /// How many flush marks were written, and how many the reader saw.
    written: AtomicU64,
    seen: Arc<(Mutex<u64>, Condvar)>,
}

impl StdoutPipe {
    /// A pipe whose lines go into `sink`.
    pub(crate) fn start(sink: PrintSink) -> std::io::Result<StdoutPipe> {
        let (reader, writer) = std::io::pipe()?;
        let seen = Arc::new((Mutex::new(0u64), Condvar::new()));
        let reader_seen = seen.clone();
        std::thread::Builder::new()
            .name("agent stdout".into())
            .spawn(move || forward(reader, &sink, &reader_seen))?;
        Ok(StdoutPipe {
            writer: File::from(OwnedFd::from(writer)),
            written: AtomicU64::new(0),
            seen,
        })
    }

    /// A handle for a stack's stdout.
    pub(crate) fn file(&self) -> Option<File> {
        self.writer.try_clone().ok()
    }

    /// Wait (briefly) until what was written so far is in the sink.
    pub(crate) fn flush(&self) {
        let mark = self.written.fetch_add(1, Ordering::SeqCst) + 1;
        if (&self.writer).write_all(MARK).is_err() {
            return;
        }
        let (count, changed) = &*self.seen;
        let Ok(guard) = count.lock() else { return };
        let _ = changed.wait_timeout_while(guard, FLUSH_WAIT, |seen| *seen < mark);
    }
}

/// Read `reader` until it closes: each line into `sink`; at a mark, the
/// partial line too, and the mark counted.
fn forward(mut reader: impl Read, sink: &PrintSink, seen: &(Mutex<u64>, Condvar)) {
    let mut pending: Vec<u8> = Vec::new();
    let mut kept = 0usize;
    let mut chunk = [0u8; 8192];
    let emit = |bytes: &[u8], kept: &mut usize| {
        if *kept > KEEP {
            return;
        }
        *kept += bytes.len();
        if *kept > KEEP {
            sink.push("… (more output of earlier statements was cut)".into());
        } else {
            sink.push(String::from_utf8_lossy(bytes).into_owned());
        }
    };
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        pending.extend_from_slice(&chunk[..n]);
        loop {
            let mark = find(&pending, MARK);
            let newline = pending.iter().position(|b| *b == b'\n');
            match (mark, newline) {
                (Some(m), Some(l)) if l < m => {
                    emit(&pending[..l], &mut kept);
                    pending.drain(..=l);
                }
                (Some(m), _) => {
                    if m > 0 {
                        emit(&pending[..m], &mut kept);
                    }
                    pending.drain(..m + MARK.len());
                    kept = 0;
                    let (count, changed) = seen;
                    if let Ok(mut count) = count.lock() {
                        *count += 1;
                    }
                    changed.notify_all();
                }
                (None, Some(l)) => {
                    emit(&pending[..l], &mut kept);
                    pending.drain(..=l);
                }
                (None, None) => break,
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
