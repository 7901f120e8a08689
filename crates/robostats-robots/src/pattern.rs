//! Rule patterns and URL paths: Google's `MaybeEscapePattern`,
//! `GetPathParamsQuery` and `RobotsMatchStrategy::Matches`.
//!
//! BE ADVISED: the matcher is the hot loop of the whole program (every
//! capture x every agent x every rule of its groups), and its input is
//! written by strangers. It must give exactly Google's answer and must
//! stay linear-ish on adversarial patterns. Google's own algorithm keeps a
//! set of candidate positions (`O(|pattern| * |path|)` time and a buffer
//! per call); this one splits the pattern at `*` and places each literal
//! piece at its leftmost possible position, which is equivalent for
//! patterns whose only operators are `*` and a final `$`: if any placement
//! of the pieces matches, the leftmost placement does too, because it
//! leaves the most room for the pieces after it. It allocates nothing and
//! costs a few substring searches per rule. `tests/robots_props.rs` checks
//! it against a literal port of Google's algorithm on random inputs.

use std::borrow::Cow;

use memchr::{memchr, memmem, memrchr};

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

fn is_escape_at(src: &[u8], i: usize) -> bool {
    src[i] == b'%'
        && src.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && src.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// Google's `MaybeEscapePattern`: %-escapes every byte >= 0x80 and
/// upper-cases the hex digits of existing `%xx` escapes; nothing else
/// changes. Borrows when nothing needs to change, which is almost always.
///
/// ```
/// use robostats_robots::escape_pattern;
/// assert_eq!(&*escape_pattern("/José".as_bytes()), b"/Jos%C3%A9");
/// assert_eq!(&*escape_pattern(b"/a%2fb"), b"/a%2Fb");
/// assert_eq!(&*escape_pattern(b"/%zz"), b"/%zz");
/// ```
pub fn escape_pattern(src: &[u8]) -> Cow<'_, [u8]> {
    // Most patterns have no escape and no byte past ASCII: two vectorised
    // scans instead of a byte at a time.
    if memchr(b'%', src).is_none() && src.is_ascii() {
        return Cow::Borrowed(src);
    }
    let mut i = 0;
    let mut needs_change = false;
    while i < src.len() {
        if is_escape_at(src, i) {
            needs_change |= src[i + 1].is_ascii_lowercase() || src[i + 2].is_ascii_lowercase();
            i += 3;
        } else {
            needs_change |= src[i] >= 0x80;
            i += 1;
        }
        if needs_change {
            break;
        }
    }
    if !needs_change {
        return Cow::Borrowed(src);
    }
    let mut dst = Vec::with_capacity(src.len() + src.len() / 2);
    let mut i = 0;
    while i < src.len() {
        if is_escape_at(src, i) {
            dst.extend_from_slice(&[
                b'%',
                src[i + 1].to_ascii_uppercase(),
                src[i + 2].to_ascii_uppercase(),
            ]);
            i += 3;
        } else {
            let b = src[i];
            if b >= 0x80 {
                dst.extend_from_slice(&[
                    b'%',
                    HEX_UPPER[usize::from(b >> 4)],
                    HEX_UPPER[usize::from(b & 0xF)],
                ]);
            } else {
                dst.push(b);
            }
            i += 1;
        }
    }
    Cow::Owned(dst)
}

/// The part of a URL that rules are matched against, as Google's
/// `GetPathParamsQuery` extracts it: scheme, authority and `#fragment`
/// dropped, `;params?query` kept, never normalised.
///
/// Google's result is `"/"` plus [`PathRef::rest`] when
/// [`PathRef::needs_slash`] is set (a URL like `http://a.b?x`); this type
/// keeps that form so that extracting a path allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathRef<'a> {
    /// A `/` must be prepended to [`PathRef::rest`].
    pub needs_slash: bool,
    /// The path as it stands in the URL.
    pub rest: &'a [u8],
}

impl<'a> PathRef<'a> {
    /// The path as one byte string (allocates only when a `/` must be
    /// prepended).
    pub fn to_bytes(self) -> Cow<'a, [u8]> {
        if self.needs_slash {
            let mut v = Vec::with_capacity(self.rest.len() + 1);
            v.push(b'/');
            v.extend_from_slice(self.rest);
            Cow::Owned(v)
        } else {
            Cow::Borrowed(self.rest)
        }
    }
}

fn find_first_of(s: &[u8], from: usize, set: &[u8]) -> Option<usize> {
    s.get(from..)?
        .iter()
        .position(|b| set.contains(b))
        .map(|i| i + from)
}

