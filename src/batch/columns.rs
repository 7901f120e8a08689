//! The columns of every table. `robostats schema` prints them and the
//! README documents them; change them here only.

use super::table::{Column, Kind, col};
use Kind::*;

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
pub const USER_AGENTS: [Column; 9] = cat(
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
            "key",
            Str,
            false,
            "the key as written (Google accepts case-insensitive prefixes and typos)",
        ),
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
pub const RULES: [Column; 14] = cat(
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
        col(
            "key",
            Str,
            false,
            "the key as written (Google accepts case-insensitive prefixes and typos)",
        ),
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

/// `captures`: one row per robots.txt response record.
pub const CAPTURES: [Column; 61] = cat(
    key_columns!(),
    [
        col(
            "warc_record_length",
            I64,
            true,
            "compressed length of the record's gzip member (Common Crawl's \
             warc_record_length); for plain WARC the record's length; null when the \
             member holds other records too",
        ),
        col(
            "warc_record_offset_in_member",
            I64,
            false,
            "position of the record inside its gzip member (0 for Common Crawl's files)",
        ),
        col("warc_record_id", Str, true, "WARC-Record-ID"),
        col(
            "crawl",
            Dict,
            true,
            "the crawl: warcinfo isPartOf, else CC-MAIN-YYYY-WW from the path",
        ),
        col("url", Str, false, "WARC-Target-URI as stored"),
        col("url_protocol", Dict, true, "the URL's scheme"),
        col(
            "url_host_name",
            Str,
            true,
            "the URL's host, lower case, internationalized names in punycode",
        ),
        col(
            "url_host_registered_domain",
            Str,
            true,
            "the host's registered domain by the public suffix list",
        ),
        col(
            "url_port",
            I32,
            true,
            "the URL's port, or the scheme's default",
        ),
        col("url_path", Str, true, "the URL's path"),
        col("url_query", Str, true, "the URL's query, without ?"),
        col("fetch_time", Timestamp, true, "WARC-Date"),
        col("ip_address", Str, true, "WARC-IP-Address"),
        col(
            "warc_protocols",
            StrList,
            false,
            "WARC-Protocol values, in order (h2, tls/1.3, ...)",
        ),
        col(
            "fetch_status",
            I32,
            true,
            "HTTP status; null when the HTTP head cannot be read",
        ),
        col(
            "http_error",
            Dict,
            true,
            "why the HTTP head cannot be read (not_http, http_head_too_long)",
        ),
        col(
            "google_class",
            Dict,
            false,
            "Google's outcome (specification's table): conditional_allow (2xx), \
             redirect (3xx), full_allow (4xx), full_disallow (5xx), failed (unreadable \
             or incomplete: treated as a server error)",
        ),
        col(
            "google_current_class",
            Dict,
            false,
            "the same by Google's current documentation (429 is full_disallow)",
        ),
        col(
            "cc_class",
            Dict,
            false,
            "Common Crawl's class: success (200), forbidden (403), defer_visits (5xx, \
             429), redirect (3xx), notfound (400, 404, 410), unauthorized (401), other",
        ),
        col(
            "fetch_redirect",
            Str,
            true,
            "3xx: Location resolved against the URL",
        ),
        col(
            "redirect_kind",
            Dict,
            true,
            "3xx: missing_location, invalid_location, same_url, not_robots_path, \
             https_upgrade, https_downgrade, www_added, www_removed, same_site, \
             other_host, other",
        ),
        col(
            "content_type",
            Str,
            true,
            "Content-Type as the server sent it",
        ),
        col(
            "content_mime_type",
            Dict,
            true,
            "the server's MIME type, lower case, no parameters",
        ),
        col(
            "content_mime_detected",
            Dict,
            true,
            "WARC-Identified-Payload-Type",
        ),
        col(
            "content_encoding",
            Dict,
            true,
            "the server's content coding (X-Crawler-Content-Encoding)",
        ),
        col(
            "transfer_encoding",
            Dict,
            true,
            "the server's transfer coding (X-Crawler-Transfer-Encoding)",
        ),
        col(
            "payload_encoded",
            Bool,
            false,
            "the body is stored still encoded (not decoded here)",
        ),
        col("content_digest", Str, true, "WARC-Payload-Digest"),
        col(
            "content_truncated",
            Dict,
            true,
            "WARC-Truncated: length, time, disconnect, unspecified",
        ),
        col(
            "record_incomplete",
            Bool,
            false,
            "the record ends before its declared length",
        ),
        col(
            "body_capped",
            Bool,
            false,
            "the body was cut at 1 MiB by the reader",
        ),
        col(
            "payload_length",
            I64,
            false,
            "payload bytes stored in the record",
        ),
        col(
            "bom",
            Dict,
            true,
            "byte order mark: utf-8, utf-16le, utf-16be",
        ),
        col("valid_utf8", Bool, false, "the body is valid UTF-8"),
        col(
            "looks_like_html",
            Bool,
            false,
            "the body starts with <html or <!doctype html",
        ),
        col(
            "over_500kib",
            Bool,
            false,
            "the payload is over 512,000 bytes (Google reads no further)",
        ),
        col("cache_max_age", I64, true, "Cache-Control max-age, seconds"),
        col(
            "robots_parsed",
            Bool,
            false,
            "the body was parsed for rules (2xx responses only; the other columns \
             below are null otherwise)",
        ),
        col(
            "has_rules",
            Bool,
            true,
            "a group has a non-empty allow or disallow rule",
        ),
        col("lines", I32, true, "lines, as Google counts them"),
        col("empty_lines", I32, true, "blank lines"),
        col("comment_lines", I32, true, "lines that are only a comment"),
        col(
            "invalid_lines",
            I32,
            true,
            "lines with content but no directive (HTML, prose, binary)",
        ),
        col("groups", I32, true, "groups"),
        col("user_agent_lines", I32, true, "user-agent lines"),
        col("allow_rules", I32, true, "allow lines"),
        col("disallow_rules", I32, true, "disallow lines"),
        col(
            "empty_rules",
            I32,
            true,
            "allow and disallow lines with an empty value",
        ),
        col(
            "rules_outside_group",
            I32,
            true,
            "allow and disallow lines before any user-agent (ignored)",
        ),
        col("sitemaps", I32, true, "sitemap lines"),
        col(
            "unknown_directives",
            I32,
            true,
            "lines with a key Google does not use",
        ),
        col(
            "known_elsewhere_directives",
            I32,
            true,
            "... of which keys other crawlers use (crawl-delay, host, ...)",
        ),
        col(
            "typos",
            I32,
            true,
            "keys that are one of Google's accepted typos",
        ),
        col(
            "missing_colon",
            I32,
            true,
            "directives separated by whitespace instead of :",
        ),
        col("lines_too_long", I32, true, "lines cut at 16,663 bytes"),
        col(
            "bytes_ignored",
            I64,
            true,
            "bytes past the parse limit (500 KiB), not parsed",
        ),
        col(
            "crawl_delay",
            F64,
            true,
            "crawl-delay of the * group (first numeric value): what a crawler no group \
             names reads",
        ),
        col(
            "global_class",
            Dict,
            true,
            "the rules class of the * group (see agent_verdicts.rules_class)",
        ),
        col("global_root_allowed", Bool, true, "the * group allows /"),
    ],
);

/// `sitemaps`: one row per sitemap line.
pub const SITEMAPS: [Column; 10] = cat(
    key_columns!(),
    [
        col("line", I32, false, "line number, from 1"),
        col(
            "key",
            Str,
            false,
            "the key as written (Google accepts case-insensitive prefixes and typos)",
        ),
        col("url", Str, false, "the sitemap URL as written"),
        col("is_valid", Bool, false, "an absolute http(s) URL"),
        col(
            "url_host_name",
            Str,
            true,
            "the sitemap's host, lower case, punycode",
        ),
        col(
            "same_host",
            Bool,
            true,
            "the sitemap is on the robots.txt's host",
        ),
        col(
            "same_registered_domain",
            Bool,
            true,
            "the sitemap is on the robots.txt's registered domain",
        ),
        col(
            "is_typo",
            Bool,
            false,
            "the key is an accepted typo (site-map)",
        ),
    ],
);

/// `agent_verdicts`: one row per capture and crawler of interest, `*`
/// included.
pub const AGENT_VERDICTS: [Column; 10] = cat(
    key_columns!(),
    [
        col(
            "agent",
            Dict,
            false,
            "the crawler (embedded list or --agents); * is a crawler no group names",
        ),
        col(
            "agent_category",
            Dict,
            false,
            "search, ads, seo, archive, ai (from the list); global for *",
        ),
        col(
            "group_match",
            Dict,
            true,
            "from the rules (2xx): specific (a group names the agent; * is then \
             ignored), global (only * groups apply), none",
        ),
        col(
            "root_allowed",
            Bool,
            true,
            "from the rules: / may be fetched",
        ),
        col(
            "rules_class",
            Dict,
            true,
            "from the rules: disallow_all (no path may be fetched), allow_all (every \
             path may), allow_part",
        ),
        col(
            "effective_class",
            Dict,
            false,
            "after the HTTP outcome (google_class): 2xx the rules class; 4xx allow_all; \
             5xx and failed disallow_all; 3xx unresolved_redirect",
        ),
        col(
            "effective_root_allowed",
            Bool,
            true,
            "after the HTTP outcome: / may be fetched (null for 3xx)",
        ),
        col(
            "agent_operator",
            Dict,
            false,
            "who runs the crawler (from the list)",
        ),
    ],
);

/// `errors`: one row per record or file that could not be read.
pub const ERRORS: [Column; 5] = [
    col("warc_filename", Dict, false, "the WARC file"),
    col(
        "warc_record_offset",
        I64,
        true,
        "where in the file (the gzip member's or record's offset); null for a whole file",
    ),
    col("stage", Dict, false, "open, gzip, warc or http"),
    col(
        "kind",
        Dict,
        false,
        "what went wrong (see the README's list)",
    ),
    col("message", Str, false, "the error, for people"),
];

/// Every table, in output order.
pub const TABLES: [(&str, &[Column]); 7] = [
    ("captures", &CAPTURES),
    ("user_agents", &USER_AGENTS),
    ("rules", &RULES),
    ("sitemaps", &SITEMAPS),
    ("directives", &DIRECTIVES),
    ("agent_verdicts", &AGENT_VERDICTS),
    ("errors", &ERRORS),
];
