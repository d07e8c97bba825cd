//! `nu-agent mcp --http ADDR`: the same server over MCP's streamable HTTP
//! transport, on a loopback address only. Every MCP session (from its
//! `initialize` to its end) gets a server of its own, as a stdio
//! connection does: its own persistent sandboxed session, its own jobs,
//! and approvals asked through that session's client (elicitation is a
//! request from the server, sent on the session's SSE stream).
//!
//! Loopback is not a boundary between the users of one machine: every
//! request must carry the bearer token printed at start (or given in
//! `$NU_AGENT_MCP_TOKEN`), and requests from a browser page (an `Origin`
//! header) or for a host that is not loopback are refused.

use std::{
    borrow::Cow,
    convert::Infallible,
    io::Read,
    net::{IpAddr, Ipv4Addr, SocketAddr},
    sync::{Arc, Mutex, Weak},
    time::Duration,
};

use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{
    Request, Response, StatusCode,
    body::{Bytes, Incoming},
    header,
};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use super::{Settings, jobs::Jobs, server::NuServer};

/// The environment variable that gives the token (instead of a random one).
pub const TOKEN_ENV: &str = "NU_AGENT_MCP_TOKEN";

/// The one path the server answers on.
pub const PATH: &str = "/mcp";

/// Shortest token accepted from `$NU_AGENT_MCP_TOKEN`.
const SHORTEST_TOKEN: usize = 16;

/// How long a session may go without a message before it ends (its
/// variables and sandbox with it): longer than any answer is waited for.
const SESSION_IDLE: Duration = Duration::from_secs(60 * 60);

/// The listening address of `--http`: `127.0.0.1:PORT`, `[::1]:PORT`,
/// `localhost:PORT` or a bare `PORT` (on 127.0.0.1); port 0 picks a free
/// one. Any address that is not loopback is refused.
pub fn parse_address(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    let address = if let Ok(port) = text.parse::<u16>() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else if let Some(port) = text.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("`{port}` is not a port number"))?;
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    } else {
        text.parse::<SocketAddr>().map_err(|_| {
            format!(
                "`{text}` is not an address: give 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or a port"
            )
        })?
    };
    if !address.ip().is_loopback() {
        return Err(format!(
            "{} is not a loopback address: nu-agent mcp listens only on 127.0.0.1, ::1 or localhost, \
             since whoever reaches it runs pipelines as you",
            address.ip()
        ));
    }
    Ok(address)
}

/// The bearer token: `$NU_AGENT_MCP_TOKEN`, else 32 random bytes in hex.
/// The second value says whether it came from the environment.
fn token() -> Result<(String, bool), String> {
    if let Some(given) = std::env::var_os(TOKEN_ENV) {
        let given = given
            .into_string()
            .map_err(|_| format!("${TOKEN_ENV} is not UTF-8"))?;
        let given = given.trim().to_string();
        if given.len() < SHORTEST_TOKEN || !given.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!(
                "${TOKEN_ENV} must be at least {SHORTEST_TOKEN} printable characters without spaces \
                 (e.g. `openssl rand -hex 32`)"
            ));
        }
        return Ok((given, true));
    }
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut bytes))
        .map_err(|e| format!("cannot make a token from /dev/urandom: {e}"))?;
    Ok((bytes.iter().map(|b| format!("{b:02x}")).collect(), false))
}

/// Whether `request` carries `Authorization: Bearer <token>` (compared in
/// constant time).
fn authorized(request: &Request<Incoming>, token: &str) -> bool {
    let Some(given) = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
    else {
        return false;
    };
    let (given, token) = (given.as_bytes(), token.as_bytes());
    given.len() == token.len()
        && given
            .iter()
            .zip(token)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

type Body = BoxBody<Bytes, Infallible>;

fn refusal(status: StatusCode, message: &str, bearer: bool) -> Response<Body> {
    let body = serde_json::json!({"error": message}).to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    // The request's body is not read, so the connection is closed after
    // this answer: said here, a client does not send its next request on
    // it (it did, and met "server disconnected without a response").
    headers.insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    if bearer {
        headers.insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer realm=\"nu-agent mcp\""),
        );
    }
    response
}

/// The jobs of every session the server started, to end them with it.
#[derive(Default)]
struct Started(Mutex<Vec<Weak<Result<Jobs, String>>>>);

impl Started {
    fn add(&self, jobs: &Arc<Result<Jobs, String>>) {
        let mut list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(|j| j.strong_count() > 0);
        list.push(Arc::downgrade(jobs));
    }

    fn live(&self) -> Vec<Arc<Result<Jobs, String>>> {
        let list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        list.iter().filter_map(Weak::upgrade).collect()
    }
}

