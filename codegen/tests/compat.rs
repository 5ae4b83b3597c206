//! `compat::compare`: one fixture per kind of breaking change, additive
//! changes, and the version rule. Each fixture is the real spec with one
//! edit (made on the parsed JSON, so the edited spec stays valid: the
//! comparison refuses a spec with lint errors), compared with the real spec.

use agent_sentences_codegen::compat::{compare, parse_version, Comparison, Impact};
use serde_json::{json, Value};

mod common;

/// The real spec, with `edit` applied to (structures, patterns, directives)
/// and written pretty-printed to a temporary directory.
fn edited(edit: impl FnOnce(&mut Value, &mut Value, &mut Value)) -> tempfile::TempDir {
    let read = |f: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(common::root().join("schema").join(f)).unwrap(),
        )
        .unwrap()
    };
    let (mut s, mut p, mut d) = (
        read("structures.json"),
        read("regex_patterns.json"),
        read("directives.json"),
    );
    edit(&mut s, &mut p, &mut d);
    let dir = tempfile::tempdir().unwrap();
    for (f, v) in [
        ("structures.json", &s),
        ("regex_patterns.json", &p),
        ("directives.json", &d),
    ] {
        std::fs::write(
            dir.path().join(f),
            serde_json::to_string_pretty(v).unwrap() + "\n",
        )
        .unwrap();
    }
    dir
}

/// Compares the real spec (old) with `new`.
fn against_real(new: &tempfile::TempDir) -> Comparison {
    compare(&common::root().join("schema"), new.path())
        .unwrap_or_else(|r| panic!("the edited spec must be valid:\n{r}"))
}

/// `(impact, code, pointer)` of every change.
fn kinds(c: &Comparison) -> Vec<(Impact, &str, &str)> {
    c.changes
        .iter()
        .map(|x| (x.impact, x.finding.code, x.finding.pointer.as_str()))
        .collect()
}

fn set_version(s: &mut Value, v: &str) {
    s["version"] = json!(v);
}

fn remove_key(v: &mut Value, key: &str) {
    v.as_object_mut()
        .unwrap()
        .shift_remove(key)
        .unwrap_or_else(|| panic!("no key `{key}`"));
}

fn replace_in(v: &mut Value, from: &str, to: &str) {
    let s = v.as_str().unwrap();
    assert_eq!(
        s.matches(from).count(),
        1,
        "`{from}` must occur once in {s}"
    );
    *v = json!(s.replacen(from, to, 1));
}

/// The one `breaking-change-without-major-bump` error at `/version`.
fn assert_version_error(c: &Comparison, n: usize) {
    assert_eq!(c.findings.len(), 1, "{c}");
    let f = &c.findings[0];
    assert_eq!(
        (f.code, f.pointer.as_str()),
        ("breaking-change-without-major-bump", "/version")
    );
    assert_eq!(f.message, format!("{n} breaking change(s) since version 1.0.0, but `version` is 1.0.0: a breaking change needs a major bump (at least 2.0.0)"));
    assert!(
        f.file.ends_with("structures.json") && (f.line, f.column) == (4, 14),
        "{f}"
    );
    assert!(c.has_errors());
}

#[test]
fn the_same_spec_has_no_changes_and_no_findings() {
    let c = against_real(&edited(|_, _, _| {}));
    assert!(c.changes.is_empty() && c.findings.is_empty(), "{c}");
    assert_eq!(
        (
            c.old_version.as_str(),
            c.new_version.as_str(),
            c.breaking,
            c.additive
        ),
        ("1.0.0", "1.0.0", 0, 0)
    );
}

#[test]
fn a_structure_removed() {
    let c = against_real(&edited(|s, _, _| {
        remove_key(&mut s["structures"], "runtime_context")
    }));
    assert_eq!(
        kinds(&c),
        [(Impact::Breaking, "structure-removed", "/structures")]
    );
    let ch = &c.changes[0];
    assert_eq!(
        ch.finding.message,
        "structure `runtime_context` (`RuntimeContext`) was removed or renamed"
    );
    let old = std::fs::read_to_string(common::root().join("schema/structures.json")).unwrap();
    let line = old
        .lines()
        .position(|l| l.contains("\"runtime_context\": {"))
        .unwrap()
        + 1;
    // The earlier location is that of the value (its `{`), in the real spec.
    assert_eq!(
        ch.was.as_deref(),
        Some(
            format!(
                "{}:{line}:24 /structures/runtime_context",
                common::root().join("schema/structures.json").display()
            )
            .as_str()
        )
    );
    assert_version_error(&c, 1);
}

