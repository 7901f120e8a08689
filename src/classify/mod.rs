//! Response and parse -> one row per table: pure functions, safe to call
//! from any worker thread.

pub mod agents;
pub mod typo;
