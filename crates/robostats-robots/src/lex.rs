//! Body -> lines: Google's `RobotsTxtParser::Parse`, `GetKeyAndValueFrom`
//! and `ParsedRobotsKey::Parse`, on raw bytes.
//!
//! Every quirk here is Google's, on purpose (`docs/robots-txt.md` lists
//! them, and where Google departs from RFC 9309):
//!
//! - a leading UTF-8 BOM, or any prefix of it (`EF`, `EF BB`), is skipped,
//!   only at the very start of the body;
//! - CR, LF and CRLF each end a line (`\n\r` is two line ends), and there is
//!   always a last line after the last line end, possibly empty;
//! - a line keeps at most [`MAX_LINE_BYTES`] bytes: the rest is dropped, not
//!   the line;
//! - a NUL byte ends the line's content (Google works on C strings);
//! - the first `#` anywhere cuts the line;
//! - the key ends at the first `:`; with no colon, a run of spaces or tabs is
//!   accepted as the separator only when the line is exactly two tokens;
//! - keys are case-insensitive *prefixes* (`user-agents:` and `allowance:`
//!   are a user-agent and an allow line), tried in the order user-agent,
//!   allow, disallow, sitemap, with Google's accepted typos.

use memchr::{memchr, memchr2};

/// The longest line content Google keeps: its line buffer holds
/// `2083 * 8` bytes, one of which is the terminating NUL.
pub const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

/// The directive a line holds, after Google's key parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// `user-agent` (also the typos `useragent`, `user agent`).
    UserAgent,
    /// `allow` (Google accepts no typo of it).
    Allow,
    /// `disallow` (also `dissallow`, `dissalow`, `disalow`, `diasllow`,
    /// `disallaw`).
    Disallow,
    /// `sitemap` (also `site-map`).
    Sitemap,
    /// Any other key: Google's `HandleUnknownAction`.
    Unknown,
}

impl Key {
    /// The key's canonical name: `user-agent`, `allow`, `disallow`,
    /// `sitemap` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Key::UserAgent => "user-agent",
            Key::Allow => "allow",
            Key::Disallow => "disallow",
            Key::Sitemap => "sitemap",
            Key::Unknown => "unknown",
        }
    }

    /// Whether Google %-escapes this key's value (`MaybeEscapePattern`):
    /// every key but user-agent and sitemap.
    pub fn value_is_escaped(self) -> bool {
        !matches!(self, Key::UserAgent | Key::Sitemap)
    }
}

/// The per-line flags of Google's reporting parser
/// (`RobotsParseHandler::LineMetadata`), field for field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineMetadata {
    /// Nothing but whitespace (and no comment).
    pub is_empty: bool,
    /// The line has a `#` comment.
    pub has_comment: bool,
    /// The line is only a comment.
    pub is_comment: bool,
    /// The line has a key and a value.
    pub has_directive: bool,
    /// The key is one of Google's accepted typos.
    pub is_acceptable_typo: bool,
    /// The line was longer than [`MAX_LINE_BYTES`] and was cut.
    pub is_line_too_long: bool,
    /// Key and value were separated by whitespace, not `:`.
    pub is_missing_colon_separator: bool,
}

impl LineMetadata {
    /// The flags by Google's names, in Google's order: for reports and
    /// tables.
    pub fn flags(&self) -> [(&'static str, bool); 7] {
        [
            ("is_empty", self.is_empty),
            ("has_comment", self.has_comment),
            ("is_comment", self.is_comment),
            ("has_directive", self.has_directive),
            ("is_acceptable_typo", self.is_acceptable_typo),
            ("is_line_too_long", self.is_line_too_long),
            (
                "is_missing_colon_separator",
                self.is_missing_colon_separator,
            ),
        ]
    }
}

/// One physical line of a robots.txt body, as Google's parser sees it.
///
/// Every slice borrows from the body: walking the lines allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number; `\r\n` counts once.
    pub number: u32,
    /// Byte offset of the line's first byte in the body.
    pub offset: usize,
    /// The whole physical line, without its line end (and without a
    /// leading BOM on line 1). Not cut: see [`Line::content`] for that.
    pub raw: &'a [u8],
    /// The directive's key, or `None` when the line has none.
    pub key: Option<Key>,
    /// The key as written, whitespace-stripped (empty without a directive).
    pub key_text: &'a [u8],
    /// The value as written, whitespace-stripped and not escaped (empty
    /// without a directive). [`crate::escape_pattern`] gives the
    /// form Google matches with.
    pub value: &'a [u8],
    /// Google's line flags.
    pub metadata: LineMetadata,
}

