//! Red-team forms of the archives family (see `agent-core/src/policy/externals/archives.rs`).

use crate::redteam::Case;

/// Ids `rt-archives-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
