//! The effective policy as the front ends show it (`agent policy`,
//! `nu-agent policy show`): one set of keys for both, and a text view.

use std::{path::PathBuf, time::Duration};

use super::{
    Policy,
    sandbox::{LandlockSupport, Protections, SeccompSupport, external_sandbox_status},
};

/// The policy in force and what this machine enforces.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyReport {
    pub mode: String,
    pub sandbox: String,
    /// The OS sandbox is in force for runs (the mode asks for it, the
    /// kernel offers it, and a worker can be started).
    pub sandbox_enforced: bool,
    pub network: bool,
    /// Each external runs under its own sandbox narrowed to its verdict.
    pub external_sandbox: bool,
    pub external_sandbox_note: String,
    /// The writable roots for the current directory.
    pub writable: Vec<String>,
    pub protect: Vec<String>,
    pub allow: Vec<String>,
    pub confirm: Vec<String>,
    pub block: Vec<String>,
    pub env: Vec<String>,
    pub trash: bool,
    pub password_ttl: Duration,
    pub hook: bool,
    /// The Landlock ABI, or why it is missing.
    pub landlock: String,
    pub seccomp: bool,
    /// The enforcement layers a run goes through.
    pub layers: Vec<&'static str>,
    /// What a launched read is kept from on this kernel (empty without the
    /// per-external sandbox).
    pub read_launch: Vec<String>,
}

impl PolicyReport {
    /// The report of `policy` with `writable` roots, on a machine offering
    /// `protections`.
    pub fn new(
        policy: &Policy,
        writable: &[PathBuf],
        protections: &Protections,
        sandbox_enforced: bool,
    ) -> PolicyReport {
        let (external_sandbox, external_sandbox_note) =
            external_sandbox_status(policy.external_sandbox);
        let mut layers = vec!["static check", "runtime guards"];
        if sandbox_enforced {
            layers.push("os sandbox");
        }
        if external_sandbox {
            layers.push("per-external sandbox");
        }
        let texts = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>();
        PolicyReport {
            mode: policy.mode.as_str().to_string(),
            sandbox: policy.sandbox.as_str().to_string(),
            sandbox_enforced,
            network: policy.network,
            external_sandbox,
            external_sandbox_note,
            writable: texts(&mut writable.iter().map(|p| p.display().to_string())),
            protect: policy.protect.clone(),
            allow: texts(&mut policy.allow.iter().map(|p| p.as_str().to_string())),
            confirm: texts(&mut policy.confirm.iter().map(|p| p.as_str().to_string())),
            block: texts(&mut policy.block.iter().map(|p| p.as_str().to_string())),
            env: policy.env.clone(),
            trash: policy.trash,
            password_ttl: policy.password_ttl,
            hook: policy.has_hook,
            landlock: match &protections.landlock {
                LandlockSupport::Abi(abi) => format!("ABI {abi}"),
                LandlockSupport::Unavailable(why) => why.to_string(),
            },
            seccomp: matches!(protections.seccomp, SeccompSupport::Available),
            layers,
            read_launch: if external_sandbox {
                protections.read_launch()
            } else {
                Vec::new()
            },
        }
    }

    /// As JSON: the keys of `agent policy` (`password_ttl` as nu writes a
    /// duration, `protections` as `{landlock, seccomp, layers}`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.mode,
            "sandbox": self.sandbox,
            "sandbox_enforced": self.sandbox_enforced,
            "network": self.network,
            "external_sandbox": self.external_sandbox,
            "external_sandbox_note": self.external_sandbox_note,
            "writable": self.writable,
            "protect": self.protect,
            "allow": self.allow,
            "confirm": self.confirm,
            "block": self.block,
            "env": self.env,
            "trash": self.trash,
            "password_ttl": duration_literal(self.password_ttl),
            "hook": self.hook,
            "protections": {
                "landlock": self.landlock,
                "seccomp": self.seccomp,
                "layers": self.layers,
            },
            "read_launch": self.read_launch,
        })
    }

    /// One `key  value` line per key, lists joined, for a terminal.
    pub fn to_text(&self) -> String {
        let list = |items: &[String]| {
            if items.is_empty() {
                "-".to_string()
            } else {
                items.join(", ")
            }
        };
        let rows: Vec<(&str, String)> = vec![
            ("mode", self.mode.clone()),
            (
                "sandbox",
                format!(
                    "{} ({})",
                    self.sandbox,
                    if self.sandbox_enforced {
                        "enforced"
                    } else {
                        "not enforced"
                    }
                ),
            ),
            ("network", self.network.to_string()),
            (
                "external_sandbox",
                format!("{} ({})", self.external_sandbox, self.external_sandbox_note),
            ),
            ("writable", list(&self.writable)),
            ("protect", list(&self.protect)),
            ("allow", list(&self.allow)),
            ("confirm", list(&self.confirm)),
            ("block", list(&self.block)),
            ("env", list(&self.env)),
            ("trash", self.trash.to_string()),
            ("password_ttl", duration_literal(self.password_ttl)),
            ("hook", self.hook.to_string()),
            (
                "protections",
                format!(
                    "landlock {}, seccomp {}; layers: {}",
                    self.landlock,
                    if self.seccomp { "yes" } else { "no" },
                    self.layers.join(", ")
                ),
            ),
            ("read_launch", list(&self.read_launch)),
        ];
        rows.iter()
            .map(|(key, value)| format!("{key:<17} {value}\n"))
            .collect()
    }
}

/// A duration as the configuration writes it: `5min`, `2hr`, `90sec`.
fn duration_literal(duration: Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        s if s > 0 && s % 3600 == 0 => format!("{}hr", s / 3600),
        s if s > 0 && s % 60 == 0 => format!("{}min", s / 60),
        s => format!("{s}sec"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::sandbox::probe;

    #[test]
    fn json_and_text_name_the_same_keys() {
        let report = PolicyReport::new(
            &Policy::default(),
            &[PathBuf::from("/work")],
            &probe(),
            false,
        );
        let json = report.to_json();
        let text = report.to_text();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        // Shown on the line of the key they qualify.
        let folded = ["sandbox_enforced", "external_sandbox_note"];
        for key in keys.iter().filter(|k| !folded.contains(&k.as_str())) {
            assert!(
                text.lines().any(|l| l.starts_with(key.as_str())),
                "{key} missing in\n{text}"
            );
        }
        assert_eq!(json["password_ttl"], "5min");
        assert!(text.contains("writable          /work\n"), "{text}");
        assert!(!text.trim_start().starts_with('{'), "{text}");
    }
}