#[test]
fn a_field_renamed_is_removed_and_a_required_one_added() {
    let c = against_real(&edited(|s, p, _| {
        let rc = &mut s["structures"]["runtime_context"];
        rc["required_fields"] = json!(["link"]);
        replace_in(&mut rc["template"], "{url}", "{link}");
        p["patterns"]["runtime_context"]["groups"]["url"]["field"] = json!("link");
        set_version(s, "2.0.0");
    }));
    assert_eq!(
        kinds(&c),
        [
            (
                Impact::Breaking,
                "field-removed",
                "/structures/runtime_context"
            ),
            // The example's values are keyed by field name.
            (
                Impact::Breaking,
                "example-reads-differently",
                "/structures/runtime_context/template"
            ),
            (
                Impact::Breaking,
                "required-field-added",
                "/structures/runtime_context/required_fields/0"
            ),
        ]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "field `runtime_context.url` was removed or renamed"
    );
    assert!(c.findings.is_empty(), "a major bump: {c}");
}

#[test]
fn a_field_type_changed() {
    let c = against_real(&edited(|_, p, _| {
        p["patterns"]["nudge"]["groups"]["count"]["type"] = json!("string")
    }));
    assert_eq!(
        kinds(&c),
        [
            (
                Impact::Breaking,
                "group-type-changed",
                "/patterns/nudge/groups/count"
            ),
            (
                Impact::Breaking,
                "field-type-changed",
                "/structures/nudge/required_fields/1"
            )
        ]
    );
    assert_eq!(
        c.changes[1].finding.message,
        "field `nudge.count` changed type: integer -> string"
    );
    assert_version_error(&c, 2);
}

#[test]
fn an_optional_field_made_required() {
    let c = against_real(&edited(|s, _, _| {
        let ack = &mut s["structures"]["ack"];
        ack["required_fields"] = json!(["dm_id", "sender"]);
        ack["optional_fields"] = json!([]);
    }));
    assert_eq!(
        kinds(&c),
        [(
            Impact::Breaking,
            "field-made-required",
            "/structures/ack/required_fields/1"
        )]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "field `ack.sender` was optional and is now required"
    );
}

#[test]
fn a_pattern_removed() {
    let c = against_real(&edited(|_, p, _| remove_key(&mut p["patterns"], "uuid")));
    assert_eq!(
        kinds(&c),
        [(Impact::Breaking, "pattern-removed", "/patterns")]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "pattern `uuid` was removed or renamed"
    );
    // Where `uuid` is in the real spec: its line, and the column of its `{`.
    let spec = std::fs::read_to_string(common::root().join("schema/regex_patterns.json")).unwrap();
    let (line, text) = spec
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("\"uuid\": {"))
        .unwrap();
    let at = format!(
        "regex_patterns.json:{}:{} /patterns/uuid",
        line + 1,
        text.find('{').unwrap() + 1
    );
    assert!(
        c.changes[0].was.as_deref().unwrap().ends_with(&at),
        "{:?} {at}",
        c.changes[0].was
    );
}

#[test]
fn a_group_renamed_is_removed_and_added() {
    let c = against_real(&edited(|_, p, _| {
        let rc = &mut p["patterns"]["runtime_context"];
        replace_in(&mut rc["pattern"], "(?P<url>", "(?P<link>");
        let g = rc["groups"]
            .as_object_mut()
            .unwrap()
            .shift_remove("url")
            .unwrap();
        rc["groups"]["link"] = g;
        rc["groups"]["link"]["field"] = json!("url");
        let caps = rc["matches"][0]["captures"].as_object_mut().unwrap();
        let v = caps.shift_remove("url").unwrap();
        caps.insert("link".into(), v);
    }));
    assert_eq!(
        kinds(&c),
        [
            (
                Impact::Breaking,
                "group-removed",
                "/patterns/runtime_context"
            ),
            (
                Impact::Additive,
                "group-added",
                "/patterns/runtime_context/groups/link"
            )
        ]
    );
}

#[test]
fn an_enum_value_removed() {
    let c = against_real(&edited(|_, p, _| {
        let r = &mut p["patterns"]["result"];
        replace_in(&mut r["pattern"], "|SUCCESS|ERROR)", "|SUCCESS)");
        r["groups"]["status"]["values"]
            .as_array_mut()
            .unwrap()
            .retain(|v| v != "ERROR");
    }));
    assert_eq!(
        kinds(&c),
        [(
            Impact::Breaking,
            "enum-value-removed",
            "/patterns/result/groups/status/values"
        )]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "value `ERROR` of group `status` (pattern `result`) was removed or renamed"
    );
    assert!(c.changes[0]
        .was
        .as_deref()
        .unwrap()
        .ends_with("/patterns/result/groups/status/values/4"));
}

