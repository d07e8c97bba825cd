//! The worker's side: restrict this process, then serve the runs of one
//! conversation in one session, reporting each back.
//!
//! The order matters: the sandbox goes on while the process has exactly
//! one thread, so every thread and process started afterwards (the
//! evaluation thread, `par-each` pools, externals) inherits it.

use std::{
    fs::File,
    io::BufReader,
    os::fd::{AsFd, AsRawFd},
    sync::{
        Arc, Mutex,
        mpsc::{self, Receiver, RecvTimeoutError, Sender},
    },
    time::Instant,
};

use nu_protocol::{Span, Value};

use super::{
    Applied, SandboxMode, apply_to_current_process,
    protocol::{
        FromWorker, Line, ReadLimit, ToWorker, WorkerRun, WorkerStart, failed_outcome,
        read_message, write_message,
    },
};
use crate::{
    policy::{Approval, ApprovalRequest, Approver},
    shell::{
        CancelToken, Diagnostic, Engine, Limits, Outcome, OutputCut, Session, SessionSeed,
        StopReason, cut_to_fit,
    },
};

/// Told the pipeline and the run's opaque policy (the approved steps)
/// before each run.
pub type BeforeRun = Box<dyn Fn(&str, &serde_json::Value) + Send>;

/// What the worker's engine builder gives back: the engine, and what to
/// tell it before each run.
pub struct WorkerEngine {
    pub engine: Engine,
    pub before_run: BeforeRun,
}

/// Builds the worker's engine from the opaque policy in the start line;
/// the approver forwards questions to the parent.
pub type EngineBuilder = fn(&serde_json::Value, Arc<dyn Approver>) -> Result<WorkerEngine, String>;

/// What the worker reads of a message from the parent: a line (a start
/// with the environment and the policy, a run, a reply) of at most 64 MiB,
/// and its values (a run's input, `$out`) as they come: they are the
/// parent's own, already in its memory.
const REQUEST_LIMIT: ReadLimit = ReadLimit {
    line: 64 * 1024 * 1024,
    message: u64::MAX,
};
/// How long a worker whose parent is gone waits for its run to stop.
const ORPHAN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);
/// Exit code when the protocol itself could not be set up.
const EXIT_PROTOCOL: i32 = 2;
/// Exit code after a failure that was reported in a `done` message.
const EXIT_FAILED: i32 = 1;

/// Run as the sandbox worker: read a [`WorkerStart`] from stdin, restrict
/// this process, build the session, then evaluate each [`WorkerRun`] and
/// answer it with a `done` message, until the parent closes the pipe (or
/// the idle timeout passes). Returns the process exit code. Call it first
/// thing in `main`, before anything starts a thread.
pub fn worker_main(build_engine: EngineBuilder) -> i32 {
    let started = Instant::now();
    let (input, output) = match take_protocol_fds() {
        Ok(fds) => fds,
        Err(err) => {
            eprintln!("sandbox worker: cannot set up the protocol pipes: {err}");
            return EXIT_PROTOCOL;
        }
    };
    let output = Arc::new(Mutex::new(output));
    let mut input = BufReader::new(input);
    let fallback_cwd = std::env::current_dir().unwrap_or_default();
    let start: WorkerStart = match read_message(&mut input, REQUEST_LIMIT) {
        Line::Message(start) => start,
        Line::Closed => return EXIT_PROTOCOL,
        Line::Invalid(why) => {
            let error = worker_error(format!("the request could not be read: {why}"));
            send_done(
                &output,
                failed_outcome(fallback_cwd, error, started.elapsed()),
            );
            return EXIT_FAILED;
        }
    };
    let cwd = start.cwd.clone();
    let fail = |error: Diagnostic| {
        send_done(
            &output,
            failed_outcome(cwd.clone(), error, started.elapsed()),
        );
        EXIT_FAILED
    };

    // Still single-threaded: restrict now.
    let applied = if start.spec.mode == SandboxMode::Off {
        Applied::off()
    } else {
        // Before the sandbox: the broker that runs the reads naming other
        // processes' sockets outside this process's Landlock domain.
        super::process_view::start_broker();
        match apply_to_current_process(&start.spec) {
            Ok(applied) => applied,
            Err(err) => {
                return fail(Diagnostic::plain(
                    "nu_agent::sandbox::unavailable",
                    err.to_string(),
                    Some("nothing was run".into()),
                ));
            }
        }
    };
    forbid_inspection();
    if let Ok(mut out) = output.lock()
        && write_message(&mut *out, FromWorker::Started(applied)).is_err()
    {
        return EXIT_PROTOCOL;
    }

    // Threads from here on.
    let current = CurrentRun::default();
    let (commands, replies) = match spawn_reader(input, current.clone()) {
        Ok(channels) => channels,
        Err(err) => {
            return fail(worker_error(format!(
                "cannot start the protocol reader: {err}"
            )));
        }
    };
    let approver = Arc::new(ChannelApprover {
        output: output.clone(),
        replies: Mutex::new(replies),
        current: current.clone(),
    });
    let built = match build_engine(&start.policy, approver.clone()) {
        Ok(built) => built,
        Err(why) => {
            return fail(worker_error(format!(
                "the engine could not be built: {why}"
            )));
        }
    };
    let env = start
        .env
        .into_iter()
        .map(|(name, value)| (name, Value::string(value, Span::unknown())))
        .collect();
    let seed = SessionSeed::new(start.cwd.clone()).with_env(env);
    let mut session = match Session::new(&built.engine, seed) {
        Ok(session) => session,
        Err(diagnostic) => return fail(diagnostic),
    };
    session.carry_out(start.outs);
    // What this process prints on its own stdout (nu's warning about a
    // file name that is not UTF-8, from `ls`) joins the run's printed
    // output instead of `/dev/null`.
    if let Some(stdout) = session.stdout_file() {
        // SAFETY: dup2 of an open descriptor onto 1, which this process
        // holds only as the standard stream (the protocol moved off it).
        unsafe {
            libc::dup2(stdout.as_raw_fd(), 1);
        }
    }
    loop {
        let command = match start.idle_timeout {
            Some(idle) => match commands.recv_timeout(idle) {
                Ok(command) => command,
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return 0,
            },
            None => match commands.recv() {
                Ok(command) => command,
                Err(_) => return 0,
            },
        };
        match command {
            Command::Run(run) => {
                let outcome = serve_run(&mut session, &built, &approver, &current, &run);
                send_done(&output, outcome);
            }
            Command::AddOut(value) => session.push_out(value),
        }
    }
}

