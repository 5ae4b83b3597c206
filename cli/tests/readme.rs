//! Keeps the README and the guide honest: every `console` block in
//! `README.md` and `docs/guide/*.md` is a shell session (`$ command` lines,
//! each followed by what it prints); this test runs each command with bash,
//! the built `box-docs` first on `PATH`, and compares what it prints (stdout
//! and stderr together) with what the page shows. `cargo xtask readme`
//! rewrites the pages' output from the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ lives in the repository")
        .to_owned()
}

/// The pages whose console blocks are sessions: the README and the guide,
/// relative to the repository root, in name order.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide"))
        .expect("docs/guide/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(root).unwrap().to_owned())
        .collect();
    pages.sort();
    pages.insert(0, PathBuf::from("README.md"));
    pages
}

/// `(command, expected output)` for every `$ ` line of every `console` block.
fn sessions(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in readme.lines() {
        if !in_block {
            in_block = line == "```console";
            continue;
        }
        if line == "```" {
            in_block = false;
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push((cmd.to_owned(), String::new()));
        } else {
            let (_, expected) = out
                .last_mut()
                .expect("a console block starts with a `$ ` command");
            expected.push_str(line);
            expected.push('\n');
        }
    }
    assert!(!in_block, "a console block is not closed");
    out
}

#[test]
fn parsing_sessions_splits_commands_from_their_output() {
    let readme =
        "text\n```console\n$ box-docs a\none\ntwo\n$ box-docs b\n```\n```sh\n$ not this\n```\n";
    assert_eq!(
        sessions(readme),
        [
            ("box-docs a".to_owned(), "one\ntwo\n".to_owned()),
            ("box-docs b".to_owned(), String::new())
        ]
    );
}

#[test]
fn readme_shows_the_real_output_of_every_command() {
    let root = repo_root();
    let mut sessions = Vec::new();
    for page in pages(&root) {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        for (cmd, expected) in self::sessions(&text) {
            sessions.push((page.display().to_string(), cmd, expected));
        }
    }
    assert!(
        sessions.len() >= 12,
        "the README and the guide show only {} box-docs commands",
        sessions.len()
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_box-docs")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut wrong = Vec::new();
    for (page, cmd, expected) in &sessions {
        assert!(
            cmd.contains("box-docs"),
            "console blocks are for box-docs: `{cmd}`"
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {cmd} ; }} 2>&1"))
            .env("PATH", &path)
            .current_dir(&root)
            .output()
            .expect("bash runs");
        let actual = String::from_utf8(out.stdout).unwrap();
        if &actual != expected {
            wrong.push(format!(
                "{page}: $ {cmd}\n--- {page}\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the documented output differs from the binary's (`cargo xtask readme` rewrites it):\n{}",
        wrong.join("\n")
    );
}