#[test]
fn a_directive_form_removed() {
    let c = against_real(&edited(|_, _, d| remove_key(&mut d["shorthands"], "DM")));
    assert_eq!(
        kinds(&c),
        [(Impact::Breaking, "directive-form-removed", "/shorthands")]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "shorthand `DM` was removed or renamed"
    );
}

#[test]
fn a_fence_removed() {
    let c = against_real(&edited(|_, _, d| {
        remove_key(&mut d["fences"]["info_strings"], "box")
    }));
    assert_eq!(
        kinds(&c),
        [(Impact::Breaking, "fence-removed", "/fences/info_strings")]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "fence `box` was removed or renamed"
    );
}

#[test]
fn an_alias_removed_and_with_it_its_op() {
    let c = against_real(&edited(|_, _, d| remove_key(&mut d["aliases"], "tools")));
    assert_eq!(
        kinds(&c),
        [
            (Impact::Breaking, "alias-removed", "/aliases"),
            (Impact::Breaking, "op-removed", "/aliases")
        ]
    );
    assert_eq!(
        c.changes[1].finding.message,
        "op `tools.list` is no longer named by any shorthand or alias"
    );
}

#[test]
fn an_alias_pointing_at_another_op() {
    let c = against_real(&edited(|_, _, d| d["aliases"]["dm"] = json!("dm.post")));
    // `dm.send` is still the `DM` shorthand's op, so no op is removed.
    assert_eq!(kinds(&c), [(Impact::Breaking, "op-changed", "/aliases/dm")]);
    assert_eq!(
        c.changes[0].finding.message,
        "alias `dm` changed: \"dm.send\" -> \"dm.post\""
    );
}

#[test]
fn a_limit_lowered() {
    let c = against_real(&edited(|_, _, d| d["limits"]["max_json_depth"] = json!(32)));
    assert_eq!(
        kinds(&c),
        [(Impact::Breaking, "limit-lowered", "/limits/max_json_depth")]
    );
}

#[test]
fn a_pattern_that_no_longer_matches_an_earlier_example() {
    // `ack` no longer accepts `[ACK <id>]` (the new spec drops that example, so it stays valid).
    let c = against_real(&edited(|_, p, _| {
        let ack = &mut p["patterns"]["ack"];
        replace_in(&mut ack["pattern"], "(?::|[ \\t]+)", ":");
        ack["matches"]
            .as_array_mut()
            .unwrap()
            .retain(|m| m["text"] != "[ACK 7fce46e0]");
    }));
    assert_eq!(
        kinds(&c),
        [(
            Impact::Breaking,
            "example-no-longer-matches",
            "/patterns/ack/pattern"
        )]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "pattern `ack` no longer matches the earlier example `[ACK 7fce46e0]`"
    );
    assert!(c.changes[0]
        .was
        .as_deref()
        .unwrap()
        .ends_with("/patterns/ack/matches/3"));
}

#[test]
fn a_pattern_that_captures_an_earlier_example_differently() {
    let c = against_real(&edited(|s, p, _| {
        let rc = &mut p["patterns"]["runtime_context"];
        replace_in(
            &mut rc["pattern"],
            "(?P<url>[A-Za-z][A-Za-z0-9+.-]*://",
            "(?:https://)?(?P<url>",
        );
        rc["matches"][0]["captures"]["url"] = json!("box.muse-dev.online/thread/7fce46e0");
        rc["groups"]["url"]["description"] = json!("The link after an optional https://.");
        rc["non_matches"] = json!(["[Runtime Context: ]"]);
        s["structures"]["runtime_context"]["template"] = json!("[Runtime Context: https://{url}]");
    }));
    assert_eq!(
        kinds(&c),
        [
            (
                Impact::Breaking,
                "example-captures-differ",
                "/patterns/runtime_context/pattern"
            ),
            (
                Impact::Breaking,
                "example-reads-differently",
                "/structures/runtime_context/template"
            ),
        ]
    );
    assert_eq!(
        c.changes[0].finding.message,
        "pattern `runtime_context` captures the earlier example `[Runtime Context: https://box.muse-dev.online/thread/7fce46e0]` differently: `url` = \"box.muse-dev.online/thread/7fce46e0\", was \"https://box.muse-dev.online/thread/7fce46e0\""
    );
}

