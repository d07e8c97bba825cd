//! Model downloads against a local HTTP server: progress, resume after a
//! cut connection, a checksum mismatch, a missing file, cancellation, and
//! the sum a hub states in `X-Linked-Etag`/`ETag` when none is given.

use std::{
    io::{BufRead, BufReader, Write},
    net::{TcpListener, TcpStream},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use agent_core::{
    llm::{Download, DownloadError, Progress, fetch, part_path, sha256_of},
    shell::CancelToken,
};

/// Serves `body` at `/model.gguf` with `Range` support. The first `cuts`
/// responses stop after half of what they promised and close the socket.
struct Server {
    port: u16,
    requests: Arc<AtomicUsize>,
    ranged: Arc<AtomicUsize>,
}

impl Server {
    fn start(body: Vec<u8>, cuts: usize) -> Server {
        Server::with_headers(body, cuts, String::new(), String::new())
    }

    /// Like `start`, with `headers` (CRLF-terminated lines) in every answer
    /// for `/model.gguf`, and `/redirect.gguf` answered as the hub does: a
    /// 302 to `/model.gguf` with `redirect_headers`.
    fn with_headers(
        body: Vec<u8>,
        cuts: usize,
        headers: String,
        redirect_headers: String,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let ranged = Arc::new(AtomicUsize::new(0));
        let (count, ranges) = (requests.clone(), ranged.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let n = count.fetch_add(1, Ordering::SeqCst);
                serve(
                    stream,
                    &body,
                    n < cuts,
                    &ranges,
                    (&headers, &redirect_headers),
                );
            }
        });
        Server {
            port,
            requests,
            ranged,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn serve(
    mut stream: TcpStream,
    body: &[u8],
    cut: bool,
    ranged: &AtomicUsize,
    (headers, redirect_headers): (&str, &str),
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    let _ = reader.read_line(&mut request_line);
    let mut from = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(range) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
            from = range.trim().trim_end_matches('-').parse().unwrap_or(0);
            ranged.fetch_add(1, Ordering::SeqCst);
        }
    }
    if request_line.contains("/redirect.gguf") {
        let answer = format!(
            "HTTP/1.1 302 Found\r\nLocation: /model.gguf\r\n{redirect_headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let _ = stream.write_all(answer.as_bytes());
        return;
    }
    if !request_line.contains("/model.gguf") {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    }
    let rest = &body[from.min(body.len())..];
    let head = if from > 0 {
        format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{}\r\n{headers}Connection: close\r\n\r\n",
            rest.len(),
            body.len() - 1,
            body.len()
        )
    } else {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n{headers}Connection: close\r\n\r\n",
            rest.len()
        )
    };
    let _ = stream.write_all(head.as_bytes());
    let send = if cut { &rest[..rest.len() / 2] } else { rest };
    let _ = stream.write_all(send);
    let _ = stream.flush();
    // Dropping the stream closes it: a cut response ends short.
}

fn body() -> Vec<u8> {
    (0..3_000_000u32).map(|i| (i % 251) as u8).collect()
}

fn sha(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x");
    std::fs::write(&path, bytes).unwrap();
    sha256_of(&path).unwrap()
}

#[test]
fn downloads_with_progress_and_checks_the_sum() {
    let body = body();
    let server = Server::start(body.clone(), 0);
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("models/m.gguf"),
        sha256: Some(sha(&body)),
    };
    let mut seen: Vec<Progress> = Vec::new();
    let path = fetch(&download, &mut |p| seen.push(p), &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), body);
    assert!(!part_path(&download.dest).exists());
    assert_eq!(seen.last().unwrap().done, body.len() as u64);
    assert_eq!(seen.last().unwrap().total, Some(body.len() as u64));
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));
}

#[test]
fn a_cut_transfer_resumes_where_it_stopped() {
    let body = body();
    let server = Server::start(body.clone(), 2);
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: Some(sha(&body)),
    };
    let path = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), body);
    assert_eq!(server.requests.load(Ordering::SeqCst), 3);
    assert_eq!(
        server.ranged.load(Ordering::SeqCst),
        2,
        "the retries asked for the rest only"
    );
}

