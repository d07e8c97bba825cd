//! The parent's side: start a worker, send it runs, answer its questions,
//! and collect each outcome, or stop it.

use std::{
    io::{BufRead, Read},
    os::unix::process::{CommandExt, ExitStatusExt},
    path::Path,
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
        mpsc::{self, RecvTimeoutError},
    },
    time::{Duration, Instant},
};

use nu_protocol::Value;

use super::{
    protocol::{
        Carries, FromWorker, Line, ReadLimit, ToWorker, WORKER_ARG, WorkerRun, WorkerStart,
        empty_outcome, failed_outcome, read_message, write_message,
    },
    values::WIRE_PER_JSON_BYTE,
};
use crate::{
    policy::{Approval, Approver},
    shell::{CancelToken, Diagnostic, EnvFilter, Outcome, StopReason, filter_env},
};

/// How often the parent checks for cancel while the worker is quiet.
const POLL_INTERVAL: Duration = Duration::from_millis(20);
/// How long a cancelled worker may take to report (its own session needs
/// up to two seconds to give up a stuck evaluation).
const CANCEL_GRACE: Duration = Duration::from_secs(4);
/// How long past its time limit a worker may stay silent before it is
/// killed.
const TIMEOUT_GRACE: Duration = Duration::from_secs(5);
/// Bytes of the worker's stderr kept for an error message.
const STDERR_TAIL: usize = 2048;
/// Room for a message beyond its values: its line (the printed text, a
/// diagnostic), and any message outside a run.
const MESSAGE_SLACK: u64 = 16 * 1024 * 1024;

/// Evaluate one pipeline in a worker of its own, which ends with it (a
/// step that needs a wider sandbox than its conversation's worker).
pub fn run_sandboxed(
    exe: &Path,
    start: &WorkerStart,
    run: &WorkerRun,
    cancel: &CancelToken,
    approver: &dyn Approver,
) -> Outcome {
    match SessionWorker::start(exe, start) {
        Ok(mut worker) => worker.run(run, cancel, approver),
        Err(error) => failed_outcome(run.cwd.clone(), error, Duration::ZERO),
    }
}

/// A sandbox worker serving the runs of one conversation: `exe` (this
/// program, which must call [`super::worker_main`] when started with
/// [`WORKER_ARG`]) in its own process group, its session alive between
/// runs. Questions from the worker's guards go to the run's approver.
/// Dropping it kills the worker and everything it started.
pub struct SessionWorker {
    process: WorkerProcess,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Line<FromWorker>>,
    stderr: StderrTail,
    /// The longest message the reader accepts (set per run).
    limit: Arc<AtomicU64>,
    bytes_sent: u64,
    runs: usize,
    /// Why it can serve no more runs.
    gone: Option<String>,
}

impl SessionWorker {
    /// Start a worker with `start` (its sandbox, directory, environment
    /// and policy). It applies the sandbox and builds its session while
    /// the first run is on its way.
    pub fn start(exe: &Path, start: &WorkerStart) -> Result<SessionWorker, Diagnostic> {
        // The worker's own environment holds only what a session may see,
        // so that `/proc/<worker>/environ` shows no secrets either.
        let env = filter_env(start.env.clone(), &EnvFilter::default());
        let mut command = Command::new(exe);
        command
            .arg(WORKER_ARG)
            .current_dir(&start.cwd)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut process = match command.spawn() {
            Ok(child) => WorkerProcess::new(child),
            Err(err) => {
                return Err(worker_error(format!(
                    "cannot start the sandbox worker {}: {err}",
                    exe.display()
                )));
            }
        };
        let (Some(stdin), Some(stdout), Some(stderr)) = (
            process.child.stdin.take(),
            process.child.stdout.take(),
            process.child.stderr.take(),
        ) else {
            return Err(worker_error(
                "the sandbox worker's pipes could not be opened".into(),
            ));
        };
        let limit = Arc::new(AtomicU64::new(MESSAGE_SLACK));
        let mut worker = SessionWorker {
            process,
            stdin,
            messages: spawn_message_reader(stdout, limit.clone()),
            stderr: StderrTail::spawn(stderr),
            limit,
            bytes_sent: 0,
            runs: 0,
            gone: None,
        };
        let start = WorkerStart {
            env,
            ..start.clone()
        };
        // A worker that dies before reading is reported by the first run.
        worker.send(start);
        Ok(worker)
    }

