//! The `robostats` command line.
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::SUCCESS
}