#[test]
fn a_checksum_mismatch_keeps_nothing() {
    let server = Server::start(body(), 0);
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: Some("0".repeat(64)),
    };
    let error = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap_err();
    assert!(
        matches!(error, DownloadError::ChecksumMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("expected 0000"));
    assert!(!download.dest.exists());
    assert!(!part_path(&download.dest).exists());
}

#[test]
fn missing_files_and_dead_servers_say_so() {
    let server = Server::start(body(), 0);
    let dir = tempfile::tempdir().unwrap();
    let missing = Download {
        url: server.url("/nope.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: None,
    };
    let error = fetch(&missing, &mut |_| {}, &CancelToken::new()).unwrap_err();
    assert!(error.to_string().contains("HTTP 404"), "{error}");
    assert!(!missing.dest.exists());
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dead = Download {
        url: format!("http://127.0.0.1:{port}/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: None,
    };
    let error = fetch(&dead, &mut |_| {}, &CancelToken::new()).unwrap_err();
    assert!(matches!(error, DownloadError::Http { .. }), "{error}");
}

#[test]
fn a_cancelled_download_keeps_its_part_for_later() {
    let body = body();
    let server = Server::start(body.clone(), 0);
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: Some(sha(&body)),
    };
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let error = fetch(
        &download,
        &mut |p| {
            if p.done > 0 {
                stop.cancel();
            }
        },
        &cancel,
    )
    .unwrap_err();
    assert!(matches!(error, DownloadError::Cancelled { .. }), "{error}");
    assert!(!download.dest.exists());
    assert!(part_path(&download.dest).exists());
    // The next attempt resumes and completes.
    let path = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), body);
    assert!(server.ranged.load(Ordering::SeqCst) >= 1);
}

#[test]
fn without_a_sum_the_hub_stated_sum_is_checked() {
    let body = body();
    // Hugging Face states an LFS file's SHA-256 in X-Linked-Etag, quoted;
    // ETag then holds something else.
    let headers = format!(
        "X-Linked-Etag: \"{}\"\r\nETag: \"{}\"\r\n",
        sha(&body),
        "f".repeat(40)
    );
    let server = Server::with_headers(body.clone(), 0, headers, String::new());
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: None,
    };
    let path = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), body);

    // A plain ETag with a different 64-digit sum: the file is refused.
    let wrong = format!("ETag: \"{}\"\r\n", "ab".repeat(32));
    let server = Server::with_headers(body, 0, wrong, String::new());
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("n.gguf"),
        sha256: None,
    };
    let error = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap_err();
    assert!(
        matches!(error, DownloadError::ChecksumMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains(&"ab".repeat(32)), "{error}");
    assert!(!download.dest.exists());
    assert!(!part_path(&download.dest).exists());
}

#[test]
fn an_etag_that_is_not_a_sha256_is_not_checked() {
    let body = body();
    let etag = format!("ETag: \"{}\"\r\n", "e".repeat(40));
    let server = Server::with_headers(body.clone(), 0, etag, String::new());
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/model.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: None,
    };
    let path = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), body);
}

#[test]
fn the_sum_comes_from_the_hub_redirect_not_the_file_host() {
    let body = body();
    // The hub's 302 carries the LFS sum; the host it points to sends an
    // etag of its own, which is not the file's SHA-256.
    let linked = format!("X-Linked-Etag: \"{}\"\r\n", sha(&body));
    let other = format!("ETag: \"{}\"\r\n", "cd".repeat(32));
    let server = Server::with_headers(body.clone(), 0, other, linked);
    let dir = tempfile::tempdir().unwrap();
    let download = Download {
        url: server.url("/redirect.gguf"),
        dest: dir.path().join("m.gguf"),
        sha256: None,
    };
    let path = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), body);

    // A wrong sum on the redirect is caught.
    let linked = format!("X-Linked-Etag: {}\r\n", "0".repeat(64));
    let server = Server::with_headers(body, 0, String::new(), linked);
    let download = Download {
        url: server.url("/redirect.gguf"),
        dest: dir.path().join("n.gguf"),
        sha256: None,
    };
    let error = fetch(&download, &mut |_| {}, &CancelToken::new()).unwrap_err();
    assert!(
        matches!(error, DownloadError::ChecksumMismatch { .. }),
        "{error}"
    );
    assert!(!part_path(&download.dest).exists());
}
