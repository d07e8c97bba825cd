//! How a value travels between the parent and the worker: after the line
//! of its message, never inside it.
//!
//! Text and binary (an external's output, the common big value) go as
//! their raw bytes behind a tag and their length, so a NUL is one byte
//! (JSON writes six), and the reader allocates the value once, at its
//! size, after checking the size against its budget. Any other value goes
//! as MessagePack (`rmp-serde`, which nu's own plugin protocol uses for
//! values; structs as arrays, the compact form) in chunks of at most
//! [`CHUNK`] bytes, each behind its length, ended by an empty chunk: the
//! writer encodes straight onto the pipe and the reader decodes straight
//! off it, so neither side holds an encoded copy, and the reader counts
//! every chunk against its budget before reading it. MessagePack of rows
//! takes at most [`WIRE_PER_JSON_BYTE`] bytes per byte of their compact
//! JSON (the count the output cap uses), which bounds what a worker sends
//! for a run within its cap.
//!
//! ```text
//! b's' <u64 length> <UTF-8 bytes>
//! b'b' <u64 length> <bytes>
//! b'm' (<u32 length> <MessagePack bytes>)* <u32 0>
//! ```
//! All lengths are little-endian. A writer that cannot encode a value
//! ends its chunks with the length `u32::MAX`; the reader then takes an
//! error value in its place.

use std::io::{self, BufRead, Read, Write};

use nu_protocol::{ShellError, Span, Value, shell_error::generic::GenericError};
use serde::Deserialize;

/// Most bytes of one MessagePack chunk.
const CHUNK: usize = 64 * 1024;
/// Ends the chunks of a value the writer could not encode.
const ABANDONED: u32 = u32::MAX;
/// Most bytes of MessagePack per byte of compact JSON, with spans below
/// 4 GiB of source: a list of zero file sizes or durations is the worst
/// case (23 bytes per `0,`).
pub(super) const WIRE_PER_JSON_BYTE: u64 = 12;

const TEXT: u8 = b's';
const BINARY: u8 = b'b';
const PACKED: u8 = b'm';

/// Write `value` in the format above.
pub(super) fn write_value(out: &mut impl Write, value: &Value) -> io::Result<()> {
    match value {
        Value::String { val, .. } => write_raw(out, TEXT, val.as_bytes()),
        Value::Binary { val, .. } => write_raw(out, BINARY, val),
        other => {
            out.write_all(&[PACKED])?;
            let mut chunks = ChunkWriter {
                out,
                buffer: Vec::with_capacity(CHUNK),
                failed: None,
            };
            let encoded = rmp_serde::encode::write(&mut chunks, other);
            if let Some(err) = chunks.failed.take() {
                // The pipe itself failed: nothing more can be said on it.
                return Err(err);
            }
            match encoded {
                Ok(()) => {
                    chunks.flush_chunk()?;
                    chunks.out.write_all(&0u32.to_le_bytes())
                }
                Err(_) => chunks.out.write_all(&ABANDONED.to_le_bytes()),
            }
        }
    }
}

fn write_raw(out: &mut impl Write, tag: u8, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&[tag])?;
    out.write_all(&(bytes.len() as u64).to_le_bytes())?;
    out.write_all(bytes)
}

/// Cuts what MessagePack writes into length-prefixed chunks.
struct ChunkWriter<'a, W: Write> {
    out: &'a mut W,
    buffer: Vec<u8>,
    /// The error of the pipe underneath, apart from the encoder's own.
    failed: Option<io::Error>,
}

impl<W: Write> ChunkWriter<'_, W> {
    fn flush_chunk(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        // CHUNK fits in a u32.
        let length = self.buffer.len() as u32;
        self.out.write_all(&length.to_le_bytes())?;
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}

