//! The terminal view of an agent run: a spinner while the model thinks or a
//! step runs (on a terminal only), one line per step with the policy's
//! verdict, and a one-line preview of each result. Without a terminal the
//! lines are plain and append-only (logs, CI).

use std::{
    io::Write,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crate::{
    agent::{AgentEvent, StepStatus},
    policy::Verdict,
};

/// Spinner frames.
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// How often the spinner redraws.
const TICK: Duration = Duration::from_millis(100);
/// Characters of streamed text shown in the spinner line.
const PREVIEW_CHARS: usize = 40;

/// How the view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    pub color: bool,
    /// Animate a spinner (a terminal only).
    pub animate: bool,
    /// Columns.
    pub width: usize,
    /// Show reasoning text and each step's `why`.
    pub verbose: bool,
}

impl ViewOptions {
    /// For stderr: colour and animation when it is a terminal (and
    /// `NO_COLOR` is unset), its width.
    pub fn for_stderr() -> ViewOptions {
        // SAFETY: isatty only inspects the descriptor.
        let tty = unsafe { libc::isatty(2) } == 1;
        ViewOptions {
            color: tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            animate: tty,
            width: terminal_width(tty),
            verbose: std::env::var_os("NU_AGENT_VERBOSE").is_some_and(|v| !v.is_empty()),
        }
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
        .and_then(|c| c.parse().ok())
        .filter(|c| *c > 20)
        .unwrap_or(80)
}

/// What the spinner line says.
struct Spinner {
    label: String,
    since: Instant,
    preview: String,
}

struct State {
    out: Box<dyn Write + Send>,
    options: ViewOptions,
    spinner: Option<Spinner>,
    /// The spinner line is on screen.
    drawn: bool,
    frame: usize,
}

impl State {
    fn paint(&mut self, code: &str, text: &str) -> String {
        if self.options.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn clear(&mut self) {
        if self.drawn {
            let _ = write!(self.out, "\r\x1b[2K");
            self.drawn = false;
        }
    }

    fn line(&mut self, text: &str) {
        self.clear();
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
        self.draw_spinner();
    }

    fn draw_spinner(&mut self) {
        if !self.options.animate {
            return;
        }
        let Some(spinner) = &self.spinner else {
            return;
        };
        let frame = FRAMES[self.frame % FRAMES.len()];
        let elapsed = spinner.since.elapsed().as_secs_f64();
        let mut text = format!("{frame} {} {elapsed:.1}s", spinner.label);
        if !spinner.preview.is_empty() {
            let preview = format!("  {}", spinner.preview);
            text = fit(
                &format!("{text}{preview}"),
                self.options.width.saturating_sub(1),
            );
        } else {
            text = fit(&text, self.options.width.saturating_sub(1));
        }
        let text = self.paint("2", &text);
        let _ = write!(self.out, "\r\x1b[2K{text}");
        let _ = self.out.flush();
        self.drawn = true;
    }

    fn spin(&mut self, label: String) {
        self.spinner = Some(Spinner {
            label,
            since: Instant::now(),
            preview: String::new(),
        });
        self.draw_spinner();
    }

    fn stop(&mut self) {
        self.spinner = None;
        self.clear();
        let _ = self.out.flush();
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
    /// A view writing to `out`.
    pub fn new(out: Box<dyn Write + Send>, options: ViewOptions) -> ProgressView {
        let state = Arc::new(Mutex::new(State {
            out,
            options,
            spinner: None,
            drawn: false,
            frame: 0,
        }));
        let running = Arc::new(AtomicBool::new(true));
        let ticker = options.animate.then(|| {
            let state = state.clone();
            let running = running.clone();
            std::thread::spawn(move || {
                while running.load(Ordering::SeqCst) {
                    std::thread::sleep(TICK);
                    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.spinner.is_some() && running.load(Ordering::SeqCst) {
                        state.frame += 1;
                        state.draw_spinner();
                    }
                }
            })
        });
        ProgressView {
            state,
            running,
            ticker: Mutex::new(ticker),
        }
    }

    /// The view on stderr.
    pub fn stderr() -> ProgressView {
        ProgressView::new(Box::new(std::io::stderr()), ViewOptions::for_stderr())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Draw one event.
    pub fn event(&self, event: &AgentEvent) {
        let mut state = self.state();
        let verbose = state.options.verbose;
        let width = state.options.width;
        match event {
            AgentEvent::Thinking { step, max_steps } => {
                state.spin(format!("thinking… (step {step}/{max_steps})"));
            }
            AgentEvent::Text(text) => {
                if let Some(spinner) = &mut state.spinner {
                    spinner.preview.push_str(text);
                    let chars: Vec<char> = spinner
                        .preview
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect();
                    let start = chars.len().saturating_sub(PREVIEW_CHARS);
                    spinner.preview = chars[start..].iter().collect();
                }
            }
            AgentEvent::Reasoning(text) if verbose => {
                let text = state.paint("2", &fit(text.trim(), width));
                state.line(&text);
            }
            AgentEvent::Reasoning(_) => {}
            AgentEvent::Notice(text) => {
                let text = state.paint("33", &format!("note: {text}"));
                state.line(&text);
            }
            AgentEvent::Proposed {
                pipeline,
                why,
                verdict,
                label,
                ..
            } => {
                state.stop();
                let first = pipeline.lines().next().unwrap_or("");
                let more = if pipeline.lines().nth(1).is_some() {
                    " …"
                } else {
                    ""
                };
                let tag = if label.is_empty() {
                    format!("[{}]", verdict.as_str())
                } else {
                    format!("[{} {label}]", verdict.as_str())
                };
                let room = width.saturating_sub(tag.chars().count() + 4);
                let pipeline = fit(&format!("{first}{more}"), room);
                let colour = match verdict {
                    Verdict::Allow => "32",
                    Verdict::Confirm => "33",
                    Verdict::Block | Verdict::Refuse => "31",
                };
                let tag = state.paint(colour, &fit(&tag, width.saturating_sub(4)));
                let dot = state.paint("1", "●");
                state.line(&format!("{dot} {pipeline} {tag}"));
                if verbose && !why.is_empty() {
                    let why = state.paint("2", &fit(&format!("  why: {why}"), width));
                    state.line(&why);
                }
            }
            AgentEvent::AwaitingApproval { .. } => state.stop(),
            AgentEvent::Running { .. } => state.spin("running…".into()),
            AgentEvent::Observed {
                status,
                out,
                preview,
                approved_by,
                duration,
                ..
            } => {
                state.stop();
                let mut parts = Vec::new();
                if let Some(n) = out {
                    parts.push(format!("$out.{n}"));
                }
                let shown = match status {
                    StepStatus::Ok => preview.clone(),
                    other => {
                        let word = if preview.is_empty() {
                            other.as_str().to_string()
                        } else {
                            format!("{}: {preview}", other.as_str())
                        };
                        state.paint("31", &word)
                    }
                };
                parts.push(shown);
                if let Some(who) = approved_by.as_ref().filter(|w| w.as_str() != "policy") {
                    parts.push(format!("approved by {who}"));
                }
                if out.is_some() {
                    parts.push(crate::shell::humanize_duration(*duration));
                }
                let text = fit(&format!("  └ {}", parts.join(" · ")), width + 12);
                state.line(&text);
            }
            AgentEvent::LookedUp { command, .. } => {
                let text = state.paint("2", &fit(&format!("  ? help {command}"), width));
                state.line(&text);
            }
            AgentEvent::Repaired { message, .. } => {
                let text = state.paint("2", &fit(&format!("  ↻ {message}"), width));
                state.line(&text);
            }
            AgentEvent::External(text) => {
                let text = fit(&format!("  ⇢ {text}"), width);
                state.line(&text);
            }
            AgentEvent::Answered { .. } => state.stop(),
            AgentEvent::Failed { error } => {
                state.stop();
                let text = state.paint("31", &format!("✗ {error}"));
                state.line(&text);
            }
            AgentEvent::Cancelled => {
                state.stop();
                let text = state.paint("31", "✗ cancelled");
                state.line(&text);
            }
        }
    }

    /// Clear the spinner line (before something else takes the terminal).
    pub fn pause(&self) {
        self.state().stop();
    }

    /// Stop the spinner thread and clear its line; idempotent.
    pub fn finish(&self) {
        self.running.store(false, Ordering::SeqCst);
        let handle = self
            .ticker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
        self.state().stop();
    }
}

impl Drop for ProgressView {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `text` cut to `width` characters, with `…` where it was cut.
fn fit(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width || width == 0 {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    fn plain(width: usize) -> ViewOptions {
        ViewOptions {
            color: false,
            animate: false,
            width,
            verbose: false,
        }
    }

    #[test]
    fn an_episode_draws_one_line_per_step_and_result() {
        let out = Shared::default();
        let view = ProgressView::new(Box::new(out.clone()), plain(80));
        let events = [
            AgentEvent::Thinking {
                step: 1,
                max_steps: 15,
            },
            AgentEvent::Text("hmm".into()),
            AgentEvent::Proposed {
                step: 1,
                pipeline: "ls | length".into(),
                why: "count".into(),
                verdict: Verdict::Allow,
                label: "read".into(),
            },
            AgentEvent::Running {
                step: 1,
                pipeline: "ls | length".into(),
            },
            AgentEvent::Observed {
                step: 1,
                status: StepStatus::Ok,
                out: Some(0),
                preview: "3".into(),
                approved_by: Some("policy".into()),
                duration: Duration::from_millis(400),
            },
            AgentEvent::Proposed {
                step: 2,
                pipeline: "mkdir x".into(),
                why: String::new(),
                verdict: Verdict::Confirm,
                label: "write: x".into(),
            },
            AgentEvent::AwaitingApproval {
                step: 2,
                pipeline: "mkdir x".into(),
            },
            AgentEvent::Observed {
                step: 2,
                status: StepStatus::Denied,
                out: None,
                preview: "not approved: write: x".into(),
                approved_by: None,
                duration: Duration::ZERO,
            },
            AgentEvent::Notice("older results shortened".into()),
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
            "● ls | length [allow read]\n  └ $out.0 · 3 · 400ms\n● mkdir x [confirm write: x]\n  └ denied: not approved: write: x\nnote: older results shortened\n"
        );
    }

    #[test]
    fn long_pipelines_are_cut_to_the_width_and_colour_is_optional() {
        let out = Shared::default();
        let view = ProgressView::new(Box::new(out.clone()), plain(40));
        view.event(&AgentEvent::Proposed {
            step: 1,
            pipeline: "ls | where name =~ 'a very long pattern that goes on' | length".into(),
            why: String::new(),
            verdict: Verdict::Block,
            label: String::new(),
        });
        let text = out.text();
        let line = text.lines().next().unwrap();
        assert!(line.contains('…') && line.ends_with("[block]"), "{line}");
        assert!(line.chars().count() <= 40, "{line}");
        assert!(!text.contains('\x1b'));

        let coloured = Shared::default();
        let view = ProgressView::new(
            Box::new(coloured.clone()),
            ViewOptions {
                color: true,
                ..plain(80)
            },
        );
        view.event(&AgentEvent::Failed {
            error: "boom".into(),
        });
        assert!(coloured.text().contains("\x1b[31m✗ boom"));
    }

    #[test]
    fn the_spinner_animates_and_stops_on_finish() {
        let out = Shared::default();
        let view = ProgressView::new(
            Box::new(out.clone()),
            ViewOptions {
                animate: true,
                ..plain(80)
            },
        );
        view.event(&AgentEvent::Thinking {
            step: 1,
            max_steps: 3,
        });
        std::thread::sleep(Duration::from_millis(350));
        view.finish();
        let text = out.text();
        assert!(text.matches("\r\x1b[2K").count() >= 3, "{text:?}");
        assert!(text.contains("thinking… (step 1/3)"));
        let len = out.0.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(250));
        assert_eq!(
            out.0.lock().unwrap().len(),
            len,
            "nothing drawn after finish"
        );
        assert!(text.ends_with("\r\x1b[2K"), "the line is cleared: {text:?}");
    }
}
