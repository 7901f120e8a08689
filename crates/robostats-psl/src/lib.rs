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
