//! The generated Markdown docs, read back with a CommonMark parser: they show
//! only examples the tests run, every one of them, with the right captures,
//! and their tables, code spans and links come out as written.

use std::collections::BTreeSet;

use agent_sentences_codegen::emit::MD_HEADER;
use agent_sentences_codegen::{generate, Generated};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

const SENTENCES: &str = "docs/SENTENCE-STRUCTURE.md";
const PATTERNS: &str = "docs/REGEX-PATTERNS.md";

mod common;

use common::root;

fn generated() -> Generated {
    generate(&root().join("schema")).unwrap_or_else(|r| panic!("the spec has errors:\n{r}"))
}

/// What a document holds, as a CommonMark + GFM-tables reader sees it.
#[derive(Default, Debug)]
struct Doc {
    /// Fenced code blocks: (info string, content without the final newline).
    blocks: Vec<(String, String)>,
    /// Table cells: (table index, column header, row index, cell source text
    /// with code spans in backticks).
    cells: Vec<(usize, String, usize, String)>,
    /// Inline code spans inside table cells: (column header, code).
    cell_code: Vec<(String, String)>,
    /// Heading anchors, as GitHub derives them.
    anchors: BTreeSet<String>,
    /// Link destinations.
    links: Vec<String>,
    /// Inline HTML anywhere (escaping failures show up here).
    html: Vec<String>,
}

/// GitHub's heading anchor: lower-case, punctuation other than `-` and `_`
/// dropped, spaces to `-`.
fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn read(markdown: &str) -> Doc {
    let mut doc = Doc::default();
    let mut block: Option<(String, String)> = None;
    let mut heading: Option<String> = None;
    let (mut table, mut in_head, mut row, mut col) = (0usize, false, 0usize, 0usize);
    let mut headers: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                block = Some((info.to_string(), String::new()))
            }
            Event::End(TagEnd::CodeBlock) => {
                let (info, mut text) = block.take().expect("a block was open");
                assert!(text.ends_with('\n'), "a fenced block ends with a newline");
                text.pop();
                doc.blocks.push((info, text));
            }
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                doc.anchors
                    .insert(slug(&heading.take().expect("a heading was open")));
            }
            Event::Start(Tag::Table(_)) => {
                table += 1;
                row = 0;
                headers.clear();
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => {
                row += 1;
                col = 0;
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let text = cell.take().expect("a cell was open");
                if in_head {
                    headers.push(text);
                } else {
                    doc.cells.push((
                        table,
                        headers.get(col).cloned().unwrap_or_default(),
                        row,
                        text,
                    ));
                }
                col += 1;
            }
            Event::Start(Tag::Link { dest_url, .. }) => doc.links.push(dest_url.to_string()),
            Event::Text(t) => {
                if let Some((_, b)) = &mut block {
                    b.push_str(&t);
                }
                if let Some(h) = &mut heading {
                    h.push_str(&t);
                }
                if let Some(c) = &mut cell {
                    c.push_str(&t);
                }
            }
            Event::Code(code) => {
                if let Some(h) = &mut heading {
                    h.push_str(&code);
                }
                if let Some(c) = &mut cell {
                    c.push('`');
                    c.push_str(&code);
                    c.push('`');
                    if !in_head {
                        doc.cell_code.push((
                            headers.get(col).cloned().unwrap_or_default(),
                            code.to_string(),
                        ));
                    }
                }
            }
            Event::InlineHtml(h) | Event::Html(h) if !h.starts_with("<!--") => {
                doc.html.push(h.to_string())
            }
            _ => {}
        }
    }
    doc
}

