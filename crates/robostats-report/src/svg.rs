//! Charts as standalone SVG: the few kinds the report draws, with nothing
//! outside the file (no fonts to fetch, no script).
//!
//! Every chart is `WIDTH` units wide with text of at least 12 units, so
//! that at a two-column paper's column width (about 3.3 inches) the
//! smallest text prints at about 6 to 7 points. Colours are the Okabe-Ito
//! palette, told apart with colour-blindness; bars also carry their
//! numbers in `<title>` (a tooltip in a browser) and in the report's table.

use std::fmt::Write;

pub use super::text::escape;

/// The width of every chart, in SVG units (pixels in a browser).
pub const WIDTH: f64 = 560.0;
/// Text size of labels.
const FONT: f64 = 13.0;
/// Text size of axis ticks and notes.
const SMALL: f64 = 12.0;
/// The text colour.
pub const INK: &str = "#222222";
const GRID: &str = "#d9d9d9";

/// Okabe & Ito's palette: black, orange, sky blue, bluish green, yellow,
/// blue, vermillion, reddish purple, and a grey.
pub mod colour {
    /// Vermillion.
    pub const VERMILLION: &str = "#D55E00";
    /// Orange.
    pub const ORANGE: &str = "#E69F00";
    /// Sky blue.
    pub const SKY: &str = "#56B4E9";
    /// Bluish green.
    pub const GREEN: &str = "#009E73";
    /// Yellow.
    pub const YELLOW: &str = "#F0E442";
    /// Blue.
    pub const BLUE: &str = "#0072B2";
    /// Reddish purple.
    pub const PURPLE: &str = "#CC79A7";
    /// Grey.
    pub const GREY: &str = "#999999";
    /// Dark grey.
    pub const DARK: &str = "#555555";
    /// Every colour above in the order a series takes them.
    pub const SERIES: [&str; 8] = [BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY, DARK, YELLOW];
}

/// The approximate width of `text` at `size` (sans-serif, average glyph).
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// `text` cut to fit `width` at `size`, with an ellipsis.
fn fit(text: &str, width: f64, size: f64) -> String {
    let max = (width / (size * 0.6)).floor().max(2.0) as usize;
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

/// The width of a column of `labels` (at least 60, at most `cap`, and a
/// margin).
fn label_width<'a>(labels: impl Iterator<Item = &'a str>, cap: f64) -> f64 {
    labels
        .map(|l| text_width(l, SMALL))
        .fold(60.0, f64::max)
        .min(cap)
        + 8.0
}

/// A share as a percentage, with precision where it matters.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p == 0.0 {
        "0 %".to_owned()
    } else if p.abs() < 0.1 {
        format!("{p:.2} %")
    } else if p.abs() < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// A share as a percentage, or a count.
fn number(value: f64, shares: bool) -> String {
    if shares { percent(value) } else { count(value) }
}

