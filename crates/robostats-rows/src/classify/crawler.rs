//! A crawler as a caller names it, and whose answer its verdict is: the
//! one rule every entry point follows (`robostats check`, `judge`, the
//! Python package's `RobotsTxt`, `can_fetch_many` and DuckDB's
//! `robots_can_fetch`).
//!
//! - **The verdict is Google's documented behaviour by default**
//!   ([`Policy::Google`]): its special-case crawlers (AdsBot-Google and
//!   the others of [`GLOBAL_GROUP_IGNORED_BY`]) ignore the `*` group, as
//!   the tables judge them. [`Policy::Library`] is the answer of Google's
//!   C++ library (`AllowedByRobots`), which knows no such exception.
//! - **A crawler is named by its product token** (`GPTBot`), never by a
//!   whole User-Agent header (`Mozilla/5.0 (compatible; GPTBot/1.2;
//!   +https://openai.com/gptbot)`): Google's matcher compares the caller's
//!   agent whole with each group's product token, so a header matches no
//!   named group and would silently get the `*` group's answer. Under the
//!   default policy anything that is not a product token (`[A-Za-z_-]+`),
//!   or `*` (any crawler no group names, as the tables' `*` rows), is
//!   refused, and the refusal names the token to pass where the text
//!   holds one ([`crawler_token`]); the library policy answers for any
//!   text exactly as Google's library does ([`Policy::crawler`]).

use super::agents::{AgentList, GLOBAL_GROUP_IGNORED_BY, policy_rules};
use crate::robots::{AgentRules, RobotsTxt, is_valid_user_agent_to_obey, product_token};

/// Whose answer a verdict is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Policy {
    /// Google's crawlers as Google documents them: the special-case
    /// crawlers ignore the `*` group (only a group naming them restricts
    /// them). The tables' answer, and the default.
    #[default]
    Google,
    /// Google's C++ library (`AllowedByRobots`, `OneAgentAllowedByRobots`):
    /// every crawler no group names obeys the `*` group.
    Library,
}

impl Policy {
    /// Every policy, the default first.
    pub const ALL: [Policy; 2] = [Policy::Google, Policy::Library];

    /// Its name, as the command's flag, Python and SQL take it.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Google => "google",
            Policy::Library => "library",
        }
    }

    /// The policy named `name` (any case), or why not.
    pub fn parse(name: &str) -> Result<Policy, String> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                format!(
                    "'{name}' is not a policy: 'google' (Google's crawlers as Google documents \
                     them: AdsBot-Google and the other special-case crawlers ignore the * \
                     group; the default) or 'library' (Google's C++ library, which has no \
                     such exception)"
                )
            })
    }

    /// `agent` as this policy takes a crawler: under [`Policy::Google`], a
    /// product token or refused ([`crawler_token`]); under
    /// [`Policy::Library`], any text, compared whole, as Google's library
    /// compares it.
    pub fn crawler(self, agent: &str) -> Result<&str, String> {
        match self {
            Policy::Google => crawler_token(agent),
            Policy::Library => Ok(agent),
        }
    }

    /// The rules `token` is judged by.
    pub fn rules<'r, 'a>(self, robots: &'r RobotsTxt<'a>, token: &str) -> AgentRules<'r, 'a> {
        match self {
            Policy::Google => policy_rules(robots, token).unwrap_or_else(|| robots.agent(token)),
            Policy::Library => robots.agent(token),
        }
    }
}

/// `agent`, when it is a crawler's product token (`[A-Za-z_-]+`), or `*`
/// (a crawler no group names: the `*` group's answer, as the tables' `*`
/// rows give it); else why it cannot name a crawler, naming the token to
/// pass where `agent` holds one (a User-Agent header from a log:
/// `Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)`
/// gives `GPTBot`).
pub fn crawler_token(agent: &str) -> Result<&str, String> {
    if agent == "*" || is_valid_user_agent_to_obey(agent.as_bytes()) {
        return Ok(agent);
    }
    let shown: String = agent
        .chars()
        .take(120)
        .flat_map(char::escape_debug)
        .collect();
    let what = match suggested_token(agent) {
        Some(token) => format!("pass its product token, '{token}'"),
        None => "pass the crawler's product token, such as 'GPTBot' (or '*' for any crawler \
                 no group names)"
            .to_owned(),
    };
    Err(format!(
        "agent '{shown}' is not a product token ([A-Za-z_-]+); Google compares it whole, so no \
         named group could apply to it: {what}"
    ))
}

