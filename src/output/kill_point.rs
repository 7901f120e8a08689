//! Kill points for the fault tests: with `ROBOSTATS_TEST_KILL_AFTER` set
//! to `<step>:<n>` (`part:3`, `commit:1`), the process kills itself with
//! SIGKILL right after the n-th step of that kind it makes on a data set
//! (no destructor runs, nothing is flushed: as a batch scheduler's time
//! limit or the OOM killer ends a run); `<step>:<n>:hold` holds the
//! thread that made the step while the file `ROBOSTATS_TEST_HOLD` names
//! exists (at most 300 s), the rest of the process alive (an S3 claim
//! renewed), for a test to act meanwhile (it writes `<that file>.held`
//! when it starts to wait). The steps are
//! counted where a directory and S3 share the code, or at each backend's
//! equivalent, so that the same tests kill a run on either at the same
//! steps (tests/python/test_promises.py). Unset, as it is outside the
//! tests, a step costs a look at a value read once.
//!
//! (The `fail` crate's fail points are compiled in only with a feature,
//! and the tests run the binary `cargo build --release` makes.)

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A step that changes a data set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A part file published: renamed to its name, or uploaded.
    Part,
    /// Manifest lines appended (on disk or to an S3 segment), or a
    /// manifest replaced by a compaction on S3.
    Line,
    /// A compaction made visible: a table's directory exchanged for its
    /// new set, or a generation committed.
    Commit,
    /// Replaced files deleted: a table's old set, or a retired object.
    Delete,
}

impl Step {
    fn parse(name: &str) -> Option<Step> {
        Some(match name {
            "part" => Step::Part,
            "line" => Step::Line,
            "commit" => Step::Commit,
            "delete" => Step::Delete,
            _ => return None,
        })
    }
}

/// Where to stop, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    step: Step,
    nth: u64,
    /// Held rather than killed.
    hold: bool,
}

fn parse(text: &str) -> Option<Plan> {
    let mut parts = text.split(':');
    let step = Step::parse(parts.next()?)?;
    let nth = parts.next()?.parse().ok().filter(|&n| n >= 1)?;
    let hold = match parts.next() {
        None => false,
        Some("hold") => true,
        Some(_) => return None,
    };
    parts.next().is_none().then_some(Plan { step, nth, hold })
}

fn plan() -> Option<Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    *PLAN.get_or_init(|| parse(&std::env::var("ROBOSTATS_TEST_KILL_AFTER").ok()?))
}

static PASSED: AtomicU64 = AtomicU64::new(0);
static UNCOUNTED: AtomicBool = AtomicBool::new(false);

/// Counts a step made on a data set (see the module's documentation).
pub fn passed(step: Step) {
    let Some(plan) = plan() else {
        return;
    };
    if plan.step != step || UNCOUNTED.load(Ordering::SeqCst) {
        return;
    }
    if PASSED.fetch_add(1, Ordering::SeqCst) + 1 != plan.nth {
        return;
    }
    if !plan.hold {
        kill_self();
    }
    let Some(file) = std::env::var_os("ROBOSTATS_TEST_HOLD") else {
        return;
    };
    let mut held = file.clone();
    held.push(".held");
    let _ = std::fs::write(held, b"");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while std::path::Path::new(&file).exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
fn kill_self() {
    use rustix::process::{Signal, getpid, kill_process};
    let _ = kill_process(getpid(), Signal::KILL);
}

#[cfg(not(target_os = "linux"))]
fn kill_self() {
    std::process::abort();
}

/// Runs `work` with its steps not counted (in every thread: its merges
/// run on several): what it changes is a copy of the data set, not the
/// data set (compact on S3 merges in one).
pub fn uncounted<T>(work: impl FnOnce() -> T) -> T {
    /// Counts again when dropped, however `work` ends.
    struct Counting;
    impl Drop for Counting {
        fn drop(&mut self) {
            UNCOUNTED.store(false, Ordering::SeqCst);
        }
    }
    UNCOUNTED.store(true, Ordering::SeqCst);
    let _counting = Counting;
    work()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_read_as_written_or_not_at_all() {
        assert_eq!(
            parse("part:3"),
            Some(Plan {
                step: Step::Part,
                nth: 3,
                hold: false
            })
        );
        assert_eq!(parse("commit:1:hold").map(|p| p.hold), Some(true));
        for bad in [
            "",
            "part",
            "part:0",
            "part:x",
            "parts:1",
            "part:1:stop",
            "part:1:hold:2",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
