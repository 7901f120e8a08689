//! Any bytes as a Content-Signal or Content-Usage value, and as a robots.txt
//! with preference lines: no panic, and the properties the tables rely on:
//! a dictionary that parses has at least one member exactly when its
//! status is `ok`; the last member of each label is the effective one;
//! the preferences of a crawler exist exactly where it may fetch the path;
//! lint's findings are computed for every line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robostats_robots::{ParseStatus, PreferenceDirective, RobotsTxt, Statement};

fuzz_target!(|data: &[u8]| {
    for directive in [PreferenceDirective::ContentSignal, PreferenceDirective::ContentUsage] {
        let s = Statement::new(1, directive, b"k", data);
        assert_eq!(s.status == ParseStatus::Ok, !s.members.is_empty());
        assert_eq!(s.status == ParseStatus::Unparseable, s.error.is_some());
        for m in &s.members {
            let last = s.member(m.label).unwrap();
            assert_eq!(std::ptr::eq(last, m), !m.overridden);
        }
        if let Some(path) = s.path {
            assert!(path.starts_with(b"/") && data.starts_with(path));
        }
    }
    // The bytes as the value of every preference line of a file, and as
    // the whole file.
    let mut body = b"Content-Signal: ".to_vec();
    for prefix in [
        &b"\nUser-agent: *\nContent-Usage: "[..],
        b"\nUser-agent: FooBot\nContent-Usage: /a ",
        b"\nUser-agent: BarBot\nDisallow: /a\nContent-Signal: ",
    ] {
        body.extend_from_slice(data);
        body.extend_from_slice(prefix);
    }
    body.extend_from_slice(data);
    for robots in [RobotsTxt::parse(&body), RobotsTxt::parse(data)] {
        for s in robots.preferences() {
            let _ = robots.preference_findings(s);
            let _ = robots.statement_agents(s);
        }
        for agent in ["FooBot", "BarBot", "Other"] {
            let rules = robots.agent(agent);
            for path in ["/", "/a", "/a/b"] {
                let allowed = rules.decide_path(path.as_bytes()).allowed;
                let p = rules.preferences_path(path.as_bytes());
                assert_eq!(p.is_some(), allowed);
                if let Some(p) = p {
                    let _ = (p.usage("train-ai"), p.signal("ai-train"), p.signal_use());
                }
            }
        }
    }
});