impl<W: Write> Write for ChunkWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = CHUNK - self.buffer.len();
        let taken = buf.len().min(room);
        self.buffer.extend_from_slice(&buf[..taken]);
        if self.buffer.len() == CHUNK
            && let Err(err) = self.flush_chunk()
        {
            let kind = err.kind();
            self.failed = Some(err);
            return Err(kind.into());
        }
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Read one value written by [`write_value`], taking what it reads from
/// `budget`. Anything longer than the budget, cut off, or not in the
/// format is an error that says so.
pub(super) fn read_value(input: &mut impl BufRead, budget: &mut u64) -> Result<Value, String> {
    let tag = read_array::<1>(input, budget)?[0];
    match tag {
        TEXT | BINARY => {
            let length = u64::from_le_bytes(read_array::<8>(input, budget)?);
            let bytes = read_raw(input, length, budget)?;
            if tag == BINARY {
                return Ok(Value::binary(bytes, Span::unknown()));
            }
            String::from_utf8(bytes)
                .map(|text| Value::string(text, Span::unknown()))
                .map_err(|_| "text that is not UTF-8".to_string())
        }
        PACKED => {
            let mut chunks = ChunkReader {
                input,
                budget,
                left: 0,
                end: None,
            };
            let decoded = {
                let mut decoder = rmp_serde::Deserializer::new(&mut chunks);
                Value::deserialize(&mut decoder)
            };
            match decoded {
                Ok(value) => match chunks.finish() {
                    Ok(()) => Ok(value),
                    Err(End::Abandoned) => Ok(abandoned()),
                    Err(End::Invalid(why)) => Err(why),
                },
                Err(err) => match chunks.end {
                    Some(Err(End::Abandoned)) => Ok(abandoned()),
                    Some(Err(End::Invalid(why))) => Err(why),
                    _ => Err(format!("an unreadable value ({err})")),
                },
            }
        }
        other => Err(format!("a value of unknown kind {other:#04x}")),
    }
}

fn read_array<const N: usize>(input: &mut impl Read, budget: &mut u64) -> Result<[u8; N], String> {
    take_budget(budget, N as u64)?;
    let mut bytes = [0u8; N];
    input.read_exact(&mut bytes).map_err(|err| cut_off(&err))?;
    Ok(bytes)
}

/// `length` bytes into a buffer of exactly that size, allocated once the
/// length is known to be within the budget.
fn read_raw(input: &mut impl Read, length: u64, budget: &mut u64) -> Result<Vec<u8>, String> {
    take_budget(budget, length)?;
    let size = usize::try_from(length).map_err(|_| too_long(length))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size)
        .map_err(|_| format!("a value of {length} bytes, more than this process can hold"))?;
    let read = input
        .take(length)
        .read_to_end(&mut bytes)
        .map_err(|err| cut_off(&err))?;
    if read as u64 != length {
        return Err("a message cut off by the end of the pipe".into());
    }
    Ok(bytes)
}

fn take_budget(budget: &mut u64, bytes: u64) -> Result<(), String> {
    *budget = budget.checked_sub(bytes).ok_or_else(|| too_long(bytes))?;
    Ok(())
}

fn too_long(bytes: u64) -> String {
    format!("a message longer than allowed (a part of {bytes} bytes past the limit)")
}

fn cut_off(err: &io::Error) -> String {
    if err.kind() == io::ErrorKind::UnexpectedEof {
        "a message cut off by the end of the pipe".into()
    } else {
        format!("cannot read the pipe: {err}")
    }
}

/// What stands for a value the writer could not encode.
fn abandoned() -> Value {
    Value::error(
        ShellError::Generic(
            GenericError::new_internal(
                "the value cannot be sent back from the sandbox",
                "it has no serial form (a closure holding a custom value?)",
            )
            .with_help("turn it into plain data (a table, text) in the pipeline"),
        ),
        Span::unknown(),
    )
}

/// How the chunks of a value ended, when not with the empty chunk.
enum End {
    Abandoned,
    Invalid(String),
}

/// Reads the chunks of one MessagePack value as one stream.
struct ChunkReader<'a, R: Read> {
    input: &'a mut R,
    budget: &'a mut u64,
    /// Bytes left in the current chunk.
    left: u32,
    /// Set once the chunks ended (or could not be read).
    end: Option<Result<(), End>>,
}

