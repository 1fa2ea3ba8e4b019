//! No crate of the workspace has an import circle among sibling modules: when module `a` refers
//! to its sibling `b` (by `use crate::…`, a `crate::…` path, `super::…`, or `crate::Name` where
//! the crate root re-exports `Name` from `b`), `b` must not refer back to `a`, directly or
//! through other siblings. A circle means neither module can be read, tested or moved alone.
//!
//! Comment lines (`//`, so doc comments and intra-doc links too) and everything after the first
//! `#[cfg(test)]` of a file are ignored; a module referring to its parent or child is not a
//! circle. `MODULE_CIRCLES_CRATES` (crate directories, comma-separated, relative to the
//! repository root or absolute) replaces the checked crates, e.g. to point at an old tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `[]` is the root, `["convert", "interp"]` is
/// `convert::interp`.
type ModPath = Vec<String>;

/// A crate's modules: path → source text.
type Sources = BTreeMap<ModPath, String>;

/// The library crates of the workspace, as directories under the repository root.
const CRATES: &[&str] = &[
    "marshal",
    "marshal-core",
    "marshal-derive",
    "wire-xdr",
    "wire-iiop",
    "wire-ndr",
    "transports",
    "ndr-dump",
    "workloads",
];

/// The repository root (this crate lives in `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The crate directories to check: `MODULE_CIRCLES_CRATES` when set, else [`CRATES`].
fn crate_dirs() -> Vec<PathBuf> {
    let root = root();
    match std::env::var("MODULE_CIRCLES_CRATES") {
        Ok(list) => list
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| root.join(d))
            .collect(),
        Err(_) => CRATES.iter().map(|c| root.join(c)).collect(),
    }
}

