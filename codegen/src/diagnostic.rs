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
        (
            self.file.clone(),
            self.line,
            self.column,
            self.code,
            self.message.clone(),
        )
    }
}

impl fmt::Display for Diagnostic {
    /// `error[code]: schema/structures.json:12:5 /structures/x/regex_ref: message`
    /// followed by an indented `hint:` line when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
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
    /// The spec's acknowledged findings (`/known_findings` in
    /// `regex_patterns.json`); [`Report::is_known`] tells which findings they
    /// cover. Every finding stays in `diagnostics`.
    #[serde(skip)]
    pub known: Vec<crate::model::KnownFinding>,
}

impl Report {
    /// Sorts and deduplicates the findings.
    pub fn new(mut diagnostics: Vec<Diagnostic>) -> Self {
        diagnostics.sort_by_key(Diagnostic::sort_key);
        diagnostics.dedup();
        Report {
            diagnostics,
            known: Vec::new(),
        }
    }

    /// The report with the spec's acknowledged findings.
    pub fn with_known(mut self, known: Vec<crate::model::KnownFinding>) -> Self {
        self.known = known;
        self
    }

    /// True when `d` is a warning the spec acknowledges (an error never is).
    pub fn is_known(&self, d: &Diagnostic) -> bool {
        d.severity == Severity::Warning && self.known.iter().any(|k| known_matches(k, d))
    }

    /// The findings no acknowledgement covers, in order.
    pub fn new_findings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !self.is_known(d))
    }

    /// The acknowledgements that match no finding (their finding is gone:
    /// remove them), by index in `/known_findings`.
    pub fn stale_known(&self) -> Vec<usize> {
        (0..self.known.len())
            .filter(|&i| {
                !self
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Warning && known_matches(&self.known[i], d))
            })
            .collect()
    }

    /// True when there is a warning no acknowledgement covers, or an
    /// acknowledgement with no finding: what `--deny-warnings` fails on.
    pub fn has_new_warnings(&self) -> bool {
        self.new_findings().any(|d| d.severity == Severity::Warning)
            || !self.stale_known().is_empty()
    }

    /// One line: how many findings the spec acknowledges, with their
    /// decisions, and the stale acknowledgements; `None` without any.
    pub fn known_line(&self) -> Option<String> {
        if self.known.is_empty() {
            return None;
        }
        let covered: Vec<&Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| self.is_known(d))
            .collect();
        let mut decisions: Vec<&str> = self
            .known
            .iter()
            .filter(|k| covered.iter().any(|d| known_matches(k, d)))
            .map(|k| k.decision.as_str())
            .collect();
        decisions.sort_by_key(|d| (d.len(), d.to_string()));
        decisions.dedup();
        let mut line = format!(
            "{} known finding(s) acknowledged in /known_findings (decisions {})",
            covered.len(),
            decisions.join(", ")
        );
        let stale = self.stale_known();
        if !stale.is_empty() {
            let list: Vec<String> = stale
                .iter()
                .map(|i| format!("/known_findings/{i}"))
                .collect();
            line.push_str(&format!(
                "; {} acknowledgement(s) match no finding, remove them: {}",
                stale.len(),
                list.join(", ")
            ));
        }
        Some(line)
    }

    /// True when any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// The number of findings of a severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// True when the acknowledgement `k` names the finding `d` (code, file name
/// and pointer).
fn known_matches(k: &crate::model::KnownFinding, d: &Diagnostic) -> bool {
    k.code == d.code
        && k.pointer == d.pointer
        && (d.file == k.file || d.file.ends_with(&format!("/{}", k.file)))
}

impl fmt::Display for Report {
    /// Every finding no acknowledgement covers, the count line of the
    /// acknowledged ones, then the totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.new_findings() {
            writeln!(f, "{d}")?;
        }
        if let Some(line) = self.known_line() {
            writeln!(f, "{line}")?;
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

/// Builder methods for hints on diagnostics.
pub trait WithHint {
    /// Sets the hint.
    fn with_hint(self, hint: impl Into<String>) -> Self;
    /// Sets the hint if there is one.
    fn with_hint_opt(self, hint: Option<String>) -> Self;
}

impl WithHint for Diagnostic {
    fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    fn with_hint_opt(mut self, hint: Option<String>) -> Self {
        self.hint = hint;
        self
    }
}

/// The candidate closest to `name` (Levenshtein distance at most 3, or a
/// third of the candidate's length), for a "did you mean" hint.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a String>) -> Option<String> {
    candidates
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|(d, c)| *d <= 3.max(c.len() / 3))
        .min()
        .map(|(_, c)| c.clone())
}

#[cfg(test)]
mod known_tests {
    use super::*;
    use crate::model::KnownFinding;

    fn warning(code: &'static str, pointer: &str) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            code,
            file: "schema/structures.json".to_owned(),
            pointer: pointer.to_owned(),
            line: 1,
            column: 1,
            message: "m".to_owned(),
            hint: None,
        }
    }

    fn known(code: &str, pointer: &str, decision: &str) -> KnownFinding {
        KnownFinding {
            code: code.to_owned(),
            file: "structures.json".to_owned(),
            pointer: pointer.to_owned(),
            decision: decision.to_owned(),
        }
    }

    #[test]
    fn acknowledged_findings_print_as_one_line_and_only_new_ones_deny() {
        let r = Report::new(vec![warning("a", "/x"), warning("b", "/y")])
            .with_known(vec![known("a", "/x", "P7")]);
        assert_eq!(
            r.new_findings().map(|d| d.code).collect::<Vec<_>>(),
            vec!["b"]
        );
        assert!(r.has_new_warnings());
        assert_eq!(
            r.known_line().unwrap(),
            "1 known finding(s) acknowledged in /known_findings (decisions P7)"
        );
        let all = Report::new(vec![warning("a", "/x")]).with_known(vec![known("a", "/x", "P7")]);
        assert!(!all.has_new_warnings());
        assert_eq!(all.to_string(), "1 known finding(s) acknowledged in /known_findings (decisions P7)\n0 error(s), 1 warning(s)");
        let stale = Report::new(vec![]).with_known(vec![known("a", "/x", "P7")]);
        assert!(stale.has_new_warnings());
        assert!(stale
            .known_line()
            .unwrap()
            .ends_with("1 acknowledgement(s) match no finding, remove them: /known_findings/0"));
    }
}
