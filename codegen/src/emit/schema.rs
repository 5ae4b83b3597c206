//! The JSON Schema of the spec format, derived with `schemars` from the
//! generator's own model types ([`crate::model`]).

use schemars::schema_for;
use serde_json::{Map, Value};

use crate::emit::header::JSON_COMMENT;
use crate::model::{
    DirectivesFile, EnvelopeFile, LoopsFile, OpsFile, PatternsFile, StructuresFile,
};

fn with_comment(schema: Value) -> String {
    let mut out = Map::new();
    out.insert(
        "$comment".to_owned(),
        Value::String(JSON_COMMENT.to_owned()),
    );
    if let Value::Object(m) = schema {
        out.extend(m);
    }
    serde_json::to_string_pretty(&Value::Object(out)).expect("a Value always serializes") + "\n"
}

/// `generated/schema/structures.schema.json`: the format of `schema/structures.json`.
pub fn structures_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(StructuresFile)).expect("schema serializes"))
}

/// `generated/schema/regex_patterns.schema.json`: the format of `schema/regex_patterns.json`.
pub fn patterns_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(PatternsFile)).expect("schema serializes"))
}

/// `generated/schema/directives.schema.json`: the format of `schema/directives.json`.
pub fn directives_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(DirectivesFile)).expect("schema serializes"))
}

/// `generated/schema/loops.schema.json`: the format of `schema/loops.json`.
pub fn loops_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(LoopsFile)).expect("schema serializes"))
}

/// `generated/schema/ops.schema.json`: the format of `schema/ops.json`.
pub fn ops_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(OpsFile)).expect("schema serializes"))
}

/// `generated/schema/envelope.schema.json`: the format of `schema/envelope.json`.
pub fn envelope_schema() -> String {
    with_comment(serde_json::to_value(schema_for!(EnvelopeFile)).expect("schema serializes"))
}
