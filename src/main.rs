//! The `robostats` command line: the library's `cli` module, which the
//! Python package's `robostats` command runs too.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(robostats::cli::main(std::env::args_os()).0)
}
