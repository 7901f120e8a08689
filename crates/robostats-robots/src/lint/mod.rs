//! Lint: what is worth saying about each line of a robots.txt file, as
//! typed findings whose `Display` is for people (`robostats lint` prints
//! them). [`FileLint`] goes through a file's lines ([`LineFinding`]);
//! [`PreferenceLint`] reads its AI-use preference lines against its
//! groups and rules ([`PreferenceFinding`]; the lines' model and reading
//! are in [`crate::preference`]).
//!
//! The parts, each importing only those before it: `finding` (the typed
//! findings and their sentences), `scope` (whether a group's rules shut
//! a path scope), `preference` ([`PreferenceLint`]), `line`
//! ([`FileLint`]), `reported` (the tag Google's reporter gives a line,
//! [`ReportedTag`]); this module adds lint's questions to [`RobotsTxt`].

mod finding;
mod line;
mod preference;
mod reported;
mod scope;

pub use finding::{EmptyRule, LineFinding, PreferenceFinding};
pub use line::FileLint;
pub use preference::PreferenceLint;
pub use reported::ReportedTag;

use crate::parse::{RobotsTxt, UserAgent};
use crate::preference::Statement;
use preference::line_group;

impl<'a> RobotsTxt<'a> {
    /// The user-agent lines of the group a preference line stands in:
    /// its AIPREF group for `Content-Usage`, its Google group for
    /// `Content-Signal` (none before the first user-agent line).
    pub fn statement_agents(&self, s: &Statement<'_>) -> Vec<&UserAgent<'a>> {
        match line_group(s) {
            Some((true, g)) => self
                .user_agents()
                .iter()
                .zip(&self.aipref_groups.of_user_agent)
                .filter(|(_, of)| **of == g)
                .map(|(ua, _)| ua)
                .collect(),
            Some((false, g)) => self.user_agents()[self.groups()[g].user_agents.clone()]
                .iter()
                .collect(),
            None => Vec::new(),
        }
    }

    /// What is wrong with a preference line, for people: see
    /// [`PreferenceLint::findings`]. To diagnose every line of a file, keep
    /// one [`PreferenceLint`] instead: it finds each group's crawlers once.
    pub fn preference_findings(&self, s: &Statement<'_>) -> Vec<PreferenceFinding> {
        PreferenceLint::new(self).findings(s)
    }
}
