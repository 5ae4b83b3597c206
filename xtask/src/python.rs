//! The Python step of `cargo xtask test`.
//!
//! 1. `.tools/venv`: created with `python3 -m venv` when missing (set
//!    `PYTHON` to use another interpreter; 3.11 or newer);
//! 2. the pinned tools of `tests/python/requirements.txt` installed into it
//!    with pip, then those of `requirements-nodeps.txt` without their
//!    dependencies, only when the files changed since the last install (a
//!    copy of them is kept as `.tools/venv/requirements.installed`);
//! 3. the generated package's wheel built with maturin (its native module,
//!    `agent_sentences._native`, compiled in release mode into `target/`,
//!    cargo's progress shown), checked as a package index would take it, and
//!    installed into the venv;
//! 4. the static Python (`codegen/python/`) compiled with warnings as errors
//!    and type-checked with `mypy --strict` where it is written, in every run
//!    (quick ones too); `mypy --strict` on the installed package and on
//!    `tests/python/typed_usage.py` (code written as a user's) in full runs;
//! 5. `pytest` on `tests/python/`, against the installed package.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::steps::{run, step};

/// The virtual environment holding the pinned test tools (gitignored).
pub const VENV: &str = ".tools/venv";
/// The pinned test tools.
pub const REQUIREMENTS: &str = "tests/python/requirements.txt";
/// The pinned packages installed without their declared dependencies
/// (xgrammar's matcher without torch, P304).
pub const REQUIREMENTS_NODEPS: &str = "tests/python/requirements-nodeps.txt";
/// The copy of [`REQUIREMENTS`] as last installed.
const INSTALLED: &str = "requirements.installed";

fn venv_bin() -> PathBuf {
    Path::new(VENV).join(if cfg!(windows) { "Scripts" } else { "bin" })
}

/// `PATH` with the venv's scripts first, so pip finds the pinned `maturin`.
fn venv_path() -> std::ffi::OsString {
    let bin = std::fs::canonicalize(venv_bin()).unwrap_or_else(|_| venv_bin());
    let mut paths = vec![bin];
    paths.extend(
        std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default(),
    );
    std::env::join_paths(paths).unwrap_or_default()
}

/// Where the wheel of the generated package is built.
pub const WHEEL_DIR: &str = "target/wheels";

/// The target directory of the wheel's release build: its own, so that it
/// builds while `cargo test --no-run` builds in `target/` (cargo locks a
/// target directory for the whole of a build). pytest gets it too, so that
/// `pip wheel generated/python` in `tests/python/test_package.py` reuses the
/// build.
pub fn wheel_target_dir() -> PathBuf {
    std::env::current_dir()
        .unwrap_or_default()
        .join("target")
        .join("python")
}

/// Builds the generated package's wheel with maturin (cargo's progress
/// shown as it compiles, so the minutes of a release build on a loaded
/// machine are not silent), checks that a package index accepts it (a
/// manylinux tag, PEP 639 licence metadata, the harvest's console script),
/// and installs it into the venv; true when all of it held.
pub fn install_package(python: &Path) -> bool {
    let _ = std::fs::remove_dir_all(WHEEL_DIR);
    // Absolute: maturin runs in generated/python.
    let cwd = std::env::current_dir().unwrap_or_default();
    let out_dir = cwd.join(WHEEL_DIR);
    let maturin = cwd.join(venv_bin()).join("maturin");
    let built = run(
        "build the wheel of generated/python (maturin, release; cargo's progress follows)",
        Command::new(maturin)
            .current_dir("generated/python")
            .args(["build", "--release", "--out"])
            .arg(&out_dir)
            .env("PATH", venv_path())
            .env("CARGO_TARGET_DIR", wheel_target_dir()),
    );
    if !built {
        return false;
    }
    let wheel = match std::fs::read_dir(WHEEL_DIR).map(|d| {
        d.flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "whl"))
            .collect::<Vec<_>>()
    }) {
        Ok(w) if w.len() == 1 => w[0].clone(),
        other => {
            eprintln!("expected one wheel under {WHEEL_DIR}: {other:?}");
            return step("wheel a package index accepts", false);
        }
    };
    if !step(
        "wheel a package index accepts",
        wheel_problems(python, &wheel).is_empty(),
    ) {
        return false;
    }
    run(
        "install the wheel into .tools/venv",
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--quiet",
                "--no-deps",
                "--force-reinstall",
            ])
            .arg(&wheel)
            .env("PATH", venv_path()),
    )
}

