//! Running the report's Python with every wait bounded: its input fed,
//! its outputs read, and the whole of it stopped at a deadline.

use std::io::{self, Read, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(20);

/// Runs `command` with `input` on its standard input, and returns what it
/// wrote and its status; `None` when that took longer than `timeout`.
///
/// The command runs in a process group of its own (on Unix). The whole
/// group is killed at the deadline (on Linux), and as soon as the command
/// itself has exited: a process it started and left behind could hold its
/// pipes open for ever, and nothing here waits on them past the deadline.
/// Its input is written, and its outputs read, from threads of their own,
/// so that no pipe can fill and stall it. With `hold_input`, its standard
/// input is closed only once it has exited, so that a command reading it
/// to the end learns that the process waiting for it is gone (killed, or
/// stopped by a Ctrl-C, which reaches the terminal's process group, not
/// the command's).
pub fn run_bounded(
    command: &mut Command,
    input: &[u8],
    hold_input: bool,
    timeout: Duration,
) -> io::Result<Option<Output>> {
    let deadline = Instant::now() + timeout;
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let (exited, exit_seen) = mpsc::channel::<()>();
    // A broken pipe (the child exits without reading) shows in its status.
    // The thread is never joined: a process outside the group could hold
    // the pipe without reading it.
    thread::spawn(move || {
        if stdin.write_all(&input).and_then(|()| stdin.flush()).is_ok() && hold_input {
            let _ = exit_seen.recv();
        }
    });
    let stdout = read_all(child.stdout.take().expect("piped"));
    let stderr = read_all(child.stderr.take().expect("piped"));
    let status = wait_until(&mut child, deadline);
    drop(exited);
    let Some(status) = status? else {
        return Ok(None);
    };
    while !(stdout.is_finished() && stderr.is_finished()) {
        if Instant::now() >= deadline {
            return Ok(None);
        }
        thread::sleep(POLL);
    }
    let stdout = stdout.join().expect("reader")?;
    let stderr = stderr.join().expect("reader")?;
    Ok(Some(Output {
        status,
        stdout,
        stderr,
    }))
}

/// Reads `pipe` to its end, in a thread of its own.
fn read_all(mut pipe: impl Read + Send + 'static) -> JoinHandle<io::Result<Vec<u8>>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        pipe.read_to_end(&mut buf).map(|_| buf)
    })
}

/// Waits for `child` to exit until `deadline`, then kills its process
/// group (what it left behind, or all of it) and reaps it: its status, or
/// `None` when the deadline came first.
fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    loop {
        let exited = match has_exited(child) {
            Ok(exited) => exited,
            Err(err) => {
                kill_group(child);
                let _ = child.wait();
                return Err(err);
            }
        };
        if exited || Instant::now() >= deadline {
            kill_group(child);
            let status = child.wait()?;
            return Ok(exited.then_some(status));
        }
        thread::sleep(POLL);
    }
}

/// Whether `child` has exited, leaving it unreaped: until it is reaped,
/// its process id, which names its process group, cannot be another
/// process's.
#[cfg(target_os = "linux")]
fn has_exited(child: &mut Child) -> io::Result<bool> {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    match waitid(WaitId::Pid(Pid::from_child(child)), options) {
        Ok(status) => Ok(status.is_some()),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn has_exited(child: &mut Child) -> io::Result<bool> {
    // Reaped here; `Child::wait` then returns the status kept.
    Ok(child.try_wait()?.is_some())
}

/// Kills `child`'s process group: `child` and every process it started
/// that did not leave the group.
#[cfg(target_os = "linux")]
fn kill_group(child: &mut Child) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // Its own group (`process_group(0)`), whose id is still its own: it is
    // not reaped yet.
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
}

/// Elsewhere, `child` alone: what it started may be left running.
#[cfg(not(target_os = "linux"))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_command_that_runs_too_long_is_stopped() {
        let started = Instant::now();
        let out = run_bounded(&mut sh("sleep 30"), b"", false, Duration::from_millis(200)).unwrap();
        assert!(out.is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn large_input_and_output_do_not_stall() {
        let input = vec![b'x'; 4 << 20];
        let out = run_bounded(
            &mut sh("cat; echo done >&2"),
            &input,
            false,
            Duration::from_secs(60),
        )
        .unwrap()
        .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, input);
        assert_eq!(out.stderr, b"done\n");
    }

    #[test]
    fn its_input_is_held_open_until_it_exits_if_asked() {
        // `cat` ends at the end of its input; `head -c` before.
        let cat = run_bounded(&mut sh("cat"), b"hello", true, Duration::from_millis(500)).unwrap();
        assert!(cat.is_none());
        let head = run_bounded(
            &mut sh("head -c 5"),
            b"hello",
            true,
            Duration::from_secs(60),
        )
        .unwrap()
        .unwrap();
        assert_eq!(head.stdout, b"hello");
    }

    /// The pid a script wrote, once it is there.
    #[cfg(target_os = "linux")]
    fn pid_in(path: &std::path::Path) -> u32 {
        for _ in 0..500 {
            if let Ok(text) = std::fs::read_to_string(path)
                && let Ok(pid) = text.trim().parse()
            {
                return pid;
            }
            thread::sleep(POLL);
        }
        panic!("no pid in {}", path.display());
    }

    /// Whether `pid` is gone (or a zombie nobody reaped yet).
    #[cfg(target_os = "linux")]
    fn gone(pid: u32) -> bool {
        (0..250).any(|_| {
            let zombie_or_gone =
                std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
                    s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('Z'))
                });
            if !zombie_or_gone {
                thread::sleep(POLL);
            }
            zombie_or_gone
        })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_left_holding_the_pipes_neither_stalls_nor_outlives_it() {
        let dir = std::env::temp_dir().join(format!("robostats-process-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, script, timeout, finishes) in [
            // Exits at once, its child keeping stdout and stderr open.
            (
                "exits",
                "sleep 300 & echo $! > \"$0\"; echo answer",
                30,
                true,
            ),
            // Never exits, nor does its child.
            (
                "stays",
                "sleep 300 & echo $! > \"$0\"; exec sleep 300",
                1,
                false,
            ),
        ] {
            let pid_file = dir.join(name);
            let _ = std::fs::remove_file(&pid_file);
            let started = Instant::now();
            let mut command = sh(script);
            command.arg(&pid_file);
            let out = run_bounded(&mut command, b"", false, Duration::from_secs(timeout)).unwrap();
            let took = started.elapsed();
            assert_eq!(out.is_some(), finishes, "{name}");
            if let Some(out) = out {
                assert_eq!(out.stdout, b"answer\n");
                assert!(took < Duration::from_secs(10), "{name}: {took:?}");
            } else {
                assert!(took < Duration::from_secs(timeout + 5), "{name}: {took:?}");
            }
            assert!(gone(pid_in(&pid_file)), "{name}: its child outlived it");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