/// Every example the tests run: each structure's sentence, each pattern's
/// `matches` and `non_matches` (`generated/rust/tests/spec_examples.rs` runs
/// them all).
fn spec_examples(g: &Generated) -> BTreeSet<String> {
    let m = &g.model;
    m.sentences
        .iter()
        .map(|s| s.example_sentence.clone())
        .chain(
            m.patterns
                .iter()
                .flat_map(|p| p.matches.iter().map(|x| x.text.clone())),
        )
        .chain(
            m.patterns
                .iter()
                .flat_map(|p| p.non_matches.iter().cloned()),
        )
        .collect()
}

fn docs(g: &Generated) -> [(&'static str, Doc); 2] {
    [
        (SENTENCES, read(&g.files[SENTENCES])),
        (PATTERNS, read(&g.files[PATTERNS])),
    ]
}

#[test]
fn every_example_shown_is_one_the_tests_run() {
    let g = generated();
    let examples = spec_examples(&g);
    let spec_examples_rs = &g.files["rust/tests/spec_examples.rs"];
    let mut shown = 0;
    for (name, doc) in docs(&g) {
        let mut texts: Vec<String> = doc
            .blocks
            .iter()
            .filter(|(info, _)| info == "text")
            .map(|(_, t)| t.clone())
            .collect();
        texts.extend(
            doc.cell_code
                .iter()
                .filter(|(h, _)| h == "example")
                .map(|(_, t)| t.clone()),
        );
        for (_, sh) in doc.blocks.iter().filter(|(info, _)| info == "sh") {
            for line in sh.lines() {
                let words =
                    shlex::split(line).unwrap_or_else(|| panic!("{name}: cannot split `{line}`"));
                assert_eq!(words[0], "box-docs", "{name}: {line}");
                if let Some(i) = words.iter().position(|w| w == "--test") {
                    texts.push(words[i + 1].clone());
                }
                if words[1] == "parse" {
                    texts.push(words[2].clone());
                }
            }
        }
        for t in &texts {
            assert!(
                examples.contains(t),
                "{name} shows an example that is not a spec example: {t:?}"
            );
            // The generated test file holds it as a Rust string literal.
            assert!(
                spec_examples_rs.contains(&format!("{t:?}")),
                "{name}: {t:?} is not in spec_examples.rs"
            );
        }
        shown += texts.len();
    }
    assert!(shown > 100, "the docs show {shown} examples");
}

#[test]
fn fenced_blocks_use_known_info_strings() {
    let g = generated();
    for (name, doc) in docs(&g) {
        for (info, text) in &doc.blocks {
            assert!(
                ["text", "json", "regex", "template", "mermaid", "sh"].contains(&info.as_str()),
                "{name}: block `{info}`: {text}"
            );
        }
    }
}

#[test]
fn the_structure_doc_shows_every_structure_in_full() {
    let g = generated();
    let doc = read(&g.files[SENTENCES]);
    let texts: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|(i, _)| i == "text")
        .map(|(_, t)| t.as_str())
        .collect();
    let templates: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|(i, _)| i == "template")
        .map(|(_, t)| t.as_str())
        .collect();
    for s in &g.model.sentences {
        assert!(
            texts.contains(&s.example_sentence.as_str()),
            "example of {} missing",
            s.key
        );
        assert!(
            templates.contains(&s.template.as_str()),
            "template of {} missing",
            s.key
        );
        assert!(doc.anchors.contains(&s.key), "no section for {}", s.key);
    }
    // The footer's example appears twice: in its section and in "Contract footer".
    let footer = &g
        .model
        .sentences
        .iter()
        .find(|s| s.key == "contract_footer")
        .unwrap()
        .example_sentence;
    assert_eq!(texts.iter().filter(|t| **t == footer).count(), 2);
    // job_marker shows the sentence, not the owner's example with its prose.
    assert!(texts.contains(&"[JOB swarm-4a2b/1]"));
    assert!(!texts
        .iter()
        .any(|t| t.contains("Run identity variance audit")));
    // The purpose column renders back to the spec's descriptions.
    let purposes: Vec<&str> = doc
        .cells
        .iter()
        .filter(|c| c.1 == "purpose")
        .map(|c| c.3.as_str())
        .collect();
    let descriptions: Vec<&str> = g
        .model
        .sentences
        .iter()
        .map(|s| s.description.as_str())
        .collect();
    assert_eq!(purposes, descriptions);
    // P7 fields and the derived slot are listed.
    let fields: Vec<&str> = doc
        .cells
        .iter()
        .filter(|c| c.1 == "field")
        .map(|c| c.3.as_str())
        .collect();
    for f in ["`priority`", "`due`", "`details`", "`slot`", "`args_json`"] {
        assert!(fields.contains(&f), "field {f} missing");
    }
    let status_type = doc
        .cells
        .iter()
        .find(|c| c.1 == "type" && c.3.contains("`SUCCESS`"))
        .expect("result.status is an enum");
    assert_eq!(
        status_type.3,
        "one of `OK`, `FAIL`, `DECLINE`, `SUCCESS`, `ERROR`"
    );
}

