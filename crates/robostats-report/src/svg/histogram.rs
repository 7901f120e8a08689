//! Vertical bars over ordered bins, some of them marked.

use super::doc::{Doc, text_width};
use super::numbers::{number, ticks};
use super::{GRID, INK, SMALL, WIDTH, colour};

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
