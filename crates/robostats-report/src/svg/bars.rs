//! Horizontal bars: stacked (one bar per row, a segment per series) and
//! plain (one value per row, written at the bar's end).

use super::doc::{Doc, label_width, text_width};
use super::numbers::{number, ticks};
use super::{GRID, LABELS, Row, SMALL, Series, WIDTH};

/// Horizontal bars, one per row, each stacked from the series' values
/// (shares from 0 to 1, or counts when `shares` is false).
pub fn stacked_bars(label: &str, rows: &[Row], series: &[Series], shares: bool) -> String {
    let mut doc = Doc::new(label);
    if rows.is_empty() {
        return doc.empty("no data");
    }
    let items: Vec<(&str, &str)> = series
        .iter()
        .map(|s| (s.name.as_str(), s.colour.as_str()))
        .collect();
    // The scale above the bars too: a long chart is read from the top.
    let top = doc.legend(0.0, &items) + 20.0;
    let label_w = label_width(rows.iter().map(|r| r.label.as_str()), 170.0);
    let plot_w = WIDTH - label_w - 24.0;
    let max = if shares {
        1.0
    } else {
        let largest = rows
            .iter()
            .map(|r| r.values.iter().sum::<f64>())
            .fold(0.0, f64::max);
        ticks(largest).last().copied().unwrap_or(largest)
    };
    let bar = 15.0;
    let pitch = 19.0;
    let mut y = top + 4.0;
    for row in rows {
        y = doc.row_head(y, row, label_w);
        let mut x = label_w;
        for (value, s) in row.values.iter().zip(series) {
            let w = if max > 0.0 { value / max * plot_w } else { 0.0 };
            let shown = number(*value, shares);
            doc.rect(
                x,
                y,
                w,
                bar,
                &s.colour,
                &format!("{}: {}: {shown}", row.label, s.name),
            );
            x += w;
        }
        y += pitch;
    }
    axis(&mut doc, label_w, plot_w, top, y + 2.0, max, shares);
    for t in ticks(max) {
        let x = label_w + if max > 0.0 { t / max * plot_w } else { 0.0 };
        let text = number(t, shares);
        doc.text(x, top - 4.0, "middle", SMALL, &text);
    }
    doc.height = y + 22.0;
    doc.finish()
}

/// A horizontal axis under a plot, with grid lines up to `top`.
fn axis(doc: &mut Doc, x0: f64, plot_w: f64, top: f64, bottom: f64, max: f64, shares: bool) {
    for t in ticks(max) {
        let x = x0 + if max > 0.0 { t / max * plot_w } else { 0.0 };
        doc.line(x, top, x, bottom, GRID, 0.6);
        let text = number(t, shares);
        doc.text(x, bottom + 14.0, "middle", SMALL, &text);
    }
}

/// Horizontal bars, one value each, with the value written at the bar's end.
pub fn bars(label: &str, rows: &[(String, f64)], colour: &str, shares: bool) -> String {
    let texts: Vec<String> = rows.iter().map(|r| number(r.1, shares)).collect();
    let rows: Vec<Row> = rows
        .iter()
        .map(|(text, value)| Row {
            label: text.clone(),
            values: vec![*value],
            group: None,
        })
        .collect();
    grouped_bars(label, &rows, colour, &texts)
}

/// Horizontal bars, a row's first value each, with its text (one per row)
/// written at the bar's end, and a heading above each row that starts a
/// group.
pub fn grouped_bars(label: &str, rows: &[Row], colour: &str, texts: &[String]) -> String {
    let mut doc = Doc::new(label);
    if rows.is_empty() {
        return doc.empty("no data");
    }
    let label_w = label_width(rows.iter().map(|r| r.label.as_str()), LABELS);
    let room = texts
        .iter()
        .map(|t| text_width(t, SMALL))
        .fold(40.0, f64::max);
    let plot_w = WIDTH - label_w - room - 10.0;
    let value = |r: &Row| r.values.first().copied().unwrap_or(0.0);
    let max = rows.iter().map(value).fold(0.0, f64::max);
    let mut y = 4.0;
    for (row, shown) in rows.iter().zip(texts) {
        y = doc.row_head(y, row, label_w);
        let w = if max > 0.0 {
            value(row) / max * plot_w
        } else {
            0.0
        };
        doc.rect(
            label_w,
            y,
            w,
            15.0,
            colour,
            &format!("{}: {shown}", row.label),
        );
        doc.text(label_w + w + 4.0, y + 11.5, "start", SMALL, shown);
        y += 19.0;
    }
    doc.height = y + 4.0;
    doc.finish()
}
