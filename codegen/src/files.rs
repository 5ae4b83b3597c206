//! Writing and checking output files: the one place that touches
//! `generated/` ([`sync`]), in [`Mode::Write`] or [`Mode::Check`].
//!
//! The output directory is owned through a manifest, [`MANIFEST`], which
//! lists every file the last write put there. A write replaces and removes
//! only what an earlier write listed (a removal also needs the file's
//! `@generated` marker), never follows or writes through a symbolic link
//! below the output directory, never opens what is not a regular file (a
//! FIFO cannot block it), and refuses, writing nothing, a non-empty
//! directory without a manifest unless it is forced ([`sync_with`]). A
//! check reports a file the generator does not produce by its name and
//! size, without reading it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs::{self, FileType};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// What [`sync`] does with the differences it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write changed and missing files, remove the orphans an earlier write
    /// listed in the manifest; leave equal files untouched.
    Write,
    /// Write nothing; report every difference.
    Check,
}

/// How one file differs from what the spec produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DriftKind {
    /// The file exists with other content (or is no regular file).
    Stale,
    /// The generator produces the file but it does not exist.
    Missing,
    /// The file exists under the output directory, the generator does not
    /// produce it, and the manifest says an earlier write put it there: a
    /// write removes it.
    Orphan,
    /// An entry under the output directory that the generator does not
    /// produce and that no earlier write put there (no manifest lists it, it
    /// lost its `@generated` marker, or it is no regular file): a write
    /// leaves it where it is, a check reports it.
    Foreign,
}

/// One differing file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Path relative to the output directory, `/`-separated.
    pub path: String,
    /// How it differs.
    pub kind: DriftKind,
    /// A unified diff from the file on disk to the expected content, capped at
    /// [`DIFF_LINES`] lines (with a line saying how many were cut); for an
    /// orphan or a foreign entry, and for an entry that is no regular file,
    /// the diff headers and one line saying what is on disk (its kind and
    /// size in bytes: it is not read).
    pub diff: String,
}

/// The most diff lines shown per file.
pub const DIFF_LINES: usize = 100;

/// The manifest's name, directly under the output directory: a comment
/// header, then the path of every file the last write put there, one a
/// line, `/`-separated, sorted.
pub const MANIFEST: &str = ".agent-sentences-manifest";

/// The largest manifest read (bytes); a larger one is refused as damaged.
pub const MANIFEST_MAX: u64 = 4 << 20;

/// How many leading bytes of a listed orphan must hold `@generated` before a
/// write removes it.
pub const MARKER_WINDOW: u64 = 1024;

/// The largest file on disk a check reads for a diff (bytes), unless the
/// expected content is larger; a larger one is reported by its size.
pub const DIFF_READ_MAX: u64 = 4 << 20;

impl DriftKind {
    /// How a file of this kind is described after its path, e.g. `is stale`.
    pub fn describe(self) -> &'static str {
        match self {
            DriftKind::Stale => "is stale",
            DriftKind::Missing => "is missing",
            DriftKind::Orphan => "is not produced by the generator (orphan)",
            DriftKind::Foreign => "is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)",
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

/// Why [`sync_with`] stopped.
#[derive(Debug)]
pub enum SyncError {
    /// A write refused the output directory before writing anything: every
    /// reason, one a line (a path relative to the output directory first).
    Refused(Vec<String>),
    /// An I/O error on `path` (relative to the output directory, or the
    /// directory itself when empty).
    Io {
        /// Where it happened.
        path: String,
        /// What happened.
        source: io::Error,
    },
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncError::Refused(why) => {
                write!(f, "nothing was written:")?;
                for w in why {
                    write!(f, "\n  {w}")?;
                }
                Ok(())
            }
            SyncError::Io { path, source } if path.is_empty() => write!(f, "{source}"),
            SyncError::Io { path, source } => write!(f, "{path}: {source}"),
        }
    }
}

impl std::error::Error for SyncError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SyncError::Io { source, .. } => Some(source),
            SyncError::Refused(_) => None,
        }
    }
}

fn io_at(path: &str) -> impl FnOnce(io::Error) -> SyncError + '_ {
    move |source| SyncError::Io {
        path: path.to_owned(),
        source,
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

/// What is at a path below the output directory, seen without following a
/// symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// Nothing (or a parent directory is missing).
    Absent,
    /// A regular file of this many bytes.
    File(u64),
    /// A directory.
    Dir,
    /// Anything else: a symbolic link, a FIFO, a socket, a device.
    Other(&'static str),
}

/// What a file type is, in words (`a symbolic link`, `a FIFO`, …).
fn type_name(t: FileType) -> &'static str {
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_file() {
        return "a regular file";
    }
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    "no regular file"
}

