//! `robostats compact`: fewer, larger part files for a finished data set.

use crate::cli::ExitCode;
use std::path::PathBuf;

use crate::output::compact::crawls::CrawlTables;
use crate::output::compact::{self, Options};
use crate::output::dataset::{CRAWL_TABLES, S3Out};
use crate::output::location::Location;
use anyhow::{Context, bail};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output directory of `ingest`, or its `s3://BUCKET/PREFIX/`
    /// (compacted in a local copy that downloads only the files it
    /// merges, then published as a new generation: docs/object-storage.md).
    #[arg(value_name = "OUT|S3-URL")]
    out: PathBuf,
    /// On S3: seconds the merged files are kept after the new generation
    /// is committed, for the queries begun before it: the first compact or
    /// ingest that starts later deletes them (compact does not wait; 0:
    /// it deletes them at once, when nobody reads the data set meanwhile).
    #[arg(long, value_name = "SECS", default_value_t = crate::output::dataset::s3::GRACE.as_secs())]
    grace: u64,
    /// Merge part files into files of about this size (K, M, G, with or
    /// without iB; plain bytes); files this large already stay as they are.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
    target_size: u64,
    /// Files written at once [default: all cores].
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// The Python whose DuckDB writes the crawl tables (as for `robostats
    /// report`; without one, compact warns and writes none).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Do not write the crawl tables (crawl_hosts/, crawl_chains/: what the
    /// crawl-over-crawl views compute from every capture, written once;
    /// docs/crawls.md). Without them the views compute every crawl.
    #[arg(long)]
    no_crawl_tables: bool,
}

/// `512`, `64K`, `256MiB`, `1G`, `1.5GB`: binary multiples.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size like 256MiB"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("'{text}': unknown unit (use K, M, G or T)")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !(1.0..=u64::MAX as f64).contains(&bytes) {
        return Err(format!("'{text}' is out of range"));
    }
    Ok(bytes as u64)
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let started = std::time::Instant::now();
    let crawl_tables = if args.no_crawl_tables {
        Err("--no-crawl-tables".to_owned())
    } else {
        robostats_report::engine::Engine::find(args.python.as_deref()).map_err(|e| e.to_string())
    };
    let options = Options {
        target_bytes: args.target_size,
        threads,
        crawl_tables,
    };
    let done = match Location::parse(args.out.as_os_str()).map_err(anyhow::Error::msg)? {
        Location::S3(location) => {
            let out = S3Out::from_environment(location);
            let at = compact::s3::S3Compact {
                location: &out.location,
                s3: &out.options,
                timeout: out.timeout,
                grace: std::time::Duration::from_secs(args.grace),
            };
            compact::s3::run(&at, &options)
        }
        Location::Dir(dir) => compact::run(&dir, &options),
    }
    .with_context(|| format!("cannot compact '{}'", args.out.display()))?;
    if done.unrecorded > 0 {
        println!(
            "bodies: {} left by runs killed before they recorded them, deleted (their rows \
             were read by no capture's lines that another writer does not hold)",
            crate::cli::plural(done.unrecorded as u64, "writer's files", "writers' files")
        );
    }
    let (mut before, mut after) = (0, 0);
    for r in &done.tables {
        before += r.files_before;
        after += r.files_after;
        if r.files_before != r.files_after {
            let dropped = if r.rows_dropped > 0 {
                format!("; {} rows of bodies stored twice left out", r.rows_dropped)
            } else {
                String::new()
            };
            println!(
                "{}: {} part files -> {} ({} rows moved{dropped})",
                r.table, r.files_before, r.files_after, r.rows_merged
            );
        }
    }
    println!(
        "compact: {before} part files -> {after} in {:.1} s -> {}",
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    if let Some(f) = done.fetched {
        println!(
            "compact: read {} of {} part files from S3 ({:.1} of {:.1} MiB)",
            f.files,
            f.of_files,
            f.bytes as f64 / 1048576.0,
            f.of_bytes as f64 / 1048576.0
        );
    }
    for warning in &done.warnings {
        eprintln!("robostats: warning: {warning}");
    }
    print_crawl_tables(done.crawl_tables.as_ref(), args.no_crawl_tables);
    if !done.owed_by.is_empty() {
        eprintln!(
            "robostats: warning: stored bodies whose files are gone are owed by {}: run \
             ingest with the same inputs (it reads them again for their bodies only)",
            crate::cli::listed(&done.owed_by)
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// What became of the crawl tables, in a line.
fn print_crawl_tables(done: Option<&CrawlTables>, not_wanted: bool) {
    match done {
        Some(CrawlTables::Written(rows)) => {
            let tables: Vec<String> = CRAWL_TABLES
                .iter()
                .zip(rows)
                .map(|(name, rows)| format!("{name}/ {rows} rows"))
                .collect();
            println!("crawl tables: written, {}", tables.join(", "));
        }
        Some(CrawlTables::UpToDate) => println!("crawl tables: up to date"),
        Some(CrawlTables::Skipped(why)) if !not_wanted => eprintln!(
            "robostats: warning: crawl tables not written ({why}): the views compute every \
             crawl's hosts each time"
        ),
        Some(CrawlTables::Failed(why)) => eprintln!(
            "robostats: warning: crawl tables not written: {why}; the rows are compacted all \
             the same, and the views compute the crawls the tables do not hold"
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("1.5 GB"), Ok(3 << 29));
        for bad in ["", "MiB", "1X", "-1", "0"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
