//! Draining a pipeline's output into one `Value`, within the output cap
//! (counted as [`super::cap`] says).
//!
//! External commands are read directly from their pipes (stdout and stderr
//! separately), which also avoids `ByteStream::into_value`'s panic when
//! stderr is captured.

use std::io::Read;

use nu_protocol::{ByteStreamType, PipelineData, ShellError, Span, Value};

use super::cap::{CutPart, RowCount, cut_to_fit};

/// The drained output of one run.
pub(crate) struct Collected {
    pub value: Value,
    pub stderr: Option<Value>,
    pub exit_code: Option<i32>,
    /// Set when the output was cut at the cap: the part that reached it.
    pub cut: Option<CutPart>,
}

/// Drain `data` into a value of at most `max_bytes` (bytes of a byte
/// stream, text or binary; compact JSON of rows and records). `stop` is
/// called when a stream reaches the cap, to interrupt the evaluation and
/// kill the processes still writing.
pub(crate) fn collect(
    data: PipelineData,
    span: Span,
    max_bytes: usize,
    stop: &dyn Fn(),
) -> Result<Collected, ShellError> {
    let plain = |value| Collected {
        value,
        stderr: None,
        exit_code: None,
        cut: None,
    };
    match data {
        PipelineData::Empty => Ok(plain(Value::nothing(span))),
        PipelineData::Value(Value::Error { error, .. }, _) => Err(*error),
        PipelineData::Value(value, _) => {
            let (value, cut) = cut_to_fit(value, max_bytes);
            Ok(Collected {
                cut,
                ..plain(value)
            })
        }
        PipelineData::ListStream(stream, _) => {
            let stream_span = stream.span();
            let mut rows = Vec::new();
            let mut count = RowCount::new(max_bytes);
            let mut cut = None;
            for row in stream {
                if let Value::Error { error, .. } = row {
                    return Err(*error);
                }
                if !count.admit(&row) {
                    cut = Some(CutPart::Rows { kept: count.rows() });
                    stop();
                    break;
                }
                rows.push(row);
            }
            Ok(Collected {
                cut,
                ..plain(Value::list(rows, stream_span))
            })
        }
        PipelineData::ByteStream(stream, _) => {
            let type_ = stream.type_();
            let stream_span = stream.span();
            match stream.into_child() {
                Ok(mut child) => {
                    child.ignore_error(true);
                    let stdout = child.stdout.take();
                    let stderr = child.stderr.take();
                    let stderr_reader =
                        stderr.map(|pipe| std::thread::spawn(move || read_capped(pipe, max_bytes)));
                    let (out_bytes, out_capped) = match stdout {
                        Some(pipe) => read_capped(pipe, max_bytes),
                        None => (Vec::new(), false),
                    };
                    if out_capped {
                        stop();
                    }
                    let (err_bytes, err_capped) = match stderr_reader.map(|h| h.join()) {
                        Some(Ok(read)) => read,
                        _ => (Vec::new(), false),
                    };
                    if err_capped {
                        stop();
                    }
                    let status = child.clone_exit_status_future();
                    let exit_code = status
                        .lock()
                        .ok()
                        .and_then(|mut status| status.wait(stream_span).ok())
                        .map(|status| status.code());
                    Ok(Collected {
                        value: bytes_to_value(out_bytes, type_, stream_span),
                        stderr: Some(bytes_to_value(
                            err_bytes,
                            ByteStreamType::Unknown,
                            stream_span,
                        )),
                        exit_code,
                        cut: if out_capped {
                            Some(CutPart::Bytes)
                        } else {
                            err_capped.then_some(CutPart::Stderr)
                        },
                    })
                }
                Err(stream) => {
                    let (bytes, capped) = match stream.reader() {
                        Some(reader) => read_capped(reader, max_bytes),
                        None => (Vec::new(), false),
                    };
                    if capped {
                        stop();
                    }
                    Ok(Collected {
                        cut: capped.then_some(CutPart::Bytes),
                        ..plain(bytes_to_value(bytes, type_, stream_span))
                    })
                }
            }
        }
    }
}

/// Read at most `max` bytes; the flag says whether more was available.
fn read_capped(mut reader: impl Read, max: usize) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return (buf, false),
            Ok(n) => {
                let room = max.saturating_sub(buf.len());
                if n > room {
                    buf.extend_from_slice(&chunk[..room]);
                    return (buf, true);
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            // A killed process or an interrupted stream: keep what we have.
            Err(_) => return (buf, false),
        }
    }
}

/// Text when the bytes are UTF-8 (a cut multi-byte character at the end is
/// dropped), binary otherwise or when the stream says binary.
pub(crate) fn bytes_to_value(bytes: Vec<u8>, type_: ByteStreamType, span: Span) -> Value {
    if type_ == ByteStreamType::Binary {
        return Value::binary(bytes, span);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Value::string(text, span),
        Err(err) => {
            let utf8 = err.utf8_error();
            let bytes = err.into_bytes();
            // Only an incomplete character at the very end: a cut, not binary.
            if utf8.error_len().is_none() && bytes.len() - utf8.valid_up_to() < 4 {
                let text = String::from_utf8_lossy(&bytes[..utf8.valid_up_to()]).into_owned();
                Value::string(text, span)
            } else {
                Value::binary(bytes, span)
            }
        }
    }
}
