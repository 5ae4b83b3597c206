//! Tidy checks over the whole tree (the idea of rust-analyzer's `tidy.rs`):
//! facts about the repository that no other test owns.
//!
//! - Every decision number `P<n>` cited anywhere (code, tests, vectors,
//!   templates, docs) is a decision of `docs/decisions/`.
//! - Every decision has a status (`accepted`, or `superseded by P<n>` naming
//!   decisions that exist), and every accepted one is held: a test or vector
//!   cites it, or its `Held by:` line says what holds it (each file, test and
//!   vector named there exists) or why nothing can.
//! - `docs/decisions/README.md`'s index is the one the decision files give;
//!   a stale index is rewritten and the test fails, so committing the
//!   rewritten file fixes it.
//! - No file carries labels that are not the project's.
//! - Every documentation page with Rust examples is run as doctests.
//! - The code map of `docs/architecture.md` names every module of the
//!   crates' sources, and every path it names exists (`tidy/code_map.rs`).
//! - A decision's stated bound is the constant its test asserts
//!   (`tidy/bounds.rs`).
//!
//! The tree is what git tracks plus the untracked files it does not ignore.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "tidy/bounds.rs"]
mod bounds;
#[path = "tidy/code_map.rs"]
mod code_map;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// The tree's text files: `(path relative to the root, contents)`.
fn tree() -> Vec<(String, String)> {
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files failed");
    let mut files = Vec::new();
    for path in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8(path.to_vec()).unwrap();
        // A file deleted but not yet staged is listed and gone: skip it.
        if let Ok(text) = std::fs::read_to_string(root().join(&path)) {
            files.push((path, text));
        }
    }
    files
}

