//! The tools the server offers, with their input schemas, and their
//! arguments read from a call (a bad argument is a clear error, never a
//! panic).

use std::time::Duration;

use serde_json::{Map, Value as Json, json};

/// The tools as `tools/list` gives them.
pub fn list() -> Json {
    let pipeline = json!({"type": "string", "description": "A Nushell pipeline, e.g. `ls | where size > 1mb | sort-by size`."});
    let job_id =
        json!({"type": "integer", "minimum": 0, "description": "The job's id (from job_run)."});
    json!({"tools": [
        {
            "name": "run",
            "title": "Run a Nushell pipeline",
            "description": "Run one Nushell pipeline in your persistent session on the user's machine, under the user's policy (reads run; changes are asked of the user or refused) and the OS sandbox. Variables, defs, cd and every result ($out.N) stay between calls. Returns a compact rendering as text and the value as JSON in the structured content ({out, value, cwd}).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "pipeline": pipeline,
                    "timeout": {
                        "type": ["string", "number"],
                        "description": "Stop the step after this long: seconds, or a duration such as 500ms, 30s, 2m."
                    }
                },
                "required": ["pipeline"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "out": {"type": "integer", "description": "N of $out.N, which holds the whole value."},
                    "value": {"description": "The value as JSON (sizes in bytes, durations in ns)."},
                    "cwd": {"type": "string"},
                    "exit_code": {"type": "integer"}
                },
                "required": ["out", "value"]
            },
            "annotations": {"destructiveHint": true, "openWorldHint": true}
        },
        {
            "name": "check",
            "title": "Check a pipeline against the policy",
            "description": "The plan of a Nushell pipeline without running it: every command it could run, its category, targets and the verdict (allow, confirm, block, or refuse when it does not parse), with the reason and the rule that decided.",
            "inputSchema": {
                "type": "object",
                "properties": {"pipeline": pipeline},
                "required": ["pipeline"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "help",
            "title": "A Nushell command's usage",
            "description": "The signature, input/output types, flags and examples of a Nushell command (or of a def of your session).",
            "inputSchema": {
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The command's name, e.g. `sort-by` or `str replace`."}},
                "required": ["command"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "job_run",
            "title": "Run a pipeline in the background",
            "description": "Start a Nushell pipeline as a background job (from the session's directory, under the same policy; its approvals are asked of the user like run's). Returns the job's id at once.",
            "inputSchema": {
                "type": "object",
                "properties": {"pipeline": pipeline},
                "required": ["pipeline"],
                "additionalProperties": false
            },
            "annotations": {"destructiveHint": true, "openWorldHint": true}
        },
        {
            "name": "job_status",
            "title": "A background job's status",
            "description": "A job's record: status (queued, running, waiting, completed, failed, timed-out, cancelled, lost), times, and why it failed.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": job_id},
                "required": ["id"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "job_result",
            "title": "A background job's value",
            "description": "A job's value as JSON once it has finished (an error while it runs). Pass wait (seconds) to wait for it.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": job_id,
                    "wait": {"type": "number", "minimum": 0, "description": "Seconds to wait for the job to finish (at most 600)."}
                },
                "required": ["id"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "job_cancel",
            "title": "Cancel a background job",
            "description": "Cancel a job this server runs: a queued job never starts, a running one is stopped with every process it started.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": job_id},
                "required": ["id"],
                "additionalProperties": false
            }
        }
    ]})
}

/// A required string argument.
pub fn string(args: &Map<String, Json>, name: &str) -> Result<String, String> {
    match args.get(name) {
        Some(Json::String(text)) => Ok(text.clone()),
        Some(other) => Err(format!("`{name}` must be a string, not {other}")),
        None => Err(format!("`{name}` is missing")),
    }
}

/// A required job id.
pub fn job_id(args: &Map<String, Json>) -> Result<u64, String> {
    match args.get("id") {
        Some(Json::Number(n)) => n
            .as_u64()
            .ok_or_else(|| format!("`id` must be a job id (a whole number ≥ 0), not {n}")),
        Some(Json::String(text)) => text
            .trim()
            .parse()
            .map_err(|_| format!("`id` must be a job id (a whole number ≥ 0), not {text:?}")),
        Some(other) => Err(format!("`id` must be a job id, not {other}")),
        None => Err("`id` is missing".into()),
    }
}

/// An optional duration: seconds as a number, or text such as `30s`.
pub fn duration(args: &Map<String, Json>, name: &str) -> Result<Option<Duration>, String> {
    match args.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) => n
            .as_f64()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .map(Some)
            .ok_or_else(|| format!("`{name}` must be a positive number of seconds, not {n}")),
        Some(Json::String(text)) => crate::common::parse_duration(text)
            .map(Some)
            .map_err(|e| format!("`{name}`: {e}")),
        Some(other) => Err(format!(
            "`{name}` must be seconds or a duration such as 30s, not {other}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Json) -> Map<String, Json> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn arguments_are_read_or_refused_with_a_reason() {
        assert_eq!(
            string(&args(json!({"pipeline": "ls"})), "pipeline"),
            Ok("ls".into())
        );
        assert!(string(&args(json!({"pipeline": 3})), "pipeline").is_err());
        assert!(
            string(&args(json!({})), "pipeline")
                .unwrap_err()
                .contains("missing")
        );
        assert_eq!(job_id(&args(json!({"id": 4}))), Ok(4));
        assert!(job_id(&args(json!({"id": -1}))).is_err());
        assert_eq!(
            duration(&args(json!({"timeout": "500ms"})), "timeout"),
            Ok(Some(Duration::from_millis(500)))
        );
        assert_eq!(
            duration(&args(json!({"timeout": 2})), "timeout"),
            Ok(Some(Duration::from_secs(2)))
        );
        assert!(duration(&args(json!({"timeout": -2})), "timeout").is_err());
        assert!(duration(&args(json!({"timeout": "soon"})), "timeout").is_err());
    }

    #[test]
    fn every_tool_has_a_name_and_an_object_schema() {
        let list = list();
        let tools = list["tools"].as_array().cloned().unwrap_or_default();
        assert_eq!(tools.len(), 7);
        for tool in tools {
            assert!(tool["name"].is_string());
            assert_eq!(tool["inputSchema"]["type"], "object");
        }
    }
}
