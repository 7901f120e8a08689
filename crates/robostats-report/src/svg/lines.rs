//! Lines over ordered categories (crawls).

use std::fmt::Write;

use super::doc::{Doc, text_width};
use super::numbers::{percent, ticks};
use super::{GRID, SMALL, Series, WIDTH, escape};

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
