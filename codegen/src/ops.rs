//! The exec op catalogue: `schema/ops.json` checked ([`check`], stage 2,
//! with the aliases and shorthands of `directives.json`) and lowered to an
//! [`OpsIr`] ([`lower`], stage 3) that the emitters write as the generated
//! crate's `ops` module, the Python package's `ops` module and `OPS.md`.
//!
//! Each op's arguments are a JSON Schema (draft 2020-12); the lint checks
//! every schema against the draft's meta-schema and every example against
//! its schema with the `jsonschema` crate, the same validator the generated
//! `resolve` runs. Typed argument structs are generated from a subset: an
//! object with `properties` of one JSON type each and `additionalProperties:
//! false` (P141). An op whose arguments the seeds do not give has no `args`
//! and says what is `missing`: it is listed, never run, and the lint warns
//! (`op-incomplete`, P140).

use agent_sentences_runtime::ops::{is_native_name, native_name, NATIVE_NAME_MAX};
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Severity};
use crate::ident;
use crate::load::{Spec, SpecFile};
use crate::locate::child;

const O: SpecFile = SpecFile::Ops;

/// The type of one argument, as the typed structs hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgTy {
    /// `"type": "string"`: `String` / `str`.
    String,
    /// `"type": "integer"`: `i64` / `int`.
    Integer,
    /// `"type": "number"`: `f64` / `float`.
    Number,
    /// `"type": "boolean"`: `bool`.
    Boolean,
    /// `"type": "object"`: a JSON object.
    Object,
    /// `"type": "array"`: a JSON array.
    Array,
}

impl ArgTy {
    fn from_json_type(t: &str) -> Option<ArgTy> {
        Some(match t {
            "string" => ArgTy::String,
            "integer" => ArgTy::Integer,
            "number" => ArgTy::Number,
            "boolean" => ArgTy::Boolean,
            "object" => ArgTy::Object,
            "array" => ArgTy::Array,
            _ => return None,
        })
    }
}

/// One argument of an op (`/ops/<name>/args/properties/<key>`).
#[derive(Debug, Clone, Serialize)]
pub struct ArgIr {
    /// The key in the argument object.
    pub key: String,
    /// Rust field name.
    pub rust_name: String,
    /// Python attribute name.
    pub py_name: String,
    /// Its type.
    pub ty: ArgTy,
    /// Its Python annotation, e.g. `int` (without `| None`).
    pub py_type: String,
    /// True when `required` lists it.
    pub required: bool,
    /// Its schema's `description`, if any.
    pub description: Option<String>,
    /// Its schema, compact JSON.
    pub schema: String,
}

/// One op, lowered.
#[derive(Debug, Clone, Serialize)]
pub struct OpIr {
    /// The op's name, e.g. `followup.create`.
    pub name: String,
    /// The `Op` variant, e.g. `FollowupCreate`.
    pub variant: String,
    /// Its name in an agent API's tool list, e.g. `followup_create`
    /// (`agent_sentences_runtime::ops::native_name`, P290).
    pub native_name: String,
    /// The argument type, e.g. `FollowupCreateArgs`.
    pub args_type: String,
    /// What it does.
    pub description: String,
    /// The engines it may come through.
    pub engines: Vec<String>,
    /// True when it changes anything.
    pub side_effecting: bool,
    /// Its aliases (`directives.json` `/aliases`), in that file's order.
    pub aliases: Vec<String>,
    /// The shorthands that run it (`directives.json` `/shorthands`).
    pub shorthands: Vec<String>,
    /// Its argument schema, compact JSON, when given.
    pub args_schema: Option<String>,
    /// The same, pretty-printed.
    pub args_schema_pretty: Option<String>,
    /// Its arguments, when the schema is given (in `properties` order).
    pub args: Vec<ArgIr>,
    /// What is missing, when incomplete: the spec's `missing`, and every
    /// action group with fewer names than its count.
    pub missing: Option<String>,
    /// Its examples, compact JSON.
    pub examples: Vec<String>,
    /// True when a call of it can run: the schema is given and nothing is
    /// missing.
    pub runnable: bool,
}

/// The lowered catalogue.
#[derive(Debug, Clone, Serialize)]
pub struct OpsIr {
    /// Every op, in catalogue order.
    pub ops: Vec<OpIr>,
    /// `(alias, op)`, from `directives.json`.
    pub aliases: Vec<(String, String)>,
    /// The engine native tool calls come through (`/native_engine`, P293).
    pub native_engine: String,
    /// `ops.json` title.
    pub title: String,
    /// `ops.json` source: where the catalogue comes from.
    pub source: String,
}

