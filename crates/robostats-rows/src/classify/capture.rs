//! A response record -> its `captures` row: where it is, what was fetched,
//! the HTTP outcome, content facts, and what the robots.txt parse and the
//! `*` group say.

use crate::http::{Bom, CcClass, GoogleClass, RedirectKind, Response, UrlFacts, content, redirect};
use crate::robots::{GOOGLE_MAX_BYTES, GroupMatch, RobotsTxt, RulesClass};
use crate::table::{UnixTime, columns};
use crate::warc::{Error, ErrorKind, Stage};
use crate::warc::{Record, RecordType, parse_warc_date};
use url::Url;

use super::copies::Copies;
use super::key::CaptureKey;
use super::verdict::Verdict;

columns! {
    /// `captures`: one row per robots.txt response record. Field names
    /// follow Common Crawl's columnar index where they mean the same.
    ///
    /// [`Capture::new`] fills what the record and its HTTP response say;
    /// the robots.txt columns ([`RobotsColumns`]) are filled for the 2xx
    /// responses whose body is parsed.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Capture<'a> {
        /// The record.
        pub at: CaptureKey<'a>,
        /// compressed length of the record's gzip member (Common Crawl's
        /// warc_record_length); for plain WARC the record's length; null when the
        /// member holds other records too
        pub warc_record_length: Option<u64>,
        /// position of the record inside its gzip member (0 for Common Crawl's files)
        pub warc_record_offset_in_member: u64,
        /// WARC-Record-ID
        pub warc_record_id: Option<String>,
        /// the crawl: warcinfo isPartOf, else CC-MAIN-YYYY-WW from the path
        pub crawl: Option<String> as dict,
        /// WARC-Target-URI as stored
        pub url: String,
        /// the URL's scheme
        pub url_protocol: Option<String> as dict,
        /// the URL's host, lower case, internationalized names in punycode
        pub url_host_name: Option<String>,
        /// the host's registered domain by the public suffix list
        pub url_host_registered_domain: Option<String>,
        /// the URL's port, or the scheme's default
        pub url_port: Option<u16>,
        /// the URL's path
        pub url_path: Option<String>,
        /// the URL's query, without ?
        pub url_query: Option<String>,
        /// WARC-Date
        pub fetch_time: Option<UnixTime>,
        /// WARC-IP-Address
        pub ip_address: Option<String>,
        /// WARC-Protocol values, in order (h2, tls/1.3, ...)
        pub warc_protocols: Vec<String>,
        /// HTTP status; null when the HTTP head cannot be read
        pub fetch_status: Option<u16>,
        /// why the HTTP head cannot be read (not_http, http_head_too_long)
        pub http_error: Option<ErrorKind>,
        /// Google's outcome (specification's table): conditional_allow (2xx),
        /// redirect (3xx), full_allow (4xx), full_disallow (5xx), failed (unreadable
        /// or incomplete: treated as a server error)
        pub google_class: GoogleClass,
        /// the same by Google's current documentation (429 is full_disallow)
        pub google_current_class: GoogleClass,
        /// Common Crawl's class: success (200), forbidden (403), defer_visits (5xx,
        /// 429), redirect (3xx), notfound (400, 404, 410), unauthorized (401), other
        pub cc_class: CcClass,
        /// 3xx: Location resolved against the URL
        pub fetch_redirect: Option<String>,
        /// 3xx: missing_location, invalid_location, same_url, not_robots_path,
        /// https_upgrade, https_downgrade, www_added, www_removed, same_site,
        /// other_host, other
        pub redirect_kind: Option<RedirectKind>,
        /// Content-Type as the server sent it
        pub content_type: Option<String>,
        /// the server's MIME type, lower case, no parameters
        pub content_mime_type: Option<String> as dict,
        /// WARC-Identified-Payload-Type
        pub content_mime_detected: Option<String> as dict,
        /// the server's content coding (X-Crawler-Content-Encoding)
        pub content_encoding: Option<String> as dict,
        /// the server's transfer coding (X-Crawler-Transfer-Encoding)
        pub transfer_encoding: Option<String> as dict,
        /// the body is stored still encoded (not decoded here)
        pub payload_encoded: bool,
        /// WARC-Payload-Digest
        pub content_digest: Option<String>,
        /// WARC-Truncated: length, time, disconnect, unspecified
        pub content_truncated: Option<String> as dict,
        /// the record ends before its declared length
        pub record_incomplete: bool,
        /// the body was cut at 1 MiB by the reader
        pub body_capped: bool,
        /// payload bytes stored in the record
        pub payload_length: u64,
        /// byte order mark: utf-8, utf-16le, utf-16be
        pub bom: Option<Bom>,
        /// the body is valid UTF-8
        pub valid_utf8: bool,
        /// the body starts with <html or <!doctype html
        pub looks_like_html: bool,
        /// the payload is over 512,000 bytes (Google reads no further)
        pub over_500kib: bool,
        /// Cache-Control max-age, seconds
        pub cache_max_age: Option<u64>,
        /// the Content-Usage response header (IETF AIPREF: the AI-use preferences of
        /// the response itself), its field lines joined by ", "
        pub content_usage_header: Option<String>,
        /// What the robots.txt parse says (from `robots_parsed` on).
        pub robots: RobotsColumns,
    }
}

