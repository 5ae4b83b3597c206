//! `box-docs tools`: the op catalogue as a tool list, as text, as each
//! API's tools array and as MCP's `tools/list` result.

mod common;

use common::{ok, run};
use serde_json::Value;
use std::path::Path;

fn ops_json() -> serde_json::Map<String, Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/ops.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["ops"].as_object().unwrap().clone()
}

#[test]
fn tools_json_is_the_tools_list_response() {
    let r = ok(&["tools", "--json"]);
    assert_eq!(
        r.json(),
        serde_json::to_value(agent_sentences::ops::tools_list()).unwrap()
    );
    let listed: Vec<(String, bool, Value)> = r.json()["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().to_owned(),
                o["side_effecting"].as_bool().unwrap(),
                o["args"].clone(),
            )
        })
        .collect();
    let want: Vec<(String, bool, Value)> = ops_json()
        .iter()
        .map(|(k, o)| {
            (
                k.clone(),
                o["side_effecting"].as_bool().unwrap(),
                o.get("args").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    assert_eq!(listed, want);
}

#[test]
fn tools_format_prints_each_api_s_tool_list() {
    // P296: the tool list is JSON with or without --json; the crate's own
    // rendering (held to each API's shape in tests/downstream) is what prints.
    for (format, api) in [
        ("openai", agent_sentences::ops::NativeApi::OpenAi),
        ("anthropic", agent_sentences::ops::NativeApi::Anthropic),
        ("mcp", agent_sentences::ops::NativeApi::Mcp),
    ] {
        let want = agent_sentences::ops::native_tools(api);
        assert_eq!(ok(&["tools", "--format", format]).json(), want);
        assert_eq!(ok(&["tools", "--format", format, "--json"]).json(), want);
    }
    let listed = ok(&["tools", "--format", "anthropic"]).json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.is_empty()
            && names
                .iter()
                .all(|n| agent_sentences::ops::is_native_name(n)),
        "{names:?}"
    );
    assert_eq!(run(&["tools", "--format", "gemini"]).code, 2);
    assert_eq!(run(&["tools", "tools", "--format", "mcp"]).code, 2);
}

#[test]
fn tools_lists_every_op_one_per_line_and_shows_each_in_full() {
    let r = ok(&["tools"]);
    let ops = ops_json();
    assert_eq!(r.stdout.lines().count(), ops.len() + 1, "{}", r.stdout);
    for (name, op) in &ops {
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} listed"));
        let side = if op["side_effecting"].as_bool().unwrap() {
            "yes"
        } else {
            "no"
        };
        assert!(line.split_whitespace().nth(1) == Some(side), "{line}");
        let one = ok(&["tools", name]);
        assert!(
            one.stdout.starts_with(&format!("{name}\n")),
            "{}",
            one.stdout
        );
        if let Some(args) = op.get("args") {
            assert!(one.stdout.contains("args (JSON Schema 2020-12):"));
            assert_eq!(ok(&["tools", name, "--json"]).json()["args"], *args);
        } else {
            assert!(
                one.stdout
                    .contains(&format!("no: {}", op["missing"].as_str().unwrap())),
                "{}",
                one.stdout
            );
        }
    }
    // An alias names its op; an unknown op is a usage error.
    assert!(ok(&["tools", "tools"]).stdout.starts_with("tools.list\n"));
    let bad = run(&["tools", "fs.rm"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.starts_with("error: no op named `fs.rm`"),
        "{}",
        bad.stderr
    );
}