#[test]
fn a_rendering_that_changed() {
    // `[ACK <id>]` was always accepted; now it is also the canonical form.
    let c = against_real(&edited(|s, _, _| {
        let ack = &mut s["structures"]["ack"];
        ack["template"] = json!("[ACK {dm_id}] [from {sender}]");
        ack["example"] = json!("[ACK 7fce46e0]");
        ack["protocol_tag"] = json!("[ACK ]");
    }));
    assert_eq!(
        kinds(&c),
        [(
            Impact::Breaking,
            "rendering-changed",
            "/structures/ack/template"
        )]
    );
    assert_eq!(c.changes[0].finding.message, "`ack` renders its earlier example's values as `[ACK 7fce46e0] [from 646]`, not `[ACK:7fce46e0] [from 646]`");
}

#[test]
fn additive_changes_are_listed_and_want_a_minor_bump() {
    let add = |s: &mut Value, _: &mut Value, d: &mut Value| {
        d["aliases"]["t"] = json!("tools.list");
        d["fences"]["info_strings"]["tools"] = json!("TOOL");
        d["limits"]["max_args_bytes"] = json!(131072);
        let _ = s;
    };
    let c = against_real(&edited(add));
    assert_eq!(
        kinds(&c),
        [
            (
                Impact::Additive,
                "fence-added",
                "/fences/info_strings/tools"
            ),
            (Impact::Additive, "alias-added", "/aliases/t"),
            (Impact::Additive, "limit-raised", "/limits/max_args_bytes"),
        ]
    );
    assert_eq!((c.breaking, c.additive), (0, 3));
    assert_eq!(c.findings.len(), 1);
    let f = &c.findings[0];
    assert_eq!(
        (f.severity, f.code),
        (
            agent_sentences_codegen::Severity::Warning,
            "additive-change-without-minor-bump"
        )
    );
    assert_eq!(f.message, "3 additive change(s) since version 1.0.0, but `version` is 1.0.0: an addition needs a minor bump (at least 1.1.0)");
    assert!(!c.has_errors() && c.has_warnings());

    let c = against_real(&edited(|s, p, d| {
        add(s, p, d);
        set_version(s, "1.1.0");
    }));
    assert!(c.findings.is_empty(), "{c}");
}

#[test]
fn the_version_rule() {
    let remove = |s: &mut Value| remove_key(&mut s["structures"], "runtime_context");
    for (version, finding) in [
        ("1.0.1", Some("breaking-change-without-major-bump")),
        ("1.1.0", Some("breaking-change-without-major-bump")),
        ("2.0.0", None),
        ("3.0.0-rc.1", None),
        ("0.9.0", Some("breaking-change-without-major-bump")),
        ("v2", Some("version-not-semver")),
    ] {
        let c = against_real(&edited(|s, _, _| {
            remove(s);
            set_version(s, version);
        }));
        assert_eq!(
            c.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
            finding.into_iter().collect::<Vec<_>>(),
            "{version}: {c}"
        );
        assert_eq!(c.has_errors(), finding.is_some(), "{version}");
    }
    assert_eq!(parse_version("1.2.3"), Some((1, 2, 3)));
    assert_eq!(parse_version("0.2.0-alpha+build.5"), Some((0, 2, 0)));
    for bad in ["1.2", "1.2.3.4", "01.2.3", "v1.2.3", ""] {
        assert_eq!(parse_version(bad), None, "{bad}");
    }
}

#[test]
fn comparison_serializes_with_every_location() {
    let c = against_real(&edited(|_, _, d| {
        remove_key(&mut d["fences"]["info_strings"], "box")
    }));
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["breaking"], 1);
    assert_eq!(v["changes"][0]["impact"], "breaking");
    // A change is a finding, with a finding's fields (P332).
    assert_eq!(v["changes"][0]["severity"], "warning");
    assert_eq!(
        serde_json::to_value(&c.changes[0].finding).unwrap()["code"],
        v["changes"][0]["code"]
    );
    assert_eq!(v["changes"][0]["code"], "fence-removed");
    assert_eq!(v["changes"][0]["pointer"], "/fences/info_strings");
    assert!(v["changes"][0]["line"].as_u64().unwrap() > 1);
    assert_eq!(
        v["findings"][0]["code"],
        "breaking-change-without-major-bump"
    );
    let text = c.to_string();
    assert!(
        text.contains("breaking[fence-removed]: ")
            && text.contains("1 breaking, 0 additive change(s)"),
        "{text}"
    );
    let gh = c.github_annotations();
    assert!(
        gh[0].starts_with("::error file=")
            && gh[0].contains(",title=fence-removed::breaking change against "),
        "{gh:?}"
    );
}
