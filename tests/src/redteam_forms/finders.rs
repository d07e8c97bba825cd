//! Red-team forms of the finders family (see `agent-core/src/policy/externals/finders.rs`).

use crate::redteam::Case;

/// Ids `rt-finders-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