    /// Whether the worker can take another run: it has not failed, been
    /// stopped, or exited (after its idle timeout, or killed).
    pub fn is_alive(&mut self) -> bool {
        if self.gone.is_none()
            && let Ok(Some(status)) = self.process.child.try_wait()
        {
            self.process.status = Some(Ok(status));
            self.gone = Some(format!(
                "the sandbox worker ended: {}",
                describe(Some(status))
            ));
        }
        self.gone.is_none()
    }

    /// How many runs it has answered.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Bytes written to the worker so far (the start line included).
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.process.child.id()
    }

    /// Evaluate `run` in the worker's session. Cancelling `cancel` stops
    /// the run; a worker that does not answer in time is killed. A worker
    /// that dies yields an error outcome, never a panic.
    pub fn run(
        &mut self,
        run: &WorkerRun,
        cancel: &CancelToken,
        approver: &dyn Approver,
    ) -> Outcome {
        match self.run_for(run, cancel, approver, None) {
            RunEnd::Finished(outcome) => *outcome,
            RunEnd::StillRunning(started) => self.resume(run, started, cancel, approver),
        }
    }

    /// As [`SessionWorker::run`], but give up waiting once `promote_after`
    /// has passed with the run still going: it goes on in the worker, and
    /// [`SessionWorker::resume`] (with another cancel token and approver,
    /// a background job's) follows it to its end.
    pub fn run_for(
        &mut self,
        run: &WorkerRun,
        cancel: &CancelToken,
        approver: &dyn Approver,
        promote_after: Option<Duration>,
    ) -> RunEnd {
        let started = Instant::now();
        if let Some(why) = &self.gone {
            let why = why.clone();
            let outcome = failed_outcome(run.cwd.clone(), worker_error(why), started.elapsed());
            return RunEnd::Finished(Box::new(outcome));
        }
        self.limit
            .store(read_limit(run.limits.max_output_bytes), Ordering::Relaxed);
        self.send(ToWorker::Run(Box::new(run.clone())));
        let promote_at = promote_after.map(|after| started + after);
        match self.supervise(run, cancel, approver, started, promote_at) {
            Ended::StillRunning => RunEnd::StillRunning(started),
            ended => RunEnd::Finished(Box::new(self.finish(ended, run, cancel, started))),
        }
    }

    /// Follow a run that [`SessionWorker::run_for`] left going (started at
    /// `started`) to its end.
    pub fn resume(
        &mut self,
        run: &WorkerRun,
        started: Instant,
        cancel: &CancelToken,
        approver: &dyn Approver,
    ) -> Outcome {
        let ended = self.supervise(run, cancel, approver, started, None);
        self.finish(ended, run, cancel, started)
    }

    fn finish(
        &mut self,
        ended: Ended,
        run: &WorkerRun,
        cancel: &CancelToken,
        started: Instant,
    ) -> Outcome {
        match ended {
            Ended::StillRunning => Outcome {
                stopped: Some(StopReason::Cancelled),
                ..empty_outcome(run.cwd.clone(), started.elapsed())
            },
            Ended::Done(outcome) => {
                self.runs += 1;
                if outcome.stopped == Some(StopReason::Abandoned) {
                    // Its session started over and lost its variables.
                    self.kill("its last run did not stop when interrupted");
                }
                *outcome
            }
            Ended::Stopped(reason) => {
                self.kill("it did not answer in time");
                Outcome {
                    stopped: Some(reason),
                    ..empty_outcome(run.cwd.clone(), started.elapsed())
                }
            }
            Ended::Died => {
                let status = self.process.stop();
                let why = format!("the sandbox worker died: {}", describe(status));
                self.gone = Some(why.clone());
                if cancel.is_cancelled() {
                    Outcome {
                        stopped: Some(StopReason::Cancelled),
                        ..empty_outcome(run.cwd.clone(), started.elapsed())
                    }
                } else {
                    let message = format!("{why}{}", self.stderr.text());
                    failed_outcome(run.cwd.clone(), worker_error(message), started.elapsed())
                }
            }
            Ended::Broken(why) => {
                self.kill("it sent something that is not a message");
                let message = format!("the sandbox worker sent {why}{}", self.stderr.text());
                failed_outcome(run.cwd.clone(), worker_error(message), started.elapsed())
            }
        }
    }

    /// Append `value` (a run made elsewhere) to the worker's `$out`.
    pub fn add_out(&mut self, value: &Value) {
        self.send(ToWorker::AddOut(Box::new(value.clone())));
    }

    /// Kill the worker and everything it started; it serves no more.
    pub fn kill(&mut self, why: &str) {
        self.process.stop();
        if self.gone.is_none() {
            self.gone = Some(format!("the sandbox worker was stopped: {why}"));
        }
    }

    fn send(&mut self, message: impl serde::Serialize + Carries) {
        let mut counter = CountingWriter {
            inner: &mut self.stdin,
            written: 0,
        };
        // A worker gone is noticed by the run that waits for it.
        let _ = write_message(&mut counter, message);
        self.bytes_sent += counter.written;
    }
}
/// How [`SessionWorker::run_for`] left a run.
pub enum RunEnd {
    Finished(Box<Outcome>),
    /// Still running past the time given; started at this instant.
    StillRunning(Instant),
}

