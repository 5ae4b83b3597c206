//! `cargo xtask readme`: rewrites the output shown in the `console` blocks of
//! the README and the guide (`docs/guide/*.md`) from the `box-docs` binary
//! itself.
//!
//! Every `console` block is a shell session: `$ command` lines, each followed
//! by what it prints. The command runs with bash from the repository root,
//! the freshly built `box-docs` first on `PATH`, stdout and stderr together;
//! what it prints replaces the lines after it. So a spec change (a structure
//! added, a purpose reworded) that changes what `box-docs` prints is one
//! command away from pages that show it; `cli/tests/readme.rs` runs the
//! same sessions and fails, naming this command, when a page is stale.
//! `--check` writes nothing and fails when a page would change.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The README with every console block's output replaced by what its
/// commands print now; `run` runs one command and returns its output.
pub fn rewrite(readme: &str, mut run: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(readme.len());
    let mut in_block = false;
    for line in readme.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if !in_block {
            in_block = bare == "```console";
            out.push_str(line);
            continue;
        }
        if bare == "```" {
            in_block = false;
            out.push_str(line);
        } else if let Some(cmd) = bare.strip_prefix("$ ") {
            out.push_str(line);
            out.push_str(&run(cmd));
        }
        // Any other line of a block is output, replaced by the run's.
    }
    out
}

/// Where cargo puts the workspace's debug binaries.
fn bin_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("debug")
}

/// The pages whose console blocks are sessions: the README, then the guide's
/// pages in name order (paths relative to the repository root).
pub fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir("docs/guide")
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "md"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    pages.insert(0, PathBuf::from("README.md"));
    pages
}

/// Builds `box-docs`, reruns every console block of the README and the
/// guide and writes the result (or, with `check`, compares). True on success.
pub fn run(check: bool) -> bool {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("== building box-docs to rerun the README's console blocks");
    let built = Command::new(&cargo)
        .args(["build", "-p", "box-docs"])
        .status()
        .is_ok_and(|s| s.success());
    if !built {
        eprintln!("error: cannot build box-docs");
        return false;
    }
    let bin = std::fs::canonicalize(bin_dir()).unwrap_or_else(|_| bin_dir());
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH entries hold no separator");
    let mut ok = true;
    for page in pages() {
        ok &= run_page(&page, &path, check);
    }
    ok
}

/// Reruns the console blocks of one page; true when it is (or is now) current.
fn run_page(page: &Path, path: &std::ffi::OsStr, check: bool) -> bool {
    let name = page.display();
    let Ok(text) = std::fs::read_to_string(page) else {
        eprintln!("error: cannot read {name}");
        return false;
    };
    let mut commands = 0;
    let new = rewrite(&text, |cmd| {
        commands += 1;
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {cmd} ; }} 2>&1"))
            .env("PATH", path)
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    });
    if new == text {
        if commands > 0 {
            eprintln!("{name}: the output of its {commands} box-docs commands is current");
        }
        return true;
    }
    if check {
        eprintln!("{name}: the output of its box-docs commands is stale: run `cargo xtask readme`");
        return false;
    }
    if let Err(e) = std::fs::write(page, new) {
        eprintln!("error: cannot write {name}: {e}");
        return false;
    }
    eprintln!("{name}: rewrote the output of its {commands} box-docs commands");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_console_output_is_replaced() {
        let readme = "a\n```console\n$ x\nold\nolder\n$ y\n```\n```sh\n$ z\nkept\n```\n";
        let new = rewrite(readme, |cmd| format!("out of {cmd}\n"));
        assert_eq!(
            new,
            "a\n```console\n$ x\nout of x\n$ y\nout of y\n```\n```sh\n$ z\nkept\n```\n"
        );
        assert_eq!(rewrite(&new, |cmd| format!("out of {cmd}\n")), new);
    }
}
