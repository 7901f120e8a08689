//! `robostats check`: Google's verdict per agent and URL.

use crate::cli::ExitCode;
use std::io::{self, BufWriter, Write};

use crate::classify::agents::{ignores_global_group, policy_rules};
use crate::classify::crawler::{Policy, crawler_token};
use crate::robots::{AgentRules, Decision, GOOGLE_MAX_BYTES, GroupMatch, RobotsTxt, SignalScope};

use super::{FileArg, printable, read_body};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The robots.txt file (`-` reads standard input).
    robots_file: FileArg,
    /// A crawler's product token, e.g. `Googlebot` or `GPTBot`; each agent
    /// is judged on its own, as Google's `OneAgentAllowedByRobots` does. A
    /// whole User-Agent header is refused, naming the token to pass
    /// (`--policy library` takes any text, compared whole, with a warning).
    #[arg(long = "agent", short = 'a', value_name = "UA", required = true)]
    agents: Vec<String>,
    /// Whose answer: `google` (Google's crawlers as Google documents them:
    /// AdsBot-Google and the other special-case crawlers ignore the `*`
    /// group, as the tables judge them) or `library` (Google's C++
    /// library's `AllowedByRobots`, which has no such exception).
    #[arg(long, value_name = "POLICY", default_value = "google", value_parser = parse_policy)]
    policy: Policy,
    /// URLs to check, %-encoded as they would be requested (Google does
    /// not normalise them). A path such as `/private` works too.
    #[arg(required = true, value_name = "URL")]
    urls: Vec<String>,
    /// Add the group that applied, the deciding line and its rule, the
    /// AI-use preferences (Content-Usage, Content-Signal) that apply to the
    /// agent at the URL (for a file that has such lines), and, for a crawler that ignores the `*` group
    /// (Google's special-case crawlers, such as AdsBot-Google), its own
    /// policy's verdict when the `*` group decided; as eight
    /// tab-separated columns under a header line (`-`: nothing to say).
    #[arg(long)]
    explain: bool,
    /// Parse the whole file. By default content past 500 KiB is ignored,
    /// as Google's crawler does.
    #[arg(long)]
    no_size_limit: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let body = read_body(&args.robots_file)?;
    let limit = if args.no_size_limit {
        usize::MAX
    } else {
        GOOGLE_MAX_BYTES
    };
    let robots = RobotsTxt::parse_with_limit(&body, limit);
    for agent in &args.agents {
        args.policy.crawler(agent).map_err(anyhow::Error::msg)?;
    }
    warn_about_inputs(args);
    let mut out = BufWriter::new(io::stdout().lock());
    if args.explain {
        writeln!(out, "{EXPLAIN_HEADER}")?;
    }
    for agent in &args.agents {
        let rules = args.policy.rules(&robots, agent);
        // The preferences follow the crawler's policy, as agent_verdicts
        // does: a crawler that ignores the * group and that no group names
        // reads only what is written for the whole file.
        let policy = policy_rules(&robots, agent);
        for url in &args.urls {
            let decision = rules.decide(url);
            let verdict = if decision.allowed {
                "allowed"
            } else {
                "disallowed"
            };
            write!(out, "{verdict}\t{agent}\t{url}")?;
            if args.explain {
                let scope = policy.as_ref().unwrap_or(&rules);
                explain(&mut out, &robots, agent, url, &decision, scope)?;
            }
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The columns of `--explain`'s lines.
const EXPLAIN_HEADER: &str = "verdict\tagent\turl\tgroup\tline\trule\tpreferences\tnote";

/// `--policy`'s value.
fn parse_policy(name: &str) -> Result<Policy, String> {
    Policy::parse(name)
}

/// Warns about agents no named group can apply to (under `--policy
/// library`, which takes them, as Google's library does), and URLs that
/// rules written %-encoded never match.
fn warn_about_inputs(args: &Args) {
    for agent in &args.agents {
        if let Err(why) = crawler_token(agent) {
            eprintln!("robostats: warning: {why}");
        }
    }
    for url in &args.urls {
        if let Some(encoded) = encode(url) {
            eprintln!(
                "robostats: warning: URL '{url}' is not %-encoded (it has non-ASCII \
                 characters, spaces or control characters); Google compares bytes, so rules \
                 written %-encoded never match it: give it as '{encoded}'"
            );
        }
    }
}

/// The deciding group and rule of a verdict, the preferences that apply,
/// and the crawler's own policy where it differs from the matcher's.
fn explain(
    out: &mut impl Write,
    robots: &RobotsTxt<'_>,
    agent: &str,
    url: &str,
    decision: &Decision,
    rules: &AgentRules<'_, '_>,
) -> io::Result<()> {
    write!(out, "\t{}", decision.group.as_str())?;
    match decision.rule.map(|i| &robots.rules()[i]) {
        Some(rule) => {
            write!(
                out,
                "\tline {}\t{}: {}",
                rule.line,
                rule.kind.as_str(),
                printable(&rule.pattern)
            )?;
            if decision.via_index_htm {
                write!(out, " (index.htm rule: its directory)")?;
            }
        }
        None => write!(out, "\t-\tno matching rule")?,
    }
    if robots.preferences().is_empty() {
        write!(out, "\t-")?;
    } else {
        write!(out, "\t{}", preferences(rules, url))?;
    }
    // Where the two policies differ, a note says so: the library's verdict
    // under the default policy, the crawler's own under `--policy library`.
    let ignores = ignores_global_group(agent) && !robots.names_agent(agent);
    if ignores && decision.group == GroupMatch::Global {
        write!(
            out,
            "\tby its policy: allowed ({agent} ignores the * group, as Google \
                 documents for its special-case crawlers; no group names it, so \
                 nothing restricts it: the default policy and agent_verdicts judge it so)"
        )?;
    } else if ignores {
        let library = robots.agent(agent).decide(url).allowed;
        write!(
            out,
            "\tby its policy: {agent} ignores the * group, as Google documents for its \
                 special-case crawlers (Google's library, --policy library: {})",
            if library { "allowed" } else { "disallowed" }
        )?;
    } else {
        write!(out, "\t-")?;
    }
    Ok(())
}

/// The preferences that apply to the agent at `url`, for `--explain`:
/// `preferences: Content-Usage train-ai=n search=unknown (line 4);
/// Content-Signal search=y ai-train=n ai-input=unknown use=reference (line
/// 3, its groups)`; a directive no line of which applies is said so
/// (`no Content-Usage line applies`), not as values all unknown.
fn preferences(rules: &AgentRules<'_, '_>, url: &str) -> String {
    let Some(p) = rules.preferences(url) else {
        return "preferences: none apply (it may not fetch the URL, and AIPREF implies no \
                preference for what cannot be crawled)"
            .to_owned();
    };
    let usage = p.usage_line().map(|l| {
        format!(
            "Content-Usage train-ai={} search={} (line {l})",
            p.usage("train-ai").as_str(),
            p.usage("search").as_str(),
        )
    });
    let scope = match p.signal_scope {
        Some(SignalScope::Group) => ", its groups",
        Some(SignalScope::File) => ", before any user-agent: the whole file",
        None => "",
    };
    let signal = p.signal_line().map(|l| {
        format!(
            "Content-Signal search={} ai-train={} ai-input={} use={} (line {l}{scope})",
            p.signal("search").as_str(),
            p.signal("ai-train").as_str(),
            p.signal("ai-input").as_str(),
            p.signal_use().as_str(),
        )
    });
    match (usage, signal) {
        (None, None) => "preferences: no Content-Usage or Content-Signal line applies".to_owned(),
        (usage, signal) => format!(
            "preferences: {}; {}",
            usage.unwrap_or_else(|| "no Content-Usage line applies".to_owned()),
            signal.unwrap_or_else(|| "no Content-Signal line applies".to_owned()),
        ),
    }
}

/// The URL with its non-ASCII bytes, spaces and control characters
/// %-encoded (UTF-8), as a browser or crawler requests it; `None` when it
/// has none.
fn encode(url: &str) -> Option<String> {
    let needs = |b: u8| b >= 0x80 || b <= b' ' || b == 0x7f;
    if !url.bytes().any(needs) {
        return None;
    }
    let mut out = String::with_capacity(url.len() * 3);
    for b in url.bytes() {
        if needs(b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn urls_are_encoded_as_requested() {
        assert_eq!(encode("https://a.com/x?y=1%20"), None);
        assert_eq!(
            encode("https://a.com/café a").as_deref(),
            Some("https://a.com/caf%C3%A9%20a")
        );
        assert_eq!(encode("/tab\there").as_deref(), Some("/tab%09here"));
    }
}