/// How a run in the worker ended.
enum Ended {
    Done(Box<Outcome>),
    /// Still going when the caller stopped waiting (promotion).
    StillRunning,
    /// The parent stopped waiting (cancel, or silence past the time limit).
    Stopped(StopReason),
    /// It exited or closed the protocol without a result.
    Died,
    /// It sent something that is not a message.
    Broken(String),
}

impl SessionWorker {
    fn supervise(
        &mut self,
        run: &WorkerRun,
        cancel: &CancelToken,
        approver: &dyn Approver,
        started: Instant,
        promote_at: Option<Instant>,
    ) -> Ended {
        let mut cancel_sent: Option<Instant> = None;
        let deadline = run
            .limits
            .timeout
            .map(|limit| (limit, started + limit + TIMEOUT_GRACE));
        loop {
            match self.messages.recv_timeout(POLL_INTERVAL) {
                Ok(Line::Message(FromWorker::Started(_))) => {}
                Ok(Line::Message(FromWorker::Approve { id, request })) => {
                    let approval = if cancel.is_cancelled() {
                        Approval::No
                    } else {
                        approver.approve(&request)
                    };
                    self.send(ToWorker::Approval { id, approval });
                }
                Ok(Line::Message(FromWorker::Password { id, prompt })) => {
                    let password = if cancel.is_cancelled() {
                        None
                    } else {
                        approver.password(&prompt)
                    };
                    self.send(ToWorker::Password { id, password });
                }
                Ok(Line::Message(FromWorker::Done(outcome))) => return Ended::Done(outcome),
                Ok(Line::Invalid(why)) => return Ended::Broken(why),
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => return Ended::Died,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if cancel.is_cancelled() {
                match cancel_sent {
                    None => {
                        self.send(ToWorker::Cancel);
                        cancel_sent = Some(Instant::now());
                    }
                    Some(at) if at.elapsed() > CANCEL_GRACE => {
                        return Ended::Stopped(StopReason::Cancelled);
                    }
                    Some(_) => {}
                }
            }
            if let Some((limit, at)) = deadline
                && Instant::now() > at
            {
                return Ended::Stopped(StopReason::TimedOut(limit));
            }
            if cancel_sent.is_none() && promote_at.is_some_and(|at| Instant::now() > at) {
                return Ended::StillRunning;
            }
        }
    }
}

/// Counts what goes through to the worker's stdin.
struct CountingWriter<'a> {
    inner: &'a mut ChildStdin,
    written: u64,
}

