//! A task judged against a reference ("gold") command, as execution-scored
//! NL→shell benchmarks judge one: the fixture is a bash script written for
//! a fixed root (`/testbed` in a container), the gold command is what the
//! benchmark's authors would run. Here the root becomes the task's `work`
//! dir for the agent, and after the agent has ended the gold command runs
//! by bash on fresh copies of the same fixture beside it:
//!
//! - a gold command that changes the copy's files asks for the same
//!   change: the agent's tree must then equal the gold copy's tree (paths,
//!   kinds, file contents, the executable bit; times are not compared);
//! - one that changes nothing asks for an answer: the agent's tree must be
//!   unchanged, and every fact of the gold command's output (its names,
//!   numbers and words, paths made relative to the root; format words such
//!   as permission strings and `ls -l` dates are not facts) must appear in
//!   the agent's answer or the data it returned. A fact that differs
//!   between two gold copies built one after the other (a time, a random
//!   name) is not a fact. A path counts when its relative path or its file
//!   name appears.
//!
//! Strict on facts, tolerant of format: "3 files: a.txt, b.txt, c.txt"
//! passes for the output `a.txt\nb.txt\nc.txt`, "2 files" does not.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nu_protocol::Value;
use sha2::{Digest, Sha256};

/// How long the fixture script or the gold command may run.
const GOLD_LIMIT: Duration = Duration::from_secs(60);

/// A task's reference: the fixture script, the gold command and the root
/// both were written for.
#[derive(Clone, Debug, PartialEq)]
pub struct Gold {
    /// The absolute path the benchmark's fixture and commands use
    /// (`/testbed`); it stands for the task's `work` dir.
    pub root: String,
    /// Bash that builds the fixture under `root`.
    pub setup: String,
    /// Bash whose outcome the agent's outcome must match.
    pub command: String,
}

impl Gold {
    /// The request as the agent reads it: the root named as `work`.
    pub fn request(&self, request: &str, work: &Path) -> String {
        replace_root(request, &self.root, &work.display().to_string())
    }

    /// Build the fixture in `dir` (the root stands for `dir`): the tree
    /// it left, to judge changes against.
    pub fn build(&self, dir: &Path, home: &Path) -> Result<Snapshot, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let script = replace_root(&self.setup, &self.root, &dir.display().to_string());
        let run = bash(&script, dir, home)?;
        if run.code != Some(0) {
            return Err(format!(
                "the fixture script failed ({}): {}",
                exit_text(run.code),
                last_line(&run.stderr)
            ));
        }
        Ok(Snapshot(tree(dir)))
    }

    /// Judge the agent's outcome: what it changed in `work` since `built`,
    /// its answer and returned data; gold copies are built under `scratch`
    /// (beside `work`, after the agent has ended). Whether it passed, and
    /// why not.
    pub fn judge(
        &self,
        scratch: &Path,
        work: &Path,
        built: &Snapshot,
        answer: &str,
        data: &Value,
    ) -> Result<(bool, String), String> {
        let first = self.reference(&scratch.join("gold-a"), &scratch.join("home-a"))?;
        let asked = changes(&first.before, &first.after);
        let made = changes(&built.0, &tree(work));
        if !asked.is_empty() {
            return Ok(match difference(&asked, &made) {
                None => (true, String::new()),
                Some(what) => (
                    false,
                    format!("the change differs from the gold outcome: {what}"),
                ),
            });
        }
        if let Some(what) = difference(&asked, &made) {
            return Ok((
                false,
                format!("the request changes nothing, but the files changed: {what}"),
            ));
        }
        let second = self.reference(&scratch.join("gold-b"), &scratch.join("home-b"))?;
        let kept: BTreeSet<Fact> = facts(&second.output).into_iter().collect();
        let wanted: Vec<Fact> = facts(&first.output)
            .into_iter()
            .filter(|f| kept.contains(f))
            .collect();
        if wanted.is_empty() {
            return Err(format!(
                "the gold command `{}` changes nothing and prints no fact",
                self.command
            ));
        }
        let mut said = answer.to_string();
        said.push('\n');
        value_text(data, &mut said);
        let said = replace_root(&said, &work.display().to_string(), "").to_lowercase();
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|fact| !fact.found_in(&said))
            .map(|fact| fact.text.as_str())
            .collect();
        if missing.is_empty() {
            return Ok((true, String::new()));
        }
        let shown: Vec<&str> = missing.iter().take(6).copied().collect();
        Ok((
            false,
            format!(
                "the answer lacks {} of {} facts of the gold output: {}{}",
                missing.len(),
                wanted.len(),
                shown.join(", "),
                if missing.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ),
        ))
    }

    /// Build a copy in `dir`, run the gold command there: the tree before
    /// and after, and its output with `dir` written as the root.
    fn reference(&self, dir: &Path, home: &Path) -> Result<Reference, String> {
        for old in [dir, home] {
            if old.exists() {
                std::fs::remove_dir_all(old)
                    .map_err(|e| format!("cannot clear {}: {e}", old.display()))?;
            }
        }
        std::fs::create_dir_all(home).map_err(|e| e.to_string())?;
        self.build(dir, home)?;
        let before = tree(dir);
        let command = replace_root(&self.command, &self.root, &dir.display().to_string());
        let run = bash(&command, dir, home)?;
        let after = tree(dir);
        let output = replace_root(&run.stdout, &dir.display().to_string(), "");
        Ok(Reference {
            before,
            after,
            output,
        })
    }
}

