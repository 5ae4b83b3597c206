//! The exec op catalogue at run time: what a generated crate's `ops` module
//! hands its [`Catalogue`], and the checks every call goes through before it
//! may run (seed `003_*`: the op allowlist with per-op validation).
//!
//! [`Catalogue::check`] answers, for one call, in this order: the op is in
//! the catalogue (aliases applied), the engine it came through is one the op
//! allows, the op is complete (the spec gives its argument schema; an op
//! without one never runs), and the arguments are valid against the op's
//! JSON Schema (draft 2020-12, checked by the `jsonschema` crate, which
//! resolves no remote reference). Every argument fault is reported, each
//! located by JSON pointer inside the arguments. Nothing here runs an op.
//!
//! [`Catalogue::check_native`] and its neighbours hold the same checks for a native
//! tool call (an agent API's `tool_calls`, `tool_use`, MCP `tools/call`),
//! the catalogue as those APIs' tool lists, and the rule that names an op
//! there (P290-P296).

use std::sync::OnceLock;

mod native;
pub use native::{is_native_name, native_name, NativeApi, NATIVE_NAME_MAX};

use serde::Serialize;
use serde_json::{Map, Value};

/// One op of the catalogue (`/ops/<name>` in `schema/ops.json`).
#[derive(Debug)]
pub struct OpSpec {
    /// The op's name, e.g. `followup.create`.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// The engines a call of it may come through, e.g. `TOOL`.
    pub engines: &'static [&'static str],
    /// True when running it changes anything (D5).
    pub side_effecting: bool,
    /// Its argument schema as JSON text; `None` when the spec gives none
    /// (the op is incomplete and never runs).
    pub args_schema: Option<&'static str>,
    /// What the spec leaves missing, when the op is incomplete.
    pub missing: Option<&'static str>,
    /// The native aliases that stand for it (`/aliases` of `directives.json`).
    pub aliases: &'static [&'static str],
}

impl OpSpec {
    /// True when a call of the op can run: its argument schema is known.
    pub fn complete(&self) -> bool {
        self.missing.is_none() && self.args_schema.is_some()
    }
}

/// Why a call does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResolveErrorKind {
    /// The op (after aliases) is not in the catalogue.
    UnknownOp,
    /// The op does not allow the engine the call came through.
    EngineNotAllowed,
    /// The catalogue does not give what the op needs to run (its argument
    /// schema, or the names of its actions).
    Incomplete,
    /// The arguments do not fit the op's schema.
    InvalidArgs,
}

impl ResolveErrorKind {
    /// The kind as written in JSON, e.g. `unknown-op`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResolveErrorKind::UnknownOp => "unknown-op",
            ResolveErrorKind::EngineNotAllowed => "engine-not-allowed",
            ResolveErrorKind::Incomplete => "incomplete",
            ResolveErrorKind::InvalidArgs => "invalid-args",
        }
    }
}

/// One fault in the arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgError {
    /// Where, as a JSON pointer inside the argument object (`""` is the
    /// object itself, `/in_m` its key `in_m`).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

/// A call that does not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolveError {
    /// The kind of fault.
    pub kind: ResolveErrorKind,
    /// The op, aliases applied.
    pub op: String,
    /// The engine the call came through.
    pub engine: String,
    /// One line saying why it does not run.
    pub message: String,
    /// For [`ResolveErrorKind::InvalidArgs`]: every fault, in the
    /// validator's order.
    pub errors: Vec<ArgError>,
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.message)?;
        for e in &self.errors {
            let at = if e.pointer.is_empty() {
                "(the arguments)"
            } else {
                e.pointer.as_str()
            };
            write!(f, "; at {at}: {}", e.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ResolveError {}

/// A [`ResolveError`] of `kind` for `op` on `engine`.
pub(crate) fn fail(
    kind: ResolveErrorKind,
    op: &str,
    engine: &str,
    message: String,
    errors: Vec<ArgError>,
) -> ResolveError {
    ResolveError {
        kind,
        op: op.to_owned(),
        engine: engine.to_owned(),
        message,
        errors,
    }
}

/// One op as `tools.list` lists it (D5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolEntry {
    /// The op's name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// True when running it changes anything.
    pub side_effecting: bool,
    /// The engines a call of it may come through.
    pub engines: &'static [&'static str],
    /// Its native aliases.
    pub aliases: &'static [&'static str],
    /// True when a call of it can run (its argument schema is known).
    pub runnable: bool,
    /// Its argument schema (JSON Schema 2020-12), `null` when unknown.
    pub args: Value,
    /// What the catalogue leaves missing, when it is not runnable.
    pub missing: Option<&'static str>,
}

/// The response of `tools.list`: every op of the catalogue, in its order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolsList {
    /// Every op.
    pub ops: Vec<ToolEntry>,
}

/// The catalogue: every op and the aliases, with each op's compiled
/// validator, built once on first use.
#[derive(Debug)]
pub struct Catalogue {
    /// Every op, in catalogue order.
    pub ops: &'static [OpSpec],
    /// Native aliases: (alias, op).
    pub aliases: &'static [(&'static str, &'static str)],
    validators: OnceLock<Vec<Option<jsonschema::Validator>>>,
}

