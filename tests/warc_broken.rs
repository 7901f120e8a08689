//! Broken input is survived and accounted for: each problem is one error with
//! its stage and kind, the good records around it still come out, and
//! nothing hangs. Plus a few thousand random mutations through the reader.

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use proptest::prelude::*;
use robostats::http::{GoogleClass, Response};
use robostats::warc::{ErrorKind, Stage};
use robostats::warc::{ReadOptions, Record, WarcReader};

use crate::warc_util::{Item, captures, errors, read_all};

fn response(uri: Option<&str>, block: &[u8]) -> Vec<u8> {
    let mut r = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n".to_vec();
    if let Some(uri) = uri {
        r.extend_from_slice(format!("WARC-Target-URI: {uri}\r\n").as_bytes());
    }
    r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

pub(crate) fn ok_record(i: usize) -> Vec<u8> {
    let body = format!("User-agent: *\nDisallow: /{i}/\n");
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n{body}");
    response(
        Some(&format!("https://h{i}.example.com/robots.txt")),
        block.as_bytes(),
    )
}

pub(crate) fn gz(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn read(bytes: &[u8]) -> Vec<Item> {
    read_all(bytes, "t", ReadOptions::default())
}

fn urls(items: &[Item]) -> Vec<String> {
    captures(items).iter().map(|c| c.url.clone()).collect()
}

pub(crate) fn three_members(middle: Vec<u8>) -> Vec<u8> {
    [gz(&ok_record(0)), middle, gz(&ok_record(2))].concat()
}

#[test]
fn truncated_gzip_member_in_the_middle() {
    let bad = gz(&ok_record(1));
    let bytes = three_members(bad[..bad.len() / 2].to_vec());
    let items = read(&bytes);
    // The cut member runs into the next one: the inflater reports it, and
    // the scan for the next member finds record 2.
    assert!(!errors(&items).is_empty());
    assert!(errors(&items).iter().all(|(s, _)| *s == Stage::Gzip));
    let got = urls(&items);
    assert_eq!(
        got.first().map(String::as_str),
        Some("https://h0.example.com/robots.txt")
    );
    assert_eq!(
        got.last().map(String::as_str),
        Some("https://h2.example.com/robots.txt")
    );
}

#[test]
fn garbage_between_members_is_one_error() {
    let items = read(&three_members(
        b"this is not gzip \x1f\x8b nor this".to_vec(),
    ));
    assert_eq!(
        errors(&items),
        [(Stage::Gzip, ErrorKind::GarbageBetweenMembers)]
    );
    assert_eq!(urls(&items).len(), 2);
    let Item::Error(_, _, offset) = &items[1] else {
        panic!()
    };
    assert_eq!(*offset, Some(gz(&ok_record(0)).len() as u64));
}

#[test]
fn content_length_too_long_or_too_short() {
    let rec = ok_record(1);
    let text = String::from_utf8(rec.clone()).unwrap();
    let cl: usize = text
        .split("Content-Length: ")
        .nth(1)
        .unwrap()
        .split('\r')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    for (wrong, kind) in [
        (cl + 40, ErrorKind::TruncatedRecord),
        (cl - 10, ErrorKind::ContentLengthMismatch),
    ] {
        let bad = text.replace(
            &format!("Content-Length: {cl}"),
            &format!("Content-Length: {wrong}"),
        );
        // One member per record: the error stays inside its member.
        let items = read(&three_members(gz(bad.as_bytes())));
        assert_eq!(errors(&items), [(Stage::Warc, kind)], "gzip, {wrong}");
        assert_eq!(urls(&items).len(), 3, "gzip, {wrong}");
        // Plain: the reader resynchronises on the next WARC/ line.
        let plain = [ok_record(0), bad.into_bytes(), ok_record(2)].concat();
        let items = read(&plain);
        assert_eq!(errors(&items).len(), 1, "plain, {wrong}");
        assert_eq!(
            urls(&items).first().unwrap(),
            "https://h0.example.com/robots.txt"
        );
    }
}

#[test]
fn response_without_target_uri_and_non_http_payload() {
    let no_uri = response(None, b"HTTP/1.1 200 OK\r\n\r\nUser-agent: *\n");
    let not_http = response(
        Some("https://x.example/robots.txt"),
        b"User-agent: *\nDisallow: /\n",
    );
    let items = read(&[no_uri, not_http, ok_record(3)].concat());
    let Item::Response(first, _) = &items[0] else {
        panic!()
    };
    assert_eq!(
        first.as_ref().as_ref().unwrap_err(),
        &(Stage::Warc, ErrorKind::MissingTargetUri)
    );
    let caps = captures(&items);
    assert_eq!(caps.len(), 2);
    assert_eq!(caps[0].http_error, Some(ErrorKind::NotHttp));
    assert_eq!(caps[0].google_class, GoogleClass::Failed);
    assert_eq!(caps[1].fetch_status, Some(200));
}

#[test]
fn empty_file_and_not_a_warc_file() {
    assert_eq!(errors(&read(b"")), [(Stage::Open, ErrorKind::EmptyFile)]);
    let items = read(b"<!doctype html>\n<html>not a warc</html>\n");
    assert_eq!(errors(&items), [(Stage::Open, ErrorKind::NotWarc)]);
    let items = read(&gz(b"<!doctype html>\n<html>gzip, but not a warc</html>\n"));
    assert_eq!(errors(&items), [(Stage::Warc, ErrorKind::NotARecord)]);
}

#[test]
fn unopenable_file_is_an_error_for_that_file() {
    let err = WarcReader::open("/nonexistent/robostats/x.warc.gz")
        .err()
        .unwrap();
    assert_eq!((err.stage(), err.kind()), (Stage::Open, ErrorKind::Io));
    assert!(err.to_string().contains("x.warc.gz"));
}

#[test]
fn body_is_capped_and_the_rest_skipped() {
    let body = vec![b'a'; 5000];
    let mut block = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
    block.extend_from_slice(&body);
    let bytes = [
        response(Some("https://a.example/robots.txt"), &block),
        ok_record(1),
    ]
    .concat();
    let mut reader =
        WarcReader::with_options(&bytes[..], "t", ReadOptions::default().body_cap(1000));
    let mut rec = Record::new();
    assert!(reader.read_record(&mut rec).unwrap());
    let resp = Response::parse(&rec, "t").unwrap();
    assert_eq!(resp.body(&rec).len(), 1000);
    assert_eq!(resp.payload_len(), 5000);
    assert!(reader.read_record(&mut rec).unwrap());
    assert_eq!(rec.target_uri(), Some("https://h1.example.com/robots.txt"));
}

fn seed() -> Vec<u8> {
    (0..4).flat_map(ok_record).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random edits of a small valid file, plain and gzip: no panic, and
    /// the reader ends (`read_all` panics after a million items).
    #[test]
    fn mutated_input_never_panics_or_hangs(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
        compress in any::<bool>(),
    ) {
        let mut bytes = if compress {
            (0..4).flat_map(|i| gz(&ok_record(i))).collect()
        } else {
            seed()
        };
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        let items = read_all(&bytes[..], "t", ReadOptions::default().read_size(64));
        prop_assert!(items.len() <= bytes.len() + 1);
    }

    /// Arbitrary bytes, with and without a gzip magic in front.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000), magic in any::<bool>()) {
        let bytes = if magic { [&[0x1f, 0x8b, 0x08, 0][..], &bytes].concat() } else { bytes };
        let items = read_all(&bytes[..], "t", ReadOptions::default());
        prop_assert!(items.len() <= bytes.len() + 1);
    }
}

/// Broken files give the same records and errors whatever the buffer sizes
/// (a corrupt member once gave its salvaged prefix only with small reads:
/// tests/data/warc/fuzz/corrupt-member-prefix.bin, found by the fuzz target).
#[test]
fn broken_files_read_the_same_with_any_buffer_size() {
    let mut files: Vec<String> = ["commoncrawl", "other", "fuzz"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(crate::warc_util::data(&format!("tests/data/warc/{d}"))).unwrap()
        })
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let expected = read_all(&bytes[..], "t", ReadOptions::default());
        for opts in [
            ReadOptions::default().read_size(3),
            ReadOptions::default().read_size(1000),
        ] {
            assert!(read_all(&bytes[..], "t", opts) == expected, "{path}");
        }
    }
}
