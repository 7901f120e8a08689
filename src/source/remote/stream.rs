//! The bridge to the workers: the workers are rayon threads reading
//! `std::io::Read`, and meet the async transfers only here, through a
//! bounded channel per transfer. A transfer sends [`Piece`]s; [`Stream`]
//! (a `Read`) receives them with a blocking call; [`Prefetch`] hands each
//! input's stream to the worker that takes the input.

use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::{FetchError, PIECE_BYTES, transfer};

/// One object being read: a `Read` (see [`Client::open`](super::Client::open)).
pub struct Download {
    pub(super) stream: Stream,
    pub(super) _prefetch: Prefetch,
}

impl Read for Download {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.read(buf)
    }
}

/// What a transfer sends its reader.
pub(super) enum Piece {
    /// The object's size.
    Size(u64),
    /// The next bytes.
    Data(Bytes),
    /// All bytes were sent.
    End,
    /// The transfer failed.
    Failed(FetchError),
}

/// A transfer's end of the channel.
pub(super) struct Channel(pub(super) mpsc::Sender<Piece>);

impl transfer::Sink for Channel {
    fn size(&mut self, bytes: u64) {
        let _ = self.0.try_send(Piece::Size(bytes));
    }

    async fn put(&mut self, mut bytes: Bytes) -> bool {
        while !bytes.is_empty() {
            let piece = bytes.split_to(bytes.len().min(PIECE_BYTES));
            if self.0.send(Piece::Data(piece)).await.is_err() {
                return false;
            }
        }
        true
    }
}

/// The transfers of a run, started ahead of their readers.
pub struct Prefetch {
    pub(super) slots: Arc<Slots>,
    pub(super) scheduler: tokio::task::JoinHandle<()>,
    /// The transfers started, to stop them with the run.
    pub(super) tasks: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Prefetch {
    /// The stream of the input `key`, once its transfer has an answer:
    /// blocks until then. An input that cannot be read at all fails here.
    pub fn open(&self, key: usize) -> Result<Stream, FetchError> {
        let mut stream = self.slots.take(key);
        stream.start()?;
        Ok(stream)
    }
}

impl Prefetch {
    /// Stops every transfer, at once: no transfer starts, the ones
    /// started (sending, waiting for a slot, or in a backoff) end, and a
    /// reader waiting for bytes gets an error ("the run stopped").
    pub fn cancel(&self) {
        self.scheduler.abort();
        for task in self.tasks.lock().expect("tasks lock").drain(..) {
            task.abort();
        }
        self.slots.map.lock().expect("slots lock").clear();
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Streams started and not yet taken by a reader.
#[derive(Default)]
pub(super) struct Slots {
    pub(super) map: Mutex<HashMap<usize, Stream>>,
    pub(super) ready: Condvar,
}

impl Slots {
    pub(super) fn put(&self, key: usize, stream: Stream) {
        self.map.lock().expect("slots lock").insert(key, stream);
        self.ready.notify_all();
    }

    pub(super) fn take(&self, key: usize) -> Stream {
        let mut map = self.map.lock().expect("slots lock");
        loop {
            if let Some(stream) = map.remove(&key) {
                return stream;
            }
            map = self.ready.wait(map).expect("slots lock");
        }
    }
}

/// A remote input's bytes, as they arrive: a `Read`.
pub struct Stream {
    pub(super) rx: mpsc::Receiver<Piece>,
    pub(super) current: Bytes,
    /// The transfer failed: the same error at every read from now on.
    pub(super) failed: Option<FetchError>,
    pub(super) ended: bool,
    pub(super) size: Option<u64>,
    /// Frees the input's place in the prefetch window when read.
    pub(super) _window: OwnedSemaphorePermit,
}

impl Stream {
    /// Waits for the transfer's first news: its size, its first bytes,
    /// its end, or its failure.
    pub(super) fn start(&mut self) -> Result<(), FetchError> {
        self.receive();
        self.failed.take().map_or(Ok(()), Err)
    }

    /// Waits for the transfer's next piece and takes it in.
    pub(super) fn receive(&mut self) {
        match self.rx.blocking_recv() {
            Some(Piece::Data(bytes)) => self.current = bytes,
            Some(Piece::Size(n)) => self.size = Some(n),
            Some(Piece::End) => self.ended = true,
            Some(Piece::Failed(e)) => self.failed = Some(e),
            // The transfer went without a word: it was stopped (the run is
            // stopping), or it failed unexpectedly.
            None => self.failed = Some(FetchError::Cancelled),
        }
    }

    /// The object's size, when the server said it.
    pub fn size(&self) -> Option<u64> {
        self.size
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if !self.current.is_empty() {
                let n = buf.len().min(self.current.len());
                buf[..n].copy_from_slice(&self.current[..n]);
                let _ = self.current.split_to(n);
                return Ok(n);
            }
            if let Some(e) = &self.failed {
                return Err(e.clone().into_io());
            }
            if self.ended {
                return Ok(0);
            }
            self.receive();
        }
    }
}
