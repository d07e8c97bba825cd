//! Finders: ls, find, fd, rg, tree, du, df, stat, file, which.

use super::Grammar;

/// The grammar of `name` when it belongs to this family.
pub(super) fn grammar(name: &str) -> Option<Grammar> {
    let _ = name;
    None
}
