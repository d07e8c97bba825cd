//! The MCP server of one connection: its tools, resources and
//! instructions over the session, the jobs and the client's approvals.

use std::{borrow::Cow, sync::Arc};

use agent_core::{
    policy::Decision,
    shell::{CancelToken, Limits},
    store::{AuditEvent, AuditLog, AuditRecord},
};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
        ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
        ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
};
use serde_json::{Map, Value as Json, json};
use tokio::sync::OnceCell;

use super::{
    Settings,
    approver::{ClientLink, McpApprover},
    jobs::{Jobs, record_json},
    json::to_json,
    session::{Session, row_line},
    tools,
};

/// How the server tells the client how to use it.
const INSTRUCTIONS: &str = include_str!("instructions.md");

/// The longest `job_result` waits.
const MOST_WAIT: f64 = 600.0;

/// The server of one MCP connection (stdio) or session (HTTP).
pub struct NuServer {
    settings: Arc<Settings>,
    /// The session and the client, from the first call on.
    connected: OnceCell<Result<Connected, String>>,
    jobs: Arc<Result<Jobs, String>>,
    /// Served over HTTP: only the protocol versions with sessions.
    over_http: bool,
}

struct Connected {
    session: Session,
    link: Arc<ClientLink>,
    audit: Option<AuditLog>,
}

impl NuServer {
    /// A server under `settings`, for the one connection on stdio.
    pub fn new(settings: Settings) -> NuServer {
        NuServer::with(Arc::new(settings), false)
    }

    /// A server for one MCP session over HTTP (the settings are the
    /// whole server's).
    pub fn over_http(settings: Arc<Settings>) -> NuServer {
        NuServer::with(settings, true)
    }

    fn with(settings: Arc<Settings>, over_http: bool) -> NuServer {
        let jobs = Arc::new(Jobs::open(&settings));
        NuServer {
            settings,
            connected: OnceCell::new(),
            jobs,
            over_http,
        }
    }

    /// The jobs, to end them with the server.
    pub fn jobs(&self) -> Arc<Result<Jobs, String>> {
        self.jobs.clone()
    }

