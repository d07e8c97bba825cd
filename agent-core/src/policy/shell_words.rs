//! Just enough of POSIX shell syntax to judge `sh -c '<script>'`: words,
//! quotes, command separators, pipes and output redirections. Anything
//! this splitter cannot see through (substitutions, variables, here-docs)
//! marks the script opaque, and the policy asks.

/// One simple command of a script.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ShellCommand {
    pub words: Vec<String>,
    /// Per word: it was quoted or escaped in part, so a shell would not
    /// expand a glob in it.
    pub quoted: Vec<bool>,
    /// Receives the previous command's output through `|`.
    pub piped_into: bool,
    /// Files it redirects output into (`> f`, `>> f`, `2> f`).
    pub writes: Vec<String>,
}

/// A split script.
#[derive(Debug, Default)]
pub struct Split {
    pub commands: Vec<ShellCommand>,
    /// Has parts only known when it runs.
    pub opaque: bool,
}

/// The word being read.
#[derive(Default)]
struct Pending {
    text: String,
    /// A word has begun (`''` is an empty word).
    started: bool,
    /// Part of it was quoted or escaped.
    quoted: bool,
    /// It is the target of an output redirection.
    redirect: bool,
}

impl Pending {
    /// End the word, if one has begun, into `current`.
    fn finish(&mut self, current: &mut ShellCommand) {
        if self.started {
            let text = std::mem::take(&mut self.text);
            if self.redirect {
                current.writes.push(text);
                self.redirect = false;
            } else {
                current.words.push(text);
                current.quoted.push(self.quoted);
            }
            self.started = false;
        }
        self.quoted = false;
    }
}

/// Split `script` into commands.
pub fn split(script: &str) -> Split {
    let mut out = Split::default();
    let mut current = ShellCommand::default();
    let mut pending = Pending::default();
    let mut chars = script.chars().peekable();

    let finish_command = |current: &mut ShellCommand, out: &mut Split, piped: bool| {
        let done = std::mem::take(current);
        if !done.words.is_empty() || !done.writes.is_empty() {
            out.commands.push(done);
        }
        current.piped_into = piped;
    };

    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                pending.started = true;
                pending.quoted = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    pending.text.push(q);
                }
            }
            '"' => {
                pending.started = true;
                pending.quoted = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                pending.text.push(n);
                            }
                        }
                        '$' | '`' => {
                            out.opaque = true;
                            pending.text.push(q);
                        }
                        _ => pending.text.push(q),
                    }
                }
            }
            '\\' => {
                pending.started = true;
                pending.quoted = true;
                if let Some(n) = chars.next()
                    && n != '\n'
                {
                    pending.text.push(n);
                }
            }
            '$' | '`' => {
                out.opaque = true;
                pending.started = true;
                pending.text.push(c);
            }
            '#' if !pending.started => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                finish_command(&mut current, &mut out, false);
            }
            ' ' | '\t' => pending.finish(&mut current),
            '\n' | ';' => {
                pending.finish(&mut current);
                finish_command(&mut current, &mut out, false);
            }
            '&' | '|' => {
                pending.finish(&mut current);
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                }
                if c == '&' && chars.peek() == Some(&'>') {
                    // `&>` redirects both streams.
                    chars.next();
                    pending.redirect = true;
                    continue;
                }
                finish_command(&mut current, &mut out, c == '|' && !doubled);
            }
            '>' => {
                // `2>`, `1>`: the fd number is not a pending.text.
                if pending.started && pending.text.chars().all(|d| d.is_ascii_digit()) {
                    pending.text.clear();
                    pending.started = false;
                }
                pending.finish(&mut current);
                if chars.peek() == Some(&'>') {
                    chars.next();
                }
                if chars.peek() == Some(&'&') {
                    // `2>&1`: a stream joined to another, not a file.
                    chars.next();
                    while chars
                        .peek()
                        .is_some_and(|d| d.is_ascii_digit() || *d == '-')
                    {
                        chars.next();
                    }
                    continue;
                }
                pending.redirect = true;
            }
            '{' if chars.peek() == Some(&'}') => {
                // `{}` expands to nothing else: a literal word part
                // (`find -exec cmd {} +`), as bash reads it.
                chars.next();
                pending.started = true;
                pending.text.push_str("{}");
            }
            '<' | '(' | ')' | '{' | '}' => {
                pending.finish(&mut current);
                out.opaque = true;
            }
            _ => {
                pending.started = true;
                pending.text.push(c);
            }
        }
    }
    pending.finish(&mut current);
    finish_command(&mut current, &mut out, false);
    out
}

