//! The exec op catalogue of the generated crate: every op's examples
//! resolve, each error kind, aliases, engine rules and the `tools.list`
//! response. Expectations come from `schema/ops.json` and
//! `schema/directives.json` read here as plain JSON, so a spec change that
//! keeps the rules passes.

use agent_sentences::ops::{self, Op, ResolveErrorKind};
use agent_sentences::scan::{self, Item, ToolDirective};
use serde_json::{json, Map, Value};

fn spec(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/").to_owned() + name;
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn ops_spec() -> Map<String, Value> {
    spec("ops.json")["ops"].as_object().unwrap().clone()
}

fn runnable(op: &Value) -> bool {
    op.get("args").is_some() && op.get("missing").is_none()
}

/// The one directive the scanner finds in `text`.
fn directive(text: &str) -> ToolDirective {
    let found = scan::scan(text);
    assert_eq!(found.len(), 1, "{text}");
    match &found[0].item {
        Item::Directive { directive } => directive.clone(),
        Item::Sentence { .. } => panic!("{text}: a sentence"),
    }
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn every_example_of_every_op_resolves_on_every_engine_it_allows() {
    let mut n = 0;
    for (name, op) in ops_spec() {
        for ex in op["examples"].as_array().into_iter().flatten() {
            for engine in op["engines"].as_array().unwrap() {
                let text = format!("[{} {name} {ex}]", engine.as_str().unwrap());
                let call =
                    ops::resolve(&directive(&text)).unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(call.op().name(), name);
                assert_eq!(&call.args(), ex, "{text}");
                n += 1;
            }
        }
    }
    assert!(n > 0);
}

#[test]
fn an_op_outside_the_catalogue_never_runs() {
    for op in [
        "..",
        "-",
        "--help",
        ".fs.rm.",
        "followup.Create",
        "followup.create.",
        "rm",
    ] {
        let text = format!("[TOOL {op} {{}}]");
        let e = ops::resolve(&directive(&text)).unwrap_err();
        assert_eq!(e.kind, ResolveErrorKind::UnknownOp, "{text}");
        assert_eq!(e.op, op);
        assert!(e.message.contains("not run"), "{}", e.message);
    }
}

#[test]
fn an_op_never_runs_through_an_engine_it_does_not_allow() {
    let engines: Vec<String> = spec("directives.json")["engines"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for (name, op) in ops_spec() {
        let allowed: Vec<&str> = op["engines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        let args = obj(op["examples"].get(0).cloned().unwrap_or(json!({})));
        for engine in engines
            .iter()
            .map(String::as_str)
            .filter(|e| !allowed.contains(e))
            .chain(["DM", "tool", ""])
        {
            let e = ops::resolve_parts(engine, &name, &args).unwrap_err();
            assert_eq!(
                e.kind,
                ResolveErrorKind::EngineNotAllowed,
                "{name} on {engine}"
            );
            assert_eq!(e.engine, engine);
        }
    }
}

#[test]
fn an_incomplete_op_never_runs_whatever_its_arguments() {
    let mut n = 0;
    for (name, op) in ops_spec().into_iter().filter(|(_, op)| !runnable(op)) {
        for engine in op["engines"].as_array().unwrap() {
            for args in [
                json!({}),
                json!({"action": "status"}),
                json!({"to": "646", "text": "hi"}),
            ] {
                let e =
                    ops::resolve_parts(engine.as_str().unwrap(), &name, &obj(args)).unwrap_err();
                assert_eq!(e.kind, ResolveErrorKind::Incomplete, "{name}");
                assert!(
                    e.message.contains(op["missing"].as_str().unwrap()),
                    "{}",
                    e.message
                );
                n += 1;
            }
        }
        assert!(!Op::from_name(&name).unwrap().spec().complete());
    }
    assert!(n > 0, "the spec has incomplete ops (P140)");
}

/// A value of another JSON type than `ty`.
fn wrong_type(ty: &str) -> Value {
    match ty {
        "string" => json!(1),
        _ => json!("x"),
    }
}

#[test]
fn bad_arguments_are_reported_each_at_its_pointer() {
    for (name, op) in ops_spec().into_iter().filter(|(_, op)| runnable(op)) {
        let schema = &op["args"];
        let example = obj(op["examples"][0].clone());
        let engine = op["engines"][0].as_str().unwrap();
        // A key the schema does not name: the object itself is at fault.
        let mut extra = example.clone();
        extra.insert("zz_unknown".into(), json!(1));
        let e = ops::resolve_parts(engine, &name, &extra).unwrap_err();
        assert_eq!(e.kind, ResolveErrorKind::InvalidArgs, "{name}");
        assert_eq!(e.errors.len(), 1, "{e}");
        assert_eq!(e.errors[0].pointer, "", "{e}");
        assert!(e.errors[0].message.contains("zz_unknown"), "{e}");
        // Each required key missing.
        for key in schema["required"].as_array().into_iter().flatten() {
            let mut args = example.clone();
            args.remove(key.as_str().unwrap());
            let e = ops::resolve_parts(engine, &name, &args).unwrap_err();
            assert_eq!(e.kind, ResolveErrorKind::InvalidArgs);
            assert!(
                e.errors
                    .iter()
                    .any(|a| a.pointer.is_empty() && a.message.contains(key.as_str().unwrap())),
                "{e}"
            );
        }
        // Every property of the wrong type at once: one fault per key, at its pointer.
        let props = schema["properties"].as_object().unwrap();
        if props.is_empty() {
            continue;
        }
        let mut args = example.clone();
        for (k, p) in props {
            args.insert(k.clone(), wrong_type(p["type"].as_str().unwrap()));
        }
        let e = ops::resolve_parts(engine, &name, &args).unwrap_err();
        let mut pointers: Vec<String> = e.errors.iter().map(|a| a.pointer.clone()).collect();
        pointers.sort();
        let mut want: Vec<String> = props.keys().map(|k| format!("/{k}")).collect();
        want.sort();
        assert_eq!(pointers, want, "{e}");
    }
}

#[test]
fn followup_create_bounds_come_from_its_schema() {
    let e = ops::resolve(&directive(
        r#"[TOOL followup.create {"in_m": 0, "prompt": ""}]"#,
    ))
    .unwrap_err();
    assert_eq!(e.kind, ResolveErrorKind::InvalidArgs);
    let pointers: Vec<&str> = e.errors.iter().map(|a| a.pointer.as_str()).collect();
    assert_eq!(pointers, ["/in_m", "/prompt"], "{e}");
    assert_eq!(e.to_string().matches("; at ").count(), 2, "{e}");
    // A float the schema calls an integer is still no i64: not run.
    let e = ops::resolve(&directive(r#"[TOOL followup.create {"in_m": 5.0}]"#)).unwrap_err();
    assert_eq!(e.kind, ResolveErrorKind::InvalidArgs, "{e}");
}

#[test]
fn aliases_and_shorthands_resolve_to_their_op() {
    let d = spec("directives.json");
    let ops = ops_spec();
    for (alias, target) in d["aliases"].as_object().unwrap() {
        let target = target.as_str().unwrap();
        let op = &ops[target];
        let args = op["examples"].get(0).cloned().unwrap_or(json!({}));
        let text = format!("[TOOL {alias} {args}]");
        let dir = directive(&text);
        assert_eq!(dir.written_op, *alias);
        match ops::resolve(&dir) {
            Ok(call) => {
                assert!(runnable(op));
                assert_eq!(call.op().name(), target);
            }
            Err(e) => {
                assert!(!runnable(op), "{text}: {e}");
                assert_eq!(
                    (e.kind, e.op.as_str()),
                    (ResolveErrorKind::Incomplete, target)
                );
            }
        }
        // A hand-made call may name the alias too.
        assert_eq!(
            ops::resolve_parts("TOOL", alias, &obj(args))
                .map(|c| c.op().name())
                .map_err(|e| e.op),
            ops::resolve(&dir).map(|c| c.op().name()).map_err(|e| e.op)
        );
        assert!(Op::from_name(target)
            .unwrap()
            .spec()
            .aliases
            .contains(&alias.as_str()));
    }
    for (keyword, sh) in d["shorthands"].as_object().unwrap() {
        let dir = directive(&format!("[{keyword} {{\"to\": \"646\"}}]"));
        let r = ops::resolve(&dir);
        assert_eq!(
            r.map(|c| c.op().name().to_owned()).unwrap_or_else(|e| e.op),
            sh["op"].as_str().unwrap()
        );
    }
}

#[test]
fn tools_list_lists_every_op_with_its_flag_and_schema() {
    let got = serde_json::to_value(ops::tools_list()).unwrap();
    let d = spec("directives.json");
    let want: Vec<Value> = ops_spec()
        .iter()
        .map(|(name, op)| {
            let aliases: Vec<&String> = d["aliases"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, t)| *t == name)
                .map(|(a, _)| a)
                .collect();
            let mut missing: Vec<String> = op
                .get("missing")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .into_iter()
                .collect();
            for (g, group) in op
                .pointer("/actions/groups")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let (n, count) = (
                    group["names"].as_array().unwrap().len(),
                    group["count"].as_u64().unwrap(),
                );
                if (n as u64) < count {
                    missing.push(format!(
                        "The catalogue names {n} of the {count} `{g}` actions."
                    ));
                }
            }
            json!({
                "name": name,
                "description": op["description"],
                "side_effecting": op["side_effecting"],
                "engines": op["engines"],
                "aliases": aliases,
                "runnable": runnable(op),
                "args": op.get("args").cloned().unwrap_or(Value::Null),
                "missing": if missing.is_empty() { Value::Null } else { json!(missing.join(" ")) },
            })
        })
        .collect();
    assert_eq!(got, json!({ "ops": want }));
    assert_eq!(Op::ALL.len(), ops_spec().len());
    for op in Op::ALL {
        assert_eq!(
            op.side_effecting(),
            ops_spec()[op.name()]["side_effecting"].as_bool().unwrap()
        );
    }
}

#[test]
fn tools_list_itself_resolves_and_box_exec_is_read_only() {
    // D5 and D2, as the seed settles them.
    let call = ops::resolve(&directive("[TOOL tools {}]")).unwrap();
    assert_eq!(call.op(), Op::from_name("tools.list").unwrap());
    assert!(!Op::from_name("tools.list").unwrap().side_effecting());
    assert!(!Op::from_name("box.exec").unwrap().side_effecting());
    let e = ops::resolve(&directive(r#"[TOOL tools {"name": "x"}]"#)).unwrap_err();
    assert_eq!(e.kind, ResolveErrorKind::InvalidArgs);
}

// --- native tool calling (P290-P296) ---------------------------------------

/// The ops an agent API's tool list offers, from the spec: the runnable ops
/// that allow `/native_engine`, in catalogue order, with their spec entries.
fn listed() -> Vec<(String, Value)> {
    let engine = spec("ops.json")["native_engine"]
        .as_str()
        .unwrap_or("TOOL")
        .to_owned();
    assert_eq!(engine, ops::NATIVE_ENGINE);
    ops_spec()
        .into_iter()
        .filter(|(_, op)| {
            runnable(op) && op["engines"].as_array().unwrap().contains(&json!(engine))
        })
        .collect()
}

/// Checks `value` against the shape `shape`, and that the shape refuses the
/// same value with its first tool renamed to a dotted op name (so the shape
/// holds the names, and the test can fail).
fn fits_shape(shape: &Value, value: &Value, first_name: &str) {
    let v = jsonschema::draft202012::new(shape).unwrap();
    let faults: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(faults.is_empty(), "{faults:?}\n{value:#}");
    let mut bad = value.clone();
    *bad.pointer_mut(first_name).unwrap() = json!("followup.create");
    assert!(!v.is_valid(&bad), "the shape takes a dotted name");
}

/// A tool name every API takes (OpenAI: "a-z, A-Z, 0-9, or contain
/// underscores and dashes, with a maximum length of 64"; Anthropic:
/// `^[a-zA-Z0-9_-]{1,64}$`).
const NAME: &str = "^[a-zA-Z0-9_-]{1,64}$";

#[test]
fn the_openai_tools_array_fits_the_published_shape() {
    // The Chat Completions `tools` parameter as OpenAI publishes it: the
    // `ChatCompletionTool` and `FunctionObject` schemas of
    // https://github.com/openai/openai-openapi (openapi.yaml) and
    // https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools;
    // `additionalProperties: false` added so no key outside the shape passes.
    let shape = json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["type", "function"],
            "additionalProperties": false,
            "properties": {
                "type": { "const": "function" },
                "function": {
                    "type": "object",
                    "required": ["name"],
                    "additionalProperties": false,
                    "properties": {
                        "name": { "type": "string", "pattern": NAME },
                        "description": { "type": "string" },
                        "parameters": { "type": "object" },
                        "strict": { "type": ["boolean", "null"] }
                    }
                }
            }
        }
    });
    let got = ops::native_tools(ops::NativeApi::OpenAi);
    fits_shape(&shape, &got, "/0/function/name");
    let want: Vec<Value> = listed()
        .into_iter()
        .map(|(name, op)| json!({"type": "function", "function": {
            "name": name.replace('.', "_"), "description": op["description"], "parameters": op["args"] }}))
        .collect();
    assert_eq!(got, json!(want));
}

#[test]
fn the_anthropic_tools_array_fits_the_published_shape() {
    // The Messages API `tools` parameter (custom tools) as Anthropic
    // publishes it: https://docs.anthropic.com/en/api/messages (`tools`:
    // `name`, `description`, `input_schema` with `type: "object"`, optional
    // `type: "custom"` and `cache_control`) and the tool-use guide's name
    // rule, https://docs.anthropic.com/en/docs/build-with-claude/tool-use.
    let shape = json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["name", "input_schema"],
            "additionalProperties": false,
            "properties": {
                "type": { "const": "custom" },
                "name": { "type": "string", "pattern": NAME },
                "description": { "type": "string" },
                "input_schema": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {
                        "type": { "const": "object" },
                        "properties": { "type": ["object", "null"] },
                        "required": { "type": ["array", "null"], "items": { "type": "string" } }
                    }
                },
                "cache_control": { "type": ["object", "null"] }
            }
        }
    });
    let got = ops::native_tools(ops::NativeApi::Anthropic);
    fits_shape(&shape, &got, "/0/name");
    let want: Vec<Value> = listed()
        .into_iter()
        .map(|(name, op)| json!({ "name": name.replace('.', "_"), "description": op["description"], "input_schema": op["args"] }))
        .collect();
    assert_eq!(got, json!(want));
}

