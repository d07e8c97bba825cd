//! Red-team forms of the packages family (see `agent-core/src/policy/externals/packages.rs`).

use crate::redteam::Case;

/// Ids `rt-packages-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