/// Serve MCP over streamable HTTP on `address` until SIGINT or SIGTERM.
pub async fn serve(settings: Settings, address: SocketAddr) -> Result<(), String> {
    let (token, from_env) = token()?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the address listened on: {e}"))?;

    let settings = Arc::new(settings);
    let started = Arc::new(Started::default());
    let stop = CancellationToken::new();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive =
        Some(SESSION_IDLE.max(settings.step_timeout.saturating_mul(2)));
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop.child_token())
        // Host must name loopback (no DNS rebinding), and a browser page
        // (it sends an Origin) is never a client of this server.
        .with_allowed_hosts(
            ["localhost", "127.0.0.1", "::1"]
                .map(String::from)
                .into_iter()
                .chain([bound.ip().to_string()]),
        )
        .enforce_origin_validation();
    let service = {
        let settings = settings.clone();
        let started = started.clone();
        StreamableHttpService::new(
            move || {
                let server = NuServer::over_http(settings.clone());
                started.add(&server.jobs());
                Ok(server)
            },
            Arc::new(sessions),
            config,
        )
    };

    eprintln!("nu-agent: MCP server (streamable HTTP) on http://{bound}{PATH}");
    if from_env {
        eprintln!("nu-agent: bearer token: the one in ${TOKEN_ENV}");
    } else {
        eprintln!("nu-agent: bearer token: {token}");
    }
    eprintln!(
        "nu-agent: clients must send `Authorization: Bearer <token>`; only this machine can connect"
    );

    let token: Arc<str> = token.into();
    let mut interrupt = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut terminate = signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = interrupt.recv() => break,
            _ = terminate.recv() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of descriptors and the like: wait, then go on.
                eprintln!("nu-agent: cannot accept a connection: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = service.clone();
        let token = token.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                async move {
                    if request.uri().path() != PATH {
                        return Ok::<_, Infallible>(refusal(
                            StatusCode::NOT_FOUND,
                            &format!("nu-agent's MCP endpoint is {PATH}"),
                            false,
                        ));
                    }
                    if !authorized(&request, &token) {
                        return Ok(refusal(
                            StatusCode::UNAUTHORIZED,
                            "send `Authorization: Bearer <token>` with the token nu-agent mcp printed at start",
                            true,
                        ));
                    }
                    let delete = request.method() == hyper::Method::DELETE;
                    let mut response = tower_service::Service::call(&mut service, request).await?;
                    // A session ended by DELETE: "202 Accepted" from rmcp,
                    // where clients (the Python SDK) expect 200 or 204.
                    if delete && response.status() == StatusCode::ACCEPTED {
                        *response.status_mut() = StatusCode::NO_CONTENT;
                    }
                    Ok(response)
                }
            });
            // The timer bounds how long a request's headers may take.
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), handler);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(2), connection).await;
                }
            }
        });
    }
    eprintln!("nu-agent: stopping the MCP server");
    stop.cancel();
    // Jobs end with the server that runs them (they would be lost).
    let live = started.live();
    let _ = tokio::task::spawn_blocking(move || {
        for jobs in live {
            if let Ok(jobs) = jobs.as_ref() {
                jobs.cancel_all();
            }
        }
    })
    .await;
    Ok(())
}

fn signal(kind: tokio::signal::unix::SignalKind) -> Result<tokio::signal::unix::Signal, String> {
    tokio::signal::unix::signal(kind).map_err(|e| format!("cannot handle signals: {e}"))
}

/// The protocol versions served over HTTP: those with an `initialize`
/// handshake, whose sessions keep state between calls (from 2026-07-28
/// on, HTTP requests are served without a session).
pub fn handshake_versions() -> Cow<'static, [rmcp::model::ProtocolVersion]> {
    Cow::Borrowed(rmcp::model::ProtocolVersion::known_up_to(
        &rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_addresses_are_taken() {
        for (text, expected) in [
            ("127.0.0.1:0", "127.0.0.1:0"),
            ("127.0.0.1:8765", "127.0.0.1:8765"),
            ("[::1]:8765", "[::1]:8765"),
            ("localhost:8765", "127.0.0.1:8765"),
            ("8765", "127.0.0.1:8765"),
            ("127.1.2.3:80", "127.1.2.3:80"),
        ] {
            assert_eq!(
                parse_address(text).map(|a| a.to_string()),
                Ok(expected.to_string()),
                "{text}"
            );
        }
    }

    #[test]
    fn other_addresses_are_refused() {
        for text in ["0.0.0.0:8765", "[::]:8765", "192.168.1.2:80", "10.0.0.1:1"] {
            let refused = parse_address(text).expect_err(text);
            assert!(refused.contains("not a loopback address"), "{refused}");
        }
        for text in ["example.com:80", "localhost:http", "", "127.0.0.1"] {
            assert!(parse_address(text).is_err(), "{text}");
        }
    }
}
