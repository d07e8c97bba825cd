//! Red-team forms of the wrappers family (see `agent-core/src/policy/externals/wrappers.rs`).

use crate::redteam::Case;

/// Ids `rt-wrappers-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
