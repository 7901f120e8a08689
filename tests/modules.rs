//! No crate's modules have a circle: read from their `use` lines
//! (and other `crate::` and `super::` paths), no module of a parent leans
//! on a sibling that leans back on it, directly or around a longer loop.
//! So the data's one-way flow (source -> pipeline -> output, the command
//! on top) shows in the code, and a change that bends it back fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path under the crate (`pipeline::read`), and its code
/// before its tests, without comments.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

fn walk(src: &Path, dir: &Path, out: &mut BTreeMap<Vec<String>, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(src, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code: Vec<&str> = text
            .lines()
            .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        out.insert(module, code.join("\n"));
    }
}

/// The paths `text` names from the crate's root: `crate::a::b`, and
/// `super::x` resolved from `module` (groups in braces expanded).
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (start, _) in text.match_indices("crate::") {
        let before = text[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        paths.extend(path_at(&text[start + "crate::".len()..], Vec::new()));
    }
    for (start, _) in text.match_indices("super::") {
        let before = text[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &text[start..];
        let mut base = module.to_vec();
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        paths.extend(path_at(rest, base));
    }
    paths
}

/// The path(s) at the start of `text` (`a::b`, `a::{b, c::d}`), after
/// `base`.
fn path_at(text: &str, base: Vec<String>) -> Vec<Vec<String>> {
    let mut path = base;
    let mut rest = text;
    loop {
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        rest = &rest[ident.len()..];
        path.push(ident);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => return vec![path],
        }
    }
    let Some(group) = rest.strip_prefix('{') else {
        return vec![path];
    };
    // The group's top-level items, each a path of its own.
    let (mut depth, mut item, mut out) = (0, String::new(), Vec::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(path_at(item.trim(), path.clone()));
                item.clear();
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    out.extend(path_at(item.trim(), path.clone()));
    out
}

/// Which sibling of `from`'s branch leans on which: the edge between the
/// two modules' ancestors just below their common ancestor (none when one
/// holds the other).
fn sibling_edge(from: &[String], to: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// Edges of the root crate's modules, and any circle among siblings.
fn circles(src: &Path) -> Vec<String> {
    let modules = modules(src);
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, text) in &modules {
        for path in named_paths(module, text) {
            // The longest prefix that is a module of this crate (a path
            // into a dependency re-exported at the root names none).
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains_key(p))
            else {
                continue;
            };
            if let Some((a, b)) = sibling_edge(module, &target) {
                edges.entry(a).or_default().insert(b);
            }
        }
    }
    // A circle is an edge whose head reaches its tail.
    let reaches = |from: &Vec<String>, to: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            if &m == to {
                return true;
            }
            if seen.insert(m.clone()) {
                stack.extend(edges.get(&m).into_iter().flatten().cloned());
            }
        }
        false
    };
    let mut found = Vec::new();
    for (a, heads) in &edges {
        for b in heads {
            if reaches(b, a) {
                found.push(format!(
                    "{} -> {} -> ... -> back",
                    a.join("::"),
                    b.join("::")
                ));
            }
        }
    }
    found
}

/// The `src/` of the root crate and of every crate of the workspace.
fn crate_sources() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("src")];
    let mut crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    out.extend(crates);
    out
}

#[test]
fn no_module_leans_on_a_sibling_that_leans_back() {
    let sources = crate_sources();
    assert!(sources.len() > 5, "{sources:?}");
    let found: Vec<String> = sources
        .iter()
        .flat_map(|src| {
            circles(src)
                .into_iter()
                .map(move |c| format!("{}: {c}", src.display()))
        })
        .collect();
    assert!(found.is_empty(), "circles:\n{}", found.join("\n"));
}

#[test]
fn a_circle_is_found() {
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        named_paths(&m("pipeline::read"), "use super::lanes::{Chunk, Lanes};"),
        [m("pipeline::lanes::Chunk"), m("pipeline::lanes::Lanes")]
    );
    assert_eq!(
        named_paths(&m("a::b"), "use crate::output::{self, dataset::{x, y}};"),
        [
            m("output::self"),
            m("output::dataset::x"),
            m("output::dataset::y")
        ]
    );
    assert_eq!(
        sibling_edge(&m("pipeline::read"), &m("pipeline::lanes::Chunk")),
        Some((m("pipeline::read"), m("pipeline::lanes")))
    );
    assert_eq!(sibling_edge(&m("pipeline::read"), &m("pipeline")), None);
    // A made-up tree with a circle between two siblings.
    let dir = std::env::temp_dir().join(format!("robostats-modules-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("p")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod p;").unwrap();
    std::fs::write(dir.join("p/mod.rs"), "mod a; mod b;").unwrap();
    std::fs::write(dir.join("p/a.rs"), "use super::b::X;").unwrap();
    std::fs::write(
        dir.join("p/b.rs"),
        "use crate::p::a::Y;\n#[cfg(test)]\nuse super::a;",
    )
    .unwrap();
    let found = circles(&dir);
    assert_eq!(found.len(), 2, "{found:?}");
    std::fs::write(dir.join("p/b.rs"), "// use crate::p::a::Y;").unwrap();
    assert!(circles(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
