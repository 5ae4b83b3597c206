//! The Python side of the dialect check: every pattern is compiled with
//! Python's `re` and its `matches` and `non_matches` are run through it, and
//! each result is compared with what the Rust `regex` crate does with the same
//! text.
//!
//! [`crate::pattern::analyze`] rejects the constructs the two engines are
//! known to read differently; this module asks the other engine itself, so a
//! construct nobody thought of is caught too. It runs one interpreter process
//! (`python3 -I -B -c <script>`), feeds it the patterns as JSON on standard
//! input and reads JSON back. It writes no file. When the interpreter cannot
//! be run, the lint says so in one warning instead of failing.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;
use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Severity, WithHint};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::pattern;

/// Which Python interpreter the lint compares the patterns with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Python {
    /// Run this interpreter (a name looked up on `PATH`, or a path). When it
    /// cannot be run, the lint reports one `python-not-checked` warning.
    Command(OsString),
    /// Do not run Python at all, and say nothing about it (for callers that
    /// check the Python side elsewhere, and for tests of the other checks).
    Off,
}

impl Default for Python {
    /// `python3` from `PATH`.
    fn default() -> Self {
        Python::Command("python3".into())
    }
}

/// How long the interpreter may take for all patterns together before the
/// lint gives up on it (a backtracking blow-up on an example would hang it).
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The script the interpreter runs: reads `{"patterns": [{"pattern", "flags",
/// "texts"}]}` from standard input and writes, per pattern, either
/// `{"error", "pos"}` or `{"groups", "results"}`, where each result is `null`
/// (no full match) or the participating groups' captures.
const SCRIPT: &str = r#"
import json, re, sys, warnings
warnings.simplefilter("ignore")
FLAGS = {"MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}
out = []
for p in json.load(sys.stdin)["patterns"]:
    flags = 0
    for f in p["flags"]:
        flags |= FLAGS[f]
    try:
        rx = re.compile(p["pattern"], flags)
    except re.error as e:
        out.append({"error": e.msg, "pos": e.pos})
        continue
    results = []
    for t in p["texts"]:
        m = rx.fullmatch(t)
        results.append(None if m is None else {k: v for k, v in m.groupdict().items() if v is not None})
    out.append({"groups": list(rx.groupindex), "results": results})
json.dump({"version": "%d.%d.%d" % sys.version_info[:3], "patterns": out}, sys.stdout)
"#;

#[derive(Debug, Deserialize)]
struct PyOutput {
    version: String,
    patterns: Vec<PyPattern>,
}

/// What Python made of one pattern.
#[derive(Debug, Deserialize)]
struct PyPattern {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    pos: Option<usize>,
    #[serde(default)]
    groups: Vec<String>,
    #[serde(default)]
    results: Vec<Option<BTreeMap<String, String>>>,
}

/// One text run through both engines: where it is in the spec and what it is.
struct Text<'a> {
    pointer: String,
    text: &'a str,
}

fn texts<'a>(key: &str, p: &'a crate::model::Pattern) -> Vec<Text<'a>> {
    let base = child("/patterns", key);
    let matches = p.matches.iter().enumerate().map(|(i, m)| Text {
        pointer: format!("{base}/matches/{i}/text"),
        text: &m.text,
    });
    let non = p.non_matches.iter().enumerate().map(|(i, t)| Text {
        pointer: format!("{base}/non_matches/{i}"),
        text: t,
    });
    matches.chain(non).collect()
}

/// Runs the interpreter on `input`; its standard output, or why it failed.
fn run(python: &OsString, input: &str) -> Result<String, String> {
    let mut child = Command::new(python)
        .args(["-I", "-B", "-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", python.to_string_lossy()))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let mut stderr = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`{}` did not finish within {} s (does an example make a pattern backtrack without end?)", python.to_string_lossy(), TIMEOUT.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let _ = writer.join();
    let out = reader
        .join()
        .map_err(|_| "reading the interpreter's output panicked".to_owned())?
        .map_err(|e| e.to_string())?;
    let err = err_reader.join().unwrap_or_default();
    if !status.success() {
        let last = err.lines().last().unwrap_or("no message");
        return Err(format!(
            "`{}` failed ({status}): {last}",
            python.to_string_lossy()
        ));
    }
    Ok(out)
}