    async fn connected(&self, context: &RequestContext<RoleServer>) -> Result<&Connected, String> {
        let result = self
            .connected
            .get_or_init(|| async {
                let info = context.peer.peer_info();
                let client = info
                    .as_ref()
                    .map(|i| i.client_info.name.clone())
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| "an MCP client".into());
                let elicits = info
                    .as_ref()
                    .is_some_and(|i| i.capabilities.elicitation.is_some());
                let link = Arc::new(ClientLink {
                    peer: context.peer.clone(),
                    runtime: tokio::runtime::Handle::current(),
                    elicits,
                    client: client.clone(),
                    approve: self.settings.approve.clone(),
                });
                let approver = Arc::new(McpApprover::new(link.clone()));
                let settings = self.settings.clone();
                let name = client.clone();
                let started =
                    tokio::task::spawn_blocking(move || Session::start(settings, approver, name))
                        .await
                        .map_err(|e| format!("the session did not start: {e}"))?
                        .map_err(|gone| gone.0)?;
                let audit = agent_core::policy::PolicyShell::audit_log(&self.settings.seed);
                Ok(Connected {
                    session: started,
                    link,
                    audit,
                })
            })
            .await;
        result.as_ref().map_err(Clone::clone)
    }

    async fn call(
        &self,
        name: &str,
        args: &Map<String, Json>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, String> {
        let connected = self.connected(context).await?;
        match name {
            "run" => {
                let pipeline = tools::string(args, "pipeline")?;
                let timeout =
                    tools::duration(args, "timeout")?.unwrap_or(self.settings.step_timeout);
                let limits = Limits::default()
                    .with_max_output_bytes(self.settings.max_output)
                    .with_timeout(timeout);
                let cancel = CancelToken::new();
                let _stop = StopOnCancel::watch(context, &cancel);
                let reply = connected
                    .session
                    .run(pipeline, limits, cancel)
                    .await
                    .map_err(|gone| gone.0)?;
                let mut result = if reply.is_error {
                    CallToolResult::error(vec![ContentBlock::text(reply.text)])
                } else {
                    CallToolResult::success(vec![ContentBlock::text(reply.text)])
                };
                result.structured_content = reply.structured;
                Ok(result)
            }
            "check" => {
                let pipeline = tools::string(args, "pipeline")?;
                let decision = connected
                    .session
                    .check(pipeline.clone())
                    .await
                    .map_err(|gone| gone.0)?;
                audit_check(connected, &pipeline, &decision);
                Ok(check_result(&pipeline, &decision))
            }
            "help" => {
                let command = tools::string(args, "command")?;
                let text = connected
                    .session
                    .help(command)
                    .await
                    .map_err(|gone| gone.0)?;
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            "job_run" => {
                let pipeline = tools::string(args, "pipeline")?;
                let jobs = self.jobs.as_ref().as_ref().map_err(Clone::clone)?;
                let (seed, _) = connected.session.seed().await.map_err(|gone| gone.0)?;
                let id = jobs.run(&pipeline, seed, &self.settings, connected.link.clone())?;
                let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
                    "job {id} started: `{pipeline}`; follow it with job_status {{id: {id}}} and take its value with job_result {{id: {id}}}"
                ))]);
                result.structured_content = Some(json!({"id": id}));
                Ok(result)
            }
            "job_status" => {
                let id = tools::job_id(args)?;
                let jobs = self.jobs.as_ref().as_ref().map_err(Clone::clone)?;
                let record = jobs.record(id).ok_or_else(|| no_job(id))?;
                let value = record_json(&record);
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
                result.structured_content = Some(value);
                Ok(result)
            }
            "job_result" => {
                let id = tools::job_id(args)?;
                let wait = match args.get("wait") {
                    None | Some(Json::Null) => 0.0,
                    Some(value) => value
                        .as_f64()
                        .filter(|s| *s >= 0.0)
                        .ok_or("`wait` must be a number of seconds ≥ 0")?
                        .min(MOST_WAIT),
                };
                let jobs = self.jobs.clone();
                let cancel = CancelToken::new();
                let _stop = StopOnCancel::watch(context, &cancel);
                tokio::task::spawn_blocking(move || {
                    let jobs = jobs.as_ref().as_ref().map_err(Clone::clone)?;
                    job_result(jobs, id, wait, &cancel)
                })
                .await
                .map_err(|e| format!("job_result failed: {e}"))?
            }
            "job_cancel" => {
                let id = tools::job_id(args)?;
                let jobs = self.jobs.as_ref().as_ref().map_err(Clone::clone)?;
                let record = jobs.record(id).ok_or_else(|| no_job(id))?;
                if record.status.is_finished() {
                    return Err(format!(
                        "job {id} has already finished ({})",
                        record.status.as_str()
                    ));
                }
                if !jobs.cancel(id) {
                    return Err(format!(
                        "job {id} is not run by this server (cancel it where it runs: `agent job cancel {id}` in nu)"
                    ));
                }
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "job {id} cancelled"
                ))]))
            }
            other => Err(format!(
                "there is no tool `{other}`; the tools are run, check, help, job_run, job_status, job_result and job_cancel"
            )),
        }
    }

    async fn read(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Json, McpError> {
        let not_found = || {
            McpError::resource_not_found(
                format!(
                    "no resource {uri}: the resources are nu-agent://out/N and nu-agent://job/ID/result"
                ),
                None,
            )
        };
        if let Some(index) = uri.strip_prefix("nu-agent://out/") {
            let index: usize = index.parse().map_err(|_| not_found())?;
            let connected = self
                .connected(context)
                .await
                .map_err(|e| McpError::internal_error(e, None))?;
            let value = connected
                .session
                .out(index)
                .await
                .map_err(|gone| McpError::internal_error(gone.0, None))?
                .ok_or_else(not_found)?;
            return Ok(to_json(&value));
        }
        if let Some(rest) = uri.strip_prefix("nu-agent://job/") {
            let id: u64 = rest
                .strip_suffix("/result")
                .and_then(|id| id.parse().ok())
                .ok_or_else(not_found)?;
            let jobs = self
                .jobs
                .as_ref()
                .as_ref()
                .map_err(|e| McpError::internal_error(e.clone(), None))?;
            return jobs
                .result(id)
                .map_err(|e| McpError::internal_error(e, None))?
                .ok_or_else(not_found);
        }
        Err(not_found())
    }
}

/// Cancels a step when the client cancels its call (or the call is
/// dropped: the connection closed).
/// (The token is the call's own: cancelling it after the step ended
/// changes nothing.)
struct StopOnCancel {
    cancel: CancelToken,
    watcher: tokio::task::JoinHandle<()>,
}

impl StopOnCancel {
    fn watch(context: &RequestContext<RoleServer>, cancel: &CancelToken) -> StopOnCancel {
        let ct = context.ct.clone();
        let token = cancel.clone();
        let watcher = tokio::spawn(async move {
            ct.cancelled().await;
            token.cancel();
        });
        StopOnCancel {
            cancel: cancel.clone(),
            watcher,
        }
    }
}

impl Drop for StopOnCancel {
    fn drop(&mut self) {
        self.watcher.abort();
        self.cancel.cancel();
    }
}

impl Drop for NuServer {
    /// The connection or session ended: its jobs stop (they would be lost
    /// with it); the session's thread ends as its `Session` is dropped.
    fn drop(&mut self) {
        if let Ok(jobs) = self.jobs.as_ref() {
            jobs.cancel_live();
        }
    }
}

fn no_job(id: u64) -> String {
    format!("there is no job {id} (job_run gives a job's id)")
}

