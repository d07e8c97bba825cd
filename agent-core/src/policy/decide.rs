//! Verdicts: each step of a plan judged against the policy, the paths and
//! the mode; the strictest verdict wins.

use serde::{Deserialize, Serialize};

use super::{
    Access, Category, Mode, PathFacts, Pattern, Plan, Policy, ReadJudgement, Step, Verdict,
    WriteJudgement, externals::escape_for_display, sandbox::SandboxMode,
};

/// One row of a checked plan: what `agent policy check` shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The normalised command, with unusual characters escaped.
    pub command: String,
    pub name: String,
    pub category: super::Category,
    pub targets: Vec<String>,
    pub verdict: Verdict,
    pub reason: String,
    /// The rule that decided, e.g. `policy.block[0]`, `protected path`,
    /// `mode confirm`.
    pub rule: String,
    /// A risky step: the prompt defaults to No and offers no "always".
    pub warning: bool,
}

/// A checked pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub verdict: Verdict,
    pub rows: Vec<Row>,
}

impl Decision {
    /// The rows that make the verdict (those as strict as the verdict).
    pub fn deciding_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.verdict == self.verdict)
    }

    /// A refusal: the pipeline does not parse.
    pub fn refused(reason: String) -> Decision {
        Decision {
            verdict: Verdict::Refuse,
            rows: vec![Row {
                command: String::new(),
                name: String::new(),
                category: Category::Unknown,
                targets: Vec::new(),
                verdict: Verdict::Refuse,
                reason,
                rule: "parse error".into(),
                warning: false,
            }],
        }
    }
}

/// Judges steps: the policy, the paths, and what the sandbox enforces.
pub struct Judge<'a> {
    pub policy: &'a Policy,
    pub facts: &'a PathFacts,
    /// The OS sandbox of the policy's mode is available on this machine.
    pub sandbox_enforced: bool,
    /// "Always" answers given this session.
    pub session_allow: &'a [Pattern],
    /// What this conversation read earlier that holds a secret (a label):
    /// from then on every network step asks, naming it.
    pub secret_read: Option<&'a str>,
}

/// The rule name of a row an "always" answer allowed (`session rule 0`).
pub const SESSION_RULE: &str = "session rule";

