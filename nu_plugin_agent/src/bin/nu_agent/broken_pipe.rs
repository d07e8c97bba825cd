//! A reader that stops early (`nu-agent … | head -1`) ends the output, not
//! the program with a panic: printing to a closed stdout exits quietly
//! with success, as `ls | head -1` does.
//!
//! The signal itself stays ignored (Rust's default): with `SIGPIPE` at its
//! default, a pipeline writing to an external that exited would kill the
//! whole CLI.

/// Make a panic from printing to a closed stdout a quiet exit.
pub fn end_quietly_on_broken_pipe() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        previous(info);
    }));
}

/// Write `bytes` to stdout; a reader that went away is a normal end.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