fn job_result(
    jobs: &Jobs,
    id: u64,
    wait: f64,
    cancel: &CancelToken,
) -> Result<CallToolResult, String> {
    let mut record = jobs.record(id).ok_or_else(|| no_job(id))?;
    if !record.status.is_finished() && wait > 0.0 {
        let started = std::time::Instant::now();
        while !record.status.is_finished()
            && started.elapsed().as_secs_f64() < wait
            && !cancel.is_cancelled()
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
            record = jobs.record(id).ok_or_else(|| no_job(id))?;
        }
    }
    if !record.status.is_finished() {
        return Err(format!(
            "job {id} is {}; ask again when it has finished (or pass wait)",
            record.status.as_str()
        ));
    }
    // Only a completed job has a result: a failed, cancelled or timed-out
    // one is an error that says so, whatever value it left.
    let why = record.why_no_result();
    let value = match why {
        Some(_) => None,
        None => jobs.result(id)?,
    };
    let text = match (&why, &value) {
        (Some(why), _) => format!("job {id} has no result: {why}"),
        (None, Some(value)) => value.to_string(),
        (None, None) => format!("job {id} completed without a value"),
    };
    let mut result = if why.is_some() {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(json!({
        "id": id,
        "status": record.status.as_str(),
        "value": value.unwrap_or(Json::Null),
    }));
    Ok(result)
}

/// `check`'s answer: the verdict and the plan, as `nu-agent policy check`
/// prints them, and the same as JSON.
fn check_result(pipeline: &str, decision: &Decision) -> CallToolResult {
    let mut text = format!("verdict: {}\n", decision.verdict);
    for row in &decision.rows {
        text.push_str(&row_line(row));
        text.push('\n');
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "pipeline": pipeline,
        "verdict": decision.verdict,
        "rows": decision.rows,
    }));
    result
}

fn audit_check(connected: &Connected, pipeline: &str, decision: &Decision) {
    if let Some(log) = &connected.audit {
        let record = AuditRecord {
            plan: serde_json::to_value(&decision.rows).unwrap_or_default(),
            verdict: Some(decision.verdict.as_str().into()),
            rule: decision.deciding_rows().next().map(|r| r.rule.clone()),
            client: Some(connected.link.client.clone()),
            ..AuditRecord::new(AuditEvent::Decision, pipeline)
        };
        if let Err(err) = log.append(&record) {
            eprintln!("nu-agent: cannot write the audit log: {err}");
        }
    }
}

fn from_json<T: serde::de::DeserializeOwned>(value: Json) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|e| McpError::internal_error(e.to_string(), None))
}

impl ServerHandler for NuServer {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.over_http {
            super::http::handshake_versions()
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        );
        info.instructions = Some(INSTRUCTIONS.into());
        if let Ok(implementation) = serde_json::from_value(json!({
            "name": "nu-agent",
            "title": "nu-agent: Nushell under your policy",
            "version": env!("CARGO_PKG_VERSION"),
        })) {
            info.server_info = implementation;
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        from_json(tools::list())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        const TOOLS: &[&str] = &[
            "run",
            "check",
            "help",
            "job_run",
            "job_status",
            "job_result",
            "job_cancel",
        ];
        if !TOOLS.contains(&request.name.as_ref()) {
            return Err(McpError::invalid_params(
                format!(
                    "there is no tool `{}`; the tools are {}",
                    request.name,
                    TOOLS.join(", ")
                ),
                None,
            ));
        }
        let args = request.arguments.clone().unwrap_or_default();
        let result = match self.call(&request.name, &args, &context).await {
            Ok(result) => result,
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut resources = Vec::new();
        if let Ok(connected) = self.connected(&context).await
            && let Ok((_, outs)) = connected.session.seed().await
        {
            for index in 0..outs {
                resources.push(json!({
                    "uri": format!("nu-agent://out/{index}"),
                    "name": format!("$out.{index}"),
                    "description": format!("The whole value of run {index} of this session, as JSON."),
                    "mimeType": "application/json",
                }));
            }
        }
        if let Ok(jobs) = self.jobs.as_ref() {
            for id in jobs.started() {
                resources.push(json!({
                    "uri": format!("nu-agent://job/{id}/result"),
                    "name": format!("job {id} result"),
                    "description": format!("The value of background job {id}, as JSON, once it has finished."),
                    "mimeType": "application/json",
                }));
            }
        }
        from_json(json!({ "resources": resources }))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        from_json(json!({"resourceTemplates": [
            {
                "uriTemplate": "nu-agent://out/{n}",
                "name": "$out.N",
                "description": "The whole value of run N of this session ($out.N), as JSON.",
                "mimeType": "application/json",
            },
            {
                "uriTemplate": "nu-agent://job/{id}/result",
                "name": "job result",
                "description": "The value of a finished background job, as JSON.",
                "mimeType": "application/json",
            },
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let value = self.read(&request.uri, &context).await?;
        let result: ReadResourceResult = from_json(json!({"contents": [{
            "uri": request.uri,
            "mimeType": "application/json",
            "text": value.to_string(),
        }]}))?;
        Ok(result.into())
    }
}
