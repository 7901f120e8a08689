//! Why an object could not be read: the error a transfer ends with, its
//! words, and the class the run's breaker counts.

use reqwest::StatusCode;

/// Why an object could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchError {
    /// The server's last answer, after the retries (or at once, for an
    /// answer not worth retrying).
    Status {
        /// The HTTP status.
        status: u16,
        /// S3's error code (`AccessDenied`, `SlowDown`...), if any.
        code: Option<String>,
        /// Retries made.
        retries: u32,
    },
    /// No answer (connection refused or reset, timeout, body cut short),
    /// after the retries.
    Transport {
        /// What happened last.
        what: String,
        /// Retries made.
        retries: u32,
    },
    /// The object changed between two requests of one transfer.
    Changed {
        /// What told.
        how: String,
    },
    /// A broken transfer that cannot be resumed safely.
    Unresumable(String),
    /// The URL cannot be read by this client (or S3 is not set up).
    Setup(String),
    /// The reader went away (the run is stopping).
    Cancelled,
    /// Not read: the run stopped early, because its inputs kept failing
    /// the same way (the reason).
    Stopped(String),
}

/// How the reason of an input the stopped run did not read begins.
pub const STOPPED: &str = "not read: the run stopped";

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tries = |retries: &u32| match retries {
            0 => String::new(),
            1 => ", after 1 retry".to_owned(),
            n => format!(", after {n} retries"),
        };
        match self {
            FetchError::Status {
                status,
                code,
                retries,
            } => {
                let reason = StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("");
                write!(f, "HTTP {status} {reason}")?;
                if let Some(code) = code {
                    write!(f, " ({code})")?;
                }
                write!(f, "{}", tries(retries))
            }
            FetchError::Transport { what, retries } => write!(f, "{what}{}", tries(retries)),
            FetchError::Changed { how } => write!(
                f,
                "the object changed while it was read ({how}): the next run reads it again \
                 from the start"
            ),
            FetchError::Unresumable(why) => write!(f, "{why}"),
            FetchError::Setup(why) => write!(f, "{why}"),
            FetchError::Cancelled => f.write_str("the run stopped"),
            FetchError::Stopped(why) => write!(f, "{STOPPED} after {why}"),
        }
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// What kind of failure this is, for the run's breaker: the status,
    /// or the words of a transport failure without their figures.
    /// `None`: not a failure of the input (the run is stopping).
    pub(in crate::source::remote) fn class(&self) -> Option<String> {
        match self {
            FetchError::Status { status, code, .. } => {
                Some(format!("HTTP {status} {}", code.as_deref().unwrap_or("")))
            }
            FetchError::Transport { what, .. } => {
                Some(what.chars().filter(|c| !c.is_ascii_digit()).collect())
            }
            FetchError::Changed { .. } => Some("changed".to_owned()),
            FetchError::Unresumable(_) => Some("unresumable".to_owned()),
            FetchError::Setup(why) => Some(why.clone()),
            FetchError::Cancelled | FetchError::Stopped(_) => None,
        }
    }

    /// As an I/O error, for the reader.
    pub fn into_io(self) -> std::io::Error {
        let kind = match &self {
            FetchError::Status { status: 404, .. } | FetchError::Status { status: 410, .. } => {
                std::io::ErrorKind::NotFound
            }
            FetchError::Status {
                status: 401 | 403, ..
            } => std::io::ErrorKind::PermissionDenied,
            FetchError::Transport { .. } => std::io::ErrorKind::TimedOut,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, self)
    }
}
