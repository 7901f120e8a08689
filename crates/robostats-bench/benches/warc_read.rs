//! Reading WARC files next to just decompressing them.
//!
//! By default this reads the generated sample in `samples/`, so it runs
//! anywhere. For the benchmark corpus (see BENCHMARKS.md):
//!
//!     ROBOSTATS_BENCH_DIR=/path/to/bench-corpus cargo bench -p robostats-bench --bench warc_read
//!
//! Files are loaded into memory first: this measures decompression and
//! parsing, not the disk. Throughput is in compressed bytes; BENCHMARKS.md
//! also gives records/s and uncompressed MB/s.

use std::hint::black_box;
use std::io;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use robostats_rows::classify::Capture;
use robostats_rows::http::Response;
use robostats_warc::{ReadOptions, Record, RecordType, WarcReader, inflate_members};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let dir = std::env::var_os("ROBOSTATS_BENCH_DIR").map(PathBuf::from);
    let paths: Vec<PathBuf> = match dir {
        Some(dir) => {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("ROBOSTATS_BENCH_DIR is a directory")
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
                .collect();
            v.sort();
            v
        }
        None => vec![
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"),
        ],
    };
    paths
        .into_iter()
        .map(|p| (p.to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// Responses read (and classified when `classify`); panics on any error.
fn read(files: &[(String, Vec<u8>)], classify: bool) -> u64 {
    let mut rec = Record::new();
    let mut responses = 0;
    for (name, bytes) in files {
        let mut reader = WarcReader::new(&bytes[..], name);
        while reader.read_record(&mut rec).unwrap() {
            if rec.record_type() != RecordType::Response {
                continue;
            }
            responses += 1;
            if classify {
                let resp = Response::parse(&rec, name);
                let cap = Capture::new(name, reader.crawl(), &rec, resp.as_ref()).unwrap();
                black_box(cap);
            }
        }
    }
    responses
}

fn warc_read(c: &mut Criterion) {
    let files = inputs();
    let compressed: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let opts = ReadOptions::default();
    let (members, uncompressed) = files.iter().fold((0, 0), |(m, u), (_, b)| {
        let (fm, fu) = inflate_members(&b[..], &opts).unwrap();
        (m + fm, u + fu)
    });
    let responses = read(&files, false);
    if std::env::var_os("ROBOSTATS_BENCH_DIR").is_none() {
        assert_eq!(responses, 700);
    }
    eprintln!(
        "warc_read: {} files, {compressed} bytes compressed, {uncompressed} uncompressed, \
         {members} members, {responses} responses",
        files.len()
    );

    let mut g = c.benchmark_group("warc_read");
    g.throughput(Throughput::Bytes(compressed));
    g.sample_size(10);
    g.bench_function("inflate members (libdeflate, floor)", |b| {
        b.iter(|| {
            let mut total = 0;
            for (_, bytes) in &files {
                total += inflate_members(&bytes[..], &opts).unwrap().1;
            }
            assert_eq!(total, uncompressed);
        })
    });
    g.bench_function("inflate members (streaming flate2 only)", |b| {
        let streaming = ReadOptions::default().whole_member_max(0);
        b.iter(|| {
            let mut total = 0;
            for (_, bytes) in &files {
                total += inflate_members(&bytes[..], &streaming).unwrap().1;
            }
            assert_eq!(total, uncompressed);
        })
    });
    g.bench_function("MultiGzDecoder (flate2)", |b| {
        b.iter(|| {
            let mut total = 0;
            for (_, bytes) in &files {
                let mut dec = flate2::read::MultiGzDecoder::new(&bytes[..]);
                total += io::copy(&mut dec, &mut io::sink()).unwrap();
            }
            assert_eq!(total, uncompressed);
        })
    });
    g.bench_function("read records", |b| {
        b.iter(|| assert_eq!(read(&files, false), responses))
    });
    g.bench_function("read and classify", |b| {
        b.iter(|| assert_eq!(read(&files, true), responses))
    });
    g.finish();
}

criterion_group!(benches, warc_read);
criterion_main!(benches);