fn err(
    spec: &Spec,
    out: &mut Vec<Diagnostic>,
    file: SpecFile,
    code: &'static str,
    pointer: &str,
    message: String,
) {
    out.push(spec.diag(Severity::Error, code, file, pointer, message));
}

/// Every problem of `ops.json` (and of the directive aliases and shorthands
/// against it), each located.
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let Some(file) = &spec.ops else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let d = &spec.directives;
    let op_re = Regex::new(&format!(r"\A(?:{})\z", d.op_pattern)).ok();
    let key_re = Regex::new(r"\A[a-z][a-z0-9_]*\z").expect("valid");
    let meta = jsonschema::draft202012::meta::validate;
    for (name, op) in &file.ops {
        let base = child("/ops", name);
        if op_re.as_ref().is_some_and(|re| !re.is_match(name)) {
            err(
                spec,
                &mut out,
                O,
                "invalid-op",
                &base,
                format!(
                    "`{name}` does not match the op pattern `{}` of directives.json",
                    d.op_pattern
                ),
            );
        }
        if d.aliases.contains_key(name) {
            err(spec, &mut out, O, "op-is-alias", &base, format!("`{name}` is also an alias in directives.json: a call of it would run the alias's op"));
        }
        if op.engines.is_empty() {
            err(
                spec,
                &mut out,
                O,
                "op-without-engine",
                &format!("{base}/engines"),
                format!("`{name}` allows no engine: no call of it could run"),
            );
        }
        for (i, e) in op.engines.iter().enumerate() {
            if !d.engines.contains_key(e) {
                err(
                    spec,
                    &mut out,
                    O,
                    "unknown-engine",
                    &format!("{base}/engines/{i}"),
                    format!("engine `{e}` is not declared in /engines of directives.json"),
                );
            }
        }
        let mut missing_parts = Vec::new();
        if let Some(actions) = &op.actions {
            for (g, group) in &actions.groups {
                let ptr = format!("{}/names", child(&format!("{base}/actions/groups"), g));
                let n = group.names.len() as u64;
                if n > u64::from(group.count) {
                    err(
                        spec,
                        &mut out,
                        O,
                        "actions-over-count",
                        &ptr,
                        format!("{n} names for a group of {} actions", group.count),
                    );
                } else if n < u64::from(group.count) {
                    missing_parts.push((
                        ptr,
                        format!("names {n} of the {} `{g}` actions", group.count),
                    ));
                }
            }
        }
        match &op.args {
            None => {
                if op.missing.is_none() {
                    err(
                        spec,
                        &mut out,
                        O,
                        "missing-unexplained",
                        &base,
                        format!("`{name}` has no `args`: say what the seeds leave `missing`"),
                    );
                }
                if !op.examples.is_empty() {
                    err(
                        spec,
                        &mut out,
                        O,
                        "examples-without-args",
                        &format!("{base}/examples"),
                        format!("`{name}` has examples but no `args` to check them against"),
                    );
                }
                let why = op.missing.clone().unwrap_or_default();
                out.push(spec.diag(
                    Severity::Warning,
                    "op-incomplete",
                    O,
                    &base,
                    format!("`{name}` has no argument schema, so no call of it runs: {why}"),
                ));
            }
            Some(args) => {
                let aptr = format!("{base}/args");
                if let Err(e) = meta(args) {
                    let at = format!("{aptr}{}", e.instance_path().as_str());
                    err(
                        spec,
                        &mut out,
                        O,
                        "args-not-schema",
                        &at,
                        format!("not a JSON Schema (draft 2020-12): {e}"),
                    );
                    continue;
                }
                check_subset(spec, &mut out, &aptr, args, &key_re);
                match jsonschema::draft202012::new(args) {
                    Err(e) => err(
                        spec,
                        &mut out,
                        O,
                        "args-not-schema",
                        &aptr,
                        format!("the validator cannot build the schema: {e}"),
                    ),
                    Ok(v) => {
                        for (i, ex) in op.examples.iter().enumerate() {
                            for e in v.iter_errors(ex) {
                                let at =
                                    format!("{base}/examples/{i}{}", e.instance_path().as_str());
                                err(
                                    spec,
                                    &mut out,
                                    O,
                                    "example-invalid",
                                    &at,
                                    format!("the example does not fit `{name}`'s args: {e}"),
                                );
                            }
                        }
                    }
                }
                if op.examples.is_empty() {
                    out.push(spec.diag(Severity::Warning, "op-without-examples", O, &base, format!("`{name}` has no example call: nothing shows its schema accepts a real call")));
                }
                if let Some(m) = &op.missing {
                    out.push(spec.diag(
                        Severity::Warning,
                        "op-incomplete",
                        O,
                        &format!("{base}/missing"),
                        format!("`{name}` is marked incomplete, so no call of it runs: {m}"),
                    ));
                }
            }
        }
        for (ptr, what) in missing_parts {
            out.push(spec.diag(
                Severity::Warning,
                "op-incomplete",
                O,
                &ptr,
                format!("`{name}` is incomplete, so no call of it runs: the catalogue {what}"),
            ));
        }
    }
    if !d.engines.contains_key(&file.native_engine) {
        err(
            spec,
            &mut out,
            O,
            "unknown-engine",
            "/native_engine",
            format!(
                "native engine `{}` is not declared in /engines of directives.json",
                file.native_engine
            ),
        );
    }
    check_native_names(spec, &mut out, op_re.as_ref());
    const D: SpecFile = SpecFile::Directives;
    for (alias, target) in &d.aliases {
        if !file.ops.contains_key(target) {
            err(
                spec,
                &mut out,
                D,
                "unknown-op",
                &child("/aliases", alias),
                format!("alias `{alias}` stands for `{target}`, which is not an op of ops.json"),
            );
        }
    }
    for (k, sh) in &d.shorthands {
        if !file.ops.contains_key(&sh.op) {
            err(
                spec,
                &mut out,
                D,
                "unknown-op",
                &format!("{}/op", child("/shorthands", k)),
                format!(
                    "shorthand `{k}` runs `{}`, which is not an op of ops.json",
                    sh.op
                ),
            );
        } else if !file.ops[&sh.op].engines.contains(&sh.engine) {
            err(
                spec,
                &mut out,
                D,
                "shorthand-engine-not-allowed",
                &format!("{}/engine", child("/shorthands", k)),
                format!(
                    "shorthand `{k}` runs `{}` on {}, an engine the op does not allow",
                    sh.op, sh.engine
                ),
            );
        }
    }
    out
}

