//! The names of the files under the output directory: part files (named
//! after their input, so a re-run finds what an interrupted input left),
//! their temporary names while written, and the schema-only file.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::shard::Shard;

/// The manifest directory's name (the leading `_` keeps it out of DuckDB
/// globs and pyarrow datasets).
pub const DIR_NAME: &str = "_manifest";

/// The name of the schema-only part file every table directory holds. It
/// sorts after every part file (whose names are made of ASCII letters,
/// digits, `-`, `_` and `.`: [`part_stem`]): DuckDB 2.0 estimates a glob's
/// rows from the first file it lists, and an empty first file made it
/// plan every join of a data set as if its tables were empty.
pub const EMPTY_PART: &str = "~empty.parquet";

/// The schema-only file's name before it was [`EMPTY_PART`]: still read as
/// schema-only, and replaced by `compact` ([`Dataset::retire_legacy_empty`](super::Dataset::retire_legacy_empty)).
pub const LEGACY_EMPTY_PART: &str = "_empty.parquet";

/// The directories of the crawl tables, which `compact` writes beside
/// the tables (`compact::crawls`): read by the views, written by no
/// ingest.
pub const CRAWL_TABLES: [&str; 3] = ["crawl_hosts", "crawl_chains", "crawl_outcomes"];

/// The directories of every table: ingest's, then the crawl tables'.
pub fn table_dirs() -> impl Iterator<Item = &'static str> {
    crate::classify::Table::ALL
        .iter()
        .map(|t| t.name())
        .chain(CRAWL_TABLES)
}

/// Whether `name` is a table's schema-only file, by either name.
pub fn is_schema_only(name: &str) -> bool {
    name == EMPTY_PART || name == LEGACY_EMPTY_PART
}

/// Whether `name` is a finished part file's: a Parquet file, neither
/// hidden (being written) nor the schema-only file.
pub fn is_finished_part(name: &str) -> bool {
    name.ends_with(".parquet") && !name.starts_with('.') && !is_schema_only(name)
}

/// The prefix of the files a compaction writes: `compacted-<id>-NNNNN.parquet`.
pub const COMPACTED_PREFIX: &str = "compacted-";

/// The compaction id of a compacted file, by its name or its key
/// (`captures/compacted-<id>-00000.parquet`), if it is one.
pub fn compaction_of(name: &str) -> Option<&str> {
    let name = name.rsplit('/').next().unwrap_or(name);
    let rest = name.strip_prefix(COMPACTED_PREFIX)?;
    let (id, _) = rest.split_once('-')?;
    Some(id)
}

/// The name of the file `key` (relative to the data set, `/`-separated)
/// is, when it is directly in a table's directory.
pub fn in_table(key: &str) -> Option<&str> {
    let (dir, file) = key.split_once('/')?;
    (table_dirs().any(|d| d == dir) && !file.contains('/')).then_some(file)
}

/// Whether `key` is a table's finished part file (not the manifest's).
pub fn is_table_file(key: &str) -> bool {
    in_table(key).is_some_and(is_finished_part)
}

