//! Property tests of the robots.txt engine.
//!
//! The reference here is a literal port of Google's streaming matcher
//! (`RobotsMatcher`, which re-parses the body for every agent and keeps
//! four flags) and of its position-set `Matches`. robostats parses once
//! and precomputes groups; these properties check that both give the same
//! verdicts on random, directive-heavy bodies, that line ends do not
//! matter, and that no input panics.

use proptest::prelude::*;
use robostats_robots::reference::google_matches;
use robostats_robots::{
    AgentRules, Key, Lines, RobotsTxt, RulesClass, escape_pattern, matches, path_params_query,
};

#[derive(Default)]
struct Match {
    priority: i64,
}

/// Google's `MatchAllow` and `MatchDisallow`: the priority of an allow or
/// disallow line (`key`, its escaped `pattern`) for `path`, -1 when it
/// does not match (an allow of `<dir>/index.htm...` also matches `<dir>/$`).
fn google_priority(path: &[u8], key: Key, mut pattern: Vec<u8>) -> i64 {
    let mut priority = if google_matches(path, &pattern) {
        pattern.len() as i64
    } else {
        -1
    };
    if priority < 0
        && key == Key::Allow
        && let Some(slash) = pattern.iter().rposition(|&b| b == b'/')
        && pattern[slash..].starts_with(b"/index.htm")
    {
        pattern.truncate(slash + 1);
        pattern.push(b'$');
        if google_matches(path, &pattern) {
            priority = pattern.len() as i64;
        }
    }
    priority
}

/// Google's `RobotsMatcher`: one pass over the lines per agent.
fn google_allowed(body: &[u8], agent: &str, url: &str) -> bool {
    let path = path_params_query(url.as_bytes()).to_bytes().into_owned();
    let (mut seen_global, mut seen_specific, mut ever_specific, mut seen_sep) =
        (false, false, false, false);
    let none = || Match { priority: -1 };
    let (mut allow_g, mut allow_s, mut dis_g, mut dis_s) = (none(), none(), none(), none());
    for line in Lines::new(body) {
        let Some(key) = line.key else { continue };
        let value = if key.value_is_escaped() {
            escape_pattern(line.value).into_owned()
        } else {
            line.value.to_vec()
        };
        match key {
            Key::UserAgent => {
                if seen_sep {
                    seen_specific = false;
                    seen_global = false;
                    seen_sep = false;
                }
                let v = &value;
                if !v.is_empty()
                    && v[0] == b'*'
                    && (v.len() == 1 || b" \t\n\x0B\x0C\r".contains(&v[1]))
                {
                    seen_global = true;
                } else {
                    let n = v
                        .iter()
                        .take_while(|b| b.is_ascii_alphabetic() || **b == b'-' || **b == b'_')
                        .count();
                    if v[..n].eq_ignore_ascii_case(agent.as_bytes()) {
                        ever_specific = true;
                        seen_specific = true;
                    }
                }
            }
            Key::Allow | Key::Disallow => {
                if !(seen_global || seen_specific) {
                    continue;
                }
                seen_sep = true;
                let priority = google_priority(&path, key, value);
                if priority < 0 {
                    continue;
                }
                let slot = match (key == Key::Allow, seen_specific) {
                    (true, true) => &mut allow_s,
                    (true, false) => &mut allow_g,
                    (false, true) => &mut dis_s,
                    (false, false) => &mut dis_g,
                };
                if slot.priority < priority {
                    slot.priority = priority;
                }
            }
            Key::Sitemap | Key::Unknown => {}
        }
    }
    let disallow = if allow_s.priority > 0 || dis_s.priority > 0 {
        dis_s.priority > allow_s.priority
    } else if ever_specific {
        false
    } else if allow_g.priority > 0 || dis_g.priority > 0 {
        dis_g.priority > allow_g.priority
    } else {
        false
    };
    !disallow
}

const AGENTS: &[&str] = &[
    "FooBot",
    "foobot",
    "BarBot",
    "Foo Bar",
    "FooBot/1.0",
    "",
    "*",
];

fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/",
        "a",
        "b",
        "*",
        "$",
        "%2f",
        "%2F",
        "é",
        "index.html",
        "index.htm",
        "?",
        ";",
        ".",
    ])
}

fn pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|v| v.concat())
}

fn line() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "user-agent",
        "User-Agent",
        "useragent",
        "user agent",
        "allow",
        "Allow",
        "disallow",
        "DISALLOW",
        "dissallow",
        "sitemap",
        "crawl-delay",
        "foo",
    ]);
    let sep = prop::sample::select(vec![":", ": ", " ", " : ", "\t"]);
    let value = prop_oneof![
        prop::sample::select(AGENTS.to_vec()).prop_map(str::to_owned),
        prop::sample::select(vec!["*", "* x", "*foo", "FooBot*", "ツbot"]).prop_map(str::to_owned),
        pattern(),
    ];
    let comment = prop::sample::select(vec!["", "", "", " # c", "#"]);
    prop_oneof![
        8 => (key, sep, value, comment).prop_map(|(k, s, v, c)| format!("{k}{s}{v}{c}")),
        1 => Just(String::new()),
        1 => "[ -~]{0,12}",
    ]
}

