//! A whole split into its parts (one bar across the chart), above stacked
//! bars of small shares of that whole on a scale fitted to the longest
//! bar: each segment's share written in it where it fits, each bar's total
//! after it, and labels whole. Those bars are also drawn alone
//! ([`share_bars`]), each with a text of its own after it.

use super::doc::{Doc, label_width, text_width};
use super::numbers::{percent, ticks};
use super::{GRID, LABELS, Row, SMALL, Series, WIDTH};

/// Room after a bar for its total (at least).
const TOTAL: f64 = 52.0;

/// What [`breakdown`] draws: shares of one whole (0 to 1).
#[derive(Debug)]
pub struct Breakdown<'a> {
    /// The whole's heading.
    pub whole_title: &'a str,
    /// The whole's parts and their shares, drawn as one bar.
    pub whole: &'a [(Series, f64)],
    /// The bars' heading.
    pub bars_title: &'a str,
    /// The bars' series (their segments).
    pub series: &'a [Series],
    /// The bars, a value per series.
    pub rows: &'a [Row],
    /// The number written after each bar (its total, as the query gives
    /// it), one per row.
    pub totals: &'a [f64],
}

/// The whole as one bar with a legend holding each part's share, then the
/// bars on a scale from 0 to their longest; `label` is the chart's title.
pub fn breakdown(label: &str, b: &Breakdown) -> String {
    let mut doc = Doc::new(label);
    if b.rows.is_empty() {
        return doc.empty("no data");
    }
    let mut y = whole(&mut doc, 0.0, b.whole_title, b.whole);
    let totals: Vec<String> = b.totals.iter().map(|t| percent(*t)).collect();
    let bars_of = Bars {
        title: b.bars_title,
        series: b.series,
        rows: b.rows,
        texts: &totals,
        at_least: 0.0,
    };
    y = bars(&mut doc, y + 12.0, &bars_of);
    doc.height = y;
    doc.finish()
}

/// Stacked bars of shares (0 to 1), one per row, on a scale fitted to the
/// longest (or to `at_least`, for charts shown side by side), as
/// [`breakdown`] draws its bars: each segment's share written in it where
/// it fits, and each row's text (one per row) after its bar; `label` is
/// the chart's title.
pub fn share_bars(
    label: &str,
    series: &[Series],
    rows: &[Row],
    texts: &[String],
    at_least: f64,
) -> String {
    let mut doc = Doc::new(label);
    if rows.is_empty() {
        return doc.empty("no data");
    }
    let b = Bars {
        title: "",
        series,
        rows,
        texts,
        at_least,
    };
    doc.height = bars(&mut doc, 0.0, &b);
    doc.finish()
}

/// Stacked bars: a heading (none if empty), the series, the rows and the
/// text after each row's bar.
struct Bars<'a> {
    title: &'a str,
    series: &'a [Series],
    rows: &'a [Row],
    texts: &'a [String],
    /// The axis reaches at least this far (charts drawn side by side share
    /// one scale).
    at_least: f64,
}

/// The whole's heading, its bar and legend from `y`; returns the bottom.
fn whole(doc: &mut Doc, mut y: f64, title: &str, parts: &[(Series, f64)]) -> f64 {
    doc.bold(0.0, y + 12.0, "start", SMALL, title);
    y += 18.0;
    let mut x = 0.0;
    for (s, share) in parts {
        let w = share * WIDTH;
        let shown = percent(*share);
        doc.rect(x, y, w, 18.0, &s.colour, &format!("{}: {shown}", s.name));
        if text_width(&shown, SMALL) + 6.0 <= w {
            doc.inside(x + w / 2.0, y + 13.5, &shown, &s.colour);
        }
        x += w;
    }
    let names: Vec<String> = parts
        .iter()
        .map(|(s, share)| format!("{} {}", s.name, percent(*share)))
        .collect();
    let items: Vec<(&str, &str)> = names
        .iter()
        .zip(parts)
        .map(|(n, (s, _))| (n.as_str(), s.colour.as_str()))
        .collect();
    y + 22.0 + doc.legend(y + 22.0, &items)
}

/// The bars' heading, legend, scale and bars from `y`; returns the bottom.
fn bars(doc: &mut Doc, mut y: f64, b: &Bars) -> f64 {
    if !b.title.is_empty() {
        doc.bold(0.0, y + 12.0, "start", SMALL, b.title);
        y += 18.0;
    }
    let items: Vec<(&str, &str)> = b
        .series
        .iter()
        .map(|s| (s.name.as_str(), s.colour.as_str()))
        .collect();
    let top = y + doc.legend(y, &items) + 20.0;
    let label_w = label_width(b.rows.iter().map(|r| r.label.as_str()), LABELS);
    let room = b
        .texts
        .iter()
        .map(|t| text_width(t, SMALL) + 8.0)
        .fold(TOTAL, f64::max);
    let plot_w = WIDTH - label_w - room;
    let largest = b
        .rows
        .iter()
        .map(|r| r.values.iter().sum::<f64>())
        .fold(b.at_least, f64::max);
    let ts = ticks(largest);
    let max = ts.last().copied().unwrap_or(largest);
    let x_of = |v: f64| label_w + if max > 0.0 { v / max * plot_w } else { 0.0 };
    // The grid under the bars: a row takes 19 units, a group's heading 23.
    let groups = b.rows.iter().filter(|r| r.group.is_some()).count();
    let bottom = top + 2.0 + 19.0 * b.rows.len() as f64 + 23.0 * groups as f64;
    for t in ts {
        doc.line(x_of(t), top, x_of(t), bottom, GRID, 0.6);
        doc.text(x_of(t), top - 4.0, "middle", SMALL, &percent(t));
        doc.text(x_of(t), bottom + 14.0, "middle", SMALL, &percent(t));
    }
    y = top + 4.0;
    for (row, text) in b.rows.iter().zip(b.texts) {
        y = doc.row_head(y, row, label_w);
        let mut x = label_w;
        for (value, s) in row.values.iter().zip(b.series) {
            let w = x_of(*value) - label_w;
            let shown = percent(*value);
            let tip = format!("{}: {}: {shown}", row.label, s.name);
            doc.rect(x, y, w, 15.0, &s.colour, &tip);
            if text_width(&shown, SMALL) + 6.0 <= w {
                doc.inside(x + w / 2.0, y + 11.5, &shown, &s.colour);
            }
            x += w;
        }
        doc.text(x + 4.0, y + 11.5, "start", SMALL, text);
        y += 19.0;
    }
    bottom + 22.0
}