impl std::io::Write for CountingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn worker_error(message: String) -> Diagnostic {
    Diagnostic::plain("nu_agent::sandbox::worker", message, None)
}

/// The most a worker's message may take during a run capped at
/// `max_output` bytes: its value (text or binary at most the cap; rows at
/// most [`WIRE_PER_JSON_BYTE`] bytes per byte of their JSON), its stderr
/// (at most the cap) and [`MESSAGE_SLACK`] for the rest.
fn read_limit(max_output: usize) -> u64 {
    u64::try_from(max_output)
        .unwrap_or(u64::MAX)
        .saturating_mul(WIRE_PER_JSON_BYTE + 1)
        .saturating_add(MESSAGE_SLACK)
}

/// Read the worker's messages on a thread; the channel ends after the
/// pipe closes or a message is unreadable.
fn spawn_message_reader(
    stdout: std::process::ChildStdout,
    limit: Arc<AtomicU64>,
) -> mpsc::Receiver<Line<FromWorker>> {
    let (sender, receiver) = mpsc::channel();
    // A failed spawn drops the sender: the supervisor sees the worker as
    // dead and kills it.
    let _ = std::thread::Builder::new()
        .name("sandbox-messages".into())
        .spawn(move || {
            let mut stdout = std::io::BufReader::new(stdout);
            loop {
                // The limit is read once the message starts: by then the
                // run it answers has set it.
                let line = match stdout.fill_buf() {
                    Ok(_) => {
                        read_message(&mut stdout, ReadLimit::total(limit.load(Ordering::Relaxed)))
                    }
                    Err(err) => Line::Invalid(format!("cannot read the pipe: {err}")),
                };
                let last = !matches!(line, Line::Message(_));
                if sender.send(line).is_err() || last {
                    return;
                }
            }
        });
    receiver
}

/// The worker's child process; killed (with its process group) and reaped
/// exactly once, on every path.
struct WorkerProcess {
    child: Child,
    status: Option<std::io::Result<ExitStatus>>,
}

impl WorkerProcess {
    fn new(child: Child) -> Self {
        WorkerProcess {
            child,
            status: None,
        }
    }

    /// SIGKILL the worker's process group, then reap the worker. The group
    /// is killed before the reap, while its id cannot belong to anyone
    /// else.
    fn stop(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            if let Ok(pgid) = i32::try_from(self.child.id())
                && pgid > 1
            {
                // SAFETY: kill(2) on our own child's process group.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
            self.status = Some(self.child.wait());
        }
        self.status.as_ref()?.as_ref().ok().copied()
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

fn describe(status: Option<ExitStatus>) -> String {
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("it exited with code {code}"),
            (None, Some(signal)) => format!("it was killed by signal {signal}"),
            (None, None) => format!("it ended ({status})"),
        },
        None => "its exit status is unknown".into(),
    }
}

/// The last bytes the worker wrote to stderr (a panic message, say).
struct StderrTail {
    tail: Arc<Mutex<Vec<u8>>>,
    finished: mpsc::Receiver<()>,
}

