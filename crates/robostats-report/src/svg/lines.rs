//! Lines over ordered categories (crawls), each named at its end.

use std::fmt::Write;

use super::doc::{Doc, text_width};
use super::numbers::{percent, ticks};
use super::{GRID, SMALL, Series, WIDTH, escape};

/// The least distance between two lines' names.
const GAP: f64 = 14.0;

/// Lines over ordered categories (crawls): one per series, values as
/// shares (None: no point). Each line is named at its last point, with
/// that point's value: names that would overlap are moved apart, and tied
/// to their line.
pub fn lines(label: &str, xs: &[String], series: &[(Series, Vec<Option<f64>>)]) -> String {
    let mut doc = Doc::new(label);
    if xs.is_empty() || series.is_empty() {
        return doc.empty("no data");
    }
    let ends: Vec<Option<(usize, f64)>> = series
        .iter()
        .map(|(_, v)| {
            v.iter()
                .enumerate()
                .rev()
                .find_map(|(i, v)| v.map(|v| (i, v)))
        })
        .collect();
    let names: Vec<String> = series
        .iter()
        .zip(&ends)
        .map(|((s, _), end)| match end {
            Some((_, v)) => format!("{} {}", s.name, percent(*v)),
            None => s.name.clone(),
        })
        .collect();
    let names_w = names
        .iter()
        .map(|n| text_width(n, SMALL))
        .fold(0.0, f64::max);
    let (left, top, plot_h) = (52.0, 10.0, 220.0);
    let right = (names_w + 22.0).min(WIDTH / 2.0);
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
    let step = (xs.len() as f64 * (text_width(&xs[0], SMALL) + 8.0) / plot_w)
        .ceil()
        .max(1.0) as usize;
    for (i, x) in xs.iter().enumerate() {
        if i % step == 0 || i + 1 == xs.len() {
            doc.text(x_of(i), top + plot_h + 16.0, "middle", SMALL, x);
        }
    }
    for (s, values) in series {
        draw(&mut doc, s, values, xs, &x_of, &y_of);
    }
    let wanted: Vec<f64> = ends
        .iter()
        .map(|e| e.map_or(top + plot_h, |(_, v)| y_of(v)))
        .collect();
    let placed = spread(&wanted, top, top + plot_h + 8.0);
    let x_name = left + plot_w + 14.0;
    for (k, ((s, _), end)) in series.iter().zip(&ends).enumerate() {
        if let Some((i, _)) = end {
            doc.line(
                x_of(*i) + 4.0,
                wanted[k],
                x_name - 3.0,
                placed[k],
                &s.colour,
                1.5,
            );
        }
        doc.text(x_name, placed[k] + 4.0, "start", SMALL, &names[k]);
    }
    doc.height = top + plot_h + 26.0;
    doc.finish()
}

/// A series' line and points.
fn draw(
    doc: &mut Doc,
    s: &Series,
    values: &[Option<f64>],
    xs: &[String],
    x_of: &dyn Fn(usize) -> f64,
    y_of: &dyn Fn(f64) -> f64,
) {
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

/// Positions as near `wanted` as they can be, at least `GAP` apart and
/// within `lo..=hi` (where there is room), in the order of `wanted`'s
/// values.
fn spread(wanted: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by(|a, b| wanted[*a].total_cmp(&wanted[*b]).then(a.cmp(b)));
    let mut at: Vec<f64> = order.iter().map(|i| wanted[*i]).collect();
    // Down from the top, then back up from the bottom.
    for k in 0..at.len() {
        let floor = if k == 0 { lo } else { at[k - 1] + GAP };
        at[k] = at[k].max(floor);
    }
    for k in (0..at.len()).rev() {
        let ceiling = if k + 1 == at.len() {
            hi
        } else {
            at[k + 1] - GAP
        };
        at[k] = at[k].min(ceiling);
    }
    let mut out = vec![0.0; wanted.len()];
    for (k, i) in order.iter().enumerate() {
        out[*i] = at[k];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_moved_apart_and_stay_in_order() {
        let at = spread(&[100.0, 100.0, 100.0, 40.0], 0.0, 300.0);
        assert_eq!(at, vec![100.0, 114.0, 128.0, 40.0]);
        // Pushed past the bottom: moved back up.
        let at = spread(&[295.0, 299.0], 0.0, 300.0);
        assert_eq!(at, vec![286.0, 300.0]);
    }
}
