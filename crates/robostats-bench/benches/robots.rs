//! Parse throughput (MB/s) and matching speed (checks/s) of the robots.txt
//! engine on real-looking bodies (see `benches/data/README.md`).
//!
//! `cargo bench --bench robots`; the figures are in BENCHMARKS.md. Each
//! iteration asserts its expected count, so a benchmark that stops doing
//! the work fails instead of getting faster.

use std::hint::black_box;
use std::io::Read;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use robostats_robots::reference::google_matches;
use robostats_robots::{GOOGLE_MAX_BYTES, RobotsTxt, matches, path_params_query};

/// Bodies of the HTTP 200 responses of the synthetic sample.
fn bodies() -> Vec<Vec<u8>> {
    let gz = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/data/robots-bodies.bin.gz"
    ))
    .expect("benches/data/robots-bodies.bin.gz");
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    let mut out = Vec::new();
    let mut rest = &raw[..];
    while rest.len() >= 4 {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        out.push(rest[4..4 + len].to_vec());
        rest = &rest[4 + len..];
    }
    out
}

/// Crawlers of interest: what the ingest pipeline evaluates per capture.
const AGENTS: &[&str] = &[
    "Googlebot",
    "Bingbot",
    "GPTBot",
    "ChatGPT-User",
    "CCBot",
    "ClaudeBot",
    "Google-Extended",
    "PerplexityBot",
    "Bytespider",
    "Applebot-Extended",
];

const URLS: &[&str] = &[
    "https://example.com/",
    "https://example.com/wp-admin/admin-ajax.php",
    "https://example.com/search?q=robots&page=2",
    "https://example.com/catalog/product/view/id/12345/category/7.html",
    "https://example.com/index.html",
];

const BODIES: usize = 465;
const RULES: usize = 86_493;
const RULES_500KIB: usize = 66_804;

fn parse(c: &mut Criterion) {
    let bodies = bodies();
    assert_eq!(bodies.len(), BODIES);
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("sample_bodies", |b| {
        b.iter(|| {
            let rules: usize = bodies
                .iter()
                .map(|body| RobotsTxt::parse(black_box(body)).rules().len())
                .sum();
            assert_eq!(rules, RULES);
        })
    });
    g.bench_function("sample_bodies_500kib", |b| {
        b.iter(|| {
            let rules: usize = bodies
                .iter()
                .map(|body| {
                    RobotsTxt::parse_with_limit(black_box(body), GOOGLE_MAX_BYTES)
                        .rules()
                        .len()
                })
                .sum();
            assert_eq!(rules, RULES_500KIB);
        })
    });
    let ai = include_bytes!("data/ai-robots-txt.robots.txt");
    g.throughput(Throughput::Bytes(ai.len() as u64));
    g.bench_function("ai_robots_txt", |b| {
        b.iter(|| assert_eq!(RobotsTxt::parse(black_box(ai)).user_agents().len(), 166))
    });
    g.finish();
}

fn matching(c: &mut Criterion) {
    let bodies = bodies();
    let parsed: Vec<RobotsTxt<'_>> = bodies.iter().map(|b| RobotsTxt::parse(b)).collect();
    let checks = parsed.len() * AGENTS.len() * URLS.len();
    let mut g = c.benchmark_group("match");
    // Per capture: find each agent's groups, then check every URL.
    g.throughput(Throughput::Elements(checks as u64));
    g.bench_function("agents_x_urls", |b| {
        b.iter(|| {
            let mut n = 0;
            for robots in &parsed {
                for agent in AGENTS {
                    let rules = robots.agent(agent);
                    for url in URLS {
                        n += usize::from(rules.allowed(black_box(url)));
                    }
                }
            }
            assert!(n > 0 && n < checks);
            n
        })
    });
    // Adversarial: 100k wildcard rules in one group.
    let many: String = std::iter::once("user-agent: *\n".to_owned())
        .chain((0..100_000).map(|i| format!("disallow: /p{i}*a*b*c$\n")))
        .collect();
    let robots = RobotsTxt::parse(many.as_bytes());
    let rules = robots.agent("GPTBot");
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("100k_wildcard_rules", |b| {
        b.iter(|| assert!(!rules.allowed(black_box("https://example.com/p99999xaxbxc"))))
    });
    g.finish();
}

