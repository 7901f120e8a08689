//! A response's body and headers -> content facts: byte order mark, HTML
//! served as robots.txt, MIME type, cache lifetime.

crate::table::labels! {
    /// A byte order mark at the start of the body.
    #[non_exhaustive]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum Bom {
        /// `EF BB BF`.
        Utf8 = "utf-8",
        /// `FF FE`.
        Utf16Le = "utf-16le",
        /// `FE FF`.
        Utf16Be = "utf-16be",
    }
}

impl Bom {
    /// The BOM at the start of `body`, if any.
    pub fn of(body: &[u8]) -> Option<Bom> {
        if body.starts_with(b"\xef\xbb\xbf") {
            Some(Bom::Utf8)
        } else if body.starts_with(b"\xff\xfe") {
            Some(Bom::Utf16Le)
        } else if body.starts_with(b"\xfe\xff") {
            Some(Bom::Utf16Be)
        } else {
            None
        }
    }

    /// Its length in bytes.
    pub fn byte_len(self) -> usize {
        match self {
            Bom::Utf8 => 3,
            Bom::Utf16Le | Bom::Utf16Be => 2,
        }
    }
}

/// The MIME type of a `Content-Type` value: lower case, without
/// parameters.
pub fn mime_essence(content_type: &str) -> Option<String> {
    let essence = content_type.split(';').next()?.trim();
    (!essence.is_empty()).then(|| essence.to_ascii_lowercase())
}

/// Common Crawl's HTML test on the first line (`<html`, `<!DOCTYPE html`).
pub fn looks_like_html(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let head = &body[start..body.len().min(start + 14)];
    let starts = |p: &[u8]| head.len() >= p.len() && head[..p.len()].eq_ignore_ascii_case(p);
    starts(b"<html") || starts(b"<!doctype html")
}

/// `max-age=N` in a `Cache-Control` value.
pub fn max_age(value: &[u8]) -> Option<u64> {
    value.split(|&b| b == b',').find_map(|directive| {
        let d = directive.trim_ascii();
        let eq = d.iter().position(|&b| b == b'=')?;
        if !d[..eq].trim_ascii().eq_ignore_ascii_case(b"max-age") {
            return None;
        }
        let v = d[eq + 1..].trim_ascii();
        let v = v
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(v);
        std::str::from_utf8(v).ok()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_control_and_html() {
        assert_eq!(max_age(b"public, max-age=14400"), Some(14400));
        assert_eq!(max_age(b"no-cache"), None);
        assert!(looks_like_html(b"\n  <!DOCTYPE HTML>"));
        assert!(!looks_like_html(b"User-agent: *"));
    }
}
