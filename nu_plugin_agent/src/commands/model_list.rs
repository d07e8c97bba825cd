//! `agent model list`: the model files on this machine and the catalog
//! models not pulled yet.

use agent_core::llm::{Catalog, ModelHost, list_models};
use nu_plugin::{EngineInterface, EvaluatedCall, SimplePluginCommand};
use nu_protocol::{Category, Example, LabeledError, Signature, Type, Value, record};

use crate::{
    AgentPlugin,
    caller::{HostEnv, caller_settings},
    commands::model::model_dir,
    model_report::rows_value,
};

/// `agent model list`.
pub struct AgentModelList;

impl SimplePluginCommand for AgentModelList {
    type Plugin = AgentPlugin;

    fn name(&self) -> &str {
        "agent model list"
    }

    fn signature(&self) -> Signature {
        Signature::build(self.name())
            .input_output_type(Type::Nothing, Type::table())
            .category(Category::Misc)
    }

    fn description(&self) -> &str {
        "List the models: the GGUF files in the model directories, and the catalog models not pulled yet."
    }

    fn extra_description(&self) -> &str {
        "One row per model: name (the catalog name, else the file's stem), path, size, quantization, parameters, context (the context it was trained for), loaded (the model resident in the plugin now), pulled (false for a catalog model that `agent model pull` would fetch) and measured (whether the suite here measured the agent on this catalog model: false means not measured by the suite here; nothing for a file the catalog does not know). A file whose header cannot be read is listed with a warning."
    }

    fn search_terms(&self) -> Vec<&str> {
        vec!["models", "gguf", "llm", "downloaded", "catalog"]
    }

    fn examples(&self) -> Vec<Example<'_>> {
        vec![
            Example {
                example: "agent model list",
                description: "The models on this machine and in the catalog",
                result: None,
            },
            Example {
                example: r#"$env.NU_AGENT_CACHE = "/no/models/yet"; (agent model list).0"#,
                description: "Before any pull the list is the catalog, the default first",
                result: Some(Value::test_record(record! {
                    "name" => Value::test_string("qwen2.5-coder-1.5b"),
                    "path" => Value::test_nothing(),
                    "size" => Value::test_filesize(1_117_320_768_i64),
                    "quantization" => Value::test_string("Q4_K_M"),
                    "parameters" => Value::test_string("1.5B"),
                    "context" => Value::test_int(32_768),
                    "loaded" => Value::test_bool(false),
                    "pulled" => Value::test_bool(false),
                    "measured" => Value::test_bool(true),
                })),
            },
            Example {
                example: "agent model list | where measured == false | get name",
                description: "The catalog models the suite here has not measured",
                result: None,
            },
            Example {
                example: "agent model list | where pulled | get path",
                description: "The model files here",
                result: None,
            },
        ]
    }

    fn run(
        &self,
        plugin: &AgentPlugin,
        engine: &EngineInterface,
        call: &EvaluatedCall,
        _input: &Value,
    ) -> Result<Value, LabeledError> {
        let env = HostEnv::read(engine);
        let settings = caller_settings(plugin, engine, &env, call.head)?;
        let dir = model_dir(&settings, &env, call.head)?;
        let resident = ModelHost::global().resident();
        let rows = list_models(&dir, &Catalog::builtin(), resident.as_ref());
        for row in &rows {
            if let Some(error) = &row.error {
                eprintln!("warning: agent model list: {error}");
            }
        }
        Ok(rows_value(&rows, call.head))
    }
}
