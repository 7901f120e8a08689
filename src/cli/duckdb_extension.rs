//! `robostats duckdb-extension -o FILE`: robostats' DuckDB extension file
//! (`robots_can_fetch` as a native function of any DuckDB from 1.2, the
//! command line included), made from the extension's library that the
//! build put beside this program (crates/robostats-duckdb) and DuckDB's
//! metadata footer.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use robostats_duckdb::{FILE_NAME, LIBRARY_FILE_NAME, extension_file, platform};

use crate::cli::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The file to write, named robostats.duckdb_extension (DuckDB calls
    /// the entry point after the file's name), or a directory to write it
    /// into.
    #[arg(short, long, value_name = "FILE|DIR")]
    output: PathBuf,
    /// DuckDB's platform the file is for (`PRAGMA platform`): this
    /// program's by default.
    #[arg(long, value_name = "PLATFORM")]
    platform: Option<String>,
    /// The extension's library (librobostats_duckdb.so, as `cargo build
    /// --release` writes it), or an extension file whose footer to replace;
    /// by default the one beside this program.
    #[arg(long, value_name = "FILE")]
    library: Option<PathBuf>,
}

/// Where the library is looked for when `--library` is not given: the
/// environment's `ROBOSTATS_DUCKDB_LIBRARY` (the Python package's command
/// names the file it ships), then beside this program.
fn default_library() -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os("ROBOSTATS_DUCKDB_LIBRARY") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().context("cannot tell where this program is")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let beside = [LIBRARY_FILE_NAME, FILE_NAME].map(|name| dir.join(name));
    match beside.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => bail!(
            "no {LIBRARY_FILE_NAME} beside {}: it is built with the command \
             (`cargo build --release` in robostats' source makes both; `cargo \
             build --release -p robostats-duckdb` the library alone), or name \
             it with --library",
            exe.display()
        ),
    }
}

/// The file the extension goes to: `output`, or `output/FILE_NAME` for a
/// directory; refused where DuckDB would look for another entry point.
fn target(output: &Path) -> anyhow::Result<PathBuf> {
    if output.is_dir() {
        return Ok(output.join(FILE_NAME));
    }
    let name = output.file_name().map(|n| n.to_string_lossy());
    let stem = name.as_deref().and_then(|n| n.split('.').next());
    if !stem.is_some_and(|s| s.eq_ignore_ascii_case("robostats")) {
        bail!(
            "{}: name the file {FILE_NAME} (DuckDB calls the entry point named \
             after the file: robostats_init_c_api), or give a directory",
            output.display()
        );
    }
    Ok(output.to_path_buf())
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let library = match &args.library {
        Some(path) => path.clone(),
        None => default_library()?,
    };
    let output = target(&args.output)?;
    let bytes =
        std::fs::read(&library).with_context(|| format!("cannot read {}", library.display()))?;
    let platform = args.platform.clone().unwrap_or_else(platform);
    let file = extension_file(&bytes, &platform)
        .map_err(|e| anyhow::anyhow!("{}: {e}", library.display()))?;
    crate::replace::write_replacing(&output, &file)?;
    eprintln!(
        "robostats: wrote {} ({platform}); load it with `duckdb -unsigned` and \
         LOAD '{}'",
        output.display(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}
