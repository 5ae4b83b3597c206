//! The examples under each verb's `--help`, built from the generated crate's
//! own keys and examples so they stay true when the spec changes.

use agent_sentences::patterns;
use agent_sentences::SentenceKind;

use crate::text::shell_quote;

/// The structure the help's examples use: its key, its pattern's key, and
/// the first of the pattern's examples that fits a help line (one line, at
/// most 60 bytes), else the structure's example.
fn result() -> (&'static str, &'static str, &'static str) {
    let k = SentenceKind::ResultSentence;
    let text = patterns::info(k.pattern_key())
        .and_then(|p| {
            p.matches
                .iter()
                .map(|m| m.text)
                .find(|t| !t.contains('\n') && t.len() <= 60)
        })
        .unwrap_or(k.example_sentence());
    (k.key(), k.pattern_key(), text)
}

/// `Examples:` and each command under a comment saying what it does.
fn examples(lines: &[(String, &str)]) -> String {
    let mut s = String::from("Examples:");
    for (cmd, what) in lines {
        s.push_str(&format!("\n  # {what}\n  {cmd}"));
    }
    s
}

/// Examples for `box-docs --help`.
pub fn top() -> String {
    let first = SentenceKind::ALL[0].key();
    let (_, pattern, text) = result();
    examples(&[
        ("box-docs sentence".into(), "every structure"),
        (
            format!("box-docs sentence {first}"),
            "one structure in full",
        ),
        (
            format!("box-docs regex {pattern} --test {}", shell_quote(text)),
            "does the text match?",
        ),
        (
            format!(
                "box-docs parse {}",
                shell_quote(SentenceKind::ToolCall.example_sentence())
            ),
            "scan a text",
        ),
        (
            format!("box-docs get regex_patterns {first} --json"),
            "the raw spec entry",
        ),
    ])
}

/// Examples for `box-docs sentence --help`.
pub fn sentence() -> String {
    let (key, ..) = result();
    examples(&[
        (
            "box-docs sentence".into(),
            "key, tag and purpose of every structure",
        ),
        (
            format!("box-docs sentence {key}"),
            "template, fields with types, example, reply, lifecycle",
        ),
        (
            format!("box-docs sentence {key} --json"),
            "the same as one JSON document",
        ),
    ])
}

/// Examples for `box-docs regex --help`.
pub fn regex() -> String {
    let (_, pattern, text) = result();
    let prose = format!("see {text}");
    let mut s = examples(&[
        ("box-docs regex".into(), "the pattern directory"),
        (
            format!("box-docs regex {pattern}"),
            "source, flags, groups, examples",
        ),
        (
            format!("box-docs regex {pattern} --test {}", shell_quote(text)),
            "exit 0 and what each group captured",
        ),
        (
            format!(
                "box-docs regex {pattern} --test {} --search",
                shell_quote(&prose)
            ),
            "find it inside a text",
        ),
        (
            format!(
                "echo {} | box-docs regex {pattern} --test - --json",
                shell_quote(text)
            ),
            "TEXT from standard input",
        ),
    ]);
    s.push_str(
        "\n\n--test matches the whole TEXT (the pattern anchored at both ends), as parsing a sentence does; \
         --search finds the first match anywhere. Every named group is shown, `(none)` (JSON null) \
         when it took no part. Spans are byte offsets. Exit 0 on a match, 1 on none.",
    );
    s
}

/// Examples for `box-docs parse --help`.
pub fn parse() -> String {
    let wo = SentenceKind::WorkOrder.example_sentence();
    examples(&[
        (
            format!("box-docs parse {}", shell_quote(wo)),
            "every sentence and directive, with byte spans",
        ),
        (
            "box-docs parse --diagnostics - < reply.txt".into(),
            "a file; also skipped directives and why",
        ),
        (
            "box-docs parse --json -".into(),
            "standard input; one JSON document",
        ),
        (
            "box-docs parse --resolve - < reply.txt".into(),
            "also each directive resolved, or why it would not run",
        ),
        (
            "model-cli | box-docs parse --stream".into(),
            "each call as one JSON line, the moment it is final",
        ),
    ])
}

/// Examples for `box-docs tools --help`.
pub fn tools() -> String {
    let first = agent_sentences::ops::CATALOGUE
        .ops
        .first()
        .map_or("tools.list", |o| o.name);
    examples(&[
        (
            "box-docs tools".into(),
            "every op: side-effecting or not, runnable or not, aliases",
        ),
        (
            format!("box-docs tools {first}"),
            "one op in full, with its argument schema",
        ),
        (
            "box-docs tools --json".into(),
            "the tools.list response, one JSON document",
        ),
        (
            "box-docs tools --format openai".into(),
            "the runnable ops as a `tools` array (also anthropic, mcp)",
        ),
    ])
}

/// Examples for `box-docs loops --help`.
pub fn loops() -> String {
    examples(&[
        (
            "box-docs loops messages.jsonl".into(),
            "every loop: state, owner, nudges; rejected events",
        ),
        (
            "box-docs loops --at 2026-12-01T10:00:00Z - < messages.jsonl".into(),
            "also the nudges due at that time",
        ),
        (
            "box-docs loops --json messages.jsonl".into(),
            "one JSON document: {\"loops\", \"rejected\", \"due\"}",
        ),
    ])
}

/// Examples for `box-docs get --help`.
pub fn get() -> String {
    let first = SentenceKind::ALL[0];
    let mut s = examples(&[
        (
            format!("box-docs get regex_patterns {} --json", first.pattern_key()),
            "/patterns/<key> of schema/regex_patterns.json",
        ),
        (
            format!("box-docs get structures {} --json", first.key()),
            "/structures/<key> of schema/structures.json",
        ),
    ]);
    s.push_str("\n\nThe entry is JSON, keys in the spec's order, with or without --json.");
    s
}
