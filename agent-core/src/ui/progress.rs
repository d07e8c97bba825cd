//! The terminal view of an agent run: a spinner while the model thinks or a
//! step runs (on a terminal only), one line per step with the policy's
//! verdict, and a one-line preview of each result. Without a terminal the
//! lines are plain and append-only (logs, CI): a line when a model turn
//! starts and a heartbeat line while it (or a step) runs, so a long turn
//! still shows life. Quiet, only errors are drawn.
//!
//! ```text
//! ● mkdir build [confirm write: writes files]
//!   └ $out.0 · nothing · approved by user · 74ms
//! ● ls | select name type [allow read]
//!   └ $out.1 · table 4 rows × 2 columns · 12ms
//! ⠋ thinking… (step 3/15, 1.2s)  the directory now holds Cargo.toml
//! ```

use std::{
    ffi::OsString,
    io::Write,
    sync::{
        Arc, Mutex, MutexGuard, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crate::{
    agent::{AgentEvent, StepStatus},
    policy::Verdict,
    shell::humanize_duration,
};

/// Spinner frames.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How often the spinner redraws.
const TICK: Duration = Duration::from_millis(100);
/// Characters of streamed text kept for the spinner line's preview.
const PREVIEW_CHARS: usize = 40;
/// The fewest characters a cut preview keeps, however narrow the terminal.
const MIN_PREVIEW: usize = 16;
/// How often a heartbeat line is written without a terminal, unless
/// `NU_AGENT_HEARTBEAT_SECS` says otherwise.
pub const HEARTBEAT: Duration = Duration::from_secs(10);
/// The variable that sets the heartbeat interval in seconds (0: none).
pub const HEARTBEAT_VAR: &str = "NU_AGENT_HEARTBEAT_SECS";
/// Carriage return and clear-to-end-of-line: redraws the spinner line.
const CLEAR_LINE: &str = "\r\x1b[2K";

/// SGR colour codes.
const BOLD: &str = "1";
const DIM: &str = "2";
const RED: &str = "31";
const GREEN: &str = "32";
const YELLOW: &str = "33";
const CYAN: &str = "36";

/// How the view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// Colour the output (ANSI SGR codes).
    pub color: bool,
    /// Animate a spinner line with `\r` redraws (a terminal only).
    pub animate: bool,
    /// Columns of the terminal; lines are cut to fit.
    pub width: usize,
    /// Echo streamed answer text as it comes; false when the front end
    /// prints the answer itself (the spinner then previews it instead).
    pub show_text: bool,
    /// Show reasoning text and each step's `why`.
    pub verbose: bool,
    /// Draw only errors (the end of a run that failed or was cancelled):
    /// no spinner, no step lines, no heartbeat.
    pub quiet: bool,
    /// Without animation: how often a line says a model turn or a step is
    /// still going (`None`: never).
    pub heartbeat: Option<Duration>,
}

impl ViewOptions {
    /// For stderr: colour (unless `NO_COLOR` is set) and animation when it
    /// is a terminal, its width (or `COLUMNS`, or 80); verbose when
    /// `NU_AGENT_VERBOSE` is set; a heartbeat every
    /// `NU_AGENT_HEARTBEAT_SECS` (default 10) when it is not a terminal.
    /// The answer is left to the front end.
    pub fn for_stderr() -> ViewOptions {
        ViewOptions::for_stderr_with(&|name| std::env::var_os(name))
    }

    /// [`ViewOptions::for_stderr`] with the variables read through
    /// `lookup` (a plugin reads its host's environment).
    pub fn for_stderr_with(lookup: &dyn Fn(&str) -> Option<OsString>) -> ViewOptions {
        // SAFETY: isatty only inspects the descriptor.
        let tty = unsafe { libc::isatty(2) } == 1;
        let set = |name: &str| lookup(name).is_some_and(|v| !v.is_empty());
        ViewOptions {
            color: tty && !set("NO_COLOR"),
            animate: tty,
            width: terminal_width(tty),
            show_text: false,
            verbose: set("NU_AGENT_VERBOSE"),
            quiet: false,
            heartbeat: heartbeat_interval(lookup(HEARTBEAT_VAR)),
        }
    }

    /// These options, drawing only errors when `quiet`.
    pub fn with_quiet(mut self, quiet: bool) -> ViewOptions {
        self.quiet = quiet;
        self
    }
}

/// The heartbeat interval from `NU_AGENT_HEARTBEAT_SECS`: whole or
/// fractional seconds, 0 for none; unset or unreadable, the default.
fn heartbeat_interval(value: Option<OsString>) -> Option<Duration> {
    let Some(value) = value else {
        return Some(HEARTBEAT);
    };
    match value.to_str().map(str::trim).map(str::parse::<f64>) {
        Some(Ok(0.0)) => None,
        Some(Ok(secs)) if secs.is_finite() && secs > 0.0 => {
            Some(Duration::from_secs_f64(secs.min(86_400.0)))
        }
        _ => Some(HEARTBEAT),
    }
}

/// Columns of stderr's terminal, `COLUMNS`, or 80.
fn terminal_width(tty: bool) -> usize {
    if tty {
        // SAFETY: TIOCGWINSZ fills a plain struct for a terminal descriptor.
        unsafe {
            let mut size: libc::winsize = std::mem::zeroed();
            if libc::ioctl(2, libc::TIOCGWINSZ, &mut size) == 0 && size.ws_col > 0 {
                return size.ws_col as usize;
            }
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|c| *c > 20)
        .unwrap_or(80)
}

/// What the spinner is waiting for.
#[derive(Clone, Copy)]
enum Waiting {
    /// A model turn.
    Model { step: usize, max_steps: usize },
    /// A running step.
    Step,
}

/// The spinner line's content.
struct Spinner {
    waiting: Waiting,
    since: Instant,
    /// The tail of the streamed answer text, one line.
    preview: String,
    /// Pieces of text (about one token each) streamed in this turn.
    tokens: usize,
    /// Heartbeat lines written for this wait.
    beats: u32,
}

/// Streamed text on screen.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Text,
    Reasoning,
}

/// Everything the view draws with; behind a mutex shared with the spinner
/// thread.
struct State {
    out: Box<dyn Write + Send>,
    options: ViewOptions,
    spinner: Option<Spinner>,
    /// The spinner line is on screen.
    drawn: bool,
    frame: usize,
    /// Streamed text being echoed, if any.
    stream: Option<Stream>,
    /// The echoed text has not ended its last line.
    open_line: bool,
}

impl State {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.options.color && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Remove the spinner line from the screen.
    fn clear(&mut self) {
        if self.drawn {
            let _ = write!(self.out, "{CLEAR_LINE}");
            self.drawn = false;
        }
    }

    /// End the echoed text's line.
    fn end_stream(&mut self) {
        if self.open_line {
            let _ = writeln!(self.out);
        }
        self.stream = None;
        self.open_line = false;
    }

    /// One whole line; the spinner, if any, is redrawn under it.
    fn line(&mut self, text: &str) {
        self.clear();
        self.end_stream();
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
        self.draw_spinner();
    }

    /// Echo a chunk of streamed text; the spinner stops.
    fn echo(&mut self, kind: Stream, text: &str) {
        let text = printable(text);
        if text.is_empty() {
            return;
        }
        self.spinner = None;
        self.clear();
        if self.stream != Some(kind) {
            self.end_stream();
            self.stream = Some(kind);
        }
        let shown = match kind {
            Stream::Text => text.clone(),
            Stream::Reasoning => self.paint(DIM, &text),
        };
        let _ = write!(self.out, "{shown}");
        let _ = self.out.flush();
        self.open_line = !text.ends_with('\n');
    }

    fn draw_spinner(&mut self) {
        if !self.options.animate {
            return;
        }
        let Some(spinner) = &self.spinner else {
            return;
        };
        let elapsed = spinner.since.elapsed().as_secs_f64();
        let label = match spinner.waiting {
            Waiting::Model { step, max_steps } => {
                format!("thinking… (step {step}/{max_steps}, {elapsed:.1}s)")
            }
            Waiting::Step => format!("running… {elapsed:.1}s"),
        };
        // One column short of the width, so the line never wraps.
        let room = self.options.width.saturating_sub(1);
        let label = fit(&label, room.saturating_sub(2));
        let preview_room = room.saturating_sub(label.chars().count() + 4);
        let preview = spinner.preview.trim_start();
        let preview = if preview.is_empty() || preview_room < 8 {
            String::new()
        } else {
            format!("  {}", self.paint(DIM, &fit_tail(preview, preview_room)))
        };
        let frame = FRAMES[self.frame % FRAMES.len()].to_string();
        let text = format!("{} {label}{preview}", self.paint(CYAN, &frame));
        let _ = write!(self.out, "{CLEAR_LINE}{text}");
        let _ = self.out.flush();
        self.drawn = true;
    }

    /// Without animation: a plain line when the wait has gone on for
    /// another heartbeat interval.
    fn beat(&mut self) {
        let Some(every) = self.options.heartbeat.filter(|_| !self.options.animate) else {
            return;
        };
        let Some(spinner) = &mut self.spinner else {
            return;
        };
        let elapsed = spinner.since.elapsed();
        let due = every.saturating_mul(spinner.beats.saturating_add(1));
        if elapsed < due {
            return;
        }
        spinner.beats = spinner.beats.saturating_add(1);
        let secs = elapsed.as_secs();
        let text = match spinner.waiting {
            Waiting::Model { .. } if spinner.tokens > 0 => {
                format!("thinking… {secs} s, {} tokens", spinner.tokens)
            }
            Waiting::Model { .. } => format!("thinking… {secs} s"),
            Waiting::Step => format!("running… {secs} s"),
        };
        let text = self.paint(DIM, &text);
        self.line(&text);
    }

    fn spin(&mut self, waiting: Waiting) {
        self.end_stream();
        self.spinner = Some(Spinner {
            waiting,
            since: Instant::now(),
            preview: String::new(),
            tokens: 0,
            beats: 0,
        });
        self.frame = 0;
        self.draw_spinner();
    }

    /// Stop the spinner and clear its line.
    fn stop(&mut self) {
        self.spinner = None;
        self.clear();
        let _ = self.out.flush();
    }

    fn proposed(&mut self, pipeline: &str, why: &str, verdict: Verdict, label: &str) {
        self.stop();
        let width = self.options.width;
        let mut lines = pipeline.trim().lines();
        let first = one_line(lines.next().unwrap_or(""));
        let more = if lines.next().is_some() { " …" } else { "" };
        let tag = if label.is_empty() {
            format!("[{}]", verdict.as_str())
        } else {
            format!("[{} {}]", verdict.as_str(), one_line(label))
        };
        let tag = fit_tag(&tag, (width / 2).max(12));
        // "● " + pipeline + " " + tag
        let room = width
            .saturating_sub(tag.chars().count() + 3)
            .max(MIN_PREVIEW);
        let shown = fit(&format!("{first}{more}"), room);
        let colour = match verdict {
            Verdict::Allow => GREEN,
            Verdict::Confirm => YELLOW,
            Verdict::Block | Verdict::Refuse => RED,
        };
        let text = format!(
            "{} {shown} {}",
            self.paint(BOLD, "●"),
            self.paint(colour, &tag)
        );
        self.line(&text);
        let why = one_line(why);
        if self.options.verbose && !why.is_empty() {
            let why = self.paint(DIM, &fit(&format!("  why: {why}"), width));
            self.line(&why);
        }
    }

    fn observed(
        &mut self,
        status: StepStatus,
        out: Option<usize>,
        preview: &str,
        approved_by: Option<&str>,
        duration: Duration,
    ) {
        self.stop();
        let lead = out.map(|n| format!("$out.{n}"));
        let mut trail = Vec::new();
        if let Some(who) = approved_by.filter(|who| *who != "policy") {
            trail.push(format!("approved by {}", one_line(who)));
        }
        if out.is_some() {
            trail.push(humanize_duration(duration));
        }
        // "  └ " + lead + " · " + … + " · " + trail parts
        let fixed = 4
            + lead.as_ref().map_or(0, |l| l.chars().count() + 3)
            + trail.iter().map(|t| t.chars().count() + 3).sum::<usize>();
        let room = self.options.width.saturating_sub(fixed).max(MIN_PREVIEW);
        let preview = one_line(preview);
        let middle = if status == StepStatus::Ok {
            fit(&preview, room)
        } else {
            let word = status.as_str();
            let colour = match status {
                StepStatus::Stopped | StepStatus::Unparsable => YELLOW,
                _ => RED,
            };
            let word_shown = self.paint(colour, word);
            if preview.is_empty() {
                word_shown
            } else {
                let rest = room.saturating_sub(word.chars().count() + 2).max(8);
                format!("{word_shown}: {}", fit(&preview, rest))
            }
        };
        let parts: Vec<String> = lead
            .into_iter()
            .chain((!middle.is_empty()).then_some(middle))
            .chain(trail)
            .collect();
        self.line(&format!("  └ {}", parts.join(" · ")));
    }

    fn draw(&mut self, event: &AgentEvent) {
        let width = self.options.width;
        if self.options.quiet && !matches!(event, AgentEvent::Failed { .. } | AgentEvent::Cancelled)
        {
            return;
        }
        match event {
            AgentEvent::Thinking { step, max_steps } => {
                let (step, max_steps) = (*step, *max_steps);
                if !self.options.animate {
                    let text = self.paint(DIM, &format!("thinking… (step {step}/{max_steps})"));
                    self.line(&text);
                }
                self.spin(Waiting::Model { step, max_steps });
            }
            AgentEvent::Text(text) if self.options.show_text => self.echo(Stream::Text, text),
            AgentEvent::Text(text) => {
                if let Some(spinner) = &mut self.spinner {
                    spinner.tokens += 1;
                    spinner.preview.push_str(&one_line(text));
                    spinner.preview = tail(&spinner.preview, PREVIEW_CHARS);
                    // Redrawn by the next tick.
                }
            }
            AgentEvent::Reasoning(text) if self.options.verbose => {
                self.echo(Stream::Reasoning, text)
            }
            AgentEvent::Reasoning(_) => {
                if let Some(spinner) = &mut self.spinner {
                    spinner.tokens += 1;
                }
            }
            AgentEvent::Notice(text) => {
                let text = self.paint(YELLOW, &format!("note: {}", one_line(text)));
                self.line(&text);
            }
            AgentEvent::Proposed {
                pipeline,
                why,
                verdict,
                label,
                ..
            } => self.proposed(pipeline, why, *verdict, label),
            AgentEvent::AwaitingApproval { .. } => {
                self.stop();
                self.end_stream();
            }
            AgentEvent::Running { .. } => self.spin(Waiting::Step),
            AgentEvent::Observed {
                status,
                out,
                preview,
                approved_by,
                duration,
                ..
            } => self.observed(*status, *out, preview, approved_by.as_deref(), *duration),
            AgentEvent::LookedUp { command, .. } => {
                let text = fit(&format!("  ≡ help {}", one_line(command)), width);
                let text = self.paint(DIM, &text);
                self.line(&text);
            }
            AgentEvent::Repaired { message, .. } => {
                let text = fit(&format!("  ↻ {}", one_line(message)), width);
                let text = self.paint(DIM, &text);
                self.line(&text);
            }
            AgentEvent::External(text) => {
                let text = fit(&format!("  ⇢ {}", one_line(text)), width);
                self.line(&text);
            }
            AgentEvent::Answered { .. } => {
                self.stop();
                self.end_stream();
            }
            AgentEvent::Failed { error } => {
                self.stop();
                let text = self.paint(RED, &format!("✗ {}", printable(error.trim_end())));
                self.line(&text);
            }
            AgentEvent::Cancelled => {
                self.stop();
                let text = self.paint(RED, "✗ cancelled");
                self.line(&text);
            }
            // The step's line shows the pipeline that ran.
            AgentEvent::RuleApplied { .. } => {}
        }
    }
}

/// Draws [`AgentEvent`]s; safe to share between the loop and its spinner
/// thread.
pub struct ProgressView {
    state: Arc<Mutex<State>>,
    running: Arc<AtomicBool>,
    ticker: Mutex<Option<JoinHandle<()>>>,
}

impl ProgressView {
    /// A view writing to `out`; with `options.animate`, a thread redraws
    /// the spinner line about ten times a second, and without it the same
    /// thread writes the heartbeat lines (none when quiet).
    pub fn new(out: Box<dyn Write + Send>, options: ViewOptions) -> ProgressView {
        let state = Arc::new(Mutex::new(State {
            out,
            options,
            spinner: None,
            drawn: false,
            frame: 0,
            stream: None,
            open_line: false,
        }));
        let running = Arc::new(AtomicBool::new(true));
        let ticks = options.animate || options.heartbeat.is_some();
        // A heartbeat shorter than a frame (tests) is checked as often.
        let every = match options.heartbeat {
            Some(beat) if !options.animate => beat.min(TICK),
            _ => TICK,
        };
        let ticker = if ticks && !options.quiet {
            let state = state.clone();
            let running = running.clone();
            // Without the thread the view still draws, only unanimated.
            std::thread::Builder::new()
                .name("progress-spinner".into())
                .spawn(move || tick(&state, &running, every))
                .ok()
        } else {
            None
        };
        ProgressView {
            state,
            running,
            ticker: Mutex::new(ticker),
        }
    }

    /// The view on stderr, with [`ViewOptions::for_stderr`].
    pub fn stderr() -> ProgressView {
        ProgressView::new(Box::new(std::io::stderr()), ViewOptions::for_stderr())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Draw one event.
    pub fn event(&self, event: &AgentEvent) {
        self.state().draw(event);
    }

    /// Clear the spinner line (before an approval prompt takes the
    /// terminal, or at the end); idempotent.
    pub fn pause(&self) {
        let mut state = self.state();
        state.stop();
        state.end_stream();
    }

    /// Stop the spinner thread (joined before this returns, so nothing is
    /// drawn after it) and clear its line; idempotent.
    pub fn finish(&self) {
        self.running.store(false, Ordering::SeqCst);
        let handle = self
            .ticker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = handle {
            handle.thread().unpark();
            let _ = handle.join();
        }
        self.pause();
    }
}

impl Drop for ProgressView {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The spinner thread: redraw while a spinner shows (or write a heartbeat
/// line when one is due), until `running` ends.
fn tick(state: &Mutex<State>, running: &AtomicBool, every: Duration) {
    loop {
        std::thread::park_timeout(every);
        if !running.load(Ordering::SeqCst) {
            return;
        }
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        if !running.load(Ordering::SeqCst) {
            return;
        }
        if state.spinner.is_some() {
            state.frame = state.frame.wrapping_add(1);
            state.draw_spinner();
            state.beat();
        }
    }
}

/// `text` cut to `width` characters, with `…` where it was cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// A bracketed tag cut to `width` characters, keeping its closing `]`.
fn fit_tag(tag: &str, width: usize) -> String {
    if tag.chars().count() <= width {
        return tag.to_string();
    }
    let mut cut = fit(tag.trim_end_matches(']'), width.saturating_sub(1));
    cut.push(']');
    cut
}

/// The last `width` characters of `text`, with `…` where it was cut.
fn fit_tail(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_string();
    }
    let keep = width.saturating_sub(1);
    let mut cut = String::from("…");
    cut.extend(text.chars().skip(count - keep));
    cut
}

/// The last `count` characters of `text`.
fn tail(text: &str, count: usize) -> String {
    let total = text.chars().count();
    text.chars().skip(total.saturating_sub(count)).collect()
}

/// Text safe to write to a terminal: control characters other than newline
/// and tab, and invisible ones, escaped (an escape sequence in a model's
/// text must not move the cursor or recolour the screen).
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c if c.is_control() || is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// `printable` on one line: line breaks and tabs become spaces.
fn one_line(text: &str) -> String {
    printable(text)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

/// Zero-width and bidi-control characters.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
                .into_owned()
        }
        fn len(&self) -> usize {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
        }
    }

    fn plain(width: usize) -> ViewOptions {
        ViewOptions {
            color: false,
            animate: false,
            width,
            show_text: false,
            verbose: false,
            quiet: false,
            heartbeat: None,
        }
    }

    fn open(options: ViewOptions) -> (ProgressView, Shared) {
        let out = Shared::default();
        (ProgressView::new(Box::new(out.clone()), options), out)
    }

    fn proposed(pipeline: &str, verdict: Verdict, label: &str) -> AgentEvent {
        AgentEvent::Proposed {
            step: 1,
            pipeline: pipeline.into(),
            why: "to see".into(),
            verdict,
            label: label.into(),
        }
    }

    fn observed(status: StepStatus, out: Option<usize>, preview: &str) -> AgentEvent {
        AgentEvent::Observed {
            step: 1,
            status,
            out,
            preview: preview.into(),
            approved_by: out.map(|_| "policy".to_string()),
            duration: Duration::from_millis(400),
        }
    }

    fn thinking(step: usize) -> AgentEvent {
        AgentEvent::Thinking {
            step,
            max_steps: 15,
        }
    }

    #[test]
    fn an_episode_draws_plain_append_only_lines() {
        let (view, out) = open(plain(80));
        let events = [
            thinking(1),
            AgentEvent::Text("let me look".into()),
            AgentEvent::Reasoning("hidden unless verbose".into()),
            AgentEvent::LookedUp {
                step: 1,
                command: "ls".into(),
            },
            proposed("ls | length", Verdict::Allow, "read"),
            AgentEvent::Running {
                step: 1,
                pipeline: "ls | length".into(),
            },
            observed(StepStatus::Ok, Some(0), "3"),
            thinking(2),
            AgentEvent::Repaired {
                step: 2,
                message: "the call could not be read; asked again".into(),
            },
            proposed("mkdir x", Verdict::Confirm, "write: x"),
            AgentEvent::AwaitingApproval {
                step: 2,
                pipeline: "mkdir x".into(),
            },
            observed(StepStatus::Denied, None, "not approved: write: x"),
            proposed("touch y", Verdict::Confirm, "write: y"),
            AgentEvent::Observed {
                step: 3,
                status: StepStatus::Ok,
                out: Some(1),
                preview: "nothing".into(),
                approved_by: Some("user".into()),
                duration: Duration::from_millis(1500),
            },
            proposed("open nope", Verdict::Allow, "read"),
            observed(StepStatus::Failed, Some(2), "file not found"),
            proposed("rm -rf /", Verdict::Block, "delete: /"),
            observed(StepStatus::Blocked, None, ""),
            AgentEvent::Notice("older results shortened".into()),
            AgentEvent::External("the user typed: also count dirs".into()),
            thinking(3),
            AgentEvent::Answered {
                text: "3 files".into(),
                out: None,
            },
        ];
        for event in &events {
            view.event(event);
        }
        view.finish();
        assert_eq!(
            out.text(),
            "thinking… (step 1/15)\n\
             \x20 ≡ help ls\n\
             ● ls | length [allow read]\n\
             \x20 └ $out.0 · 3 · 400ms\n\
             thinking… (step 2/15)\n\
             \x20 ↻ the call could not be read; asked again\n\
             ● mkdir x [confirm write: x]\n\
             \x20 └ denied: not approved: write: x\n\
             ● touch y [confirm write: y]\n\
             \x20 └ $out.1 · nothing · approved by user · 1.5s\n\
             ● open nope [allow read]\n\
             \x20 └ $out.2 · failed: file not found · 400ms\n\
             ● rm -rf / [block delete: /]\n\
             \x20 └ blocked\n\
             note: older results shortened\n\
             \x20 ⇢ the user typed: also count dirs\n\
             thinking… (step 3/15)\n"
        );
    }

    #[test]
    fn the_end_of_a_run_that_did_not_answer_says_why() {
        let (view, out) = open(plain(80));
        view.event(&thinking(1));
        view.event(&AgentEvent::Failed {
            error: "no answer within 15 steps".into(),
        });
        view.event(&AgentEvent::Cancelled);
        view.finish();
        assert_eq!(
            out.text(),
            "thinking… (step 1/15)\n✗ no answer within 15 steps\n✗ cancelled\n"
        );
    }

    #[test]
    fn without_a_terminal_a_timer_writes_heartbeat_lines() {
        let (view, out) = open(ViewOptions {
            heartbeat: Some(Duration::from_millis(60)),
            ..plain(80)
        });
        view.event(&thinking(1));
        view.event(&AgentEvent::Text("one ".into()));
        view.event(&AgentEvent::Reasoning("two".into()));
        // Nothing more streams: the beats come from the timer alone.
        std::thread::sleep(Duration::from_millis(230));
        view.event(&proposed("ls", Verdict::Allow, "read"));
        let len = out.len();
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(out.len(), len, "no beat between turns");
        view.event(&AgentEvent::Running {
            step: 1,
            pipeline: "ls".into(),
        });
        std::thread::sleep(Duration::from_millis(200));
        view.event(&observed(StepStatus::Ok, Some(0), "3"));
        view.finish();
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "thinking… (step 1/15)", "{text}");
        let beats = lines
            .iter()
            .filter(|l| **l == "thinking… 0 s, 2 tokens")
            .count();
        assert!(beats >= 2, "{text}");
        assert!(
            text.contains("● ls [allow read]\nrunning… 0 s\n")
                && text.ends_with("running… 0 s\n  └ $out.0 · 3 · 400ms\n"),
            "{text}"
        );
        assert!(!text.contains('\r') && !text.contains('\x1b'), "{text:?}");
        let len = out.len();
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(out.len(), len, "nothing after finish");
    }

    #[test]
    fn a_turn_without_streamed_text_beats_without_a_token_count() {
        let (view, out) = open(ViewOptions {
            heartbeat: Some(Duration::from_millis(40)),
            ..plain(80)
        });
        view.event(&thinking(2));
        std::thread::sleep(Duration::from_millis(120));
        view.finish();
        let text = out.text();
        assert!(
            text.starts_with("thinking… (step 2/15)\nthinking… 0 s\n"),
            "{text}"
        );
    }

    #[test]
    fn quiet_draws_only_errors() {
        let (view, out) = open(ViewOptions {
            quiet: true,
            verbose: true,
            heartbeat: Some(Duration::from_millis(20)),
            ..plain(80)
        });
        view.event(&thinking(1));
        view.event(&AgentEvent::Reasoning("hmm".into()));
        std::thread::sleep(Duration::from_millis(80));
        view.event(&proposed("ls", Verdict::Allow, "read"));
        view.event(&observed(StepStatus::Ok, Some(0), "3"));
        view.event(&AgentEvent::Notice("older results shortened".into()));
        view.event(&AgentEvent::Failed {
            error: "no answer within 15 steps".into(),
        });
        view.event(&AgentEvent::Cancelled);
        view.finish();
        assert_eq!(out.text(), "✗ no answer within 15 steps\n✗ cancelled\n");
    }

    #[test]
    fn the_heartbeat_interval_comes_from_the_variable() {
        let secs = |v: &str| heartbeat_interval(Some(OsString::from(v)));
        assert_eq!(heartbeat_interval(None), Some(HEARTBEAT));
        assert_eq!(secs("2"), Some(Duration::from_secs(2)));
        assert_eq!(secs(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(secs("0"), None);
        assert_eq!(secs("soon"), Some(HEARTBEAT));
        assert_eq!(secs("-3"), Some(HEARTBEAT));
        let options = ViewOptions::for_stderr_with(&|name| {
            (name == HEARTBEAT_VAR).then(|| OsString::from("1"))
        });
        assert_eq!(options.heartbeat, Some(Duration::from_secs(1)));
        assert!(!options.quiet && options.with_quiet(true).quiet);
    }

    #[test]
    fn verbose_shows_turns_why_and_reasoning() {
        let (view, out) = open(ViewOptions {
            verbose: true,
            ..plain(80)
        });
        view.event(&thinking(1));
        view.event(&AgentEvent::Reasoning("first I list".into()));
        view.event(&AgentEvent::Reasoning(" the files".into()));
        view.event(&proposed("ls", Verdict::Allow, "read"));
        view.finish();
        assert_eq!(
            out.text(),
            "thinking… (step 1/15)\nfirst I list the files\n● ls [allow read]\n  why: to see\n"
        );
    }

    #[test]
    fn long_pipelines_and_previews_are_cut_to_the_width() {
        let (view, out) = open(plain(40));
        view.event(&proposed(
            "ls | where name =~ 'a very long pattern that goes on' | length\n| first",
            Verdict::Block,
            "",
        ));
        view.event(&observed(StepStatus::Ok, Some(7), &"x".repeat(200)));
        view.event(&proposed("ls\nrm a", Verdict::Allow, "read"));
        view.finish();
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("● ls | where"), "{}", lines[0]);
        assert!(lines[0].contains("…") && lines[0].ends_with(" [block]"));
        assert!(lines[1].starts_with("  └ $out.7 · xxx") && lines[1].contains("x… · 400ms"));
        for line in &lines[..2] {
            assert_eq!(line.chars().count(), 40, "{line}");
        }
        assert_eq!(lines[2], "● ls … [allow read]", "a second line is marked");
        assert!(!text.contains('\x1b') && !text.contains('\r'));
    }

    #[test]
    fn verdict_colours_show_only_with_color() {
        let cases = [
            (Verdict::Allow, "\x1b[32m[allow read]\x1b[0m"),
            (Verdict::Confirm, "\x1b[33m[confirm read]\x1b[0m"),
            (Verdict::Block, "\x1b[31m[block read]\x1b[0m"),
            (Verdict::Refuse, "\x1b[31m[refuse read]\x1b[0m"),
        ];
        for (verdict, coloured) in cases {
            let (view, out) = open(ViewOptions {
                color: true,
                ..plain(80)
            });
            view.event(&proposed("ls", verdict, "read"));
            view.event(&observed(StepStatus::Failed, Some(0), "boom"));
            view.finish();
            let text = out.text();
            assert!(text.contains(coloured), "{text:?}");
            assert!(text.contains("\x1b[31mfailed\x1b[0m: boom"), "{text:?}");

            let (view, out) = open(plain(80));
            view.event(&proposed("ls", verdict, "read"));
            view.finish();
            let text = out.text();
            assert!(!text.contains('\x1b'), "{text:?}");
            assert!(text.contains(&format!("[{} read]", verdict.as_str())));
        }
    }

    #[test]
    fn escape_sequences_in_model_text_are_not_written_raw() {
        let (view, out) = open(ViewOptions {
            show_text: true,
            ..plain(80)
        });
        view.event(&proposed("ls\x1b[2J", Verdict::Allow, "read"));
        view.event(&AgentEvent::Text("done\x1b]0;title\x07".into()));
        view.finish();
        let text = out.text();
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
        assert!(text.contains("ls\\u{1b}[2J"), "{text:?}");
    }

    #[test]
    fn streamed_text_is_echoed_and_ended_with_a_newline() {
        let (view, out) = open(ViewOptions {
            show_text: true,
            ..plain(80)
        });
        view.event(&thinking(1));
        view.event(&AgentEvent::Text("I will ".into()));
        view.event(&AgentEvent::Text("count".into()));
        view.event(&proposed("ls | length", Verdict::Allow, "read"));
        view.event(&thinking(2));
        view.event(&AgentEvent::Text("There are 3.".into()));
        view.event(&AgentEvent::Answered {
            text: "There are 3.".into(),
            out: None,
        });
        view.finish();
        assert_eq!(
            out.text(),
            "thinking… (step 1/15)\nI will count\n● ls | length [allow read]\n\
             thinking… (step 2/15)\nThere are 3.\n"
        );
    }

    #[test]
    fn the_spinner_previews_the_streamed_text_dimmed() {
        let (view, out) = open(ViewOptions {
            color: true,
            animate: true,
            ..plain(120)
        });
        view.event(&thinking(2));
        view.event(&AgentEvent::Text("start of the text that scrolls ".into()));
        view.event(&AgentEvent::Text("away and the live end of it".into()));
        std::thread::sleep(Duration::from_millis(250));
        view.finish();
        let text = out.text();
        assert!(text.contains("thinking… (step 2/15, 0."), "{text:?}");
        assert!(
            text.contains("  \x1b[2mthat scrolls away and the live end of it\x1b[0m"),
            "{text:?}"
        );
        assert!(!text.contains("start of the"), "only the tail: {text:?}");
    }

    #[test]
    fn the_spinner_animates_and_stops_on_finish() {
        let (view, out) = open(ViewOptions {
            animate: true,
            ..plain(80)
        });
        view.event(&thinking(1));
        std::thread::sleep(Duration::from_millis(350));
        view.finish();
        let text = out.text();
        assert!(text.matches(CLEAR_LINE).count() >= 3, "{text:?}");
        assert!(text.contains("⠙ thinking… (step 1/15, "), "{text:?}");
        assert!(text.ends_with(CLEAR_LINE), "the line is cleared: {text:?}");
        assert!(
            view.ticker
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none(),
            "the thread was joined"
        );
        let len = out.len();
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(out.len(), len, "nothing drawn after finish");
        view.finish();
        assert_eq!(out.len(), len, "finish is idempotent");
    }

    #[test]
    fn a_step_line_replaces_the_spinner_and_running_spins_again() {
        let (view, out) = open(ViewOptions {
            animate: true,
            ..plain(80)
        });
        view.event(&thinking(1));
        view.event(&proposed("ls", Verdict::Allow, "read"));
        view.event(&AgentEvent::Running {
            step: 1,
            pipeline: "ls".into(),
        });
        view.event(&observed(StepStatus::Ok, Some(0), "3"));
        view.finish();
        let text = out.text();
        assert!(
            text.starts_with(&format!("{CLEAR_LINE}⠋ thinking… (step 1/15, ")),
            "{text:?}"
        );
        assert!(
            text.contains(&format!(
                "{CLEAR_LINE}● ls [allow read]\n{CLEAR_LINE}⠋ running… "
            )),
            "{text:?}"
        );
        assert!(
            text.contains(&format!("{CLEAR_LINE}  └ $out.0 · 3 · 400ms\n")),
            "{text:?}"
        );
        assert!(
            text.ends_with("400ms\n"),
            "nothing spins after the step: {text:?}"
        );
    }

    #[test]
    fn pause_clears_the_spinner_line() {
        let (view, out) = open(ViewOptions {
            animate: true,
            ..plain(80)
        });
        view.event(&thinking(1));
        assert!(out.text().contains("thinking…"));
        view.pause();
        let text = out.text();
        assert!(text.ends_with(CLEAR_LINE), "{text:?}");
        let len = out.len();
        view.pause();
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(out.len(), len, "paused: no second clear, no frames");
        view.event(&AgentEvent::AwaitingApproval {
            step: 1,
            pipeline: "ls".into(),
        });
        assert_eq!(out.len(), len);
    }
}
