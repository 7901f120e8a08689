//! What a run shows while it runs: a progress bar on a terminal (bytes,
//! files, records, and the network's bytes, requests and retries), or
//! nothing but the notices without one; and the inputs that failed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::pipeline::{self, FileReport, Progress, Summary};
use crate::source::remote;
use crate::terminal::escaped;
use indicatif::{ProgressBar, ProgressStyle};

use super::args::Ingest;

/// Runs the pipeline, showing its progress; returns its summary and the
/// inputs that failed.
pub fn run(ingest: &Ingest) -> anyhow::Result<(Summary, Vec<FileReport>)> {
    if !ingest.show_bar {
        let progress = Plain {
            failed: Mutex::new(Vec::new()),
        };
        let summary = pipeline::run(&ingest.config, &progress)?;
        return Ok((summary, progress.failed.into_inner().unwrap()));
    }
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} \
             {binary_bytes_per_sec} ETA {eta}  {msg}",
        )
        .expect("valid template"),
    );
    let progress = Bar {
        bar,
        files: AtomicU64::new(0),
        total_files: AtomicU64::new(0),
        records: AtomicU64::new(0),
        failed: Mutex::new(Vec::new()),
        client: ingest.client.clone(),
    };
    // The bar, its clock and its counters move while the network
    // stalls.
    progress.bar.enable_steady_tick(Duration::from_millis(500));
    let done = AtomicBool::new(false);
    let summary = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                progress.message();
            }
        });
        // Set when the run returns or unwinds: a panic must not leave
        // the ticker (and so the scope) waiting for ever.
        struct Stop<'a>(&'a AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _stop = Stop(&done);
        pipeline::run(&ingest.config, &progress)
    })?;
    progress.bar.finish_and_clear();
    Ok((summary, progress.failed.into_inner().unwrap()))
}

/// A progress bar on a terminal: bytes read, files, records, speed, ETA,
/// and for URLs the bytes downloaded, their rate, requests and retries.
struct Bar {
    bar: ProgressBar,
    files: AtomicU64,
    total_files: AtomicU64,
    records: AtomicU64,
    failed: Mutex<Vec<FileReport>>,
    client: Option<Arc<remote::Client>>,
}

impl Bar {
    fn message(&self) {
        let mut text = format!(
            "files {}/{}  records {}",
            self.files.load(Ordering::Relaxed),
            self.total_files.load(Ordering::Relaxed),
            self.records.load(Ordering::Relaxed)
        );
        if let Some(client) = &self.client {
            let net = client.counts();
            let mib = net.bytes as f64 / (1024.0 * 1024.0);
            let rate = mib / self.bar.elapsed().as_secs_f64().max(1e-3);
            text.push_str(&format!(
                "  net {mib:.1} MiB {rate:.1} MiB/s, {} req, {} retries",
                net.requests, net.retries
            ));
        }
        self.bar.set_message(text);
    }
}

/// What the plan says before the run starts: the inputs done again and
/// why, and a warning where the output directory's locks protect nothing.
fn plan_notices(plan: &pipeline::Plan<'_>, locks_honoured: bool) {
    for (input, why) in &plan.redone {
        // The name may be a paths file's line, and the reason names files
        // found in the output directory.
        eprintln!(
            "robostats: '{}' is done again: {}",
            escaped(&input.name),
            escaped(why)
        );
    }
    let rewritten: Vec<String> = plan
        .todo
        .iter()
        .filter(|t| t.bodies_only)
        .map(|t| t.input.name.clone())
        .collect();
    if !rewritten.is_empty() {
        eprintln!(
            "robostats: stored bodies whose files are gone are written again: {} {} read \
             again for {} bodies only",
            crate::cli::listed(&rewritten),
            if rewritten.len() == 1 { "is" } else { "are" },
            if rewritten.len() == 1 { "its" } else { "their" },
        );
    }
    if !plan.lost.is_empty() {
        let names: Vec<String> = plan.lost.iter().map(|(who, _)| who.input.clone()).collect();
        let bodies: u64 = plan.lost.iter().map(|(_, owed)| owed.bodies).sum();
        let missing = plan
            .lost
            .iter()
            .find_map(|(_, owed)| owed.missing.as_ref())
            .map(|m| format!(" ({} is gone)", m.display()))
            .unwrap_or_default();
        eprintln!(
            "robostats: warning: the lines of {} are lost{missing}; {} wrote them and {} \
             not among this run's inputs: run ingest again with {} among the inputs (a done \
             input is read again for its bodies only)",
            crate::cli::plural(bodies, "stored body", "stored bodies"),
            crate::cli::listed(&names),
            if names.len() == 1 { "is" } else { "are" },
            if names.len() == 1 { "it" } else { "them" },
        );
    }
    if !locks_honoured {
        eprintln!(
            "robostats: warning: the file system of the output directory ignores locks \
             (NFS without lock support?): two runs of one shard, or compact beside an ingest, \
             would not be stopped. Run one process per shard (see docs/concurrency.md)"
        );
    }
}

impl Progress for Bar {
    fn planned(&self, plan: &pipeline::Plan<'_>, locks_honoured: bool) {
        self.bar.suspend(|| plan_notices(plan, locks_honoured));
    }

    fn start(&self, files: u64, bytes: u64) {
        self.total_files.store(files, Ordering::Relaxed);
        self.bar.set_length(bytes);
        self.message();
    }

    fn advance(&self, records: u64, bytes: u64) {
        self.records.fetch_add(records, Ordering::Relaxed);
        self.bar.inc(bytes);
        self.message();
    }

    fn sized(&self, bytes: u64) {
        self.bar.inc_length(bytes);
    }

    fn file_done(&self, report: &FileReport) {
        self.files.fetch_add(1, Ordering::Relaxed);
        if report.failed {
            self.failed.lock().unwrap().push(report.clone());
        }
        self.message();
    }
}

/// Without a terminal: one line per input that could not be read.
struct Plain {
    failed: Mutex<Vec<FileReport>>,
}

impl Progress for Plain {
    fn planned(&self, plan: &pipeline::Plan<'_>, locks_honoured: bool) {
        plan_notices(plan, locks_honoured);
    }

    fn file_done(&self, report: &FileReport) {
        if report.failed {
            self.failed.lock().unwrap().push(report.clone());
        }
    }
}
