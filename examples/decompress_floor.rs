//! The decompression floor of `ingest`: every input decompressed with
//! flate2's `MultiGzDecoder` (zlib-rs backend), output discarded, one file
//! per thread on a pool of N threads. `scripts/bench.sh` runs it beside
//! `robostats ingest` on the same files and cores.
//!
//!     cargo run --release --example decompress_floor -- THREADS FILE...

use std::io::{self, Read};
use std::time::Instant;

use rayon::prelude::*;

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let threads: usize = args
        .next()
        .and_then(|t| t.parse().ok())
        .expect("usage: decompress_floor THREADS FILE...");
    let files: Vec<String> = args.collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    let started = Instant::now();
    let bytes: io::Result<Vec<u64>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let mut dec = flate2::read::MultiGzDecoder::new(io::BufReader::with_capacity(
                    256 * 1024,
                    std::fs::File::open(f)?,
                ));
                let mut buf = vec![0u8; 256 * 1024];
                let mut n = 0u64;
                loop {
                    let k = dec.read(&mut buf)?;
                    if k == 0 {
                        return Ok(n);
                    }
                    n += k as u64;
                }
            })
            .collect()
    });
    let total: u64 = bytes?.iter().sum();
    let secs = started.elapsed().as_secs_f64();
    println!("{total} bytes uncompressed in {secs:.3} s");
    Ok(())
}
