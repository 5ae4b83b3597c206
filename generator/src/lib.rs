//! The command line of the agent-sentences generator, shared by the
//! standalone binary `agent-sentences-gen` and this repository's
//! `cargo xtask gen|check`.
//!
//! Both take the same arguments ([`GenArgs`], [`CheckArgs`]); a [`Context`]
//! says how relative paths resolve and how paths are shown:
//!
//! - [`Context::standalone`]: paths are relative to the current directory,
//!   the generated crate reaches a copy of the runtime written beside it
//!   (`<out>/runtime`, [`Runtime::Vendored`]) unless `--runtime-version` or
//!   `--runtime-path` is given, and the headers name the command line; with
//!   this repository's own spec and output directory it writes what
//!   `cargo xtask gen` writes ([`repository_of`], P210);
//! - [`Context::repository`]: the defaults (`schema`, `generated`) are this
//!   repository's, paths given on the command line are relative to the
//!   directory the command was run from, paths are shown relative to the
//!   repository root, and the generated crate reaches the repository's
//!   runtime by a relative path.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::path::{Component, Path, PathBuf};

use agent_sentences_codegen::compat::{self, Comparison};
use agent_sentences_codegen::{
    generate_with, lint_and_generate_with, Diagnostic, Drift, DriftKind, Mode, Options, Provenance,
    Python, Report, Runtime, Severity, SyncError,
};
use clap::builder::TypedValueParser as _;
use clap::{Args, ValueEnum};

// Output to a closed pipe (`agent-sentences-gen check | head -1`, a reader
// that went away) is not an error and never a panic, as `println!` makes it:
// what cannot be written is dropped and the command goes on to its exit
// status (P217).

/// `print!` to standard output, a write error ignored.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// `println!` to standard output, a write error ignored.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `eprint!` to standard error, a write error ignored.
macro_rules! err {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

/// `eprintln!` to standard error, a write error ignored.
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// How findings are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for a terminal, on standard error.
    Human,
    /// One JSON object on standard output.
    Json,
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`) on
    /// standard output, with each diff in a collapsed group.
    Github,
}

/// Arguments of `gen`.
#[derive(Debug, Clone, Args)]
pub struct GenArgs {
    /// The spec directory [default: schema].
    #[arg(long, value_parser = clap::builder::OsStringValueParser::new().try_map(path_for_output))]
    pub spec: Option<PathBuf>,
    /// The output directory [default: generated].
    #[arg(long, value_parser = clap::builder::OsStringValueParser::new().try_map(path_for_output))]
    pub out: Option<PathBuf>,
    /// The runtime crate's directory, relative to `<out>/rust` (or
    /// absolute), written into the generated Cargo.toml beside the runtime's
    /// version. Default: in this repository, its `runtime/`; standalone, a
    /// copy of the runtime written under `<out>/runtime` (no registry needed).
    #[arg(long, value_name = "PATH", conflicts_with = "runtime_version", value_parser = runtime_path)]
    pub runtime_path: Option<String>,
    /// gen: write into an output directory that holds files but no manifest
    /// (`.agent-sentences-manifest`, which gen writes), and over files or
    /// links that an earlier gen did not write. Even forced, gen removes
    /// only files an earlier gen wrote, and writes through no symbolic link.
    /// check ignores it.
    #[arg(long)]
    pub force: bool,
    /// Name the runtime by this version requirement only (e.g. `0.1`), for a
    /// crate that takes `agent-sentences-runtime` from a registry; no copy is
    /// written.
    #[arg(long, value_name = "VERSION", value_parser = version_requirement)]
    pub runtime_version: Option<String>,
}

/// Why a path given on the command line cannot be written into the
/// generated files (every header names the command line, the manifests name
/// the runtime's path): it holds a control, format or separator character
/// (a bidirectional control, DEL, a line break), which a Rust comment, a
/// TOML string or a terminal showing the header would not carry as it is
/// (P285). Refused before anything is read or written.
fn refuse_unsafe(s: &str) -> Result<(), String> {
    match s
        .chars()
        .find(|&c| agent_sentences_codegen::options::unsafe_in_output(c))
    {
        Some(c) => Err(format!(
            "the path holds U+{:04X}, a control or invisible character that the generated files' \
             headers and manifests cannot name; choose a path without it (nothing was written)",
            c as u32
        )),
        None => Ok(()),
    }
}

/// A `--spec` or `--out` path, refused when [`refuse_unsafe`] says so (a
/// path that is not UTF-8 passes: it is shown with `U+FFFD`).
fn path_for_output(s: std::ffi::OsString) -> Result<PathBuf, String> {
    refuse_unsafe(&s.to_string_lossy())?;
    Ok(PathBuf::from(s))
}

/// A `--runtime-path`, refused when [`refuse_unsafe`] says so.
fn runtime_path(s: &str) -> Result<String, String> {
    refuse_unsafe(s)?;
    Ok(s.to_owned())
}

/// Accepts a cargo version requirement's characters (`0.1`, `^0.1.2`,
/// `>=0.1, <0.3`); cargo itself judges the rest.
fn version_requirement(s: &str) -> Result<String, String> {
    let ok = s.chars().any(|c| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " .,*^~=<>-+".contains(c));
    if ok {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "`{s}` is not a version requirement (e.g. `{}` or `0.1`)",
            agent_sentences_codegen::RUNTIME_VERSION
        ))
    }
}

/// Arguments of `check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The spec directory, the output directory and the runtime path, as for `gen`.
    #[command(flatten)]
    pub paths: GenArgs,
    /// Output format of the findings.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Fail on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// The Python interpreter the patterns are also checked with; `off`
    /// skips that check.
    #[arg(long, default_value = "python3")]
    pub python: String,
    /// Also compare the spec with an earlier one: a directory holding the
    /// earlier spec files, or a git revision (`main`, `HEAD`, `HEAD~1`, a tag)
    /// whose copy of the spec directory is read with `git show`. Breaking
    /// changes without a major version bump fail the check; additive ones
    /// without a minor bump warn.
    #[arg(long, value_name = "GIT_REF|DIR")]
    pub against: Option<String>,
}

