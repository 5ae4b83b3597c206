//! Diagnostics: one problem in the spec, with where it is and what to do.
//!
//! Every stage (load, check, lint) reports problems as [`Diagnostic`]s and
//! keeps going, so a bad spec yields every problem at once.

use std::fmt;

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The spec cannot be generated from; nothing is written.
    Error,
    /// The spec generates, but says something that does not hold together.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One problem found in a spec file.
///
/// `line` and `column` are 1-based; `column` counts characters (Unicode scalar
/// values), not bytes, from the start of the line. They point at the start of
/// the value the pointer names, or, for a finding about part of a long string
/// (a marker in a `reply_expectation`), at that part inside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// Stable kebab-case name of the finding kind, e.g. `unknown-regex-ref`.
    pub code: &'static str,
    /// The spec file, relative to the spec directory (e.g. `structures.json`).
    pub file: String,
    /// RFC 6901 JSON pointer to the offending value (`""` for the whole file).
    pub pointer: String,
    /// 1-based line of the offending value (or text in it).
    pub line: usize,
    /// 1-based column (characters) of the offending value (or text in it).
    pub column: usize,
    /// One line saying what is wrong.
    pub message: String,
    /// What would fix it, where there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    /// Sort key: file, then position, then code and message.
    pub fn sort_key(&self) -> (String, usize, usize, &'static str, String) {
        (self.file.clone(), self.line, self.column, self.code, self.message.clone())
    }
}

impl fmt::Display for Diagnostic {
    /// `error[code]: schema/structures.json:12:5 /structures/x/regex_ref: message`
    /// followed by an indented `hint:` line when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() { "(root)" } else { &self.pointer };
        write!(
            f,
            "{}[{}]: {}:{}:{} {}: {}",
            self.severity, self.code, self.file, self.line, self.column, pointer, self.message
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\n    hint: {hint}")?;
        }
        Ok(())
    }
}

/// Every problem found in a spec, sorted by file and position.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Report {
    /// The findings, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Sorts and deduplicates the findings.
    pub fn new(mut diagnostics: Vec<Diagnostic>) -> Self {
        diagnostics.sort_by_key(Diagnostic::sort_key);
        diagnostics.dedup();
        Report { diagnostics }
    }

    /// True when any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    /// The number of findings of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == severity).count()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.diagnostics {
            writeln!(f, "{d}")?;
        }
        write!(
            f,
            "{} error(s), {} warning(s)",
            self.count(Severity::Error),
            self.count(Severity::Warning)
        )
    }
}

impl std::error::Error for Report {}