fn body() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(line(), 0..14)
}

/// A body of rules alone under one or two user-agent lines, their
/// patterns of a few short pieces: rules that share heads, tie and meet
/// `index.htm`'s retry.
fn rules_body() -> impl Strategy<Value = Vec<String>> {
    let piece = prop::sample::select(vec!["a", "b", "/", "*", "$", "index.html"]);
    let rule = (
        prop::sample::select(vec!["allow", "disallow"]),
        prop::collection::vec(piece, 0..4),
    )
        .prop_map(|(k, p)| format!("{k}: /{}", p.concat()));
    let agent = prop::sample::select(vec!["user-agent: *", "user-agent: FooBot"]);
    (agent, prop::collection::vec(rule, 1..12), any::<bool>()).prop_map(|(a, rules, twice)| {
        let mut lines = vec![a.to_owned()];
        let half = rules.len() / 2;
        for (i, r) in rules.into_iter().enumerate() {
            if twice && i == half {
                lines.push("user-agent: *".to_owned());
            }
            lines.push(r);
        }
        lines
    })
}

fn url() -> impl Strategy<Value = String> {
    pattern().prop_map(|p| {
        let p = p.replace(['*', 'é'], "");
        if p.starts_with('/') {
            format!("http://example.com{p}")
        } else {
            format!("http://example.com/{p}")
        }
    })
}

