//! File bytes -> gzip members -> uncompressed bytes, with member offsets.
//!
//! Advice for the next person who changes this file:
//!
//! * Common Crawl writes one gzip member per WARC record, and its index points
//!   at records by the member's compressed offset and length. So this reader
//!   never hides member boundaries (unlike `MultiGzDecoder`): the WARC layer
//!   asks for the next member explicitly, and every member knows where it
//!   started and, once inflated, where it ended.
//! * The fast path inflates a whole member in one call (libdeflate, see
//!   `inflate.rs`), which needs the whole compressed member in the input
//!   window and enough room for its output. Both are grown geometrically up to
//!   `whole_max`; a member that still does not fit (other producers write one
//!   member for a whole file) is inflated by a streaming decoder instead, so
//!   memory stays bounded whatever the input. Growing geometrically matters:
//!   growing by one read at a time would inflate a big member over and over.
//! * libdeflate cannot tell a cut-off member from a corrupt one. When a member
//!   fails with the rest of the file in the window, zlib inflates what it can
//!   of it in one call (`salvage`) and says what is wrong: that is how a
//!   truncated last record still comes out. One call, because a streaming
//!   decoder drops the output of its failing call, so the salvaged prefix
//!   would depend on buffer sizes (the fuzz target checks that it does not).
//! * After garbage or a broken member, scan for the next `1f 8b 08`. Report a
//!   run of garbage once, not once per byte.
//! * Nothing here may loop without consuming input or producing output: the
//!   fuzz target checks that no input hangs the reader.

use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;

use super::inflate::{Inflated, Inflater};
use crate::error::{Error, ErrorKind, Stage};

/// The first three bytes of every gzip member we can read (deflate method).
const MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// A problem found below the WARC layer, before the file name is attached.
#[derive(Debug)]
pub(crate) struct Fault {
    pub(crate) stage: Stage,
    pub(crate) kind: ErrorKind,
    pub(crate) offset: Option<u64>,
    pub(crate) message: String,
    pub(crate) io: Option<io::Error>,
}

impl Fault {
    pub(crate) fn new(kind: ErrorKind, offset: u64, message: impl Into<String>) -> Fault {
        Fault {
            stage: Stage::Gzip,
            kind,
            offset: Some(offset),
            message: message.into(),
            io: None,
        }
    }

    pub(crate) fn io(offset: u64, err: io::Error) -> Fault {
        Fault {
            stage: Stage::Open,
            kind: ErrorKind::Io,
            offset: Some(offset),
            message: err.to_string(),
            io: Some(err),
        }
    }
}

impl Fault {
    /// The public error, with the file name attached.
    pub(crate) fn into_error(self, file: &str) -> Error {
        match self.io {
            Some(io) => Error::io(self.stage, file, self.offset, io),
            None => Error::new(self.stage, self.kind, file, self.offset, self.message),
        }
    }
}

/// A read window over the raw file: bytes are kept until consumed, and the
/// window can be grown so that a whole gzip member fits.
pub(crate) struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
    read_size: usize,
}

impl<R: Read> Input<R> {
    pub(crate) fn new(inner: R, read_size: usize) -> Input<R> {
        Input {
            inner,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            read_size: read_size.max(1),
        }
    }