impl Judge<'_> {
    /// Judge every step of `plan`, then the combinations that are worse
    /// than their parts (secrets sent out, a downloaded script run).
    pub fn decide(&self, plan: &Plan) -> Decision {
        let mut rows: Vec<Row> = plan.steps.iter().map(|s| self.step(s)).collect();
        let sensitive_read = plan.steps.iter().any(|s| {
            s.targets.iter().any(|t| {
                matches!(t.access, Access::Read | Access::Send)
                    && !matches!(self.facts.judge_read(&t.value), ReadJudgement::Ordinary)
            })
        });
        let sends = |s: &Step| s.targets.iter().any(|t| t.access == Access::Send);
        for (step, row) in plan.steps.iter().zip(rows.iter_mut()) {
            if step.category != Category::Network {
                continue;
            }
            if sensitive_read {
                raise(
                    row,
                    Verdict::Block,
                    "sends data from a sensitive file over the network",
                    "exfiltration",
                );
            } else if plan.reads_env && sends(step) {
                raise(
                    row,
                    Verdict::Block,
                    "sends the environment over the network",
                    "exfiltration",
                );
            }
        }
        // A delete whose targets come from listing a protected place
        // (`ls ~ | each { rm -r $in.name }`, `rm ...(glob ~/*)`).
        let listed_protected = plan.steps.iter().find_map(|s| {
            (s.category == Category::Read)
                .then(|| {
                    s.targets
                        .iter()
                        .find(|t| t.access == Access::Read && self.lists_protected(&t.value))
                })
                .flatten()
        });
        if let Some(listed) = listed_protected {
            for (step, row) in plan.steps.iter().zip(rows.iter_mut()) {
                if step.category == Category::Delete && step.dynamic {
                    raise(
                        row,
                        Verdict::Block,
                        &format!(
                            "deletes entries listed from {}, which holds protected paths",
                            listed.value
                        ),
                        "protected path",
                    );
                }
            }
        }
        let written: Vec<_> = plan
            .steps
            .iter()
            .flat_map(|s| &s.targets)
            .filter(|t| t.access == Access::Write)
            .map(|t| self.facts.resolve(&t.value))
            .collect();
        for (step, row) in plan.steps.iter().zip(rows.iter_mut()) {
            let runs_written = step.targets.iter().any(|t| {
                t.access == Access::Run && written.contains(&self.facts.resolve(&t.value))
            });
            if runs_written {
                raise(
                    row,
                    Verdict::Block,
                    "runs a script the same pipeline writes or downloads",
                    "download and run",
                );
            }
        }
        // A secret read in an earlier step of the conversation: a network
        // step could send it (the user's "allow" and "always" do not
        // lower this).
        if let Some(read) = self.secret_read {
            for (step, row) in plan.steps.iter().zip(rows.iter_mut()) {
                if step.category == Category::Network && row.verdict <= Verdict::Confirm {
                    row.verdict = Verdict::Confirm;
                    row.reason = format!(
                        "uses the network after this conversation read {read}, which could send it"
                    );
                    row.rule = "secret read earlier".into();
                    row.warning = true;
                }
            }
        }
        let verdict = rows
            .iter()
            .map(|r| r.verdict)
            .max()
            .unwrap_or(Verdict::Allow);
        Decision { verdict, rows }
    }

    /// Does listing `source` (`ls ~`, `glob ~/*`) yield a protected place or
    /// ancestors of protected paths? A pattern that ends in a bare wildcard
    /// lists everything in its directory; one with a literal part
    /// (`**/*.pem`) lists only what matches it.
    fn lists_protected(&self, source: &str) -> bool {
        let last = source.rsplit('/').next().unwrap_or(source);
        let everything = last.chars().all(|c| matches!(c, '*' | '.'));
        if super::paths::has_glob(source) && !everything {
            return false;
        }
        let dir = if super::paths::has_glob(source) {
            source.rsplit_once('/').map(|(d, _)| d).unwrap_or(".")
        } else {
            source
        };
        let dir = if dir.is_empty() { "/" } else { dir };
        matches!(self.facts.judge_delete(dir), WriteJudgement::Protected(_))
    }

    /// The row that blocks `step` whatever the policy, if one does: the
    /// step judged again under the most permissive policy its user could
    /// write ([`Policy::most_permissive`], without their `protect` paths).
    pub fn floor_of_step(&self, step: &Step) -> Option<Row> {
        Some(self.under_any_policy(|judge| judge.step(step)))
            .filter(|row| row.verdict >= Verdict::Block)
    }

    /// The rows that block `plan` whatever the policy (see
    /// [`Judge::floor_of_step`]); empty when a change of policy would let
    /// it run.
    pub fn floor_of_plan(&self, plan: &Plan) -> Vec<Row> {
        self.under_any_policy(|judge| judge.decide(plan))
            .rows
            .into_iter()
            .filter(|row| row.verdict >= Verdict::Block)
            .collect()
    }

    fn under_any_policy<T>(&self, f: impl FnOnce(&Judge) -> T) -> T {
        let policy = self.policy.most_permissive();
        let facts = self.facts.without_policy_protect();
        f(&Judge {
            policy: &policy,
            facts: &facts,
            sandbox_enforced: self.sandbox_enforced,
            session_allow: &[],
            secret_read: None,
        })
    }

    /// Judge one step on its own.
    pub fn step(&self, step: &Step) -> Row {
        let mut row = Row {
            command: escape_for_display(&step.command),
            name: step.name.clone(),
            category: step.category,
            targets: step.targets.iter().map(|t| t.value.clone()).collect(),
            verdict: Verdict::Allow,
            reason: "only reads".into(),
            rule: format!("mode {}", self.policy.mode.as_str()),
            warning: false,
        };
        // What the mode says about the category.
        let (verdict, reason) = self.by_mode(step);
        raise(
            &mut row,
            verdict,
            &reason,
            &format!("mode {}", self.policy.mode.as_str()),
        );
        if step.category == Category::Privileged {
            row.warning = true;
        }
        if let Some(floor) = &step.floor {
            // A floor as strict as the mode's verdict still names the
            // reason: it says which form asks ("sed script command `e`").
            if floor.verdict >= row.verdict && floor.verdict > Verdict::Allow {
                row.verdict = floor.verdict;
                row.reason = floor.reason.clone();
                row.rule = "built-in rule".into();
            }
        }
        for target in &step.targets {
            self.target(step, target.access, &target.value, &mut row);
        }
        // One step that both reads a sensitive file and talks to the
        // network (`^scp ~/.aws/credentials h:`, `curl -d @~/.ssh/id_rsa`).
        let sends_sensitive = step.category == Category::Network
            && step.targets.iter().any(|t| {
                matches!(t.access, Access::Read | Access::Send)
                    && !matches!(self.facts.judge_read(&t.value), ReadJudgement::Ordinary)
            });
        if sends_sensitive {
            raise(
                &mut row,
                Verdict::Block,
                "sends a sensitive file over the network",
                "exfiltration",
            );
        }
        if step.recursive && step.category == Category::Delete {
            row.warning = true;
        }
        // The user's lists: block and confirm raise, allow lowers a
        // confirmation (never a block).
        let forms = [step.command.clone(), normalised(&step.command)];
        let hit = |patterns: &[Pattern]| {
            patterns
                .iter()
                .position(|p| forms.iter().any(|f| p.matches(f)))
        };
        if let Some(i) = hit(&self.policy.block) {
            raise(
                &mut row,
                Verdict::Block,
                "blocked by your policy",
                &format!("policy.block[{i}]"),
            );
        }
        if let Some(i) = hit(&self.policy.confirm) {
            raise(
                &mut row,
                Verdict::Confirm,
                "your policy asks for this command",
                &format!("policy.confirm[{i}]"),
            );
        }
        if row.verdict == Verdict::Confirm {
            if let Some(i) = self
                .policy
                .allow
                .iter()
                .position(|p| p.matches(&step.command))
            {
                lower(
                    &mut row,
                    "allowed by your policy",
                    &format!("policy.allow[{i}]"),
                );
            } else if let Some(i) = self
                .session_allow
                .iter()
                .position(|p| p.matches(&step.command))
            {
                lower(
                    &mut row,
                    "you allowed it for this session",
                    &format!("{SESSION_RULE} {i}"),
                );
            }
        }
        row
    }

    fn by_mode(&self, step: &Step) -> (Verdict, String) {
        let category = step.category;
        let mode = self.policy.mode;
        if category == Category::Read {
            return (Verdict::Allow, "only reads".into());
        }
        if mode == Mode::ReadOnly {
            return (
                Verdict::Block,
                format!("{category}: the policy mode is read-only"),
            );
        }
        if mode == Mode::Yolo {
            return (Verdict::Allow, format!("{category}: allowed in yolo mode"));
        }
        let sandbox_proves_read_only = self.policy.sandbox == SandboxMode::ReadOnly
            && self.sandbox_enforced
            && !self.policy.network;
        if mode == Mode::AutoRead
            && matches!(category, Category::Exec | Category::Unknown)
            && sandbox_proves_read_only
        {
            return (Verdict::Allow, "runs inside the read-only sandbox".into());
        }
        let what = match category {
            Category::Write => "writes files",
            Category::Delete => "deletes files",
            Category::Network => "uses the network",
            Category::Exec => "runs a program whose effect is not known",
            Category::Privileged => "runs as another user",
            Category::Process => "signals or changes processes",
            Category::Unknown => "cannot be known before it runs",
            Category::Read => "only reads",
        };
        (Verdict::Confirm, what.into())
    }

    fn target(&self, step: &Step, access: Access, value: &str, row: &mut Row) {
        let judged = if access == Access::Read && reads_whole_trees(&step.name) {
            self.facts.judge_tree_read(value)
        } else {
            self.facts.judge_read(value)
        };
        match access {
            Access::Read | Access::Send => match judged {
                ReadJudgement::Ordinary => {}
                ReadJudgement::Sensitive(reason) => {
                    raise(
                        row,
                        Verdict::Confirm,
                        &format!("reads a sensitive file: {reason}"),
                        "sensitive path",
                    );
                    row.warning = true;
                }
                ReadJudgement::Forbidden(reason) => {
                    raise(row, Verdict::Block, &reason, "sensitive path");
                }
            },
            Access::Write | Access::Delete => {
                let judged = if access == Access::Delete || step.recursive {
                    self.facts.judge_delete(value)
                } else {
                    self.facts.judge_write(value)
                };
                match judged {
                    WriteJudgement::Inside => {}
                    WriteJudgement::Outside => {
                        if self.policy.mode != Mode::Yolo {
                            raise(
                                row,
                                Verdict::Confirm,
                                &format!("changes {value}, outside the writable roots"),
                                "writable roots",
                            );
                            row.warning = true;
                        }
                    }
                    WriteJudgement::Protected(reason) => {
                        raise(row, Verdict::Block, &reason, "protected path")
                    }
                }
                if !self.sandbox_enforced
                    && self.policy.sandbox != SandboxMode::Off
                    && self.policy.mode != Mode::Yolo
                {
                    raise(
                        row,
                        Verdict::Confirm,
                        "the OS sandbox is not available, so no write runs unasked",
                        "sandbox unavailable",
                    );
                }
            }
            Access::Run => raise(
                row,
                Verdict::Confirm,
                &format!("runs the script {value}"),
                "script",
            ),
            Access::Host => {}
            Access::Repository => {
                let program = step.name.trim_start_matches('^');
                let program = program.rsplit('/').next().unwrap_or(program);
                let why = if super::repository::RUSTUP_PROXIES.contains(&program) {
                    self.facts
                        .rust_project_configuration(value, program == "cargo")
                } else {
                    self.facts.foreign_repository(value)
                };
                if let Some(why) = why {
                    raise(row, Verdict::Confirm, &why, "repository configuration");
                }
            }
        }
    }
}

