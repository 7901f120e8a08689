//! The crawlers of interest: the agents every capture is evaluated for.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::robots::{AgentRules, RobotsTxt, is_valid_user_agent_to_obey};
use crate::table::columns;

/// The embedded default list (`data/agents.tsv`; its README gives the
/// origin of every row).
pub const DEFAULT_AGENTS_TSV: &str = include_str!("../../data/agents.tsv");

/// One crawler of interest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    /// The product token Google's matcher compares (`GPTBot`).
    pub token: String,
    /// Who runs it.
    pub operator: String,
    /// `search`, `ads`, `seo`, `archive`, `ai`, or what a user's file says.
    pub category: String,
    /// What it is for.
    pub purpose: String,
    /// It ignores the `*` group: only a group that names it restricts it
    /// ([`ignores_global_group`]).
    pub ignores_global_group: bool,
}

/// The product tokens of the crawlers that ignore the `*` group, as
/// Google's list of its special-case crawlers documents them
/// (developers.google.com/search/docs/crawling-indexing/google-special-case-crawlers:
/// "The global user agent (*) is ignored" for each; Google's robots.txt
/// introduction: `User-agent: *` with `Disallow: /` blocks every crawler
/// "except the AdsBot crawlers, which must be named explicitly"). Compared
/// ASCII case-insensitively, as Google compares tokens.
pub const GLOBAL_GROUP_IGNORED_BY: &[&str] = &[
    "AdsBot-Google",
    "AdsBot-Google-Mobile",
    "Mediapartners-Google",
    "APIs-Google",
];

/// Whether the crawler `token` ignores the `*` group (Google's
/// special-case crawlers: [`GLOBAL_GROUP_IGNORED_BY`]). Such a crawler is
/// restricted only by groups that name it; with none, it may fetch
/// everything, whatever the `*` group says. Google's matcher (and
/// `robostats check`) does not know this: it is the crawler's policy, not
/// the parser's.
pub fn ignores_global_group(token: &str) -> bool {
    GLOBAL_GROUP_IGNORED_BY
        .iter()
        .any(|t| t.eq_ignore_ascii_case(token))
}

/// The groups the crawler `token` follows by its own policy where that
/// differs from Google's matcher: for a crawler that ignores the `*` group
/// and that no group names, only what is written for the whole file
/// ([`RobotsTxt::ungrouped_agent`]); `None` when the matcher's groups are
/// its policy. Its AI-use preferences are read from these (as
/// `agent_verdicts` and `robostats check --explain` read them).
pub fn policy_rules<'r, 'a>(robots: &'r RobotsTxt<'a>, token: &str) -> Option<AgentRules<'r, 'a>> {
    (ignores_global_group(token) && !robots.names_agent(token)).then(|| robots.ungrouped_agent())
}

/// A list of agents and its version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentList {
    /// The agents, in the list's order, without duplicates (compared
    /// ASCII case-insensitively, as Google compares them).
    pub agents: Vec<Agent>,
    /// `sha256:<hex>` of the bytes the list was read from (all of them, in
    /// order, when a list was extended).
    pub version: String,
}

/// A list that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentListError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for AgentListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AgentListError {}

impl AgentList {
    /// The embedded default list.
    pub fn default_list() -> AgentList {
        AgentList::parse(DEFAULT_AGENTS_TSV).expect("the embedded agent list is valid")
    }

    /// Reads a list: one agent a line, either a bare token or
    /// `token<TAB>operator<TAB>category<TAB>purpose` (trailing columns
    /// optional). Blank lines and lines starting with `#` are skipped, and
    /// so is a first line whose first column is `token` (a header). A token
    /// must be a product token (`[A-Za-z_-]+`): Google's matcher compares
    /// the caller's agent whole with the `[A-Za-z_-]` prefix of each
    /// `User-agent:` value, so it can apply a named group to nothing else
    /// (`MJ12bot` in a file is the token `MJ`).
    pub fn parse(text: &str) -> Result<AgentList, AgentListError> {
        let mut list = AgentList {
            agents: Vec::new(),
            version: String::new(),
        };
        list.extend(text)?;
        Ok(list)
    }

