//! What an output directory is checked for before anything is written
//! into it: not a URL, not of an earlier format, no foreign files.

use std::fs;
use std::path::Path;

use super::{
    AGENTS_PREFIX, At, EMPTY_PART, Op, OutputError, is_finished_part, is_schema_only, manifest,
};
use crate::classify::Table;

/// The scheme `dir` reads as, when it reads as a URL: the text before
/// its first `:`, if that is a scheme name (a letter, then letters,
/// digits, `+`, `-` or `.`) of at least two characters (one is a Windows
/// drive, `C:`). `./s3:x` and `/data/s3:x` are paths.
pub fn url_scheme(dir: &Path) -> Option<&str> {
    // (on the path's bytes: a name that is not UTF-8 past its scheme reads
    // as a URL too)
    let bytes = dir.as_os_str().as_encoded_bytes();
    let colon = bytes.iter().position(|&b| b == b':')?;
    let scheme = std::str::from_utf8(&bytes[..colon]).ok()?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (scheme.len() >= 2
        && first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Refuses a directory whose name reads as a URL (`s3://bucket/`), which
/// would otherwise be made as a local directory `s3:`.
pub(super) fn refuse_url(dir: &Path) -> Result<(), OutputError> {
    match url_scheme(dir) {
        Some(scheme) => Err(OutputError::NotLocal {
            dir: dir.to_path_buf(),
            scheme: scheme.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Refuses an output directory that an earlier version of robostats
/// made, whose tables differ from today's: rows of both would not make one
/// data set. Those with a dense `agent_verdicts` table (now a view), and
/// those with captures but no `verdict_counts` table (which the
/// `agent_verdict_counts` view sums): its directory is made with every
/// other table's, before any input is read, so a data set with a
/// `captures` part file and no `verdict_counts` directory is older.
pub(super) fn refuse_older_format(dir: &Path) -> Result<(), OutputError> {
    if !manifest::dir(dir).is_dir() {
        return Ok(());
    }
    let older = |missing: &'static str| {
        Err(OutputError::OlderFormat {
            dir: dir.to_path_buf(),
            missing,
        })
    };
    if dir.join("rules").is_dir() {
        return older(
            "its line tables (rules, sitemaps, ...) hold a row per capture; they are now \
             stored once per body (body_rules, ...) and the views join them to the captures",
        );
    }
    if manifest::older_body_store(dir)? {
        return older(
            "its bodies are keyed by XXH3-128 digests, which anyone can make two bodies \
             share, and its body files are not recorded in its manifest; they are now keyed \
             by BLAKE3 digests and recorded",
        );
    }
    if dir.join("agent_verdicts").is_dir() {
        return older("it has an agent_verdicts table, which is now a view over named_verdicts");
    }
    let table_dir = |t: Table| dir.join(t.name());
    let has_parts = fs::read_dir(table_dir(Table::Captures)).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| is_finished_part(&e.file_name().to_string_lossy()))
    });
    // (a table a compaction killed mid-swap left aside is there: the run
    // puts it back once it holds the lock, `Dataset::recover_swap`)
    let aside = |t: Table| super::aside_dir(&super::staging_of(dir, t.name()));
    let present = |t: Table| table_dir(t).exists() || aside(t).is_dir();
    if has_parts && !present(Table::VerdictCounts) {
        return older(
            "it has no verdict_counts table, which the agent_verdict_counts view now sums",
        );
    }
    // (its schema-only file, else, where that is gone, a part file: either
    // has the columns of the run that made the table)
    let rules_dir = table_dir(Table::Rules);
    let open = |name: &str| super::open_regular(&rules_dir.join(name)).ok();
    let part = || {
        let names = fs::read_dir(&rules_dir).ok()?.flatten();
        let names = names.map(|e| e.file_name().to_string_lossy().into_owned());
        open(&names.filter(|n| is_finished_part(n)).min()?)
    };
    let rules = open(EMPTY_PART)
        .or_else(|| open(super::LEGACY_EMPTY_PART))
        .or_else(part);
    refuse_older_rules(dir, rules)
}

/// [`refuse_older_rules`] for a data set in a bucket (`shown` names it):
/// its `body_rules` schema-only file, one small GET.
pub(crate) fn refuse_older_rules_in(
    bucket: &dyn crate::output::backend::Backend,
    shown: &Path,
) -> Result<(), OutputError> {
    let key = format!("{}/{EMPTY_PART}", Table::Rules.name());
    let object = bucket.get(&key).map_err(OutputError::Store)?;
    refuse_older_rules(shown, object.map(|o| bytes::Bytes::from(o.bytes)))
}

/// Refuses a data set whose `body_rules` stores every rule's pattern,
/// priority and flags, told by its schema-only file (`rules_schema_only`,
/// the bytes of `~empty.parquet`, or the earlier `_empty.parquet`), which
/// the run that made the table wrote with its own columns and no later run
/// rewrites. A file that does not read as Parquet says nothing here: what
/// is wrong with it is for the readers to say.
pub(super) fn refuse_older_rules(
    dir: &Path,
    rules_schema_only: Option<impl parquet::file::reader::ChunkReader + 'static>,
) -> Result<(), OutputError> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let older = rules_schema_only
        .and_then(|file| SerializedFileReader::new(file).ok())
        .is_some_and(|reader| {
            let schema = reader.metadata().file_metadata().schema_descr();
            schema.columns().iter().any(|c| c.name() == "priority")
        });
    if older {
        return Err(OutputError::OlderFormat {
            dir: dir.to_path_buf(),
            missing: "its body_rules stores every rule's pattern, priority and flags; the \
                      pattern is now stored only where Google's escaping changes the value \
                      (escaped_pattern), and the view body_rules computes the rest",
        });
    }
    Ok(())
}

/// Up to three entries of `dir` that are not an output's, when it is not
/// one already (it has no manifest): none for a directory that does not
/// exist, is empty, or holds only what an interrupted first run left (table
/// directories with their schema-only file).
pub(super) fn other_files(dir: &Path) -> Result<Vec<String>, OutputError> {
    if manifest::dir(dir).is_dir() {
        return Ok(Vec::new());
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(OutputError::io(Op::ListDir, dir, e)),
    };
    let ours = |name: &str| super::table_dirs().any(|d| d == name);
    let mut others: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry.at(Op::ListDir, dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && name == manifest::DIR_NAME {
            // Made by another shard since the check above.
            continue;
        }
        if !(is_dir && ours(&name)) {
            others.push(name);
            continue;
        }
        // A table's directory before the first manifest line holds only
        // its schema-only file, or the temporary file it is written to (by
        // a run killed then, or by another shard starting at this moment).
        for inner in fs::read_dir(entry.path()).at(Op::ListDir, entry.path())? {
            let inner = inner.at(Op::ListDir, entry.path())?.file_name();
            let inner = inner.to_string_lossy();
            let temporary = (inner.starts_with(&format!(".{EMPTY_PART}."))
                || inner.starts_with(&format!(".{AGENTS_PREFIX}")))
                && inner.ends_with(".tmp");
            let list = name == Table::Agents.name() && inner.starts_with(AGENTS_PREFIX);
            if !is_schema_only(&inner) && !list && !temporary {
                others.push(format!("{name}/{inner}"));
            }
        }
    }
    others.sort();
    others.truncate(3);
    Ok(others)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_stores_are_told_from_paths() {
        for (text, scheme) in [
            ("s3://results/cc/", Some("s3")),
            ("S3://results", Some("S3")),
            ("s3:results", Some("s3")),
            ("gs://bucket/x", Some("gs")),
            ("az://container/x", Some("az")),
            ("hf://datasets/me/cc", Some("hf")),
            ("https://example.com/out", Some("https")),
            ("file:///tmp/out", Some("file")),
            ("out", None),
            ("./s3://results", None),
            ("/data/s3:x", None),
            ("C:\\out", None),
            ("data 2025:x", None),
            ("", None),
        ] {
            assert_eq!(url_scheme(Path::new(text)), scheme, "{text}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let not_utf8 = std::ffi::OsStr::from_bytes(b"s3://bucket/\xff/");
            assert_eq!(url_scheme(Path::new(not_utf8)), Some("s3"));
        }
    }
}