impl Entry {
    fn of(m: &fs::Metadata) -> Entry {
        let t = m.file_type();
        if t.is_file() {
            Entry::File(m.len())
        } else if t.is_dir() {
            Entry::Dir
        } else {
            Entry::Other(type_name(t))
        }
    }

    /// What is on disk, in words, with the size of a regular file.
    fn describe(self) -> String {
        match self {
            Entry::Absent => "nothing".to_owned(),
            Entry::File(n) => format!("a regular file of {n} byte(s)"),
            Entry::Dir => "a directory".to_owned(),
            Entry::Other(what) => what.to_owned(),
        }
    }
}

/// A parent of a path below the output directory that is no directory.
#[derive(Debug, Clone)]
struct Blocked {
    /// The parent, relative to the output directory.
    at: String,
    /// What it is instead.
    what: &'static str,
}

/// What is at `rel` below `out_dir`, following no symbolic link below
/// `out_dir` (the directory itself may be one: the user named it).
fn inspect(out_dir: &Path, rel: &str) -> io::Result<Result<Entry, Blocked>> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut path = out_dir.to_owned();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let m = match fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Ok(Entry::Absent)),
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(Ok(Entry::Absent)),
            Err(e) => return Err(e),
        };
        let entry = Entry::of(&m);
        if i + 1 == parts.len() {
            return Ok(Ok(entry));
        }
        if entry != Entry::Dir {
            return Ok(Err(Blocked {
                at: parts[..=i].join("/"),
                what: type_name(m.file_type()),
            }));
        }
    }
    Ok(Ok(Entry::Absent))
}

/// At most `max` bytes of the regular file at `path`.
fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    fs::File::open(path)?.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// True when `rel` is a plain relative path: `/`-separated parts, none
/// empty, `.` or `..`, no backslash, NUL or line break.
fn plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains(['\\', '\0', '\n', '\r'])
        && rel
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..")
}

/// The manifest listing `paths`.
pub fn manifest_text<'a>(paths: impl IntoIterator<Item = &'a String>) -> String {
    let mut text = String::from(
        "# @generated by `cargo xtask gen` (or `agent-sentences-gen gen`): the files that gen wrote\n\
         # under this directory, the only ones it replaces or removes. Do not edit by hand.\n",
    );
    let sorted: BTreeSet<&String> = paths.into_iter().collect();
    for p in sorted {
        text.push_str(p);
        text.push('\n');
    }
    text
}

/// The paths the manifest under `out_dir` lists: `Ok(None)` when there is
/// none, `Err` (why, in words) when it cannot be trusted.
fn read_manifest(out_dir: &Path) -> io::Result<Result<Option<BTreeSet<String>>, String>> {
    let entry = match inspect(out_dir, MANIFEST)? {
        Ok(e) => e,
        Err(b) => return Ok(Err(format!("{}: {}", b.at, b.what))),
    };
    let len = match entry {
        Entry::Absent => return Ok(Ok(None)),
        Entry::File(n) if n <= MANIFEST_MAX => n,
        Entry::File(n) => {
            return Ok(Err(format!(
                "{MANIFEST}: {n} bytes, more than a manifest holds ({MANIFEST_MAX})"
            )))
        }
        other => {
            return Ok(Err(format!(
                "{MANIFEST}: {}, not a regular file",
                other.describe()
            )))
        }
    };
    let bytes = read_capped(&out_dir.join(MANIFEST), len)?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(Err(format!("{MANIFEST}: not UTF-8")));
    };
    let mut paths = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !plain_relative(line) || line == MANIFEST {
            return Ok(Err(format!(
                "{MANIFEST}:{}: `{}` is no path below the output directory",
                n + 1,
                line.escape_debug()
            )));
        }
        paths.insert(line.to_owned());
    }
    Ok(Ok(Some(paths)))
}