/// One run in the session, with a cancel token of its own.
fn serve_run(
    session: &mut Session,
    built: &WorkerEngine,
    approver: &ChannelApprover,
    current: &CurrentRun,
    run: &WorkerRun,
) -> Outcome {
    let cancel = current.renew();
    approver.forget_stale_replies();
    if session.cwd() != run.cwd
        && let Err(diagnostic) = session.set_cwd(&run.cwd)
    {
        // The run still takes its `$out` number, as the parent counts it.
        session.push_out(Value::nothing(Span::unknown()));
        return failed_outcome(session.cwd(), diagnostic, std::time::Duration::ZERO);
    }
    (built.before_run)(&run.source, &run.policy);
    if let Some(input) = &run.input {
        session.set_input(input.clone());
    }
    let outcome = session.run_cancellable(&run.source, &run.limits, &cancel);
    sendable_outcome(outcome, &run.limits)
}

/// `outcome` with custom values in its value replaced (see [`sendable`]);
/// the tables they stand for are cut at the output cap like any other.
fn sendable_outcome(mut outcome: Outcome, limits: &Limits) -> Outcome {
    if !has_custom(&outcome.value) {
        return outcome;
    }
    let (value, cut) = cut_to_fit(sendable(outcome.value), limits.max_output_bytes);
    outcome.value = value;
    if let Some(part) = cut
        && outcome.stopped.is_none()
    {
        outcome.stopped = Some(StopReason::OutputCapped(OutputCut {
            limit: limits.max_output_bytes,
            part,
        }));
    }
    outcome
}