/// What keeps a package index from accepting `wheel`, each problem printed:
/// a platform tag other than manylinux/musllinux on Linux (the bare
/// `linux_*` tag is refused), no PEP 639 `License-Expression: MIT`, no
/// `agent-sentences-harvest` console script.
fn wheel_problems(python: &Path, wheel: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let name = wheel.file_name().unwrap_or_default().to_string_lossy();
    let platform = name
        .trim_end_matches(".whl")
        .rsplit('-')
        .next()
        .unwrap_or("");
    if cfg!(target_os = "linux")
        && !(platform.contains("manylinux") || platform.contains("musllinux"))
    {
        problems.push(format!(
            "{name}: platform tag `{platform}` is not manylinux: a package index refuses it"
        ));
    }
    // The wheel's METADATA and entry_points.txt, read with Python's zipfile.
    let read = |suffix: &str| -> String {
        Command::new(python)
            .args([
                "-c",
                "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(''.join(z.read(n).decode() for n in z.namelist() if n.endswith(sys.argv[2])))",
            ])
            .arg(wheel)
            .arg(suffix)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let metadata = read(".dist-info/METADATA");
    if !metadata
        .lines()
        .any(|l| l.trim() == "License-Expression: MIT")
    {
        problems.push(format!(
            "{name}: METADATA has no PEP 639 `License-Expression: MIT`"
        ));
    }
    let entry_points = read(".dist-info/entry_points.txt");
    if !entry_points
        .lines()
        .any(|l| l.replace(' ', "") == "agent-sentences-harvest=agent_sentences.harvest:main")
    {
        problems.push(format!(
            "{name}: no `agent-sentences-harvest` console script"
        ));
    }
    for p in &problems {
        eprintln!("{p}");
    }
    problems
}

fn venv_python() -> PathBuf {
    if cfg!(windows) {
        Path::new(VENV).join("Scripts").join("python.exe")
    } else {
        Path::new(VENV).join("bin").join("python")
    }
}

/// Creates the venv and installs the pinned tools when needed; the venv's
/// interpreter, or `None` after printing why not.
pub fn ensure_tools() -> Option<PathBuf> {
    let python = venv_python();
    if !python.exists() {
        let base = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
        if !run(
            "create .tools/venv",
            Command::new(&base).args(["-m", "venv", VENV]),
        ) {
            eprintln!("a Python 3.11+ interpreter with the venv module is needed (set PYTHON to pick one)");
            return None;
        }
    }
    let version_ok = Command::new(&python)
        .args([
            "-c",
            "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !step("Python 3.11 or newer in .tools/venv", version_ok) {
        eprintln!("remove .tools/venv and set PYTHON to a Python 3.11+ interpreter");
        return None;
    }
    let wanted = match (
        std::fs::read_to_string(REQUIREMENTS),
        std::fs::read_to_string(REQUIREMENTS_NODEPS),
    ) {
        (Ok(text), Ok(nodeps)) => text + &nodeps,
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("cannot read {REQUIREMENTS} or {REQUIREMENTS_NODEPS}: {e}");
            return None;
        }
    };
    let stamp = Path::new(VENV).join(INSTALLED);
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        eprintln!("== pinned Python tools: already installed ({REQUIREMENTS} unchanged)");
        return Some(python);
    }
    let pip_install = |step: &str, args: &[&str]| {
        run(
            step,
            Command::new(&python)
                .args(["-m", "pip", "install", "--disable-pip-version-check"])
                .args(["--progress-bar", "off"])
                .args(args),
        )
    };
    if !pip_install("install pinned Python tools", &["-r", REQUIREMENTS]) {
        return None;
    }
    let installed = pip_install(
        "install pinned Python tools without their dependencies",
        &["--no-deps", "-r", REQUIREMENTS_NODEPS],
    );
    if !installed {
        return None;
    }
    if let Err(e) = std::fs::write(&stamp, wanted) {
        eprintln!("warning: cannot write {}: {e}", stamp.display());
    }
    Some(python)
}