impl<'a> Capture<'a> {
    /// The capture of a `response` record of the input `file`. `response`
    /// is the result of [`Response::parse`] for it (an unreadable head
    /// gives class `failed`). Errors only when the record cannot be a
    /// capture: not a response, or no `WARC-Target-URI`.
    pub fn new(
        file: &'a str,
        crawl: Option<&str>,
        record: &Record,
        response: Result<&Response, &Error>,
    ) -> Result<Capture<'a>, Error> {
        let (mut cap, url) = Capture::of_record(file, crawl, record)?;
        match response {
            Ok(resp) => cap.add_response(resp, record, url.as_ref()),
            Err(e) => cap.http_error = Some(e.kind()),
        }
        Ok(cap)
    }

    /// The columns the WARC record gives (its position, URL, date and
    /// WARC headers), the others at their values for a record without an
    /// HTTP response; and the parsed URL.
    fn of_record(
        file: &'a str,
        crawl: Option<&str>,
        record: &Record,
    ) -> Result<(Capture<'a>, Option<Url>), Error> {
        if record.record_type() != RecordType::Response {
            return Err(Error::new(
                Stage::Warc,
                ErrorKind::NotARecord,
                file,
                Some(record.offset()),
                "not a response record",
            ));
        }
        let Some(url) = record.target_uri() else {
            return Err(Error::new(
                Stage::Warc,
                ErrorKind::MissingTargetUri,
                file,
                Some(record.offset()),
                "response record without WARC-Target-URI",
            ));
        };
        let warc = |name: &str| record.headers().get_str(name).map(str::to_owned);
        let (parsed, facts) = UrlFacts::parse(url).ok().unzip();
        let mut cap = Capture {
            at: CaptureKey {
                warc_filename: file,
                warc_record_offset: record.offset(),
            },
            warc_record_length: record.length(),
            warc_record_offset_in_member: record.offset_in_member(),
            warc_record_id: warc("WARC-Record-ID"),
            crawl: crawl.map(str::to_owned),
            url: url.to_owned(),
            url_protocol: None,
            url_host_name: None,
            url_host_registered_domain: None,
            url_port: None,
            url_path: None,
            url_query: None,
            fetch_time: record.date().and_then(parse_warc_date).map(UnixTime),
            ip_address: warc("WARC-IP-Address"),
            warc_protocols: record
                .headers()
                .get_all("WARC-Protocol")
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect(),
            fetch_status: None,
            http_error: None,
            google_class: GoogleClass::Failed,
            google_current_class: GoogleClass::Failed,
            cc_class: CcClass::Other,
            fetch_redirect: None,
            redirect_kind: None,
            content_type: None,
            content_mime_type: None,
            content_mime_detected: warc("WARC-Identified-Payload-Type").filter(|v| !v.is_empty()),
            content_encoding: None,
            transfer_encoding: None,
            payload_encoded: false,
            content_digest: warc("WARC-Payload-Digest"),
            content_truncated: warc("WARC-Truncated").map(|t| t.to_ascii_lowercase()),
            record_incomplete: !record.is_complete(),
            body_capped: false,
            payload_length: 0,
            bom: None,
            valid_utf8: false,
            looks_like_html: false,
            over_500kib: false,
            cache_max_age: None,
            content_usage_header: None,
            robots: RobotsColumns::default(),
        };
        if let Some(f) = facts {
            cap.set_url(f);
        }
        Ok((cap, parsed))
    }

    /// The URL's columns, its facts moved in (not copied: a capture's
    /// strings are most of its allocations).
    fn set_url(&mut self, f: UrlFacts) {
        self.url_protocol = Some(f.url_protocol);
        self.url_host_name = f.url_host_name;
        self.url_host_registered_domain = f.url_host_registered_domain;
        self.url_port = f.url_port;
        self.url_path = Some(f.url_path);
        self.url_query = f.url_query;
    }

    /// The columns the HTTP response gives: status and classes, redirect,
    /// content type and encodings, and the facts of the body.
    fn add_response(&mut self, resp: &Response, record: &Record, url: Option<&Url>) {
        let status = resp.status();
        self.fetch_status = Some(status);
        self.cc_class = CcClass::of(Some(status));
        let cut_by_crawler = matches!(self.content_truncated.as_deref(), Some(t) if t != "length");
        let failed = self.record_incomplete || cut_by_crawler;
        self.google_class = GoogleClass::of(status, failed);
        self.google_current_class = GoogleClass::current(status, failed);
        if (300..=399).contains(&status) {
            let location = resp.header_str("Location").filter(|l| !l.is_empty());
            let (target, kind) = redirect::resolve(url, location.as_deref());
            self.fetch_redirect = target;
            self.redirect_kind = Some(kind);
        }
        self.content_type = resp.header_str("Content-Type");
        self.content_mime_type = self.content_type.as_deref().and_then(content::mime_essence);
        let lower = |v: &[u8]| String::from_utf8_lossy(v.trim_ascii()).to_ascii_lowercase();
        self.content_encoding = resp.original_header("Content-Encoding").map(lower);
        self.transfer_encoding = resp.original_header("Transfer-Encoding").map(lower);
        let encoded = |v: Option<&[u8]>| {
            v.map(lower)
                .is_some_and(|v| !v.is_empty() && v != "identity")
        };
        self.payload_encoded =
            encoded(resp.header("Content-Encoding")) || encoded(resp.header("Transfer-Encoding"));
        self.payload_length = resp.payload_len();
        let body = resp.body(record);
        self.body_capped = record.is_complete() && (body.len() as u64) < resp.payload_len();
        self.bom = Bom::of(body);
        let text = &body[self.bom.map_or(0, Bom::byte_len)..];
        // A UTF-16 body is not UTF-8, even when its ASCII text would pass.
        self.valid_utf8 =
            matches!(self.bom, None | Some(Bom::Utf8)) && std::str::from_utf8(text).is_ok();
        self.looks_like_html = content::looks_like_html(text);
        self.over_500kib = resp.payload_len() > GOOGLE_MAX_BYTES as u64;
        self.cache_max_age = resp.header("Cache-Control").and_then(content::max_age);
        let usage: Vec<_> = resp
            .header_all("Content-Usage")
            .map(String::from_utf8_lossy)
            .collect();
        self.content_usage_header = (!usage.is_empty()).then(|| usage.join(", "));
    }
}