/// The first 4 bytes of the SHA-256 of `bytes`, in hex: a short name that
/// tells things apart.
pub fn short_hash(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    hash[..4].iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` is a part file's name of the input whose stem is `stem`
/// (see [`part_name`]): `<stem>[-shard-IIIII-of-NNNNN]-<lane>.parquet`,
/// exactly.
pub fn is_part_of(stem: &str, name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(stem)
        .and_then(|r| r.strip_prefix('-'))
        .and_then(|r| r.strip_suffix(".parquet"))
    else {
        return false;
    };
    let lane = match rest.strip_prefix("shard-") {
        Some(sharded) => {
            let mut fields = sharded.splitn(4, '-');
            let (Some(index), Some("of"), Some(count), Some(lane)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return false;
            };
            if !(is_digits(index) && is_digits(count)) {
                return false;
            }
            lane
        }
        None => rest,
    };
    is_digits(lane) && lane.len() >= 2
}

/// The final name whose temporary name `name` is (see [`temp_path`]):
/// `.<final name>.<pid>-<8 hex>.tmp`, exactly; `None` for any other name.
pub fn temp_of(name: &str) -> Option<&str> {
    let (final_name, token) = name
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .rsplit_once('.')?;
    let (pid, hash) = token.split_once('-')?;
    (is_digits(pid) && hash.len() == 8 && is_lower_hex(hash)).then_some(final_name)
}

/// Whether `name` is a temporary name of the file `final_name`.
pub fn is_temp_of(name: &str, final_name: &str) -> bool {
    temp_of(name) == Some(final_name)
}

/// The most bytes of an input's file name a part file's name keeps
/// ([`part_stem`]): with the hash, a shard, a lane, a writer and a
/// temporary name's suffix, the longest part file name stays under the
/// 255 bytes a file name may have.
const STEM_BYTES: usize = 160;

/// The part-file name stem of an input: its file name without WARC and
/// gzip extensions (its first [`STEM_BYTES`] bytes: a URL's query can be
/// long), and a hash of its whole name (two inputs with the same file
/// name in different directories must not clash). Every part file of the
/// input starts with it, whichever shard wrote it.
pub fn part_stem(input: &str) -> String {
    let base = input.rsplit(['/', '\\']).next().unwrap_or(input);
    let mut stem = base;
    for ext in [".gz", ".warc", ".arc"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(STEM_BYTES)
        .collect();
    format!("{stem}-{}", short_hash(input.as_bytes()))
}

/// A part file's name: the input's stem, the shard that wrote it, and the
/// worker lane: `<stem>-<hash>[-shard-00003-of-00100]-<lane>.parquet`.
pub fn part_name(stem: &str, shard: Option<Shard>, lane: usize) -> String {
    match shard {
        Some(shard) => format!("{stem}-{}-{lane:02}.parquet", shard.name()),
        None => format!("{stem}-{lane:02}.parquet"),
    }
}

/// The name of a part file of a table stored once per body, written by
/// the lane `lane` of an input as the writer `writer`:
/// `<part name without .parquet>-<writer, 16 hex>.parquet`. Unlike an
/// input's part files ([`is_part_of`] never matches it), it outlives the
/// input: a re-run of the input writes under another writer.
pub fn body_part_name(stem: &str, shard: Option<Shard>, lane: usize, writer: i64) -> String {
    let part = part_name(stem, shard, lane);
    let base = part.strip_suffix(".parquet").unwrap_or(&part);
    format!("{base}-{:016x}.parquet", writer as u64)
}

/// Whether `name` is the name of a part file of a table stored once per
/// body that the input whose stem is `stem` wrote ([`body_part_name`]).
pub fn is_body_part_of(stem: &str, name: &str) -> bool {
    name.strip_suffix(".parquet")
        .and_then(|n| n.rsplit_once('-'))
        .is_some_and(|(part, writer)| {
            writer.len() == 16
                && is_lower_hex(writer)
                && is_part_of(stem, &format!("{part}.parquet"))
        })
}

/// The shard whose run wrote the body part file `name`
/// ([`body_part_name`]): `Some(Some("shard-00003-of-00100"))`,
/// `Some(None)` for a run without `--shard`; `None` if `name` is not a
/// body part file's.
pub fn body_part_shard(name: &str) -> Option<Option<&str>> {
    let (rest, writer) = name.strip_suffix(".parquet")?.rsplit_once('-')?;
    let (rest, lane) = rest.rsplit_once('-')?;
    if writer.len() != 16 || !is_lower_hex(writer) || !is_digits(lane) {
        return None;
    }
    // `<stem>-<hash>` then, for a shard, `-shard-IIIII-of-NNNNN`: the
    // hash comes between the stem and the shard, so a stem cannot pass
    // for a shard.
    let mut fields = rest.rsplitn(5, '-');
    let (Some(count), Some("of"), Some(index), Some("shard")) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Some(None);
    };
    if !(is_digits(index) && is_digits(count)) {
        return Some(None);
    }
    let at = rest.len() - (count.len() + index.len() + "shard--of-".len());
    Some(Some(&rest[at..]))
}

/// The temporary name a part file is written under: hidden, and unique to
/// the process (shards writing into one directory all write the
/// schema-only `~empty.parquet`, maybe from several hosts sharing a file
/// system, where process IDs repeat).
pub fn temp_path(path: &Path) -> PathBuf {
    static TOKEN: OnceLock<String> = OnceLock::new();
    let token = TOKEN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let pid = std::process::id();
        format!("{pid}-{}", short_hash(format!("{pid}-{nanos}").as_bytes()))
    });
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{token}.tmp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_makes_file_names_a_file_system_takes() {
        // A URL's file name with a long query (a signed URL's, redacted).
        let query: String = (0..40)
            .map(|i| format!("X-Amz-Param-{i}=REDACTED&"))
            .collect();
        let long = format!("https://h/crawl/a.warc.gz?{query}");
        let stem = part_stem(&long);
        assert_eq!(stem.len(), STEM_BYTES + 9, "{stem}");
        let shard = Shard::parse("99999/100000").unwrap();
        let body = body_part_name(&stem, Some(shard), 99, -1);
        let temp = temp_path(Path::new(&body));
        let longest = temp.file_name().unwrap().len();
        assert!(longest <= 255, "{longest}: {}", temp.display());
        assert!(is_body_part_of(&stem, &body));
        // The hash of the whole name tells apart names alike in their start.
        assert_ne!(stem, part_stem(&format!("{long}x")));
        // Short names are as they were.
        assert!(part_stem("crawl/a.warc.gz").starts_with("a-"));
    }
}