/// Words of a User-Agent header that name a browser engine, a platform or
/// nothing, never the crawler (compared in any case).
const NOT_A_CRAWLER: &[&str] = &[
    "mozilla",
    "compatible",
    "applewebkit",
    "khtml",
    "like",
    "gecko",
    "chrome",
    "chromium",
    "safari",
    "firefox",
    "version",
    "mobile",
    "build",
    "edg",
    "windows",
    "linux",
    "android",
    "macintosh",
    "intel",
    "iphone",
    "cpu",
    "os",
    "x",
    "u",
    "nt",
    "en",
    "http",
    "https",
    "www",
    "com",
];

/// The crawler's product token in `agent`, a User-Agent header (or a token
/// with a version, `Bingbot/2.0`): a crawler the default list knows, else
/// the first `Name/version` product that names no browser or platform.
fn suggested_token(agent: &str) -> Option<&str> {
    let known = AgentList::default_list();
    let words: Vec<(&str, bool)> = agent
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '.')))
        .filter(|w| !w.is_empty())
        .map(|w| {
            let name = std::str::from_utf8(product_token(w.as_bytes())).unwrap_or_default();
            (name, w[name.len()..].starts_with('/'))
        })
        .filter(|(name, _)| {
            !name.is_empty() && !NOT_A_CRAWLER.iter().any(|n| n.eq_ignore_ascii_case(name))
        })
        .collect();
    let is_known = |name: &str| {
        known
            .agents
            .iter()
            .any(|a| a.token.eq_ignore_ascii_case(name))
            || GLOBAL_GROUP_IGNORED_BY
                .iter()
                .any(|t| t.eq_ignore_ascii_case(name))
    };
    words
        .iter()
        .find(|(name, _)| is_known(name))
        .or_else(|| words.iter().find(|(_, versioned)| *versioned))
        .map(|(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_refused_naming_the_token_to_pass() {
        for (agent, token) in [
            (
                "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)",
                "GPTBot",
            ),
            (
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; \
                 +claudebot@anthropic.com)",
                "ClaudeBot",
            ),
            (
                "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 \
                 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 (compatible; \
                 Googlebot/2.1; +http://www.google.com/bot.html)",
                "Googlebot",
            ),
            (
                "AdsBot-Google (+http://www.google.com/adsbot.html)",
                "AdsBot-Google",
            ),
            ("Bingbot/2.0", "Bingbot"),
            ("SomeNewBot/0.1 (+https://example.com/bot)", "SomeNewBot"),
        ] {
            let message = crawler_token(agent).unwrap_err();
            assert!(
                message.contains(&format!("pass its product token, '{token}'")),
                "{agent}: {message}"
            );
        }
        for agent in ["", " *", "Foo Bar", "ÄBot", "curl/8.5.0 (x86_64)\u{1b}[31m"] {
            let message = crawler_token(agent).unwrap_err();
            assert!(message.contains("not a product token"), "{message}");
            assert!(!message.contains('\u{1b}'), "{message}");
        }
        assert_eq!(crawler_token("GPTBot"), Ok("GPTBot"));
        // The tables' `*`: a crawler no group names.
        assert_eq!(crawler_token("*"), Ok("*"));
        assert_eq!(crawler_token("adsbot-google"), Ok("adsbot-google"));
    }

    #[test]
    fn adsbot_ignores_the_global_group_unless_the_library_is_asked() {
        let robots = RobotsTxt::parse(b"User-agent: *\nDisallow: /\n");
        for token in ["AdsBot-Google", "mediapartners-google"] {
            assert!(Policy::Google.rules(&robots, token).allowed("/x"));
            assert!(!Policy::Library.rules(&robots, token).allowed("/x"));
        }
        assert!(!Policy::Google.rules(&robots, "GPTBot").allowed("/x"));
        // A group naming it restricts it either way.
        let named = RobotsTxt::parse(b"User-agent: AdsBot-Google\nDisallow: /x\n");
        assert!(!Policy::Google.rules(&named, "AdsBot-Google").allowed("/x"));
        assert_eq!(Policy::parse("LIBRARY"), Ok(Policy::Library));
        // The library answers for any text, as Google's does.
        assert_eq!(Policy::Library.crawler("Foo Bar"), Ok("Foo Bar"));
        assert!(Policy::Google.crawler("Foo Bar").is_err());
        assert!(Policy::parse("rfc").unwrap_err().contains("'google'"));
    }
}
