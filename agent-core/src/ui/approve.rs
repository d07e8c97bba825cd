//! The approval prompt on the terminal.
//!
//! ```text
//! ? ls *.iso | each { rm $in.name }
//!   delete ⚠: 3 files, 8.1 GB: a.iso, b.iso, c.zip
//! Run it? [y]es [N]o [e]dit [?]details
//! ```
//! One key answers (the terminal is put in raw mode for the read, so
//! Ctrl+C is a key that means No, not a signal). A warning flips the
//! default to No and hides "always".

use std::{
    fs::{File, OpenOptions},
    io::{Read, Write},
    os::fd::AsRawFd,
    sync::Mutex,
};

use crate::policy::{Approval, ApprovalRequest, Approver};

/// Asks on the controlling terminal (`/dev/tty`).
pub struct TerminalApprover {
    tty: Mutex<File>,
}

impl TerminalApprover {
    /// The terminal approver, or `None` when there is no terminal.
    pub fn open() -> Option<TerminalApprover> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .ok()?;
        // SAFETY: isatty only inspects the descriptor.
        if unsafe { libc::isatty(tty.as_raw_fd()) } != 1 {
            return None;
        }
        Some(TerminalApprover {
            tty: Mutex::new(tty),
        })
    }
}

/// What one key press means.
#[derive(Debug, PartialEq, Eq)]
enum Key {
    Yes,
    No,
    Always,
    Edit,
    Details,
    Default,
    Other,
}

fn key(byte: u8) -> Key {
    match byte {
        b'y' | b'Y' => Key::Yes,
        b'n' | b'N' | b'q' | 0x03 | 0x04 | 0x1b => Key::No,
        b'a' | b'A' => Key::Always,
        b'e' | b'E' => Key::Edit,
        b'?' | b'd' => Key::Details,
        b'\r' | b'\n' => Key::Default,
        _ => Key::Other,
    }
}

/// The prompt line for a request.
fn prompt(request: &ApprovalRequest) -> &'static str {
    if request.warning {
        "Run it? [y]es [N]o [e]dit [?]details "
    } else {
        "Run it? [Y]es [n]o [a]lways [e]dit [?]details "
    }
}

/// Decide from one key; `None` means ask again.
fn decide(request: &ApprovalRequest, key: Key) -> Option<Approval> {
    match key {
        Key::Yes => Some(Approval::Yes),
        Key::No => Some(Approval::No),
        Key::Always if !request.warning => Some(Approval::Always),
        Key::Default if request.warning => Some(Approval::No),
        Key::Default => Some(Approval::Yes),
        _ => None,
    }
}

/// One line of the pipeline for display: control characters escaped and
/// long runs of spaces collapsed, so padding cannot hide a second command.
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut spaces = 0;
    for c in text.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        if spaces > 0 {
            out.push_str(if spaces > 3 {
                " ⟨…spaces…⟩ "
            } else {
                " "
            });
            spaces = 0;
        }
        match c {
            '\n' => out.push_str(" ⏎ "),
            '\t' => out.push(' '),
            c if c.is_control() || is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max).collect();
        format!("{cut}…")
    } else {
        out
    }
}

/// Zero-width and bidi-control characters (Trojan Source).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