/// A count with thousands separators.
pub fn count(n: f64) -> String {
    let n = n.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// An SVG document being drawn.
struct Doc {
    body: String,
    height: f64,
    label: String,
}

impl Doc {
    fn new(label: &str) -> Doc {
        Doc {
            body: String::new(),
            height: 0.0,
            label: label.to_owned(),
        }
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: &str) {
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}">"#
        );
        if tip.is_empty() {
            self.body.push_str("</rect>");
        } else {
            let _ = write!(self.body, "<title>{}</title></rect>", escape(tip));
        }
    }

    fn text(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            escape(text)
        );
    }

    /// Text with a white outline under it, readable over bars.
    fn haloed(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke">{}</text>"#,
            escape(text)
        );
    }

    fn bold(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" font-weight="bold">{}</text>"#,
            escape(text)
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    /// A row's group heading, if it starts a group, and its label right
    /// aligned before `label_w`; returns the top of the row's bar.
    fn row_head(&mut self, mut y: f64, row: &Row, label_w: f64) -> f64 {
        if let Some(group) = &row.group {
            y += 6.0;
            self.bold(0.0, y + 11.0, "start", SMALL, group);
            y += 17.0;
        }
        let label = fit(&row.label, label_w - 8.0, SMALL);
        self.text(label_w - 6.0, y + 11.5, "end", SMALL, &label);
        y
    }

    /// A legend of coloured squares, wrapped to the width; returns the
    /// height used from `y`.
    fn legend(&mut self, y: f64, items: &[(&str, &str)]) -> f64 {
        let (mut x, mut row) = (0.0, 0.0);
        for (label, fill) in items {
            let w = 18.0 + text_width(label, SMALL) + 14.0;
            if x + w > WIDTH && x > 0.0 {
                x = 0.0;
                row += 18.0;
            }
            self.rect(x, y + row + 2.0, 12.0, 12.0, fill, "");
            self.text(x + 17.0, y + row + 12.5, "start", SMALL, label);
            x += w;
        }
        row + 22.0
    }

    /// A note in place of a chart with nothing to draw.
    fn empty(mut self, note: &str) -> String {
        self.text(WIDTH / 2.0, 30.0, "middle", FONT, note);
        self.height = 50.0;
        self.finish()
    }

    fn finish(self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h:.0}" width="{w}" height="{h:.0}" role="img" font-family="Helvetica, Arial, sans-serif" fill="{INK}"><title>{label}</title>{body}</svg>"#,
            w = WIDTH,
            h = self.height.ceil(),
            label = escape(&self.label),
            body = self.body,
        )
    }
}

/// A chart that only says why it has nothing to draw.
pub fn note(label: &str, text: &str) -> String {
    Doc::new(label).empty(text)
}

/// One series of a chart: its name and colour.
#[derive(Clone, Debug)]
pub struct Series {
    /// The name, in the legend.
    pub name: String,
    /// The fill or stroke.
    pub colour: String,
}

impl Series {
    /// A series.
    pub fn new(name: impl Into<String>, colour: impl Into<String>) -> Series {
        Series {
            name: name.into(),
            colour: colour.into(),
        }
    }
}

/// A labelled row of values, one per series.
#[derive(Clone, Debug)]
pub struct Row {
    /// The row's label, left of its bar.
    pub label: String,
    /// Values, one per series.
    pub values: Vec<f64>,
    /// A heading above this row (the first row of a group), if any.
    pub group: Option<String>,
}

/// A scale's ticks: about five round steps from 0, the last at or above
/// `max`.
fn ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 {
        return vec![0.0];
    }
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(raw);
    // From 0 to the first tick at or above `max`.
    let mut out = vec![0.0];
    while out[out.len() - 1] < max * 0.9999 {
        out.push(out.len() as f64 * step);
    }
    out
}

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

