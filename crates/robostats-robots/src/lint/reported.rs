//! What Google's reporting parser (`RobotsParsingReporter`, in
//! `reporting_robots.cc`) says of a line: its tag (`RobotsTagName`).
//! `robostats lint` prints it beside its own, richer diagnosis.

use crate::lex::{Key, Line};
use crate::parse::known_elsewhere;

/// The tag Google's reporter gives a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportedTag {
    /// `kUserAgent`.
    UserAgent,
    /// `kAllow`.
    Allow,
    /// `kDisallow`.
    Disallow,
    /// `kSitemap`.
    Sitemap,
    /// `kUnused`: a key Google recognises as other crawlers' and does not
    /// use (its `kUnsupportedTags`, [`KNOWN_ELSEWHERE`](crate::KNOWN_ELSEWHERE)).
    Unused,
    /// `kUnknown`: any other key, and a line without a directive (blank,
    /// a comment, text without a key), which the reporter leaves at this,
    /// its default, flagging it in the line's metadata.
    Unknown,
}

impl ReportedTag {
    /// The tag of `line`.
    pub fn of(line: &Line<'_>) -> ReportedTag {
        match line.key {
            Some(Key::UserAgent) => ReportedTag::UserAgent,
            Some(Key::Allow) => ReportedTag::Allow,
            Some(Key::Disallow) => ReportedTag::Disallow,
            Some(Key::Sitemap) => ReportedTag::Sitemap,
            Some(Key::Unknown) if known_elsewhere(line.key_text).is_some() => ReportedTag::Unused,
            Some(Key::Unknown) | None => ReportedTag::Unknown,
        }
    }

    /// The tag in lower case: `user-agent`, `allow`, `disallow`,
    /// `sitemap`, `unused` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportedTag::UserAgent => "user-agent",
            ReportedTag::Allow => "allow",
            ReportedTag::Disallow => "disallow",
            ReportedTag::Sitemap => "sitemap",
            ReportedTag::Unused => "unused",
            ReportedTag::Unknown => "unknown",
        }
    }

    /// The tag as Google's `RobotsTagName` spells it, without its `k`:
    /// `UserAgent`, `Allow`, `Disallow`, `Sitemap`, `Unused`, `Unknown`.
    pub fn google_name(self) -> &'static str {
        match self {
            ReportedTag::UserAgent => "UserAgent",
            ReportedTag::Allow => "Allow",
            ReportedTag::Disallow => "Disallow",
            ReportedTag::Sitemap => "Sitemap",
            ReportedTag::Unused => "Unused",
            ReportedTag::Unknown => "Unknown",
        }
    }
}