/// A gold copy: its tree before and after the gold command, and what the
/// command printed (paths relative to the root).
struct Reference {
    before: Tree,
    after: Tree,
    output: String,
}

/// A directory's contents: each relative path and what it is.
type Tree = BTreeMap<String, String>;

/// The tree a fixture script left in the agent's `work` dir.
pub struct Snapshot(Tree);

/// What changed from `before` to `after`: each path added, removed
/// (`removed`) or altered, with what it is now. Comparing changes, not
/// trees, keeps what neither side touched out of the judgement (a fixture's
/// archive differs byte for byte between two builds).
fn changes(before: &Tree, after: &Tree) -> Tree {
    let mut changed: Tree = after
        .iter()
        .filter(|(path, what)| before.get(*path) != Some(*what))
        .map(|(path, what)| (path.clone(), what.clone()))
        .collect();
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        changed.insert(path.clone(), "removed".into());
    }
    changed
}

/// The tree under `dir`: directories, links (their target) and files (the
/// SHA-256 of their bytes and whether they are executable).
fn tree(dir: &Path) -> Tree {
    let mut entries = Tree::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let Ok(read) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in read.flatten() {
            let path = entry.path();
            let name = path
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let what = if meta.is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                let target =
                    replace_root(&target.to_string_lossy(), &dir.display().to_string(), "");
                format!("link to {target}")
            } else if meta.is_dir() {
                pending.push(path);
                "dir".to_string()
            } else {
                file_summary(&path, &meta)
            };
            entries.insert(name, what);
        }
    }
    entries
}

fn file_summary(path: &Path, meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::PermissionsExt;
    let digest = std::fs::read(path)
        .map(|bytes| {
            Sha256::digest(&bytes)
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        })
        .unwrap_or_else(|e| format!("unreadable: {e}"));
    let executable = meta.permissions().mode() & 0o111 != 0;
    format!(
        "file {} bytes{} {}",
        meta.len(),
        if executable { " executable" } else { "" },
        digest
    )
}

/// The first few differences between the changes wanted and those made.
fn difference(want: &Tree, got: &Tree) -> Option<String> {
    let mut lines = Vec::new();
    for (path, what) in want {
        match got.get(path) {
            None if what == "removed" => lines.push(format!("`{path}` not removed")),
            None => lines.push(format!("`{path}` not made ({what})")),
            Some(other) if other != what => lines.push(format!("`{path}` is {other}, not {what}")),
            Some(_) => {}
        }
    }
    for path in got.keys().filter(|p| !want.contains_key(*p)) {
        lines.push(format!(
            "`{path}` changed ({}), the gold command leaves it",
            got[path]
        ));
    }
    if lines.is_empty() {
        return None;
    }
    let more = lines.len().saturating_sub(4);
    lines.truncate(4);
    let mut text = lines.join("; ");
    if more > 0 {
        text.push_str(&format!(" (and {more} more)"));
    }
    Some(text)
}

/// One fact of a gold output: a word, a number or a path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fact {
    text: String,
}

impl Fact {
    /// Whether `said` (lower case, paths relative) states it: the fact as a
    /// whole word (a number not inside a longer number), or for a path
    /// its file name.
    fn found_in(&self, said: &str) -> bool {
        let text = self.text.to_lowercase();
        if has_word(said, &text) {
            return true;
        }
        if let Some(bytes) = human_size(&text) {
            return sizes_in(said).any(|size| (size - bytes).abs() <= bytes * 0.06);
        }
        match text.rsplit_once('/') {
            Some((_, name)) if !name.is_empty() => has_word(said, name),
            _ => false,
        }
    }
}

