//! The size rules (CONTRIBUTING.md, "Size rules"), enforced: a source file
//! of more than 600 lines before its `#[cfg(test)]` module is two files,
//! and so is a file of `queries/` past 600 lines. (A function of more than
//! 80 lines is clippy's `too_many_lines`, on in every crate.)

use std::path::{Path, PathBuf};

/// Lines a file may have before its tests.
const MAX_LINES: usize = 600;

/// Every file of the project under `dir` whose name ends with `ending`
/// (build output, dependencies and hidden directories aside).
fn files_ending(dir: &Path, ending: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if !matches!(&*name, "target" | "node_modules") && !name.starts_with('.') {
                files_ending(&path, ending, out);
            }
        } else if name.ends_with(ending) {
            out.push(path);
        }
    }
}

/// The lines before the first `#[cfg(test)]` line (all of them if none).
fn lines_before_tests(text: &str) -> usize {
    text.lines()
        .position(|l| l.trim_start().starts_with("#[cfg(test)]"))
        .unwrap_or_else(|| text.lines().count())
}

#[test]
fn no_file_is_over_the_size_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The Rust files: the crates, their tests and benches, the fuzz
    // targets; then the SQL of queries/ (and its judged/).
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "fuzz", "scripts"] {
        files_ending(&root.join(dir), ".rs", &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let rust = files.len();
    files_ending(&root.join("queries"), ".sql", &mut files);
    assert!(
        files.len() - rust > 40,
        "found only {} SQL files",
        files.len() - rust
    );
    let over: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let n = lines_before_tests(&std::fs::read_to_string(path).unwrap());
            let shown = path.strip_prefix(root).unwrap().display();
            (n > MAX_LINES).then(|| format!("{shown}: {n} lines"))
        })
        .collect();
    assert!(
        over.is_empty(),
        "over {MAX_LINES} lines (before the tests): split them\n{}",
        over.join("\n")
    );
}

#[test]
fn the_count_stops_at_the_tests() {
    let text = "a\nb\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(lines_before_tests(text), 2);
    assert_eq!(lines_before_tests("a\nb\nc\n"), 3);
}