impl<'a> Line<'a> {
    /// The part of the line Google reads: cut at [`MAX_LINE_BYTES`] and
    /// at the first NUL.
    pub fn content(&self) -> &'a [u8] {
        cut_content(self.raw)
    }
}

/// An iterator over the lines of a body, exactly Google's line splitting.
///
/// A body ending in a line end has one more, empty, last line; the empty
/// body has one line.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    body: &'a [u8],
    pos: usize,
    number: u32,
    done: bool,
}

impl<'a> Lines<'a> {
    /// Lines of `body`, after skipping a leading BOM or BOM prefix.
    pub fn new(body: &'a [u8]) -> Lines<'a> {
        Lines {
            body,
            pos: bom_len(body),
            number: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.done {
            return None;
        }
        let start = self.pos;
        let end = match memchr2(b'\n', b'\r', &self.body[start..]) {
            Some(i) => {
                let end = start + i;
                let mut next = end + 1;
                // The LF of a CRLF ends nothing: Google's
                // `is_CRLF_continuation`.
                if self.body[end] == b'\r' && self.body.get(next) == Some(&b'\n') {
                    next += 1;
                }
                self.pos = next;
                end
            }
            None => {
                self.done = true;
                self.body.len()
            }
        };
        self.number = self.number.saturating_add(1);
        Some(lex_line(self.number, start, &self.body[start..end]))
    }
}

/// How many leading bytes are a UTF-8 BOM or a prefix of one.
pub fn bom_len(body: &[u8]) -> usize {
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    body.iter().zip(BOM).take_while(|(b, m)| **b == *m).count()
}

/// What Google reads of a line at most: its first [`MAX_LINE_BYTES`].
fn cut_long(raw: &[u8]) -> &[u8] {
    &raw[..raw.len().min(MAX_LINE_BYTES)]
}

fn cut_content(raw: &[u8]) -> &[u8] {
    let line = cut_long(raw);
    match memchr(0, line) {
        Some(nul) => &line[..nul],
        None => line,
    }
}

/// Google's `isspace` / `absl::ascii_isspace`: unlike
/// `u8::is_ascii_whitespace`, it includes the vertical tab.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Google's `ExtractUserAgent`: the longest prefix of `value` made of
/// ASCII letters, `-` and `_`. `Googlebot/2.1` gives `Googlebot`,
/// `Foo Bar` gives `Foo`.
pub fn product_token(value: &[u8]) -> &[u8] {
    let n = value
        .iter()
        .take_while(|b| b.is_ascii_alphabetic() || **b == b'-' || **b == b'_')
        .count();
    &value[..n]
}

/// Google's test for the global group: `*` alone or followed by
/// whitespace (`* foo` is global, `*foo` is not).
pub fn is_global_agent(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => is_space(*next),
        _ => false,
    }
}

/// Google's `IsValidUserAgentToObey`: non-empty and made only of
/// `[A-Za-z_-]`. Only such agents can ever match a group.
pub fn is_valid_user_agent_to_obey(agent: &[u8]) -> bool {
    !agent.is_empty() && product_token(agent).len() == agent.len()
}

pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_space(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_space(*last) {
            break;
        }
        s = rest;
    }
    s
}