impl TerminalApprover {
    fn ask(&self, tty: &mut File, request: &ApprovalRequest) -> std::io::Result<Approval> {
        writeln!(tty, "\r\n? {}\r", one_line(&request.pipeline, 160))?;
        for label in &request.labels {
            writeln!(tty, "  {}\r", one_line(label, 160))?;
        }
        loop {
            write!(tty, "{}", prompt(request))?;
            tty.flush()?;
            let byte = read_key(tty)?;
            writeln!(tty, "\r")?;
            let key = key(byte);
            match key {
                Key::Details => {
                    writeln!(tty, "  pipeline: {}\r", one_line(&request.pipeline, 4000))?;
                    writeln!(tty, "  why: {}\r", one_line(&request.reason, 1000))?;
                    if request.privileged {
                        writeln!(
                            tty,
                            "  runs as another user; you will be asked for the password\r"
                        )?;
                    }
                }
                Key::Edit => {
                    // A one-line pipeline is there to change; a longer one
                    // is retyped (empty keeps it as it is).
                    let (hint, initial) = if request.pipeline.contains('\n') {
                        (" (empty keeps it as is)", "")
                    } else {
                        ("", request.pipeline.as_str())
                    };
                    write!(tty, "edit{hint}> ")?;
                    tty.flush()?;
                    let line = {
                        let _raw = TermiosGuard::new(tty, |t| {
                            t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
                            t.c_cc[libc::VMIN] = 1;
                            t.c_cc[libc::VTIME] = 0;
                        })?;
                        let mut input = tty.try_clone()?;
                        edit_line(&mut input, tty, initial)?
                    };
                    writeln!(tty, "\r")?;
                    let edited = line.as_deref().map(str::trim).unwrap_or_default();
                    if !edited.is_empty() && edited != request.pipeline.trim() {
                        return Ok(Approval::Edit(edited.to_string()));
                    }
                }
                other => {
                    if let Some(answer) = decide(request, other) {
                        return Ok(answer);
                    }
                }
            }
        }
    }
}

impl Approver for TerminalApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        let mut tty = self.tty.lock().unwrap_or_else(|p| p.into_inner());
        self.ask(&mut tty, request).unwrap_or(Approval::No)
    }

    fn password(&self, prompt: &str) -> Option<String> {
        let mut tty = self.tty.lock().unwrap_or_else(|p| p.into_inner());
        write!(tty, "{prompt}").ok()?;
        tty.flush().ok()?;
        let _echo_off = TermiosGuard::new(&tty, |t| t.c_lflag &= !(libc::ECHO)).ok()?;
        let line = read_line_raw(&mut tty).ok()?;
        writeln!(tty, "\r").ok()?;
        Some(line.trim_end_matches(['\r', '\n']).to_string())
    }
}

/// Restores the terminal's settings when dropped.
struct TermiosGuard {
    fd: i32,
    saved: libc::termios,
}

impl TermiosGuard {
    fn new(tty: &File, change: impl FnOnce(&mut libc::termios)) -> std::io::Result<TermiosGuard> {
        let fd = tty.as_raw_fd();
        // SAFETY: termios is plain data; tcgetattr fills it for a valid fd.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut changed = saved;
        change(&mut changed);
        // SAFETY: a valid fd and a termios derived from its own settings.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &changed) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(TermiosGuard { fd, saved })
    }
}

impl Drop for TermiosGuard {
    fn drop(&mut self) {
        // SAFETY: restoring the settings read in `new` on the same fd.
        unsafe {
            libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved);
        }
    }
}

/// One key, in raw mode (no echo, no line buffering, Ctrl+C is a byte).
fn read_key(tty: &mut File) -> std::io::Result<u8> {
    let _raw = TermiosGuard::new(tty, |t| {
        t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
    })?;
    let mut byte = [0u8; 1];
    match tty.read(&mut byte)? {
        0 => Ok(0x04),
        _ => Ok(byte[0]),
    }
}