/// The pinned tools and the generated package built and installed into the
/// venv: its interpreter, or `None` after printing why not.
pub fn prepare() -> Option<PathBuf> {
    let python = ensure_tools()?;
    install_package(&python).then_some(python)
}

/// The Python the generator copies as it is (`codegen/src/emit/python/static_py.rs`):
/// a folder named as the package, so its relative imports resolve.
pub const STATIC_PYTHON: &str = "codegen/python";

/// The static Python modules checked where they are written, before any
/// package is built (cheap: a few seconds): each compiled with warnings as
/// errors (an invalid escape sequence fails), then `mypy --strict` on them,
/// their siblings (`_native.pyi`, `scanner.py`, …) read from
/// `generated/python`. Diagnostics name `codegen/python/…` lines.
pub fn check_static_python(python: &Path) -> (String, bool) {
    let name = "lint and mypy --strict on the static Python at its source (codegen/python)";
    let dir = Path::new(STATIC_PYTHON).join("agent_sentences");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
                .map(|e| format!("agent_sentences/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.is_empty() {
        eprintln!("no static Python module under {}", dir.display());
        return (name.to_owned(), step(name, false));
    }
    let python = std::env::current_dir()
        .map(|d| d.join(python))
        .unwrap_or_else(|_| python.to_owned());
    let compiled = run(
        "compile the static Python, warnings as errors",
        Command::new(&python)
            .args(["-W", "error", "-c"])
            .arg("import pathlib, sys\nfor f in sys.argv[1:]:\n    compile(pathlib.Path(f).read_text(encoding='utf-8'), f, 'exec')")
            .args(&files)
            .current_dir(STATIC_PYTHON),
    );
    let typed = run(
        "mypy --strict on codegen/python",
        Command::new(&python)
            .args(["-m", "mypy", "--strict", "--explicit-package-bases"])
            .args(["--cache-dir", "../../.tools/mypy_cache"])
            .args(&files)
            .env("MYPYPATH", "../../generated/python")
            .current_dir(STATIC_PYTHON),
    );
    (name.to_owned(), step(name, compiled && typed))
}

/// Runs mypy --strict on the installed package and on user-style code when
/// `mypy` is true; the outcome of each step that ran, by name.
pub fn run_mypy(python: &Path, mypy: bool) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    if !mypy {
        return out;
    }
    // From tests/python, so that the package mypy reads is the installed
    // one (the venv's interpreter by its absolute path, not resolved: it is
    // a link).
    let python = std::env::current_dir()
        .map(|d| d.join(python))
        .unwrap_or_else(|_| python.to_owned());
    let mypy = |what: &[&str]| {
        let mut cmd = Command::new(&python);
        cmd.args([
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            "../../.tools/mypy_cache",
        ])
        .args(what)
        .current_dir("tests/python");
        cmd
    };
    let name = "mypy --strict on the installed package";
    out.push((
        name.to_owned(),
        run(name, &mut mypy(&["-p", "agent_sentences"])),
    ));
    let name = "mypy --strict on user code (tests/python/typed_usage.py)";
    out.push((name.to_owned(), run(name, &mut mypy(&["typed_usage.py"]))));
    out
}

/// Where a running pytest writes its output: printed whole when it ends.
const PYTEST_LOG: &str = "target/xtask/pytest.log";

/// pytest on `tests/python/`, started by [`start_pytest`] and running beside
/// the other steps.
pub struct Pytest {
    child: std::process::Child,
    command: String,
    filtered: bool,
    started: std::time::Instant,
}

