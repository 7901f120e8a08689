//! The `robostats` command line: flags are parsed once in `cli`, the work
//! is the library's. `anyhow` lives only in the binary.

mod cli;

use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run(cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`robostats lint x | head`) is not an error.
            if err.chain().any(|e| {
                e.downcast_ref::<io::Error>().map(io::Error::kind)
                    == Some(io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("robostats: {err:#}");
            ExitCode::from(2)
        }
    }
}