impl Catalogue {
    /// A catalogue of `ops` with `aliases`.
    pub const fn new(
        ops: &'static [OpSpec],
        aliases: &'static [(&'static str, &'static str)],
    ) -> Self {
        Catalogue {
            ops,
            aliases,
            validators: OnceLock::new(),
        }
    }

    /// The op named `name` (an alias is applied first), and its index.
    pub fn get(&self, name: &str) -> Option<(usize, &'static OpSpec)> {
        let name = self
            .aliases
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name, |(_, op)| op);
        self.ops.iter().enumerate().find(|(_, o)| o.name == name)
    }

    fn validator(&self, index: usize) -> Option<&jsonschema::Validator> {
        let all = self.validators.get_or_init(|| {
            self.ops
                .iter()
                .map(|o| {
                    // The generator checked every schema against the 2020-12
                    // meta-schema; one that still fails to build runs nothing.
                    let schema: Value = serde_json::from_str(o.args_schema?).ok()?;
                    jsonschema::draft202012::new(&schema).ok()
                })
                .collect()
        });
        all.get(index).and_then(Option::as_ref)
    }

    /// Checks one call: `op` as the scanner resolved it (aliases applied
    /// again, so a hand-made call may use one), the `engine` it came
    /// through and its `args`. `Ok` holds the op's index in [`Self::ops`].
    ///
    /// # Errors
    /// The first check that fails, in the order of the module doc; for bad
    /// arguments, every fault.
    pub fn check(
        &self,
        engine: &str,
        op: &str,
        args: &Map<String, Value>,
    ) -> Result<usize, ResolveError> {
        let (index, validator) = self.check_op(engine, op)?;
        self.check_args(index, validator, engine, args)?;
        Ok(index)
    }

    /// The first three checks of [`Self::check`]: the op (an alias
    /// applied), the engine, completeness. `Ok` holds the op's index and
    /// its validator.
    pub(crate) fn check_op(
        &self,
        engine: &str,
        op: &str,
    ) -> Result<(usize, &jsonschema::Validator), ResolveError> {
        let Some((index, spec)) = self.get(op) else {
            return Err(fail(
                ResolveErrorKind::UnknownOp,
                op,
                engine,
                format!("`{op}` is not an op of the catalogue: not run"),
                Vec::new(),
            ));
        };
        if !spec.engines.contains(&engine) {
            let allowed = spec.engines.join(", ");
            let message = format!(
                "`{}` does not come through {engine} (allowed: {allowed}): not run",
                spec.name
            );
            return Err(fail(
                ResolveErrorKind::EngineNotAllowed,
                spec.name,
                engine,
                message,
                Vec::new(),
            ));
        }
        match (spec.complete(), self.validator(index)) {
            (true, Some(v)) => Ok((index, v)),
            _ => {
                let why = spec.missing.unwrap_or("its argument schema does not build");
                let message = format!(
                    "`{}` is incomplete in the catalogue: {why} Not run.",
                    spec.name
                );
                Err(fail(
                    ResolveErrorKind::Incomplete,
                    spec.name,
                    engine,
                    message,
                    Vec::new(),
                ))
            }
        }
    }

    /// The last check of [`Self::check`]: `args` against the schema of
    /// the op at `index`, every fault reported.
    pub(crate) fn check_args(
        &self,
        index: usize,
        validator: &jsonschema::Validator,
        engine: &str,
        args: &Map<String, Value>,
    ) -> Result<(), ResolveError> {
        let name = self.ops.get(index).map_or("", |o| o.name);
        let instance = Value::Object(args.clone());
        let errors: Vec<ArgError> = validator
            .iter_errors(&instance)
            .map(|e| ArgError {
                pointer: e.instance_path().as_str().to_owned(),
                message: e.to_string(),
            })
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        let n = errors.len();
        let message = format!(
            "the arguments of `{name}` do not fit its schema ({n} fault{}): not run",
            if n == 1 { "" } else { "s" }
        );
        Err(fail(
            ResolveErrorKind::InvalidArgs,
            name,
            engine,
            message,
            errors,
        ))
    }

    /// A typed-decoding failure after the schema accepted the arguments
    /// (the schema admits a value the generated type cannot hold, e.g. `5.0`
    /// for an integer): reported as bad arguments, never run.
    pub fn decode_error(
        &self,
        index: usize,
        engine: &str,
        err: &serde_json::Error,
    ) -> ResolveError {
        let name = self.ops.get(index).map_or("", |o| o.name);
        ResolveError {
            kind: ResolveErrorKind::InvalidArgs,
            op: name.to_owned(),
            engine: engine.to_owned(),
            message: format!("the arguments of `{name}` do not fit its type (1 fault): not run"),
            errors: vec![ArgError {
                pointer: String::new(),
                message: err.to_string(),
            }],
        }
    }

    /// The `tools.list` response: every op with its `side_effecting` flag
    /// and argument schema (D5).
    pub fn tools_list(&self) -> ToolsList {
        ToolsList {
            ops: self
                .ops
                .iter()
                .map(|o| ToolEntry {
                    name: o.name,
                    description: o.description,
                    side_effecting: o.side_effecting,
                    engines: o.engines,
                    aliases: o.aliases,
                    runnable: o.complete(),
                    args: o
                        .args_schema
                        .and_then(|s| serde_json::from_str(s).ok())
                        .unwrap_or(Value::Null),
                    missing: o.missing,
                })
                .collect(),
        }
    }
}
