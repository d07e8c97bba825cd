//! Scrubbing secrets from text that leaves the machine or is logged.
//!
//! A [`Redactor`] finds well-known credential shapes (cloud and forge
//! tokens, private key blocks, authorization headers, passwords in URLs and
//! `key = value` assignments) plus the literal values of secret environment
//! variables, and replaces each hit with `[REDACTED:<kind>#<n>]`. The number
//! is stable per distinct secret within one redactor (and its clones), so a
//! model can still say "the same key"; the mapping itself never leaves the
//! redactor.
//!
//! All matching uses the `regex` crate, which is linear in the input, so
//! hostile text cannot make it slow.

use std::{
    borrow::Cow,
    collections::HashMap,
    fmt,
    ops::Range,
    sync::{Arc, Mutex, OnceLock},
};

use regex::Regex;

/// Shortest environment value redacted verbatim: shorter values (`1`,
/// `true`, `us-east`) would scrub ordinary words from every output.
pub const MIN_EXACT_LEN: usize = 8;

/// Kind shown for a literal environment value.
const EXACT_KIND: &str = "secret-value";

/// One credential shape.
struct Rule {
    /// Shown in the placeholder.
    kind: &'static str,
    /// The shape; when it has a group named `secret`, only that group is
    /// redacted (the context around it stays readable).
    pattern: &'static str,
}

/// The shapes, most specific first: when hits overlap, the earlier rule
/// names the merged hit.
const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)",
    },
    Rule {
        kind: "aws-access-key-id",
        pattern: r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
    },
    Rule {
        kind: "aws-secret-access-key",
        pattern: r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40,})"#,
    },
    Rule {
        kind: "github-token",
        pattern: r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    },
    Rule {
        kind: "github-pat",
        pattern: r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
    },
    Rule {
        kind: "gitlab-token",
        pattern: r"\bglpat-[A-Za-z0-9_-]{20,}",
    },
    Rule {
        kind: "anthropic-key",
        pattern: r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}",
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b",
    },
    Rule {
        kind: "google-api-key",
        pattern: r"\bAIza[0-9A-Za-z_-]{35,}",
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"(?:https?://)?hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
    },
    Rule {
        kind: "slack-token",
        pattern: r"\bxox[baprs]-[0-9A-Za-z-]{10,}",
    },
    Rule {
        kind: "stripe-key",
        pattern: r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}\b",
    },
    Rule {
        kind: "huggingface-token",
        pattern: r"\bhf_[A-Za-z0-9]{30,}\b",
    },
    Rule {
        kind: "npm-token",
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
    },
    Rule {
        kind: "pypi-token",
        pattern: r"\bpypi-[A-Za-z0-9_-]{50,}",
    },
    Rule {
        kind: "jwt",
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    },
    Rule {
        kind: "url-password",
        pattern: r"(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<secret>[^/\s@]+)@",
    },
    Rule {
        kind: "auth-header",
        pattern: r"(?i)\b(?:authorization|proxy-authorization|x-api-key|x-auth-token|cookie|set-cookie)\s*:[ \t]*(?P<secret>\S[^\r\n]*)",
    },
    Rule {
        kind: "bearer-token",
        pattern: r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{8,}=*)",
    },
    Rule {
        kind: "secret-assignment",
        pattern: r#"(?i)\b[A-Za-z0-9_.-]{0,40}(?:api[_-]?key|secret[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|secret|token|passw(?:or)?d|passphrase|credential)s?\b["']?\s*(?::=|=>|[:=])\s*["']?(?P<secret>[^\s'"]{8,})"#,
    },
];

/// An earlier placeholder: never redacted again.
const PLACEHOLDER: &str = r"\[REDACTED:[a-z0-9-]+#[0-9]+\]";

/// The compiled [`RULES`], built once per process. A rule that fails to
/// compile (a bug caught by the unit tests) is left out rather than
/// panicking.
fn compiled_rules() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        RULES
            .iter()
            .filter_map(|rule| Some((rule.kind, compile(rule.pattern)?)))
            .collect()
    })
}