/// How a command resolves and shows paths, and what it is called.
#[derive(Debug, Clone)]
pub struct Context {
    /// The command as a user types it, for the fix hints (`cargo xtask`).
    pub command: String,
    /// Where relative paths given on the command line resolve: the
    /// directory the command was run from.
    pub base: PathBuf,
    /// The repository root, when the command is the repository's: defaults
    /// resolve against it, the process runs there and paths are shown
    /// relative to it.
    pub root: Option<PathBuf>,
}

impl Context {
    /// The standalone binary's context: everything relative to the current directory.
    pub fn standalone(command: &str) -> Self {
        Context {
            command: command.to_owned(),
            base: current_dir(),
            root: None,
        }
    }

    /// The repository command's context. `base` is the directory the user ran
    /// it from; the caller is expected to have entered `root` already (the
    /// library is handed paths relative to it).
    pub fn repository(command: &str, base: PathBuf, root: PathBuf) -> Self {
        Context {
            command: command.to_owned(),
            base,
            root: Some(root),
        }
    }

    /// The directory the process works in: the root, else the base.
    fn cwd(&self) -> &Path {
        self.root.as_deref().unwrap_or(&self.base)
    }

    /// A path given on the command line, or the default, made absolute.
    fn resolve(&self, given: Option<&Path>, default: &str) -> PathBuf {
        match given {
            Some(p) => normalize(&self.base.join(p)),
            None => normalize(&self.cwd().join(default)),
        }
    }

    /// How a resolved path is shown and handed to the library: relative to
    /// the working directory when inside it, else absolute.
    pub fn show(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(self.cwd()) {
            Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
            Ok(rel) => rel.to_owned(),
            Err(_) => path.to_owned(),
        }
    }

    /// The output options: the runtime as the arguments name it, else the
    /// repository's `runtime/` seen from `<out>/rust` (in this repository,
    /// or when `spec` and `out` are its own: [`repository_of`]), else a
    /// vendored copy; the headers name this command line, or `cargo xtask
    /// gen` for this repository's command (whatever its `--out`) and for the
    /// repository's own spec and output.
    fn options(&self, args: &GenArgs, spec: &Path, out: &Path) -> Options {
        let detected = repository_of(spec, out);
        let root = self.root.as_ref().or(detected.as_ref());
        let runtime = match (&args.runtime_path, &args.runtime_version, root) {
            (Some(p), _, _) => Runtime::Path(p.clone()),
            (None, Some(v), _) => Runtime::Version(v.clone()),
            (None, None, Some(root)) => {
                Runtime::Path(relative_path(&out.join("rust"), &root.join("runtime")))
            }
            (None, None, None) => Runtime::Vendored,
        };
        let provenance = if root.is_some() {
            Provenance::default()
        } else {
            let spec_shown = args
                .spec
                .as_ref()
                .map_or_else(|| "schema".to_owned(), |s| shown(s));
            // `--force` changes what gen may replace, not what it writes.
            let unforced = GenArgs {
                force: false,
                ..args.clone()
            };
            Provenance::new(&self.fix_command(&unforced), &spec_shown)
        };
        Options {
            runtime,
            provenance,
        }
    }

