//! The GGUF reader on hostile headers, with every allocation counted: a
//! header whose lengths and counts were overwritten with random values, in
//! a 64 MiB file, never panics and never holds more than 100 MiB, whatever
//! sizes it claims.
//!
//! This binary has one test, so the allocation counter sees only it.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    io::Read,
    path::Path,
    sync::atomic::{AtomicUsize, Ordering},
};

use agent_core::llm::{GgufError, GgufFile, GgufInfo};
use proptest::prelude::*;

/// Counts the bytes allocated now and the most at any moment.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most a header may make the reader hold.
const LIMIT: usize = 100 << 20;
/// The size of the pretend file: the header, then zeros.
const FILE_SIZE: u64 = 64 << 20;

/// `header` followed by zeros up to `size` bytes, made as it is read.
struct Padded<'a> {
    header: &'a [u8],
    size: u64,
    pos: u64,
}

impl Read for Padded<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.size.saturating_sub(self.pos)) as usize;
        let at = self.pos as usize;
        let from_header = self.header.len().saturating_sub(at).min(n);
        if from_header > 0 {
            buf[..from_header].copy_from_slice(&self.header[at..at + from_header]);
        }
        buf[from_header..n].fill(0);
        self.pos += n as u64;
        Ok(n)
    }
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// A GGUF header with strings, scalars, a short and a long array, a
/// nested array and two tensors.
fn header() -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(2u64.to_le_bytes());
    out.extend(6u64.to_le_bytes());
    string(&mut out, "general.architecture");
    out.extend(8u32.to_le_bytes());
    string(&mut out, "llama");
    string(&mut out, "llama.context_length");
    out.extend(4u32.to_le_bytes());
    out.extend(4096u32.to_le_bytes());
    string(&mut out, "general.tags");
    out.extend(9u32.to_le_bytes());
    out.extend(8u32.to_le_bytes());
    out.extend(3u64.to_le_bytes());
    for tag in ["a", "bb", "ccc"] {
        string(&mut out, tag);
    }
    string(&mut out, "tokenizer.ggml.tokens");
    out.extend(9u32.to_le_bytes());
    out.extend(8u32.to_le_bytes());
    out.extend(300u64.to_le_bytes());
    for i in 0..300 {
        string(&mut out, &format!("tok{i}"));
    }
    string(&mut out, "x.nested");
    out.extend(9u32.to_le_bytes());
    out.extend(9u32.to_le_bytes());
    out.extend(2u64.to_le_bytes());
    for _ in 0..2 {
        out.extend(6u32.to_le_bytes());
        out.extend(2u64.to_le_bytes());
        out.extend(1.0f32.to_le_bytes());
        out.extend(2.0f32.to_le_bytes());
    }
    string(&mut out, "tokenizer.chat_template");
    out.extend(8u32.to_le_bytes());
    string(&mut out, "{{ messages }}");
    for (name, offset) in [("a.weight", 0u64), ("b.weight", 1024)] {
        string(&mut out, name);
        out.extend(2u32.to_le_bytes());
        out.extend(64u64.to_le_bytes());
        out.extend(16u64.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        out.extend(offset.to_le_bytes());
    }
    out
}

/// Parse `bytes` as the start of a 64 MiB file; the most bytes held at
/// once while doing so.
fn peak_while_parsing(bytes: &[u8]) -> (Result<GgufFile, GgufError>, usize) {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let reader = Padded {
        header: bytes,
        size: FILE_SIZE,
        pos: 0,
    };
    let result = GgufFile::from_reader(reader, FILE_SIZE, Path::new("hostile.gguf"));
    let peak = PEAK.load(Ordering::SeqCst).saturating_sub(base);
    (result, peak)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn hostile_lengths_and_bytes_stay_within_bounds(
        words in proptest::collection::vec((any::<usize>(), any::<u64>(), 0u32..4), 1..4),
        bytes in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        static CLEAN: std::sync::Once = std::sync::Once::new();
        CLEAN.call_once(|| {
            let (clean, _) = peak_while_parsing(&header());
            let info = GgufInfo::from_file(&clean.unwrap(), Path::new("h.gguf"), FILE_SIZE).unwrap();
            assert_eq!((info.architecture.as_str(), info.parameters), ("llama", 2048));
            assert_eq!(info.context_length, Some(4096));
            assert!(info.chat_template && !info.has_tool_call_token);
            // The counter sees what the reader keeps: a 10 MB chat template.
            let mut big = b"GGUF".to_vec();
            big.extend(3u32.to_le_bytes());
            big.extend(0u64.to_le_bytes());
            big.extend(1u64.to_le_bytes());
            string(&mut big, "tokenizer.chat_template");
            big.extend(8u32.to_le_bytes());
            big.extend(10_000_000u64.to_le_bytes());
            let (parsed, peak) = peak_while_parsing(&big);
            assert!(parsed.is_ok());
            assert!(peak >= 10_000_000, "{peak}");
        });
        let mut header = header();
        let len = header.len();
        for (at, value, scale) in words {
            // Small, file-sized and huge claims alike.
            let value = match scale {
                0 => value % 256,
                1 => value % (FILE_SIZE * 2),
                2 => value % (1 << 40),
                _ => value,
            };
            let at = at % (len - 8);
            header[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
        for (at, value) in bytes {
            header[at % len] = value;
        }
        let (result, peak) = peak_while_parsing(&header);
        prop_assert!(peak < LIMIT, "held {peak} bytes");
        match result {
            Ok(gguf) => {
                let _ = GgufInfo::from_file(&gguf, Path::new("hostile.gguf"), FILE_SIZE);
            }
            Err(error) => {
                let message = error.to_string();
                prop_assert!(message.contains("hostile.gguf"), "{}", message);
            }
        }
    }
}