#[test]
fn the_pattern_doc_shows_every_pattern_with_its_captures() {
    let g = generated();
    let doc = read(&g.files[PATTERNS]);
    let regexes: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|(i, _)| i == "regex")
        .map(|(_, t)| t.as_str())
        .collect();
    let expected: Vec<&str> = g
        .model
        .patterns
        .iter()
        .flat_map(|p| std::iter::once(p.pattern.as_str()).chain(p.seed_pattern.as_deref()))
        .collect();
    assert_eq!(
        regexes, expected,
        "every pattern, then its seed pattern where there is one, in spec order"
    );

    // Each match is followed by a JSON block of exactly its captures, pattern
    // by pattern in spec order.
    let expected: Vec<(String, serde_json::Value)> = g
        .model
        .patterns
        .iter()
        .flat_map(|p| {
            p.matches
                .iter()
                .map(|m| (m.text.clone(), serde_json::to_value(&m.captures).unwrap()))
        })
        .collect();
    let shown: Vec<(String, serde_json::Value)> = doc
        .blocks
        .windows(2)
        .filter(|pair| pair[0].0 == "text" && pair[1].0 == "json")
        .map(|pair| (pair[0].1.clone(), serde_json::from_str(&pair[1].1).unwrap()))
        .collect();
    assert_eq!(shown, expected);

    let texts: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|(i, _)| i == "text")
        .map(|(_, t)| t.as_str())
        .collect();
    let all: usize = g
        .model
        .patterns
        .iter()
        .map(|p| p.matches.len() + p.non_matches.len())
        .sum();
    assert_eq!(texts.len(), all, "every match and non-match, once each");

    // The directory: one row per pattern, purpose and example as written,
    // `|` and `<` included.
    let keys: Vec<&str> = doc
        .cells
        .iter()
        .filter(|c| c.0 == 1 && c.1 == "key")
        .map(|c| c.3.as_str())
        .collect();
    let want: Vec<String> = g
        .model
        .patterns
        .iter()
        .map(|p| format!("`{}`", p.key))
        .collect();
    assert_eq!(keys, want);
    let purposes: Vec<&str> = doc
        .cells
        .iter()
        .filter(|c| c.0 == 1 && c.1 == "purpose")
        .map(|c| c.3.as_str())
        .collect();
    let want: Vec<&str> = g
        .model
        .patterns
        .iter()
        .map(|p| p.purpose.as_str())
        .collect();
    assert_eq!(purposes, want);
    let footer_row = doc
        .cell_code
        .iter()
        .find(|(h, c)| h == "example" && c.starts_with("Reply:"))
        .unwrap();
    assert!(
        footer_row.1.contains(" | [CLAIM 7fce46e0] mine | "),
        "{footer_row:?}"
    );
}

