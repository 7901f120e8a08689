//! The manifest's record of the body store: which part files each attempt
//! at an input published for its bodies (`bodies` lines), and which
//! writers were found damaged and retired (`repair` lines).
//!
//! Body part files belong to no input (other inputs' captures lead to
//! their bodies), so the input lines do not list them; these lines do, so
//! that a run can tell a body file deleted by hand from one never written.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::PartEntry;

/// An attempt at an input published its body part files (written after
/// they are published and durable, before any other input may leave
/// those bodies out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodiesLine {
    /// The input's `warc_filename`.
    pub input: String,
    /// The input's identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The body part files, every table's (empty: none was needed).
    pub parts: Vec<PartEntry>,
    /// The repairs (their ids) whose bodies this attempt wrote: it read
    /// the input with the retired writers' bodies not stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// The input was read for its bodies only (its own rows stayed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bodies_only: bool,
    /// When, milliseconds since the Unix epoch.
    pub ended_ms: u64,
}

/// Writers whose body files were found gone: retired (their `bodies`
/// file deleted, so that no view reads their lines) and their bodies owed
/// by the inputs that wrote them, which a run reads again for them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepairLine {
    /// The repair's identity: a `bodies` line that lists it pays it for
    /// its input.
    pub id: String,
    /// The `bodies` part files of the writers retired, as recorded.
    pub retired: Vec<PathBuf>,
    /// Files found missing (a few), to say why.
    pub missing: Vec<PathBuf>,
    /// The inputs that wrote the retired writers' bodies.
    pub inputs: Vec<Owing>,
    /// Bodies the retired writers listed (some may be stored by another
    /// writer too).
    pub bodies: u64,
    /// When, milliseconds since the Unix epoch.
    pub unix_ms: u64,
}

/// An input that owes bodies, and how many its retired writers listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owing {
    /// The input.
    #[serde(flatten)]
    pub input: OwedInput,
    /// Bodies its retired writers listed.
    pub bodies: u64,
}

/// An input that owes bodies.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OwedInput {
    /// Its `warc_filename`.
    pub input: String,
    /// Its identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl OwedInput {
    /// The key the manifest knows the input by: its identity, else its
    /// name.
    pub fn key(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.input)
    }
}