/// A size as `du -h` and `ls -h` write it (`120K`, `1.5M`: powers of
/// 1024), in bytes.
fn human_size(text: &str) -> Option<f64> {
    let unit = text.chars().last()?;
    let power = "kmgt".find(unit)? as i32 + 1;
    let number: f64 = text[..text.len() - 1].parse().ok()?;
    Some(number * 1024f64.powi(power))
}

/// The sizes `text` states with a unit (`120 KiB`, `122.9 kB`, `0.1 MB`,
/// `120K`), in bytes: `KiB`/`K` are powers of 1024, `kB`/`KB` of 1000.
fn sizes_in(text: &str) -> impl Iterator<Item = f64> + '_ {
    static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(\d+(?:\.\d+)?)\s*(b|kib|mib|gib|tib|kb|mb|gb|tb|k|m|g|t)\b")
            .expect("a valid pattern")
    });
    PATTERN
        .captures_iter(text)
        .filter_map(|c| {
            let number: f64 = c[1].parse().ok()?;
            let (base, power) = match &c[2] {
                "b" => (1.0, 0),
                "k" | "kib" => (1024.0, 1),
                "m" | "mib" => (1024.0, 2),
                "g" | "gib" => (1024.0, 3),
                "t" | "tib" => (1024.0, 4),
                "kb" => (1000.0, 1),
                "mb" => (1000.0, 2),
                "gb" => (1000.0, 3),
                _ => (1000.0, 4),
            };
            Some(number * f64::powi(base, power))
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// Whether `word` occurs in `text` with no letter, digit or `_` touching
/// it (a `.` before a digit, as in `12.5`, counts as touching).
fn has_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let joins = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let rest = &text[at + word.len()..];
        let mut after = rest.chars();
        let next = after.next();
        let decimal = next == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit());
        !before.is_some_and(joins) && !next.is_some_and(joins) && !decimal
    })
}

/// The facts of a command's output, in order, each once.
fn facts(output: &str) -> Vec<Fact> {
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    let lines: Vec<&str> = output.lines().collect();
    let skip = usize::from(is_header(&lines));
    for line in lines.into_iter().skip(skip) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let kept: Vec<&str> = match (listing_start(&tokens), tokens.as_slice()) {
            (Some(at), _) => long_listing(&tokens[at..]),
            (None, ["total", _]) => Vec::new(),
            // `wc`'s and `du -c`'s last line: the figure, not its label.
            (None, [figure, "total"]) => vec![*figure],
            _ => tokens,
        };
        for token in kept {
            for piece in token.split([
                ',', ';', ':', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '=',
            ]) {
                let piece =
                    piece.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '.');
                let piece = piece.trim_end_matches(['.', ':']);
                let piece = piece.trim_start_matches("./").trim_start_matches('/');
                let piece = piece.trim_end_matches('/');
                if piece.is_empty() || !piece.chars().any(char::is_alphanumeric) {
                    continue;
                }
                if seen.insert(piece.to_string()) {
                    found.push(Fact {
                        text: piece.to_string(),
                    });
                }
            }
        }
    }
    found
}

/// Whether the first line names the columns of those below it (`df`'s
/// `Filesystem Size Used …`): words without a number over rows of
/// several fields holding numbers. Column names are format, not facts.
fn is_header(lines: &[&str]) -> bool {
    let fields = |line: &str| line.split_whitespace().count();
    let Some((first, rows)) = lines.split_first() else {
        return false;
    };
    let has_number = |line: &str| {
        line.split_whitespace()
            .any(|t| t.trim_end_matches(['%', ',']).parse::<f64>().is_ok())
    };
    let width = fields(first);
    width >= 2
        && !has_number(first)
        && !rows.is_empty()
        && rows.iter().all(|row| fields(row) >= 2 && has_number(row))
}

/// `ls -l`'s columns that are facts: the size and the name.
fn long_listing<'a>(tokens: &[&'a str]) -> Vec<&'a str> {
    let mut kept: Vec<&str> = tokens.get(4).copied().into_iter().collect();
    kept.extend(tokens.iter().skip(8).copied().filter(|t| *t != "->"));
    kept
}

/// Where a long listing starts on a line: its mode, first or after the
/// one or two counts `ls -s` and `find -ls` write before it (inode,
/// blocks). Those counts are the file system's bookkeeping, like `ls -l`'s
/// `total N`, not facts.
fn listing_start(tokens: &[&str]) -> Option<usize> {
    let at = tokens.iter().take(3).position(|t| is_mode(t))?;
    tokens[..at]
        .iter()
        .all(|t| t.parse::<u64>().is_ok())
        .then_some(at)
}