columns! {
    /// The columns of `captures` that the robots.txt parse fills, and the
    /// verdict of `*`, the crawler no group names. All but `robots_parsed`
    /// are null ([`Default`]) for a body that is not parsed.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct RobotsColumns {
        /// the body was parsed for rules (2xx responses only; the other columns
        /// below are null otherwise)
        pub robots_parsed: bool,
        /// a group has a non-empty allow or disallow rule
        pub has_rules: Option<bool>,
        /// lines, as Google counts them
        pub lines: Option<u32>,
        /// blank lines
        pub empty_lines: Option<u32>,
        /// lines that are only a comment
        pub comment_lines: Option<u32>,
        /// lines with content but no directive (HTML, prose, binary)
        pub invalid_lines: Option<u32>,
        /// groups
        pub groups: Option<usize>,
        /// user-agent lines
        pub user_agent_lines: Option<u32>,
        /// allow lines
        pub allow_rules: Option<u32>,
        /// disallow lines
        pub disallow_rules: Option<u32>,
        /// allow and disallow lines with an empty value
        pub empty_rules: Option<u32>,
        /// allow and disallow lines before any user-agent (ignored)
        pub rules_outside_group: Option<u32>,
        /// sitemap lines
        pub sitemaps: Option<u32>,
        /// lines with a key Google does not use
        pub unknown_directives: Option<u32>,
        /// ... of which keys other crawlers use (crawl-delay, host, ...)
        pub known_elsewhere_directives: Option<u32>,
        /// ... of which Content-Signal and Content-Usage lines (see
        /// preference_statements)
        pub preference_lines: Option<u32>,
        /// # BEGIN Cloudflare Managed content lines, in any case (a block Cloudflare
        /// puts in front of the site's own rules; a file that starts with a whole
        /// block is template cloudflare-managed, docs/templates.md)
        pub cloudflare_blocks: Option<u32>,
        /// keys that are one of Google's accepted typos
        pub typos: Option<u32>,
        /// directives separated by whitespace instead of :
        pub missing_colon: Option<u32>,
        /// lines cut at 16,663 bytes
        pub lines_too_long: Option<u32>,
        /// bytes past the parse limit (500 KiB), not parsed
        pub bytes_ignored: Option<u64>,
        /// crawl-delay of the * group (first numeric value): what a crawler no group
        /// names reads
        pub crawl_delay: Option<f64>,
        /// the rules class of the * group (see named_verdicts.rules_class)
        pub global_class: Option<RulesClass>,
        /// the * group allows /
        pub global_root_allowed: Option<bool>,
        /// what a crawler no group names obeys: global (the * groups) or none (no *
        /// group: nothing restricts it)
        pub global_group_match: Option<GroupMatch>,
        /// License lines (RSL 1.0: the URL of the file's content licence)
        pub license_lines: Option<u32>,
        /// the bytes parsed (the body up to the parse limit): their BLAKE3 hash in
        /// hex (what b3sum prints), which no one can make two bodies share
        pub body_digest: Option<String>,
        /// what the file says to crawlers, without comments, blank lines, line ends,
        /// key spelling or sitemap hosts (docs/templates.md): the 128-bit XXH3 hash
        /// of its canonical text, in hex
        pub ruleset_digest: Option<String>,
        /// the platform default the file is, or starts with (cloudflare-managed:
        /// Cloudflare's managed block, whatever its crawlers and signal):
        /// wordpress-5.5, yoast-19.8, shopify, ... (docs/templates.md); null for
        /// any other file
        pub template: Option<&'static str> as dict,
        /// the template's platform: wordpress, yoast, shopify, wix, squarespace,
        /// blogger, drupal, joomla, ghost, cloudflare, empty
        pub platform: Option<&'static str> as dict,
    }
}

