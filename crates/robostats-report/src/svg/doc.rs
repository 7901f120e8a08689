//! An SVG document being drawn, and the width its text takes.

use std::fmt::Write;

use super::{FONT, INK, Row, SMALL, WIDTH, escape};

/// The approximate width of `text` at `size` (sans-serif, average glyph).
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// `text` cut to fit `width` at `size`, with an ellipsis.
pub(super) fn fit(text: &str, width: f64, size: f64) -> String {
    let max = (width / (size * 0.6)).floor().max(2.0) as usize;
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

/// The width of a column of `labels` (at least 60, at most `cap`, and a
/// margin): a tenth more than the average glyph gives, for names of wide
/// letters (`www.memagoga.com`).
pub(super) fn label_width<'a>(labels: impl Iterator<Item = &'a str>, cap: f64) -> f64 {
    labels
        .map(|l| text_width(l, SMALL) * 1.1)
        .fold(60.0, f64::max)
        .min(cap)
        + 8.0
}

/// An SVG document being drawn.
pub(super) struct Doc {
    pub(super) body: String,
    pub(super) height: f64,
    label: String,
}

impl Doc {
    pub(super) fn new(label: &str) -> Doc {
        Doc {
            body: String::new(),
            height: 0.0,
            label: label.to_owned(),
        }
    }

    pub(super) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: &str) {
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

    pub(super) fn text(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            escape(text)
        );
    }

    /// Text with a white outline under it, readable over bars.
    pub(super) fn haloed(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke">{}</text>"#,
            escape(text)
        );
    }

    /// Centred text inside a shape filled with `fill`, in a colour that
    /// reads on it.
    pub(super) fn inside(&mut self, x: f64, y: f64, text: &str, fill: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="middle" font-size="{SMALL}" fill="{}">{}</text>"#,
            super::colour::text_on(fill),
            escape(text)
        );
    }

    pub(super) fn bold(&mut self, x: f64, y: f64, anchor: &str, size: f64, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}" font-weight="bold">{}</text>"#,
            escape(text)
        );
    }

    pub(super) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    /// A row's group heading, if it starts a group, and its label right
    /// aligned before `label_w`; returns the top of the row's bar.
    pub(super) fn row_head(&mut self, mut y: f64, row: &Row, label_w: f64) -> f64 {
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
    pub(super) fn legend(&mut self, y: f64, items: &[(&str, &str)]) -> f64 {
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
    pub(super) fn empty(mut self, note: &str) -> String {
        self.text(WIDTH / 2.0, 30.0, "middle", FONT, note);
        self.height = 50.0;
        self.finish()
    }

    pub(super) fn finish(self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h:.0}" width="{w}" height="{h:.0}" role="img" font-family="Helvetica, Arial, sans-serif" fill="{INK}"><title>{label}</title>{body}</svg>"#,
            w = WIDTH,
            h = self.height.ceil(),
            label = escape(&self.label),
            body = self.body,
        )
    }
}
