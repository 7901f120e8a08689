//! The registrable domain of a host name by the Public Suffix List: the
//! `psl` crate's lookup, compiled here once.
//!
//! `psl` compiles the list into nested matches, and its lookup is generic
//! and `#[inline]`: it is compiled into each crate that calls it, each time
//! that crate compiles (its unit tests, the fuzz targets' sanitized build).
//! Called through [`domain`], which is neither, it is compiled only here
//! (README.md has the figures).
#![forbid(unsafe_code)]

/// The registrable domain of `host` (its labels, lower-case, without a
/// trailing dot): its public suffix and one label more, by the list's
/// rules, wildcards and exceptions included. `None` for a public suffix
/// itself or a name with no label before one.
#[inline(never)]
pub fn domain(host: &[u8]) -> Option<&[u8]> {
    psl::domain(host).map(|d| d.as_bytes())
}

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    fn d(host: &str) -> Option<&str> {
        super::domain(host.as_bytes()).map(|d| std::str::from_utf8(d).unwrap())
    }

    #[test]
    fn the_lists_rules_apply() {
        assert_eq!(d("www.example.com"), Some("example.com"));
        assert_eq!(d("a.b.example.co.uk"), Some("example.co.uk"));
        // A public suffix alone has no registrable domain.
        assert_eq!(d("co.uk"), None);
        assert_eq!(d("com"), None);
        // A wildcard rule (*.ck) and its exception (!www.ck).
        assert_eq!(d("a.b.ck"), Some("a.b.ck"));
        assert_eq!(d("www.ck"), Some("www.ck"));
        // A suffix the list does not know is one label (its default rule).
        assert_eq!(d("host.example"), Some("host.example"));
    }
}
