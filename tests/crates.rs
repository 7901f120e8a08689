//! The crate boundaries, checked with `cargo tree`: what each crate of the
//! workspace may depend on. A crate that does not depend on another cannot
//! import it, so the dependency graph is the import rule (CONTRIBUTING.md,
//! "Where a change goes").

use std::collections::BTreeSet;
use std::process::Command;

/// The crates in the normal (not dev, not build) dependency tree of
/// `package`, itself excluded.
fn tree(package: &str, depth: Option<u32>) -> BTreeSet<String> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "tree",
        "--offline",
        "--edges",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "--package",
        package,
    ]);
    if let Some(depth) = depth {
        cmd.args(["--depth", &depth.to_string()]);
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != package)
        .map(str::to_owned)
        .collect()
}

/// The heavy half: Arrow, Parquet, the async runtime, HTTP and AWS.
const HEAVY: &[&str] = &[
    "arrow-array",
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

#[test]
fn each_crate_depends_only_on_what_it_owns() {
    // Direct dependencies: exactly these.
    let direct = |p| tree(p, Some(1));
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(direct("robostats-robots"), set(&["memchr", "sfv"]));
    assert_eq!(
        direct("robostats-warc"),
        set(&["flate2", "libdeflate-sys", "memchr"])
    );
    assert_eq!(
        direct("robostats-rows"),
        set(&[
            "blake3",
            "httparse",
            "psl",
            "robostats-robots",
            "robostats-warc",
            "sha2",
            "url",
            "xxhash-rust"
        ])
    );
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
    // kernels are kept out of the first build (CONTRIBUTING.md, "Build
    // time").
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