/// Rust's reading of `text`: `None` when the full-match regex does not match,
/// else the participating groups' captures.
fn rust_captures(re: &Regex, text: &str) -> Option<BTreeMap<String, String>> {
    let caps = re.captures(text)?;
    Some(
        re.capture_names()
            .flatten()
            .filter_map(|n| caps.name(n).map(|m| (n.to_owned(), m.as_str().to_owned())))
            .collect(),
    )
}

fn show(c: &Option<BTreeMap<String, String>>) -> String {
    match c {
        None => "no full match".to_owned(),
        Some(m) => format!("{m:?}"),
    }
}

/// Compiles every pattern of `spec` with Python's `re`, runs its examples
/// through it and compares with Rust. [`Python::Off`] checks nothing.
pub fn check(spec: &Spec, python: &Python) -> Vec<Diagnostic> {
    let Python::Command(cmd) = python else {
        return Vec::new();
    };
    let patterns = &spec.patterns.patterns;
    let input = serde_json::json!({
        "patterns": patterns.iter().map(|(key, p)| serde_json::json!({
            "pattern": p.pattern,
            "flags": p.flags,
            "texts": texts(key, p).iter().map(|t| t.text).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()
    });
    let not_checked = |why: String| {
        vec![spec
            .diag(Severity::Warning, "python-not-checked", SpecFile::Patterns, "/patterns", format!("the patterns were not checked with Python's `re`: {why}"))
            .with_hint("install Python 3.11 or later as `python3`, or name the interpreter with `cargo xtask check --python PATH`")]
    };
    let output = match run(cmd, &input.to_string()) {
        Ok(o) => o,
        Err(why) => return not_checked(why),
    };
    let parsed: PyOutput = match serde_json::from_str(&output) {
        Ok(p) => p,
        Err(e) => return not_checked(format!("unreadable output from the interpreter: {e}")),
    };
    if parsed.patterns.len() != patterns.len() {
        return not_checked(format!(
            "the interpreter answered for {} of {} patterns",
            parsed.patterns.len(),
            patterns.len()
        ));
    }
    let mut out = Vec::new();
    for ((key, p), py) in patterns.iter().zip(&parsed.patterns) {
        let ptr = child(&child("/patterns", key), "pattern");
        if let Some(msg) = &py.error {
            out.push(
                spec.diag(
                    Severity::Error,
                    "python-rejects-pattern",
                    SpecFile::Patterns,
                    &ptr,
                    format!(
                        "Python {}'s `re` rejects the pattern at character {}: {msg}",
                        parsed.version,
                        py.pos.unwrap_or(0)
                    ),
                )
                .with_hint("write it in the dialect both engines accept (see docs/decisions/sentences.md, P2 and P10)"),
            );
            continue;
        }
        let source = format!("{}{}", pattern::flag_prefix(&p.flags), p.pattern);
        // A pattern Rust rejects is reported by the Rust-side checks; there is
        // nothing to compare it with.
        let Ok(re) = Regex::new(&format!(r"\A(?:{source})\z")) else {
            continue;
        };
        let rust_groups: Vec<&str> = re.capture_names().flatten().collect();
        if rust_groups != py.groups.iter().map(String::as_str).collect::<Vec<_>>() {
            out.push(spec.diag(
                Severity::Error,
                "python-reads-differently",
                SpecFile::Patterns,
                &ptr,
                format!(
                    "Python's `re` finds the named groups {:?}, Rust's `regex` {rust_groups:?}",
                    py.groups
                ),
            ));
        }
        for (t, py_caps) in texts(key, p).iter().zip(&py.results) {
            let rust = rust_captures(&re, t.text);
            if &rust != py_caps {
                out.push(
                    spec.diag(
                        Severity::Error,
                        "python-reads-differently",
                        SpecFile::Patterns,
                        &t.pointer,
                        format!("the engines read this text differently: Python's `re` gives {}, Rust's `regex` gives {}", show(py_caps), show(&rust)),
                    )
                    .with_hint("rewrite the construct that the engines read differently; generated parsers in both languages must agree"),
                );
            }
        }
    }
    out
}