impl<R: Read> ChunkReader<'_, R> {
    /// Read the next chunk's length; `false` at the end of the chunks.
    fn next_chunk(&mut self) -> bool {
        if self.end.is_some() {
            return false;
        }
        match read_array::<4>(self.input, self.budget).map(u32::from_le_bytes) {
            Ok(0) => self.end = Some(Ok(())),
            Ok(ABANDONED) => self.end = Some(Err(End::Abandoned)),
            Ok(length) if usize::try_from(length).is_ok_and(|l| l <= CHUNK) => {
                match take_budget(self.budget, u64::from(length)) {
                    Ok(()) => {
                        self.left = length;
                        return true;
                    }
                    Err(why) => self.end = Some(Err(End::Invalid(why))),
                }
            }
            Ok(length) => {
                self.end = Some(Err(End::Invalid(format!(
                    "a chunk of {length} bytes (at most {CHUNK})"
                ))))
            }
            Err(why) => self.end = Some(Err(End::Invalid(why))),
        }
        false
    }

    /// After the decoder: the chunks must end right here.
    fn finish(mut self) -> Result<(), End> {
        if self.left > 0 {
            return Err(End::Invalid("a value with bytes after its end".into()));
        }
        if self.end.is_none() && self.next_chunk() {
            return Err(End::Invalid("a value with bytes after its end".into()));
        }
        self.end.unwrap_or(Ok(()))
    }
}

