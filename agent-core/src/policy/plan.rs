//! The static plan: every command a pipeline could run, read off the
//! parsed AST before anything runs.
//!
//! The walk follows closures, blocks, subexpressions, row conditions and
//! the bodies of custom commands (each block once, so recursion ends);
//! aliases arrive expanded by the parser. External calls are judged by
//! [`super::externals`]; `nu -c '<script>'` is planned as Nushell.

use std::{cell::RefCell, collections::HashSet, ops::ControlFlow};

use nu_protocol::{
    ENV_VARIABLE_ID, Span,
    ast::{
        Argument, Block, Call, Expr, Expression, ExternalArgument, Operator, PathMember,
        PipelineRedirection, RedirectionTarget, Traverse,
    },
    engine::{CommandType, EngineState, StateWorkingSet},
};
use serde::{Deserialize, Serialize};

use super::{
    Access, Category, Step, Verdict,
    builtins::{Targets, classify_builtin},
    externals::{self, Arg},
};
use crate::shell::Diagnostic;

/// How deep `nu -c` scripts inside scripts are followed.
const MAX_NESTED_SCRIPTS: usize = 4;

/// Every command a pipeline could run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub steps: Vec<Step>,
    /// The pipeline reads `$env` (matters when it also sends data out).
    pub reads_env: bool,
}

/// Parse `source` against `engine` (its definitions included) and list
/// what it could run. A pipeline that does not parse gets the parser's
/// diagnostic: it must be refused, never run.
pub fn plan(engine: &EngineState, source: &str) -> Result<Plan, Diagnostic> {
    plan_nested(engine, source, 0)
}

/// [`plan`] with `cwd` as the directory files named at parse time
/// (`source ./x.nu`, `use ./m.nu`) are found in.
pub fn plan_in(
    engine: &EngineState,
    source: &str,
    cwd: &std::path::Path,
) -> Result<Plan, Diagnostic> {
    let mut engine = engine.clone();
    engine.add_env_var(
        "PWD".into(),
        nu_protocol::Value::string(cwd.to_string_lossy().into_owned(), Span::unknown()),
    );
    plan_nested(&engine, source, 0)
}

fn plan_nested(engine: &EngineState, source: &str, depth: usize) -> Result<Plan, Diagnostic> {
    let mut working_set = StateWorkingSet::new(engine);
    let block = nu_parser::parse(
        &mut working_set,
        Some("agent-plan"),
        source.as_bytes(),
        false,
    );
    if let Some(err) = working_set.parse_errors.first() {
        return Err(Diagnostic::from_working_set(&working_set, err));
    }
    if let Some(err) = working_set.compile_errors.first() {
        return Err(Diagnostic::from_working_set(&working_set, err));
    }
    let mut walker = Walker {
        ws: &working_set,
        engine,
        seen: HashSet::new(),
        plan: Plan::default(),
        depth,
        cd: None,
        known: Default::default(),
        redirected_env: None,
    };
    walker.block(&block);
    if let Some(name) = walker.redirected_env.take() {
        for step in walker
            .plan
            .steps
            .iter_mut()
            .filter(|s| s.name.starts_with('^'))
        {
            step.raise(
                Verdict::Confirm,
                format!(
                    "runs with {name} set by the pipeline, which points programs at other configuration or code"
                ),
            );
        }
    }
    Ok(walker.plan)
}

struct Walker<'a> {
    ws: &'a StateWorkingSet<'a>,
    engine: &'a EngineState,
    seen: HashSet<nu_protocol::BlockId>,
    plan: Plan,
    depth: usize,
    /// The directory a literal `cd` moved to: later relative targets are
    /// read against it.
    cd: Option<String>,
    /// Immutable variables bound to a value known before anything runs
    /// (`let c = "rm"`), so `^$c` and `%$c` are judged as what they are.
    known: std::collections::HashMap<nu_protocol::VarId, String>,
    /// A variable the pipeline sets that points programs at other
    /// configuration (`HOME`, `GIT_*`, `*PAGER`...): externals ask.
    redirected_env: Option<String>,
}

/// What the expression walk stops at.
enum Node<'a> {
    Block(nu_protocol::BlockId),
    Call(&'a Call, Span),
    External(&'a Expression, &'a [ExternalArgument], Span),
    EnvAssign(String, Span),
    EnvRead,
}

