//! Files written whole or not at all: filled under a temporary name beside
//! them, then renamed over them (the report's page, a query's export,
//! judge's output and figure).

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// The name of the temporary file beside `path` that a whole-or-nothing
/// write fills before renaming it over `path` (`.NAME.PID.tmp`).
pub fn temp_name(path: &Path) -> anyhow::Result<String> {
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file name", path.display()))?;
    Ok(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ))
}

/// Writes `path` whole or not at all: a new temporary file beside it (a
/// link planted under that name is not followed), synced, then renamed
/// over it.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_file_name(temp_name(path)?);
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(err) = result {
        let _ = fs::remove_file(&tmp);
        return Err(err).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
