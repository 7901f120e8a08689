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
            // A message may hold text from the output directory (file names,
            // a manifest's or a lock file's contents) or from a server.
            let message = format!("{err:#}");
            eprintln!(
                "robostats: {}",
                robostats::terminal::escaped_lines(&message)
            );
            ExitCode::from(2)
        }
    }
}
