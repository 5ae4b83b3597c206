//! Stage 1, load: read the spec files and validate them against the serde
//! model ([`crate::model`]) before anything else looks at them.
//!
//! Each map entry (every structure, every pattern, every binding) is
//! deserialized on its own, so one malformed entry does not hide the problems
//! of the others: the loader reports every shape error in the spec at once.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Severity};
use crate::locate::{child, PositionIndex};
use crate::model::{
    Binding, DirectivesFile, EnvelopeFile, LoopsFile, OpsFile, Pattern, PatternsFile, Structure,
    StructuresFile,
};

/// File name of the owner's structures inside the spec directory.
pub const STRUCTURES_FILE: &str = "structures.json";
/// File name of the regex reference inside the spec directory.
pub const PATTERNS_FILE: &str = "regex_patterns.json";
/// File name of the directive grammar inside the spec directory.
pub const DIRECTIVES_FILE: &str = "directives.json";
/// File name of the loop tracker's reading inside the spec directory
/// (optional: without it, no tracker is generated).
pub const LOOPS_FILE: &str = "loops.json";
/// File name of the exec op catalogue inside the spec directory (optional:
/// without it, no catalogue and no `resolve` are generated).
pub const OPS_FILE: &str = "ops.json";
/// File name of the prompt envelope (optional: a spec without it gets no
/// envelope).
pub const ENVELOPE_FILE: &str = "envelope.json";

/// A loaded spec: both files, parsed and shape-checked, with their positions.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The spec directory the files were read from.
    pub dir: PathBuf,
    /// `structures.json`.
    pub structures: StructuresFile,
    /// `regex_patterns.json`.
    pub patterns: PatternsFile,
    /// `directives.json`.
    pub directives: DirectivesFile,
    /// `loops.json`, when the spec has one.
    pub loops: Option<LoopsFile>,
    /// `ops.json`, when the spec has one.
    pub ops: Option<OpsFile>,
    /// `envelope.json`, when the spec has one.
    pub envelope: Option<EnvelopeFile>,
    /// The exact bytes of `structures.json`, for the published copy.
    pub structures_text: String,
    /// The exact bytes of `regex_patterns.json`.
    pub patterns_text: String,
    structures_pos: PositionIndex,
    patterns_pos: PositionIndex,
    directives_pos: PositionIndex,
    loops_pos: PositionIndex,
    ops_pos: PositionIndex,
    envelope_pos: PositionIndex,
    /// Faults the loader found that do not stop the other checks (a key that
    /// occurs twice in an object); [`crate::check::check_spec`] reports them.
    pub load_findings: Vec<Diagnostic>,
}

/// Which spec file a diagnostic is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecFile {
    /// `structures.json`.
    Structures,
    /// `regex_patterns.json`.
    Patterns,
    /// `directives.json`.
    Directives,
    /// `loops.json`.
    Loops,
    /// `ops.json`.
    Ops,
    /// `envelope.json`.
    Envelope,
}

impl SpecFile {
    /// The file's name inside the spec directory.
    pub fn name(self) -> &'static str {
        match self {
            SpecFile::Structures => STRUCTURES_FILE,
            SpecFile::Patterns => PATTERNS_FILE,
            SpecFile::Directives => DIRECTIVES_FILE,
            SpecFile::Loops => LOOPS_FILE,
            SpecFile::Ops => OPS_FILE,
            SpecFile::Envelope => ENVELOPE_FILE,
        }
    }
}

impl Spec {
    fn positions(&self, file: SpecFile) -> &PositionIndex {
        match file {
            SpecFile::Structures => &self.structures_pos,
            SpecFile::Patterns => &self.patterns_pos,
            SpecFile::Directives => &self.directives_pos,
            SpecFile::Loops => &self.loops_pos,
            SpecFile::Ops => &self.ops_pos,
            SpecFile::Envelope => &self.envelope_pos,
        }
    }

    /// Builds a diagnostic located at `pointer` in `file`.
    pub fn diag(
        &self,
        severity: Severity,
        code: &'static str,
        file: SpecFile,
        pointer: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        make_diag(
            &self.dir,
            self.positions(file),
            severity,
            code,
            file.name(),
            pointer,
            message.into(),
        )
    }
}

impl Spec {
    /// Builds a diagnostic about the text at character `index` (from 0)
    /// inside the string value at `pointer`: the pointer names the value,
    /// line:column the place in it.
    pub fn diag_in(
        &self,
        severity: Severity,
        code: &'static str,
        file: SpecFile,
        pointer: &str,
        index: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        let mut d = self.diag(severity, code, file, pointer, message);
        (d.line, d.column) = self.positions(file).string_char_line_col(pointer, index);
        d
    }
}

fn display_path(dir: &Path, file: &str) -> String {
    dir.join(file).to_string_lossy().replace('\\', "/")
}

