//! The `schemars` feature of the generated crate: a JSON Schema per type.

#[test]
fn sentence_schema_has_one_variant_per_structure() {
    let schema = serde_json::to_value(schemars::schema_for!(agent_sentences::Sentence)).unwrap();
    let variants = schema["oneOf"]
        .as_array()
        .expect("an internally tagged enum is a oneOf");
    assert_eq!(variants.len(), agent_sentences::SentenceKind::ALL.len());
    let tags: Vec<&str> = variants
        .iter()
        .map(|v| {
            v["properties"]["structure"]["enum"][0]
                .as_str()
                .or(v["properties"]["structure"]["const"].as_str())
                .unwrap()
        })
        .collect();
    assert_eq!(tags[0], "work_order");
    assert!(tags.contains(&"subagent_update"));
    let nudge = serde_json::to_value(schemars::schema_for!(agent_sentences::Nudge)).unwrap();
    assert_eq!(nudge["properties"]["count"]["type"], "integer");
    assert_eq!(nudge["required"].as_array().unwrap().len(), 4);
}