/// The two file names of a diff's headers, each with its side after a tab.
fn diff_names(label: &str, path: &str, on_disk: bool, generated: bool) -> (String, String) {
    let old_side = if on_disk {
        "(on disk)"
    } else {
        "(not on disk)"
    };
    let new_side = if generated {
        "(generated from the spec)"
    } else {
        "(not generated: orphan)"
    };
    // `a/` and `b/` prefix relative paths only, as git does (`a//tmp/…` helps nobody).
    let (pa, pb) = if label.starts_with('/') {
        ("", "")
    } else {
        ("a/", "b/")
    };
    (
        format!("{pa}{label}/{path}\t{old_side}"),
        format!("{pb}{label}/{path}\t{new_side}"),
    )
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
    let (a, b) = diff_names(label, path, old.is_some(), new.is_some());
    let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
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

/// Brings `out_dir` in line with `files` (paths relative to `out_dir`):
/// [`sync_with`], unforced, with diff headers naming files `generated/<path>`.
///
/// # Errors
/// As [`sync_with`].
pub fn sync(
    out_dir: &Path,
    files: &BTreeMap<String, String>,
    mode: Mode,
) -> Result<Vec<Drift>, SyncError> {
    sync_with(out_dir, "generated", files, mode, false)
}

/// [`sync`], with diff headers naming files `<label>/<path>` (`label`: how
/// the output directory is shown, e.g. relative to the repository root).
///
/// # Errors
/// As [`sync_with`].
pub fn sync_in(
    out_dir: &Path,
    label: &str,
    files: &BTreeMap<String, String>,
    mode: Mode,
) -> Result<Vec<Drift>, SyncError> {
    sync_with(out_dir, label, files, mode, false)
}

/// Brings `out_dir` in line with `files` (paths relative to `out_dir`,
/// plain: no `.`, `..` or empty part) and the [`MANIFEST`] that lists them.
///
/// In [`Mode::Check`], writes nothing and returns every difference: a
/// produced file that is missing or differs (with a diff; an entry that is
/// no regular file is described, not opened), the manifest likewise, and
/// every other entry under `out_dir` (by-products such as `target/` and
/// `__pycache__/` aside) as an [`DriftKind::Orphan`] when the manifest lists
/// it, else as [`DriftKind::Foreign`], by kind and size, unread. A directory
/// that holds no produced or listed path is one entry.
///
/// In [`Mode::Write`], first decides, then writes:
/// - it refuses ([`SyncError::Refused`], nothing written, every reason
///   given) when `out_dir` is not empty and holds no manifest, or a
///   damaged one; when a produced file's place is taken by something an
///   earlier write did not put there (a file it did not list, a symbolic
///   link, a FIFO); and, even when forced, when a parent of a produced
///   path is a symbolic link or no directory, or the place is a directory;
/// - `force` lifts the first two: the files are written over what is
///   there (a link or FIFO is replaced, never written through), and a
///   damaged manifest counts as none;
/// - it writes each file that is missing or differs to a temporary file
///   beside it, renamed into place (so a link or hard link at the place is
///   replaced, not written through); creates parents without following
///   links; removes each file the old manifest lists and the spec no longer
///   produces when it is a regular file whose first [`MARKER_WINDOW`] bytes
///   hold `@generated` (anything else is left, as [`DriftKind::Foreign`]);
///   and writes the manifest (first with the old and new paths together, so
///   an interrupted write leaves nothing unlisted, then the new paths).
///
/// Returns what it wrote, removed and left; the manifest's own writes are
/// not listed. Equal files are not rewritten.
///
/// # Errors
/// [`SyncError::Refused`] as above; [`SyncError::Io`] for an I/O error
/// (reading the directory, or writing after the decision).
pub fn sync_with(
    out_dir: &Path,
    label: &str,
    files: &BTreeMap<String, String>,
    mode: Mode,
    force: bool,
) -> Result<Vec<Drift>, SyncError> {
    let manifest = read_manifest(out_dir).map_err(io_at(MANIFEST))?;
    let (listed, manifest_problem) = match manifest {
        Ok(Some(paths)) => (Some(paths), None),
        Ok(None) => (None, None),
        Err(why) => (None, Some(why)),
    };
    let owned = listed.clone().unwrap_or_default();
    let new_manifest = manifest_text(files.keys());
    let mut expected: Vec<(&str, &str)> = files
        .iter()
        .filter(|(rel, _)| rel.as_str() != MANIFEST)
        .map(|(rel, text)| (rel.as_str(), text.as_str()))
        .collect();
    if mode == Mode::Check {
        expected.push((MANIFEST, &new_manifest));
    }

    let mut drifts = Vec::new();
    let mut problems = Vec::new();
    let mut writes: Vec<(&str, &str)> = Vec::new();
    for &(rel, content) in &expected {
        let entry = match inspect(out_dir, rel).map_err(io_at(rel))? {
            Ok(e) => e,
            Err(b) => {
                let why = format!(
                    "{rel}: its parent {} is {}, not a directory: gen follows no link and replaces nothing on the way to a file",
                    b.at, b.what
                );
                if mode == Mode::Check {
                    drifts.push(described(label, rel, DriftKind::Stale, &why));
                } else {
                    problems.push(why);
                }
                continue;
            }
        };
        let kind = match entry {
            Entry::Absent => DriftKind::Missing,
            Entry::File(n) if n == content.len() as u64 => {
                let bytes = read_capped(&out_dir.join(rel), n).map_err(io_at(rel))?;
                if bytes == content.as_bytes() {
                    continue;
                }
                DriftKind::Stale
            }
            _ => DriftKind::Stale,
        };
        match mode {
            Mode::Check => drifts.push(check_drift(out_dir, label, rel, content, entry)?),
            Mode::Write => {
                let ours = owned.contains(rel);
                match entry {
                    Entry::Dir => problems.push(format!(
                        "{rel}: is a directory, where gen writes a file"
                    )),
                    Entry::Other(what) if !force => problems.push(format!(
                        "{rel}: is {what}, which gen never writes through (with --force it is replaced)"
                    )),
                    Entry::File(n) if !ours && !force && listed.is_some() => problems.push(format!(
                        "{rel}: a file of {n} byte(s) that gen did not write is in the way (with --force it is overwritten)"
                    )),
                    _ => {}
                }
                writes.push((rel, content));
                drifts.push(Drift {
                    path: rel.to_owned(),
                    kind,
                    diff: String::new(),
                });
            }
        }
    }

    let produced: BTreeSet<&str> = expected.iter().map(|(rel, _)| *rel).collect();
    let mut removals = Vec::new();
    for (rel, entry) in present(out_dir, &produced, &owned)? {
        let kind = match entry {
            Entry::File(_) if owned.contains(&rel) && marked(out_dir, &rel)? => DriftKind::Orphan,
            _ => DriftKind::Foreign,
        };
        if kind == DriftKind::Orphan && mode == Mode::Write {
            removals.push(rel.clone());
        }
        let what = format!("on disk: {}, not read", entry.describe());
        drifts.push(described(label, &rel, kind, &what));
    }

    if mode == Mode::Write {
        if let Some(why) = &manifest_problem {
            if !force {
                problems.push(format!(
                    "the manifest cannot be trusted ({why}): remove it and run gen with --force"
                ));
            }
        }
        let nonempty =
            out_dir.is_dir() && fs::read_dir(out_dir).map_err(io_at(""))?.next().is_some();
        if listed.is_none() && manifest_problem.is_none() && nonempty && !force {
            problems.push(format!(
                "the directory holds files but no {MANIFEST}: gen writes only into an empty directory or one it wrote before; with --force it writes its files there anyway (and removes nothing)"
            ));
        }
        if !problems.is_empty() {
            return Err(SyncError::Refused(problems));
        }
        fs::create_dir_all(out_dir).map_err(io_at(""))?;
        let mut union = owned.clone();
        union.extend(files.keys().cloned());
        write_if_changed(out_dir, MANIFEST, &manifest_text(&union))?;
        for (rel, content) in writes {
            write_file(out_dir, rel, content)?;
        }
        for rel in &removals {
            fs::remove_file(out_dir.join(rel)).map_err(io_at(rel))?;
        }
        write_if_changed(out_dir, MANIFEST, &new_manifest)?;
    }
    drifts.sort_by(|a, b| (&a.path, a.kind).cmp(&(&b.path, b.kind)));
    Ok(drifts)
}

/// A drift whose diff is the headers and one line saying what is on disk.
fn described(label: &str, rel: &str, kind: DriftKind, what: &str) -> Drift {
    let generated = kind == DriftKind::Stale || kind == DriftKind::Missing;
    let (a, b) = diff_names(label, rel, true, generated);
    let mut diff = format!("--- {a}\n+++ {b}\n{what}");
    diff.push('\n');
    Drift {
        path: rel.to_owned(),
        kind,
        diff,
    }
}

/// The check's drift for a produced path whose content differs.
fn check_drift(
    out_dir: &Path,
    label: &str,
    rel: &str,
    content: &str,
    entry: Entry,
) -> Result<Drift, SyncError> {
    let limit = DIFF_READ_MAX.max(2 * content.len() as u64);
    let kind = if entry == Entry::Absent {
        DriftKind::Missing
    } else {
        DriftKind::Stale
    };
    let old = match entry {
        Entry::Absent => None,
        Entry::File(n) if n <= limit => {
            let bytes = read_capped(&out_dir.join(rel), n).map_err(io_at(rel))?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Entry::File(n) => {
            let what = format!("on disk: a regular file of {n} byte(s), not read (over {limit})");
            return Ok(described(label, rel, kind, &what));
        }
        other => {
            let what = format!(
                "on disk: {}, not read (gen never writes through it)",
                other.describe()
            );
            return Ok(described(label, rel, kind, &what));
        }
    };
    Ok(Drift {
        path: rel.to_owned(),
        kind,
        diff: capped_diff_in(label, rel, old.as_deref(), Some(content)),
    })
}

/// True when the regular file at `rel` holds `@generated` in its first
/// [`MARKER_WINDOW`] bytes.
fn marked(out_dir: &Path, rel: &str) -> Result<bool, SyncError> {
    let head = read_capped(&out_dir.join(rel), MARKER_WINDOW).map_err(io_at(rel))?;
    Ok(head
        .windows(b"@generated".len())
        .any(|w| w == b"@generated"))
}

/// Every entry under `out_dir` that is not `produced`, not the manifest and
/// no by-product, in path order. Descends only into real directories that
/// hold a produced or `listed` path; any other directory is one entry.
fn present(
    out_dir: &Path,
    produced: &BTreeSet<&str>,
    listed: &BTreeSet<String>,
) -> Result<Vec<(String, Entry)>, SyncError> {
    let mut parents = BTreeSet::new();
    for rel in produced
        .iter()
        .copied()
        .chain(listed.iter().map(String::as_str))
    {
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            parents.insert(&rel[..at + i]);
            at += i + 1;
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let path = if dir.is_empty() {
            out_dir.to_owned()
        } else {
            out_dir.join(&dir)
        };
        let entries = match fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if dir.is_empty() && e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_at(&dir)(e)),
        };
        for e in entries {
            let e = e.map_err(io_at(&dir))?;
            let name = entry_name(&e.file_name());
            let rel = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            if ignored(&rel) || rel == MANIFEST || produced.contains(rel.as_str()) {
                continue;
            }
            let t = e.file_type().map_err(io_at(&rel))?;
            if t.is_dir() && parents.contains(rel.as_str()) {
                stack.push(rel);
                continue;
            }
            let entry = if t.is_file() {
                Entry::File(e.metadata().map_err(io_at(&rel))?.len())
            } else if t.is_dir() {
                Entry::Dir
            } else {
                Entry::Other(type_name(t))
            };
            out.push((rel, entry));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A directory entry's name as text: itself when UTF-8, else its bytes
/// with every non-ASCII byte escaped (`\xff`). A name holding `\` is one no
/// manifest lists ([`plain_relative`]) and gen never produces, so an entry
/// whose name is not UTF-8 is foreign: shown, left, and never taken for a
/// listed file whose name its lossy form would spell.
fn entry_name(name: &std::ffi::OsStr) -> String {
    if let Some(s) = name.to_str() {
        return s.to_owned();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().escape_ascii().to_string()
    }
    #[cfg(not(unix))]
    {
        format!("\\{}", name.to_string_lossy())
    }
}

/// Creates the parents of `rel` below `out_dir`, following no link.
fn make_parents(out_dir: &Path, rel: &str) -> Result<PathBuf, SyncError> {
    let mut path = out_dir.to_owned();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts[..parts.len() - 1].iter().enumerate() {
        path.push(part);
        let at = parts[..=i].join("/");
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_dir() => {}
            Ok(m) => {
                return Err(SyncError::Refused(vec![format!(
                    "{at}: is {}, where gen needs a directory",
                    type_name(m.file_type())
                )]))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir(&path).map_err(io_at(&at))?
            }
            Err(e) => return Err(io_at(&at)(e)),
        }
    }
    Ok(path)
}

/// Writes `content` to `rel` below `out_dir` through a new temporary file
/// beside it, renamed into place: whatever was at `rel` (a link included)
/// is replaced, never written through.
fn write_file(out_dir: &Path, rel: &str, content: &str) -> Result<(), SyncError> {
    let parent = make_parents(out_dir, rel)?;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(content.as_bytes()))
        .and_then(|()| fs::rename(&tmp, parent.join(name)));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_at(rel)(e));
    }
    Ok(())
}

/// [`write_file`], unless `rel` is a regular file holding `content` already.
fn write_if_changed(out_dir: &Path, rel: &str, content: &str) -> Result<(), SyncError> {
    if let Ok(Entry::File(n)) = inspect(out_dir, rel).map_err(io_at(rel))? {
        if n == content.len() as u64
            && read_capped(&out_dir.join(rel), n).map_err(io_at(rel))? == content.as_bytes()
        {
            return Ok(());
        }
    }
    write_file(out_dir, rel, content)
}