fn make_diag(
    dir: &Path,
    index: &PositionIndex,
    severity: Severity,
    code: &'static str,
    file: &str,
    pointer: &str,
    message: String,
) -> Diagnostic {
    let (line, column) = index.line_col(pointer);
    Diagnostic {
        severity,
        code,
        file: display_path(dir, file),
        pointer: pointer.to_owned(),
        line,
        column,
        message,
        hint: None,
    }
}

/// Reads and validates the spec in `dir`.
///
/// # Errors
/// Every problem found: unreadable files, JSON syntax errors (with the
/// parser's line and column), and every value whose shape does not fit the
/// model (unknown keys, missing keys, wrong types), each located by JSON
/// pointer and line:column.
pub fn load(dir: &Path) -> Result<Spec, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut dups = Vec::new();
    let s = read_file(dir, STRUCTURES_FILE, &mut diags, &mut dups);
    let p = read_file(dir, PATTERNS_FILE, &mut diags, &mut dups);
    let d = read_file(dir, DIRECTIVES_FILE, &mut diags, &mut dups);
    let l = dir
        .join(LOOPS_FILE)
        .exists()
        .then(|| read_file(dir, LOOPS_FILE, &mut diags, &mut dups))
        .flatten();
    let loops = l.as_ref().and_then(|(_, idx, v)| {
        deserialize_at::<LoopsFile>(dir, LOOPS_FILE, idx, v, "", &mut diags)
    });
    let loops_pos = l.map(|(_, idx, _)| idx).unwrap_or_default();
    let o = dir
        .join(OPS_FILE)
        .exists()
        .then(|| read_file(dir, OPS_FILE, &mut diags, &mut dups))
        .flatten();
    let ops = o.as_ref().and_then(|(_, idx, v)| {
        let top = validate_top::<OpsFile>(dir, OPS_FILE, idx, v, &["ops"], &mut diags);
        let entries =
            validate_entries::<crate::model::Op>(dir, OPS_FILE, idx, v, "ops", &mut diags);
        let mut top = top?;
        top.ops = entries?;
        Some(top)
    });
    let ops_pos = o.map(|(_, idx, _)| idx).unwrap_or_default();
    let e = dir
        .join(ENVELOPE_FILE)
        .exists()
        .then(|| read_file(dir, ENVELOPE_FILE, &mut diags, &mut dups))
        .flatten();
    let envelope = e.as_ref().and_then(|(_, idx, v)| {
        deserialize_at::<EnvelopeFile>(dir, ENVELOPE_FILE, idx, v, "", &mut diags)
    });
    let envelope_pos = e.map(|(_, idx, _)| idx).unwrap_or_default();
    let directives = d.as_ref().and_then(|(_, idx, v)| {
        deserialize_at::<DirectivesFile>(dir, DIRECTIVES_FILE, idx, v, "", &mut diags)
    });
    let structures = s.as_ref().and_then(|(text, idx, v)| {
        let top = validate_top::<StructuresFile>(
            dir,
            STRUCTURES_FILE,
            idx,
            v,
            &["structures"],
            &mut diags,
        );
        let entries =
            validate_entries::<Structure>(dir, STRUCTURES_FILE, idx, v, "structures", &mut diags);
        let _ = text;
        Some((top?, entries?))
    });
    let patterns = p.as_ref().and_then(|(_, idx, v)| {
        let top = validate_top::<PatternsFile>(
            dir,
            PATTERNS_FILE,
            idx,
            v,
            &["patterns", "bindings"],
            &mut diags,
        );
        let pats = validate_entries::<Pattern>(dir, PATTERNS_FILE, idx, v, "patterns", &mut diags);
        let binds = validate_entries::<Binding>(dir, PATTERNS_FILE, idx, v, "bindings", &mut diags);
        Some((top?, pats?, binds?))
    });
    match (s, p, d, structures, patterns, directives) {
        (
            Some((st, spos, _)),
            Some((pt, ppos, _)),
            Some((_, dpos, _)),
            Some((mut sf, se)),
            Some((mut pf, pe, be)),
            Some(directives),
        ) if diags.is_empty() => {
            sf.structures = se;
            pf.patterns = pe;
            pf.bindings = be;
            expand_free_text(dir, &ppos, &mut pf, &mut diags);
            if !diags.is_empty() {
                diags.extend(dups);
                return Err(diags);
            }
            Ok(Spec {
                dir: dir.to_owned(),
                structures: sf,
                patterns: pf,
                directives,
                loops,
                ops,
                envelope,
                structures_text: st,
                patterns_text: pt,
                structures_pos: spos,
                patterns_pos: ppos,
                directives_pos: dpos,
                loops_pos,
                ops_pos,
                envelope_pos,
                load_findings: dups,
            })
        }
        _ => {
            diags.extend(dups);
            Err(diags)
        }
    }
}

