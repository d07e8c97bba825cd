//! What the `agent model` commands and `nu-agent model` print: models,
//! GPUs and model settings as nu values, and the progress bar of a pull.

use std::{
    io::{IsTerminal, Write},
    path::Path,
    time::{Duration, Instant, SystemTime},
};

use agent_core::llm::{
    GpuReport, ModelFacts, ModelRow, ModelSettings, Progress, Pulled, Resident,
    cpu_variant::CpuBackend,
};
use nu_protocol::{Record, Span, Value};

fn text(value: Option<&str>, span: Span) -> Value {
    value.map_or(Value::nothing(span), |v| Value::string(v, span))
}

fn path(value: Option<&Path>, span: Span) -> Value {
    value.map_or(Value::nothing(span), |p| {
        Value::string(p.to_string_lossy(), span)
    })
}

fn size(bytes: Option<u64>, span: Span) -> Value {
    bytes.map_or(Value::nothing(span), |b| {
        Value::filesize(i64::try_from(b).unwrap_or(i64::MAX), span)
    })
}

fn int(value: Option<u64>, span: Span) -> Value {
    value.map_or(Value::nothing(span), |v| {
        Value::int(i64::try_from(v).unwrap_or(i64::MAX), span)
    })
}

fn flag(value: Option<bool>, span: Span) -> Value {
    value.map_or(Value::nothing(span), |v| Value::bool(v, span))
}

fn duration(value: Duration, span: Span) -> Value {
    Value::duration(i64::try_from(value.as_nanos()).unwrap_or(i64::MAX), span)
}

fn date(time: SystemTime, span: Span) -> Value {
    let utc: chrono::DateTime<chrono::Utc> = time.into();
    Value::date(utc.fixed_offset(), span)
}

/// One row of `agent model list`: name, path, size, quantization,
/// parameters, context, loaded, pulled, measured (whether the suite here
/// measured the agent on it; nothing for a file the catalog does not
/// know).
pub fn row_value(row: &ModelRow, span: Span) -> Value {
    let mut record = Record::new();
    record.push("name", Value::string(&row.name, span));
    record.push("path", path(row.path.as_deref(), span));
    record.push("size", size(row.size, span));
    record.push("quantization", text(row.quantization.as_deref(), span));
    record.push("parameters", text(row.parameters.as_deref(), span));
    record.push("context", int(row.context, span));
    record.push("loaded", Value::bool(row.loaded, span));
    record.push("pulled", Value::bool(row.pulled, span));
    record.push("measured", flag(row.measured, span));
    Value::record(record, span)
}

/// `agent model list` as a table.
pub fn rows_value(rows: &[ModelRow], span: Span) -> Value {
    Value::list(rows.iter().map(|r| row_value(r, span)).collect(), span)
}

/// The resident model: path, context, gpu_layers, threads, loaded_at,
/// in_use.
pub fn resident_value(resident: &Resident, span: Span) -> Value {
    let mut record = Record::new();
    record.push("path", path(Some(&resident.path), span));
    record.push("context", int(Some(u64::from(resident.n_ctx)), span));
    record.push(
        "gpu_layers",
        int(Some(u64::from(resident.gpu_layers)), span),
    );
    record.push("threads", int(Some(u64::from(resident.threads)), span));
    record.push("loaded_at", date(resident.loaded_at, span));
    record.push("in_use", int(Some(resident.in_use as u64), span));
    Value::record(record, span)
}

/// The backend settings in effect, `model` the local model's name.
pub fn settings_value(settings: &ModelSettings, model: &str, hub: &str, span: Span) -> Value {
    let count = |value: Option<u32>| int(value.map(u64::from), span);
    let mut record = Record::new();
    record.push("kind", Value::string(settings.backend.as_str(), span));
    record.push("model", Value::string(model, span));
    record.push("context", count(settings.context));
    record.push("gpu_layers", count(settings.gpu_layers));
    record.push("threads", count(settings.threads));
    record.push("keep_alive", duration(settings.keep_alive, span));
    record.push("think", Value::bool(settings.think, span));
    // Through its shortest text: 0.2f32 reads 0.2, not 0.20000000298.
    let temperature = settings
        .temperature
        .to_string()
        .parse()
        .unwrap_or(f64::from(settings.temperature));
    record.push("temperature", Value::float(temperature, span));
    record.push("max_tokens", count(Some(settings.max_tokens)));
    record.push("prefix_cache", Value::bool(settings.prefix_cache, span));
    record.push("url", text(settings.url.as_deref(), span));
    record.push("remote_model", text(settings.remote_model.as_deref(), span));
    record.push("api_key_env", text(settings.api_key_env.as_deref(), span));
    record.push("timeout", duration(settings.timeout, span));
    record.push("retries", count(Some(settings.retries)));
    record.push(
        "fallback",
        text(settings.fallback_local.then_some("local"), span),
    );
    record.push("hub", Value::string(hub, span));
    Value::record(record, span)
}

/// The GPUs as a table of vendor and name.
pub fn gpus_value(report: &GpuReport, span: Span) -> Value {
    Value::list(
        report
            .gpus
            .iter()
            .map(|gpu| {
                let mut record = Record::new();
                record.push("vendor", Value::string(gpu.vendor.as_str(), span));
                record.push("name", Value::string(&gpu.name, span));
                Value::record(record, span)
            })
            .collect(),
        span,
    )
}