/// The native names (P290): every op's and alias's name, each `.` written
/// `_`, must be a tool name every agent API takes (`native-name-invalid`,
/// `native-name-too-long`; a name the op pattern refuses is `invalid-op`
/// instead) and no two may be one (`native-name-collision`, reported at the
/// later name), so the rule reverses by lookup.
fn check_native_names(spec: &Spec, out: &mut Vec<Diagnostic>, op_re: Option<&Regex>) {
    let Some(file) = &spec.ops else {
        return;
    };
    let ops = file.ops.keys().map(|n| (O, child("/ops", n), "op", n));
    let aliases = spec
        .directives
        .aliases
        .keys()
        .map(|a| (SpecFile::Directives, child("/aliases", a), "alias", a));
    let mut seen: Vec<(String, &str, &String)> = Vec::new();
    for (file, pointer, what, name) in ops.chain(aliases) {
        let native = native_name(name);
        if native.len() > NATIVE_NAME_MAX {
            err(spec, out, file, "native-name-too-long", &pointer, format!("{what} `{name}` has the native name `{native}`, {} characters: agent APIs take at most {NATIVE_NAME_MAX}", native.len()));
        } else if !is_native_name(&native) && op_re.is_none_or(|re| re.is_match(name)) {
            // (A name outside the op pattern is `invalid-op` already.)
            err(spec, out, file, "native-name-invalid", &pointer, format!("{what} `{name}` has the native name `{native}`, which agent APIs refuse: a tool name is letters, digits, `_` and `-` (the rule writes only `.` as `_`)"));
        }
        if let Some((_, other_what, other)) = seen.iter().find(|(n, _, _)| *n == native) {
            err(spec, out, file, "native-name-collision", &pointer, format!("{what} `{name}` and {other_what} `{other}` have one native name, `{native}`: a native call of it could not say which it means"));
        }
        seen.push((native, what, name));
    }
}

