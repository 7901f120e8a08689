//! The crate boundaries, checked with `cargo tree`: what each crate of the
//! workspace may depend on. A crate that does not depend on another cannot
//! import it, so the dependency graph is the import rule (CONTRIBUTING.md,
//! "Where a change goes").

use std::collections::BTreeSet;
use std::path::Path;
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
    // The command's crate: what it declares, it uses (the next test).
    assert_eq!(
        direct("robostats"),
        set(&[
            "anyhow",
            "arrow-array",
            "arrow-schema",
            "arrow-select",
            "aws-config",
            "aws-credential-types",
            "aws-sigv4",
            "aws-smithy-http-client",
            "aws-smithy-xml",
            "bytes",
            "clap",
            "fastrand",
            "flate2",
            "glob",
            "httpdate",
            "indicatif",
            "libc",
            "parquet",
            "percent-encoding",
            "rayon",
            "reqwest",
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

/// The workspace's crates and their source directories.
const CRATES: &[(&str, &str)] = &[
    ("robostats", "src"),
    ("robostats-robots", "crates/robostats-robots/src"),
    ("robostats-warc", "crates/robostats-warc/src"),
    ("robostats-rows", "crates/robostats-rows/src"),
    ("robostats-python", "crates/robostats-python/src"),
    ("robostats-report", "crates/robostats-report/src"),
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

#[test]
fn every_declared_dependency_is_used() {
    // A dependency declared and never named is a build for nothing (four
    // such lingered in the root crate after the workspace split).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (package, dir) in CRATES {
        let text = sources(&root.join(dir)).concat();
        for dep in tree(package, Some(1)) {
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
