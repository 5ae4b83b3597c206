//! Writing and checking output files: the one place that touches
//! `generated/` ([`sync`]), in [`Mode::Write`] or [`Mode::Check`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::Path;

/// What [`sync`] does with the differences it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write changed and missing files, remove orphans; leave equal files untouched.
    Write,
    /// Write nothing; report every difference.
    Check,
}

/// How one file differs from what the spec produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriftKind {
    /// The file exists with other content.
    Stale,
    /// The generator produces the file but it does not exist.
    Missing,
    /// The file exists under the output directory but the generator does not produce it.
    Orphan,
}

/// One differing file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Path relative to the output directory, `/`-separated.
    pub path: String,
    /// How it differs.
    pub kind: DriftKind,
    /// A unified diff from the file on disk to the expected content, capped at
    /// [`DIFF_LINES`] lines (with a line saying how many were cut).
    pub diff: String,
}

/// The most diff lines shown per file.
pub const DIFF_LINES: usize = 100;

impl DriftKind {
    /// How a file of this kind is described after its path, e.g. `is stale`.
    pub fn describe(self) -> &'static str {
        match self {
            DriftKind::Stale => "is stale",
            DriftKind::Missing => "is missing",
            DriftKind::Orphan => "is not produced by the generator (orphan)",
        }
    }
}

impl fmt::Display for Drift {
    /// `generated/<path> <what>`, then the diff.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "generated/{} {}", self.path, self.kind.describe())?;
        f.write_str(&self.diff)
    }
}

/// Files under the output directory that are build or tool by-products, not
/// generator output, and never count as orphans.
fn ignored(rel: &str) -> bool {
    rel.split('/').any(|part| {
        part == "__pycache__"
            || part == ".mypy_cache"
            || part.ends_with(".egg-info")
            || part == "target"
            || part == "build"
    }) || rel.ends_with(".pyc")
}

fn walk(dir: &Path, base: &Path, out: &mut BTreeSet<String>) -> io::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let rel = path
            .strip_prefix(base)
            .expect("walked below base")
            .to_string_lossy()
            .replace('\\', "/");
        if ignored(&rel) {
            continue;
        }
        if entry.file_type()?.is_dir() {
            walk(&path, base, out)?;
        } else {
            out.insert(rel);
        }
    }
    Ok(())
}

/// [`capped_diff_in`] for a file under `generated/`, both sides present.
pub fn capped_diff(path: &str, old: &str, new: &str) -> String {
    capped_diff_in("generated", path, Some(old), Some(new))
}

/// A unified diff from `old` (the file on disk, `None` when there is none)
/// to `new` (what the generator produces, `None` for an orphan) of the file
/// `<label>/<path>`, capped at [`DIFF_LINES`] lines, with a last line saying
/// how many were cut.
///
/// The headers say which side is which after a tab, where `diff` puts a
/// timestamp, so patch tools still read them: `--- a/<label>/<path>\t(on
/// disk)` and `+++ b/<label>/<path>\t(generated from the spec)` (no `a/`,
/// `b/` before an absolute label).
///
/// Line endings are compared exactly. A carriage return in a diff line is
/// shown as `␍`, so a CRLF line is visibly different from its LF twin; when
/// line endings are the only difference, the diff is replaced by one line
/// saying so (a whole-file diff of invisible characters helps nobody).
pub fn capped_diff_in(label: &str, path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let old_side = if old.is_some() {
        "(on disk)"
    } else {
        "(not on disk)"
    };
    let new_side = if new.is_some() {
        "(generated from the spec)"
    } else {
        "(not generated: orphan)"
    };
    let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
    // `a/` and `b/` prefix relative paths only, as git does (`a//tmp/…` helps nobody).
    let (pa, pb) = if label.starts_with('/') {
        ("", "")
    } else {
        ("a/", "b/")
    };
    let (a, b) = (
        format!("{pa}{label}/{path}\t{old_side}"),
        format!("{pb}{label}/{path}\t{new_side}"),
    );
    let header = format!("--- {a}\n+++ {b}\n");
    let (old_crlf, new_crlf) = (old.matches("\r\n").count(), new.matches("\r\n").count());
    if old_crlf != new_crlf && old.replace("\r\n", "\n") == new.replace("\r\n", "\n") {
        let lines = old.lines().count().max(new.lines().count());
        return format!(
            "{header}only line endings differ: {old_crlf} of {lines} line(s) end in CRLF on disk, {new_crlf} in the generator's output (generated files use LF; a checkout with `core.autocrlf=true` converts them)\n"
        );
    }
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    // Split on `\n` only: `str::lines` would also eat the `\r` of a CRLF line.
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    let mut out: String = lines
        .iter()
        .take(DIFF_LINES)
        .map(|l| format!("{}\n", l.replace('\r', "␍")))
        .collect();
    if lines.len() > DIFF_LINES {
        out.push_str(&format!(
            "... {} more diff line(s) cut\n",
            lines.len() - DIFF_LINES
        ));
    }
    if old_crlf != new_crlf {
        out.push_str(&format!(
            "note: line endings differ too: {old_crlf} line(s) end in CRLF on disk, {new_crlf} in the generator's output (shown as `␍`)\n"
        ));
    }
    out
}

/// Brings `out_dir` in line with `files` (paths relative to `out_dir`).
///
/// In [`Mode::Write`], writes each file whose bytes differ or that is
/// missing, removes orphans, and returns what it changed. In [`Mode::Check`],
/// writes nothing and returns every difference with a diff.
///
/// # Errors
/// I/O errors reading or writing the directory.
pub fn sync(
    out_dir: &Path,
    files: &BTreeMap<String, String>,
    mode: Mode,
) -> io::Result<Vec<Drift>> {
    sync_in(out_dir, "generated", files, mode)
}

/// [`sync`], with diff headers naming files `<label>/<path>` (`label`: how
/// the output directory is shown, e.g. relative to the repository root).
///
/// # Errors
/// As [`sync`].
pub fn sync_in(
    out_dir: &Path,
    label: &str,
    files: &BTreeMap<String, String>,
    mode: Mode,
) -> io::Result<Vec<Drift>> {
    let mut drifts = Vec::new();
    for (rel, content) in files {
        let path = out_dir.join(rel);
        let existing = match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if existing.as_deref() == Some(content.as_bytes()) {
            continue;
        }
        let kind = if existing.is_some() {
            DriftKind::Stale
        } else {
            DriftKind::Missing
        };
        let old = existing.map(|b| String::from_utf8_lossy(&b).into_owned());
        drifts.push(Drift {
            path: rel.clone(),
            kind,
            diff: capped_diff_in(label, rel, old.as_deref(), Some(content)),
        });
        if mode == Mode::Write {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, content)?;
        }
    }
    let mut present = BTreeSet::new();
    walk(out_dir, out_dir, &mut present)?;
    for rel in present {
        if !files.contains_key(&rel) {
            let old = std::fs::read_to_string(out_dir.join(&rel)).unwrap_or_default();
            drifts.push(Drift {
                path: rel.clone(),
                kind: DriftKind::Orphan,
                diff: capped_diff_in(label, &rel, Some(&old), None),
            });
            if mode == Mode::Write {
                std::fs::remove_file(out_dir.join(&rel))?;
            }
        }
    }
    drifts.sort_by(|a, b| (&a.path, a.kind).cmp(&(&b.path, b.kind)));
    Ok(drifts)
}
