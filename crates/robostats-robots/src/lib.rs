//! robots.txt parsing and matching, exactly as Google's reference library
//! (google/robotstxt) does it, on raw bytes: the engine of robostats, with
//! no I/O and no dependency on its tables.
//!
//! The stages, each in its own module:
//!
//! ```text
//! body --lex--> Lines (number, key, value, Google's line flags)
//!      --parse--> RobotsTxt (groups, user-agents, rules, sitemaps, other
//!                 directives, counts), borrowing from the body
//!      --agent--> AgentRules (the groups one agent obeys): Decision
//!                 (allowed?, which rule) per URL, no allocation; the class
//!                 of its rules (class); its AI-use preferences (preference)
//!      --lint---> what is wrong with its preference lines, for people
//!      --ruleset-> what it says to crawlers as one canonical text
//!                 (RobotsTxt::write_ruleset)
//! ```
//!
//! Each module imports only those before it in this list: `lex` (and
//! Google's product-token rules), `pattern`, `preference` (the lines'
//! model and dictionaries), `parse`, `agent`, `class`, `lint`, `ruleset`.
//!
//! Where Google's library and RFC 9309 differ, this crate follows Google
//! (robostats' `docs/robots-txt.md` lists the differences): rules are
//! %-escaped but URLs are
//! compared verbatim, keys are matched as case-insensitive prefixes with
//! Google's typos, a missing colon is accepted between exactly two tokens,
//! the caller's user agent is compared whole with each line's product
//! token, `/robots.txt` gets no special treatment, and there is no size
//! limit in the parser itself ([`GOOGLE_MAX_BYTES`] is crawler policy,
//! applied by [`RobotsTxt::parse_with_limit`]).
//!
//! ```
//! use robostats_robots::{GroupMatch, RobotsTxt};
//!
//! let body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n";
//! let robots = RobotsTxt::parse(body);
//! assert!(robots.allowed("Googlebot", "https://example.com/page"));
//! let gptbot = robots.agent("GPTBot");
//! assert_eq!(gptbot.group_match(), GroupMatch::Global);
//! assert!(!gptbot.allowed("https://example.com/page"));
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// Declares a field-less enum whose variants have stable names (the
/// values a table column holds): the enum, `ALL` (every value, in
/// declaration order), `LABELS` (their names, in the same order) and
/// `as_str`.
///
/// ```
/// robostats_robots::labels! {
///     /// Allow or disallow.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Kind {
///         /// An `allow` line.
///         Allow = "allow",
///         /// A `disallow` line.
///         Disallow = "disallow",
///     }
/// }
/// assert_eq!(Kind::Disallow.as_str(), "disallow");
/// assert_eq!(Kind::ALL, &[Kind::Allow, Kind::Disallow]);
/// ```
#[macro_export]
macro_rules! labels {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $doc:expr])* $variant:ident = $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order (a value's index is `v as usize`).
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Every value's name, in declaration order.
            pub const LABELS: &'static [&'static str] = &[$($label),+];

            /// The stable name.
            pub fn as_str(self) -> &'static str {
                Self::LABELS[self as usize]
            }
        }
    };
}

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod agent;
mod class;
mod index;
mod lex;
mod lint;
mod parse;
mod pattern;
pub mod preference;
pub mod reference;
mod ruleset;

pub use agent::{AgentRules, Decision, GroupMatch};
pub use class::RulesClass;
pub use index::IndexedRules;
pub use lex::{
    Key, Line, LineMetadata, Lines, MAX_LINE_BYTES, bom_len, is_global_agent,
    is_valid_user_agent_to_obey, product_token,
};
pub use lint::{EmptyRule, FileLint, LineFinding, PreferenceFinding, PreferenceLint, ReportedTag};
pub use parse::{
    Directive, GOOGLE_MAX_BYTES, Group, KNOWN_ELSEWHERE, RobotsTxt, Rule, RuleKind, Sitemap, Stats,
    UserAgent, cloudflare_marker, known_elsewhere,
};
pub use pattern::{PathRef, escape_pattern, matches, path_params_query};
pub use preference::{
    ParseStatus, PreferenceDirective, PreferenceValue, Preferences, SignalScope, Statement,
    UseLevel,
};
