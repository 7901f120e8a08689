//! A dot per row on a scale centred on 0 (log ratios).

use std::fmt::Write;

use super::doc::{Doc, label_width};
use super::{GRID, INK, Row, SMALL, WIDTH, colour, escape};

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