/// Lines over ordered categories (crawls): one per series, values as
/// shares (None: no point).
pub fn lines(label: &str, xs: &[String], series: &[(Series, Vec<Option<f64>>)]) -> String {
    let mut doc = Doc::new(label);
    if xs.is_empty() || series.is_empty() {
        return doc.empty("no data");
    }
    let items: Vec<(&str, &str)> = series
        .iter()
        .map(|(s, _)| (s.name.as_str(), s.colour.as_str()))
        .collect();
    let top = doc.legend(0.0, &items) + 10.0;
    let (left, right, plot_h) = (52.0, 20.0, 220.0);
    let plot_w = WIDTH - left - right;
    // The first and last crawl's labels stay inside the chart.
    let inset = (text_width(&xs[0], SMALL) / 2.0).min(plot_w / 4.0);
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |a, b| a.max(*b))
        .max(0.01);
    let ts = ticks(max);
    let max = *ts.last().unwrap_or(&max);
    let y_of = |v: f64| top + plot_h - v / max * plot_h;
    let x_of = |i: usize| {
        if xs.len() == 1 {
            left + plot_w / 2.0
        } else {
            left + inset + i as f64 / (xs.len() - 1) as f64 * (plot_w - 2.0 * inset)
        }
    };
    for t in &ts {
        doc.line(left, y_of(*t), left + plot_w, y_of(*t), GRID, 0.6);
        doc.text(left - 6.0, y_of(*t) + 4.0, "end", SMALL, &percent(*t));
    }
    let step = (xs.len() as f64 * text_width(&xs[0], SMALL) / plot_w)
        .ceil()
        .max(1.0) as usize;
    for (i, x) in xs.iter().enumerate() {
        if i % step == 0 || i + 1 == xs.len() {
            doc.text(x_of(i), top + plot_h + 16.0, "middle", SMALL, x);
        }
    }
    for (s, values) in series {
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| format!("{:.1},{:.1}", x_of(i), y_of(v))))
            .collect();
        if points.len() > 1 {
            let _ = write!(
                doc.body,
                r#"<polyline fill="none" stroke="{}" stroke-width="2.2" points="{}"/>"#,
                s.colour,
                points.join(" ")
            );
        }
        for (i, v) in values.iter().enumerate() {
            if let Some(v) = v {
                let _ = write!(
                    doc.body,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{}"><title>{}: {}: {}</title></circle>"#,
                    x_of(i),
                    y_of(*v),
                    s.colour,
                    escape(&s.name),
                    escape(&xs[i]),
                    percent(*v)
                );
            }
        }
    }
    doc.height = top + plot_h + 26.0;
    doc.finish()
}

/// A matrix of counts, shaded by size: rows and columns labelled.
pub fn matrix(label: &str, rows: &[String], cols: &[String], cells: &[Vec<f64>]) -> String {
    let mut doc = Doc::new(label);
    if rows.is_empty() || cols.is_empty() {
        return doc.empty("no data");
    }
    let label_w = label_width(rows.iter().map(String::as_str), WIDTH / 3.0);
    let cell_w = ((WIDTH - label_w) / cols.len() as f64).min(70.0);
    let cell_h = 22.0;
    let top = 34.0;
    doc.text(
        label_w + cell_w * cols.len() as f64 / 2.0,
        11.0,
        "middle",
        SMALL,
        "to (later crawl)",
    );
    for (j, c) in cols.iter().enumerate() {
        doc.text(
            label_w + (j as f64 + 0.5) * cell_w,
            top - 6.0,
            "middle",
            SMALL,
            &fit(c, cell_w, SMALL),
        );
    }
    let max = cells.iter().flatten().fold(0.0, |a: f64, b| a.max(*b));
    for (i, r) in rows.iter().enumerate() {
        let y = top + i as f64 * cell_h;
        doc.text(label_w - 6.0, y + 15.0, "end", SMALL, r);
        for (j, v) in cells[i].iter().enumerate() {
            let x = label_w + j as f64 * cell_w;
            let strength = if max > 0.0 { (v / max).sqrt() } else { 0.0 };
            let fill = shade(strength);
            let tip = format!("from {r} to {}: {}", cols[j], count(*v));
            doc.rect(x + 1.0, y + 1.0, cell_w - 2.0, cell_h - 2.0, &fill, &tip);
            if *v > 0.0 {
                let ink = if strength > 0.55 { "#ffffff" } else { INK };
                let _ = write!(
                    doc.body,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="{SMALL}" fill="{ink}">{}</text>"#,
                    x + cell_w / 2.0,
                    y + 15.0,
                    count(*v)
                );
            }
        }
    }
    doc.height = top + rows.len() as f64 * cell_h + 6.0;
    doc.finish()
}

/// White to Okabe-Ito blue, by `strength` from 0 to 1.
fn shade(strength: f64) -> String {
    let s = strength.clamp(0.0, 1.0);
    let mix = |from: f64, to: f64| (from + (to - from) * s).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(247.0, 0.0),
        mix(247.0, 114.0),
        mix(247.0, 178.0)
    )
}