/// Edit a line that starts as `initial`, reading keys from `input` (a
/// terminal in raw mode) and echoing to `output`. Enter ends it;
/// Backspace, Ctrl+U (the whole line) and Ctrl+W (a word) delete from the
/// end; arrow keys are ignored; Ctrl+C, Ctrl+D on an empty line and a
/// lone Esc cancel (`None`).
fn edit_line(
    input: &mut impl Read,
    output: &mut impl Write,
    initial: &str,
) -> std::io::Result<Option<String>> {
    let mut line: Vec<char> = initial.chars().collect();
    write!(output, "{initial}")?;
    output.flush()?;
    let mut pending: Vec<u8> = Vec::new();
    let next = |input: &mut dyn Read| -> std::io::Result<Option<u8>> {
        let mut byte = [0u8; 1];
        Ok((input.read(&mut byte)? == 1).then_some(byte[0]))
    };
    let erase = |output: &mut dyn Write, count: usize| -> std::io::Result<()> {
        for _ in 0..count {
            write!(output, "\x08 \x08")?;
        }
        Ok(())
    };
    loop {
        let Some(byte) = next(input)? else {
            return Ok(None);
        };
        match byte {
            b'\r' | b'\n' => return Ok(Some(line.into_iter().collect())),
            0x03 => return Ok(None),
            0x04 if line.is_empty() => return Ok(None),
            0x1b => match next(input)? {
                // An arrow or function key: ESC [ X or ESC O X.
                Some(b'[') | Some(b'O') => {
                    next(input)?;
                }
                _ => return Ok(None),
            },
            0x7f | 0x08 => {
                if line.pop().is_some() {
                    erase(output, 1)?;
                }
            }
            0x15 => {
                erase(output, line.len())?;
                line.clear();
            }
            0x17 => {
                let mut count = 0;
                while line.last().is_some_and(|c| *c == ' ') {
                    line.pop();
                    count += 1;
                }
                while line.last().is_some_and(|c| *c != ' ') {
                    line.pop();
                    count += 1;
                }
                erase(output, count)?;
            }
            byte if byte < 0x20 => {}
            byte => {
                pending.push(byte);
                match std::str::from_utf8(&pending) {
                    Ok(text) => {
                        write!(output, "{text}")?;
                        line.extend(text.chars());
                        pending.clear();
                    }
                    Err(e) if e.error_len().is_some() || pending.len() >= 4 => pending.clear(),
                    Err(_) => {}
                }
            }
        }
        output.flush()?;
    }
}

fn read_line_raw(tty: &mut File) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while tty.read(&mut byte)? == 1 && byte[0] != b'\n' {
        line.push(byte[0]);
        if line.len() > 64 * 1024 {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(initial: &str, keys: &[u8]) -> Option<String> {
        let mut out = Vec::new();
        edit_line(&mut std::io::Cursor::new(keys.to_vec()), &mut out, initial).unwrap()
    }

    #[test]
    fn the_edit_line_starts_with_the_pipeline() {
        assert_eq!(edited("mkdir one", b"\r").as_deref(), Some("mkdir one"));
        assert_eq!(
            edited("mkdir one", b"\x7f\x7f\x7ftwo\r").as_deref(),
            Some("mkdir two")
        );
        assert_eq!(edited("mkdir one", b"\x17x\r").as_deref(), Some("mkdir x"));
        assert_eq!(edited("mkdir one", b"\x15ls\r").as_deref(), Some("ls"));
        // Arrow keys are ignored; UTF-8 goes in whole.
        assert_eq!(
            edited("ls", b"\x1b[D \xc3\xa9\r").as_deref(),
            Some("ls \u{e9}")
        );
        assert_eq!(edited("ls", b"\x03"), None);
        assert_eq!(edited("ls", b"x"), None, "the input ended");
    }

    fn request(warning: bool) -> ApprovalRequest {
        ApprovalRequest {
            labels: vec!["delete: 1 file".into()],
            steps: vec!["rm a".into()],
            pipeline: "rm a".into(),
            reason: "deletes files".into(),
            warning,
            privileged: false,
        }
    }

    #[test]
    fn a_warning_defaults_to_no_and_hides_always() {
        assert_eq!(decide(&request(false), Key::Default), Some(Approval::Yes));
        assert_eq!(decide(&request(true), Key::Default), Some(Approval::No));
        assert_eq!(decide(&request(false), Key::Always), Some(Approval::Always));
        assert_eq!(decide(&request(true), Key::Always), None);
        assert_eq!(decide(&request(true), key(0x03)), Some(Approval::No));
        assert!(prompt(&request(true)).contains("[N]o"));
        assert!(!prompt(&request(true)).contains("always"));
    }

    #[test]
    fn padding_and_invisible_characters_show() {
        let padded = format!("ls{}\nrm -rf ~", " ".repeat(5000));
        let shown = one_line(&padded, 200);
        assert!(shown.contains("rm -rf ~"), "{shown}");
        assert!(one_line("rm -rf ~/docs\u{202e}txt.exe", 100).contains("\\u{202e}"));
    }
}