#[test]
fn the_mcp_tools_list_result_fits_the_published_shape() {
    // `ListToolsResult`, `Tool` and `ToolAnnotations` of the Model Context
    // Protocol's schema, revision 2025-06-18:
    // https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-06-18/schema.json
    // (`additionalProperties: false` added, and the tool name held to the
    // characters OpenAI and Anthropic take, P290).
    let shape = json!({
        "type": "object",
        "required": ["tools"],
        "additionalProperties": false,
        "properties": {
            "_meta": { "type": "object" },
            "nextCursor": { "type": "string" },
            "tools": { "type": "array", "items": {
                "type": "object",
                "required": ["inputSchema", "name"],
                "additionalProperties": false,
                "properties": {
                    "_meta": { "type": "object" },
                    "name": { "type": "string", "pattern": NAME },
                    "title": { "type": "string" },
                    "description": { "type": "string" },
                    "inputSchema": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {
                            "type": { "const": "object" },
                            "properties": { "type": "object", "additionalProperties": { "type": "object" } },
                            "required": { "type": "array", "items": { "type": "string" } }
                        }
                    },
                    "outputSchema": { "type": "object" },
                    "annotations": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "title": { "type": "string" },
                            "readOnlyHint": { "type": "boolean" },
                            "destructiveHint": { "type": "boolean" },
                            "idempotentHint": { "type": "boolean" },
                            "openWorldHint": { "type": "boolean" }
                        }
                    }
                }
            } }
        }
    });
    let got = ops::native_tools(ops::NativeApi::Mcp);
    fits_shape(&shape, &got, "/tools/0/name");
    let want: Vec<Value> = listed()
        .into_iter()
        .map(|(name, op)| {
            let side = op["side_effecting"].as_bool().unwrap();
            json!({ "name": name.replace('.', "_"), "description": op["description"], "inputSchema": op["args"],
                    "annotations": { "readOnlyHint": !side, "destructiveHint": side } })
        })
        .collect();
    assert_eq!(got, json!({ "tools": want }));
}

