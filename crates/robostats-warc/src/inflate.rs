//! Whole-buffer gzip inflation with libdeflate.
//!
//! Why libdeflate, and why through its `-sys` crate: Common Crawl writes every
//! record as its own small gzip member, so a whole-buffer inflater that needs
//! the complete member in memory fits, and libdeflate is the fastest one we
//! measured (BENCHMARKS.md, "Reading WARC files": about twice flate2 with
//! zlib-rs). The safe `libdeflater` wrapper cannot tell how many input bytes
//! a member used, and without that we cannot find where the next member
//! starts or report a member's compressed length. `libdeflate_gzip_decompress_ex`
//! reports it, so this module wraps that one call: the crate's only
//! unsafe code.
#![allow(unsafe_code)]

use libdeflate_sys as sys;
use std::ptr::NonNull;

/// How a whole-member inflation ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inflated {
    /// The member inflated: `(compressed bytes used, uncompressed bytes)`.
    Done(usize, usize),
    /// The output buffer is too small for this member.
    NeedSpace,
    /// The input is not a complete, valid gzip member (either corrupt or
    /// cut short: libdeflate does not say which).
    Bad,
}

/// An owned libdeflate decompressor.
pub(crate) struct Inflater {
    ptr: NonNull<sys::libdeflate_decompressor>,
}

// SAFETY: a libdeflate decompressor holds no thread-local state; it may be
// moved to another thread as long as it is used by one thread at a time,
// which `&mut self` guarantees.
unsafe impl Send for Inflater {}

impl Inflater {
    pub(crate) fn new() -> Inflater {
        // SAFETY: plain allocation call without arguments.
        let ptr = unsafe { sys::libdeflate_alloc_decompressor() };
        Inflater {
            ptr: NonNull::new(ptr).expect("libdeflate could not allocate a decompressor"),
        }
    }

    /// Inflates the gzip member at the start of `input` into `out`.
    pub(crate) fn gzip_member(&mut self, input: &[u8], out: &mut [u8]) -> Inflated {
        let mut used = 0usize;
        let mut written = 0usize;
        // SAFETY: the pointers and lengths come from live slices; libdeflate
        // reads at most `input.len()` bytes and writes at most `out.len()`.
        let ret = unsafe {
            sys::libdeflate_gzip_decompress_ex(
                self.ptr.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut used,
                &mut written,
            )
        };
        match ret {
            sys::libdeflate_result_LIBDEFLATE_SUCCESS => Inflated::Done(used, written),
            sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Inflated::NeedSpace,
            _ => Inflated::Bad,
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: allocated by libdeflate_alloc_decompressor, freed once.
        unsafe { sys::libdeflate_free_decompressor(self.ptr.as_ptr()) }
    }
}
