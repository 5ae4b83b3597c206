//! `cargo xtask readme`: rewrites the output shown in the README's `console`
//! blocks from the `box-docs` binary itself.
//!
//! Every `console` block is a shell session: `$ command` lines, each followed
//! by what it prints. The command runs with bash from the repository root,
//! the freshly built `box-docs` first on `PATH`, stdout and stderr together;
//! what it prints replaces the lines after it. So a spec change (a structure
//! added, a purpose reworded) that changes what `box-docs` prints is one
//! command away from a README that shows it; `cli/tests/readme.rs` runs the
//! same sessions and fails, naming this command, when the README is stale.
//! `--check` writes nothing and fails when the README would change.

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

/// Builds `box-docs`, reruns every console block of `README.md` and writes
/// the result (or, with `check`, compares). True on success.
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
    let readme_path = Path::new("README.md");
    let Ok(readme) = std::fs::read_to_string(readme_path) else {
        eprintln!("error: cannot read README.md");
        return false;
    };
    let mut commands = 0;
    let new = rewrite(&readme, |cmd| {
        commands += 1;
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {cmd} ; }} 2>&1"))
            .env("PATH", &path)
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    });
    if new == readme {
        eprintln!("README.md: the output of its {commands} box-docs commands is current");
        return true;
    }
    if check {
        eprintln!(
            "README.md: the output of its box-docs commands is stale: run `cargo xtask readme`"
        );
        return false;
    }
    if let Err(e) = std::fs::write(readme_path, new) {
        eprintln!("error: cannot write README.md: {e}");
        return false;
    }
    eprintln!("README.md: rewrote the output of its {commands} box-docs commands");
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
