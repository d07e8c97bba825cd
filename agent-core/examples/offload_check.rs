//! Loads a GGUF model with every layer offloaded to the GPU, says which
//! devices llama.cpp sees and how many layers reached a GPU, then times 32
//! greedy tokens.
//!
//! `cargo run -p agent-core --features vulkan --example offload_check [model.gguf [threads]]`
//!
//! Exits with status 1 when no layer was offloaded. A CPU Vulkan driver
//! (Mesa's lavapipe) is only used when named: `GGML_VK_VISIBLE_DEVICES=0`.

use std::{
    error::Error,
    ffi::{CStr, c_char, c_void},
    num::NonZeroU32,
    path::PathBuf,
    process::ExitCode,
    sync::Mutex,
    time::Instant,
};

use agent_core::llm::{compiled_backends, cpu_variant, detect_gpus, llama_backend};
use llama_cpp_2::{
    context::params::LlamaContextParams,
    list_llama_ggml_backend_devices,
    llama_batch::LlamaBatch,
    model::{LlamaModel, params::LlamaModelParams},
    sampling::LlamaSampler,
};

const TOKENS_TO_GENERATE: usize = 32;
const PROMPT: &str = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n\
<|im_start|>user\nName the colours of the rainbow.<|im_end|>\n<|im_start|>assistant\n";

/// Everything llama.cpp and ggml logged, kept to read the offload report.
static LOG: Mutex<String> = Mutex::new(String::new());