/// Bash's keywords that open or join a compound command: the words after
/// them are a call (`while read l`, `then rm x`, `! grep -q a f`).
const CLAUSE_WORDS: &[&str] = &["!", "if", "then", "else", "elif", "do", "while", "until"];

/// Keywords that close a compound command (`fi`, `done`).
const CLOSING_WORDS: &[&str] = &["fi", "done", "esac"];

/// Heads whose words are a list, not a call (`for f in *.txt`, `case $x in`).
const LIST_HEADS: &[&str] = &["for", "select", "case", "function"];

/// Builtins that touch only the shell's own variables or flow.
const INERT_BUILTINS: &[&str] = &[
    "read", ":", "true", "false", "shift", "break", "continue", "exit", "return", "wait",
];

/// Builtins that change how later commands resolve or run code of their
/// own (`cd`, `export`, `source`): what the script does after them is only
/// known when it runs. (`eval`, `exec`, `command` and `time` are programs
/// the policy's wrappers judge by what they run.)
const STATE_BUILTINS: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "export",
    "set",
    "unset",
    "local",
    "declare",
    "typeset",
    "readonly",
    "let",
    "alias",
    "unalias",
    "umask",
    "trap",
    "source",
    ".",
    "hash",
    "ulimit",
    "shopt",
    "getopts",
    "enable",
    "mapfile",
    "readarray",
];

/// Bash's other words that head a command and are no program on `PATH`:
/// keywords and builtins the splitter reads as calls (`echo`, `test`,
/// `eval`), judged as the programs of the same name are.
const OTHER_WORDS: &[&str] = &[
    "in", "time", "{", "}", "[[", "]]", "echo", "printf", "test", "[", "pwd", "type", "eval",
    "exec", "kill", "history", "jobs", "help", "command", "builtin",
];

/// Whether `name` is one of bash's keywords or builtins, which no `PATH`
/// holds (several are Nushell commands too: `break`, `hash`, `help`).
pub fn is_bash_word(name: &str) -> bool {
    [
        CLAUSE_WORDS,
        CLOSING_WORDS,
        LIST_HEADS,
        INERT_BUILTINS,
        STATE_BUILTINS,
        OTHER_WORDS,
    ]
    .iter()
    .any(|words| words.contains(&name))
}

impl Split {
    /// The calls the script makes: each command read past bash's own words
    /// (`while read l; do rm "$l"; done` calls `rm`; `fi` calls nothing),
    /// a builtin that changes the shell's state making the script opaque.
    /// Output redirections stay with their command, even one left with no
    /// words (`done > out`, a bare `> f`).
    pub fn into_calls(self) -> Split {
        let mut opaque = self.opaque;
        let commands = self
            .commands
            .into_iter()
            .filter_map(|command| {
                let command = command.past_shell_words(&mut opaque);
                (!command.words.is_empty() || !command.writes.is_empty()).then_some(command)
            })
            .collect();
        Split { commands, opaque }
    }
}

impl ShellCommand {
    /// This command without the keywords and builtins of bash at its head;
    /// `opaque` is set where what it does is only known when it runs.
    fn past_shell_words(mut self, opaque: &mut bool) -> ShellCommand {
        while let Some(head) = self
            .words
            .first()
            .filter(|_| self.quoted.first() == Some(&false))
        {
            let head = head.as_str();
            if CLAUSE_WORDS.contains(&head) || CLOSING_WORDS.contains(&head) {
                self.drop_head();
            } else if LIST_HEADS.contains(&head) || STATE_BUILTINS.contains(&head) {
                *opaque = true;
                self.words.clear();
            } else if INERT_BUILTINS.contains(&head) {
                self.words.clear();
            } else {
                break;
            }
        }
        self.quoted.truncate(self.words.len());
        self
    }