/// Starts pytest on `tests/python/` (only the tests matching `filter`, if
/// any, and with `env` set) against the installed package, its output into
/// [`PYTEST_LOG`]; `None`, after saying why, when it cannot start.
pub fn start_pytest(python: &Path, filter: Option<&str>, env: &[(&str, &str)]) -> Option<Pytest> {
    let mut pytest = Command::new(python);
    pytest
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/python",
        ])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("CARGO_TARGET_DIR", wheel_target_dir());
    if let Some(f) = filter {
        pytest.args(["-k", f]);
    }
    pytest.envs(env.iter().copied());
    let command = format!("{pytest:?}");
    eprintln!(
        "== pytest, started beside the Rust tests (its output follows when it ends): {command}"
    );
    let log =
        std::fs::create_dir_all("target/xtask").and_then(|()| std::fs::File::create(PYTEST_LOG));
    let spawned = log.and_then(|log| {
        let err = log.try_clone()?;
        pytest
            .stdin(std::process::Stdio::null())
            .stdout(log)
            .stderr(err)
            .spawn()
    });
    match spawned {
        Ok(child) => Some(Pytest {
            child,
            command,
            filtered: filter.is_some(),
            started: std::time::Instant::now(),
        }),
        Err(e) => {
            eprintln!("cannot run pytest: {e}");
            step("pytest", false);
            None
        }
    }
}

impl Pytest {
    /// Waits for pytest, prints its output, and reports the step: passed on
    /// exit 0, or on exit 5 (no test selected) when a filter was given.
    pub fn finish(mut self) -> bool {
        eprintln!("== pytest: waiting for {}", self.command);
        let code = match self.child.wait() {
            Ok(s) => s.code(),
            Err(e) => {
                eprintln!("cannot wait for pytest: {e}");
                Some(1)
            }
        };
        match std::fs::read(PYTEST_LOG) {
            Ok(out) => {
                use std::io::Write;
                let _ = std::io::stderr().lock().write_all(&out);
            }
            Err(e) => eprintln!("cannot read {PYTEST_LOG}: {e}"),
        }
        let ok = code == Some(0) || (self.filtered && code == Some(5));
        eprintln!(
            "== pytest: ended {:.0} s after it started",
            self.started.elapsed().as_secs_f64()
        );
        step("pytest", ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a wheel-shaped zip with these METADATA and entry points.
    fn wheel(dir: &Path, name: &str, metadata: &str, entry_points: &str) -> PathBuf {
        let path = dir.join(name);
        let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('agent_sentences-1.0.0.dist-info/METADATA', sys.argv[2])\n    z.writestr('agent_sentences-1.0.0.dist-info/entry_points.txt', sys.argv[3])\n";
        let ok = Command::new("python3")
            .args(["-c", script])
            .arg(&path)
            .args([metadata, entry_points])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "python3 writes the zip");
        path
    }

    #[test]
    fn a_wheel_an_index_refuses_is_named_with_every_reason() {
        let tmp = std::env::temp_dir().join(format!("xtask-wheel-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let python = Path::new("python3");
        let good = wheel(
            &tmp,
            "agent_sentences-1.0.0-cp311-abi3-manylinux_2_34_x86_64.whl",
            "Metadata-Version: 2.4\nLicense-Expression: MIT\n",
            "[console_scripts]\nagent-sentences-harvest=agent_sentences.harvest:main\n",
        );
        assert_eq!(wheel_problems(python, &good), Vec::<String>::new());
        let bad = wheel(
            &tmp,
            "agent_sentences-1.0.0-cp311-abi3-linux_x86_64.whl",
            "Metadata-Version: 2.1\nLicense: MIT\n",
            "",
        );
        let problems = wheel_problems(python, &bad);
        let _ = std::fs::remove_dir_all(&tmp);
        assert_eq!(
            problems.len(),
            if cfg!(target_os = "linux") { 3 } else { 2 },
            "{problems:?}"
        );
        assert!(problems.iter().any(|p| p.contains("License-Expression")));
        assert!(problems
            .iter()
            .any(|p| p.contains("agent-sentences-harvest")));
    }
}
