//! Red-team forms of the git family (see `agent-core/src/policy/externals/git.rs`).

use crate::redteam::Case;

/// Ids `rt-git-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