    fn drop_head(&mut self) {
        self.words.remove(0);
        self.quoted.remove(0);
    }
}

/// The classic `:(){ :|:& };:` and its renamings: a function that pipes
/// into itself in the background.
pub fn is_fork_bomb(script: &str) -> bool {
    let compact: String = script.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = compact.find("(){") else {
        return false;
    };
    let name_start = compact[..open]
        .rfind([';', '&', '|', '\n'])
        .map(|i| i + 1)
        .unwrap_or(0);
    let name = &compact[name_start..open];
    !name.is_empty() && compact[open..].contains(&format!("{name}|{name}&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_pipes_and_redirections() {
        let s = split("rm -rf ~ && echo 'a b' | sh; cat x > out 2>&1\nls");
        let words: Vec<Vec<String>> = s.commands.iter().map(|c| c.words.clone()).collect();
        assert_eq!(
            words,
            vec![
                vec!["rm".to_string(), "-rf".into(), "~".into()],
                vec!["echo".into(), "a b".into()],
                vec!["sh".into()],
                vec!["cat".into(), "x".into()],
                vec!["ls".into()],
            ]
        );
        assert!(s.commands[2].piped_into);
        assert_eq!(s.commands[1].quoted, vec![false, true]);
        assert_eq!(s.commands[3].writes, vec!["out".to_string()]);
        assert!(!s.opaque);
    }

    #[test]
    fn substitutions_are_opaque() {
        assert!(split("rm $(cat list)").opaque);
        assert!(split("echo `id`").opaque);
        assert!(split("rm \"$HOME\"").opaque);
        assert!(!split("echo '$HOME'").opaque);
    }

    #[test]
    fn an_empty_brace_pair_is_a_word_and_a_brace_expansion_is_opaque() {
        let s = split("find . -name '*.log' -exec grep -c ERROR {} +");
        assert!(!s.opaque);
        assert_eq!(s.commands[0].words[8], "{}");
        assert!(!split("find . -exec mv {} {}.bak ';'").opaque);
        assert!(split("cp f{1,2}.txt out").opaque);
        assert!(split("{ rm x; }").opaque);
    }

    #[test]
    fn fork_bombs() {
        assert!(is_fork_bomb(":(){ :|:& };:"));
        assert!(is_fork_bomb("bomb() { bomb | bomb & }; bomb"));
        assert!(!is_fork_bomb("f() { echo hi; }; f"));
    }

    #[test]
    fn calls_are_read_past_bash_s_own_words() {
        let calls = |script: &str| {
            let split = split(script).into_calls();
            let words: Vec<String> = split.commands.iter().map(|c| c.words.join(" ")).collect();
            (words, split.opaque)
        };
        assert_eq!(
            calls("find . -name '*.txt' | while read -r f; do grep -l x f; done"),
            (
                vec!["find . -name *.txt".to_string(), "grep -l x f".into()],
                false
            )
        );
        assert_eq!(
            calls("if [ -d logs ]; then rm -rf ~; fi"),
            (vec!["[ -d logs ]".to_string(), "rm -rf ~".into()], false)
        );
        assert_eq!(
            calls("! grep -q a f"),
            (vec!["grep -q a f".to_string()], false)
        );
        assert_eq!(
            calls("cd /; rm -rf x"),
            (vec!["rm -rf x".to_string()], true)
        );
        assert_eq!(
            calls("for f in a b; do rm f; done"),
            (vec!["rm f".to_string()], true)
        );
        assert_eq!(calls("'if' x"), (vec!["if x".to_string()], false));
        let split = split("while true; do ls; done > out").into_calls();
        assert_eq!(
            split.commands.last().map(|c| c.writes.clone()),
            Some(vec!["out".to_string()])
        );
    }
}