#[test]
fn every_native_name_maps_back_to_its_op_or_alias() {
    let d = spec("directives.json");
    let aliases = d["aliases"].as_object().unwrap().keys().cloned();
    let names: Vec<String> = ops_spec().keys().cloned().chain(aliases).collect();
    let mut natives: Vec<String> = Vec::new();
    for name in &names {
        let native = ops::native_name(name);
        assert!(ops::is_native_name(&native), "{name} → {native}");
        assert_eq!(ops::CATALOGUE.native_target(&native), Some(name.as_str()));
        assert!(!natives.contains(&native), "{native} twice");
        natives.push(native);
    }
    for op in Op::ALL {
        assert_eq!(op.native_name(), ops::native_name(op.name()));
    }
    // Only the listed names map: a dotted op name is not one (P290).
    let dotted = ops_spec()
        .keys()
        .find(|n| n.contains('.'))
        .cloned()
        .unwrap();
    assert_eq!(ops::CATALOGUE.native_target(&dotted), None);
    let e = ops::resolve_native(&dotted, "{}").unwrap_err();
    assert_eq!(
        (e.kind, e.op.as_str()),
        (ResolveErrorKind::UnknownOp, dotted.as_str())
    );
}

#[test]
fn native_arguments_are_read_as_strictly_as_in_band_ones() {
    for (name, op) in ops_spec() {
        let native = ops::native_name(&name);
        for text in ["", "[]", "{\"a\": 1, \"a\": 2}", "{\"in_m\": 5} x", "null"] {
            let e = ops::resolve_native(&native, text).unwrap_err();
            // The op's own faults come first, as in-band (P293).
            let kind = if runnable(&op) {
                ResolveErrorKind::InvalidArgs
            } else {
                ResolveErrorKind::Incomplete
            };
            assert_eq!(
                (e.kind, e.op.as_str()),
                (kind, name.as_str()),
                "{native} {text:?}: {e}"
            );
            if kind == ResolveErrorKind::InvalidArgs {
                assert_eq!(e.errors.len(), 1);
                assert_eq!(e.errors[0].pointer, "");
            }
            assert_eq!(
                ops::render_native(&native, text).unwrap_err().kind,
                ResolveErrorKind::InvalidArgs
            );
        }
    }
    let e = ops::render_native("no_such_op", "{}").unwrap_err();
    assert_eq!(e.kind, ResolveErrorKind::UnknownOp);
}

