//! AI-use preferences: every example of the AIPREF drafts and of
//! Cloudflare's documentation, and every scope case, through the library.

use robostats_robots::{ParseStatus, PreferenceValue, RobotsTxt, SignalScope, Statement, UseLevel};

use PreferenceValue::{No, Unknown, Yes};

/// `train-ai` under Content-Usage for `agent` at `path`; `None` where it
/// may not crawl.
fn train_ai(robots: &RobotsTxt<'_>, agent: &str, path: &str) -> Option<PreferenceValue> {
    robots
        .agent(agent)
        .preferences(path)
        .map(|p| p.usage("train-ai"))
}

/// The example of draft-ietf-aipref-attach §3.4, with the table it gives.
#[test]
fn attach_draft_example() {
    let body = b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n\
                 Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\n\
                 Content-Usage: train-ai=y\n";
    let robots = RobotsTxt::parse(body);
    for agent in ["OtherBot", "GPTBot"] {
        assert_eq!(train_ai(&robots, agent, "/test"), Some(No));
        assert_eq!(train_ai(&robots, agent, "/never/test"), None);
        assert_eq!(train_ai(&robots, agent, "/ai-ok/test"), Some(Yes));
    }
    // "A crawler that identifies as ExampleBot uses the second group."
    for path in ["/test", "/never/test", "/ai-ok/test"] {
        assert_eq!(train_ai(&robots, "ExampleBot", path), Some(Yes), "{path}");
    }
    let p = robots.agent("OtherBot").preferences("/ai-ok/test").unwrap();
    assert_eq!(p.usage_line(), Some(5));
    assert_eq!(p.usage("search"), Unknown);
}

/// Values seen deployed (research notes §1.1).
#[test]
fn deployed_content_usage_variants() {
    // An old vocab-01 label: kept, but says nothing about train-ai.
    let robots = RobotsTxt::parse(b"User-agent: *\nContent-Usage: ai=n\n");
    let s = &robots.preferences()[0];
    assert_eq!((s.members[0].label, s.preference("ai")), ("ai", No));
    assert_eq!(train_ai(&robots, "GPTBot", "/"), Some(Unknown));
    // Space-separated pairs: not a dictionary, so every preference is unknown.
    let robots = RobotsTxt::parse(b"User-agent: *\nContent-Usage: /restricted/ ai=n train-ai=n\n");
    let s = &robots.preferences()[0];
    assert_eq!(s.status, ParseStatus::Unparseable);
    assert_eq!(s.path, Some(&b"/restricted/"[..]));
    assert_eq!(train_ai(&robots, "GPTBot", "/restricted/x"), Some(Unknown));
    // Both current labels.
    let robots = RobotsTxt::parse(b"User-agent: *\nContent-Usage: search=y, train-ai=n\n");
    let p = robots.agent("GPTBot").preferences("/").unwrap();
    assert_eq!((p.usage("search"), p.usage("train-ai")), (Yes, No));
}

/// draft-ietf-aipref-vocab: duplicates (last wins), upper case (no parse),
/// and rules with identical paths (n wins, else y).
#[test]
fn vocabulary_rules() {
    let robots = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: /a/ train-ai=y\nContent-Usage: /a/ train-ai=n\n\
          Content-Usage: /b/ train-ai=y, train-ai\nContent-Usage: /c/ Train-AI=n\n\
          Content-Usage: /d/ train-ai=n, train-ai=y\nContent-Usage: /e/ search=y\n\
          Content-Usage: /e/ train-ai=y\n",
    );
    assert_eq!(train_ai(&robots, "x", "/a/1"), Some(No));
    assert_eq!(train_ai(&robots, "x", "/b/1"), Some(Unknown));
    assert_eq!(train_ai(&robots, "x", "/c/1"), Some(Unknown));
    assert_eq!(train_ai(&robots, "x", "/d/1"), Some(Yes));
    let p = robots.agent("x").preferences("/e/1").unwrap();
    assert_eq!((p.usage("search"), p.usage("train-ai")), (Yes, Yes));
    assert_eq!(p.usage.len(), 2);
    // Outside every rule's path: nothing said.
    assert_eq!(train_ai(&robots, "x", "/z"), Some(Unknown));
    // Longest path wins whatever the order; wildcards count their bytes.
    let robots = RobotsTxt::parse(
        b"User-agent: *\nContent-Usage: /docs/*.pdf$ train-ai=n\nContent-Usage: /docs/ train-ai=y\n",
    );
    assert_eq!(train_ai(&robots, "x", "/docs/a.pdf"), Some(No));
    assert_eq!(train_ai(&robots, "x", "/docs/a.html"), Some(Yes));
}