/// Links go to headings of the two documents, or to the decision index
/// (a cited decision, `decision P2`, links there).
#[test]
fn links_point_at_headings_and_no_html_leaks() {
    let g = generated();
    let [(_, sentences), (_, patterns)] = docs(&g);
    let decisions = agent_sentences_codegen::emit::header::decisions_url();
    for name in [SENTENCES, PATTERNS] {
        assert!(
            !g.files[name].contains("README decision"),
            "{name}: decisions are in docs/decisions, not the README"
        );
    }
    for (name, doc) in [(SENTENCES, &sentences), (PATTERNS, &patterns)] {
        assert!(
            doc.links.contains(&decisions),
            "{name}: cites decisions and links their index"
        );
        assert!(
            doc.html.is_empty(),
            "{name}: spec text became HTML: {:?}",
            doc.html
        );
        for link in &doc.links {
            if *link == decisions {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = match file {
                "" => doc,
                "SENTENCE-STRUCTURE.md" => &sentences,
                "REGEX-PATTERNS.md" => &patterns,
                other => panic!("{name}: link to {other}"),
            };
            assert!(
                anchor.is_empty() || target.anchors.contains(anchor),
                "{name}: no heading for {link}"
            );
        }
    }
}

#[test]
fn the_header_comes_first() {
    let g = generated();
    for name in [SENTENCES, PATTERNS] {
        assert_eq!(g.files[name].lines().next(), Some(MD_HEADER), "{name}");
    }
}

#[test]
fn the_lifecycle_diagram_is_derived_from_the_transitions() {
    let g = generated();
    let doc = read(&g.files[SENTENCES]);
    let diagrams: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|(i, _)| i == "mermaid")
        .map(|(_, t)| t.as_str())
        .collect();
    assert_eq!(diagrams.len(), 1);
    let lines: Vec<&str> = diagrams[0].lines().map(str::trim).collect();
    assert_eq!(lines[0], "stateDiagram-v2");
    let want = expected_diagram_lines();
    for want in &want {
        assert!(
            lines.contains(&want.as_str()),
            "diagram lacks `{want}`:\n{}",
            diagrams[0]
        );
    }
    // Nothing the spec does not say: every edge is one the transitions write.
    let edges: Vec<&&str> = lines.iter().filter(|l| l.contains("-->")).collect();
    for l in &edges {
        assert!(want.iter().any(|w| w == **l), "invented edge: {l}");
    }
    assert_eq!(
        edges.len(),
        want.iter().filter(|w| w.contains("-->")).count()
    );
}

/// What the diagram must show, read from `schema/structures.json`'s
/// `lifecycle_transition`s as P30 states: `a/b -> c` an edge from each of
/// `a` and `b` (labelled with the structures that write it, in spec order),
/// a state written `(closed)` or named `closed` ends the loop, a state with
/// no edge into it starts one, and any other text is a standalone state.
fn expected_diagram_lines() -> Vec<String> {
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/structures.json")).unwrap(),
    )
    .unwrap();
    let id = |s: &str| s.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_");
    let is_state = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    };
    let mut edges: Vec<((String, String), Vec<String>)> = Vec::new();
    let mut ends: Vec<String> = Vec::new();
    let mut standalone: Vec<String> = Vec::new();
    for (key, s) in spec["structures"].as_object().unwrap() {
        let text = s["lifecycle_transition"].as_str().unwrap();
        let steps: Vec<(Vec<&str>, bool)> = text
            .split(" -> ")
            .map(|step| {
                let (names, closing) = match step.strip_suffix(" (closed)") {
                    Some(n) => (n, true),
                    None => (step, false),
                };
                (names.split('/').collect(), closing)
            })
            .collect();
        if steps.len() < 2
            || !steps
                .iter()
                .all(|(names, _)| names.iter().all(|n| is_state(n)))
        {
            standalone.push(format!("state \"{text}: {key}\" as {}", id(text)));
            continue;
        }
        for w in steps.windows(2) {
            for from in &w[0].0 {
                for to in &w[1].0 {
                    let edge = (id(from), id(to));
                    match edges.iter_mut().find(|(e, _)| *e == edge) {
                        Some((_, labels)) => labels.push(key.clone()),
                        None => edges.push((edge, vec![key.clone()])),
                    }
                }
            }
        }
        for (names, closing) in &steps {
            for n in names {
                if (*closing || *n == "closed") && !ends.contains(&id(n)) {
                    ends.push(id(n));
                }
            }
        }
    }
    let mut out = Vec::new();
    let targets: BTreeSet<&String> = edges.iter().map(|((_, to), _)| to).collect();
    let mut starts: Vec<&String> = Vec::new();
    for ((from, _), _) in &edges {
        if !targets.contains(from) && !starts.contains(&from) {
            starts.push(from);
        }
    }
    out.extend(starts.iter().map(|s| format!("[*] --> {s}")));
    out.extend(
        edges
            .iter()
            .map(|((from, to), labels)| format!("{from} --> {to}: {}", labels.join(", "))),
    );
    out.extend(ends.iter().map(|s| format!("{s} --> [*]")));
    out.extend(standalone);
    out.push("state \"not a loop transition\" as not_a_transition {".to_owned());
    out
}

