//! Figure 9: copies and platform defaults in the latest crawl: how many
//! hosts serve each default, and how often each shuts out one AI crawler.

use super::common::{CITED, crawl_label, latest};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, colour};

/// The crawler figure 9 shows by template: the first the docs cite.
const COPIES_AGENT: &str = CITED[0];

/// Whether row `r` of `t` is of `crawl` (every row when there is none).
fn in_crawl(crawl: Option<&str>, t: &Table, r: &[Value]) -> bool {
    crawl.is_none_or(|c| t.text(r, "crawl") == c)
}

/// A row's template, as its bar is labelled.
fn template_name(t: &Table, r: &[Value]) -> String {
    match t.text(r, "template") {
        "" => "no default".to_owned(),
        template => template.to_owned(),
    }
}

/// A bar per default served in `crawl`: its share of hosts.
fn defaults(tp: &Table, crawl: Option<&str>) -> Vec<(String, f64)> {
    tp.rows
        .iter()
        .filter(|r| in_crawl(crawl, tp, r) && !tp.text(r, "template").is_empty())
        .map(|r| (template_name(tp, r), tp.num(r, "share")))
        .collect()
}

/// A bar per default (and no default) in `crawl`: the share of its hosts
/// that shut `COPIES_AGENT` out.
fn blocked(ab: &Table, crawl: Option<&str>) -> Vec<(String, f64)> {
    ab.rows
        .iter()
        .filter(|r| in_crawl(crawl, ab, r) && ab.text(r, "agent") == COPIES_AGENT)
        .map(|r| (template_name(ab, r), ab.num(r, "blocked_share")))
        .collect()
}

/// The copies of `crawl` in one paragraph (none without its row).
fn summary(db: &Table, crawl: Option<&str>, label: &str) -> String {
    db.rows
        .iter()
        .find(|r| in_crawl(crawl, db, r))
        .map(|r| {
            format!(
                "In {label}, {} robots.txt captures held {} distinct bodies; the {} hosts \
                 with one served {} distinct rulesets. {} of the hosts serve a ruleset at \
                 least one other host serves, {} one at least 10 others serve, and the 10 most \
                 common rulesets are {} of the hosts.",
                svg::count(db.num(r, "captures")),
                svg::count(db.num(r, "bodies")),
                svg::count(db.num(r, "hosts")),
                svg::count(db.num(r, "host_rulesets")),
                svg::percent(db.num(r, "shared_1_share")),
                svg::percent(db.num(r, "shared_10_share")),
                svg::percent(db.num(r, "top10_share")),
            )
        })
        .unwrap_or_default()
}

pub(super) fn figure(results: &Results) -> Figure {
    let tp = results.get(Query::Templates);
    let crawl = latest(tp);
    let crawl = crawl.as_deref();
    let ab = results.get(Query::TemplateAiBlocking);
    let db = results.get(Query::DuplicateBodies);
    let label = crawl.map_or_else(String::new, crawl_label);
    Figure {
        id: "copies",
        title: format!("Copies and platform defaults, {label}"),
        charts: vec![
            (
                "Hosts per platform default".to_owned(),
                svg::bars(
                    "Share of hosts serving each default",
                    &defaults(tp, crawl),
                    colour::BLUE,
                    true,
                ),
            ),
            (
                format!("{COPIES_AGENT} shut out, by default"),
                svg::bars(
                    &format!("Share of hosts disallowing {COPIES_AGENT} everything"),
                    &blocked(ab, crawl),
                    colour::VERMILLION,
                    true,
                ),
            ),
        ],
        definition: vec![summary(db, crawl, &label), definition()],
        tables: tables(db, ab, crawl, &label),
    }
}

fn definition() -> String {
    format!(
        "A host's robots.txt is its deciding capture (figure 1), when it is a parsed 2xx \
         body. A ruleset is what a file says to crawlers, without comments, blank lines, \
         key spelling or sitemap hosts; a default is a platform's own file (WordPress, \
         Yoast, Shopify, Wix, Squarespace, Blogger, Drupal, Joomla, Ghost, Cloudflare's \
         managed block in front of a site's lines, the empty file), matched on its \
         ruleset (docs/templates.md). Above: the share of hosts with a robots.txt \
         serving each default (the others serve none). Below: the share of each \
         default's hosts whose rules disallow {COPIES_AGENT} every path, next to the \
         hosts that serve no default: whether a platform or a site's owner decided."
    )
}

/// Every crawl's copies, and the blocking rows of `crawl` drawn.
fn tables(db: &Table, ab: &Table, crawl: Option<&str>, label: &str) -> Vec<Shown> {
    vec![
        Shown::of(
            Query::DuplicateBodies,
            db,
            &[
                "crawl",
                "captures",
                "bodies",
                "rulesets",
                "hosts",
                "host_rulesets",
                "shared_1_share",
                "shared_10_share",
                "top10_share",
            ],
            "every crawl",
            usize::MAX,
            |_| true,
        ),
        Shown::of(
            Query::TemplateAiBlocking,
            ab,
            &["template", "hosts", "blocked", "blocked_share"],
            format!("{COPIES_AGENT}, {label}"),
            usize::MAX,
            |r| in_crawl(crawl, ab, r) && ab.text(r, "agent") == COPIES_AGENT,
        ),
    ]
}