/// Cloudflare's documentation: the `Content-Signal` of the managed
/// robots.txt, in `User-agent: *` before `Allow: /` (2025), with `use`
/// (2026), inside the managed block put in front of the site's own file.
#[test]
fn cloudflare_managed_robots_txt() {
    let body = b"# BEGIN Cloudflare Managed content\n\nUser-Agent: *\n\
                 Content-signal: search=yes,ai-train=no,use=reference\nAllow: /\n\n\
                 User-agent: GPTBot\nDisallow: /\n\n# END Cloudflare Managed Content\n\n\
                 User-agent: *\nDisallow: /admin/\n\nUser-agent: Googlebot\nAllow: /\n\
                 Content-Signal: ai-train=yes\n";
    let robots = RobotsTxt::parse(body);
    assert_eq!(robots.stats().cloudflare_blocks, 1);
    let (block, own) = (&robots.preferences()[0], &robots.preferences()[1]);
    assert!(block.in_cloudflare_block && !own.in_cloudflare_block);
    // A crawler no group names: the * groups, merged; the block's signal.
    let p = robots.agent("Bingbot").preferences("/").unwrap();
    assert_eq!(p.signal("search"), Yes);
    assert_eq!(p.signal("ai-train"), No);
    assert_eq!(p.signal("ai-input"), Unknown);
    assert_eq!(p.signal_use(), UseLevel::Reference);
    assert_eq!(
        (p.signal_line(), p.signal_scope),
        (Some(4), Some(SignalScope::Group))
    );
    // Disallowed: no preference applies; the * group's signal is still
    // what the file writes for it.
    assert!(robots.agent("GPTBot").preferences("/").is_none());
    assert!(robots.agent("Bingbot").preferences("/admin/x").is_none());
    // A crawler with its own group reads only that group's line.
    let p = robots.agent("Googlebot").preferences("/").unwrap();
    assert_eq!((p.signal("ai-train"), p.signal("search")), (Yes, Unknown));
    // The example of the documentation page, with spaces.
    let robots =
        RobotsTxt::parse(b"User-Agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n");
    let p = robots.agent("ClaudeBot").preferences("/page").unwrap();
    assert_eq!((p.signal("search"), p.signal("ai-train")), (Yes, No));
    // yes/no only: y and n say nothing under Content-Signal.
    let robots = RobotsTxt::parse(b"User-Agent: *\nContent-Signal: search=y, ai-train=n\n");
    let p = robots.agent("x").preferences("/").unwrap();
    assert_eq!(
        (p.signal("search"), p.signal("ai-train")),
        (Unknown, Unknown)
    );
}

fn groups(s: &Statement<'_>) -> (Option<usize>, Option<usize>) {
    (s.google_group, s.aipref_group)
}

#[test]
fn scope_before_any_user_agent() {
    let robots = RobotsTxt::parse(
        b"Content-Signal: search=yes, ai-train=no\nContent-Usage: train-ai=n\n\n\
          User-agent: *\nDisallow: /private/\n",
    );
    let p = robots.agent("GPTBot").preferences("/").unwrap();
    // Content-Signal before any group is read as written for every crawler;
    // a Content-Usage rule outside a group is ignored, as a rule is.
    assert_eq!(
        (p.signal("ai-train"), p.signal_scope),
        (No, Some(SignalScope::File))
    );
    assert_eq!(p.usage("train-ai"), Unknown);
    assert!(
        robots
            .preferences()
            .iter()
            .all(|s| groups(s) == (None, None))
    );
    // Also for a crawler that obeys no group.
    let p = robots.ungrouped_agent().preferences("/").unwrap();
    assert_eq!(p.signal("ai-train"), No);
}

#[test]
fn scope_after_an_unrelated_group() {
    let robots = RobotsTxt::parse(
        b"User-agent: *\nDisallow: /tmp/\n\nUser-agent: Baiduspider\nDisallow: /\n\
          Content-Signal: search=yes, ai-train=no\nContent-Usage: train-ai=n\n",
    );
    assert!(
        robots
            .preferences()
            .iter()
            .all(|s| groups(s) == (Some(1), Some(1)))
    );
    let p = robots.agent("GPTBot").preferences("/").unwrap();
    assert_eq!(
        (p.signal("ai-train"), p.usage("train-ai")),
        (Unknown, Unknown)
    );
    assert_eq!(p.signal_scope, None);
    // Baiduspider's own: disallowed, so nothing applies.
    assert!(robots.agent("Baiduspider").preferences("/").is_none());
    assert_eq!(
        robots
            .agent("Baiduspider")
            .stated_preferences(b"/")
            .usage("train-ai"),
        No
    );
}