/// Vertical bars over ordered bins (a histogram), with some bins marked
/// (a different colour and their label above).
pub struct Histogram<'a> {
    /// Each bin's label (under the axis, thinned to fit) and value.
    pub bins: &'a [(String, f64)],
    /// Bins to mark, with the text above them.
    pub marks: &'a [(usize, String)],
    /// Bins drawn in another colour (a tail), from this index on, and
    /// that colour.
    pub tail: Option<(usize, &'a str)>,
    /// The values are shares (else counts).
    pub shares: bool,
    /// The x axis's title.
    pub x_title: &'a str,
}

/// Draws a histogram.
pub fn histogram(label: &str, h: &Histogram<'_>) -> String {
    let mut doc = Doc::new(label);
    if h.bins.is_empty() {
        return doc.empty("no data");
    }
    let (left, right, plot_h) = (52.0, 10.0, 190.0);
    let plot_w = WIDTH - left - right;
    let max_value = h.bins.iter().map(|b| b.1).fold(0.0, f64::max);
    let ts = ticks(max_value);
    let max = ts.last().copied().filter(|m| *m > 0.0).unwrap_or(1.0);
    let w = plot_w / h.bins.len() as f64;
    let marks = place_marks(h, left, w, max, plot_h);
    // room above the plot for the highest label
    let top = marks
        .iter()
        .map(|m| 12.0 - plot_h - m.label_y)
        .fold(34.0, f64::max);
    for t in &ts {
        let y = top + plot_h - t / max * plot_h;
        doc.line(left, y, left + plot_w, y, GRID, 0.6);
        let text = number(*t, h.shares);
        doc.text(left - 6.0, y + 4.0, "end", SMALL, &text);
    }
    let label_every = (text_width("00000", SMALL) / w).ceil().max(1.0) as usize;
    for (i, (name, value)) in h.bins.iter().enumerate() {
        let x = left + i as f64 * w;
        let bh = value / max * plot_h;
        let colour = match h.tail {
            Some((from, colour)) if i >= from => colour,
            _ => colour::BLUE,
        };
        let shown = number(*value, h.shares);
        doc.rect(
            x + w * 0.08,
            top + plot_h - bh,
            w * 0.84,
            bh,
            colour,
            &format!("{name}: {shown}"),
        );
        if i % label_every == 0 {
            doc.text(x + w / 2.0, top + plot_h + 15.0, "middle", SMALL, name);
        }
    }
    let base = top + plot_h;
    for m in &marks {
        doc.line(
            m.x,
            base + m.bar_y - 3.0,
            m.x,
            base + m.label_y + 4.0,
            INK,
            1.0,
        );
        doc.haloed(m.x, base + m.label_y, m.anchor, SMALL, m.text);
    }
    doc.text(
        left + plot_w / 2.0,
        top + plot_h + 33.0,
        "middle",
        SMALL,
        h.x_title,
    );
    doc.height = top + plot_h + 42.0;
    doc.finish()
}

/// A histogram's label, its y relative to the plot's bottom.
struct Mark<'a> {
    x: f64,
    bar_y: f64,
    label_y: f64,
    anchor: &'static str,
    text: &'a str,
}

/// The histogram's labels, each above its bar, raised a line at a time
/// until it overlaps no label placed before it.
fn place_marks<'a>(h: &Histogram<'a>, left: f64, w: f64, max: f64, plot_h: f64) -> Vec<Mark<'a>> {
    let mut placed: Vec<(Mark<'a>, f64, f64)> = Vec::new();
    for (i, text) in h.marks {
        let Some((_, value)) = h.bins.get(*i) else {
            continue;
        };
        let x = left + (*i as f64 + 0.5) * w;
        let bar_y = -value / max * plot_h;
        let (anchor, x0) = if x < left + 60.0 {
            ("start", x)
        } else if x > WIDTH - 60.0 {
            ("end", x - text_width(text, SMALL))
        } else {
            ("middle", x - text_width(text, SMALL) / 2.0)
        };
        let x1 = x0 + text_width(text, SMALL);
        let mut label_y = bar_y - 16.0;
        while placed
            .iter()
            .any(|(m, a, b)| (m.label_y - label_y).abs() < 14.0 && x0 < b + 4.0 && *a < x1 + 4.0)
        {
            label_y -= 14.0;
        }
        placed.push((
            Mark {
                x,
                bar_y,
                label_y,
                anchor,
                text,
            },
            x0,
            x1,
        ));
    }
    placed.into_iter().map(|(m, _, _)| m).collect()
}