    /// Adds the agents of another list (same format) after these ones.
    pub fn extend(&mut self, text: &str) -> Result<(), AgentListError> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cols = line.split('\t').map(str::trim);
            let token = cols.next().unwrap_or_default();
            if i == 0 && token.eq_ignore_ascii_case("token") {
                continue;
            }
            if !is_valid_user_agent_to_obey(token.as_bytes()) {
                return Err(AgentListError {
                    line: i + 1,
                    message: format!(
                        "'{token}' is not a product token ([A-Za-z_-]+): Google's matcher \
                         could never apply a named group to it"
                    ),
                });
            }
            if self
                .agents
                .iter()
                .any(|a| a.token.eq_ignore_ascii_case(token))
            {
                continue;
            }
            let mut next = || cols.next().unwrap_or_default().to_owned();
            self.agents.push(Agent {
                token: token.to_owned(),
                operator: next(),
                category: next(),
                purpose: next(),
                ignores_global_group: ignores_global_group(token),
            });
        }
        let mut hasher = Sha256::new();
        hasher.update(self.version.as_bytes());
        hasher.update(text.as_bytes());
        let mut version = String::from("sha256:");
        for b in hasher.finalize() {
            let _ = write!(version, "{b:02x}");
        }
        self.version = version;
        Ok(())
    }
}

columns! {
    /// `agents`: the crawlers of interest a data set was judged for, one row
    /// per crawler in the list's order, then `*` (a crawler no group names).
    /// Written once per data set; `agent_verdicts` (a view) joins it with
    /// `captures` and `named_verdicts`.
    #[derive(Clone, Debug, PartialEq)]
    pub struct AgentRow<'a> {
        /// the crawler's product token (agent_verdicts.agent); * last
        pub token: &'a str,
        /// who runs the crawler (empty for *)
        pub operator: &'a str,
        /// search, ads, seo, archive, ai (from the list); global for *
        pub category: &'a str,
        /// what the crawler is for
        pub purpose: &'a str,
        /// the crawler ignores the * group: only a group naming it restricts it
        /// (Google's special-case crawlers, such as AdsBot-Google)
        pub ignores_global_group: bool,
        /// position in the list, from 1 (* is last)
        pub position: u32,
        /// the list's version: sha256 of the bytes it was read from (of the
        /// previous version and the added bytes, for an extended list)
        pub list_version: &'a str as dict,
    }
}

/// The token, category and operator of `*` in `agents` and `agent_verdicts`.
pub const GLOBAL_AGENT: (&str, &str, &str) = ("*", "global", "");

impl AgentList {
    /// The rows of the `agents` table: the list, then `*`.
    pub fn rows(&self) -> Vec<AgentRow<'_>> {
        let (token, category, operator) = GLOBAL_AGENT;
        let mut rows: Vec<AgentRow<'_>> = self
            .agents
            .iter()
            .map(|a| AgentRow {
                token: &a.token,
                operator: &a.operator,
                category: &a.category,
                purpose: &a.purpose,
                ignores_global_group: a.ignores_global_group,
                position: 0,
                list_version: &self.version,
            })
            .collect();
        rows.push(AgentRow {
            token,
            operator,
            category,
            purpose: "any crawler that no group names: the * group's verdict",
            ignores_global_group: false,
            position: 0,
            list_version: &self.version,
        });
        for (i, row) in rows.iter_mut().enumerate() {
            row.position = i as u32 + 1;
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_list_is_valid_and_has_the_studies_agents() {
        let list = AgentList::default_list();
        for token in [
            "Googlebot",
            "GPTBot",
            "CCBot",
            "ClaudeBot",
            "Google-Extended",
            "Bytespider",
        ] {
            assert!(list.agents.iter().any(|a| a.token == token), "{token}");
        }
        assert_eq!(list.agents.len(), 45);
        assert!(list.version.starts_with("sha256:") && list.version.len() == 71);
        let special: Vec<_> = list
            .agents
            .iter()
            .filter(|a| a.ignores_global_group)
            .map(|a| a.token.as_str())
            .collect();
        assert_eq!(special, ["AdsBot-Google", "Mediapartners-Google"]);
        let rows = list.rows();
        assert_eq!(rows.len(), 46);
        assert_eq!((rows[45].token, rows[45].position), ("*", 46));
    }

    #[test]
    fn user_lists_bare_or_tsv_and_extensions() {
        let mut list =
            AgentList::parse("# mine\nFooBot\nBarBot\tBar Inc\tai\ttraining\nfoobot\n").unwrap();
        assert_eq!(list.agents.len(), 2);
        assert_eq!(list.agents[1].category, "ai");
        let v = list.version.clone();
        list.extend("BazBot\n").unwrap();
        assert_eq!(list.agents.len(), 3);
        assert_ne!(list.version, v);
        let err = AgentList::parse("FooBot\nAI2Bot\n").unwrap_err();
        assert_eq!(err.line, 2);
    }
}
