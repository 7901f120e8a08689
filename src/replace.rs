//! Files written whole or not at all: filled under a temporary name beside
//! them, then renamed over them (the report's page, a query's export,
//! judge's output).

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