/// Writes the body of every free-text group (`runs_until`, see
/// [`crate::free_text`]) into its pattern, so the later stages see only the
/// expansion.
fn expand_free_text(
    dir: &Path,
    idx: &PositionIndex,
    pf: &mut PatternsFile,
    diags: &mut Vec<Diagnostic>,
) {
    for (key, p) in &mut pf.patterns {
        let groups: Vec<(String, Vec<String>, bool)> = p
            .groups
            .iter()
            .filter_map(|(g, gr)| {
                gr.runs_until
                    .clone()
                    .map(|r| (g.clone(), r, gr.ty == crate::model::GroupType::String))
            })
            .collect();
        let base = child(&child("/patterns", key), "groups");
        for (name, list, is_string) in groups {
            let ptr = child(&child(&base, &name), "runs_until");
            let problem = if !is_string {
                Some(format!("group `{name}` has `runs_until` but is not of type `string`: only free text runs until a stop"))
            } else {
                match crate::free_text::expand_pattern(&p.pattern, &name, &list) {
                    Ok(expanded) => {
                        p.pattern = expanded;
                        None
                    }
                    Err(e) => Some(e),
                }
            };
            if let Some(message) = problem {
                diags.push(make_diag(
                    dir,
                    idx,
                    Severity::Error,
                    "runs-until",
                    PATTERNS_FILE,
                    &ptr,
                    message,
                ));
            }
        }
    }
}

fn read_file(
    dir: &Path,
    name: &str,
    diags: &mut Vec<Diagnostic>,
    dups: &mut Vec<Diagnostic>,
) -> Option<(String, PositionIndex, Value)> {
    let path = dir.join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic {
                severity: Severity::Error,
                code: "unreadable-file",
                file: display_path(dir, name),
                pointer: String::new(),
                line: 1,
                column: 1,
                message: format!("cannot read the file: {e}"),
                hint: None,
            });
            return None;
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => {
            let idx = PositionIndex::new(&text);
            for (pointer, (line, column)) in idx.duplicate_keys() {
                let key = pointer
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .replace("~1", "/")
                    .replace("~0", "~");
                dups.push(Diagnostic {
                    severity: Severity::Error,
                    code: "duplicate-key",
                    file: display_path(dir, name),
                    pointer,
                    line,
                    column,
                    message: format!("the key `{key}` occurs twice in this object: a JSON reader keeps one of them without a word"),
                    hint: Some("remove one of them, or merge them".to_owned()),
                });
            }
            Some((text, idx, v))
        }
        Err(e) => {
            diags.push(Diagnostic {
                severity: Severity::Error,
                code: "json-syntax",
                file: display_path(dir, name),
                pointer: String::new(),
                line: e.line().max(1),
                column: e.column().max(1),
                message: format!("not valid JSON: {e}"),
                hint: None,
            });
            None
        }
    }
}

/// Deserializes `value` at `pointer` into `T`, turning a failure into a
/// diagnostic that points at the innermost offending value.
fn deserialize_at<T: DeserializeOwned>(
    dir: &Path,
    file: &str,
    idx: &PositionIndex,
    value: &Value,
    pointer: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(t) => Some(t),
        Err(e) => {
            let mut ptr = pointer.to_owned();
            for seg in e.path().iter() {
                match seg {
                    serde_path_to_error::Segment::Map { key } => ptr = child(&ptr, key),
                    serde_path_to_error::Segment::Seq { index } => ptr = format!("{ptr}/{index}"),
                    _ => {}
                }
            }
            let msg = e.into_inner().to_string();
            diags.push(make_diag(
                dir,
                idx,
                Severity::Error,
                "spec-shape",
                file,
                &ptr,
                format!("does not fit the spec model: {msg}"),
            ));
            None
        }
    }
}

/// Validates the top level with the map members emptied (they are validated
/// entry by entry).
fn validate_top<T: DeserializeOwned>(
    dir: &Path,
    file: &str,
    idx: &PositionIndex,
    value: &Value,
    maps: &[&str],
    diags: &mut Vec<Diagnostic>,
) -> Option<T> {
    let mut shallow = value.clone();
    if let Value::Object(obj) = &mut shallow {
        for m in maps {
            if let Some(v) = obj.get_mut(*m) {
                if v.is_object() {
                    *v = Value::Object(Default::default());
                }
            }
        }
    }
    deserialize_at(dir, file, idx, &shallow, "", diags)
}

fn validate_entries<T: DeserializeOwned>(
    dir: &Path,
    file: &str,
    idx: &PositionIndex,
    value: &Value,
    member: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<IndexMap<String, T>> {
    let obj = value.get(member)?.as_object()?;
    let base = child("", member);
    let mut out = IndexMap::new();
    let mut ok = true;
    for (k, v) in obj {
        match deserialize_at::<T>(dir, file, idx, v, &child(&base, k), diags) {
            Some(t) => {
                out.insert(k.clone(), t);
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// The pattern key a structure binds to: the binding's override or `regex_ref`.
pub fn bound_pattern<'a>(spec: &'a Spec, key: &str) -> &'a str {
    spec.patterns
        .bindings
        .get(key)
        .and_then(|b| b.pattern.as_deref())
        .unwrap_or_else(|| spec.structures.structures[key].regex_ref.as_str())
}