fn lex_line(number: u32, offset: usize, raw: &[u8]) -> Line<'_> {
    let mut metadata = LineMetadata {
        is_line_too_long: raw.len() > MAX_LINE_BYTES,
        ..LineMetadata::default()
    };
    let no_directive = |metadata| Line {
        number,
        offset,
        raw,
        key: None,
        key_text: &[],
        value: &[],
        metadata,
    };

    // The content (cut at MAX_LINE_BYTES and at a NUL: `cut_content`) up
    // to a comment, in one scan: whichever of NUL and `#` comes first
    // ends what is read, and only a `#` makes a comment.
    let mut line = cut_long(raw);
    if let Some(end) = memchr2(0, b'#', line) {
        metadata.has_comment = line[end] == b'#';
        line = &line[..end];
    }
    let line = trim(line);
    if line.is_empty() {
        if metadata.has_comment {
            metadata.is_comment = true;
        } else {
            metadata.is_empty = true;
        }
        return no_directive(metadata);
    }

    let (key_text, value) = if let Some(colon) = memchr(b':', line) {
        (&line[..colon], &line[colon + 1..])
    } else {
        let is_white = |b: &u8| *b == b' ' || *b == b'\t';
        let Some(sep) = line.iter().position(is_white) else {
            return no_directive(metadata);
        };
        // The line is trimmed, so a non-blank byte follows the run.
        let value = &line[sep..];
        let value = &value[value.iter().take_while(|b| is_white(b)).count()..];
        if value.iter().any(is_white) {
            // More than two tokens: not a directive.
            return no_directive(metadata);
        }
        metadata.is_missing_colon_separator = true;
        (&line[..sep], value)
    };
    let key_text = trim(key_text);
    if key_text.is_empty() {
        return no_directive(metadata);
    }
    let (key, typo) = parse_key(key_text);
    metadata.has_directive = true;
    metadata.is_acceptable_typo = typo;
    Line {
        number,
        offset,
        raw,
        key: Some(key),
        key_text,
        value: trim(value),
        metadata,
    }
}