/// A permission string such as `-rwxr-xr-x` or `drwxr-xr-x.`.
fn is_mode(token: &str) -> bool {
    let token = token.trim_end_matches(['.', '+', '@']);
    token.len() == 10
        && token.starts_with(['-', 'd', 'l', 'c', 'b', 'p', 's'])
        && token[1..]
            .chars()
            .all(|c| matches!(c, '-' | 'r' | 'w' | 'x' | 's' | 'S' | 't' | 'T'))
}

/// A value's text for the fact check: strings, numbers (a file size as its
/// bytes and as nu shows it), record keys and values, list items.
fn value_text(value: &Value, out: &mut String) {
    match value {
        Value::Record { val, .. } => {
            for (key, item) in val.iter() {
                out.push_str(key);
                out.push(' ');
                value_text(item, out);
            }
        }
        Value::List { vals, .. } => vals.iter().for_each(|item| value_text(item, out)),
        Value::Filesize { val, .. } => {
            out.push_str(&format!(
                "{} {} ",
                val.get(),
                value.to_expanded_string("", &Default::default())
            ));
        }
        Value::Nothing { .. } | Value::Closure { .. } | Value::Binary { .. } => {}
        other => {
            out.push_str(&other.to_expanded_string(" ", &Default::default()));
            out.push('\n');
        }
    }
}

