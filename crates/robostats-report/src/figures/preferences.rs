//! Figure 8: AI-use preferences (Content-Signal and Content-Usage):
//! adoption, the values written most, and the captures that let an AI
//! crawler fetch yet say no to training.

use super::common::{CITED, NAMES, report_crawl};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, colour};

/// Each directive's share of captures.
fn adoption(ad: &Table) -> Vec<(String, f64)> {
    ad.rows
        .iter()
        .map(|r| {
            (
                ad.text(r, "directive").to_owned(),
                ad.num(r, "share_of_captures"),
            )
        })
        .collect()
}

/// The values written most, per directive (the query orders each
/// directive's rows by captures).
fn kept_values(pl: &Table) -> Vec<&Vec<Value>> {
    let mut kept_values: Vec<&Vec<Value>> = Vec::new();
    for directive in ["content-signal", "content-usage"] {
        kept_values.extend(
            pl.rows
                .iter()
                .filter(|r| pl.text(r, "directive") == directive)
                .take(NAMES / 2),
        );
    }
    kept_values
}

/// A bar per value kept: its directive, label and value, by captures.
fn values(pl: &Table, kept_values: &[&Vec<Value>]) -> Vec<(String, f64)> {
    kept_values
        .iter()
        .map(|r| {
            let directive = match pl.text(r, "directive") {
                "content-signal" => "Content-Signal",
                "content-usage" => "Content-Usage",
                other => other,
            };
            let label = match pl.text(r, "label") {
                "" => format!("{directive} (unreadable)"),
                label => format!("{directive} {label}={}", pl.text(r, "value")),
            };
            (label, pl.num(r, "captures"))
        })
        .collect()
}

/// Whether row `r` of `preference_contradictions` is drawable: an AI
/// crawler's, or one the docs cite.
fn is_ai(pc: &Table, r: &[Value]) -> bool {
    pc.text(r, "agent_category") == "ai" || CITED.contains(&pc.text(r, "agent"))
}

/// The crawlers the docs cite, and the AI crawlers whose allowing captures
/// most often say no to training, `NAMES` in all, by share (then name):
/// (crawler, share).
fn said(pc: &Table) -> Vec<(String, f64)> {
    let mut said: Vec<(String, f64)> = pc
        .rows
        .iter()
        .filter(|r| is_ai(pc, r))
        .map(|r| {
            (
                pc.text(r, "agent").to_owned(),
                pc.num(r, "allowed_no_ai_training_share"),
            )
        })
        .collect();
    said.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let cited = said
        .iter()
        .filter(|s| CITED.contains(&s.0.as_str()))
        .count();
    let mut room = NAMES.saturating_sub(cited);
    said.retain(|s| {
        if CITED.contains(&s.0.as_str()) {
            return true;
        }
        let kept = room > 0;
        room = room.saturating_sub(1);
        kept
    });
    said
}

/// The bars of `said`, each with its share and the counts it is of (a
/// share of few captures says so: `50.0 % (1 of 2)`).
fn said_chart(pc: &Table, said: &[(String, f64)]) -> String {
    let counts = |agent: &str| {
        pc.rows
            .iter()
            .find(|r| pc.text(r, "agent") == agent)
            .map(|r| (pc.num(r, "allowed_no_ai_training"), pc.num(r, "allowed")))
    };
    let rows: Vec<svg::Row> = said
        .iter()
        .map(|(agent, share)| svg::Row {
            label: agent.clone(),
            values: vec![*share],
            group: None,
        })
        .collect();
    let texts: Vec<String> = said
        .iter()
        .map(|(agent, share)| {
            let of = counts(agent).map_or_else(String::new, |(n, of)| {
                format!(" ({} of {})", svg::count(n), svg::count(of))
            });
            format!("{}{of}", svg::percent(*share))
        })
        .collect();
    svg::grouped_bars(
        "Allowed, yet no training",
        &rows,
        colour::VERMILLION,
        &texts,
    )
}

pub(super) fn figure(results: &Results) -> Figure {
    let ad = results.get(Query::PreferenceAdoption);
    let pc = results.get(Query::PreferenceContradictions);
    let pl = results.get(Query::PreferenceLabels);
    let kept_values = kept_values(pl);
    let said = said(pc);
    Figure {
        id: "preferences",
        title: format!("AI-use preferences, {}", report_crawl(pc)),
        charts: vec![
            (
                "Captures with a Content-Signal or Content-Usage line".to_owned(),
                svg::bars("Adoption", &adoption(ad), colour::BLUE, true),
            ),
            (
                "The values written most (captures)".to_owned(),
                svg::bars("Values", &values(pl, &kept_values), colour::ORANGE, false),
            ),
            (
                "Captures that let the crawler fetch / yet say no to AI training (share of \
                 those that let it fetch /)"
                    .to_owned(),
                said_chart(pc, &said),
            ),
        ],
        definition: vec![format!(
            "Over the captures of {} whose body was parsed as robots.txt. \
             A capture is one fetch, refetches included. Adoption: captures with a \
             Content-Signal (Cloudflare) or Content-Usage (IETF AIPREF) line, and with either. \
             Allowed, yet no training: for the crawlers the docs cite ({}) and the AI crawlers \
             most often told so, of the captures whose rules let the crawler fetch /, those \
             whose preferences for it say no to AI training (Content-Usage train-ai=n, or \
             Content-Signal ai-train=no). Values: each label and value as written, by \
             captures, whatever the directive's draft or vocabulary.",
            report_crawl(pc),
            CITED.join(", ")
        )],
        tables: tables(ad, pl, pc, &kept_values, &said),
    }
}

/// Every adoption row, the values drawn, and the AI crawlers drawn.
fn tables(
    ad: &Table,
    pl: &Table,
    pc: &Table,
    kept_values: &[&Vec<Value>],
    said: &[(String, f64)],
) -> Vec<Shown> {
    vec![
        Shown::of(
            Query::PreferenceAdoption,
            ad,
            &[
                "directive",
                "lines",
                "captures",
                "share_of_captures",
                "unparseable_lines",
            ],
            "every row",
            usize::MAX,
            |_| true,
        ),
        Shown::of(
            Query::PreferenceLabels,
            pl,
            &[
                "directive",
                "label",
                "value",
                "preference",
                "status",
                "captures",
            ],
            "the values drawn",
            usize::MAX,
            |r| kept_values.iter().any(|k| std::ptr::eq(k.as_slice(), r)),
        ),
        Shown::of(
            Query::PreferenceContradictions,
            pc,
            &[
                "agent",
                "allowed",
                "allowed_no_ai_training",
                "allowed_no_ai_training_share",
            ],
            "the crawlers drawn",
            usize::MAX,
            |r| is_ai(pc, r) && said.iter().any(|s| s.0 == pc.text(r, "agent")),
        ),
    ]
}
