//! `glob` that skips file names that are not UTF-8, as `ls` does: nu's
//! `glob` returns them with U+FFFD in place of the bad bytes, a path that
//! names no file (so `glob * | each { open $in }` fails on it). Each
//! skipped name leaves a warning in the run's printed output, where `ls`'s
//! goes.

use std::{
    ffi::OsStr,
    os::unix::ffi::OsStrExt,
    path::{Path, PathBuf},
};

use nu_protocol::{
    PipelineData, ShellError, Value,
    engine::{Call, Command, EngineState, Stack},
};

use super::print::PrintSink;

/// Wraps the engine's `glob` (nu's, or a guard around it).
#[derive(Clone)]
pub(crate) struct Utf8Glob {
    inner: Box<dyn Command>,
    sink: PrintSink,
}

impl Utf8Glob {
    pub(crate) fn new(inner: Box<dyn Command>, sink: PrintSink) -> Utf8Glob {
        Utf8Glob { inner, sink }
    }
}

impl Command for Utf8Glob {
    crate::shell::forward_to_inner!();

    fn run(
        &self,
        engine_state: &EngineState,
        stack: &mut Stack,
        call: &Call,
        input: PipelineData,
    ) -> Result<PipelineData, ShellError> {
        let sink = self.sink.clone();
        let keep = move |value: &Value| match value {
            Value::String { val, .. } => match not_utf8(val) {
                Some(real) => {
                    sink.push(format!(
                        "warning: glob skipped {real}: its name is not UTF-8"
                    ));
                    false
                }
                None => true,
            },
            _ => true,
        };
        Ok(match self.inner.run(engine_state, stack, call, input)? {
            PipelineData::ListStream(stream, meta) => {
                PipelineData::list_stream(stream.modify(|values| values.filter(keep)), meta)
            }
            PipelineData::Value(Value::List { vals, .. }, meta) => {
                let span = call.head;
                let vals = vals.into_iter().filter(|v| keep(v)).collect();
                PipelineData::Value(Value::list(vals, span), meta)
            }
            other => other,
        })
    }
}

/// The real name (bad bytes as `\xNN`) when `path` is a lossy rendering of
/// a file name that is not UTF-8: it holds U+FFFD and names no file, while
/// its directory holds a name that renders the same. `None` for an
/// ordinary path (a real name may hold U+FFFD itself).
fn not_utf8(path: &str) -> Option<String> {
    if !path.contains('\u{FFFD}') {
        return None;
    }
    let path = Path::new(path);
    if path.symlink_metadata().is_ok() {
        return None;
    }
    let shown = path.file_name()?.to_string_lossy().into_owned();
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let entries = std::fs::read_dir(dir.unwrap_or(Path::new("."))).ok();
    let real: Option<PathBuf> = entries.into_iter().flatten().flatten().find_map(|entry| {
        let name = entry.file_name();
        (name.to_str().is_none() && name.to_string_lossy() == shown).then(|| entry.path())
    });
    Some(match real {
        Some(real) => escaped(real.as_os_str()),
        None => path.display().to_string(),
    })
}

/// `name` with the bytes that are not UTF-8 written as `\xNN`.
fn escaped(name: &OsStr) -> String {
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lossy_name_is_told_from_a_real_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(OsStr::from_bytes(b"bad\xff.txt")), "x").unwrap();
        std::fs::write(dir.path().join("real\u{FFFD}.txt"), "x").unwrap();
        let lossy = dir.path().join("bad\u{FFFD}.txt");
        assert_eq!(
            not_utf8(&lossy.to_string_lossy()),
            Some(format!("{}/bad\\xFF.txt", dir.path().display()))
        );
        let real = dir.path().join("real\u{FFFD}.txt");
        assert_eq!(not_utf8(&real.to_string_lossy()), None);
        assert_eq!(not_utf8("plain.txt"), None);
    }
}