/// The CPU code in use: `variant`, `path` (a portable build's module) and
/// `skipped` (variants that failed their check, with why).
pub fn cpu_backend_value(cpu: &CpuBackend, span: Span) -> Value {
    let skipped = cpu
        .skipped
        .iter()
        .map(|s| {
            let mut row = Record::new();
            row.push("variant", Value::string(&s.variant, span));
            row.push("reason", Value::string(&s.reason, span));
            Value::record(row, span)
        })
        .collect();
    let mut record = Record::new();
    record.push("variant", Value::string(&cpu.variant, span));
    record.push("path", path(cpu.path.as_deref(), span));
    record.push("skipped", Value::list(skipped, span));
    Value::record(record, span)
}

/// `agent model info`: the model's facts, `loaded` (the resident model's
/// details when it is this one), `gpus`, `compiled_backends`, `hint`,
/// `cpu_backend` and the `backend` settings.
pub fn info_value(
    facts: &ModelFacts,
    loaded: Option<&Resident>,
    gpus: &GpuReport,
    backend: Value,
    chosen_because: Option<&str>,
    span: Span,
) -> Value {
    let mut record = Record::new();
    record.push("name", Value::string(&facts.name, span));
    record.push("chosen_because", text(chosen_because, span));
    record.push("path", path(facts.path.as_deref(), span));
    record.push("pulled", Value::bool(facts.pulled, span));
    record.push("measured", flag(facts.measured, span));
    record.push("size", size(facts.size, span));
    record.push("architecture", text(facts.architecture.as_deref(), span));
    record.push("parameters", text(facts.parameters.as_deref(), span));
    record.push("quantization", text(facts.quantization.as_deref(), span));
    record.push("context", int(facts.context, span));
    record.push("layers", int(facts.layers, span));
    record.push("chat_template", flag(facts.chat_template, span));
    record.push("tool_call_token", flag(facts.tool_call_token, span));
    record.push(
        "loaded",
        loaded.map_or(Value::nothing(span), |r| resident_value(r, span)),
    );
    record.push("gpus", gpus_value(gpus, span));
    record.push(
        "compiled_backends",
        Value::list(
            gpus.compiled_backends
                .iter()
                .map(|b| Value::string(*b, span))
                .collect(),
            span,
        ),
    );
    record.push("hint", text(gpus.hint.as_deref(), span));
    record.push(
        "cpu_backend",
        gpus.cpu_backend
            .as_ref()
            .map_or(Value::nothing(span), |cpu| cpu_backend_value(cpu, span)),
    );
    record.push("backend", backend);
    Value::record(record, span)
}

/// `agent model pull`'s answer: name, path, size, sha256.
pub fn pulled_value(pulled: &Pulled, span: Span) -> Value {
    let mut record = Record::new();
    record.push("name", Value::string(&pulled.name, span));
    record.push("path", path(Some(&pulled.path), span));
    record.push("size", size(Some(pulled.size), span));
    record.push("sha256", Value::string(&pulled.sha256, span));
    Value::record(record, span)
}

/// A pull's progress on stderr: percent, megabytes and speed, redrawn in
/// place on a terminal, a line every few seconds otherwise.
pub struct PullProgress {
    name: String,
    started: Instant,
    /// Bytes already there when this transfer began (a resumed `.part`).
    resumed_from: Option<u64>,
    last_drawn: Option<Instant>,
    last: Option<Progress>,
    terminal: bool,
}

impl PullProgress {
    /// A bar for pulling `name`.
    pub fn new(name: &str) -> PullProgress {
        PullProgress {
            name: name.to_string(),
            started: Instant::now(),
            resumed_from: None,
            last_drawn: None,
            last: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Note `progress`; redraws at most a few times a second.
    pub fn update(&mut self, progress: Progress) {
        let resumed_from = *self.resumed_from.get_or_insert(progress.done);
        if progress.done < resumed_from {
            // The server ignored the range: the transfer starts over.
            self.resumed_from = Some(progress.done);
            self.started = Instant::now();
        }
        self.last = Some(progress);
        let every = if self.terminal {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(5)
        };
        if self.last_drawn.is_none_or(|at| at.elapsed() >= every) {
            self.draw();
        }
    }

    /// Print `line` on a line of its own (ending the bar's line first); the
    /// bar starts over after it, as a new transfer.
    pub fn note(&mut self, line: &str) {
        let mut stderr = std::io::stderr().lock();
        if self.terminal && self.last_drawn.is_some() {
            let _ = writeln!(stderr);
        }
        let _ = writeln!(stderr, "{line}");
        self.started = Instant::now();
        self.resumed_from = None;
        self.last_drawn = None;
        self.last = None;
    }

    /// Draw the last state and end the line.
    pub fn finish(&mut self) {
        if self.last.is_some() {
            self.draw();
            if self.terminal {
                let _ = writeln!(std::io::stderr());
            }
        }
    }

    fn draw(&mut self) {
        let Some(progress) = self.last else { return };
        self.last_drawn = Some(Instant::now());
        let mb = |bytes: u64| bytes as f64 / 1e6;
        let fresh = progress.done.saturating_sub(self.resumed_from.unwrap_or(0));
        let seconds = self.started.elapsed().as_secs_f64().max(0.001);
        let speed = mb(fresh) / seconds;
        let line = match progress.total {
            Some(total) if total > 0 => format!(
                "{}: {:>3}% {:.1}/{:.1} MB {:.1} MB/s",
                self.name,
                (progress.done.min(total) * 100) / total,
                mb(progress.done),
                mb(total),
                speed
            ),
            _ => format!(
                "{}: {:.1} MB {:.1} MB/s",
                self.name,
                mb(progress.done),
                speed
            ),
        };
        let mut stderr = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(stderr, "\r{line:<60}");
        } else {
            let _ = writeln!(stderr, "{line}");
        }
        let _ = stderr.flush();
    }
}