impl<'a> Walker<'a> {
    fn block(&mut self, block: &'a Block) {
        for pipeline in &block.pipelines {
            for (index, element) in pipeline.elements.iter().enumerate() {
                let before = self.plan.steps.len();
                let stdin_program = self.expression(&element.expr);
                if index > 0
                    && stdin_program
                    && let Some(step) = self.plan.steps[before..]
                        .iter_mut()
                        .find(|s| s.category == Category::Exec)
                {
                    step.raise(
                        Verdict::Block,
                        "pipes data into an interpreter, which runs it as code",
                    );
                }
                if let Some(redirection) = &element.redirection {
                    self.redirection(redirection);
                }
            }
        }
    }

    fn block_id(&mut self, id: nu_protocol::BlockId) {
        if self.seen.insert(id) {
            let block = self.ws.get_block(id);
            self.block(block);
        }
    }

    /// Walk one expression; true when its top level is an interpreter that
    /// reads its program from stdin.
    fn expression(&mut self, expr: &'a Expression) -> bool {
        let nodes = RefCell::new(Vec::new());
        let _ = expr.find_map(self.ws, &|e: &'a Expression| -> ControlFlow<Option<()>> {
            match &e.expr {
                Expr::Closure(id)
                | Expr::Block(id)
                | Expr::Subexpression(id)
                | Expr::RowCondition(id) => {
                    nodes.borrow_mut().push(Node::Block(*id));
                    ControlFlow::Break(None)
                }
                Expr::Call(call) => {
                    nodes.borrow_mut().push(Node::Call(call, e.span));
                    ControlFlow::Continue(())
                }
                Expr::ExternalCall(head, args) => {
                    nodes.borrow_mut().push(Node::External(head, args, e.span));
                    ControlFlow::Continue(())
                }
                Expr::BinaryOp(lhs, op, _)
                    if matches!(op.expr, Expr::Operator(Operator::Assignment(_))) =>
                {
                    if let Some(name) = env_member(lhs) {
                        nodes.borrow_mut().push(Node::EnvAssign(name, e.span));
                    }
                    ControlFlow::Continue(())
                }
                Expr::Var(id) if *id == ENV_VARIABLE_ID => {
                    nodes.borrow_mut().push(Node::EnvRead);
                    ControlFlow::Continue(())
                }
                _ => ControlFlow::Continue(()),
            }
        });
        let top_external = matches!(expr.expr, Expr::ExternalCall(..));
        let before = self.plan.steps.len();
        let mut stdin_program = false;
        for (i, node) in nodes.into_inner().into_iter().enumerate() {
            match node {
                Node::Block(id) => self.block_id(id),
                Node::Call(call, span) => {
                    let reads = self.call(call, span);
                    stdin_program |= i == 0 && reads;
                }
                Node::External(head, args, span) => {
                    let reads = self.external(head, args, span);
                    stdin_program |= i == 0 && top_external && reads;
                }
                Node::EnvAssign(name, span) => self.env_assign(&name, span),
                Node::EnvRead => self.plan.reads_env = true,
            }
        }
        self.apply_cd(before);
        stdin_program
    }

    /// Targets of the steps from `from` on, read against a literal `cd`
    /// seen earlier; then follow a `cd` among those steps.
    fn apply_cd(&mut self, from: usize) {
        for step in &mut self.plan.steps[from..] {
            if let Some(dir) = &self.cd {
                for target in &mut step.targets {
                    let relative = !target.value.starts_with('/') && !target.value.starts_with('~');
                    if relative
                        && matches!(
                            target.access,
                            Access::Read
                                | Access::Write
                                | Access::Delete
                                | Access::Run
                                | Access::Repository
                        )
                    {
                        target.value = format!("{}/{}", dir.trim_end_matches('/'), target.value);
                    }
                }
            }
            if step.name == "cd" {
                self.cd = Some(
                    step.targets
                        .first()
                        .map(|t| t.value.clone())
                        .unwrap_or_else(|| "~".into()),
                );
            }
        }
    }

    fn text(&self, span: Span) -> String {
        let raw = String::from_utf8_lossy(self.ws.get_span_contents(span));
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn call(&mut self, call: &'a Call, span: Span) -> bool {
        let decl_id = match call.parser_info.get("percent_forced_builtin") {
            None => call.decl_id,
            Some(head) => {
                // `%$name`: judged as the builtin when the name is known.
                match self
                    .value_of(head)
                    .and_then(|n| self.ws.find_decl(n.as_bytes()))
                {
                    Some(id) => id,
                    None => {
                        let command = self.text(span);
                        self.push_dynamic(
                            &command,
                            "runs a builtin only known when it runs (`%$name`)",
                        );
                        return false;
                    }
                }
            }
        };
        let decl = self.ws.get_decl(decl_id);
        let name = decl.name().to_string();
        if let Some(body) = decl.block_id() {
            // A custom command: what it runs is what its body runs.
            self.block_id(body);
            return false;
        }
        if decl.command_type() == CommandType::External {
            // `extern` declarations run the external of the same name.
            let args: Vec<Arg> = positional(call).map(|e| self.arg(e)).collect();
            return self.push_external(&name, &args);
        }
        let command = self.text(span);
        if matches!(name.as_str(), "let" | "const") {
            self.bind(call);
        }
        match name.as_str() {
            "run-external" => {
                let mut args = positional(call);
                let Some(program) = args.next() else {
                    return false;
                };
                let rest: Vec<Arg> = args.map(|e| self.arg(e)).collect();
                return match self.value_of(program) {
                    Some(program) => self.push_external(&program, &rest),
                    None => {
                        self.push_dynamic(&command, "runs a program only known when it runs");
                        false
                    }
                };
            }
            "do" => {
                let first = positional(call).next();
                if first.is_some_and(|e| !matches!(e.expr, Expr::Closure(_) | Expr::Block(_))) {
                    self.push_dynamic(&command, "runs a closure held in a variable");
                }
            }
            _ => {}
        }
        let Some(class) = classify_builtin(&name) else {
            let mut step = Step::new(name, command, Category::Unknown);
            step.raise(Verdict::Confirm, "a command the policy does not know");
            self.plan.steps.push(step);
            return false;
        };
        let mut step = Step::new(name.clone(), command, class.category);
        if let Some(reason) = class.forbidden {
            step.raise(Verdict::Block, reason);
        }
        let args: Vec<&Expression> = positional(call).collect();
        let values: Vec<Option<String>> = args.iter().map(|e| self.value_of(e)).collect();
        step.dynamic = args
            .iter()
            .zip(&values)
            .any(|(e, v)| v.is_none() && !is_code_block(e));
        let literals: Vec<String> = values.into_iter().flatten().collect();
        match class.targets {
            Targets::None => {}
            Targets::Paths => {
                let access = match class.category {
                    Category::Delete => Access::Delete,
                    Category::Write => Access::Write,
                    _ => Access::Read,
                };
                for path in &literals {
                    step.targets.push(super::Target::new(access, path.clone()));
                }
            }
            Targets::CopyLike => {
                if let Some((dest, sources)) = literals.split_last() {
                    for source in sources {
                        step.targets
                            .push(super::Target::new(Access::Read, source.clone()));
                        if name == "mv" {
                            step.targets
                                .push(super::Target::new(Access::Delete, source.clone()));
                        }
                    }
                    step.targets
                        .push(super::Target::new(Access::Write, dest.clone()));
                }
            }
            Targets::Url => {
                if let Some(url) = literals.first() {
                    step.targets
                        .push(super::Target::new(Access::Host, externals::host_of(url)));
                }
                if matches!(name.as_str(), "http post" | "http put" | "http patch") {
                    step.targets
                        .push(super::Target::new(Access::Send, "request body"));
                }
            }
        }
        self.builtin_specifics(&name, call, &mut step);
        self.plan.steps.push(step);
        false
    }

    /// Flags and arguments that change what a builtin does.
    fn builtin_specifics(&mut self, name: &str, call: &Call, step: &mut Step) {
        let has_flag = |long: &str, short: Option<&str>| {
            call.arguments.iter().any(|a| match a {
                Argument::Named((l, s, _)) => {
                    l.item == long || s.as_ref().is_some_and(|s| Some(s.item.as_str()) == short)
                }
                _ => false,
            })
        };
        let named_value = |long: &str| {
            call.arguments.iter().find_map(|a| match a {
                Argument::Named((l, _, Some(value))) if l.item == long => literal(value),
                _ => None,
            })
        };
        match name {
            "rm" => step.recursive = has_flag("recursive", Some("r")),
            "source" | "source-env" | "overlay use" | "use" | "nu-check"
                if name != "use" && name != "nu-check" =>
            {
                step.raise(Verdict::Confirm, format!("`{name}` runs code from a file"));
            }
            "with-env" | "load-env" => {
                if let Some(Expr::Record(items)) = positional(call).next().map(bare) {
                    for item in items {
                        let nu_protocol::ast::RecordItem::Pair(key, _) = item else {
                            continue;
                        };
                        let Some(key) = literal(key) else {
                            continue;
                        };
                        if key.eq_ignore_ascii_case("PATH") {
                            step.raise(
                                Verdict::Confirm,
                                "changes PATH: programs may then run from other directories",
                            );
                        }
                        if super::code_injection_variable(&key) {
                            step.raise(
                                Verdict::Block,
                                format!("sets {key}, which makes programs load or run other code"),
                            );
                        }
                        if crate::shell::redirects_configuration(&key) {
                            self.redirected_env.get_or_insert(key);
                        }
                    }
                }
            }
            _ if name.starts_with("http") => {
                if let Some(socket) = named_value("unix-socket") {
                    step.targets
                        .push(super::Target::new(Access::Host, format!("unix:{socket}")));
                    let verdict = if socket.contains("docker")
                        || socket.contains("containerd")
                        || socket.contains("podman")
                    {
                        Verdict::Block
                    } else {
                        Verdict::Confirm
                    };
                    step.raise(
                        verdict,
                        format!("talks to the local socket {socket} (a container daemon's socket is as good as root)"),
                    );
                }
            }
            _ => {}
        }
    }

    /// The value of `expr` when it is known before anything runs: a
    /// literal, a `$nu` constant, a constant expression (`[r m] | str
    /// join`), or an immutable variable bound to one.
    fn value_of(&self, expr: &Expression) -> Option<String> {
        if let Some(text) = literal_or_constant(self.ws, expr) {
            return Some(text);
        }
        if let Expr::Var(id) = bare(expr)
            && let Some(text) = self.known.get(id)
        {
            return Some(text.clone());
        }
        if matches!(
            bare(expr),
            Expr::Subexpression(_) | Expr::StringInterpolation(_)
        ) && let Ok(nu_protocol::Value::String { val, .. }) =
            nu_protocol::eval_const::eval_constant(self.ws, expr)
        {
            return Some(val);
        }
        None
    }

    /// Remember `let name = <known value>` (never `mut`: it can change).
    fn bind(&mut self, call: &Call) {
        let mut args = positional(call);
        let (Some(target), Some(value)) = (args.next(), args.next()) else {
            return;
        };
        let Expr::VarDecl(id) = target.expr else {
            return;
        };
        let value = match bare(value) {
            Expr::Block(block) | Expr::Subexpression(block) => {
                let block = self.ws.get_block(*block);
                match block.pipelines.as_slice() {
                    [pipeline] if pipeline.elements.len() == 1 => {
                        self.value_of(&pipeline.elements[0].expr)
                    }
                    _ => None,
                }
            }
            _ => self.value_of(value),
        };
        if let Some(value) = value {
            self.known.insert(id, value);
        }
    }

    fn arg(&self, expr: &Expression) -> Arg {
        match self.value_of(expr) {
            Some(text) => Arg::Literal(text),
            None => Arg::Dynamic(self.text(expr.span)),
        }
    }

    fn external(&mut self, head: &'a Expression, args: &'a [ExternalArgument], span: Span) -> bool {
        let args: Vec<Arg> = args
            .iter()
            .map(|a| match a {
                ExternalArgument::Regular(e) => self.arg(e),
                ExternalArgument::Spread(e) => Arg::Dynamic(self.text(e.span)),
            })
            .collect();
        match self.value_of(head) {
            Some(program) => self.push_external(&program, &args),
            None => {
                let command = self.text(span);
                self.push_dynamic(&command, "runs a program only known when it runs");
                false
            }
        }
    }

    fn push_external(&mut self, program: &str, args: &[Arg]) -> bool {
        let external = externals::classify(program, args);
        self.plan.steps.extend(external.steps);
        for script in external.nested_nu {
            self.nested_nu(&script);
        }
        external.reads_program_from_stdin
    }

    fn nested_nu(&mut self, script: &str) {
        if self.depth >= MAX_NESTED_SCRIPTS {
            self.push_dynamic(script, "nu scripts nested too deep to judge");
            return;
        }
        match plan_nested(self.engine, script, self.depth + 1) {
            Ok(inner) => {
                self.plan.steps.extend(inner.steps);
                self.plan.reads_env |= inner.reads_env;
            }
            Err(_) => self.push_dynamic(script, "runs a nu script that does not parse"),
        }
    }

    fn push_dynamic(&mut self, command: &str, why: &str) {
        let mut step = Step::new("<dynamic>", command.to_string(), Category::Unknown);
        step.dynamic = true;
        step.raise(Verdict::Confirm, why);
        self.plan.steps.push(step);
    }

    fn redirection(&mut self, redirection: &PipelineRedirection) {
        let targets: Vec<&RedirectionTarget> = match redirection {
            PipelineRedirection::Single { target, .. } => vec![target],
            PipelineRedirection::Separate { out, err } => vec![out, err],
        };
        for target in targets {
            if let RedirectionTarget::File { expr, append, span } = target {
                let command = self.text(*span);
                let mut step =
                    Step::new(if *append { "o>>" } else { "o>" }, command, Category::Write);
                match literal(expr) {
                    Some(path) => step.targets.push(super::Target::new(Access::Write, path)),
                    None => step.dynamic = true,
                }
                self.plan.steps.push(step);
            }
        }
    }

    fn env_assign(&mut self, name: &str, span: Span) {
        if crate::shell::redirects_configuration(name) {
            self.redirected_env.get_or_insert_with(|| name.to_string());
        }
        if name.eq_ignore_ascii_case("PATH") {
            let mut step = Step::new("$env", self.text(span), Category::Unknown);
            step.raise(
                Verdict::Confirm,
                "changes PATH: programs may then run from other directories",
            );
            self.plan.steps.push(step);
        }
        if super::code_injection_variable(name) {
            let mut step = Step::new("$env", self.text(span), Category::Write);
            step.raise(
                Verdict::Block,
                format!("sets {name}, which makes programs load or run other code"),
            );
            self.plan.steps.push(step);
        }
    }
}