impl StderrTail {
    fn spawn(mut stderr: std::process::ChildStderr) -> Self {
        let tail = Arc::new(Mutex::new(Vec::new()));
        let (done, finished) = mpsc::channel();
        let keep = tail.clone();
        let _ = std::thread::Builder::new()
            .name("sandbox-stderr".into())
            .spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(read) = stderr.read(&mut chunk) {
                    if read == 0 {
                        break;
                    }
                    if let Ok(mut tail) = keep.lock() {
                        tail.extend_from_slice(&chunk[..read]);
                        let excess = tail.len().saturating_sub(STDERR_TAIL);
                        tail.drain(..excess);
                    }
                }
                let _ = done.send(());
            });
        StderrTail { tail, finished }
    }

    /// `; stderr: ...`, or nothing when the worker wrote nothing. Waits a
    /// moment for the pipe to drain (a process the worker left behind may
    /// hold it open).
    fn text(&self) -> String {
        let _ = self.finished.recv_timeout(Duration::from_millis(500));
        let tail = self.tail.lock().map(|t| t.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim();
        if text.is_empty() {
            String::new()
        } else {
            format!("; stderr: {text}")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{os::unix::fs::PermissionsExt, path::PathBuf, sync::Mutex};

    use nu_protocol::Span;

    use super::*;
    use crate::{
        policy::{ApprovalRequest, sandbox::SandboxSpec},
        shell::Limits,
    };

    /// A stand-in worker: a shell script that speaks the protocol.
    fn fake_worker(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("worker.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn request(cwd: &Path) -> (WorkerStart, WorkerRun) {
        let start = WorkerStart {
            spec: SandboxSpec::off(),
            cwd: cwd.to_path_buf(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            policy: serde_json::Value::Null,
            outs: Vec::new(),
            idle_timeout: None,
        };
        let run = WorkerRun {
            source: "ls".into(),
            cwd: cwd.to_path_buf(),
            limits: Limits::default(),
            policy: serde_json::Value::Null,
            input: None,
        };
        (start, run)
    }

    /// A file in `dir` holding the `done` message (its line and its
    /// values) for an outcome that printed `printed` with `value`.
    fn done_message(dir: &Path, printed: &str, value: Value) -> PathBuf {
        let mut outcome = empty_outcome(dir.to_path_buf(), Duration::from_millis(5));
        outcome.printed = vec![printed.into()];
        outcome.value = value;
        let mut wire = Vec::new();
        write_message(&mut wire, FromWorker::Done(Box::new(outcome))).unwrap();
        let path = dir.join("done.message");
        std::fs::write(&path, wire).unwrap();
        path
    }

    /// Run, retrying the rare `Text file busy` of a script written while
    /// another test thread forks.
    fn run(
        exe: &Path,
        request: &(WorkerStart, WorkerRun),
        cancel: &CancelToken,
        approver: &dyn Approver,
    ) -> Outcome {
        for _ in 0..20 {
            let outcome = run_sandboxed(exe, &request.0, &request.1, cancel, approver);
            let busy = outcome
                .error
                .as_ref()
                .is_some_and(|e| e.message.contains("Text file busy"));
            if !busy {
                return outcome;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the fake worker stayed busy");
    }

    #[derive(Default)]
    struct Recording {
        asked: Mutex<Vec<ApprovalRequest>>,
    }

    impl Approver for Recording {
        fn approve(&self, request: &ApprovalRequest) -> Approval {
            self.asked.lock().unwrap().push(request.clone());
            Approval::Yes
        }
    }

    #[test]
    fn questions_are_forwarded_and_answered_with_their_id() {
        let dir = tempfile::tempdir().unwrap();
        let question = serde_json::to_string(&FromWorker::Approve {
            id: 77,
            request: ApprovalRequest {
                labels: vec!["delete: a.txt".into()],
                steps: vec!["rm a.txt".into()],
                pipeline: "rm a.txt".into(),
                reason: "deletes".into(),
                warning: false,
                privileged: false,
            },
        })
        .unwrap();
        let exe = fake_worker(
            dir.path(),
            &format!(
                "read start\nread run\necho '{question}'\nread reply\necho \"$reply\" > reply.json\ncat '{}'",
                done_message(dir.path(), "finished", Value::nothing(Span::unknown())).display()
            ),
        );
        let approver = Recording::default();
        let outcome = run(&exe, &request(dir.path()), &CancelToken::new(), &approver);
        assert_eq!(outcome.printed, ["finished"], "{:?}", outcome.error);
        assert_eq!(approver.asked.lock().unwrap()[0].steps, ["rm a.txt"]);
        let reply = std::fs::read_to_string(dir.path().join("reply.json")).unwrap();
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(
            reply,
            serde_json::json!({"approval": {"id": 77, "approval": "yes"}})
        );
    }

    /// A result as big as the cap allows comes back: 20 MB of NUL bytes
    /// under a 20 MB cap.
    #[test]
    fn a_result_as_big_as_the_cap_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let size = 20_000_000;
        let text = Value::string("\0".repeat(size), Span::unknown());
        let done = done_message(dir.path(), "big", text);
        let exe = fake_worker(
            dir.path(),
            &format!("read start\nread run\ncat '{}'", done.display()),
        );
        let (start, mut run_request) = request(dir.path());
        run_request.limits = Limits::default().with_max_output_bytes(size);
        let outcome = run(&exe, &(start, run_request), &CancelToken::new(), &NoOne);
        assert_eq!(outcome.error, None);
        assert_eq!(outcome.value.as_str().map(str::len), Ok(size));
    }

    /// A worker that sends more than the cap allows is stopped with an
    /// error, before the parent reads (or allocates) it.
    #[test]
    fn a_result_past_what_the_cap_allows_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut outcome = empty_outcome(dir.path().to_path_buf(), Duration::ZERO);
        outcome.value = Value::string("x", Span::unknown());
        let mut wire = Vec::new();
        write_message(&mut wire, FromWorker::Done(Box::new(outcome))).unwrap();
        // The text's length, after its line and tag, claims 1 TiB.
        let at = wire.iter().position(|b| *b == b'\n').unwrap() + 2;
        wire[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        std::fs::write(dir.path().join("done.message"), wire).unwrap();
        let exe = fake_worker(
            dir.path(),
            "read start\nread run\ncat done.message\nsleep 30",
        );
        let started = Instant::now();
        let outcome = run(&exe, &request(dir.path()), &CancelToken::new(), &NoOne);
        let error = outcome.error.expect("an error");
        assert!(
            error.message.contains("longer than allowed"),
            "{}",
            error.message
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_dying_worker_is_an_error_with_its_exit_code_and_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let exe = fake_worker(
            dir.path(),
            "read start\nread run\necho 'out of memory' >&2\nexit 3",
        );
        let outcome = run(&exe, &request(dir.path()), &CancelToken::new(), &NoOne);
        let error = outcome.error.expect("an error");
        assert!(
            error.message.starts_with("the sandbox worker died"),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("exited with code 3"),
            "{}",
            error.message
        );
        assert!(error.message.contains("out of memory"), "{}", error.message);
        assert_eq!(outcome.stopped, None);
    }

    #[test]
    fn garbage_from_the_worker_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let exe = fake_worker(dir.path(), "read start\nread run\necho 'hello'\nsleep 30");
        let started = Instant::now();
        let outcome = run(&exe, &request(dir.path()), &CancelToken::new(), &NoOne);
        let error = outcome.error.expect("an error");
        assert!(
            error.message.contains("unreadable message"),
            "{}",
            error.message
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn cancel_is_sent_to_the_worker_and_a_silent_worker_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        // Reports the cancel line it got, then ignores it.
        let exe = fake_worker(
            dir.path(),
            "read start\nread run\nread line\necho \"$line\" > got.txt\nsleep 30",
        );
        let cancel = CancelToken::new();
        let trigger = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            trigger.cancel();
        });
        let started = Instant::now();
        let outcome = run(&exe, &request(dir.path()), &cancel, &NoOne);
        assert_eq!(outcome.stopped, Some(StopReason::Cancelled));
        assert!(outcome.error.is_none());
        assert!(started.elapsed() < CANCEL_GRACE + Duration::from_secs(3));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("got.txt")).unwrap(),
            "\"cancel\"\n"
        );
    }

    #[test]
    fn a_missing_program_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let (start, run) = request(dir.path());
        let outcome = run_sandboxed(
            &dir.path().join("no-such-worker"),
            &start,
            &run,
            &CancelToken::new(),
            &NoOne,
        );
        assert!(
            outcome
                .error
                .unwrap()
                .message
                .contains("cannot start the sandbox worker"),
        );
    }

    struct NoOne;

    impl Approver for NoOne {
        fn approve(&self, _: &ApprovalRequest) -> Approval {
            Approval::No
        }
    }
}
