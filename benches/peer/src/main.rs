//! A peer of `robostats ingest` built only from other people's public
//! crates, as a measuring stick for `scripts/bench.sh` (not part of the
//! product): `warc` (jedireza/warc, gzip through libflate) reads the
//! records, `httparse` the HTTP head, and `robotstxt` (a Rust port of
//! Google's robots.txt library) judges `/` for every crawler of the
//! default list and for a crawler no group names, on every 2xx
//! robots.txt response. The verdicts are only counted: no table is
//! written. One file per thread, like the decompression floor.
//!
//!     cargo run --release --manifest-path benches/peer/Cargo.toml -- THREADS FILE...

use std::time::Instant;

use rayon::prelude::*;
use robotstxt::DefaultMatcher;
use warc::{RecordType, WarcHeader, WarcReader};

/// Verdicts counted in one file.
#[derive(Default)]
struct Counts {
    responses: u64,
    parsed: u64,
    allowed: u64,
    disallowed: u64,
}

fn judge(path: &str, agents: &[&str]) -> std::io::Result<Counts> {
    let mut counts = Counts::default();
    let reader = WarcReader::from_path_gzip(path)?;
    for record in reader.iter_records() {
        let Ok(record) = record else { break };
        if *record.warc_type() != RecordType::Response
            || record.header(WarcHeader::TargetURI).is_none()
        {
            continue;
        }
        counts.responses += 1;
        let body = record.body();
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut head = httparse::Response::new(&mut headers);
        let Ok(httparse::Status::Complete(len)) = head.parse(body) else {
            continue;
        };
        if !head.code.is_some_and(|c| (200..300).contains(&c)) {
            continue;
        }
        counts.parsed += 1;
        let robots = String::from_utf8_lossy(&body[len..]);
        for agent in agents {
            // The crate's API parses the body again for every agent, as
            // Google's `OneAgentAllowedByRobots` does.
            let mut matcher = DefaultMatcher::default();
            if matcher.one_agent_allowed_by_robots(&robots, agent, "/") {
                counts.allowed += 1;
            } else {
                counts.disallowed += 1;
            }
        }
    }
    Ok(counts)
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let threads: usize = args
        .next()
        .and_then(|t| t.parse().ok())
        .expect("usage: robostats-peer THREADS FILE...");
    let files: Vec<String> = args.collect();
    let list = robostats_rows::classify::agents::AgentList::default_list();
    let mut agents: Vec<&str> = list.agents.iter().map(|a| a.token.as_str()).collect();
    agents.push("UnnamedPeerBot");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    let started = Instant::now();
    let counts: std::io::Result<Vec<Counts>> =
        pool.install(|| files.par_iter().map(|f| judge(f, &agents)).collect());
    let total = counts?.into_iter().fold(Counts::default(), |a, c| Counts {
        responses: a.responses + c.responses,
        parsed: a.parsed + c.parsed,
        allowed: a.allowed + c.allowed,
        disallowed: a.disallowed + c.disallowed,
    });
    println!(
        "{} responses, {} parsed, {} verdicts allowed, {} disallowed, in {:.3} s",
        total.responses,
        total.parsed,
        total.allowed,
        total.disallowed,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