impl RobotsColumns {
    /// The columns of a parsed body, with the verdict of `*` (`global`).
    pub fn of(robots: &RobotsTxt<'_>, global: &Verdict) -> RobotsColumns {
        let s = robots.stats();
        let copies = Copies::of(robots);
        RobotsColumns {
            robots_parsed: true,
            has_rules: Some(
                robots
                    .rules()
                    .iter()
                    .any(|rule| rule.group.is_some() && !rule.is_empty()),
            ),
            lines: Some(s.lines),
            empty_lines: Some(s.empty_lines),
            comment_lines: Some(s.comment_lines),
            invalid_lines: Some(s.invalid_lines),
            groups: Some(robots.groups().len()),
            user_agent_lines: Some(s.user_agents),
            allow_rules: Some(s.allows),
            disallow_rules: Some(s.disallows),
            empty_rules: Some(s.empty_rules),
            rules_outside_group: Some(s.rules_outside_group),
            sitemaps: Some(s.sitemaps),
            unknown_directives: Some(s.unknown),
            known_elsewhere_directives: Some(s.known_elsewhere),
            preference_lines: Some(s.preference_lines),
            cloudflare_blocks: Some(s.cloudflare_blocks),
            typos: Some(s.typos),
            missing_colon: Some(s.missing_colon),
            lines_too_long: Some(s.too_long),
            bytes_ignored: Some(s.bytes_ignored as u64),
            crawl_delay: super::verdict::crawl_delay(robots),
            global_class: global.rules_class,
            global_root_allowed: global.root_allowed,
            global_group_match: global.group_match,
            license_lines: Some(
                robots
                    .directives()
                    .iter()
                    .filter(|d| d.key.eq_ignore_ascii_case(b"license"))
                    .count() as u32,
            ),
            body_digest: Some(copies.body_digest),
            ruleset_digest: Some(copies.ruleset_digest),
            template: copies.template.map(|t| t.id),
            platform: copies.template.map(|t| t.platform),
        }
    }
}