fn starts_with_ignore_case(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Google's `ParsedRobotsKey::Parse`: case-insensitive prefixes, in order,
/// with the frequent typos. Returns the key and whether it was a typo.
fn parse_key(key: &[u8]) -> (Key, bool) {
    let any = |prefixes: &[&str]| prefixes.iter().any(|p| starts_with_ignore_case(key, p));
    if starts_with_ignore_case(key, "user-agent") {
        (Key::UserAgent, false)
    } else if any(&["useragent", "user agent"]) {
        (Key::UserAgent, true)
    } else if starts_with_ignore_case(key, "allow") {
        (Key::Allow, false)
    } else if starts_with_ignore_case(key, "disallow") {
        (Key::Disallow, false)
    } else if any(&["dissallow", "dissalow", "disalow", "diasllow", "disallaw"]) {
        (Key::Disallow, true)
    } else if starts_with_ignore_case(key, "sitemap") {
        (Key::Sitemap, false)
    } else if starts_with_ignore_case(key, "site-map") {
        (Key::Sitemap, true)
    } else {
        (Key::Unknown, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_tokens() {
        assert_eq!(product_token(b"Googlebot/2.1"), b"Googlebot");
        assert_eq!(product_token(b"Foo Bar"), b"Foo");
        assert_eq!(product_token(b"FooBot2"), b"FooBot");
        assert_eq!(product_token("ツbot".as_bytes()), b"");
    }

    #[test]
    fn global_agent() {
        assert!(is_global_agent(b"*"));
        assert!(is_global_agent(b"* foo"));
        assert!(is_global_agent(b"*\x0Bfoo"));
        assert!(!is_global_agent(b"*foo"));
        assert!(!is_global_agent(b"*/1.0"));
    }

    fn lines(body: &[u8]) -> Vec<Line<'_>> {
        Lines::new(body).collect()
    }

    #[test]
    fn line_ends_cr_lf_crlf_and_lfcr() {
        let ls = lines(b"a:1\rb:2\nc:3\r\nd:4\n\re:5");
        let keys: Vec<&[u8]> = ls.iter().map(|l| l.key_text).collect();
        assert_eq!(keys, [&b"a"[..], b"b", b"c", b"d", b"", b"e"]);
        assert_eq!(ls.last().unwrap().number, 6);
    }

    #[test]
    fn final_empty_line_after_last_line_end() {
        assert_eq!(lines(b"").len(), 1);
        assert_eq!(lines(b"a:b\n").len(), 2);
        assert_eq!(lines(b"a:b\r\n").len(), 2);
        // `\r\r\n` is two line ends, not one.
        assert_eq!(lines(b"a:b\r\r\n").len(), 3);
    }

    #[test]
    fn bom_and_bom_prefixes_skipped_at_start_only() {
        assert_eq!(bom_len(b"\xEF\xBB\xBFx"), 3);
        assert_eq!(bom_len(b"\xEF\xBBx"), 2);
        assert_eq!(bom_len(b"\xEFx"), 1);
        assert_eq!(bom_len(b"\xEF\xEF\xBB\xBF"), 1);
        let ls = lines(b"\xEF\xBB\xBFuser-agent: a\n\xEF\xBB\xBFallow: /");
        assert_eq!(ls[0].key, Some(Key::UserAgent));
        assert_eq!(ls[1].key, Some(Key::Unknown));
    }

    #[test]
    fn nul_ends_the_content() {
        let l = lines(b"disallow: /a\0b # c")[0];
        assert_eq!(l.value, b"/a");
        assert!(!l.metadata.has_comment);
        // a comment before the NUL is one
        let l = lines(b"disallow: /a # c\0d")[0];
        assert_eq!(l.value, b"/a");
        assert!(l.metadata.has_comment);
        let l = lines(b"# c\0d")[0];
        assert!(l.metadata.is_comment);
    }

    #[test]
    fn long_lines_are_cut_not_dropped() {
        let mut body = b"disallow: /".to_vec();
        body.resize(20_000, b'a');
        let l = lines(&body)[0];
        assert!(l.metadata.is_line_too_long);
        assert_eq!(l.content().len(), MAX_LINE_BYTES);
        assert_eq!(l.value.len(), MAX_LINE_BYTES - b"disallow: ".len());
        assert_eq!(l.raw.len(), 20_000);
    }

    #[test]
    fn missing_colon_only_with_two_tokens() {
        let l = lines(b"disallow /x")[0];
        assert_eq!((l.key, l.value), (Some(Key::Disallow), &b"/x"[..]));
        assert!(l.metadata.is_missing_colon_separator);
        let l = lines(b"disallow /x /y")[0];
        assert_eq!(l.key, None);
        assert!(!l.metadata.is_missing_colon_separator);
        // The vertical tab is stripped but is no separator.
        assert_eq!(lines(b"disallow\x0B/x")[0].key, None);
    }

    #[test]
    fn key_prefixes_and_typos() {
        for (key, want, typo) in [
            ("User-Agent", Key::UserAgent, false),
            ("user-agents", Key::UserAgent, false),
            ("useragent", Key::UserAgent, true),
            ("user agent", Key::UserAgent, true),
            ("allowance", Key::Allow, false),
            ("DISALLOWED", Key::Disallow, false),
            ("dissallow", Key::Disallow, true),
            ("disallaw", Key::Disallow, true),
            ("sitemaps", Key::Sitemap, false),
            ("site-map", Key::Sitemap, true),
            ("crawl-delay", Key::Unknown, false),
        ] {
            assert_eq!(parse_key(key.as_bytes()), (want, typo), "{key}");
        }
    }

    #[test]
    fn empty_value_is_a_directive() {
        let l = lines(b"Disallow:")[0];
        assert_eq!(l.key, Some(Key::Disallow));
        assert_eq!(l.value, b"");
        assert!(l.metadata.has_directive);
    }

    #[test]
    fn comment_and_empty_flags() {
        let m = lines(b"   # only a comment")[0].metadata;
        assert!(m.is_comment && m.has_comment && !m.is_empty);
        let m = lines(b" \t ")[0].metadata;
        assert!(m.is_empty && !m.is_comment);
        assert_eq!(lines(b": value")[0].key, None);
    }
}