/// A dot per row on a horizontal scale centred on 0 (log ratios), rows
/// grouped; `None` values are listed as "n/a".
pub fn dots(label: &str, rows: &[Row], x_title: &str) -> String {
    let mut doc = Doc::new(label);
    if rows.is_empty() {
        return doc.empty("no data");
    }
    let label_w = label_width(rows.iter().map(|r| r.label.as_str()), 170.0);
    let plot_w = WIDTH - label_w - 16.0;
    let reach = rows
        .iter()
        .filter_map(|r| r.values.first())
        .filter(|v| v.is_finite())
        .fold(1.0f64, |a, b| a.max(b.abs()))
        .ceil();
    let x_of = |v: f64| label_w + (v + reach) / (2.0 * reach) * plot_w;
    let top = 6.0;
    let mut y = top;
    for row in rows {
        y = doc.row_head(y, row, label_w);
        doc.line(label_w, y + 7.5, label_w + plot_w, y + 7.5, GRID, 0.5);
        match row.values.first().filter(|v| v.is_finite()) {
            Some(v) => {
                let fill = if *v > 0.0 {
                    colour::VERMILLION
                } else {
                    colour::BLUE
                };
                let _ = write!(
                    doc.body,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{fill}"><title>{}: {v:.2}</title></circle>"#,
                    x_of(*v),
                    y + 7.5,
                    escape(&row.label)
                );
            }
            None => doc.text(x_of(0.0) + 8.0, y + 11.5, "start", SMALL, "n/a"),
        }
        y += 17.0;
    }
    doc.line(x_of(0.0), top, x_of(0.0), y + 2.0, INK, 1.0);
    let mut t = -reach;
    while t <= reach {
        doc.text(
            x_of(t),
            y + 16.0,
            "middle",
            SMALL,
            &format!("{t:+}").replace("+0", "0"),
        );
        t += if reach > 4.0 { 2.0 } else { 1.0 };
    }
    doc.text(label_w + plot_w / 2.0, y + 32.0, "middle", SMALL, x_title);
    doc.height = y + 40.0;
    doc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(12.0), "12");
        assert_eq!(percent(0.0642), "6.4 %");
        assert_eq!(percent(0.5), "50 %");
        assert_eq!(percent(0.0004), "0.04 %");
        assert_eq!(
            ticks(1.0),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
    }

    #[test]
    fn text_is_escaped_and_fitted() {
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(fit("abcdefghijklmnopqrstuvwxyz", 50.0, 12.0), "abcde…");
        let svg = bars("t<", &[("<script>".to_owned(), 3.0)], colour::BLUE, false);
        assert!(!svg.contains("<script>"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }

    #[test]
    fn charts_hold_no_character_xml_forbids() {
        let svg = bars(
            "x\u{FFFF}",
            &[("\u{FFFE}\u{1}".to_owned(), 1.0)],
            colour::BLUE,
            false,
        );
        assert!(!svg.contains(['\u{FFFF}', '\u{FFFE}', '\u{1}']));
    }

    #[test]
    fn every_chart_draws_nothing_without_data() {
        for svg in [
            stacked_bars("x", &[], &[], true),
            bars("x", &[], colour::BLUE, true),
            lines("x", &[], &[]),
            matrix("x", &[], &[], &[]),
            dots("x", &[], ""),
        ] {
            assert!(svg.contains("no data"), "{svg}");
        }
    }
}