/// Move the protocol off fds 0 and 1: private close-on-exec copies carry
/// it, and 0 and 1 point at `/dev/null`, so nothing the pipeline starts or
/// prints can read or write the protocol.
fn take_protocol_fds() -> std::io::Result<(File, File)> {
    let input = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let null = File::options().read(true).write(true).open("/dev/null")?;
    for target in [0, 1] {
        // SAFETY: dup2 on two open descriptors; it replaces `target`, which
        // nothing in this process holds as an owned handle.
        if unsafe { libc::dup2(null.as_raw_fd(), target) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok((input, output))
}

/// Keep the pipeline's externals out of this process: no core dumps and no
/// `/proc/<worker>/mem` or `environ` for them (they would need ptrace
/// rights on a non-dumpable process).
fn forbid_inspection() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_DUMPABLE, 0) has no memory-safety preconditions.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

fn worker_error(message: String) -> Diagnostic {
    Diagnostic::plain("nu_agent::sandbox::worker", message, None)
}

/// Send the final message, its values after its line, while no question
/// can come between them. A value that cannot be encoded arrives as an
/// error value (see [`super::values`]).
fn send_done(output: &Mutex<File>, outcome: Outcome) {
    if let Ok(mut out) = output.lock() {
        let _ = write_message(&mut *out, FromWorker::Done(Box::new(outcome)));
    }
}

/// `value` with every custom value (a SQLite database, a lazy query)
/// replaced by its base value, the table it stands for: a custom value
/// has no serial form the parent can read back. A value without one is
/// left as it is (not copied).
fn sendable(value: Value) -> Value {
    if !has_custom(&value) {
        return value;
    }
    let span = value.span();
    match value {
        Value::Custom { val, .. } => match val.to_base_value(span) {
            // A base value that is custom again is not sent.
            Ok(Value::Custom { .. }) => Value::string(format!("<{}>", val.type_name()), span),
            Ok(base) => sendable(base),
            Err(err) => Value::error(err, span),
        },
        Value::List { vals, .. } => {
            Value::list(vals.into_owned().into_iter().map(sendable).collect(), span)
        }
        Value::Record { val, .. } => Value::record(
            val.into_owned()
                .into_iter()
                .map(|(k, v)| (k, sendable(v)))
                .collect(),
            span,
        ),
        other => other,
    }
}

fn has_custom(value: &Value) -> bool {
    match value {
        Value::Custom { .. } => true,
        Value::List { vals, .. } => vals.iter().any(has_custom),
        Value::Record { val, .. } => val.values().any(has_custom),
        _ => false,
    }
}

/// A line from the parent for the session (the main loop).
enum Command {
    Run(Box<WorkerRun>),
    AddOut(Value),
}

/// A line from the parent, as the approver sees it.
enum Reply {
    Approval {
        id: u64,
        approval: Approval,
    },
    Password {
        id: u64,
        password: Option<String>,
    },
    /// A line that was not a message.
    Garbage,
    /// The parent cancelled the run.
    Cancelled,
}

/// The cancel token of the run in progress (a fresh one per run, so a
/// cancel stops that run and the session goes on).
#[derive(Clone, Default)]
struct CurrentRun(Arc<Mutex<CancelToken>>);

impl CurrentRun {
    fn token(&self) -> CancelToken {
        self.0.lock().map(|t| t.clone()).unwrap_or_default()
    }

    fn renew(&self) -> CancelToken {
        let token = CancelToken::new();
        if let Ok(mut current) = self.0.lock() {
            *current = token.clone();
        }
        token
    }
}

/// Read the parent's lines on a thread: runs and `$out` additions go to
/// the main loop, replies to the approver, a cancel cancels the run in
/// progress; the parent going away cancels it and ends the main loop.
fn spawn_reader(
    mut input: BufReader<File>,
    current: CurrentRun,
) -> std::io::Result<(Receiver<Command>, Receiver<Reply>)> {
    let (commands, command_rx) = mpsc::channel();
    let (replies, reply_rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("sandbox-protocol".into())
        .spawn(move || read_lines(&mut input, &current, &commands, &replies))?;
    Ok((command_rx, reply_rx))
}

fn read_lines(
    input: &mut BufReader<File>,
    current: &CurrentRun,
    commands: &Sender<Command>,
    replies: &Sender<Reply>,
) {
    loop {
        let reply = match read_message::<ToWorker>(input, REQUEST_LIMIT) {
            Line::Message(ToWorker::Run(run)) => {
                let _ = commands.send(Command::Run(run));
                continue;
            }
            Line::Message(ToWorker::AddOut(value)) => {
                let _ = commands.send(Command::AddOut(*value));
                continue;
            }
            Line::Message(ToWorker::Approval { id, approval }) => Reply::Approval { id, approval },
            Line::Message(ToWorker::Password { id, password }) => Reply::Password { id, password },
            Line::Message(ToWorker::Cancel) => {
                current.token().cancel();
                Reply::Cancelled
            }
            Line::Invalid(_) => Reply::Garbage,
            Line::Closed => {
                // The parent is gone: nobody will read a result. Stop the
                // run (its processes are killed within a poll), and leave
                // even if its evaluation does not stop: never an orphan.
                current.token().cancel();
                std::thread::sleep(ORPHAN_GRACE);
                // SAFETY: _exit(2) ends the process at once; nothing is
                // owed to a parent that is gone.
                unsafe { libc::_exit(0) }
            }
        };
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// Asks the parent: writes the question on the protocol and waits for the
/// reply with the same id. One question at a time (guards may ask from
/// `par-each` threads). No reply, garbage or a cancel means no.
struct ChannelApprover {
    output: Arc<Mutex<File>>,
    replies: Mutex<Receiver<Reply>>,
    current: CurrentRun,
}

impl ChannelApprover {
    /// Drop replies left from an earlier run (a cancel that came after its
    /// last question).
    fn forget_stale_replies(&self) {
        if let Ok(replies) = self.replies.lock() {
            while replies.try_recv().is_ok() {}
        }
    }

    fn ask(&self, question: impl FnOnce(u64) -> FromWorker) -> Option<Reply> {
        let replies = self.replies.lock().ok()?;
        if self.current.token().is_cancelled() {
            return None;
        }
        let id = random_id();
        {
            let mut out = self.output.lock().ok()?;
            write_message(&mut *out, question(id)).ok()?;
        }
        loop {
            match replies.recv().ok()? {
                // A reply to a question this process never asked (a line
                // the pipeline forged): not ours, keep waiting.
                Reply::Approval { id: other, .. } | Reply::Password { id: other, .. }
                    if other != id =>
                {
                    continue;
                }
                Reply::Garbage | Reply::Cancelled => return None,
                reply => return Some(reply),
            }
        }
    }
}

impl Approver for ChannelApprover {
    fn approve(&self, request: &ApprovalRequest) -> Approval {
        match self.ask(|id| FromWorker::Approve {
            id,
            request: request.clone(),
        }) {
            Some(Reply::Approval { approval, .. }) => approval,
            _ => Approval::No,
        }
    }

    fn password(&self, prompt: &str) -> Option<String> {
        match self.ask(|id| FromWorker::Password {
            id,
            prompt: prompt.to_string(),
        }) {
            Some(Reply::Password { password, .. }) => password,
            _ => None,
        }
    }
}

/// An id the pipeline cannot guess.
fn random_id() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut bytes = [0u8; 8];
        // SAFETY: getrandom writes at most `bytes.len()` bytes into the
        // buffer.
        let filled = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
        if filled == 8 {
            return u64::from_ne_bytes(bytes);
        }
    }
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(Instant::now())
}

#[cfg(test)]
mod tests {
    use std::{io::BufRead, os::fd::FromRawFd};

    use super::*;

    fn pipe() -> (File, File) {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the two-element array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both fds are fresh and owned by nothing else.
        unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) }
    }

    fn question() -> ApprovalRequest {
        ApprovalRequest {
            labels: vec!["run: ^make".into()],
            steps: vec!["^make".into()],
            pipeline: "^make".into(),
            reason: "runs a program".into(),
            warning: false,
            privileged: false,
        }
    }

    /// An approver whose questions come out of `questions` and whose
    /// replies go into the returned sender.
    fn approver() -> (Arc<ChannelApprover>, BufReader<File>, Sender<Reply>) {
        let (read, write) = pipe();
        let (replies, received) = mpsc::channel();
        let approver = Arc::new(ChannelApprover {
            output: Arc::new(Mutex::new(write)),
            replies: Mutex::new(received),
            current: CurrentRun::default(),
        });
        (approver, BufReader::new(read), replies)
    }

    fn asked_id(questions: &mut BufReader<File>) -> u64 {
        let mut line = String::new();
        questions.read_line(&mut line).unwrap();
        match serde_json::from_str(&line).unwrap() {
            FromWorker::Approve { id, request } => {
                assert_eq!(request, question());
                id
            }
            other => panic!("not a question: {other:?}"),
        }
    }

    #[test]
    fn only_the_reply_with_the_questions_id_answers_it() {
        let (approver, mut questions, replies) = approver();
        let asking = {
            let approver = approver.clone();
            std::thread::spawn(move || approver.approve(&question()))
        };
        let id = asked_id(&mut questions);
        // A forged answer (another id) is skipped.
        replies
            .send(Reply::Approval {
                id: id.wrapping_add(1),
                approval: Approval::Yes,
            })
            .unwrap();
        replies
            .send(Reply::Approval {
                id,
                approval: Approval::Edit("^make -n".into()),
            })
            .unwrap();
        assert_eq!(asking.join().unwrap(), Approval::Edit("^make -n".into()));
    }

    #[test]
    fn garbage_a_cancel_or_a_gone_parent_means_no() {
        for reply in [Some(Reply::Garbage), Some(Reply::Cancelled), None] {
            let (approver, mut questions, replies) = approver();
            let asking = {
                let approver = approver.clone();
                std::thread::spawn(move || approver.approve(&question()))
            };
            asked_id(&mut questions);
            match reply {
                Some(reply) => replies.send(reply).unwrap(),
                None => drop(replies),
            }
            assert_eq!(asking.join().unwrap(), Approval::No);
        }
    }

    #[test]
    fn after_a_cancel_nothing_is_asked() {
        let (approver, _questions, _replies) = approver();
        approver.current.token().cancel();
        assert_eq!(approver.approve(&question()), Approval::No);
        assert_eq!(approver.password("sudo password"), None);
    }

    #[test]
    fn ids_differ() {
        assert_ne!(random_id(), random_id());
    }
}
