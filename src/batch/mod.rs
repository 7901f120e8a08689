//! Rows -> Arrow record batches: every output table's columns, declared in
//! one place ([`TABLES`]), and the builders that fill them.
//!
//! Every table starts with the capture key `(warc_filename,
//! warc_record_offset)`, so all tables join on it; column names follow
//! Common Crawl's columnar index where a column means the same thing.

mod table;

pub use table::{Column, Kind, Row, TableBuilder, schema_of};

use Kind::*;
use table::col;

/// `warc_filename` and `warc_record_offset`, first in every table.
macro_rules! key_columns {
    () => {
        [
            col(
                "warc_filename",
                Dict,
                false,
                "the WARC file, as named on the command line or in the paths file \
                 (for Common Crawl's paths files: the path Common Crawl's index gives)",
            ),
            col(
                "warc_record_offset",
                I64,
                false,
                "byte offset of the record in the file: for gzip files the offset of \
                 its gzip member (Common Crawl's warc_record_offset), for plain WARC the \
                 offset of the record",
            ),
        ]
    };
}

const fn cat<const A: usize, const B: usize, const N: usize>(
    a: [Column; A],
    b: [Column; B],
) -> [Column; N] {
    assert!(A + B == N);
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// `user_agents`: one row per user-agent line.
pub const USER_AGENTS: [Column; 8] = cat(
    key_columns!(),
    [
        col(
            "group",
            I32,
            false,
            "index of the line's group in the file, from 0",
        ),
        col("line", I32, false, "line number, from 1"),
        col(
            "value",
            Str,
            false,
            "the value as written (comment and whitespace removed)",
        ),
        col(
            "product_token",
            Str,
            false,
            "what Google's matcher compares with a crawler's name: the value's longest \
             [A-Za-z_-] prefix, empty for *",
        ),
        col(
            "is_global",
            Bool,
            false,
            "the value is * (alone or followed by whitespace)",
        ),
        col(
            "is_typo",
            Bool,
            false,
            "the key is an accepted typo (useragent, user agent)",
        ),
    ],
);

/// `rules`: one row per allow or disallow line.
pub const RULES: [Column; 13] = cat(
    key_columns!(),
    [
        col(
            "group",
            I32,
            true,
            "index of the rule's group, from 0; null before the first user-agent line \
             (such rules are ignored)",
        ),
        col("line", I32, false, "line number, from 1"),
        col("kind", Dict, false, "allow or disallow"),
        col("value", Str, false, "the value as written"),
        col(
            "pattern",
            Str,
            false,
            "the value as Google matches it: bytes >= 0x80 %-escaped, hex upper-cased",
        ),
        col(
            "priority",
            I32,
            false,
            "the pattern's length in bytes: the longest matching rule wins",
        ),
        col("has_wildcard", Bool, false, "the pattern contains *"),
        col("has_end_anchor", Bool, false, "the pattern ends with $"),
        col(
            "is_empty",
            Bool,
            false,
            "the value is empty: the rule has no effect",
        ),
        col(
            "is_typo",
            Bool,
            false,
            "the key is an accepted typo (dissallow, ...)",
        ),
        col("in_global_group", Bool, false, "the rule's group names *"),
    ],
);

/// `directives`: one row per line with a key Google does not use.
pub const DIRECTIVES: [Column; 9] = cat(
    key_columns!(),
    [
        col("line", I32, false, "line number, from 1"),
        col(
            "group",
            I32,
            true,
            "index of the group the line stands in, from 0; null before the first \
             user-agent line",
        ),
        col("key", Str, false, "the key as written"),
        col("name", Dict, false, "the key in lower case"),
        col("value", Str, false, "the value as written"),
        col(
            "known_elsewhere",
            Dict,
            true,
            "the key is one other crawlers use (Google's list: clean-param, \
             content-signal, content-usage, crawl-delay, domain, host, noarchive, \
             nofollow, noindex, request-rate, revisit-after, visit-time)",
        ),
        col(
            "typo_of",
            Dict,
            true,
            "the directive the key seems a misspelling of (edit distance 1 or 2 from \
             user-agent, allow, disallow, sitemap, crawl-delay)",
        ),
    ],
);

/// The names of the tables that the tables' columns are declared for, with
/// their columns, in output order.
pub const ROBOTS_TABLES: [(&str, &[Column]); 3] = [
    ("user_agents", &USER_AGENTS),
    ("rules", &RULES),
    ("directives", &DIRECTIVES),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_starts_with_the_capture_key_and_names_are_unique() {
        for (name, columns) in ROBOTS_TABLES {
            assert_eq!(columns[0].name, "warc_filename", "{name}");
            assert_eq!(columns[1].name, "warc_record_offset", "{name}");
            let mut names: Vec<_> = columns.iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), columns.len(), "{name}");
        }
    }

    #[test]
    fn rows_become_a_batch() {
        let mut t = TableBuilder::new("user_agents", &USER_AGENTS);
        t.row()
            .dict(Some("f.warc.gz"))
            .i64(Some(0))
            .i32(Some(0))
            .i32(Some(1))
            .str(Some("*"))
            .str(Some(""))
            .bool(Some(true))
            .bool(Some(false))
            .end();
        let batch = t.finish();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.num_columns(), USER_AGENTS.len());
        assert!(t.is_empty());
    }

    #[test]
    #[should_panic(expected = "row ended after")]
    fn a_short_row_is_a_bug() {
        let mut t = TableBuilder::new("user_agents", &USER_AGENTS);
        t.row().dict(Some("f")).end();
    }
}