/// The subset the typed structs are generated from (P141).
fn check_subset(spec: &Spec, out: &mut Vec<Diagnostic>, aptr: &str, args: &Value, key_re: &Regex) {
    let sub = "args-outside-subset";
    if args.get("type").and_then(Value::as_str) != Some("object") {
        err(spec, out, O, sub, aptr, "the argument schema must say `\"type\": \"object\"`: a call's arguments are one JSON object".to_owned());
    }
    if args.get("additionalProperties") != Some(&Value::Bool(false)) {
        err(spec, out, O, sub, aptr, "the argument schema must say `\"additionalProperties\": false`: a key the op does not name must not run (P141)".to_owned());
    }
    let props = args.get("properties").and_then(Value::as_object);
    if props.is_none() {
        err(
            spec,
            out,
            O,
            sub,
            aptr,
            "the argument schema must list its keys in `properties` (an empty object for none)"
                .to_owned(),
        );
    }
    let mut names: Vec<(String, String)> = Vec::new();
    for (key, p) in props.into_iter().flatten() {
        let ptr = child(&format!("{aptr}/properties"), key);
        if !key_re.is_match(key) {
            err(spec, out, O, sub, &ptr, format!("argument key `{key}` must be lower-case snake_case (`[a-z][a-z0-9_]*`) to be a field in both languages"));
        }
        let t = p.get("type").and_then(Value::as_str);
        if t.and_then(ArgTy::from_json_type).is_none() {
            err(spec, out, O, sub, &ptr, format!("argument `{key}` needs one `type` of string, integer, number, boolean, object, array"));
        }
        let (r, py) = (ident::rust_field(key), ident::python_field(key));
        if let Some((other, _)) = names.iter().find(|(_, n)| *n == r || *n == py) {
            err(
                spec,
                out,
                O,
                sub,
                &ptr,
                format!("arguments `{other}` and `{key}` get the same field name"),
            );
        }
        names.push((key.clone(), r));
    }
    if let Some(req) = args.get("required").and_then(Value::as_array) {
        for (i, r) in req.iter().enumerate() {
            if !r
                .as_str()
                .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
            {
                err(
                    spec,
                    out,
                    O,
                    sub,
                    &format!("{aptr}/required/{i}"),
                    format!("required key {r} is not in `properties`"),
                );
            }
        }
    }
}

/// The catalogue, when the spec has an `ops.json`. Runs on checked specs;
/// reads defensively (what [`check`] reports is left out, never a panic).
pub fn lower(spec: &Spec) -> Option<OpsIr> {
    let file = spec.ops.as_ref()?;
    let d = &spec.directives;
    let ops = file
        .ops
        .iter()
        .map(|(name, op)| {
            let mut missing: Vec<String> = op.missing.iter().cloned().collect();
            for (g, group) in op.actions.iter().flat_map(|a| &a.groups) {
                if group.names.len() < group.count as usize {
                    missing.push(format!(
                        "The catalogue names {} of the {} `{g}` actions.",
                        group.names.len(),
                        group.count
                    ));
                }
            }
            let missing = (!missing.is_empty()).then(|| missing.join(" "));
            let required: Vec<&str> = op
                .args
                .as_ref()
                .and_then(|a| a.get("required"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let args = op
                .args
                .as_ref()
                .and_then(|a| a.get("properties"))
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(key, p)| {
                    let ty = ArgTy::from_json_type(p.get("type")?.as_str()?)?;
                    Some(ArgIr {
                        key: key.clone(),
                        rust_name: ident::rust_field(key),
                        py_name: ident::python_field(key),
                        ty,
                        py_type: match ty {
                            ArgTy::String => "str",
                            ArgTy::Integer => "int",
                            ArgTy::Number => "float",
                            ArgTy::Boolean => "bool",
                            ArgTy::Object => "dict[str, Any]",
                            ArgTy::Array => "list[Any]",
                        }
                        .to_owned(),
                        required: required.contains(&key.as_str()),
                        description: p
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        schema: p.to_string(),
                    })
                })
                .collect();
            let variant = ident::rust_type(&name.replace(['.', '-'], "_"));
            OpIr {
                name: name.clone(),
                native_name: native_name(name),
                args_type: format!("{variant}Args"),
                variant,
                description: op.description.clone(),
                engines: op.engines.clone(),
                side_effecting: op.side_effecting,
                aliases: d
                    .aliases
                    .iter()
                    .filter(|(_, t)| *t == name)
                    .map(|(a, _)| a.clone())
                    .collect(),
                shorthands: d
                    .shorthands
                    .iter()
                    .filter(|(_, s)| s.op == *name)
                    .map(|(k, _)| k.clone())
                    .collect(),
                args_schema: op.args.as_ref().map(Value::to_string),
                args_schema_pretty: op
                    .args
                    .as_ref()
                    .map(|a| serde_json::to_string_pretty(a).expect("serializes")),
                args,
                runnable: missing.is_none() && op.args.is_some(),
                missing,
                examples: op.examples.iter().map(Value::to_string).collect(),
            }
        })
        .collect();
    Some(OpsIr {
        ops,
        aliases: d
            .aliases
            .iter()
            .map(|(a, o)| (a.clone(), o.clone()))
            .collect(),
        native_engine: file.native_engine.clone(),
        title: file.title.clone(),
        source: file.source.clone(),
    })
}