mod native_twins {
    use super::*;
    use proptest::prelude::*;

    /// Every op and alias the catalogue names, as written in a call.
    fn written() -> Vec<String> {
        let d = spec("directives.json");
        let aliases = d["aliases"].as_object().unwrap().keys().cloned();
        ops_spec().keys().cloned().chain(aliases).collect()
    }

    /// Argument values: what the schemas accept and what they refuse. No
    /// backslash or backtick: in a message those are Markdown's.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop_oneof![Just(0i64), Just(1), Just(5), Just(-3), any::<i64>()]
                .prop_map(|n| json!(n)),
            Just(json!(2.5)),
            "[a-z A-Z0-9.,:\\]\\}\\[{]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop::collection::vec(inner, 0..3).prop_map(Value::Array)
        })
    }

    /// An argument object: an op's example, or keys its schemas know and
    /// one they do not, with any values.
    fn args() -> impl Strategy<Value = Map<String, Value>> {
        let examples: Vec<Map<String, Value>> = ops_spec()
            .values()
            .flat_map(|op| op["examples"].as_array().cloned().unwrap_or_default())
            .map(obj)
            .collect();
        let keys = prop::sample::subsequence(vec!["in_m", "prompt", "name", "to"], 0..=4);
        prop_oneof![
            prop::sample::select(examples),
            (keys, prop::collection::vec(value(), 4)).prop_map(|(keys, values)| {
                keys.into_iter().map(str::to_owned).zip(values).collect()
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// P294: a native call and its in-band twin resolve alike, and the
        /// native call written in-band is that twin.
        #[test]
        fn every_in_band_call_and_its_native_twin_resolve_alike(
            name in prop::sample::select(written()),
            args in args(),
        ) {
            let json_text = Value::Object(args.clone()).to_string();
            let in_band = format!("[{} {name} {json_text}]", ops::NATIVE_ENGINE);
            let dir = directive(&in_band);
            let native = ops::native_name(&name);
            prop_assert_eq!(ops::resolve_native(&native, &json_text), ops::resolve(&dir));
            let rendered = ops::render_native(&native, &json_text).unwrap();
            let again = directive(&rendered);
            prop_assert_eq!((&again.op, &again.written_op, &again.args), (&dir.op, &dir.written_op, &dir.args));
            prop_assert_eq!(again.engine, ops::NATIVE_ENGINE);
        }
    }
}
