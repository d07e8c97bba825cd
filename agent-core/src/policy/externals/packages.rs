//! Package managers and build tools: apt, dpkg, pip, npm, cargo, go, docker, kubectl, make.

use super::Grammar;

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    let _ = name;
    None
}
