//! Any bytes through the robots.txt engine: no panic, and these
//! properties: the piece-wise matcher agrees with Google's position-set
//! algorithm on every rule; LF and CRLF line ends give the same verdicts;
//! one parse for all agents agrees with one parse per agent, and with
//! its rules indexed (`AgentRules::index`); and the
//! canonical ruleset has one line per keyed line and is the same with CRLF
//! line ends (so are its digest and, but for blank files, its template).
//!
//! Input: `body 0xFF url`; without a 0xFF byte the whole input is the body
//! and a fixed set of URLs is used.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robostats_robots::reference::google_matches;
use robostats_robots::{RobotsTxt, matches, path_params_query};

const AGENTS: &[&str] = &["FooBot", "foobot", "Googlebot", "", "FooBot/1.0"];

fuzz_target!(|data: &[u8]| {
    let (body, url) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (
            &data[..i],
            Some(String::from_utf8_lossy(&data[i + 1..]).into_owned()),
        ),
        None => (data, None),
    };
    let urls: Vec<String> = match url {
        Some(u) => vec![u],
        None => [
            "http://example.com/",
            "http://example.com/a/b?c",
            "/x$",
            "http://h?q",
        ]
        .map(str::to_owned)
        .to_vec(),
    };
    let robots = RobotsTxt::parse(body);
    assert_eq!(robots.lines().count() as u32, robots.stats().lines);

    for url in &urls {
        let path = path_params_query(url.as_bytes()).to_bytes();
        assert!(path.starts_with(b"/"));
        if path.len() <= 512 {
            for rule in robots.rules().iter().filter(|r| r.pattern.len() <= 512) {
                assert_eq!(
                    matches(&path, &rule.pattern),
                    google_matches(&path, &rule.pattern),
                    "pattern {:?} path {:?}",
                    rule.pattern,
                    path
                );
            }
        }
    }

    let crlf: Option<Vec<u8>> = (!body.contains(&b'\r')).then(|| {
        body.iter()
            .flat_map(|&b| {
                if b == b'\n' {
                    vec![b'\r', b'\n']
                } else {
                    vec![b]
                }
            })
            .collect()
    });
    let crlf_robots = crlf.as_deref().map(RobotsTxt::parse);
    let mut ruleset = Vec::new();
    let written = robots.write_ruleset(&mut ruleset);
    let keyed = robots.user_agents().len()
        + robots.rules().len()
        + robots.sitemaps().len()
        + robots.directives().len();
    assert_eq!(ruleset.iter().filter(|&&b| b == b'\n').count(), keyed);
    assert_eq!(written, keyed);
    // the digests and template: no panic, and the CRLF twin has the ruleset
    let copies = robostats_rows::classify::copies::Copies::of(&robots);
    if let Some(c) = &crlf_robots {
        let twin = robostats_rows::classify::copies::Copies::of(c);
        assert_eq!(copies.ruleset_digest, twin.ruleset_digest);
        let mut again = Vec::new();
        c.write_ruleset(&mut again);
        assert_eq!(ruleset, again);
    }
    for agent in AGENTS {
        let once = robots.agent(agent);
        let index = once.index();
        let fresh = RobotsTxt::parse(body);
        let fresh = fresh.agent(agent);
        for url in &urls {
            let d = once.decide(url);
            assert_eq!(d, fresh.decide(url));
            let path = path_params_query(url.as_bytes()).to_bytes();
            assert_eq!(d, index.decide_path(&path));
            if let Some(c) = &crlf_robots {
                assert_eq!(d, c.agent(agent).decide(url));
            }
        }
    }
});