impl<R: Read> Read for ChunkReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 && !self.next_chunk() {
            // The decoder reports the early end; `finish` says why.
            return Ok(0);
        }
        let want = buf.len().min(self.left as usize);
        let read = self.input.read(&mut buf[..want])?;
        if read == 0 && want > 0 {
            self.end = Some(Err(End::Invalid(
                "a message cut off by the end of the pipe".into(),
            )));
            return Ok(0);
        }
        // `read` is at most `left`, a u32.
        self.left -= read as u32;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use nu_protocol::{
        Range, Record, Value,
        ast::{CellPath, PathMember},
        casing::Casing,
        engine::Closure,
    };

    use super::*;
    use crate::shell::json_size;

    fn wire(value: &Value) -> Vec<u8> {
        let mut wire = Vec::new();
        write_value(&mut wire, value).unwrap();
        wire
    }

    fn back(wire: &[u8], budget: u64) -> Result<Value, String> {
        let mut budget = budget;
        let mut input = wire;
        let value = read_value(&mut input, &mut budget)?;
        assert!(input.is_empty(), "{} bytes left over", input.len());
        Ok(value)
    }

    fn every_kind() -> Value {
        let s = Span::unknown();
        let mut record = Record::new();
        record.push("bool", Value::bool(true, s));
        record.push("int", Value::int(-7, s));
        record.push("float", Value::float(2.5, s));
        record.push("text", Value::string("a\nb\0", s));
        record.push("glob", Value::glob("*.rs", true, s));
        record.push("size", Value::filesize(1500, s));
        record.push("duration", Value::duration(3_000_000, s));
        record.push(
            "date",
            Value::date(
                chrono::DateTime::parse_from_rfc3339("2024-05-01T10:00:00+02:00").unwrap(),
                s,
            ),
        );
        record.push(
            "range",
            Value::range(
                Range::IntRange(
                    nu_protocol::IntRange::new(
                        Value::int(1, s),
                        Value::int(2, s),
                        Value::int(9, s),
                        nu_protocol::ast::RangeInclusion::Inclusive,
                        s,
                    )
                    .unwrap(),
                ),
                s,
            ),
        );
        record.push("bytes", Value::binary(vec![0, 159, 146], s));
        record.push(
            "path",
            Value::cell_path(
                CellPath {
                    members: vec![PathMember::string(
                        "name".into(),
                        false,
                        Casing::Sensitive,
                        s,
                    )],
                },
                s,
            ),
        );
        record.push(
            "closure",
            Value::closure(
                Closure {
                    block_id: nu_protocol::BlockId::new(3),
                    captures: vec![(nu_protocol::VarId::new(1), Value::int(4, s))],
                },
                s,
            ),
        );
        record.push(
            "error",
            Value::error(
                ShellError::Generic(GenericError::new("broken", "here", s)),
                s,
            ),
        );
        record.push("nothing", Value::nothing(s));
        record.push("rows", Value::list(vec![Value::int(1, s)], s));
        Value::list(vec![Value::record(record, s)], s)
    }

    #[test]
    fn every_kind_of_value_survives() {
        let value = every_kind();
        let back = back(&wire(&value), u64::MAX).unwrap();
        // Errors and closures do not compare equal: compare their forms.
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }

    #[test]
    fn text_and_binary_go_as_their_bytes() {
        let text = Value::string("\0".repeat(1 << 20), Span::unknown());
        let sent = wire(&text);
        assert_eq!(sent.len(), 1 + 8 + (1 << 20));
        assert_eq!(back(&sent, sent.len() as u64).unwrap(), text);
        let bytes = Value::binary(vec![0xff; 1000], Span::unknown());
        assert_eq!(back(&wire(&bytes), u64::MAX).unwrap(), bytes);
    }

    #[test]
    fn big_rows_come_in_chunks() {
        let rows = Value::list(
            (0..100_000)
                .map(|i| Value::int(i, Span::unknown()))
                .collect(),
            Span::unknown(),
        );
        let sent = wire(&rows);
        assert!(sent.len() > 2 * CHUNK);
        assert_eq!(back(&sent, sent.len() as u64).unwrap(), rows);
    }

    #[test]
    fn past_the_budget_cut_off_or_garbage_is_an_error() {
        let text = wire(&Value::string("x".repeat(1000), Span::unknown()));
        let why = back(&text, 999).unwrap_err();
        assert!(why.contains("longer than allowed"), "{why}");
        let why = back(&text[..500], u64::MAX).unwrap_err();
        assert!(why.contains("cut off"), "{why}");
        // A length far past the budget is refused before anything is
        // allocated for it.
        let mut lying = vec![TEXT];
        lying.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(
            back(&lying, 1 << 20)
                .unwrap_err()
                .contains("longer than allowed")
        );

        let rows = wire(&Value::test_list(
            (0..10_000).map(Value::test_int).collect(),
        ));
        let why = back(&rows, (rows.len() - 1) as u64).unwrap_err();
        assert!(why.contains("longer than allowed"), "{why}");
        let why = back(&rows[..rows.len() - 4], u64::MAX).unwrap_err();
        assert!(why.contains("cut off"), "{why}");
        let mut oversized = vec![PACKED];
        oversized.extend_from_slice(&(CHUNK as u32 + 1).to_le_bytes());
        assert!(
            back(&oversized, u64::MAX)
                .unwrap_err()
                .contains("a chunk of")
        );
        let why = back(b"m\x03\x00\x00\x00\xc1\xc1\xc1\x00\x00\x00\x00", 100).unwrap_err();
        assert!(why.contains("unreadable value"), "{why}");
        assert!(back(b"?", 100).unwrap_err().contains("unknown kind"));
    }

    #[test]
    fn an_abandoned_value_arrives_as_an_error_value() {
        let mut sent = vec![PACKED];
        sent.extend_from_slice(&3u32.to_le_bytes());
        sent.extend_from_slice(&[0x81, 0xa3, b'I']);
        sent.extend_from_slice(&ABANDONED.to_le_bytes());
        let value = back(&sent, 100).unwrap();
        assert!(matches!(value, Value::Error { .. }), "{value:?}");
    }

    /// The bound the parent's read limit rests on: rows take at most
    /// [`WIRE_PER_JSON_BYTE`] bytes per byte of their compact JSON.
    #[test]
    fn rows_take_at_most_the_wire_factor_per_json_byte() {
        // Spans as far into the engine's sources as they get.
        let s = Span::new(u32::MAX as usize - 10, u32::MAX as usize);
        let shapes: Vec<fn(Span) -> Value> = vec![
            |s| Value::int(0, s),
            |s| Value::filesize(0, s),
            |s| Value::duration(0, s),
            |s| Value::float(0.0, s),
            |s| Value::string("", s),
            |s| Value::nothing(s),
            |s| Value::bool(true, s),
            |s| Value::list(vec![], s),
            |s| Value::record(Record::new(), s),
            |s| Value::binary(vec![], s),
            |s| Value::binary(vec![200; 10], s),
            |s| {
                let mut record = Record::new();
                record.push("a", Value::int(0, s));
                Value::record(record, s)
            },
            |s| Value::glob("", false, s),
        ];
        for shape in shapes {
            let rows = Value::list((0..1000).map(|_| shape(s)).collect(), s);
            let json = json_size(&rows) as u64;
            let sent = wire(&rows).len() as u64;
            assert!(
                sent <= WIRE_PER_JSON_BYTE * json,
                "{:?}: {sent} bytes for {json} of JSON",
                shape(s)
            );
        }
    }
}
