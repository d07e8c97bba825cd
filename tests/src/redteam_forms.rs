//! The red-team corpus of external programs' forms, one file per program
//! family (as in `agent-core/src/policy/externals/`): forms that must stay
//! `allow` (read-only) and forms that write, delete or run code, which must
//! not be `allow`.

pub mod archives;
pub mod finders;
pub mod git;
pub mod packages;
pub mod system;
pub mod text;
pub mod text_second;
pub mod wrappers;

use crate::redteam::Case;

/// Every family's cases.
pub fn all() -> impl Iterator<Item = &'static Case> {
    [
        text::CASES,
        text_second::CASES,
        finders::CASES,
        archives::CASES,
        system::CASES,
        git::CASES,
        packages::CASES,
        wrappers::CASES,
    ]
    .into_iter()
    .flatten()
}
