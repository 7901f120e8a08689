//! The rank list of `robostats report` and `robostats query`
//! (`--ranks`, `--rank-column`, `--rank-bands`): checked as far as it can
//! be before DuckDB starts, then handed to the queries as DuckDB's
//! variables (`queries/strata.sql` reads them).

use std::path::Path;

use anyhow::{Context, anyhow, bail};
use robostats_report::Ranks;
use robostats_report::engine::{PATTERN_CHARS, Secret, literal_pattern};

use crate::output::dataset::file_secret;

/// The rank list's flags.
#[derive(Debug, Default, clap::Args)]
pub struct RankArgs {
    /// A rank list of hosts or registered domains: Tranco's CSV
    /// (rank,domain), a CSV or Parquet file with a rank and a host or
    /// domain column, or Common Crawl's Host Index (docs/crawls.md, "By
    /// popularity"). A path, a glob or an s3:// URL.
    #[arg(long, value_name = "FILE")]
    ranks: Option<std::path::PathBuf>,
    /// The rank list's column of ranks (of scores, in a Host Index)
    /// [default: rank; in a Host Index, hcrank].
    #[arg(long, value_name = "COL", requires = "ranks")]
    rank_column: Option<String>,
    /// The last rank of each popularity band, increasing
    /// [default: 1000,10000,100000,1000000].
    #[arg(long, value_name = "N,N,...", requires = "ranks")]
    rank_bands: Option<String>,
}

impl RankArgs {
    /// The rank list the flags name, if any ([`rank_list`]), its bands
    /// checked here (whole numbers from 1, increasing).
    pub fn resolve(&self) -> anyhow::Result<Option<Ranks>> {
        let Some(list) = &self.ranks else {
            return Ok(None);
        };
        let bands = self.rank_bands.as_deref().map(bands).transpose()?;
        let mut ranks = rank_list(list, self.rank_column.clone())?;
        ranks.bands = bands;
        Ok(Some(ranks))
    }
}

/// `--rank-bands` checked: the bands' last ranks, whole numbers from 1,
/// increasing.
fn bands(text: &str) -> anyhow::Result<Vec<u64>> {
    let parsed: Option<Vec<u64>> = text
        .split(',')
        .map(|b| b.trim().parse().ok().filter(|&b| b >= 1))
        .collect();
    match parsed {
        Some(bounds) if bounds.windows(2).all(|w| w[0] < w[1]) => Ok(bounds),
        _ => bail!(
            "--rank-bands {text}: give the last rank of each band, whole numbers from 1, \
             increasing (1000,10000,100000,1000000)"
        ),
    }
}

/// The rank list `named` (`--ranks`) as DuckDB is to read it, checked as
/// far as it can be before DuckDB starts: a URL as it is (one on S3 with
/// the secret that reads it there); a local file made absolute (the
/// queries run in a directory of their own), its pattern characters
/// matching only themselves; else, a name with pattern characters, a glob
/// (whose matches DuckDB checks), from the root.
fn rank_list(named: &Path, column: Option<String>) -> anyhow::Result<Ranks> {
    let text = named
        .to_str()
        .ok_or_else(|| anyhow!("--ranks {}: not a UTF-8 name", named.display()))?;
    let (list, secret) = if text.contains("://") {
        let secret = text
            .starts_with("s3://")
            .then(|| s3_secret(text))
            .transpose()?;
        (text.to_owned(), secret)
    } else if text.contains(PATTERN_CHARS) && !named.is_file() {
        (absolute_glob(text)?, None)
    } else {
        if !named.is_file() {
            if named.exists() {
                bail!("the rank list {text} is not a file");
            }
            bail!("the rank list {text} does not exist");
        }
        let path = std::path::absolute(named)
            .with_context(|| format!("cannot resolve the rank list {text}"))?;
        let path = path
            .to_str()
            .ok_or_else(|| anyhow!("--ranks {}: not a UTF-8 name", path.display()))?;
        (literal_pattern(path), None)
    };
    Ok(Ranks {
        named: text.to_owned(),
        list,
        column,
        bands: None,
        secret,
    })
}

/// The glob `pattern` from the root: after the current directory, whose
/// characters then match only themselves, if it is relative.
fn absolute_glob(pattern: &str) -> anyhow::Result<String> {
    if Path::new(pattern).is_absolute() {
        return Ok(pattern.to_owned());
    }
    let here = std::env::current_dir().context("cannot read the current directory")?;
    let here = here
        .to_str()
        .ok_or_else(|| anyhow!("the current directory {} has no UTF-8 name", here.display()))?;
    Ok(format!(
        "{}/{pattern}",
        literal_pattern(here).trim_end_matches('/')
    ))
}

/// The DuckDB S3 secret that reads the rank list `url` (`s3://bucket/...`),
/// scoped to its bucket, with the credentials ingest uses.
fn s3_secret(url: &str) -> anyhow::Result<(String, Secret)> {
    let (scope, secret) = file_secret(url).with_context(|| format!("--ranks {url}"))?;
    Ok((scope, Secret(secret.into_pairs())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_rank_list_is_checked_before_duckdb_reads_it() {
        let dir = std::env::temp_dir().join(format!("robostats-ranks-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tranco.csv");
        fs::write(&file, "1,example.com\n").unwrap();
        let ranks = rank_list(&file, Some("rank".to_owned())).unwrap();
        assert_eq!(ranks.named, file.display().to_string());
        assert_eq!(ranks.list, file.display().to_string());
        assert_eq!(
            (ranks.column.as_deref(), ranks.secret),
            (Some("rank"), None)
        );
        let missing = dir.join("missing.csv");
        let err = rank_list(&missing, None).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("the rank list {} does not exist", missing.display())
        );
        let err = rank_list(&dir, None).unwrap_err().to_string();
        assert!(err.ends_with("is not a file"), "{err}");
        // A glob: DuckDB says whether it matches, from the current directory.
        let glob = rank_list(Path::new("lists/top-*.csv"), None).unwrap();
        assert!(glob.list.starts_with('/') && glob.list.ends_with("/lists/top-*.csv"));
        assert_eq!(glob.named, "lists/top-*.csv");
        let url = rank_list(Path::new("https://example.com/top-1m.csv"), None).unwrap();
        assert_eq!(url.list, "https://example.com/top-1m.csv");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bands_are_increasing_whole_numbers() {
        assert_eq!(bands("10, 1000").unwrap(), [10, 1000]);
        for bad in ["1000,10", "0,5", "5,5", "x", ""] {
            assert!(bands(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_path_s_pattern_characters_match_only_themselves() {
        assert_eq!(literal_pattern("/a[1]/b*?c.csv"), "/a[[]1]/b[*][?]c.csv");
        assert_eq!(literal_pattern("/plain/list.csv"), "/plain/list.csv");
    }
}