/// The class by its definition (`robots::class`): Google's verdicts on
/// `/`, `/x`, and for every non-empty rule the shortest path its pattern
/// matches and that path plus one byte, with nothing left out for speed.
fn class_by_definition(rules: &AgentRules<'_, '_>) -> RulesClass {
    let mut paths: Vec<Vec<u8>> = vec![b"/".to_vec(), b"/x".to_vec()];
    for (_, rule) in rules.rules() {
        let p = &rule.pattern;
        if rule.is_empty() || !(p.starts_with(b"/") || p.starts_with(b"*")) {
            continue;
        }
        let mut w = if p[0] == b'*' {
            b"/".to_vec()
        } else {
            Vec::new()
        };
        let body = p.strip_suffix(b"$").unwrap_or(p);
        w.extend(body.iter().filter(|&&b| b != b'*'));
        paths.push(w.clone());
        w.push(b'x');
        paths.push(w);
    }
    let verdicts: Vec<bool> = paths.iter().map(|p| rules.decide_path(p).allowed).collect();
    match (verdicts.contains(&true), verdicts.contains(&false)) {
        (true, true) => RulesClass::AllowPart,
        (_, false) => RulesClass::AllowAll,
        (false, true) => RulesClass::DisallowAll,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The piece-wise matcher answers exactly like Google's position sets.
    #[test]
    fn matcher_equals_google_matches(path in "[/ab$*]{0,10}", pat in "[/ab$*]{0,8}") {
        prop_assert_eq!(
            matches(path.as_bytes(), pat.as_bytes()),
            google_matches(path.as_bytes(), pat.as_bytes())
        );
    }

    /// One parse, any number of agents: the same verdicts as Google's
    /// matcher re-parsing the body for each agent.
    #[test]
    fn parse_once_equals_google_parse_per_agent(lines in body(), urls in prop::collection::vec(url(), 1..4)) {
        let text = lines.join("\n");
        let robots = RobotsTxt::parse(text.as_bytes());
        for agent in AGENTS {
            let rules = robots.agent(agent);
            for url in &urls {
                prop_assert_eq!(
                    rules.allowed(url),
                    google_allowed(text.as_bytes(), agent, url),
                    "agent {:?} url {:?} body:\n{}", agent, url, text
                );
            }
        }
    }

    /// The indexed rules decide every path as the scan of every rule does:
    /// the same verdict, deciding rule and `index.htm` flag.
    #[test]
    fn index_equals_the_scan(
        lines in prop_oneof![body(), rules_body()],
        urls in prop::collection::vec(url(), 1..6),
    ) {
        let text = lines.join("\n");
        let robots = RobotsTxt::parse(text.as_bytes());
        // The random URLs, and paths near each rule: the pattern without
        // its wildcards and anchor, that plus a byte, its directory (an
        // `index.htm` allow's retry) and each of its prefixes.
        let mut paths: Vec<Vec<u8>> = urls
            .iter()
            .map(|u| path_params_query(u.as_bytes()).to_bytes().into_owned())
            .collect();
        for rule in robots.rules() {
            let p = rule.pattern.strip_suffix(b"$").unwrap_or(&rule.pattern);
            let literal: Vec<u8> = p.iter().copied().filter(|&b| b != b'*').collect();
            for end in 0..=literal.len() {
                paths.push(literal[..end].to_vec());
            }
            paths.push([&literal[..], b"x"].concat());
        }
        for agent in AGENTS {
            let rules = robots.agent(agent);
            let index = rules.index();
            for path in &paths {
                prop_assert_eq!(
                    index.decide_path(path),
                    rules.decide_path(path),
                    "agent {:?} path {:?} body:\n{}", agent, String::from_utf8_lossy(path), text
                );
            }
        }
    }

    /// The class, found with shortcuts, is the class by its definition.
    #[test]
    fn class_equals_its_definition(lines in body()) {
        let text = lines.join("\n");
        let robots = RobotsTxt::parse(text.as_bytes());
        for agent in AGENTS {
            let rules = robots.agent(agent);
            prop_assert_eq!(rules.class(), class_by_definition(&rules), "agent {:?} body:\n{}", agent, text);
        }
    }

    /// LF, CRLF and CR line ends give the same verdicts.
    #[test]
    fn line_ends_do_not_change_verdicts(lines in body(), url in url()) {
        let lf = lines.join("\n");
        let crlf = lines.join("\r\n");
        let cr = lines.join("\r");
        let (a, b, c) = (
            RobotsTxt::parse(lf.as_bytes()),
            RobotsTxt::parse(crlf.as_bytes()),
            RobotsTxt::parse(cr.as_bytes()),
        );
        for agent in AGENTS {
            let want = a.agent(agent).decide(&url);
            prop_assert_eq!(want, b.agent(agent).decide(&url));
            prop_assert_eq!(want, c.agent(agent).decide(&url));
        }
        let without_bytes = |r: &RobotsTxt<'_>| robostats_robots::Stats { bytes: 0, ..*r.stats() };
        prop_assert_eq!(without_bytes(&a), without_bytes(&b));
        prop_assert_eq!(without_bytes(&a), without_bytes(&c));
    }

    /// Any bytes: no panic, and the line walk agrees with the counts.
    #[test]
    fn any_bytes_parse(body in prop::collection::vec(any::<u8>(), 0..600), url in "\\PC{0,30}") {
        let robots = RobotsTxt::parse(&body);
        let lines = robots.lines().count();
        prop_assert_eq!(lines as u32, robots.stats().lines);
        for agent in AGENTS {
            let _ = robots.agent(agent).decide(&url);
        }
    }
}

#[test]
fn adversarial_bodies_stay_fast() {
    // Each case would take minutes with a naive backtracking matcher or
    // quadratic line handling; here each takes milliseconds. No time is
    // asserted (the machine is shared): a regression shows as a hang.
    let url = format!("http://example.com/{}", "ab".repeat(1000));

    // A 500 KiB line of `*`: cut at 16,663 bytes, and still matched.
    let stars = format!("user-agent: *\ndisallow: /{}x$\n", "*".repeat(500 * 1024));
    let robots = RobotsTxt::parse(stars.as_bytes());
    assert_eq!(robots.stats().too_long, 1);
    let rules = robots.agent("FooBot");
    // The cut removed the `x$`: the pattern is now `/***...`.
    assert!(!rules.allowed(&url));

    // 100k rules with wildcards.
    let many_rules: String = std::iter::once("user-agent: *\n".to_owned())
        .chain((0..100_000).map(|i| format!("disallow: /p{i}*a*b*c$\n")))
        .collect();
    let robots = RobotsTxt::parse(many_rules.as_bytes());
    assert_eq!(robots.rules().len(), 100_000);
    let rules = robots.agent("FooBot");
    assert!(!rules.allowed("http://example.com/p99999xxaxxbxxc"));
    assert!(rules.allowed("http://example.com/p99999xxaxxbxxcd"));
    assert!(rules.allowed(&url));

    // `Disallow: /` and 100k disallows: every witness path is disallowed,
    // so the class looks at all of them (200k paths against 100k rules
    // each, 2e10 matches, without its shortcut).
    let disallow_all: String = ["user-agent: *\ndisallow: /\n".to_owned()]
        .into_iter()
        .chain((0..100_000).map(|i| format!("disallow: /p{i}/\n")))
        .collect();
    let robots = RobotsTxt::parse(disallow_all.as_bytes());
    assert_eq!(robots.agent("FooBot").class(), RulesClass::DisallowAll);
    // The same with `$`: a rule's second witness (`/p1x`) is not its own.
    let anchored = disallow_all
        .replace("/\n", "$\n")
        .replacen("disallow: $", "disallow: /", 1);
    let robots = RobotsTxt::parse(anchored.as_bytes());
    assert_eq!(robots.rules()[1].pattern.as_ref(), b"/p0$");
    assert_eq!(robots.agent("FooBot").class(), RulesClass::DisallowAll);
    // And allows: 100k anchored allows and no disallow allow everything.
    let allow_all = anchored.replace("disallow", "allow");
    let robots = RobotsTxt::parse(allow_all.as_bytes());
    assert_eq!(robots.agent("FooBot").class(), RulesClass::AllowAll);

    // 1 MiB of one character, on one line and as a million lines.
    let one_char = "a".repeat(1 << 20);
    let robots = RobotsTxt::parse(one_char.as_bytes());
    assert_eq!((robots.stats().lines, robots.stats().invalid_lines), (1, 1));
    let newlines = "\n".repeat(1 << 20);
    let robots = RobotsTxt::parse(newlines.as_bytes());
    assert_eq!(robots.stats().lines, (1 << 20) + 1);
    assert!(robots.agent("FooBot").allowed(&url));
}
