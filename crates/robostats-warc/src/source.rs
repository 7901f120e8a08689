//! The bytes of a file behind one buffer: plain, or the inflated data of
//! its gzip members, with the position of the next byte (the member's
//! compressed offset, and the offset within it).

use std::io::Read;

use crate::gzip::{Fault, GzipMembers, Input};

/// Plain or gzip input, decided by its first bytes.
pub(crate) enum Source<R> {
    /// Not read yet: the first bytes decide between gzip and plain.
    Unknown(Input<R>),
    Plain(Input<R>),
    Gzip(Box<GzipMembers<R>>),
    /// Taken out while switching variants.
    Gone,
}

impl<R: Read> Source<R> {
    pub(crate) fn fill_buf(&mut self) -> Result<&[u8], Fault> {
        match self {
            Source::Plain(input) => {
                let off = input.offset();
                if input.data().is_empty() {
                    input.read_more().map_err(|e| Fault::io(off, e))?;
                }
                Ok(input.data())
            }
            Source::Gzip(gz) => gz.fill_buf(),
            _ => Ok(&[]),
        }
    }

    pub(crate) fn fill_at_least(&mut self, n: usize) -> Result<&[u8], Fault> {
        match self {
            Source::Plain(input) => {
                let off = input.offset();
                input.fill_to(n).map_err(|e| Fault::io(off, e))
            }
            Source::Gzip(gz) => gz.fill_at_least(n),
            _ => Ok(&[]),
        }
    }

    pub(crate) fn consume(&mut self, n: usize) {
        match self {
            Source::Plain(input) => input.advance(n),
            Source::Gzip(gz) => gz.consume(n),
            _ => debug_assert_eq!(n, 0),
        }
    }

    /// Moves to the next gzip member; plain input has only one "member".
    pub(crate) fn next_member(&mut self) -> Result<bool, Fault> {
        match self {
            Source::Gzip(gz) => gz.next_member(),
            _ => Ok(false),
        }
    }

    /// `(offset, offset in member)` of the next byte.
    pub(crate) fn position(&self) -> (u64, u64) {
        match self {
            Source::Plain(input) => (input.offset(), 0),
            Source::Gzip(gz) => (gz.member_start(), gz.in_member()),
            _ => (0, 0),
        }
    }

    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self, Source::Gzip(_))
    }
}
