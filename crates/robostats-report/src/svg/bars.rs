//! Horizontal bars: stacked (one bar per row, a segment per series) and
//! plain (one value per row, written at the bar's end).

use super::doc::{Doc, fit, label_width};
use super::numbers::{number, ticks};
use super::{GRID, Row, SMALL, Series, WIDTH};

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
    let series = [Series::new("", colour)];
    let mut doc = Doc::new(label);
    if rows.is_empty() {
        return doc.empty("no data");
    }
    let label_w = label_width(rows.iter().map(|r| r.0.as_str()), 200.0);
    let plot_w = WIDTH - label_w - 70.0;
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    let mut y = 4.0;
    for (text, value) in rows {
        doc.text(
            label_w - 6.0,
            y + 11.5,
            "end",
            SMALL,
            &fit(text, label_w - 8.0, SMALL),
        );
        let w = if max > 0.0 { value / max * plot_w } else { 0.0 };
        let shown = number(*value, shares);
        doc.rect(
            label_w,
            y,
            w,
            15.0,
            &series[0].colour,
            &format!("{text}: {shown}"),
        );
        doc.text(label_w + w + 4.0, y + 11.5, "start", SMALL, &shown);
        y += 19.0;
    }
    doc.height = y + 4.0;
    doc.finish()
}
