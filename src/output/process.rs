//! Which process holds a claim, and whether it is still there.
//!
//! A claim on a data set (an S3 lease) or a private directory of a run
//! records its holder's [`Identity`]: its process id, when that process
//! started, and which kernel and process namespace it runs in. Another
//! process under the same kernel and namespace can then tell that the
//! holder is gone (no such process, or another one under a reused id)
//! at once, instead of waiting for the claim to expire: a batch
//! scheduler kills jobs at their time limit, and the next job on the same
//! node should not wait for a process that no longer exists. A holder on
//! another host, container or boot cannot be seen from here
//! ([`Identity::gone`] says so), and waits out its claim's expiry.

use serde::{Deserialize, Serialize};

/// A process, as another process on the same host can find it again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Its process id.
    pub process: u32,
    /// When it started, in clock ticks since boot (`/proc/<pid>/stat`'s
    /// 22nd field): a reused process id has another.
    pub started: u64,
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`).
    pub boot: String,
    /// Its process id namespace (`/proc/self/ns/pid`): two containers
    /// under one kernel number their processes apart.
    pub namespace: String,
}

impl Identity {
    /// This process, or `None` where the system does not say (not Linux).
    pub fn own() -> Option<Identity> {
        let process = std::process::id();
        Some(Identity {
            process,
            started: start_time(process)?,
            boot: boot_id()?,
            namespace: namespace()?,
        })
    }

    /// Whether the process is gone: `Some(true)` when it ran under this
    /// kernel and namespace and no longer does (no such process, or one
    /// that started at another time); `Some(false)` when it runs;
    /// `None` when this process cannot see it (another host, container or
    /// boot, or an identity not recorded).
    pub fn gone(&self) -> Option<bool> {
        let here = Identity::own()?;
        if self.boot.is_empty() || self.boot != here.boot || self.namespace != here.namespace {
            return None;
        }
        Some(start_time(self.process) != Some(self.started))
    }
}

/// When process `pid` started (clock ticks since boot), if it exists.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses,
    // so the fields are counted after its last ')'; starttime is the 22nd
    // field, the 20th after comm.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_ascii_whitespace().nth(19)?.parse().ok()
}

fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    (!id.is_empty()).then(|| id.to_owned())
}

fn namespace() -> Option<String> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    Some(link.to_string_lossy().into_owned())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_there_and_a_finished_one_is_gone() {
        let own = Identity::own().expect("Linux says who a process is");
        assert_eq!(own.gone(), Some(false));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let started = start_time(pid);
        child.wait().unwrap();
        let finished = Identity {
            process: pid,
            started: started.unwrap_or(1),
            ..own.clone()
        };
        assert_eq!(finished.gone(), Some(true));
        // The same id, started at another time: another process.
        let reused = Identity {
            started: own.started + 1,
            ..own.clone()
        };
        assert_eq!(reused.gone(), Some(true));
        // Another boot, or nothing recorded: cannot be seen from here.
        let elsewhere = Identity {
            boot: "another-boot".to_owned(),
            ..own.clone()
        };
        assert_eq!(elsewhere.gone(), None);
        assert_eq!(Identity::default().gone(), None);
    }
}