/// `text` with each `root` that ends a path component (not `/testbedx`)
/// written as `with`.
fn replace_root(text: &str, root: &str, with: &str) -> String {
    if root.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(root) {
        let after = &rest[at + root.len()..];
        let ends = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        out.push_str(&rest[..at]);
        out.push_str(if ends { with } else { root });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// What a bash run printed and how it ended.
struct BashRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run `script` by bash in `dir` with `home` as HOME, within [`GOLD_LIMIT`].
fn bash(script: &str, dir: &Path, home: &Path) -> Result<BashRun, String> {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.by_ref().take(4 << 20).read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if started.elapsed() > GOLD_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "bash ran past {} s: {script}",
                    GOLD_LIMIT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for bash: {e}")),
        }
    };
    Ok(BashRun {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn exit_text(code: Option<i32>) -> String {
    code.map_or("killed".into(), |c| format!("exit {c}"))
}

fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

/// Where a task's gold copies are built: beside its `work` dir.
pub fn scratch_dir(work: &Path) -> PathBuf {
    work.parent().unwrap_or(work).join("gold")
}

#[cfg(test)]
mod tests {
    use super::*;
    use nu_protocol::Span;

    fn gold(command: &str) -> Gold {
        Gold {
            root: "/testbed".into(),
            setup: "mkdir -p /testbed/dir1/sub && echo 'Hello, World!' > /testbed/dir1/a.txt \
                    && printf 'one\\ntwo\\nthree\\n' > /testbed/b.txt"
                .into(),
            command: command.into(),
        }
    }

    /// A task root with the fixture built in `work`.
    fn world(gold: &Gold) -> (tempfile::TempDir, PathBuf, Snapshot) {
        let root = tempfile::tempdir().unwrap();
        let work = root.path().join("work");
        let built = gold.build(&work, &root.path().join("home")).unwrap();
        (root, work, built)
    }

    fn judge(
        gold: &Gold,
        world: &(tempfile::TempDir, PathBuf, Snapshot),
        answer: &str,
        data: Value,
    ) -> (bool, String) {
        let work = &world.1;
        gold.judge(&scratch_dir(work), work, &world.2, answer, &data)
            .unwrap()
    }

    #[test]
    fn the_root_becomes_the_work_dir_only_where_it_ends_a_path_component() {
        assert_eq!(
            replace_root(
                "copy /testbed/a to /testbed and /testbedx",
                "/testbed",
                "/w"
            ),
            "copy /w/a to /w and /testbedx"
        );
        let g = gold("ls");
        assert_eq!(
            g.request("list /testbed/dir1", Path::new("/tmp/t/work")),
            "list /tmp/t/work/dir1"
        );
    }

    #[test]
    fn an_answer_must_state_every_fact_of_the_gold_output() {
        let g = gold("find /testbed -name '*.txt' | sort");
        let w = world(&g);
        let work = w.1.clone();
        let nothing = Value::nothing(Span::test_data());
        let (ok, why) = judge(&g, &w, "Found dir1/a.txt and b.txt.", nothing.clone());
        assert!(ok, "{why}");
        let (ok, why) = judge(&g, &w, "There are 2 text files.", nothing.clone());
        assert!(!ok && why.contains("a.txt"), "{why}");
        let listed = Value::test_list(vec![
            Value::test_string(format!("{}/dir1/a.txt", work.display())),
            Value::test_string(format!("{}/b.txt", work.display())),
        ]);
        let (ok, why) = judge(&g, &w, "Here they are.", listed);
        assert!(ok, "{why}");
    }

    #[test]
    fn a_number_counts_only_as_a_whole_number() {
        let g = gold("wc -l < /testbed/b.txt");
        let w = world(&g);
        let nothing = Value::nothing(Span::test_data());
        assert!(judge(&g, &w, "b.txt has 3 lines.", nothing.clone()).0);
        assert!(!judge(&g, &w, "b.txt has 13 lines.", nothing.clone()).0);
        assert!(!judge(&g, &w, "b.txt has 3.5 lines.", nothing.clone()).0);
        assert!(judge(&g, &w, "lines", Value::test_int(3)).0);
    }

    #[test]
    fn a_change_must_leave_the_same_tree_as_the_gold_command() {
        let g = gold("cp /testbed/b.txt /testbed/dir1/sub/c.txt");
        let w = world(&g);
        let work = w.1.clone();
        let nothing = Value::nothing(Span::test_data());
        let (ok, why) = judge(&g, &w, "Copied.", nothing.clone());
        assert!(!ok && why.contains("dir1/sub/c.txt"), "{why}");
        std::fs::copy(work.join("b.txt"), work.join("dir1/sub/c.txt")).unwrap();
        let (ok, why) = judge(&g, &w, "Done.", nothing.clone());
        assert!(ok, "{why}");
        std::fs::write(work.join("stray.txt"), "x").unwrap();
        let (ok, why) = judge(&g, &w, "Done.", nothing);
        assert!(!ok && why.contains("stray.txt"), "{why}");
    }

    #[test]
    fn a_read_request_fails_when_the_agent_changed_the_files() {
        let g = gold("cat /testbed/dir1/a.txt");
        let w = world(&g);
        let work = w.1.clone();
        std::fs::remove_file(work.join("b.txt")).unwrap();
        let (ok, why) = judge(&g, &w, "Hello, World!", Value::nothing(Span::test_data()));
        assert!(!ok && why.contains("b.txt"), "{why}");
    }

    #[test]
    fn a_human_size_matches_the_same_size_in_any_unit() {
        let fact = Fact {
            text: "120K".into(),
        };
        assert!(fact.found_in("it takes 120 kib"));
        assert!(fact.found_in("size: 122.9 kb"));
        assert!(fact.found_in("120k"));
        assert!(!fact.found_in("it takes 12 kib"));
        assert!(!fact.found_in("120 mb"));
    }

    #[test]
    fn column_names_over_rows_of_numbers_are_not_facts() {
        let table = "Filesystem 1M-blocks Used Available Use% Mounted on\n/dev/vda 258020 33000 60000 36% /\n";
        let found: Vec<String> = facts(table).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["dev/vda", "258020", "33000", "60000", "36"]);
        let names: Vec<String> = facts("alpha beta\ngamma delta\n")
            .into_iter()
            .map(|f| f.text)
            .collect();
        assert_eq!(names.len(), 4, "rows of words keep their first line");
    }

    #[test]
    fn format_words_of_a_long_listing_are_not_facts() {
        let listing = "total 8\n-rw-r--r-- 1 root root 14 Dec  6 06:41 a.txt\n\
                       drwxr-xr-x 2 root root 4096 Dec  6 06:41 sub\n";
        let found: Vec<String> = facts(listing).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["14", "a.txt", "4096", "sub"]);
        let found: Vec<String> = facts("./dir1/a.txt:Hello, World!\n")
            .into_iter()
            .map(|f| f.text)
            .collect();
        assert_eq!(found, ["dir1/a.txt", "Hello", "World"]);
    }

    #[test]
    fn block_counts_before_a_long_listing_are_not_facts() {
        let sized = "4 -rw-r--r-- 1 root root 4096 Dec  6 06:41 dir1/file.txt\n";
        let found: Vec<String> = facts(sized).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["4096", "dir1/file.txt"]);
        let find_ls = "131 4 -rw-r--r-- 1 root root 22 Dec  6 06:41 /testbed/a.txt\n";
        let found: Vec<String> = facts(find_ls).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["22", "testbed/a.txt"]);
        let counted = "12 a.txt\n8 b.txt\n20 total\n";
        let found: Vec<String> = facts(counted).into_iter().map(|f| f.text).collect();
        assert_eq!(found, ["12", "a.txt", "8", "b.txt", "20"]);
    }
}
