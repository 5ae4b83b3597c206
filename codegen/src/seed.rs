//! Stage 2, check: what the owner's files leave unsaid (P311, P312). Two
//! warnings, each located in the owner's `structures.json`:
//!
//! - `optional-placeholder-unmarked`: a template writes an optional field's
//!   placeholder with nothing saying what goes when the field is absent
//!   (P311);
//! - `schema-names-a-metaschema`: a spec file's `$schema` is a JSON Schema
//!   meta-schema, which a data file is not an instance of (P312).

use crate::diagnostic::{Diagnostic, Severity, WithHint};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::template::{self, Piece};

/// The two findings on the loaded spec, in structure order.
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    const S: SpecFile = SpecFile::Structures;
    if let Some(uri) = spec
        .structures
        .schema
        .as_deref()
        .filter(|u| is_metaschema(u))
    {
        out.push(
            spec.diag(
                Severity::Warning,
                "schema-names-a-metaschema",
                S,
                "/$schema",
                format!("`$schema` is `{uri}`, the JSON Schema meta-schema, but structures.json is data, not a schema: a validator following it checks nothing of the structures"),
            )
            .with_hint("name the schema of the spec format (generated/schema/), or leave `$schema` out"),
        );
    }
    for (key, s) in &spec.structures.structures {
        let base = child("/structures", key);
        let Ok(pieces) = template::parse(&s.template) else {
            continue; // an unreadable template is the template check's finding
        };
        let mut at = 0usize; // characters into the template
        for piece in &pieces {
            match piece {
                Piece::Literal(text) => at += text.chars().count(),
                Piece::Field(f) => {
                    if s.optional_fields.contains(f) {
                        out.push(spec.diag_in(
                            Severity::Warning,
                            "optional-placeholder-unmarked",
                            S,
                            &child(&base, "template"),
                            at,
                            format!("the template writes the optional field `{f}` as `{{{f}}}` with nothing saying which text goes with it when it is absent; the pattern's optional group decides"),
                        ));
                    }
                    at += f.chars().count() + 2;
                }
            }
        }
    }
    out
}

/// True for the URI of a JSON Schema meta-schema (any draft).
fn is_metaschema(uri: &str) -> bool {
    let rest = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or_default();
    rest.starts_with("json-schema.org/")
}
