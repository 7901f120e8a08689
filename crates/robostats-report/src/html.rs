//! The report as one self-contained HTML page: inline CSS and SVG, no
//! script, nothing fetched; readable on a screen and printable.

use std::fmt::Write;

use serde_json::Value;

use super::Report;
use super::figures::Shown;
use super::svg::{count, percent};
use super::text::{escape, json_text};

const STYLE: &str = r#"
:root { color: #222; background: #fff; }
body { font: 15px/1.45 Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1240px; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 10px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 12px 0 4px; font-weight: normal; color: #444; }
.warnings { border: 2px solid #d55e00; background: #fff4ec; padding: 4px 12px; margin: 12px 0; }
.pages { color: #444; font-size: 13px; }
.lede { color: #444; margin: 0 0 16px; }
nav ol { columns: 2; margin: 0 0 20px; }
section { margin: 0 0 36px; break-inside: avoid-page; }
.figure { display: grid; grid-template-columns: 580px minmax(0, 1fr); gap: 24px; align-items: start; }
.charts svg { display: block; max-width: 100%; height: auto; margin: 0 0 8px; }
.definition { color: #333; font-size: 14px; max-width: 70em; }
.numbers { max-height: 640px; overflow: auto; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 12.5px; width: 100%; }
caption { text-align: left; font-size: 12.5px; color: #555; padding: 4px 6px; caption-side: top; }
th, td { padding: 2px 6px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
th { position: sticky; top: 0; background: #f4f4f4; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.summary { width: auto; margin: 0 0 20px; }
footer { color: #666; font-size: 12.5px; border-top: 1px solid #ccc; padding-top: 8px; }
@media (max-width: 1100px) { .figure { grid-template-columns: 1fr; } }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav { display: none; }
  .figure { grid-template-columns: 1fr; }
  .numbers { max-height: none; overflow: visible; border: 0; }
  section { break-before: page; }
  th { position: static; }
}
"#;

/// A value as the table shows it (the exact value is in `data-v`).
fn display(column: &str, value: &Value) -> (String, bool) {
    match value {
        Value::Null => ("–".to_owned(), false),
        Value::Bool(b) => ((if *b { "yes" } else { "no" }).to_owned(), false),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            let text = if column.contains("share") {
                percent(x)
            } else if n.is_i64() || n.is_u64() {
                if column.ends_with("bytes") || column == "lines" {
                    x.to_string()
                } else {
                    count(x)
                }
            } else {
                format!("{x:.3}")
            };
            (text, true)
        }
        Value::String(s) => (s.clone(), false),
        other => (other.to_string(), false),
    }
}

fn table(out: &mut String, shown: &Shown) {
    let _ = write!(
        out,
        r#"<div class="numbers"><table data-query="{q}"><caption>queries/{q}.sql: {c} ({n} rows)</caption><thead><tr>"#,
        q = escape(shown.query.name()),
        c = escape(&shown.caption),
        n = shown.rows.len()
    );
    for c in &shown.columns {
        let _ = write!(out, "<th>{}</th>", escape(c));
    }
    out.push_str("</tr></thead>");
    body(out, &shown.columns, &shown.rows);
    out.push_str("</table></div>");
}

/// A table's body: each value shown for reading, and exact in `data-v`
/// (JSON, as the query returned it).
fn body(out: &mut String, columns: &[String], rows: &[Vec<Value>]) {
    out.push_str("<tbody>");
    for row in rows {
        out.push_str("<tr>");
        for (c, v) in columns.iter().zip(row) {
            let (text, numeric) = display(c, v);
            let _ = write!(
                out,
                r#"<td{} data-v="{}">{}</td>"#,
                if numeric { r#" class="n""# } else { "" },
                escape(&json_text(v)),
                escape(&text)
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody>");
}

/// The whole page.
pub fn page(report: &Report) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>robots.txt report: {}</title><style>{STYLE}</style></head><body>"#,
        escape(&report.outs.join(", "))
    );
    let _ = write!(
        out,
        r#"<header><h1>robots.txt report</h1><p class="lede">{}: every figure's numbers are the result of a query in robostats' <code>queries/</code>, shown beside it.</p></header>"#,
        escape(&report.outs.join(", "))
    );
    warnings(&mut out, report);
    summary(&mut out, report);
    out.push_str("<nav><ol>");
    for f in &report.figures {
        let _ = write!(
            out,
            "<li><a href=\"#{id}\">{t}</a></li>",
            id = f.id,
            t = escape(&f.title)
        );
    }
    out.push_str("</ol></nav>");
    for (i, f) in report.figures.iter().enumerate() {
        let _ = write!(
            out,
            r#"<section id="{id}"><h2>{n}. {t}</h2><div class="figure"><div class="charts" data-figure="{id}">"#,
            id = f.id,
            n = i + 1,
            t = escape(&f.title)
        );
        for (caption, svg) in &f.charts {
            if !caption.is_empty() {
                let _ = write!(out, "<h3>{}</h3>", escape(caption));
            }
            out.push_str(svg);
        }
        out.push_str(r#"<div class="definition">"#);
        for p in &f.definition {
            let _ = write!(out, "<p>{}</p>", escape(p));
        }
        out.push_str("</div></div><div>");
        for shown in &f.tables {
            table(&mut out, shown);
        }
        out.push_str("</div></div></section>");
    }
    let _ = writeln!(
        out,
        "<footer>Made by robostats {} with DuckDB {} from {}. States and definitions: \
         docs/crawls.md in robostats' repository.</footer></body></html>",
        env!("CARGO_PKG_VERSION"),
        escape(&report.duckdb),
        escape(&report.outs.join(", "))
    );
    out
}

/// What the figures rest on, when there is something to say: above
/// everything else.
fn warnings(out: &mut String, report: &Report) {
    let said = &report.rests_on.warnings;
    if said.is_empty() {
        return;
    }
    out.push_str(r#"<div class="warnings" role="alert">"#);
    for w in said {
        let _ = write!(out, "<p>{}</p>", escape(w));
    }
    out.push_str("</div>");
}

/// The data set per crawl of robots.txt fetches, above the figures; the
/// crawls of web pages only in a line below it.
fn summary(out: &mut String, report: &Report) {
    let t = &report.data_set;
    out.push_str(r#"<table class="summary" data-query="data_set"><caption>queries/data_set.sql: the data set, per crawl</caption><thead><tr>"#);
    for c in &t.columns {
        let _ = write!(out, "<th>{}</th>", escape(c));
    }
    out.push_str("</tr></thead>");
    body(out, &t.columns, &report.rests_on.crawls);
    out.push_str("</table>");
    let pages = &report.rests_on.pages;
    if !pages.is_empty() {
        let listed: Vec<String> = pages
            .iter()
            .map(|(crawl, n)| format!("{n} of {crawl}"))
            .collect();
        let _ = write!(
            out,
            r#"<p class="pages">Also captures of web pages, with no robots.txt capture in their crawl, in no figure: {}.</p>"#,
            escape(&listed.join(", "))
        );
    }
}