/// Programs that, given a directory, list only its own entries (or
/// describe it): every other external reads the tree beneath it
/// (`grep -r`, `rg`, `find`, `du`, `tar c`).
const SHALLOW_READERS: &[&str] = &[
    "ls",
    "stat",
    "file",
    "tree",
    "exa",
    "eza",
    "lsd",
    "realpath",
    "readlink",
    "test",
    "[",
    "namei",
    "lsattr",
    "getfacl",
    "df",
    "mountpoint",
    "dirname",
    "basename",
    "git",
    "cargo",
    "rustc",
    "rustup",
];

/// Whether the step is an external that reads whole trees.
fn reads_whole_trees(name: &str) -> bool {
    let Some(program) = name.strip_prefix('^') else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    !SHALLOW_READERS.contains(&program)
}

fn raise(row: &mut Row, verdict: Verdict, reason: &str, rule: &str) {
    if verdict > row.verdict {
        row.verdict = verdict;
        row.reason = reason.to_string();
        row.rule = rule.to_string();
    }
}

fn lower(row: &mut Row, reason: &str, rule: &str) {
    row.verdict = Verdict::Allow;
    row.reason = reason.to_string();
    row.rule = rule.to_string();
}

/// `^/usr/bin/git push` → `^git push`: block and confirm patterns match
/// either form.
fn normalised(command: &str) -> String {
    match command.strip_prefix('^') {
        Some(rest) => {
            let (program, args) = rest.split_once(' ').unwrap_or((rest, ""));
            let base = super::externals::base_name(program);
            if args.is_empty() {
                format!("^{base}")
            } else {
                format!("^{base} {args}")
            }
        }
        None => command.to_string(),
    }
}
