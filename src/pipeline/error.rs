//! The run's error: what planning refuses ([`PlanError`]), what the output
//! directory could not do ([`OutputError`]), and what keeps a run from
//! starting ([`RunError`]).

use std::fmt;
use std::path::PathBuf;

use crate::output::dataset::OutputError;
use crate::source::remote::ClientError;

/// What a run's plan refuses: the inputs and options given do not add to
/// the data set's rows without mixing or losing some.
#[derive(Debug)]
pub enum PlanError {
    /// The output directory holds results made with other options: adding
    /// to them would mix rows made two ways.
    OtherOptions {
        /// The output directory.
        dir: PathBuf,
        /// How each option that differs differs, in words.
        differences: Vec<String>,
    },
    /// An input is done in the output directory from another file than
    /// the one listed now under its name.
    OtherInput {
        /// The output directory.
        dir: PathBuf,
        /// The input's name (`warc_filename`).
        name: String,
        /// The identity of the file it was read from.
        then: String,
        /// The identity of the file listed now.
        now: String,
    },
    /// An input to do again has rows compacted with other inputs' rows,
    /// which cannot be taken out.
    CannotRedo {
        /// The input's name.
        name: String,
        /// Why it is to be redone.
        why: String,
    },
    /// `--redo` names no input of the run.
    NotAnInput {
        /// The name given.
        name: String,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::OtherOptions { dir, differences } => {
                write!(
                    f,
                    "{} holds tables made with other options, and rows made two ways \
                     would mix:",
                    dir.display()
                )?;
                for difference in differences {
                    write!(f, "\n  - {difference}")?;
                }
                f.write_str(
                    "\nRun with the options of the earlier runs to add to it, or write to \
                     another --out directory.",
                )
            }
            PlanError::OtherInput {
                dir,
                name,
                then,
                now,
            } => write!(
                f,
                "'{name}' is done in {} from the file {then}, but is listed now as the file \
                 {now}: a data set holds one input per warc_filename. If it is the same file \
                 moved, it is done: leave it out of the inputs; else write to another --out \
                 directory",
                dir.display()
            ),
            PlanError::CannotRedo { name, why } => write!(
                f,
                "'{name}' cannot be done again ({why}): its rows were compacted together with \
                 other inputs' rows, and cannot be taken out. Ingest its inputs into a new --out \
                 directory"
            ),
            PlanError::NotAnInput { name } => write!(
                f,
                "--redo '{name}': no input of this run has that name (give it as listed, the \
                 warc_filename of its rows, and list the input too)"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// Why a run stopped before its inputs' own failures (which are rows of
/// the `errors` table or failed inputs, not this).
#[derive(Debug)]
pub enum RunError {
    /// The plan refused the run.
    Plan(PlanError),
    /// The output directory could not be read or written.
    Output(OutputError),
    /// The network client for URL inputs could not be made.
    Client(ClientError),
    /// The worker threads could not be started.
    Threads(String),
}

impl From<PlanError> for RunError {
    fn from(e: PlanError) -> RunError {
        RunError::Plan(e)
    }
}

impl From<OutputError> for RunError {
    fn from(e: OutputError) -> RunError {
        RunError::Output(e)
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Each wrapped error's message is the run's: its cause follows it
        // in the chain (`source`).
        match self {
            RunError::Plan(e) => e.fmt(f),
            RunError::Output(e) => e.fmt(f),
            RunError::Client(e) => e.fmt(f),
            RunError::Threads(why) => write!(f, "cannot start worker threads: {why}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Plan(_) | RunError::Threads(_) => None,
            RunError::Output(e) => e.source(),
            RunError::Client(e) => e.source(),
        }
    }
}
