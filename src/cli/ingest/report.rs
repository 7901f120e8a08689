//! What a run says when it ends: the inputs that could not be read and
//! why, the summary line, and the exit status.

use crate::cli::ExitCode;
use std::collections::HashMap;

use crate::pipeline::{FileReport, Summary};
use crate::source::remote;
use crate::terminal::escaped;

use super::args::Ingest;
use crate::cli::plural;

/// Prints the failed inputs (in the order listed) and the summary; the
/// exit status: 3 when the run stopped, 1 when an input failed, else 0.
pub fn print(ingest: &Ingest, summary: &Summary, mut failed: Vec<FileReport>) -> ExitCode {
    let position: HashMap<&str, usize> = ingest
        .config
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (input.id.as_str(), i))
        .collect();
    failed.sort_by_key(|r| position.get(r.id.as_str()).copied());
    let stopped = ingest.client.as_ref().and_then(|c| c.stopped());
    failures(failed, stopped.as_deref());
    totals(ingest, summary, stopped.as_deref());
    // Bodies owed by another shard's inputs are that shard's to write.
    let lost = summary.bodies_lost > 0 && ingest.config.shard.is_none();
    if stopped.is_some() {
        ExitCode::from(3)
    } else if summary.files_failed > 0 || summary.bodies_failed > 0 || lost {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// One line per input that could not be read; the inputs a stopped run
/// did not read: one line for all of them.
fn failures(mut failed: Vec<FileReport>, stopped: Option<&str>) {
    let not_read = |r: &FileReport| {
        r.reason
            .as_deref()
            .is_some_and(|why| why.contains(remote::STOPPED))
    };
    let unread = failed.iter().filter(|r| not_read(r)).count();
    failed.retain(|r| !not_read(r));
    // Names may be a paths file's lines, and reasons a server's words.
    for report in &failed {
        let (name, opened) = (escaped(&report.input), escaped(&report.location));
        let place = if opened == name {
            format!("'{name}'")
        } else {
            format!("'{name}' (opened as '{opened}')")
        };
        let again = if report.bodies_only {
            " again for its bodies (it stays done; the next run tries again)"
        } else {
            ""
        };
        eprintln!(
            "robostats: could not read {place}{again}: {}",
            escaped(report.reason.as_deref().unwrap_or("unknown reason"))
        );
    }
    failed.retain(|r| !r.bodies_only);
    if let Some(why) = stopped {
        eprintln!(
            "robostats: stopped: {}; {} not read (recorded as failed): check the \
             network, the prefix or the credentials, then run again",
            escaped(why),
            plural(unread as u64, "input", "inputs")
        );
    }
    if !failed.is_empty() || unread > 0 {
        eprintln!(
            "robostats: nothing of a failed input is in the tables (the manifest says why); \
             a re-run tries the failed inputs again"
        );
    }
}

/// The summary on standard output: inputs, records, rows, speed; the
/// network's requests; why the run stopped.
fn totals(ingest: &Ingest, s: &Summary, stopped: Option<&str>) {
    let c = &s.counts;
    let mib = c.bytes as f64 / (1024.0 * 1024.0);
    println!(
        "ingest: {} done, {} failed, {} skipped (done earlier), {} retried (failed \
         earlier); {} records read, \
         {} responses -> {} captures + {} in errors only; {} errors rows; \
         {:.1} MiB in {:.1} s ({:.1} MiB/s, {:.0} records/s) -> {}",
        plural(s.files_done, "file", "files"),
        s.files_failed,
        s.files_skipped,
        s.files_retried,
        c.records,
        c.responses,
        c.captures,
        c.lost,
        c.errors,
        mib,
        s.seconds,
        mib / s.seconds.max(1e-9),
        c.records as f64 / s.seconds.max(1e-9),
        ingest.config.out_shown()
    );
    if s.bodies_rewritten + s.bodies_failed + s.bodies_lost > 0 {
        println!(
            "bodies: {} read again for the bodies whose files were gone, {} could not be; \
             {} bodies lost (their inputs are not among this run's)",
            plural(s.bodies_rewritten, "done input", "done inputs"),
            s.bodies_failed,
            s.bodies_lost
        );
    }
    if let Some(net) = &s.network {
        println!(
            "network: {}, {}, {}, {:.1} MiB",
            plural(net.requests, "request", "requests"),
            plural(net.retries, "retry", "retries"),
            plural(net.resumes, "resumed transfer", "resumed transfers"),
            net.bytes as f64 / (1024.0 * 1024.0)
        );
    }
    if let Some(why) = stopped {
        println!("stopped: {}", escaped(why));
    }
}
