//! Charts as standalone SVG: the few kinds the report draws, with nothing
//! outside the file (no fonts to fetch, no script).
//!
//! Every chart is `WIDTH` units wide with text of at least 12 units, so
//! that at a two-column paper's column width (about 3.3 inches) the
//! smallest text prints at about 6 to 7 points. Colours are the Okabe-Ito
//! palette, told apart with colour-blindness; bars also carry their
//! numbers in `<title>` (a tooltip in a browser) and in the report's table.
//!
//! A file per kind of chart: bars (stacked, and plain with their values),
//! a breakdown (a whole's parts, then small shares of it zoomed),
//! histogram, lines, matrix and dots; `doc` is the document they draw
//! into, `numbers` writes counts, shares and a scale's ticks, and
//! `colour` holds the palette.

mod bars;
mod breakdown;
pub mod colour;
mod doc;
mod dots;
mod histogram;
mod lines;
mod matrix;
mod numbers;

pub use super::text::escape;
pub use bars::{bars, grouped_bars, stacked_bars};
pub use breakdown::{Breakdown, breakdown, share_bars};
pub use dots::dots;
pub use histogram::{Histogram, histogram};
pub use lines::lines;
pub use matrix::matrix;
pub use numbers::{count, percent};

use doc::Doc;

/// The width of every chart, in SVG units (pixels in a browser).
pub const WIDTH: f64 = 560.0;
/// The widest column of labels a list of bars takes: the longest crawler
/// token (33 characters) whole.
const LABELS: f64 = 270.0;
/// Text size of labels.
const FONT: f64 = 13.0;
/// Text size of axis ticks and notes.
const SMALL: f64 = 12.0;
/// The text colour.
pub const INK: &str = "#222222";
const GRID: &str = "#d9d9d9";

/// `chart` (one of this module's documents) under a heading and a caption
/// of its own, as a file of its own: the chart drawn below them, as it is.
pub fn titled(chart: &str, heading: &str, caption: &str) -> String {
    // The chart's own height (its opening tag says it).
    let height = chart
        .split_once(" height=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .and_then(|(h, _)| h.parse::<f64>().ok())
        .unwrap_or(0.0);
    let lines = [(heading, FONT + 2.0, "bold"), (caption, FONT, "normal")];
    let shown: Vec<_> = lines.iter().filter(|(t, _, _)| !t.is_empty()).collect();
    let top = 8.0 + shown.len() as f64 * (FONT + 6.0);
    let mut text = String::new();
    for (i, (t, size, weight)) in shown.iter().enumerate() {
        text.push_str(&format!(
            r#"<text x="0" y="{:.1}" font-size="{size}" font-weight="{weight}">{}</text>"#,
            (i as f64 + 1.0) * (FONT + 6.0),
            escape(&doc::fit(t, WIDTH, *size))
        ));
    }
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {h:.0}" width="{WIDTH}" height="{h:.0}" role="img" font-family="Helvetica, Arial, sans-serif" fill="{INK}"><title>{title}</title>{text}<g transform="translate(0 {top:.1})">{chart}</g></svg>"#,
        h = (height + top).ceil(),
        title = escape(&if caption.is_empty() {
            heading.to_owned()
        } else {
            format!("{heading}: {caption}")
        }),
    )
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

#[cfg(test)]
mod tests {
    use super::doc::fit;
    use super::*;

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
    fn numbers_in_a_bar_read_on_its_colour() {
        assert_eq!(colour::text_on(colour::VERMILLION), "#FFFFFF");
        assert_eq!(colour::text_on(colour::BLUE), "#FFFFFF");
        assert_eq!(colour::text_on(colour::SKY), INK);
        assert_eq!(colour::text_on("#D9D9D9"), INK);
        assert_eq!(colour::text_on("bad"), INK);
    }

    #[test]
    fn every_chart_draws_nothing_without_data() {
        for svg in [
            stacked_bars("x", &[], &[], true),
            bars("x", &[], colour::BLUE, true),
            grouped_bars("x", &[], colour::BLUE, &[]),
            breakdown(
                "x",
                &Breakdown {
                    whole_title: "",
                    whole: &[],
                    bars_title: "",
                    series: &[],
                    rows: &[],
                    totals: &[],
                },
            ),
            lines("x", &[], &[]),
            matrix("x", &[], &[], &[]),
            dots("x", &[], ""),
            share_bars("x", &[], &[], &[], 0.0),
        ] {
            assert!(svg.contains("no data"), "{svg}");
        }
    }
}
