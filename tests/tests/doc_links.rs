//! The project's documents link only inside the repository: every Markdown link in the README
//! and in `docs/` is relative and names a file that exists, without leaving the repository
//! root. A reader of a clone (or of the crate's docs) must be able to follow each one.

use std::path::{Component, Path, PathBuf};

/// The repository root (this crate lives in `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The Markdown documents the project ships.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/ exists") {
        let path = entry.expect("readable docs/").path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    docs
}

/// The targets of the inline links `[text](target)` in `text`, outside code spans and blocks.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Drop code spans: a link-like text inside backquotes is code, not a link.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// Where `target`, linked from `doc`, points: `None` when it is not a path in the repository.
fn resolve(doc: &Path, target: &str) -> Result<PathBuf, String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return Err("a link outside the repository".into());
    }
    let path = target.split('#').next().unwrap_or_default();
    if path.is_empty() {
        return Ok(doc.to_path_buf()); // an anchor in the same document
    }
    if Path::new(path).is_absolute() {
        return Err("an absolute path".into());
    }
    let mut resolved = doc
        .parent()
        .expect("a document has a directory")
        .to_path_buf();
    for c in Path::new(path).components() {
        match c {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(part) => resolved.push(part),
            _ => {}
        }
    }
    if !resolved.starts_with(root()) {
        return Err("a path that leaves the repository".into());
    }
    if !resolved.exists() {
        return Err(format!("a missing file {}", resolved.display()));
    }
    Ok(resolved)
}

#[test]
fn every_link_stays_in_the_repository() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("readable document");
        for target in link_targets(&text) {
            seen += 1;
            if let Err(why) = resolve(&doc, &target) {
                bad.push(format!("{}: ({target}) is {why}", doc.display()));
            }
        }
    }
    assert!(seen > 0, "no link found: the scanner is broken");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_scanner_sees_links_that_leave() {
    let doc = root().join("README.md");
    let text = "See [the design](../shared/DESIGN.md), [docs](docs/ARCHITECTURE.md), \
                `[not](a link)` and [web](https://example.org).";
    let targets = link_targets(text);
    assert_eq!(
        targets,
        [
            "../shared/DESIGN.md",
            "docs/ARCHITECTURE.md",
            "https://example.org"
        ]
    );
    assert!(resolve(&doc, &targets[0]).is_err());
    assert!(resolve(&doc, &targets[1]).is_ok());
    assert!(resolve(&doc, &targets[2]).is_err());
}

#[test]
fn the_readme_is_short_and_maps_ideas_to_modules() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 400, "README.md has {lines} lines (at most 400)");
    assert!(readme.contains("## Where each idea lives"));
    for doc in ["docs/ARCHITECTURE.md", "docs/BENCHMARKS.md"] {
        assert!(root().join(doc).exists(), "{doc} is missing");
    }
    // Every path the idea → module table names exists.
    let table = readme
        .split("## Where each idea lives")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("the table's section");
    let mut named = 0;
    for (i, span) in table.split('`').enumerate() {
        if i % 2 == 1 && span.contains("/src") {
            named += 1;
            assert!(
                root().join(span).exists(),
                "the README names {span}, which does not exist"
            );
        }
    }
    assert!(named >= 8, "the table names {named} modules");
}