/// A copy of the real spec with `from` (which must occur once) replaced by
/// `to` in `regex_patterns.json`.
fn edited_patterns(from: &str, to: &str) -> tempfile::TempDir {
    common::edited_spec("regex_patterns.json", |t| common::replace_once(t, from, to))
}

#[test]
fn a_changed_example_changes_the_docs() {
    let dir = edited_patterns("\"[DONE 7fce46e0]\"", "\"[FINISHED 7fce46e0]\"");
    let g = generate(dir.path()).unwrap();
    let doc = &g.files[PATTERNS];
    assert!(doc.contains("\n[FINISHED 7fce46e0]\n") && !doc.contains("[DONE 7fce46e0]"));
    assert!(g.files["rust/tests/spec_examples.rs"].contains("[FINISHED 7fce46e0]"));
}

#[test]
fn a_line_break_the_docs_cannot_show_is_a_located_error() {
    let dir = edited_patterns(
        "\"purpose\": \"6–12 character lower-case hex IDs.\"",
        "\"purpose\": \"6–12 character\\nlower-case hex IDs.\"",
    );
    let report = generate(dir.path()).unwrap_err();
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.code == "text-line-break")
        .expect("reported");
    assert_eq!(d.pointer, "/patterns/short_hex/purpose");
    assert!(d.file.ends_with("regex_patterns.json"));
}

#[test]
fn the_ops_doc_lists_every_op_with_its_flag_and_shows_only_spec_examples() {
    let g = generated();
    let text = &g.files["docs/OPS.md"];
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/ops.json")).unwrap())
            .unwrap();
    let ops = spec["ops"].as_object().unwrap();
    assert!(read(text).html.is_empty(), "no spec text became HTML");
    // The summary table's rows: op link and side-effecting cell.
    let side: Vec<(String, String)> = text
        .lines()
        .filter(|l| l.starts_with("| [`"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            (
                cells[0].trim_start_matches("| ").to_owned(),
                cells[1].to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = ops
        .iter()
        .map(|(k, o)| {
            let slug = k.replace('.', "");
            (
                format!("[`{k}`](#{slug})"),
                if o["side_effecting"].as_bool().unwrap() {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
            )
        })
        .collect();
    assert_eq!(side, want);
    for (k, o) in ops {
        assert!(text.contains(&format!("\n## {k}\n")), "{k} has a section");
        for ex in o["examples"].as_array().into_iter().flatten() {
            assert!(
                text.contains(&format!("- `{ex}`")),
                "{k}: example {ex} shown"
            );
        }
        if let Some(m) = o.get("missing") {
            assert!(text.contains("- runs: **no, incomplete**"), "{k}: {m}");
        }
    }
}
