//! Red-team forms of the system family (see `agent-core/src/policy/externals/system.rs`).

use crate::redteam::Case;

/// Ids `rt-system-NN`.
#[rustfmt::skip]
pub const CASES: &[Case] = &[];