/// Google's `GetPathParamsQuery`, without allocating.
///
/// ```
/// use robostats_robots::path_params_query;
/// let p = path_params_query(b"http://example.com/a/b?c=d#frag");
/// assert_eq!(&*p.to_bytes(), b"/a/b?c=d");
/// assert_eq!(&*path_params_query(b"example.com?a").to_bytes(), b"/?a");
/// assert_eq!(&*path_params_query(b"http://example.com").to_bytes(), b"/");
/// ```
pub fn path_params_query(url: &[u8]) -> PathRef<'_> {
    const ROOT: PathRef<'static> = PathRef {
        needs_slash: false,
        rest: b"/",
    };
    // Initial two slashes are ignored.
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let early_path = find_first_of(url, search_start, b"/?;");
    let protocol_end = memmem::find(&url[search_start..], b"://").map(|i| i + search_start);
    let protocol_end = match (early_path, protocol_end) {
        // A path, params or query before `://`: it is no scheme separator.
        (Some(early), Some(p)) if early < p => search_start,
        (_, Some(p)) => p + 3,
        (_, None) => search_start,
    };
    let Some(path_start) = find_first_of(url, protocol_end, b"/?;") else {
        return ROOT;
    };
    let hash = memchr(b'#', &url[search_start..]).map(|i| i + search_start);
    if hash.is_some_and(|h| h < path_start) {
        return ROOT;
    }
    let path_end = hash.unwrap_or(url.len());
    PathRef {
        needs_slash: url[path_start] != b'/',
        rest: &url[path_start..path_end],
    }
}

/// Whether `pattern` matches `path` the way Google's `Matches` decides:
/// anchored at the start of the path, `*` matching any run of bytes, and
/// `$` an end anchor only as the pattern's last byte (a literal elsewhere).
///
/// ```
/// use robostats_robots::matches;
/// assert!(matches(b"/a.b.html", b"/*.html"));
/// assert!(matches(b"/fish.php?id=1", b"/*.php"));
/// assert!(!matches(b"/fish.php?id=1", b"/*.php$"));
/// assert!(matches(b"/a$b", b"/a$b"));
/// ```
pub fn matches(path: &[u8], pattern: &[u8]) -> bool {
    match pattern.split_last() {
        Some((b'$', pat)) => matches_parts(path, pat, true),
        _ => matches_parts(path, pattern, false),
    }
}

/// [`matches`] with the end anchor already split off `pat`.
pub(crate) fn matches_parts(path: &[u8], pat: &[u8], anchored: bool) -> bool {
    let Some(first_star) = memchr(b'*', pat) else {
        return if anchored {
            path == pat
        } else {
            path.starts_with(pat)
        };
    };
    let head = &pat[..first_star];
    if !path.starts_with(head) {
        return false;
    }
    let last_star = memrchr(b'*', pat).unwrap_or(first_star);
    let tail = &pat[last_star + 1..];
    let middle = if last_star > first_star {
        &pat[first_star + 1..last_star]
    } else {
        &[]
    };
    // With an anchor the tail sits at the very end of the path and the
    // middle pieces must fit before it.
    let limit = if anchored {
        if path.len() < head.len() + tail.len() || !path.ends_with(tail) {
            return false;
        }
        path.len() - tail.len()
    } else {
        path.len()
    };
    let mut pos = head.len();
    for piece in middle.split(|&b| b == b'*').filter(|p| !p.is_empty()) {
        match memmem::find(&path[pos..limit], piece) {
            Some(i) => pos += i + piece.len(),
            None => return false,
        }
    }
    anchored || memmem::find(&path[pos..], tail).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_backtracks() {
        assert!(matches(b"/a.b.html", b"/*.html$"));
        assert!(matches(b"/aXbXc", b"/a*b*c$"));
        assert!(!matches(b"/aXbXc", b"/a*c*b$"));
        assert!(matches(b"/abcabc", b"/*abc$"));
        assert!(matches(b"/", b"*"));
        assert!(matches(b"/", b"*$"));
        assert!(matches(b"/", b"**$"));
        assert!(!matches(b"/", b"$"));
        assert!(matches(b"/", b""));
    }

    #[test]
    fn anchor_tail_does_not_overlap_middle() {
        // "ab" must be found before the tail "b" at the end.
        assert!(!matches(b"/ab", b"/*ab*b$"));
        assert!(matches(b"/abb", b"/*ab*b$"));
    }

    #[test]
    fn dollar_inside_is_literal() {
        assert!(matches(b"/a$b/c", b"/a$b"));
        assert!(!matches(b"/ab", b"/a$b"));
    }

    #[test]
    fn escape_upper_cases_and_escapes_high_bytes() {
        assert_eq!(&*escape_pattern(b"%aa"), b"%AA");
        assert_eq!(&*escape_pattern(b"/%e2%9c%93"), b"/%E2%9C%93");
        assert_eq!(&*escape_pattern(b"\xFF%"), b"%FF%");
        assert_eq!(&*escape_pattern(b"%a"), b"%a");
        assert!(matches!(escape_pattern(b"/plain"), Cow::Borrowed(_)));
    }
}