#[test]
fn scope_in_a_second_star_group() {
    let robots = RobotsTxt::parse(
        b"User-agent: *\nDisallow: /x/\n\nUser-agent: GPTBot\nDisallow: /\n\n\
          User-agent: *\nContent-Usage: train-ai=n\nContent-Signal: ai-train=no\n",
    );
    assert!(
        robots
            .preferences()
            .iter()
            .all(|s| groups(s) == (Some(2), Some(2)))
    );
    let p = robots.agent("CCBot").preferences("/").unwrap();
    assert_eq!((p.usage("train-ai"), p.signal("ai-train")), (No, No));
    assert!(robots.agent("GPTBot").preferences("/").is_none());
}

/// Google: an unknown line never ends a run of user-agent lines. AIPREF:
/// Content-Usage is a rule, so it does; the groupings differ.
#[test]
fn scope_between_two_user_agent_lines() {
    let body = b"User-agent: FooBot\nContent-Usage: train-ai=n\nContent-Signal: ai-train=no\n\
                 User-agent: BarBot\nDisallow: /private/\n";
    let robots = RobotsTxt::parse(body);
    assert_eq!(robots.groups().len(), 1);
    let s = robots.preferences();
    assert_eq!(groups(&s[0]), (Some(0), Some(0)));
    assert_eq!(groups(&s[1]), (Some(0), Some(0)));
    // Crawling stays Google's: both obey the one group.
    assert!(!robots.allowed("FooBot", "/private/x"));
    assert!(!robots.allowed("BarBot", "/private/x"));
    // The user-agent lines: one group for Google, two for AIPREF.
    let of = |i: usize| {
        (
            robots.user_agents()[i].group,
            robots.aipref_group_of_user_agent(i),
        )
    };
    assert_eq!((of(0), of(1)), ((0, 0), (0, 1)));
    let foo = robots.agent("FooBot").preferences("/").unwrap();
    let bar = robots.agent("BarBot").preferences("/").unwrap();
    assert_eq!(
        (foo.usage("train-ai"), bar.usage("train-ai")),
        (No, Unknown)
    );
    // Content-Signal follows Google's grouping: both.
    assert_eq!((foo.signal("ai-train"), bar.signal("ai-train")), (No, No));
    // A Content-Signal line alone does not split the run under either.
    let robots = RobotsTxt::parse(
        b"User-agent: A\nContent-Signal: ai-train=no\nUser-agent: B\nContent-Usage: train-ai=n\n",
    );
    let p = robots.agent("A").preferences("/").unwrap();
    assert_eq!((p.signal("ai-train"), p.usage("train-ai")), (No, No));
}

/// Nothing about crawling changes: the verdicts of a file are the same
/// with its preference lines removed.
#[test]
fn verdicts_do_not_see_preference_lines() {
    let with = b"User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /p\n\
                 Content-Signal: x=y\nUser-agent: c\nAllow: /p/q\n";
    let without = b"User-agent: a\nUser-agent: b\nDisallow: /p\nUser-agent: c\nAllow: /p/q\n";
    let (w, wo) = (RobotsTxt::parse(with), RobotsTxt::parse(without));
    assert_eq!(w.groups(), wo.groups());
    for agent in ["a", "b", "c", "d"] {
        for url in ["/", "/p", "/p/q", "/x"] {
            assert_eq!(
                w.allowed(agent, url),
                wo.allowed(agent, url),
                "{agent} {url}"
            );
        }
    }
}

/// crawler-commons also reads the plural `Content-Signals` (PR #595);
/// Cloudflare defines only the singular, so robostats keeps the line as an
/// unknown directive and reads no preference from it.
#[test]
fn the_plural_key_is_no_preference_line() {
    let robots = RobotsTxt::parse(b"User-agent: *\nContent-Signals: ai-train=no\n");
    assert!(robots.preferences().is_empty());
    assert_eq!(robots.directives().len(), 1);
    assert_eq!(robots.directives()[0].known, None);
    let p = robots.agent("GPTBot").preferences("/").unwrap();
    assert_eq!((p.signal("ai-train"), p.signal_scope), (Unknown, None));
}
