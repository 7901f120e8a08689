//! Arbitrary bytes through the WARC reader (as they are, and inside a gzip
//! member), with small buffers, and through the HTTP head reader.
//!
//! Properties: no panic; the reader ends (at most one item per input byte,
//! plus one); memory stays bounded (run with `-rss_limit_mb`). And the read
//! paths agree: the same bytes read with default and with tiny buffers give
//! the same records.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use robostats_rows::classify::Capture;
use robostats_rows::http::Response;
use robostats_warc::{ReadOptions, Record, WarcReader};

/// (record type, offset, kept block length, complete, or error kind)
fn read(bytes: &[u8], opts: ReadOptions) -> Vec<String> {
    let mut reader = WarcReader::with_options(bytes, "fuzz", opts);
    let mut rec = Record::new();
    let mut out = Vec::new();
    loop {
        assert!(out.len() <= bytes.len() + 1, "reader does not end");
        match reader.read_record(&mut rec) {
            Ok(true) => {
                let resp = Response::parse(&rec, "fuzz");
                let cap = Capture::new("fuzz", reader.crawl(), &rec, resp.as_ref());
                out.push(format!(
                    "{:?} {} {} {} {:?}",
                    rec.record_type(),
                    rec.offset(),
                    rec.block().len(),
                    rec.is_complete(),
                    cap.map(|c| (c.fetch_status, c.google_class)).ok()
                ));
            }
            Ok(false) => return out,
            Err(e) => out.push(format!("error {:?} {:?}", e.kind(), e.offset())),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let plain = read(data, ReadOptions::default());
    let tiny = read(data, ReadOptions::default().read_size(3));
    assert_eq!(plain, tiny, "read size changes the result");

    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    let gz = enc.finish().unwrap();
    read(&gz, ReadOptions::default());
    read(&gz, ReadOptions::default().whole_member_max(0).read_size(5));
});