/// The pattern matcher alone, against Google's algorithm, on every rule of
/// the sample and the paths of `URLS`.
fn matcher(c: &mut Criterion) {
    let bodies = bodies();
    let parsed: Vec<RobotsTxt<'_>> = bodies.iter().map(|b| RobotsTxt::parse(b)).collect();
    let patterns: Vec<&[u8]> = parsed
        .iter()
        .flat_map(|r| r.rules().iter().map(|rule| &*rule.pattern))
        .collect();
    let paths: Vec<Vec<u8>> = URLS
        .iter()
        .map(|u| path_params_query(u.as_bytes()).to_bytes().into_owned())
        .collect();
    let count = |f: fn(&[u8], &[u8]) -> bool| {
        let mut n = 0;
        for path in &paths {
            for pattern in &patterns {
                n += usize::from(f(black_box(path), pattern));
            }
        }
        n
    };
    let expected = count(google_matches);
    let mut g = c.benchmark_group("matcher");
    g.throughput(Throughput::Elements((patterns.len() * paths.len()) as u64));
    g.bench_function("robostats", |b| {
        b.iter(|| assert_eq!(count(matches), expected))
    });
    g.bench_function("google_reference", |b| {
        b.iter(|| assert_eq!(count(google_matches), expected))
    });
    g.finish();
}

/// Content-Signal and Content-Usage values an adversary could write: the
/// parse must stay linear in the value's length.
fn preferences(c: &mut Criterion) {
    use robostats_robots::{PreferenceDirective, Statement};
    let many_keys: String = (0..100_000).map(|i| format!("k{i}=n, ")).collect();
    let same_key = "train-ai=y, ".repeat(100_000);
    let values = [
        (
            "100k_keys",
            many_keys.trim_end_matches([',', ' ']).to_owned(),
        ),
        (
            "100k_same_key",
            same_key.trim_end_matches([',', ' ']).to_owned(),
        ),
        ("string_500kib", format!("a=\"{}\"", "x".repeat(500 * 1024))),
        (
            "open_parens_500kib",
            format!("a={}", "(".repeat(500 * 1024)),
        ),
        (
            "inner_list_200k_items",
            format!("a=({})", "b ".repeat(200_000)),
        ),
    ];
    let mut g = c.benchmark_group("preferences");
    g.sample_size(10);
    for (name, value) in &values {
        g.throughput(Throughput::Bytes(value.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| {
                Statement::new(
                    1,
                    PreferenceDirective::ContentUsage,
                    b"Content-Usage",
                    value.as_bytes(),
                )
                .members
                .len()
            })
        });
    }
    // lint's diagnoses of a file near Google's 500 KiB: 2,500 crawlers
    // (names of letters only: a product token keeps no digits) in one
    // group with 15,000 disallows, 2,500 path-scoped Content-Usage rules
    // for them, and each crawler named again in a group of its own: every
    // line needs every crawler's verdict on its scope.
    let crawler = |i: usize| -> String {
        let letters: String = (0..3)
            .map(|k| char::from(b'a' + (i / 26usize.pow(k) % 26) as u8))
            .collect();
        format!("Bot{letters}")
    };
    let mut body = String::new();
    for i in 0..2500 {
        body += &format!("User-agent: {}\n", crawler(i));
    }
    for i in 0..15_000 {
        body += &format!("Disallow: /z{i}\n");
    }
    body += "Disallow: /\n";
    for i in 0..2500 {
        body += &format!("Content-Usage: /p{i}/ train-ai=n\n");
    }
    for i in 0..2500 {
        body += &format!("User-agent: {}\nDisallow: /x\n", crawler(i));
    }
    let robots = robostats_robots::RobotsTxt::parse(body.as_bytes());
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("lint_2500_crawlers_15000_rules", |b| {
        b.iter(|| {
            let mut lint = robostats_robots::PreferenceLint::new(&robots);
            robots
                .preferences()
                .iter()
                .map(|s| lint.findings(s).len())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, parse, matching, matcher, preferences);
criterion_main!(benches);
