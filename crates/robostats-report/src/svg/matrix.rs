//! A matrix of counts, shaded by size (the transitions between crawls).

use std::fmt::Write;

use super::doc::{Doc, fit, label_width};
use super::numbers::count;
use super::{INK, SMALL, WIDTH};

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