    /// File offset of the next unconsumed byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub(crate) fn data(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    pub(crate) fn advance(&mut self, n: usize) {
        debug_assert!(self.pos + n <= self.end);
        self.pos += n;
    }

    /// Appends up to one `read_size` of new bytes after the buffered ones.
    /// Returns the number of bytes added; 0 means end of file.
    pub(crate) fn read_more(&mut self) -> io::Result<usize> {
        if self.eof {
            return Ok(0);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        let want = self.end + self.read_size;
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..want]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(0);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads until at least `n` bytes are buffered or the file ends.
    pub(crate) fn fill_to(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < n {
            if self.read_more()? == 0 {
                break;
            }
        }
        Ok(self.data())
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let data = self.fill_buf()?;
        let n = data.len().min(out.len());
        out[..n].copy_from_slice(&data[..n]);
        self.advance(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.read_more()?;
        }
        Ok(self.data())
    }

    fn consume(&mut self, n: usize) {
        self.advance(n);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No member open: call `next_member`.
    Between,
    /// The rest of the current member is in `out`; its end is known.
    Whole,
    /// The current member is being inflated by the streaming decoder.
    Streaming,
}

/// A reader of gzip members. Between members, `fill_buf` returns an empty
/// slice; `next_member` moves on (skipping and reporting garbage).
pub(crate) struct GzipMembers<R> {
    /// The raw input; `None` while the streaming decoder owns it.
    input: Option<Input<R>>,
    decoder: Option<GzDecoder<Input<R>>>,
    inflater: Inflater,
    out: Vec<u8>,
    out_pos: usize,
    out_end: usize,
    /// Uncompressed bytes of the current member that came before `out[0]`.
    out_before: u64,
    member_start: u64,
    member_end: Option<u64>,
    state: State,
    /// The problem with the current member, reported once its salvaged
    /// bytes have been read.
    pending: Option<Fault>,
    whole_max: usize,
    read_size: usize,
}

impl<R: Read> GzipMembers<R> {
    pub(crate) fn new(input: Input<R>, read_size: usize, whole_max: usize) -> GzipMembers<R> {
        GzipMembers {
            input: Some(input),
            decoder: None,
            inflater: Inflater::new(),
            out: Vec::new(),
            out_pos: 0,
            out_end: 0,
            out_before: 0,
            member_start: 0,
            member_end: None,
            state: State::Between,
            pending: None,
            whole_max,
            read_size: read_size.max(1),
        }
    }

    /// Compressed offset of the current member.
    pub(crate) fn member_start(&self) -> u64 {
        self.member_start
    }

    /// Uncompressed offset of the next byte within the current member.
    pub(crate) fn in_member(&self) -> u64 {
        self.out_before + self.out_pos as u64
    }

    /// Compressed offset just past the current member, once it is known and
    /// all of its bytes have been consumed.
    pub(crate) fn member_end_reached(&self) -> Option<u64> {
        if self.state == State::Whole && self.out_pos == self.out_end {
            self.member_end
        } else {
            None
        }
    }

    /// Returns the input to the reader after a streaming member ended or
    /// failed.
    fn reclaim_input(&mut self) {
        if let Some(dec) = self.decoder.take() {
            self.input = Some(dec.into_inner());
        }
    }

    /// Opens the next member. `Ok(false)` at the end of the file. An error
    /// reports garbage that was skipped; calling again continues after it.
    pub(crate) fn next_member(&mut self) -> Result<bool, Fault> {
        self.reclaim_input();
        self.state = State::Between;
        self.pending = None;
        self.out_pos = 0;
        self.out_end = 0;
        self.out_before = 0;
        self.member_end = None;
        let input = self.input.as_mut().expect("input is owned between members");
        let garbage_start = input.offset();
        let mut skipped = 0u64;
        loop {
            let data = input.fill_to(4).map_err(|e| Fault::io(garbage_start, e))?;
            if data.is_empty() {
                if skipped > 0 {
                    return Err(Fault::new(
                        ErrorKind::GarbageBetweenMembers,
                        garbage_start,
                        format!("{skipped} bytes after the last gzip member"),
                    ));
                }
                return Ok(false);
            }
            // Reserved flag bits must be zero: a cheap check that rejects most
            // accidental magic numbers inside garbage.
            if data.len() >= 4 && data[..3] == MAGIC && data[3] & 0xe0 == 0 {
                break;
            }
            let skip = memchr::memchr(MAGIC[0], &data[1..]).map_or(data.len(), |i| i + 1);
            input.advance(skip);
            skipped += skip as u64;
        }
        if skipped > 0 {
            return Err(Fault::new(
                ErrorKind::GarbageBetweenMembers,
                garbage_start,
                format!("{skipped} bytes that are not a gzip member"),
            ));
        }
        self.member_start = input.offset();
        self.open_member()?;
        Ok(true)
    }

    fn open_member(&mut self) -> Result<(), Fault> {
        let input = self.input.as_mut().expect("input is owned between members");
        if self.out.len() < 64 * 1024 {
            self.out.resize((64 * 1024).min(self.whole_max.max(1)), 0);
        }
        let mut out_cap = self.out.len();
        while self.whole_max > 0 {
            match self
                .inflater
                .gzip_member(input.data(), &mut self.out[..out_cap])
            {
                Inflated::Done(used, n) => {
                    input.advance(used);
                    self.member_end = Some(input.offset());
                    self.out_end = n;
                    self.state = State::Whole;
                    return Ok(());
                }
                Inflated::NeedSpace => {
                    if out_cap >= self.whole_max {
                        break;
                    }
                    out_cap = (out_cap * 2).min(self.whole_max);
                    if self.out.len() < out_cap {
                        self.out.resize(out_cap, 0);
                    }
                }
                Inflated::Bad => {
                    // Maybe only part of the member is buffered: double the
                    // window (bounded) and try again.
                    let have = input.data().len();
                    if have >= self.whole_max {
                        break;
                    }
                    let target = (have * 2).clamp(self.read_size, self.whole_max);
                    let after = input
                        .fill_to(target)
                        .map_err(|e| Fault::io(self.member_start, e))?
                        .len();
                    if after == have {
                        // End of file: the member is broken.
                        return self.salvage();
                    }
                }
            }
        }
        let input = self.input.take().expect("input is owned between members");
        self.decoder = Some(GzDecoder::new(input));
        self.state = State::Streaming;
        Ok(())
    }

    /// Inflates what can be inflated of a broken member whose bytes are all in
    /// the window, then reports it: truncated or corrupt.
    ///
    /// Whole, not streamed: a streaming decoder drops the output of the call
    /// that fails, so what came out would depend on buffer sizes. The member
    /// is taken to end where the next member starts, if one follows.
    fn salvage(&mut self) -> Result<(), Fault> {
        let input = self.input.as_mut().expect("input is owned between members");
        let data = input.data();
        let end = memchr::memmem::find_iter(&data[1..], &MAGIC)
            .map(|i| i + 1)
            .find(|&i| data.get(i + 3).is_some_and(|f| f & 0xe0 == 0))
            .unwrap_or(data.len());
        if self.out.len() < self.whole_max {
            self.out.resize(self.whole_max, 0);
        }
        let mut dec = flate2::Decompress::new_gzip(15);
        let res = dec.decompress(
            &data[..end],
            &mut self.out[..self.whole_max],
            flate2::FlushDecompress::Finish,
        );
        let produced = dec.total_out() as usize;
        let (kind, what) = match res {
            Ok(flate2::Status::StreamEnd) => (
                ErrorKind::CorruptMember,
                "gzip member with a bad trailer".to_owned(),
            ),
            Ok(_) => (
                ErrorKind::TruncatedMember,
                "gzip member cut off before its end".to_owned(),
            ),
            Err(e) => (
                ErrorKind::CorruptMember,
                format!("invalid gzip member: {e}"),
            ),
        };
        input.advance(end);
        self.out_end = produced;
        self.member_end = None;
        self.state = State::Whole;
        self.pending = Some(Fault::new(kind, self.member_start, what));
        Ok(())
    }

    /// Inflates more of a streaming member into `out`, keeping the
    /// unconsumed bytes. Leaves `state` at `Whole` when the member ended.
    fn refill(&mut self, want: usize) -> Result<(), Fault> {
        if self.out_pos > 0 {
            self.out.copy_within(self.out_pos..self.out_end, 0);
            self.out_before += self.out_pos as u64;
            self.out_end -= self.out_pos;
            self.out_pos = 0;
        }
        let need = self.out_end + want.max(self.read_size);
        if self.out.len() < need {
            self.out.resize(need, 0);
        }
        let dec = self
            .decoder
            .as_mut()
            .expect("streaming state owns a decoder");
        loop {
            match dec.read(&mut self.out[self.out_end..need]) {
                Ok(0) => {
                    self.reclaim_input();
                    self.member_end = self.input.as_ref().map(Input::offset);
                    self.state = State::Whole;
                    return Ok(());
                }
                Ok(n) => {
                    self.out_end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.reclaim_input();
                    self.state = State::Between;
                    self.out_pos = 0;
                    self.out_end = 0;
                    let (kind, what) = if e.kind() == io::ErrorKind::UnexpectedEof {
                        (
                            ErrorKind::TruncatedMember,
                            "gzip member cut off by the end of the file",
                        )
                    } else {
                        (ErrorKind::CorruptMember, "invalid gzip member")
                    };
                    return Err(Fault::new(kind, self.member_start, format!("{what}: {e}")));
                }
            }
        }
    }

    /// The buffered uncompressed bytes of the current member; empty at the
    /// end of the member.
    pub(crate) fn fill_buf(&mut self) -> Result<&[u8], Fault> {
        if self.out_pos == self.out_end {
            if self.state == State::Streaming {
                self.refill(0)?;
            } else if let Some(fault) = self.pending.take() {
                self.state = State::Between;
                return Err(fault);
            }
        }
        Ok(&self.out[self.out_pos..self.out_end])
    }

    /// Like `fill_buf`, but with at least `n` bytes unless the member ends
    /// first.
    pub(crate) fn fill_at_least(&mut self, n: usize) -> Result<&[u8], Fault> {
        while self.state == State::Streaming && self.out_end - self.out_pos < n {
            self.refill(n)?;
        }
        if self.out_pos == self.out_end {
            return self.fill_buf();
        }
        Ok(&self.out[self.out_pos..self.out_end])
    }

    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(self.out_pos + n <= self.out_end);
        self.out_pos += n;
    }
}
