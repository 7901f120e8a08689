//! The crate boundaries, checked with `cargo tree`: what each crate of the
//! workspace may depend on. A crate that does not depend on another cannot
//! import it, so the dependency graph is the import rule (CONTRIBUTING.md,
//! "Where a change goes").

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// `cargo tree --prefix none ARGS`'s lines, in the workspace.
fn cargo_tree(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--offline", "--prefix", "none"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The crates in the normal (not dev, not build) dependency tree of
/// `package`, itself excluded.
fn tree(package: &str, depth: Option<u32>) -> BTreeSet<String> {
    let depth = depth.map(|d| d.to_string());
    let mut args = vec!["--edges", "normal", "--format", "{p}", "--package", package];
    if let Some(depth) = &depth {
        args.extend(["--depth", depth]);
    }
    cargo_tree(&args)
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != package)
        .map(str::to_owned)
        .collect()
}

/// The heavy half: Arrow, Parquet, the async runtime, HTTP and AWS.
const HEAVY: &[&str] = &[
    "arrow-array",
    "arrow-buffer",
    "arrow-schema",
    "parquet",
    "tokio",
    "reqwest",
    "rustls",
    "aws-config",
    "aws-sigv4",
    "rayon",
    "clap",
];

/// The command's crate's direct dependencies.
const ROOT: &[&str] = &[
    "ahash",
    "anyhow",
    "arrow-array",
    "arrow-buffer",
    "arrow-schema",
    "arrow-select",
    "aws-config",
    "aws-credential-types",
    "aws-sigv4",
    "aws-smithy-http-client",
    "aws-smithy-xml",
    "bytes",
    "clap",
    "either",
    "fastrand",
    "flate2",
    "getrandom",
    "glob",
    "hashbrown",
    "httpdate",
    "indicatif",
    "libc",
    "parquet",
    "percent-encoding",
    "rayon",
    "reqwest",
    "robostats-duckdb",
    "robostats-report",
    "robostats-robots",
    "robostats-rows",
    "robostats-warc",
    "rustix",
    "rustls",
    "serde",
    "serde_json",
    "sha2",
    "tokio",
    "url",
    "walkdir",
];

#[test]
fn each_crate_depends_only_on_what_it_owns() {
    // Direct dependencies: exactly these.
    let direct = |p| tree(p, Some(1));
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(direct("robostats-robots"), set(&["memchr", "sfv"]));
    // The list's lookup compiled once, here (its README).
    assert_eq!(direct("robostats-psl"), set(&["psl"]));
    assert_eq!(
        direct("robostats-warc"),
        set(&["flate2", "libdeflate-sys", "memchr"])
    );
    assert_eq!(
        direct("robostats-rows"),
        set(&[
            "ahash",
            "blake3",
            "httparse",
            "robostats-psl",
            "robostats-robots",
            "robostats-warc",
            "sha2",
            "url",
            "xxhash-rust"
        ])
    );
    // The DuckDB extension: DuckDB's C API (types and the function table,
    // no libduckdb), the engine, and the threads of can_fetch_many.
    assert_eq!(
        direct("robostats-duckdb"),
        set(&["libduckdb-sys", "rayon", "robostats-rows"])
    );
    // The command's crate: what it declares, it uses (the next test).
    assert_eq!(direct("robostats"), set(ROOT));
    // The report (the printer): the tables' names and views, JSON, and
    // the process calls that bound its Python; not the ingest.
    assert_eq!(
        direct("robostats-report"),
        set(&[
            "fastrand",
            "robostats-rows",
            "rustix",
            "serde",
            "serde_json"
        ])
    );
    // Nothing heavy below the three small crates (what the fuzz targets
    // and the engine's tests build), nor below the report.
    for package in [
        "robostats-robots",
        "robostats-warc",
        "robostats-rows",
        "robostats-report",
    ] {
        let all = tree(package, None);
        for heavy in HEAVY {
            assert!(!all.contains(*heavy), "{package} depends on {heavy}");
        }
    }
}

#[test]
fn the_binary_builds_no_c_toolchain_detour() {
    // aws-lc-rs (cmake, minutes of C) and the `arrow` crate's compute
    // kernels are kept out of the first build (BENCHMARKS.md, "The
    // build").
    let all = tree("robostats", None);
    for slow in [
        "aws-lc-sys",
        "aws-lc-rs",
        "cmake",
        "arrow-cast",
        "arrow-ord",
        "arrow-arith",
    ] {
        assert!(!all.contains(slow), "robostats depends on {slow}");
    }
}

/// The workspace's crates and their source directories.
const CRATES: &[(&str, &str)] = &[
    ("robostats", "src"),
    ("robostats-robots", "crates/robostats-robots/src"),
    ("robostats-warc", "crates/robostats-warc/src"),
    ("robostats-rows", "crates/robostats-rows/src"),
    ("robostats-psl", "crates/robostats-psl/src"),
    ("robostats-python", "crates/robostats-python/src"),
    ("robostats-report", "crates/robostats-report/src"),
    ("robostats-duckdb", "crates/robostats-duckdb/src"),
    ("robostats-bench", "crates/robostats-bench/benches"),
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The root crate's feature-only dependencies (Cargo.toml): declared for
/// the features they turn on, never named in the source.
const FEATURE_ONLY: &[&str] = &["either"];

#[test]
fn every_declared_dependency_is_used() {
    // A dependency declared and never named is a build for nothing (four
    // such lingered in the root crate after the workspace split).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (package, dir) in CRATES {
        let text = sources(&root.join(dir)).concat();
        for dep in tree(package, Some(1)) {
            if *package == "robostats" && FEATURE_ONLY.contains(&dep.as_str()) {
                continue;
            }
            let name = dep.replace('-', "_");
            let named = [
                format!("{name}::"),
                format!("use {name}"),
                format!("{name}!"),
            ]
            .iter()
            .any(|p| text.contains(p.as_str()));
            assert!(
                named,
                "{package} declares {dep} but its source never names it"
            );
        }
    }
}

/// Each crate of the workspace's normal and build trees, with its
/// features: one line per crate and feature set (`cargo tree`'s). The
/// benchmarks' crate aside: its dependencies are built by `cargo bench`
/// only (criterion, which the tests never build).
fn features(edges: &str) -> BTreeSet<String> {
    let args = [
        "--workspace",
        "--exclude",
        "robostats-bench",
        "--edges",
        edges,
        "--format",
        "{p} [{f}]",
    ];
    cargo_tree(&args)
        .iter()
        .map(|l| l.trim_end_matches(" (*)").to_owned())
        .collect()
}

#[test]
fn the_tests_build_on_the_release_build() {
    // The dev-dependencies turn no new feature on in a crate the binary
    // builds: then `cargo test --release` (the test command) reuses every
    // crate `cargo build --release` built, instead of building parquet,
    // arrow and the AWS crates again with other features. A new
    // dev-dependency that breaks this adds the feature to Cargo.toml's
    // feature-only dependencies.
    let dev = features("normal,build,dev");
    for line in features("normal,build") {
        assert!(
            dev.contains(&line),
            "the tests build {line} with other features than the release build does \
             (Cargo.toml, feature-only dependencies)"
        );
    }
}
