//! The crawlers of interest: the agents every capture is evaluated for.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::robots::is_valid_user_agent_to_obey;

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
