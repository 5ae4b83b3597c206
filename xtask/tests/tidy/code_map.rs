//! The code map of `docs/architecture.md` kept true (P341):
//!
//! - every module of a crate's `src/` (`<folder>/src/**/*.rs`) is named in
//!   the section of its folder (`### \`codegen/\``): by its file name
//!   (`scan.rs`, or a path ending in it, `ops/native.rs`), a folder module by
//!   its folder (`context/`), the crate root by the section itself;
//! - every path the page names in backticks exists: from the repository's
//!   root, or under the folders of the section that names it (`regex.rs`
//!   under `codegen/`), or, outside any folder's section, anywhere in the
//!   tree.

use std::collections::BTreeSet;

/// The page.
pub const PAGE: &str = "docs/architecture.md";

/// A section of the page: its heading's folders (`codegen/`; none for a
/// section about no folder) and its text, the heading included.
pub struct Section {
    pub folders: Vec<String>,
    pub text: String,
}

/// The `###` and `##` sections of `page`, in order.
pub fn sections(page: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in page.lines() {
        if line.starts_with("## ") || line.starts_with("### ") {
            let folders = if line.starts_with("### ") {
                backticked(line)
                    .into_iter()
                    .filter(|w| w.ends_with('/'))
                    .map(str::to_owned)
                    .collect()
            } else {
                Vec::new()
            };
            out.push(Section {
                folders,
                text: String::new(),
            });
        }
        if let Some(s) = out.last_mut() {
            s.text.push_str(line);
            s.text.push('\n');
        }
    }
    out
}

/// The backticked words of a text.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether a backticked word is a path the page claims exists: one word
/// holding a `/` or ending in a file extension of the tree, and no syntax
/// (`::`, `{`, `*`, `<`, `…`, a blank, a leading `-`, `@` or `$`).
pub fn is_path(word: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".py", ".md", ".json", ".jsonl", ".toml", ".txt", ".tera", ".lark", ".gbnf",
    ];
    let syntax = [
        "::", "{", "}", "*", "<", "…", " ", "(", "=", "\\", "|", "[", "#",
    ];
    !word.is_empty()
        && !syntax.iter().any(|s| word.contains(s))
        && !word.starts_with(['-', '@', '$', '/'])
        && (word.contains('/') || EXTENSIONS.iter().any(|e| word.ends_with(e)))
}

/// Whether `word` (a file, or a folder when it ends in `/`) is a path of
/// `paths` (the tree's files), or a path's tail after a `/`, under one of
/// `folders` (anywhere when `folders` is empty).
fn resolves(word: &str, folders: &[String], paths: &BTreeSet<String>) -> bool {
    let word = word.trim_end_matches(':');
    let under = |p: &str| folders.is_empty() || folders.iter().any(|f| p.starts_with(f.as_str()));
    if let Some(dir) = word.strip_suffix('/') {
        let exact = format!("{dir}/");
        let tail = format!("/{dir}/");
        paths
            .iter()
            .any(|p| p.starts_with(&exact) || p.find(&tail).is_some_and(|at| under(&p[..at + 1])))
    } else {
        let tail = format!("/{word}");
        paths.contains(word) || paths.iter().any(|p| p.ends_with(&tail) && under(p))
    }
}

/// The paths the page names that do not exist, each with its section's
/// folders.
pub fn missing_paths(page: &str, paths: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for s in sections(page) {
        for word in backticked(&s.text).into_iter().filter(|w| is_path(w)) {
            if !resolves(word, &s.folders, paths) {
                let under = if s.folders.is_empty() {
                    String::new()
                } else {
                    format!(" (under {})", s.folders.join(", "))
                };
                out.push(format!("`{word}`{under}"));
            }
        }
    }
    out
}

/// The modules of the crates' sources (`<folder>/src/**/*.rs`, one level
/// of folder: the workspace's crates) the page leaves unnamed.
pub fn unnamed_modules(page: &str, paths: &BTreeSet<String>) -> Vec<String> {
    let sections = sections(page);
    let named_anywhere: BTreeSet<&str> = backticked(page).into_iter().collect();
    let mut out = Vec::new();
    for path in paths {
        let Some((folder, rest)) = path.split_once("/src/") else {
            continue;
        };
        if folder.contains('/') || !rest.ends_with(".rs") {
            continue;
        }
        let folder = format!("{folder}/");
        let Some(section) = sections.iter().find(|s| s.folders.contains(&folder)) else {
            out.push(format!("{path}: no section `### `{folder}``"));
            continue;
        };
        if named_anywhere.contains(path.as_str()) {
            continue;
        }
        let name = match rest.rsplit_once('/') {
            None if rest == "lib.rs" || rest == "main.rs" => continue,
            Some((dir, "mod.rs")) => format!("{}/", dir.rsplit('/').next().unwrap_or(dir)),
            Some((_, file)) => file.to_owned(),
            None => rest.to_owned(),
        };
        let named = backticked(&section.text)
            .into_iter()
            .any(|w| w == name || w.ends_with(&format!("/{name}")));
        if !named {
            out.push(format!(
                "{path}: `{name}` is not named under `### `{folder}``"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn a_module_is_named_by_its_file_its_folder_or_its_path() {
        let page = "## Code map\n\n### `lib/`\n\n- `a.rs`, `sub/` and `deep/c.rs`.\n";
        let paths = tree(&[
            "lib/src/lib.rs",
            "lib/src/a.rs",
            "lib/src/sub/mod.rs",
            "lib/src/deep/c.rs",
            "lib/src/b.rs",
            "other/src/main.rs",
        ]);
        assert_eq!(
            unnamed_modules(page, &paths),
            [
                "lib/src/b.rs: `b.rs` is not named under `### `lib/``",
                "other/src/main.rs: no section `### `other/``",
            ]
        );
    }

    #[test]
    fn a_path_resolves_from_the_root_or_under_its_section() {
        let page = "## Bird's eye view\n\n`docs/x.md`, `y.rs`\n\n### `lib/`\n\n`a.rs`, `src/`, `z.rs`, `Type::call`, `--flag`\n";
        let paths = tree(&["docs/x.md", "lib/src/a.rs", "other/y.rs", "other/z.rs"]);
        assert_eq!(missing_paths(page, &paths), ["`z.rs` (under lib/)"]);
    }
}
