//! Figure 6: sizes and line counts of the robots.txt bodies, as
//! histograms.

use super::common::{crawl_label, latest, report_crawl};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Histogram, colour};

/// The line counts the histogram shows one by one; the rest are one bin.
const MAX_LINES: i64 = 60;

/// A line-count peak is labelled with the template most of its captures
/// are when at least this share of them are.
const PEAK_TEMPLATE: f64 = 0.25;

/// A histogram's values: its bins (label, share), the bins marked (with
/// their text) and the first bin of its tail, if any.
struct Bins {
    bins: Vec<(String, f64)>,
    marks: Vec<(usize, String)>,
    tail: Option<usize>,
}

/// Captures by lines: a bin per line count up to `MAX_LINES`, then one
/// for the rest; the three highest peaks marked, with their template
/// when it makes `PEAK_TEMPLATE` of the peak.
fn line_bins(lc: &Table) -> Bins {
    let mut bins: Vec<(String, f64)> = (0..=MAX_LINES).map(|n| (n.to_string(), 0.0)).collect();
    bins.push((format!(">{MAX_LINES}"), 0.0));
    // the template most captures of a line count are, and its share of them
    let mut made_by: Vec<Option<(String, f64)>> = vec![None; bins.len()];
    for r in &lc.rows {
        let lines = lc.num(r, "lines") as i64;
        let i = lines.clamp(0, MAX_LINES + 1) as usize;
        bins[i].1 += lc.num(r, "share");
        let template = lc.text(r, "template");
        if i as i64 == lines && !template.is_empty() {
            made_by[i] = Some((template.to_owned(), lc.num(r, "template_share")));
        }
    }
    let mut peaks: Vec<usize> = (1..=MAX_LINES as usize).collect();
    peaks.sort_by(|a, b| bins[*b].1.total_cmp(&bins[*a].1));
    let marks: Vec<(usize, String)> = peaks
        .iter()
        .take(3)
        .filter(|i| bins[**i].1 > 0.0)
        .map(|&i| match &made_by[i] {
            Some((template, part)) if *part >= PEAK_TEMPLATE => (
                i,
                format!("{} lines: {template} {}", bins[i].0, svg::percent(*part)),
            ),
            _ => (i, format!("{} lines", bins[i].0)),
        })
        .collect();
    Bins {
        bins,
        marks,
        tail: Some(MAX_LINES as usize + 1),
    }
}

/// Captures by bytes: a bin per power of two up to the largest (empty
/// bins included, so that the x axis is a log scale), 0 apart; the tail
/// from the bin holding Google's limit, marked with the captures past it.
fn size_bins(sh: &Table) -> Bins {
    let largest = sh
        .rows
        .iter()
        .map(|r| sh.num(r, "lower_bytes"))
        .fold(0.0, f64::max);
    let mut bins: Vec<(String, f64)> = vec![("0".to_owned(), 0.0)];
    let mut lower = 1.0;
    while lower <= largest {
        bins.push((bytes(lower), 0.0));
        lower *= 2.0;
    }
    for r in &sh.rows {
        let lower = sh.num(r, "lower_bytes");
        let i = if lower < 1.0 {
            0
        } else {
            lower.log2().round() as usize + 1
        };
        if let Some(bin) = bins.get_mut(i) {
            bin.1 += sh.num(r, "share");
        }
    }
    // Google reads 512,000 bytes: the bin holding that size onwards is
    // the tail (it also holds bodies a little under the limit).
    let over: f64 = sh.rows.iter().map(|r| sh.num(r, "over_500kib")).sum();
    let tail = (over > 0.0).then(|| (512_000f64.log2().floor() as usize + 1).min(bins.len() - 1));
    let marks: Vec<(usize, String)> = tail
        .map(|i| (i, format!("{} over 500 KiB", svg::count(over))))
        .into_iter()
        .collect();
    Bins { bins, marks, tail }
}

/// Bytes as 0, 512, 1K, 64K, 1M.
fn bytes(n: f64) -> String {
    let n = n as u64;
    if n >= 1 << 20 {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

/// `b` drawn as a histogram of shares, its tail in `tail_colour`.
fn draw(label: &str, b: &Bins, tail_colour: &str, x_title: &str) -> String {
    svg::histogram(
        label,
        &Histogram {
            bins: &b.bins,
            marks: &b.marks,
            tail: b.tail.map(|t| (t, tail_colour)),
            shares: true,
            x_title,
        },
    )
}

pub(super) fn figure(results: &Results) -> Figure {
    let lc = results.get(Query::LineCounts);
    let lines_svg = draw(
        "Lines per robots.txt",
        &line_bins(lc),
        colour::GREY,
        "lines (as Google counts them)",
    );
    let sh = results.get(Query::SizeHistogram);
    let size_svg = draw(
        "Bytes per robots.txt",
        &size_bins(sh),
        colour::VERMILLION,
        "bytes (bins from the size shown to twice it)",
    );
    Figure {
        id: "sizes",
        title: format!("Sizes and line counts, {}", report_crawl(lc)),
        charts: vec![
            ("Lines".to_owned(), lines_svg),
            ("Bytes".to_owned(), size_svg),
        ],
        definition: definition(&report_crawl(lc)),
        tables: tables(results, lc, sh),
    }
}

fn definition(crawl: &str) -> Vec<String> {
    vec![
        format!(
            "Share of the captures of {crawl} whose body was parsed as robots.txt (2xx), by lines (as \
             Google counts them; {MAX_LINES}+ in the last bin) and by payload bytes on a log \
             scale (bins 1-2, 2-4, ... bytes; 0 apart). The three most frequent line counts \
             are labelled, with the platform default (template) most of their captures are \
             when at least {} are: sharp peaks are platform defaults (Dinzinger & \
             Granitzer's 18-line spike). Red: from the bin holding Google's 500 KiB limit \
             (512,000 bytes), past which it does not read.",
            svg::percent(PEAK_TEMPLATE)
        ),
        "Templates: hosts whose robots.txt (their deciding capture, parsed) is a \
         platform's default file, or starts with Cloudflare's managed block; blank: no \
         known default (docs/templates.md)."
            .to_owned(),
    ]
}

/// The line counts drawn, every size bin, and the latest crawl's
/// templates.
fn tables(results: &Results, lc: &Table, sh: &Table) -> Vec<Shown> {
    let tp = results.get(Query::Templates);
    let latest_crawl = latest(tp);
    vec![
        Shown::of(
            Query::LineCounts,
            lc,
            &["lines", "captures", "share"],
            format!("up to {MAX_LINES} lines (the last bin adds the rest)"),
            usize::MAX,
            |r| lc.num(r, "lines") <= MAX_LINES as f64,
        ),
        Shown::of(
            Query::SizeHistogram,
            sh,
            &[
                "lower_bytes",
                "upper_bytes",
                "captures",
                "share",
                "over_500kib",
            ],
            "every row",
            usize::MAX,
            |_| true,
        ),
        Shown::of(
            Query::Templates,
            tp,
            &[
                "platform",
                "template",
                "hosts",
                "share",
                "rulesets",
                "example_host",
            ],
            match &latest_crawl {
                Some(c) => format!("{}, every template found", crawl_label(c)),
                None => "every template found".to_owned(),
            },
            usize::MAX,
            |r| {
                latest_crawl
                    .as_deref()
                    .is_none_or(|c| tp.text(r, "crawl") == c)
            },
        ),
    ]
}