fn placeholder_regex() -> Option<&'static Regex> {
    static COMPILED: OnceLock<Option<Regex>> = OnceLock::new();
    COMPILED.get_or_init(|| compile(PLACEHOLDER)).as_ref()
}

/// Compile with ASCII word boundaries: a Unicode `\b` makes the fast
/// engines give up on non-ASCII text.
fn compile(pattern: &str) -> Option<Regex> {
    regex::RegexBuilder::new(&pattern.replace(r"\b", r"(?-u:\b)"))
        .size_limit(32 << 20)
        .build()
        .ok()
}

/// Redacts secrets from text; see the module docs.
///
/// Clones share the numbering, so one conversation can use one redactor
/// from several threads.
#[derive(Clone)]
pub struct Redactor {
    inner: Arc<Inner>,
}

struct Inner {
    /// Alternation of the exact values, longest first.
    exact: Option<Regex>,
    /// Secret text → its number; only ever read inside [`Redactor::redact`].
    numbers: Mutex<HashMap<String, usize>>,
}

/// One hit: the byte range and the index of the rule that found it (the
/// exact values rank after the shape rules).
struct Hit {
    range: Range<usize>,
    rank: usize,
}

impl Redactor {
    /// A redactor for the built-in shapes plus these literal values
    /// (values shorter than [`MIN_EXACT_LEN`] bytes are ignored).
    pub fn new(exact_values: Vec<String>) -> Redactor {
        let mut values: Vec<String> = exact_values
            .into_iter()
            .filter(|value| value.len() >= MIN_EXACT_LEN)
            .collect();
        values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        values.dedup();
        let exact = if values.is_empty() {
            None
        } else {
            let alternation = values
                .iter()
                .map(|value| regex::escape(value))
                .collect::<Vec<_>>()
                .join("|");
            regex::RegexBuilder::new(&alternation)
                .size_limit(64 << 20)
                .build()
                .ok()
        };
        Redactor {
            inner: Arc::new(Inner {
                exact,
                numbers: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// A redactor that also scrubs the values of the variables whose names
    /// look secret ([`crate::shell::is_secret_name`]).
    pub fn from_env(vars: impl IntoIterator<Item = (String, String)>) -> Redactor {
        Redactor::new(
            vars.into_iter()
                .filter(|(name, _)| crate::shell::is_secret_name(name))
                .map(|(_, value)| value)
                .collect(),
        )
    }

    /// `text` with every secret replaced by `[REDACTED:<kind>#<n>]`;
    /// borrowed when nothing was found.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let hits = self.hits(text);
        if hits.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut numbers = self
            .inner
            .numbers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        for hit in hits {
            let Some(secret) = text.get(hit.range.clone()) else {
                continue;
            };
            let next = numbers.len() + 1;
            let number = *numbers.entry(secret.to_string()).or_insert(next);
            out.push_str(text.get(done..hit.range.start).unwrap_or_default());
            out.push_str("[REDACTED:");
            out.push_str(kind_of(hit.rank));
            out.push('#');
            out.push_str(&number.to_string());
            out.push(']');
            done = hit.range.end;
        }
        out.push_str(text.get(done..).unwrap_or_default());
        Cow::Owned(out)
    }

    /// Every hit, sorted, overlapping hits merged into one.
    fn hits(&self, text: &str) -> Vec<Hit> {
        let mut hits = Vec::new();
        for (rank, (_, regex)) in compiled_rules().iter().enumerate() {
            for captures in regex.captures_iter(text) {
                let found = captures.name("secret").or_else(|| captures.get(0));
                if let Some(found) = found.filter(|m| !m.is_empty()) {
                    hits.push(Hit {
                        range: found.range(),
                        rank,
                    });
                }
            }
        }
        if let Some(exact) = &self.inner.exact {
            let rank = compiled_rules().len();
            hits.extend(exact.find_iter(text).map(|found| Hit {
                range: found.range(),
                rank,
            }));
        }
        if hits.is_empty() {
            return hits;
        }
        let placeholders: Vec<Range<usize>> = placeholder_regex()
            .map(|regex| regex.find_iter(text).map(|m| m.range()).collect())
            .unwrap_or_default();
        hits.retain(|hit| {
            !placeholders
                .iter()
                .any(|p| p.start <= hit.range.start && hit.range.end <= p.end)
        });
        hits.sort_by(|a, b| {
            a.range
                .start
                .cmp(&b.range.start)
                .then(b.range.end.cmp(&a.range.end))
        });
        let mut merged: Vec<Hit> = Vec::with_capacity(hits.len());
        for hit in hits {
            match merged.last_mut() {
                Some(last) if hit.range.start < last.range.end => {
                    last.range.end = last.range.end.max(hit.range.end);
                    last.rank = last.rank.min(hit.rank);
                }
                _ => merged.push(hit),
            }
        }
        merged
    }
}

/// The placeholder kind for a rule index ([`EXACT_KIND`] past the rules).
fn kind_of(rank: usize) -> &'static str {
    compiled_rules()
        .get(rank)
        .map_or(EXACT_KIND, |(kind, _)| kind)
}

impl Default for Redactor {
    /// The built-in shapes only.
    fn default() -> Redactor {
        Redactor::new(Vec::new())
    }
}

impl fmt::Debug for Redactor {
    /// Never shows the values or the mapping.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("exact_values", &self.inner.exact.is_some())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        Redactor::default().redact(text).into_owned()
    }

    /// `secret` inside `context` is replaced by a placeholder of `kind`.
    #[track_caller]
    fn assert_redacted(kind: &str, secret: &str, context: &str) {
        let text = context.replace("{}", secret);
        let out = redact(&text);
        assert!(
            !out.contains(secret),
            "{kind}: {secret:?} leaked in {out:?}"
        );
        assert!(
            out.contains(&format!("[REDACTED:{kind}#1]")),
            "{kind}: {out:?}"
        );
    }

    #[track_caller]
    fn assert_untouched(text: &str) {
        assert_eq!(redact(text), text);
        assert!(matches!(Redactor::default().redact(text), Cow::Borrowed(_)));
    }

    #[test]
    fn every_rule_compiles() {
        assert_eq!(compiled_rules().len(), RULES.len());
        assert!(placeholder_regex().is_some());
    }

    #[test]
    fn aws() {
        assert_redacted("aws-access-key-id", "AKIAIOSFODNN7EXAMPLE", "id {} here");
        assert_untouched("AKIAIOSFODNN7EXAMPLEX and akiaiosfodnn7example");
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        assert_redacted(
            "aws-secret-access-key",
            secret,
            "aws_secret_access_key = {}",
        );
        assert_redacted("aws-secret-access-key", secret, "AWS_SECRET_ACCESS_KEY={}");
        let out = redact(&format!("aws_secret_access_key = {secret}"));
        assert!(
            out.starts_with("aws_secret_access_key = [REDACTED:"),
            "{out}"
        );
        assert_untouched("aws_region = us-east-1");
    }

    #[test]
    fn github() {
        let token = format!("ghp_{}", "a1B2".repeat(9));
        assert_redacted("github-token", &token, "token {}");
        assert_redacted("github-token", &format!("gho_{}", "x".repeat(36)), "{}");
        assert_untouched("ghp_tooshort and ghx_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        assert_redacted(
            "github-pat",
            &format!("github_pat_{}", "A1_b".repeat(10)),
            "pat: {}",
        );
        assert_untouched("github_pat_short");
    }

    #[test]
    fn gitlab() {
        assert_redacted("gitlab-token", "glpat-abcdefghij0123456789", "{}");
        assert_untouched("glpat-short");
    }

    #[test]
    fn openai() {
        assert_redacted(
            "openai-key",
            &format!("sk-proj-{}", "Ab1_-".repeat(8)),
            "key {}",
        );
        assert_redacted(
            "openai-key",
            &format!("sk-{}T3BlbkFJ{}", "a".repeat(20), "B".repeat(20)),
            "{}",
        );
        assert_untouched("sk-proj-short and sk-learn is a library");
    }

    #[test]
    fn anthropic() {
        assert_redacted(
            "anthropic-key",
            &format!("sk-ant-api03-{}", "x".repeat(90)),
            "{}",
        );
        assert_untouched("sk-ant-api03-short");
    }

    #[test]
    fn google() {
        assert_redacted(
            "google-api-key",
            &format!("AIza{}", "Sy0_-".repeat(7)),
            "k={}",
        );
        assert_untouched("AIzaShort");
    }

    #[test]
    fn slack() {
        assert_redacted("slack-token", "xoxb-1234567890-abcdef", "{}");
        assert_untouched("xoxq-1234567890 and xoxb-123");
        assert_redacted(
            "slack-webhook",
            "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
            "post to {} now",
        );
        assert_redacted(
            "slack-webhook",
            "hooks.slack.com/services/T000/B000/XXXXXXXX",
            "{}",
        );
        assert_untouched("https://api.slack.com/docs");
    }

    #[test]
    fn stripe() {
        assert_redacted(
            "stripe-key",
            &format!("sk_live_{}", "4eC39HqLyjWDarjtT1zdp7dc"),
            "{}",
        );
        assert_redacted("stripe-key", &format!("rk_test_{}", "a".repeat(24)), "{}");
        assert_untouched("sk_live_short and pk_live_aaaaaaaaaaaaaaaaaaaaaaaa");
    }

    #[test]
    fn huggingface_npm_pypi() {
        assert_redacted("huggingface-token", &format!("hf_{}", "a".repeat(34)), "{}");
        assert_untouched("hf_short");
        assert_redacted("npm-token", &format!("npm_{}", "b".repeat(36)), "{}");
        assert_untouched("npm_install and npm_aaaa");
        assert_redacted("pypi-token", &format!("pypi-{}", "c".repeat(60)), "{}");
        assert_untouched("pypi-project-name");
    }

    #[test]
    fn jwt() {
        assert_redacted(
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "token {}",
        );
        assert_untouched("eyJhbGciOiJIUzI1NiJ9 alone");
    }

    #[test]
    fn private_key_blocks() {
        let block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nBBBB==\n-----END OPENSSH PRIVATE KEY-----";
        let out = redact(&format!("before\n{block}\nafter"));
        assert_eq!(out, "before\n[REDACTED:private-key#1]\nafter");
        // A key cut off by truncation is still scrubbed.
        let torn = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc";
        assert_eq!(redact(torn), "[REDACTED:private-key#1]");
        assert_untouched("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----");
    }

    #[test]
    fn auth_headers_keep_the_header_name() {
        assert_eq!(
            redact("Authorization: Basic dXNlcjpwYXNz\nnext"),
            "Authorization: [REDACTED:auth-header#1]\nnext"
        );
        assert_eq!(
            redact("curl -H 'X-Api-Key: abc123'"),
            "curl -H 'X-Api-Key: [REDACTED:auth-header#1]"
        );
        assert_untouched("authorization required; cookie jar");
        assert_eq!(
            redact("use bearer abcdef.ghijk"),
            "use bearer [REDACTED:bearer-token#1]"
        );
        assert_untouched("the bearer of bad news");
    }

    #[test]
    fn url_credentials_keep_scheme_and_user() {
        assert_eq!(
            redact("postgres://admin:hunter2@db.local:5432/app"),
            "postgres://admin:[REDACTED:url-password#1]@db.local:5432/app"
        );
        assert_untouched("https://example.com:8080/path and ssh://git@host/x");
    }

    #[test]
    fn generic_assignments_redact_only_the_value() {
        assert_eq!(
            redact("api_key=abcd1234efgh"),
            "api_key=[REDACTED:secret-assignment#1]"
        );
        assert_eq!(
            redact(r#"{"password": "correct horse", "db_password": "s3cr3tpass"}"#),
            r#"{"password": "correct horse", "db_password": "[REDACTED:secret-assignment#1]"}"#
        );
        assert_eq!(
            redact("DJANGO_SECRET_KEY: 'x9y8z7w6v5'"),
            "DJANGO_SECRET_KEY: '[REDACTED:secret-assignment#1]'"
        );
        assert_untouched("password: short; the token count is 12");
        assert_untouched("secret_value=abcdefghijk");
    }

    #[test]
    fn exact_values() {
        let redactor = Redactor::from_env([
            ("FAKE_API_KEY".to_string(), "canary-7f3a9c".to_string()),
            ("HOME".to_string(), "/home/someone".to_string()),
            ("SHORT_TOKEN".to_string(), "abc".to_string()),
        ]);
        assert_eq!(
            redactor.redact("got canary-7f3a9c from /home/someone, abc"),
            "got [REDACTED:secret-value#1] from /home/someone, abc"
        );
        assert!(matches!(redactor.redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(
            Redactor::new(vec!["abcdefgh".into(), "abcdefghij".into()]).redact("abcdefghij"),
            "[REDACTED:secret-value#1]"
        );
    }

    #[test]
    fn numbering_is_stable_per_secret() {
        let a = format!("ghp_{}", "a".repeat(36));
        let b = format!("ghp_{}", "b".repeat(36));
        let redactor = Redactor::default();
        let text = format!("{a} {b} {a}");
        let out = redactor.redact(&text);
        assert_eq!(
            out,
            "[REDACTED:github-token#1] [REDACTED:github-token#2] [REDACTED:github-token#1]"
        );
        // Later calls and clones keep the numbers; a new secret gets the next.
        let clone = redactor.clone();
        assert_eq!(clone.redact(&b), "[REDACTED:github-token#2]");
        assert_eq!(
            clone.redact("aws AKIAIOSFODNN7EXAMPLE"),
            "aws [REDACTED:aws-access-key-id#3]"
        );
        // A fresh redactor starts over.
        assert_eq!(Redactor::default().redact(&b), "[REDACTED:github-token#1]");
        assert!(!format!("{redactor:?}").contains("aaaa"));
    }

    #[test]
    fn overlapping_hits_merge_and_placeholders_stay() {
        let token = format!("ghp_{}", "z".repeat(36));
        let out = redact(&format!("Authorization: Bearer {token}"));
        // The whole header value goes; the most specific shape names it.
        assert_eq!(out, "Authorization: [REDACTED:github-token#1]");
        let out = redact(&format!("GITHUB_TOKEN={token}"));
        assert_eq!(out, "GITHUB_TOKEN=[REDACTED:github-token#1]");
        let once = redact(&format!("password = {token}, api_key=abcdefghijkl"));
        assert_eq!(redact(&once), once);
    }

    #[test]
    fn odd_inputs_never_panic() {
        assert_untouched("");
        assert_untouched("\\xff\\xfe \u{fffd}\u{0}\u{10ffff} ünïcödé 🔑 key=");
        redact("-----BEGIN PRIVATE KEY-----");
        redact("password=password=password=password=password=");
        redact("https://a:b@c:d@e:f@g");
        redact(&"eyJ".repeat(10_000));
        redact(&"-----BEGIN PRIVATE KEY-----".repeat(1_000));
        let big = "a".repeat(1 << 20);
        let start = std::time::Instant::now();
        assert_untouched(&big);
        let mixed = format!("token=ghp_{} ", "q".repeat(36)).repeat(20_000);
        assert!(!redact(&mixed).contains("ghp_"));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "redaction of 2 MB took {:?}",
            start.elapsed()
        );
    }
}