/// The positional arguments of a call, spreads included.
fn positional(call: &Call) -> impl Iterator<Item = &Expression> {
    call.arguments.iter().filter_map(|a| match a {
        Argument::Positional(e) | Argument::Spread(e) | Argument::Unknown(e) => Some(e),
        Argument::Named(_) => None,
    })
}

/// The expression inside a cell path with no members (`{a: 1}` parses
/// as one).
fn bare(expr: &Expression) -> &Expr {
    match &expr.expr {
        Expr::FullCellPath(path) if path.tail.is_empty() => bare(&path.head),
        other => other,
    }
}

/// The text of a literal string, path or glob argument.
fn literal(expr: &Expression) -> Option<String> {
    match bare(expr) {
        Expr::String(s) | Expr::RawString(s) => Some(s.clone()),
        Expr::Filepath(s, _) | Expr::Directory(s, _) | Expr::GlobPattern(s, _) => Some(s.clone()),
        Expr::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

/// A literal, or the value of a `$nu.<path>` constant (`$nu.config-path`,
/// `$nu.home-dir`), which nu knows before anything runs.
fn literal_or_constant(ws: &StateWorkingSet, expr: &Expression) -> Option<String> {
    if let Some(text) = literal(expr) {
        return Some(text);
    }
    let Expr::FullCellPath(path) = &expr.expr else {
        return None;
    };
    if path.head.expr != Expr::Var(nu_protocol::NU_VARIABLE_ID) {
        return None;
    }
    match nu_protocol::eval_const::eval_constant(ws, expr).ok()? {
        nu_protocol::Value::String { val, .. } => Some(val),
        _ => None,
    }
}

fn is_code_block(expr: &Expression) -> bool {
    matches!(
        bare(expr),
        Expr::Closure(_) | Expr::Block(_) | Expr::RowCondition(_) | Expr::Record(_) | Expr::List(_)
    )
}

/// `$env.NAME` on the left of `=`.
fn env_member(expr: &Expression) -> Option<String> {
    let Expr::FullCellPath(path) = &expr.expr else {
        return None;
    };
    if path.head.expr != Expr::Var(ENV_VARIABLE_ID) {
        return None;
    }
    match path.tail.first()? {
        PathMember::String { val, .. } => Some(val.clone()),
        PathMember::Int { .. } => None,
    }
}
