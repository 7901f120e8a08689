//! One answer on every read path (STYLE.md example 8, after ripgrep's
//! `testutil.rs` and csv-core's `parses_to!`): the same records read as plain
//! WARC, one gzip member per record, one member for the whole file, through a
//! 1-byte reader, with tiny buffers and with the streaming inflater give the
//! same captures.

use std::io::{self, Read, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use robostats::warc::ReadOptions;

use crate::warc_util::{Item, data, read_all};

const SAMPLE: &str = "samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz";

/// Returns at most one byte per `read`, like a slow pipe.
struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

/// The uncompressed records of a one-member-per-record file.
fn records(gz: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = gz;
    while !rest.is_empty() {
        let mut dec = flate2::bufread::GzDecoder::new(rest);
        let mut rec = Vec::new();
        dec.read_to_end(&mut rec).unwrap();
        rest = dec.into_inner();
        out.push(rec);
    }
    out
}

fn gzip(parts: &[&[u8]]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    for p in parts {
        enc.write_all(p).unwrap();
    }
    enc.finish().unwrap()
}

fn small_options() -> Vec<(&'static str, ReadOptions)> {
    vec![
        ("default", ReadOptions::default()),
        ("tiny reads", ReadOptions::default().read_size(7)),
        (
            "streaming inflater",
            ReadOptions::default().whole_member_max(0).read_size(13),
        ),
        (
            "small whole members",
            ReadOptions::default()
                .whole_member_max(4096)
                .read_size(1000),
        ),
    ]
}

/// Blanks what legitimately differs between framings: the positions.
fn without_positions(items: Vec<Item>) -> Vec<Item> {
    items
        .into_iter()
        .map(|item| match item {
            Item::Response(cap, hash) => {
                let cap = cap.map(|mut c| {
                    c.at.warc_record_offset = 0;
                    c.warc_record_offset_in_member = 0;
                    c.warc_record_length = None;
                    c
                });
                Item::Response(Box::new(cap), hash)
            }
            Item::Other {
                record_type,
                content_length,
                ..
            } => Item::Other {
                record_type,
                offset: 0,
                content_length,
            },
            e => e,
        })
        .collect()
}

#[test]
fn same_captures_on_every_read_path_of_the_sample() {
    let gz = std::fs::read(data(SAMPLE)).unwrap();
    let expected = read_all(&gz[..], "f", ReadOptions::default());
    assert_eq!(expected.len(), 1401);
    // Same bytes, every reader configuration: identical, offsets included.
    for (name, opts) in small_options() {
        assert!(read_all(&gz[..], "f", opts.clone()) == expected, "{name}");
    }
    let one_byte = read_all(OneByte(&gz[..]), "f", ReadOptions::default());
    assert!(one_byte == expected, "1-byte reader");

    // Other framings of the same records: identical but for positions.
    let recs = records(&gz);
    let parts: Vec<&[u8]> = recs.iter().map(Vec::as_slice).collect();
    let plain = parts.concat();
    let per_record: Vec<u8> = parts.iter().flat_map(|p| gzip(&[p])).collect();
    let whole = gzip(&parts);
    let expected = without_positions(expected);
    for (name, bytes) in [
        ("plain", &plain),
        ("per record", &per_record),
        ("one member", &whole),
    ] {
        for (opt, opts) in small_options() {
            let got = without_positions(read_all(&bytes[..], "f", opts));
            assert!(got == expected, "{name}, {opt}");
        }
    }
    let got = without_positions(read_all(OneByte(&plain[..]), "f", ReadOptions::default()));
    assert!(got == expected, "plain through a 1-byte reader");
}

#[test]
fn plain_offsets_are_record_offsets() {
    let gz = std::fs::read(data(SAMPLE)).unwrap();
    let recs = records(&gz);
    let plain = recs.concat();
    let items = read_all(&plain[..], "f", ReadOptions::default());
    let mut pos = 0u64;
    for (item, rec) in items.iter().zip(&recs) {
        let (offset, length) = match item {
            Item::Response(c, _) => {
                let c = c.as_ref().as_ref().unwrap();
                (c.at.warc_record_offset, c.warc_record_length)
            }
            Item::Other { offset, .. } => (*offset, None),
            Item::Error(..) => panic!("unexpected error"),
        };
        assert_eq!(offset, pos);
        if let Some(len) = length {
            assert_eq!(len, rec.len() as u64);
        }
        pos += rec.len() as u64;
    }
}