/// Every `P<n>` in `text` that stands as a word: `(number, byte offset)`.
fn citations(text: &str) -> Vec<(u32, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in text.match_indices('P') {
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = i + 1 + digits;
        let word_end =
            end == bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
        if word_start && word_end && (1..=3).contains(&digits) {
            out.push((text[i + 1..end].parse().unwrap(), i));
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Status {
    Accepted,
    SupersededBy(Vec<u32>),
}

#[derive(Debug)]
struct Decision {
    number: u32,
    /// The file under `docs/decisions/`.
    file: String,
    status: Option<Status>,
    /// The decision's first paragraph after its status.
    summary: String,
    /// The `Held by:` paragraph, without the prefix.
    held_by: Option<String>,
    /// The whole section, its heading aside.
    text: String,
}

/// A decision heading: `## P<n>` (or `###`), optionally followed by a title.
fn heading_number(line: &str) -> Option<u32> {
    let rest = line
        .strip_prefix("### P")
        .or_else(|| line.strip_prefix("## P"))?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with([' ', ':', '.'])) {
        return None;
    }
    digits.parse().ok()
}

/// The paragraphs of a section: runs of non-blank lines joined by spaces.
fn paragraphs(lines: &[&str]) -> Vec<String> {
    lines
        .split(|l| l.trim().is_empty())
        .filter(|p| !p.is_empty())
        .map(|p| p.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "))
        .collect()
}

fn parse_status(text: &str) -> Option<Status> {
    let text = text.trim().trim_matches('*').trim().to_ascii_lowercase();
    if text.starts_with("accepted") {
        Some(Status::Accepted)
    } else if text.starts_with("superseded") {
        Some(Status::SupersededBy(
            citations(&text.to_ascii_uppercase())
                .into_iter()
                .map(|(n, _)| n)
                .collect(),
        ))
    } else {
        None
    }
}

/// Every decision of `docs/decisions/*.md` (the index aside).
fn decisions() -> Vec<Decision> {
    let dir = root().join("docs/decisions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/decisions/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.file_name().unwrap() != "README.md")
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let starts: Vec<(usize, u32)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| heading_number(l).map(|n| (i, n)))
            .collect();
        for (k, &(start, number)) in starts.iter().enumerate() {
            let end = starts.get(k + 1).map_or(lines.len(), |s| s.0);
            // A section ends at the next heading of any kind.
            let end = lines[start + 1..end]
                .iter()
                .position(|l| l.starts_with('#'))
                .map_or(end, |p| start + 1 + p);
            let mut status = None;
            let mut summary = String::new();
            let mut held_by = None;
            for p in paragraphs(&lines[start + 1..end]) {
                let bare = p.trim_start_matches('*');
                if let Some(s) = bare.strip_prefix("Status:") {
                    status = parse_status(s);
                } else if let Some(h) = bare.strip_prefix("Held by:") {
                    held_by = Some(h.trim_start_matches('*').trim().to_owned());
                } else if summary.is_empty() {
                    summary = p;
                }
            }
            out.push(Decision {
                number,
                file: file.clone(),
                status,
                summary,
                held_by,
                text: lines[start + 1..end].join("\n"),
            });
        }
    }
    out
}

/// Whether a file is a test or a vector: a citation there holds a decision.
fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap();
    path.starts_with("tests/")
        || path.contains("/tests/")
        || path.starts_with("fuzz/")
        || name.starts_with("test_")
}

#[test]
fn every_cited_decision_exists() {
    let known: BTreeSet<u32> = decisions().iter().map(|d| d.number).collect();
    assert!(known.len() > 100, "docs/decisions/ holds the decisions");
    let mut missing = Vec::new();
    for (path, text) in tree() {
        for (n, at) in citations(&text) {
            if !known.contains(&n) {
                let line = text[..at].matches('\n').count() + 1;
                missing.push(format!("{path}:{line}: P{n}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited, but no `## P<n>` in docs/decisions/:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_decision_has_one_place_and_a_status() {
    let all = decisions();
    let known: BTreeSet<u32> = all.iter().map(|d| d.number).collect();
    let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
    let mut wrong = Vec::new();
    for d in &all {
        if let Some(other) = seen.insert(d.number, &d.file) {
            wrong.push(format!("P{} is in {other} and in {}", d.number, d.file));
        }
        match &d.status {
            None => wrong.push(format!(
                "{}: P{} has no `Status: accepted` or `Status: superseded by P<n>` line",
                d.file, d.number
            )),
            Some(Status::SupersededBy(by)) => {
                if by.is_empty() {
                    wrong.push(format!(
                        "{}: P{} is superseded by nothing",
                        d.file, d.number
                    ));
                }
                for n in by.iter().filter(|n| !known.contains(n)) {
                    wrong.push(format!(
                        "{}: P{} is superseded by P{n}, which is no decision",
                        d.file, d.number
                    ));
                }
            }
            Some(Status::Accepted) => {}
        }
        if d.summary.is_empty() {
            wrong.push(format!("{}: P{} says nothing", d.file, d.number));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The backticked words of a text.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// What a `Held by:` line names that does not exist.
fn held_by_faults(held: &str, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut faults = Vec::new();
    if held.starts_with("none") {
        return faults;
    }
    for part in held.split("; ") {
        let part = part.trim().trim_end_matches('.');
        if part.starts_with("vector") {
            for name in backticked(part) {
                let found = files.keys().any(|p| {
                    p.starts_with("tests/vectors/") && p.ends_with(&format!("/{name}.json"))
                });
                if !found {
                    faults.push(format!("no vector `{name}` under tests/vectors/"));
                }
            }
            continue;
        }
        let words = backticked(part);
        let Some(path) = words
            .first()
            .filter(|w| w.contains('/') && !w.contains(' '))
        else {
            continue;
        };
        let Some(text) = files.get(path.trim_end_matches('/')) else {
            if !root().join(path).exists() {
                faults.push(format!("no file `{path}`"));
            }
            continue;
        };
        for name in &words[1..] {
            let is_name = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if is_name && !text.contains(name) {
                faults.push(format!("`{path}` has no `{name}`"));
            }
        }
    }
    faults
}

#[test]
fn every_accepted_decision_is_held_by_a_test_or_says_why_not() {
    let files: BTreeMap<String, String> = tree().into_iter().collect();
    let mut cited: BTreeSet<u32> = BTreeSet::new();
    for (path, text) in &files {
        if is_test(path) {
            cited.extend(citations(text).into_iter().map(|(n, _)| n));
        }
    }
    let mut wrong = Vec::new();
    for d in decisions() {
        if let Some(held) = &d.held_by {
            for fault in held_by_faults(held, &files) {
                wrong.push(format!("{}: P{} is held by {fault}", d.file, d.number));
            }
        }
        if d.status == Some(Status::Accepted) && d.held_by.is_none() && !cited.contains(&d.number) {
            wrong.push(format!(
                "{}: P{} is cited by no test or vector and has no `Held by:` line",
                d.file, d.number
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn held_by_lines_are_checked() {
    let files: BTreeMap<String, String> =
        [("tests/a.rs".to_owned(), "fn a_real_test() {}".to_owned())]
            .into_iter()
            .collect();
    assert!(held_by_faults("`tests/a.rs` (`a_real_test`).", &files).is_empty());
    assert_eq!(
        held_by_faults(
            "`tests/a.rs` (`a_real_test`, `gone`); `tests/b.rs`; vector `none-such`.",
            &files
        ),
        [
            "`tests/a.rs` has no `gone`",
            "no file `tests/b.rs`",
            "no vector `none-such` under tests/vectors/"
        ]
    );
    assert!(held_by_faults("none: a speed choice.", &files).is_empty());
}

#[test]
fn citations_are_whole_words() {
    let found: Vec<u32> = citations("P1, (P20) P3x xP4 P55. P1234 P_6 P")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(found, [1, 20, 55]);
}

/// The index of `docs/decisions/README.md`: a table of every decision.
fn index(decisions: &[Decision]) -> String {
    let mut sorted: Vec<&Decision> = decisions.iter().collect();
    sorted.sort_by_key(|d| d.number);
    let mut out = String::from("| # | status | topic | decision |\n| --- | --- | --- | --- |\n");
    for d in sorted {
        let status = match &d.status {
            Some(Status::Accepted) => "accepted".to_owned(),
            Some(Status::SupersededBy(by)) => format!(
                "superseded by {}",
                by.iter()
                    .map(|n| format!("P{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "?".to_owned(),
        };
        let topic = d.file.trim_end_matches(".md");
        out.push_str(&format!(
            "| [P{n}]({file}#p{n}) | {status} | [{topic}]({file}) | {} |\n",
            short(&d.summary),
            n = d.number,
            file = d.file,
        ));
    }
    out
}

/// A decision's first sentence, at most about 100 characters, whole code
/// spans only, pipes escaped for a table cell.
fn short(summary: &str) -> String {
    const MAX: usize = 100;
    let mut end = summary.len();
    let mut in_code = false;
    for (i, c) in summary.char_indices() {
        if c == '`' {
            in_code = !in_code;
        }
        if !in_code && c == '.' && summary[i + 1..].starts_with(' ') {
            end = i + 1;
            break;
        }
    }
    let mut s = &summary[..end];
    let mut cut = false;
    if s.chars().count() > MAX {
        let byte = s.char_indices().nth(MAX).unwrap().0;
        // Back to a blank outside a code span.
        let mut last = 0;
        let mut in_code = false;
        for (i, c) in s[..byte].char_indices() {
            if c == '`' {
                in_code = !in_code;
            }
            if c == ' ' && !in_code {
                last = i;
            }
        }
        s = s[..last].trim_end_matches([',', ';', ':', ' ']);
        cut = true;
    }
    let s = s.replace('|', "\\|");
    if cut {
        format!("{s} …")
    } else {
        s
    }
}

const INDEX_MARK: &str =
    "<!-- The table below is written by xtask/tests/tidy.rs from the decision files. -->\n";

#[test]
fn the_decision_index_is_current() {
    let path = root().join("docs/decisions/README.md");
    let old = std::fs::read_to_string(&path).expect("docs/decisions/README.md exists");
    let (head, _) = old
        .split_once(INDEX_MARK)
        .expect("docs/decisions/README.md holds the index mark");
    let new = format!("{head}{INDEX_MARK}\n{}", index(&decisions()));
    if new != old {
        std::fs::write(&path, &new).unwrap();
        panic!("docs/decisions/README.md was stale and has been rewritten: commit it");
    }
}

#[test]
fn short_summaries_keep_code_spans_whole() {
    assert_eq!(short("One. Two."), "One.");
    assert_eq!(short("`a. b` c. d"), "`a. b` c.");
    let long = format!("{} `x y` z", "w ".repeat(49));
    assert_eq!(short(&long), format!("{}…", "w ".repeat(49)));
    assert_eq!(short("a | b"), "a \\| b");
}

#[test]
fn no_file_carries_labels_that_are_not_the_projects() {
    // Built so that this file does not match itself.
    let label = ["help", "er-"].concat();
    let mut found = Vec::new();
    for (path, text) in tree() {
        let lower = text.to_ascii_lowercase();
        for (at, _) in lower.match_indices(&label) {
            if lower[at + label.len()..].starts_with(|c: char| c.is_ascii_digit()) {
                let line = text[..at].matches('\n').count() + 1;
                found.push(format!("{path}:{line}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "labels from outside the project:\n{}",
        found.join("\n")
    );
}

/// The documentation pages whose examples are tests: the README and the guide.
fn doc_pages() -> Vec<(String, String)> {
    tree()
        .into_iter()
        .filter(|(p, _)| p == "README.md" || (p.starts_with("docs/guide/") && p.ends_with(".md")))
        .collect()
}

#[test]
fn every_page_with_rust_examples_runs_them_as_doctests() {
    let lib = std::fs::read_to_string(root().join("tests/downstream/src/lib.rs")).unwrap();
    let pages = doc_pages();
    assert!(pages.len() > 5, "the guide has pages");
    let mut missing = Vec::new();
    for (path, text) in pages {
        let has_rust = text.lines().any(|l| l == "```rust");
        let included = lib.contains(&format!("include_str!(\"../../../{path}\")"));
        if has_rust && !included {
            missing.push(path);
        }
    }
    assert!(
        missing.is_empty(),
        "pages with ```rust examples that tests/downstream/src/lib.rs does not include: {missing:?}"
    );
}

/// The `$ ` commands of every `console` block of a page.
fn console_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if !in_block {
            in_block = line == "```console";
        } else if line == "```" {
            in_block = false;
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(cmd.to_owned());
        }
    }
    out
}

#[test]
fn every_box_docs_line_of_the_readme_is_a_session_that_runs() {
    let pages = doc_pages();
    let run: BTreeSet<String> = pages
        .iter()
        .flat_map(|(_, text)| console_commands(text))
        .collect();
    let readme = &pages.iter().find(|(p, _)| p == "README.md").unwrap().1;
    let mut in_sh = false;
    let mut lines = Vec::new();
    for line in readme.lines() {
        if !in_sh {
            in_sh = line == "```sh";
        } else if line == "```" {
            in_sh = false;
        } else if line.starts_with("box-docs ") {
            // A comment after the command is two or more blanks and `#`.
            let cmd = line.split("  #").next().unwrap().trim_end();
            lines.push(cmd.to_owned());
        }
    }
    assert!(lines.len() >= 5, "the README shows the box-docs one-liners");
    let missing: Vec<_> = lines.iter().filter(|l| !run.contains(*l)).collect();
    assert!(
        missing.is_empty(),
        "box-docs lines of the README that no console block runs: {missing:?}"
    );
}

/// The targets of the inline links `[text](target)` of a Markdown text,
/// outside code spans and fenced blocks.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Code spans hold no links: drop them.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn links_between_the_documents_point_at_files_that_exist() {
    let mut broken = Vec::new();
    for (path, text) in tree() {
        let is_doc = path == "README.md"
            || path == "BENCHMARKS.md"
            || (path.starts_with("docs/") && path.ends_with(".md"));
        if !is_doc {
            continue;
        }
        let dir = root().join(&path).parent().unwrap().to_owned();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if !dir.join(file).exists() {
                broken.push(format!("{path}: ({target})"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}

#[test]
fn link_targets_skip_code() {
    let text = "see [a](x.md) and `[b](y.md)`\n```\n[c](z.md)\n```\n[d](w.md#p1)";
    assert_eq!(link_targets(text), ["x.md", "w.md#p1"]);
}

/// P287: every `cargo install` a document shows builds with this
/// repository's `Cargo.lock` (`--locked`: without it cargo resolves anew),
/// and one from this checkout (`--path`) in a target directory of its own
/// (`--target-dir`): in `target/` it held the lock that `pip install
/// generated/python` then waited on for the whole of its build.
#[test]
fn install_commands_in_the_docs_are_locked_and_build_apart() {
    let mut seen = 0;
    for (path, text) in tree() {
        if !path.ends_with(".md") || path.starts_with("docs/decisions/") || path == "CHANGELOG.md" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let Some(i) = line.find("cargo install ") else {
                continue;
            };
            let command = line[i..].split(['`', '#', '|']).next().unwrap_or("");
            seen += 1;
            assert!(
                command.contains("--locked"),
                "{path}:{}: `{command}` without --locked",
                n + 1
            );
            if command.contains("--path") {
                assert!(
                    command.contains("--target-dir"),
                    "{path}:{}: `{command}` builds in target/, beside the Python package",
                    n + 1
                );
            }
        }
    }
    assert!(seen >= 3, "{seen} install commands");
}

/// P287: a `[profile.*.package.NAME]` of the workspace manifest names only a
/// package that `cargo install --path cli` builds (a normal or build
/// dependency of `box-docs`): cargo warns of any other on every install.
#[test]
fn profile_overrides_name_only_packages_the_cli_builds() {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let mut built = BTreeSet::new();
    let mut todo: Vec<&str> = name_of
        .iter()
        .filter(|(_, n)| **n == "box-docs")
        .map(|(id, _)| *id)
        .collect();
    while let Some(id) = todo.pop() {
        if !built.insert(name_of[id]) {
            continue;
        }
        let node = nodes.iter().find(|n| n["id"] == id).unwrap();
        for dep in node["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if normal {
                todo.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let named: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("[profile."))
        .filter_map(|l| {
            l.split_once(".package.")
                .map(|(_, p)| p.trim_end_matches(']').trim_matches('"'))
        })
        .filter(|p| *p != "*")
        .collect();
    assert!(!named.is_empty());
    for p in named {
        assert!(
            built.contains(p),
            "[profile.*.package.{p}]: `cargo install --path cli` does not build {p}"
        );
    }
}

/// P287: every published crate's package holds the licence's text, not
/// only its `license` field (`cargo package --list`, which builds nothing).
#[test]
fn every_published_package_holds_the_license() {
    for p in [
        "agent-sentences-runtime",
        "agent-sentences",
        "agent-sentences-codegen",
        "agent-sentences-gen",
    ] {
        let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["package", "--list", "--allow-dirty", "--offline", "-p", p])
            .current_dir(root())
            .output()
            .unwrap();
        let list = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            list.lines().any(|l| l == "LICENSE"),
            "{p}: no LICENSE in\n{list}"
        );
    }
}

/// The README's first screen serves whoever only wants to use the crate,
/// the package or the CLI: one line says so and that the contributor
/// commands can be skipped, the install commands and the harvest's extra
/// come before them, and the Rust dependency line assumes no directory
/// layout (it named `../agent-sentences/generated/rust`).
#[test]
fn the_readme_first_screen_is_for_users() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first: Vec<&str> = readme.lines().take(30).collect();
    let screen = first.join("\n");
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("**Only want to use it?**") && l.contains("skip")),
        "{screen}"
    );
    let two = screen
        .find("## The two commands")
        .expect("the contributor commands follow");
    for shown in [
        "cargo install --locked --path cli",
        "pip install ./generated/python",
        "[harvest]",
        "minutes",
    ] {
        let at = screen
            .find(shown)
            .unwrap_or_else(|| panic!("no {shown} on the first screen"));
        assert!(at < two, "{shown} after the contributor commands");
    }
    let toml = readme
        .split("```toml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    assert!(toml.contains("agent-sentences = { git = "), "{toml}");
    assert!(!toml.contains("path = \"../"), "{toml}");
}

/// P341: the code map names every module of the crates' sources, and every
/// path it names exists.
#[test]
fn the_code_map_names_every_module_and_every_path_it_names_exists() {
    let files = tree();
    let paths: BTreeSet<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let page = &files
        .iter()
        .find(|(p, _)| p == code_map::PAGE)
        .expect("docs/architecture.md exists")
        .1;
    let unnamed = code_map::unnamed_modules(page, &paths);
    let missing = code_map::missing_paths(page, &paths);
    assert!(
        unnamed.is_empty() && missing.is_empty(),
        "{}: modules it does not name:\n{}\npaths it names that do not exist:\n{}",
        code_map::PAGE,
        unnamed.join("\n"),
        missing.join("\n")
    );
}

/// P342: a decision's stated bound (`` `NAME` = value ``) is the value of
/// the constant its code defines, and a decision that names a numeric
/// constant its `Held by:` files define states its value.
#[test]
fn decisions_state_the_bounds_their_tests_assert() {
    let files = tree();
    let constants = bounds::constants(&files);
    let mut wrong = Vec::new();
    for d in decisions() {
        let stated = bounds::stated(&d.text);
        for (name, written, value) in &stated {
            match constants.get(name).map(Vec::as_slice) {
                None => wrong.push(format!(
                    "{} P{}: `{name}` = {written}: no numeric constant `{name}` in the code",
                    d.file, d.number
                )),
                Some(defs) => {
                    if defs.iter().any(|(_, v)| !bounds::same(*v, defs[0].1)) {
                        wrong.push(format!(
                            "{} P{}: `{name}` has several values: {defs:?}",
                            d.file, d.number
                        ));
                    } else if !bounds::same(*value, defs[0].1) {
                        wrong.push(format!(
                            "{} P{}: states `{name}` = {written}, but {} defines it as {}",
                            d.file, d.number, defs[0].0, defs[0].1
                        ));
                    }
                }
            }
        }
        if d.status != Some(Status::Accepted) {
            continue;
        }
        let held = d.held_by.as_deref().unwrap_or("");
        let held_files: Vec<&str> = backticked(held)
            .into_iter()
            .filter(|w| w.ends_with(".rs") || w.ends_with(".py"))
            .collect();
        for name in backticked(&d.text) {
            let defined_by_test = constants
                .get(name)
                .is_some_and(|defs| defs.iter().any(|(f, _)| held_files.contains(&f.as_str())));
            if defined_by_test && !stated.iter().any(|(n, _, _)| n == name) {
                wrong.push(format!(
                    "{} P{}: names `{name}`, which its test defines, without stating `{name}` = <value>",
                    d.file, d.number
                ));
            }
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The modules of `xtask/src` each path `crate::<module>` of `text` names,
/// comments aside (`use crate::{a, b}` names both).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
                None => vec![rest],
            };
            for name in names {
                let name: String = name
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// Issue 39: the modules of `cargo xtask` name each other one way only
/// (`python.rs`, `test.rs` and `test_binaries.rs` were a circle): every
/// edge `crate::<module>` from one file of `xtask/src` to another, and no
/// module reaches itself through them.
#[test]
fn xtask_modules_form_no_cycle() {
    let dir = root().join("xtask/src");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && name != "main" {
            let text = std::fs::read_to_string(&path).unwrap();
            edges.insert(name.to_owned(), crate_paths(&text));
        }
    }
    assert!(edges.len() >= 5, "xtask/src holds its modules: {edges:?}");
    let modules: BTreeSet<String> = edges.keys().cloned().collect();
    for targets in edges.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    // A module on a cycle reaches itself: walk from each.
    let mut cycles = Vec::new();
    for start in &modules {
        let mut stack: Vec<Vec<String>> = vec![vec![start.clone()]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in &edges[last] {
                if next == start {
                    cycles.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "xtask modules in a cycle:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn crate_paths_read_groups_and_skip_comments() {
    let text = "use crate::steps::{run, step};\nuse crate::{a, b::c};\n// crate::not\nlet x = crate::python::f(); // crate::nor\n";
    let got: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(got, ["a", "b", "python", "steps"]);
}
