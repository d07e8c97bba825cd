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
    fn fork_bombs() {
        assert!(is_fork_bomb(":(){ :|:& };:"));
        assert!(is_fork_bomb("bomb() { bomb | bomb & }; bomb"));
        assert!(!is_fork_bomb("f() { echo hi; }; f"));
    }
}
