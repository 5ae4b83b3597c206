//! Keeps the README honest: every `console` block in it is a shell session
//! (`$ command` lines, each followed by what it prints); this test runs each
//! command with bash, the built `box-docs` first on `PATH`, and compares what
//! it prints (stdout and stderr together) with what the README shows.
//! `cargo xtask readme` rewrites the README's output from the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ lives in the repository")
        .to_owned()
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
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let sessions = sessions(&readme);
    assert!(
        sessions.len() >= 12,
        "the README shows only {} box-docs commands",
        sessions.len()
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_box-docs")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut wrong = Vec::new();
    for (cmd, expected) in &sessions {
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
                "$ {cmd}\n--- README\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "the README's output differs from the binary's (`cargo xtask readme` rewrites it):\n{}",
        wrong.join("\n")
    );
}
