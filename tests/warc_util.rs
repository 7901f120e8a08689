//! Helpers shared by the WARC tests: read a whole input into comparable rows.

use std::io::Read;

use robostats::Error;
use robostats::classify::Capture;
use robostats::http::Response;
use robostats::warc::{ErrorKind, Stage};
use robostats::warc::{ReadOptions, Record, RecordType, WarcReader};

/// What one record or error looked like, in a form that compares exactly.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A record that is not a response.
    Other {
        record_type: RecordType,
        offset: u64,
        content_length: u64,
    },
    /// A response, with its capture (or why it could not be one).
    Response(Box<Result<Capture<'static>, (Stage, ErrorKind)>>, u64),
    /// An error from the reader.
    Error(Stage, ErrorKind, Option<u64>),
}

pub fn data(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Reads everything, turning every response into a capture.
pub fn read_all<R: Read>(reader: R, name: &str, opts: ReadOptions) -> Vec<Item> {
    // Captures borrow their file name; these live as long as the test.
    let name: &'static str = name.to_owned().leak();
    let mut reader = WarcReader::with_options(reader, name, opts);
    let mut rec = Record::new();
    let mut items = Vec::new();
    for _ in 0..1_000_000 {
        match reader.read_record(&mut rec) {
            Ok(false) => return items,
            Ok(true) if rec.record_type() == RecordType::Response => {
                let resp = Response::parse(&rec, name);
                let cap = Capture::new(name, reader.crawl(), &rec, resp.as_ref())
                    .map_err(|e: Error| (e.stage(), e.kind()));
                items.push(Item::Response(Box::new(cap), body_hash(&rec, resp.ok())));
            }
            Ok(true) => items.push(Item::Other {
                record_type: rec.record_type(),
                offset: rec.offset(),
                content_length: rec.content_length(),
            }),
            Err(e) => items.push(Item::Error(e.stage(), e.kind(), e.offset())),
        }
    }
    panic!("{name}: more than a million items, the reader loops");
}

/// FNV-1a of the kept body, so rows also compare the bytes.
fn body_hash(rec: &Record, resp: Option<Response>) -> u64 {
    let body = resp.as_ref().map_or(rec.block(), |r| r.body(rec));
    body.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

pub fn captures(items: &[Item]) -> Vec<&Capture<'static>> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Response(c, _) => c.as_ref().as_ref().ok(),
            _ => None,
        })
        .collect()
}

pub fn errors(items: &[Item]) -> Vec<(Stage, ErrorKind)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Error(s, k, _) => Some((*s, *k)),
            _ => None,
        })
        .collect()
}

pub fn read_file(path: &str) -> Vec<Item> {
    let file = std::fs::File::open(data(path)).unwrap();
    read_all(file, path, ReadOptions::default())
}
