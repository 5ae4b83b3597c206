//! The generated crate's metadata (field types, pattern directory, raw spec
//! entries) agrees with the spec files and with the generated types.

use std::path::Path;

use agent_sentences::patterns::{self, PatternInfo};
use agent_sentences::*;
use serde_json::Value;

fn spec(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schema")
        .join(file);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn spec_json_of_every_structure_is_the_schema_entry() {
    let structures = spec("structures.json");
    for kind in SentenceKind::ALL {
        let embedded: Value = serde_json::from_str(kind.spec_json()).unwrap();
        assert_eq!(embedded, structures["structures"][kind.key()], "{kind}");
    }
    assert_eq!(SPEC_TITLE, structures["title"]);
    assert_eq!(SPEC_VERSION, structures["version"]);
}

#[test]
fn spec_json_of_every_pattern_is_the_schema_entry_and_keeps_key_order() {
    let file = spec("regex_patterns.json");
    let table = file["patterns"].as_object().unwrap();
    let keys: Vec<&str> = patterns::INFO.iter().map(|p| p.key).collect();
    assert_eq!(keys, table.keys().map(String::as_str).collect::<Vec<_>>());
    for p in patterns::INFO {
        let embedded: Value = serde_json::from_str(p.spec_json).unwrap();
        assert_eq!(embedded, table[p.key], "{}", p.key);
        let written: Vec<&String> = embedded.as_object().unwrap().keys().collect();
        let original: Vec<&String> = table[p.key].as_object().unwrap().keys().collect();
        assert_eq!(written, original, "{}: keys in written order", p.key);
    }
}

#[test]
fn field_info_follows_the_struct_fields_with_their_types() {
    for kind in SentenceKind::ALL {
        let names: Vec<&str> = kind.field_info().iter().map(|f| f.name).collect();
        assert_eq!(names, kind.fields(), "{kind}");
    }
    let status = SentenceKind::ResultSentence
        .field_info()
        .iter()
        .find(|f| f.name == "status")
        .unwrap();
    assert_eq!(status.ty, ValueType::Enum);
    assert_eq!(status.rust_type, "Option<Status>");
    assert!(!status.required);
    assert_eq!(status.values, Status::ALL.map(Status::as_str));
    let args = SentenceKind::ToolCall
        .field_info()
        .iter()
        .find(|f| f.name == "args_json")
        .unwrap();
    assert_eq!(
        (args.ty, args.rust_type, args.groups),
        (ValueType::JsonObject, "JsonObject", &["args"][..])
    );
    let count = SentenceKind::Nudge.field_info()[1];
    assert_eq!(
        (count.name, count.ty, count.rust_type),
        ("count", ValueType::Integer, "u32")
    );
    let slot = SentenceKind::JobMarker
        .field_info()
        .iter()
        .find(|f| f.name == "slot")
        .unwrap();
    assert_eq!(slot.derived_from, Some("job_id"));
    assert_eq!(
        SentenceKind::WorkOrder.omitted_fields(),
        ["priority", "due"]
    );
    assert!(SentenceKind::Claim.omitted_fields().is_empty());
    assert_eq!(SentenceKind::Claim.fixed_groups(), [("verb", "CLAIM")]);
    assert_eq!(SentenceKind::ToolCall.fixed_groups(), [("engine", "TOOL")]);
    assert!(SentenceKind::Ack.fixed_groups().is_empty());
    assert!(SentenceKind::Decline.binding_note().is_some());
    assert_eq!(SentenceKind::WorkOrder.binding_note(), None);
}

#[test]
fn pattern_info_matches_the_constants_and_its_own_examples() {
    let keys: Vec<(&str, &str)> = patterns::INFO.iter().map(|p| (p.key, p.source)).collect();
    assert_eq!(keys, patterns::ALL);
    for p in patterns::INFO {
        for m in p.matches {
            let caps = p
                .full_regex()
                .captures(m.text)
                .unwrap_or_else(|| panic!("{}: {:?}", p.key, m.text));
            for c in m.captures {
                assert_eq!(
                    caps.name(c.group).map(|x| x.as_str()),
                    Some(c.text),
                    "{} group {}",
                    p.key,
                    c.group
                );
            }
            assert!(p.regex().is_match(m.text));
        }
        for n in p.non_matches {
            assert!(!p.full_regex().is_match(n), "{}: {n:?}", p.key);
        }
    }
}

#[test]
fn full_regex_is_anchored_and_regex_searches() {
    let result: &PatternInfo = patterns::info("result").unwrap();
    let text = "see [RESULT 7fce46e0] OK done";
    assert!(!result.full_regex().is_match(text));
    assert_eq!(result.regex().find(text).map(|m| m.start()), Some(4));
    assert!(patterns::info("no_such_pattern").is_none());
    let wo = patterns::info("work_order").unwrap();
    assert_eq!(wo.flags, ["MULTILINE", "DOTALL"]);
    assert_eq!(wo.groups[0].field, "dm_id");
    assert_eq!(wo.groups[0].name, "wo_id");
}