    /// The exact command that rewrites `out` from `spec`, with the
    /// arguments as the user wrote them.
    pub fn fix_command(&self, args: &GenArgs) -> String {
        let mut cmd = format!("{} gen", self.command);
        if let Some(spec) = &args.spec {
            cmd.push_str(&format!(" --spec {}", shell_word(&spec.to_string_lossy())));
        }
        if let Some(out) = &args.out {
            cmd.push_str(&format!(" --out {}", shell_word(&out.to_string_lossy())));
        }
        if let Some(rt) = &args.runtime_path {
            cmd.push_str(&format!(" --runtime-path {}", shell_word(rt)));
        }
        if args.force {
            cmd.push_str(" --force");
        }
        if let Some(v) = &args.runtime_version {
            cmd.push_str(&format!(" --runtime-version {}", shell_word(v)));
        }
        cmd
    }
}

/// The root of this repository (the generator's own) when `spec` and `out`
/// are its `schema/` and `generated/` (both absolute and normalized): a
/// directory whose `Cargo.toml` is a workspace with the member
/// `generated/rust`, and whose `runtime/Cargo.toml` is the runtime's. The
/// standalone generator then writes what `cargo xtask gen` writes (P211):
/// the runtime by the repository's path, the headers naming `cargo xtask
/// gen`, so the guide's command and the repository's agree.
pub fn repository_of(spec: &Path, out: &Path) -> Option<PathBuf> {
    let root = out.parent()?;
    if out.file_name()? != "generated" || spec != root.join("schema") {
        return None;
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let runtime = std::fs::read_to_string(root.join("runtime/Cargo.toml")).ok()?;
    let ours = manifest.contains("[workspace]")
        && manifest.contains("\"generated/rust\"")
        && runtime.contains("name = \"agent-sentences-runtime\"");
    ours.then(|| root.to_owned())
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// `path` with `.` and `..` components resolved lexically (no file system
/// access: the output directory may not exist yet).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `to` relative to the directory `from` (both absolute and normalized),
/// `/`-separated; `to` itself when they share no more than the file system
/// root.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return to.to_string_lossy().replace('\\', "/");
    }
    let ups = std::iter::repeat_n("..".to_owned(), f.len() - common);
    let downs = t[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let parts: Vec<String> = ups.chain(downs).collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A path as shown in messages, `/`-separated.
fn shown(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// Checks that the spec directory exists, saying which path was tried.
fn spec_dir_exists(ctx: &Context, given: &Option<PathBuf>, resolved: &Path) -> bool {
    if resolved.is_dir() {
        return true;
    }
    let what = match given {
        Some(p) => format!("`{}`", p.display()),
        None => "the default `schema`".to_owned(),
    };
    errln!(
        "error: no spec directory at {} (tried {}): pass --spec DIR, relative to {}",
        shown(resolved),
        what,
        shown(&ctx.base)
    );
    false
}

/// `gen`: check the spec and write every output; true on success.
///
/// Prints the warnings, then one line per file written, removed or left
/// (an entry no earlier gen wrote), then `N written, N removed (orphans),
/// N unchanged` (and `, N left (not written by gen)` when there are any).
/// When the output directory is refused (see
/// [`agent_sentences_codegen::files::sync_with`]), prints every reason and
/// writes nothing.
pub fn run_gen(ctx: &Context, args: &GenArgs) -> bool {
    let spec = ctx.resolve(args.spec.as_deref(), "schema");
    let out = ctx.resolve(args.out.as_deref(), "generated");
    if !spec_dir_exists(ctx, &args.spec, &spec) {
        return false;
    }
    let (spec_s, out_s) = (ctx.show(&spec), ctx.show(&out));
    let generated = match generate_with(&spec_s, &ctx.options(args, &spec, &out)) {
        Ok(g) => g,
        Err(report) => {
            print_report(&report);
            errln!(
                "nothing was written: fix the errors above and run `{}` again",
                ctx.fix_command(args)
            );
            return false;
        }
    };
    // New findings one by one; the acknowledged ones as one line (P93).
    for w in generated.warnings.new_findings() {
        errln!("{w}");
    }
    if let Some(line) = generated.warnings.known_line() {
        errln!("{line}");
    }
    let label = shown(&out_s);
    match generated.sync_with(&out_s, &label, Mode::Write, args.force) {
        Ok(changes) => {
            let (mut written, mut removed, mut left) = (0, 0, 0);
            for c in &changes {
                match c.kind {
                    DriftKind::Stale => errln!("wrote {label}/{} (changed)", c.path),
                    DriftKind::Missing => errln!("wrote {label}/{} (new)", c.path),
                    DriftKind::Orphan => errln!(
                        "removed {label}/{} (orphan: the spec no longer produces it)",
                        c.path
                    ),
                    DriftKind::Foreign => errln!(
                        "left {label}/{} (not written by gen: {})",
                        c.path,
                        c.diff
                            .lines()
                            .last()
                            .unwrap_or_default()
                            .trim_start_matches("on disk: ")
                            .trim_end_matches(", not read")
                    ),
                }
                match c.kind {
                    DriftKind::Orphan => removed += 1,
                    DriftKind::Foreign => left += 1,
                    _ => written += 1,
                }
            }
            let unchanged = generated.files.len() - written;
            let left = if left > 0 {
                format!(", {left} left (not written by gen)")
            } else {
                String::new()
            };
            errln!("{written} written, {removed} removed (orphans), {unchanged} unchanged{left}, under {label}");
            true
        }
        Err(e @ SyncError::Refused(_)) => {
            errln!("error: gen refuses {label}: {e}");
            if !args.force {
                let mut forced = args.clone();
                forced.force = true;
                errln!(
                    "hint: point --out at an empty or new directory, or run `{}` to write there anyway",
                    ctx.fix_command(&forced)
                );
            }
            false
        }
        Err(e) => {
            errln!("error: writing {label}: {e}");
            false
        }
    }
}

fn print_report(report: &Report) {
    if !report.diagnostics.is_empty() {
        errln!("{report}");
    }
}

fn drift_kind(kind: DriftKind) -> &'static str {
    match kind {
        DriftKind::Stale => "stale",
        DriftKind::Missing => "missing",
        DriftKind::Orphan => "orphan",
        DriftKind::Foreign => "foreign",
    }
}

/// Escapes the message of a GitHub workflow command.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a GitHub workflow command.
fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One GitHub workflow annotation (`error`, `warning` or `notice`).
pub fn github_annotation(
    level: &str,
    file: &str,
    line: Option<(usize, usize)>,
    title: &str,
    message: &str,
) -> String {
    let mut props = format!("file={}", gh_prop(file));
    if let Some((l, c)) = line {
        props.push_str(&format!(",line={l},col={c}"));
    }
    props.push_str(&format!(",title={}", gh_prop(title)));
    format!("::{level} {props}::{}", gh_data(message))
}

fn diagnostic_annotation(d: &Diagnostic) -> String {
    let level = if d.severity == Severity::Error {
        "error"
    } else {
        "warning"
    };
    let mut msg = format!(
        "{} ({})",
        d.message,
        if d.pointer.is_empty() {
            "(root)"
        } else {
            &d.pointer
        }
    );
    if let Some(h) = &d.hint {
        msg.push_str(&format!("\nhint: {h}"));
    }
    github_annotation(level, &d.file, Some((d.line, d.column)), d.code, &msg)
}

/// The spec given by `--against`: a directory as is, else a git revision
/// whose copy of `spec` is written to a temporary directory.
fn earlier_spec(
    against: &str,
    ctx: &Context,
    spec: &Path,
) -> Result<(PathBuf, String, Option<tempfile::TempDir>), String> {
    let as_dir = normalize(&ctx.base.join(against));
    if as_dir.is_dir() {
        let shown_dir = ctx.show(&as_dir);
        return Ok((shown_dir.clone(), shown(&shown_dir), None));
    }
    let tmp =
        tempfile::tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    for name in compat::SPEC_FILES {
        let o = std::process::Command::new("git")
            .arg("-C")
            .arg(spec)
            .arg("show")
            .arg(format!("{against}:./{name}"))
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "`{against}` is neither a directory (tried {}) nor a git revision holding {}/{name}: git says: {}",
                shown(&as_dir),
                shown(&ctx.show(spec)),
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        std::fs::write(tmp.path().join(name), &o.stdout)
            .map_err(|e| format!("cannot write {name}: {e}"))?;
    }
    Ok((
        tmp.path().to_owned(),
        format!("{against}:{}", shown(&ctx.show(spec))),
        Some(tmp),
    ))
}

/// `check`: the lint, the drift check and, with `--against`, the
/// comparison with an earlier spec; true when all pass. Writes nothing.
///
/// JSON: one object `{"ok", "errors", "warnings", "diagnostics": [..],
/// "drift": null | [{"path", "file", "kind", "diff"}], "fix": null | "…", "compat":
/// null | {..}}` ([`Comparison`] serialized); `drift` is null when the
/// spec has errors.
pub fn run_check(ctx: &Context, args: &CheckArgs) -> bool {
    let p = &args.paths;
    let spec = ctx.resolve(p.spec.as_deref(), "schema");
    let out = ctx.resolve(p.out.as_deref(), "generated");
    if !spec_dir_exists(ctx, &p.spec, &spec) {
        return false;
    }
    let python = if args.python == "off" {
        Python::Off
    } else {
        Python::Command(args.python.clone().into())
    };
    let (spec_s, out_s) = (ctx.show(&spec), ctx.show(&out));
    let label = shown(&out_s);
    let (report, generated) =
        lint_and_generate_with(&spec_s, &python, &ctx.options(p, &spec, &out));
    // --deny-warnings: no finding that `/known_findings` does not acknowledge (P93).
    let mut ok = !(report.has_errors() || (args.deny_warnings && report.has_new_warnings()));
    let drift: Option<Vec<Drift>> = match &generated {
        None => None,
        Some(g) => match g.sync_in(&out_s, &label, Mode::Check) {
            Ok(d) => Some(d),
            Err(e) => {
                errln!("error: reading {label}: {e}");
                return false;
            }
        },
    };
    if drift.as_ref().is_some_and(|d| !d.is_empty()) {
        ok = false;
    }
    let comparison: Option<Comparison> = match &args.against {
        None => None,
        Some(against) => {
            let compared = earlier_spec(against, ctx, &spec).and_then(|(old, label, _tmp)| {
                compat::compare_labeled(&old, &label, &spec_s)
                    .map_err(|r| format!("cannot compare the specs:\n{r}"))
            });
            match compared {
                Ok(c) => Some(c),
                Err(e) => {
                    errln!("error: --against {against}: {e}");
                    return false;
                }
            }
        }
    };
    if let Some(c) = &comparison {
        if c.has_errors() || (args.deny_warnings && c.has_warnings()) {
            ok = false;
        }
    }
    let fix = ctx.fix_command(p);
    match args.format {
        Format::Json => {
            let json = serde_json::json!({
                "ok": ok,
                "errors": report.count(Severity::Error),
                "warnings": report.count(Severity::Warning),
                "diagnostics": report,
                "drift": drift.as_ref().map(|d| d.iter().map(|x| serde_json::json!({
                    "path": x.path,
                    "file": format!("{label}/{}", x.path),
                    "kind": drift_kind(x.kind),
                    "diff": x.diff,
                })).collect::<Vec<_>>()),
                "fix": drift.as_ref().filter(|d| !d.is_empty()).map(|_| fix.clone()),
                "compat": comparison,
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&json).expect("serializes")
            );
        }
        Format::Github => {
            for d in &report.diagnostics {
                outln!("{}", diagnostic_annotation(d));
            }
            for x in drift.iter().flatten() {
                let file = format!("{label}/{}", x.path);
                outln!(
                    "{}",
                    github_annotation(
                        "error",
                        &file,
                        None,
                        "generated file out of date",
                        &format!(
                            "{file} {}: run `{fix}` and commit the result",
                            x.kind.describe()
                        )
                    )
                );
                outln!("::group::diff of {file} (- on disk, + generated from the spec)");
                out!("{}", x.diff);
                outln!("::endgroup::");
            }
            if let Some(c) = &comparison {
                for line in c.github_annotations() {
                    outln!("{line}");
                }
            }
            errln!("{}", if ok { "check passed" } else { "check FAILED" });
        }
        Format::Human => {
            print_report(&report);
            match (&drift, &generated) {
                (None, _) => errln!("drift check skipped: the spec has errors, so there is nothing to compare {label} with"),
                (Some(d), Some(g)) if d.is_empty() => errln!("{label} is up to date ({} files)", g.files.len()),
                (Some(d), _) => {
                    for x in d {
                        errln!("{label}/{} {}", x.path, x.kind.describe());
                        err!("{}", x.diff);
                    }
                    errln!("{} file(s) under {label} differ from what {} produces: run `{fix}` and commit the result", d.len(), shown(&spec_s));
                }
            }
            if let Some(c) = &comparison {
                err!("{c}");
            }
        }
    }
    ok
}
