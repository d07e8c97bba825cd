//! Red-team forms of the text family (see `agent-core/src/policy/externals/text.rs`).

use crate::redteam::Case;

/// Ids `rt-text-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