/// The modules of the crate in `dir`: every `.rs` file under `src/` (`lib.rs`, `main.rs` and
/// `mod.rs` name their directory's module). `src/bin/` is skipped: each binary there is a crate
/// of its own.
fn read_crate(dir: &Path) -> Sources {
    let src = dir.join("src");
    let mut sources = Sources::new();
    let mut pending = vec![src.clone()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("readable directory entry").path();
            if path.is_dir() {
                if path != src.join("bin") {
                    pending.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(&src)
                .expect("under src/")
                .with_extension("");
            let mut module: ModPath = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("lib" | "main" | "mod")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            sources.insert(module, text);
        }
    }
    sources
}

/// The code of a module's text: up to the first `#[cfg(test)]`, without comment lines.
fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_space(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// Reads the path or use tree at `s[i..]` under `base` (`a::b`, `a::{b, c::d as e}`, `*`),
/// pushing every path it names onto `out`; returns where it ends.
fn use_tree(s: &[u8], mut i: usize, base: &[String], out: &mut Vec<ModPath>) -> usize {
    let mut path = base.to_vec();
    loop {
        match s.get(i) {
            Some(b'{') => return group(s, i + 1, &path, out),
            Some(b'*') => {
                out.push(path);
                return i + 1;
            }
            _ => {}
        }
        let start = i;
        while s.get(i).copied().is_some_and(is_word) {
            i += 1;
        }
        if start < i {
            let segment = String::from_utf8_lossy(&s[start..i]).into_owned();
            // `a::{self, b}` names `a` itself.
            if segment != "self" {
                path.push(segment);
            }
            if s[i..].starts_with(b"::") {
                i += 2;
                continue;
            }
        }
        out.push(path);
        return i;
    }
}

/// Reads the group `{…}` whose `{` is just before `s[i..]`; returns where it ends.
fn group(s: &[u8], mut i: usize, base: &[String], out: &mut Vec<ModPath>) -> usize {
    loop {
        i = skip_space(s, i);
        match s.get(i) {
            None => return i,
            Some(b'}') => return i + 1,
            Some(&b) if is_word(b) || b == b'{' || b == b'*' => {
                i = use_tree(s, i, base, out);
                // `b as c`: the alias is no path.
                let j = skip_space(s, i);
                if s[j..].starts_with(b"as") && s.get(j + 2).is_some_and(u8::is_ascii_whitespace) {
                    i = skip_space(s, j + 2);
                    while s.get(i).copied().is_some_and(is_word) {
                        i += 1;
                    }
                }
            }
            Some(_) => i += 1,
        }
    }
}

/// Whether `s[i..]` starts with `word` that is not the tail of a longer identifier.
fn word_at(s: &[u8], i: usize, word: &[u8]) -> bool {
    s[i..].starts_with(word) && (i == 0 || !is_word(s[i - 1]))
}

/// The paths (from the crate root) that the code of module `me` names through `crate::…` and
/// `super::…`, use groups expanded.
fn references(code: &str, me: &[String]) -> Vec<ModPath> {
    let s = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if word_at(s, i, b"crate::") {
            i = use_tree(s, i + 7, &[], &mut out);
        } else if word_at(s, i, b"super::") {
            let mut up = 0;
            while s[i..].starts_with(b"super::") {
                up += 1;
                i += 7;
            }
            if up <= me.len() {
                i = use_tree(s, i, &me[..me.len() - up], &mut out);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The names that the crate root imports from its modules (`pub use a::b::{Name, ..}`,
/// `pub use a::b::Name as Other;`, any visibility), each with the module it comes from, so that
/// `crate::Name` resolves to that module.
fn root_imports(root_code: &str) -> BTreeMap<String, ModPath> {
    let s = root_code.as_bytes();
    let mut names = BTreeMap::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            // Only items of the root itself, not of its inline modules.
            _ if depth == 0 && word_at(s, i, b"use ") => {
                let start = skip_space(s, i + 4);
                let end = s[start..]
                    .iter()
                    .position(|&b| b == b';')
                    .map_or(s.len(), |n| start + n);
                let item = String::from_utf8_lossy(&s[start..end]);
                let item = item.strip_prefix("crate::").unwrap_or(&item);
                let item = item.strip_prefix("self::").unwrap_or(item);
                for (path, name) in imported(item.as_bytes()) {
                    if !path.is_empty() {
                        names.insert(name, path);
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The names a use tree (without `use` and `;`) imports, each with the path it is imported
/// from: `a::{B, c::D as E}` → `(a, B)`, `(a::c, E)`.
fn imported(s: &[u8]) -> Vec<(ModPath, String)> {
    let mut found = Vec::new();
    imported_at(s, &mut 0, &[], &mut found);
    found
}

fn imported_at(s: &[u8], i: &mut usize, base: &[String], found: &mut Vec<(ModPath, String)>) {
    let mut path = base.to_vec();
    loop {
        *i = skip_space(s, *i);
        if s.get(*i) == Some(&b'{') {
            *i += 1;
            loop {
                *i = skip_space(s, *i);
                match s.get(*i) {
                    None => return,
                    Some(b'}') => {
                        *i += 1;
                        return;
                    }
                    Some(b',') => *i += 1,
                    Some(_) => {
                        let before = *i;
                        imported_at(s, i, &path, found);
                        if *i == before {
                            *i += 1;
                        }
                    }
                }
            }
        }
        let start = *i;
        while s.get(*i).copied().is_some_and(is_word) {
            *i += 1;
        }
        if start == *i {
            return;
        }
        let segment = String::from_utf8_lossy(&s[start..*i]).into_owned();
        if s[*i..].starts_with(b"::") {
            *i += 2;
            path.push(segment);
            continue;
        }
        let mut name = segment;
        let j = skip_space(s, *i);
        if s[j..].starts_with(b"as") && s.get(j + 2).is_some_and(u8::is_ascii_whitespace) {
            *i = skip_space(s, j + 2);
            let alias = *i;
            while s.get(*i).copied().is_some_and(is_word) {
                *i += 1;
            }
            name = String::from_utf8_lossy(&s[alias..*i]).into_owned();
        }
        if name != "self" {
            found.push((path, name));
        }
        return;
    }
}

/// The import circles among sibling modules of the crate `sources`, each closed (`[a, b, a]`)
/// and starting at its least module; no two circles on the same modules in the same order.
fn circles(sources: &Sources) -> Vec<Vec<ModPath>> {
    let root_names = sources
        .get(&ModPath::new())
        .map(|text| root_imports(&code(text)))
        .unwrap_or_default();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (me, text) in sources {
        for mut path in references(&code(text), me) {
            // `crate::Name` (or `crate::Name::item`), `Name` imported at the root.
            if !path.is_empty() && !sources.contains_key(&path[..1]) {
                if let Some(from) = root_names.get(&path[0]) {
                    path.splice(..1, from.iter().cloned());
                }
            }
            // The longest prefix that is a module.
            let Some(target) = (1..=path.len())
                .rev()
                .map(|k| &path[..k])
                .find(|p| sources.contains_key(*p))
            else {
                continue;
            };
            let common = me.iter().zip(target).take_while(|(a, b)| a == b).count();
            if common == me.len() || common == target.len() {
                continue; // itself, an ancestor or a descendant: no sibling edge
            }
            edges
                .entry(me[..=common].to_vec())
                .or_default()
                .insert(target[..=common].to_vec());
        }
    }

    // Every elementary circle, found from its least module, through greater modules only.
    let mut found = Vec::new();
    for start in edges.keys() {
        // The modules (greater than `start`) from which `start` can be reached.
        let mut reach = BTreeSet::new();
        let mut todo = vec![start];
        while let Some(n) = todo.pop() {
            for (from, tos) in &edges {
                if from > start && tos.contains(n) && reach.insert(from) {
                    todo.push(from);
                }
            }
        }
        let mut stack = vec![start.clone()];
        walk(&edges, &reach, &mut stack, &mut found);
    }
    found
}

/// Extends the path `stack` by every edge; a return to its first module is a circle.
fn walk(
    edges: &BTreeMap<ModPath, BTreeSet<ModPath>>,
    reach: &BTreeSet<&ModPath>,
    stack: &mut Vec<ModPath>,
    found: &mut Vec<Vec<ModPath>>,
) {
    let last = stack.last().expect("a path has a module").clone();
    for next in edges.get(&last).into_iter().flatten() {
        if *next == stack[0] {
            let mut circle = stack.clone();
            circle.push(next.clone());
            found.push(circle);
        } else if reach.contains(&next) && !stack.contains(next) {
            stack.push(next.clone());
            walk(edges, reach, stack, found);
            stack.pop();
        }
    }
}

/// `a -> b -> a`.
fn show(circle: &[ModPath]) -> String {
    circle
        .iter()
        .map(|m| m.join("::"))
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[test]
fn no_crate_has_an_import_circle_among_sibling_modules() {
    let mut report = Vec::new();
    for dir in crate_dirs() {
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let sources = read_crate(&dir);
        assert!(
            !sources.is_empty(),
            "{}: no module under src/",
            dir.display()
        );
        let found = circles(&sources);
        println!("{name}: {} modules, {} circles", sources.len(), found.len());
        report.extend(found.iter().map(|c| format!("{name}: {}", show(c))));
    }
    assert!(
        report.is_empty(),
        "{} import circle(s) among sibling modules:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// A crate from `(module path, text)` pairs; the path `"a::b"` is module `a::b`, `""` the root.
fn crate_of(modules: &[(&str, &str)]) -> Sources {
    modules
        .iter()
        .map(|(path, text)| {
            let path = path.split("::").filter(|s| !s.is_empty()).map(String::from);
            (path.collect(), text.to_string())
        })
        .collect()
}

#[test]
fn the_checker_finds_a_known_circle_and_only_it() {
    let root = "mod canonical;\nmod format;\nmod order;\nmod plan;\n\
                pub use format::{Field, Format as Layout};\npub use order::ByteOrder;\n";
    // `format` uses `canonical` by a path; `canonical` uses `format` by a root re-export.
    let with_circle = crate_of(&[
        ("", root),
        (
            "format",
            "use crate::ByteOrder;\npub struct Format;\n\
             fn f() { crate::canonical::canonicalize(); }\n",
        ),
        (
            "canonical",
            "use crate::{order, Layout};\npub fn canonicalize() {}\n",
        ),
        ("order", "pub enum ByteOrder { Big }\n"),
        ("plan", "use super::order::ByteOrder;\n"),
    ]);
    let found: Vec<String> = circles(&with_circle).iter().map(|c| show(c)).collect();
    assert_eq!(found, ["canonical -> format -> canonical"]);

    // The same references back to `format`, but in comments, doc links, tests, or from a child.
    let clean = crate_of(&[
        ("", root),
        (
            "format",
            "use crate::ByteOrder;\npub struct Format;\nmod inner;\n\
             fn f() { crate::canonical::canonicalize(); }\n",
        ),
        (
            "format::inner",
            "use super::Format;\nuse crate::format::Field;\n",
        ),
        (
            "canonical",
            "//! Canonical form of a [`crate::Layout`].\n\
             use crate::order;\n    // use crate::format::Format;\n\
             pub fn canonicalize() {}\n\
             #[cfg(test)]\nmod tests {\n    use crate::{format, Layout};\n}\n",
        ),
        ("order", "pub enum ByteOrder { Big }\n"),
        ("plan", "use super::{order::ByteOrder, canonical};\n"),
    ]);
    assert_eq!(circles(&clean), Vec::<Vec<ModPath>>::new());
}