extern "C" fn capture_log(
    _level: llama_cpp_sys_2::ggml_log_level,
    text: *const c_char,
    _user_data: *mut c_void,
) {
    if text.is_null() {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string that lives for the call.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    if let Ok(mut log) = LOG.lock() {
        log.push_str(&text);
    }
}

fn log_lines(filter: impl Fn(&str) -> bool) -> Vec<String> {
    let log = LOG.lock().map(|l| l.clone()).unwrap_or_default();
    log.lines()
        .filter(|l| filter(l))
        .map(str::to_string)
        .collect()
}

/// `(offloaded, offloadable)` from llama.cpp's "offloaded N/M layers to GPU".
fn offloaded_layers() -> Option<(u32, u32)> {
    log_lines(|l| l.contains(" layers to GPU"))
        .iter()
        .find_map(|line| {
            let counts = line.split("offloaded ").nth(1)?.split(' ').next()?;
            let (n, m) = counts.split_once('/')?;
            Some((n.parse().ok()?, m.parse().ok()?))
        })
}

fn main() -> Result<ExitCode, Box<dyn Error>> {
    if let Some(status) = cpu_variant::check_if_asked() {
        std::process::exit(status);
    }
    let model_path = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => std::env::home_dir()
            .ok_or("no model path given and no home directory to find the test model in")?
            .join(".cache/nu-agent/models/SmolLM2-135M-Instruct.Q4_1.gguf"),
    };
    if !model_path.is_file() {
        return Err(format!(
            "model {} not found (fetch it with nu-scripts/fetch-test-model.sh)",
            model_path.display()
        )
        .into());
    }

    // The backend as the agent starts it (a portable build picks and checks
    // its CPU variant), then llama.cpp's log to read the offload report.
    let backend = llama_backend()?;
    // SAFETY: the callback is a plain function that only reads the string
    // it is given; it stays valid for the life of the process.
    unsafe { llama_cpp_sys_2::llama_log_set(Some(capture_log), std::ptr::null_mut()) };

    println!("compiled GPU backends: {:?}", compiled_backends());
    println!("GPUs on this machine: {:?}", detect_gpus());
    println!("CPU backend: {:?}", cpu_variant::cpu_backend());
    println!("ggml devices:");
    let devices = list_llama_ggml_backend_devices();
    for dev in &devices {
        println!(
            "  #{} {} [{}] {:?} \"{}\" {} MiB free of {} MiB",
            dev.index,
            dev.name,
            dev.backend,
            dev.device_type,
            dev.description,
            dev.memory_free / (1 << 20),
            dev.memory_total / (1 << 20)
        );
    }

    let started = Instant::now();
    let params = LlamaModelParams::default().with_n_gpu_layers(999);
    let model = LlamaModel::load_from_file(backend, &model_path, &params)?;
    println!(
        "loaded {} ({} layers) in {:.2}s",
        model_path.display(),
        model.n_layer(),
        started.elapsed().as_secs_f64()
    );

    let threads = match std::env::args().nth(2) {
        Some(n) => n
            .parse::<i32>()
            .map_err(|e| format!("thread count {n:?}: {e}"))?,
        None => {
            std::thread::available_parallelism().map_or(1, |n| i32::try_from(n.get()).unwrap_or(1))
        }
    };
    let ctx_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(512))
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut ctx = model.new_context(backend, ctx_params)?;
    for line in log_lines(|l| l.contains("offload") || l.contains("buffer size")) {
        println!("  llama.cpp: {}", line.trim());
    }

    let vocab = model.vocab();
    let prompt = vocab.tokenize(PROMPT.as_bytes(), vocab.should_add_bos(), true);
    let mut batch = LlamaBatch::new(512, 1);
    let last = prompt.len().saturating_sub(1);
    for (i, &token) in prompt.iter().enumerate() {
        batch.add(token, i32::try_from(i)?, &[0], i == last)?;
    }
    let started = Instant::now();
    ctx.decode(&mut batch)?;
    let prompt_secs = started.elapsed().as_secs_f64();

    let mut sampler = LlamaSampler::greedy();
    let mut n_past = i32::try_from(prompt.len())?;
    let mut text = Vec::new();
    let mut generated = 0;
    let mut first_token_secs = 0.0;
    let started = Instant::now();
    while generated < TOKENS_TO_GENERATE {
        let token = sampler.sample(&ctx, batch.n_tokens() - 1);
        if vocab.is_eog(token) {
            break;
        }
        text.extend(vocab.token_to_piece(token, true, None));
        generated += 1;
        batch.clear();
        batch.add(token, n_past, &[0], true)?;
        ctx.decode(&mut batch)?;
        n_past += 1;
        if generated == 1 {
            first_token_secs = started.elapsed().as_secs_f64();
        }
    }
    let gen_secs = started.elapsed().as_secs_f64();
    println!("text: {:?}", String::from_utf8_lossy(&text));
    println!(
        "prompt: {} tokens in {:.3}s; generated: {} tokens in {:.3}s = {:.2} tokens/s \
         (first {:.3}s, then {:.2} tokens/s; {} CPU threads)",
        prompt.len(),
        prompt_secs,
        generated,
        gen_secs,
        generated as f64 / gen_secs.max(f64::EPSILON),
        first_token_secs,
        generated.saturating_sub(1) as f64 / (gen_secs - first_token_secs).max(f64::EPSILON),
        threads
    );

    match offloaded_layers() {
        Some((n, m)) if n > 0 => {
            println!("OK: offloaded {n}/{m} layers to GPU");
            Ok(ExitCode::SUCCESS)
        }
        found => {
            let gpus: Vec<_> = devices
                .iter()
                .filter(|d| d.backend != "CPU")
                .map(|d| d.name.as_str())
                .collect();
            eprintln!(
                "FAIL: no layer was offloaded to a GPU ({}); compiled GPU backends: {:?}, ggml GPU devices: {:?}. \
                 Build with --features cuda|vulkan|metal|rocm; a CPU Vulkan driver (lavapipe) needs GGML_VK_VISIBLE_DEVICES=0.",
                match found {
                    Some((n, m)) => format!("llama.cpp says {n}/{m}"),
                    None => "llama.cpp reported no GPU offload".into(),
                },
                compiled_backends(),
                gpus
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
