//! The verbs. Each builds one serializable value; `--json` prints it as one
//! JSON document, otherwise it is laid out as aligned text.

use std::io::Write;
use std::ops::Range;

use agent_sentences::ops;
use agent_sentences::patterns::{self, PatternInfo};
use agent_sentences::scan::{self, Item, Skipped};
use agent_sentences::{FieldInfo, SentenceKind, ValueType};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::near_miss::{self, NearMiss};
use crate::text::{show, table};
use crate::{lookup, Error, Output, Table, ToolsFormat};

/// Prints `value` as pretty JSON, or `human(value)` as text.
fn output<T: Serialize>(
    value: &T,
    json: bool,
    matched: bool,
    human: impl FnOnce(&T) -> String,
) -> Output {
    let stdout = if json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(value).expect("plain data serializes")
        )
    } else {
        human(value)
    };
    Output { stdout, matched }
}

fn cells(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A structure in the list.
#[derive(Serialize)]
struct StructureRow {
    key: &'static str,
    name: &'static str,
    tag: &'static str,
    description: &'static str,
}

/// `box-docs sentence`.
#[derive(Serialize)]
struct StructureList {
    structures: Vec<StructureRow>,
}

/// `box-docs sentence`: every structure, one line each.
pub fn sentence_list(json: bool) -> Output {
    let list = StructureList {
        structures: SentenceKind::ALL
            .iter()
            .map(|k| StructureRow {
                key: k.key(),
                name: k.name(),
                tag: k.tag(),
                description: k.description(),
            })
            .collect(),
    };
    output(&list, json, true, |list| {
        let mut rows = vec![cells(&["KEY", "TAG", "PURPOSE"])];
        rows.extend(
            list.structures
                .iter()
                .map(|s| cells(&[s.key, s.tag, s.description])),
        );
        table(&rows, "")
    })
}

/// `box-docs sentence NAME`.
#[derive(Serialize)]
struct StructureView {
    key: &'static str,
    name: &'static str,
    tag: &'static str,
    description: &'static str,
    template: &'static str,
    example: &'static str,
    example_sentence: &'static str,
    reply_expectation: &'static str,
    lifecycle_transition: &'static str,
    regex_ref: &'static str,
    pattern: &'static str,
    fixed_groups: Map<String, Value>,
    binding_note: Option<&'static str>,
    fields: &'static [FieldInfo],
    omitted_fields: &'static [&'static str],
}

/// A field's type for text: `string`, `enum (OK|FAIL)`, ….
fn type_text(ty: ValueType, values: &[&str]) -> String {
    if values.is_empty() {
        ty.to_string()
    } else {
        format!("{ty} ({})", values.join("|"))
    }
}

/// `box-docs sentence NAME`: one structure in full.
///
/// # Errors
/// [`Error::UnknownName`].
pub fn sentence(name: &str, json: bool) -> Result<Output, Error> {
    let k = lookup::structure(name)?;
    let view = StructureView {
        key: k.key(),
        name: k.name(),
        tag: k.tag(),
        description: k.description(),
        template: k.template(),
        example: k.example(),
        example_sentence: k.example_sentence(),
        reply_expectation: k.reply_expectation(),
        lifecycle_transition: k.lifecycle_transition(),
        regex_ref: k.regex_ref(),
        pattern: k.pattern_key(),
        fixed_groups: k
            .fixed_groups()
            .iter()
            .map(|(g, t)| ((*g).to_owned(), Value::from(*t)))
            .collect(),
        binding_note: k.binding_note(),
        fields: k.field_info(),
        omitted_fields: k.omitted_fields(),
    };
    Ok(output(&view, json, true, |v| {
        let mut pattern = v.pattern.to_owned();
        for (g, t) in &v.fixed_groups {
            pattern.push_str(&format!(
                ", group `{g}` = {}",
                t.as_str().unwrap_or_default()
            ));
        }
        if v.pattern != v.regex_ref {
            pattern.push_str(&format!(" (the spec's regex_ref is `{}`)", v.regex_ref));
        }
        let mut rows = vec![
            cells(&["tag", v.tag]),
            cells(&["purpose", v.description]),
            cells(&["template", v.template]),
            vec!["example".into(), show(v.example)],
        ];
        if v.example_sentence != v.example {
            rows.push(vec!["sentence".into(), show(v.example_sentence)]);
        }
        rows.push(cells(&["reply", v.reply_expectation]));
        rows.push(cells(&["lifecycle", v.lifecycle_transition]));
        rows.push(vec!["pattern".into(), pattern]);
        if let Some(note) = v.binding_note {
            rows.push(cells(&["binding", note]));
        }
        let mut s = format!("{}: {}\n{}", v.key, v.name, table(&rows, "  "));
        s.push_str("fields:\n");
        let fields: Vec<Vec<String>> = v
            .fields
            .iter()
            .map(|f| {
                let mut description = f.description.to_owned();
                if let Some(from) = f.derived_from {
                    description.push_str(&format!(" (derived from {from})"));
                }
                vec![
                    f.name.to_owned(),
                    type_text(f.ty, f.values),
                    if f.required { "required" } else { "optional" }.to_owned(),
                    description,
                ]
            })
            .collect();
        s.push_str(&table(&fields, "  "));
        if !v.omitted_fields.is_empty() {
            s.push_str(&format!(
                "not generated: {} (optional; no pattern group captures them)\n",
                v.omitted_fields.join(", ")
            ));
        }
        s
    }))
}

/// A pattern in the directory.
#[derive(Serialize)]
struct PatternRow {
    key: &'static str,
    purpose: &'static str,
    groups: Vec<&'static str>,
    structures: Vec<&'static str>,
}

/// `box-docs regex`.
#[derive(Serialize)]
struct PatternList {
    patterns: Vec<PatternRow>,
}

/// The structures a pattern parses.
fn structures_of(pattern: &str) -> Vec<&'static str> {
    SentenceKind::ALL
        .iter()
        .filter(|k| k.pattern_key() == pattern)
        .map(|k| k.key())
        .collect()
}

/// `box-docs regex`: the pattern directory.
pub fn regex_list(json: bool) -> Output {
    let list = PatternList {
        patterns: patterns::INFO
            .iter()
            .map(|p| PatternRow {
                key: p.key,
                purpose: p.purpose,
                groups: p.groups.iter().map(|g| g.name).collect(),
                structures: structures_of(p.key),
            })
            .collect(),
    };
    output(&list, json, true, |list| {
        let mut rows = vec![cells(&["KEY", "PURPOSE"])];
        rows.extend(list.patterns.iter().map(|p| cells(&[p.key, p.purpose])));
        table(&rows, "")
    })
}

/// `box-docs regex NAME`.
#[derive(Serialize)]
struct PatternView {
    #[serde(flatten)]
    info: &'static PatternInfo,
    structures: Vec<&'static str>,
}

/// `box-docs regex NAME`: one pattern in full.
///
/// # Errors
/// [`Error::UnknownName`].
pub fn regex(name: &str, json: bool) -> Result<Output, Error> {
    let info = lookup::pattern(name)?;
    let view = PatternView {
        info,
        structures: structures_of(info.key),
    };
    Ok(output(&view, json, true, |v| {
        let p = v.info;
        let mut rows = vec![cells(&["purpose", p.purpose]), cells(&["source", p.source])];
        if !p.flags.is_empty() {
            rows.push(vec!["flags".into(), p.flags.join(", ")]);
        }
        if let Some(seed) = p.seed_pattern {
            rows.push(cells(&["seed", seed]));
        }
        let structures = if v.structures.is_empty() {
            "(none)".to_owned()
        } else {
            v.structures.join(", ")
        };
        rows.push(vec!["structures".into(), structures]);
        let mut s = format!("{}\n{}", p.key, table(&rows, "  "));
        s.push_str("groups:\n");
        let groups: Vec<Vec<String>> = p
            .groups
            .iter()
            .map(|g| {
                let field = if g.field == g.name {
                    String::new()
                } else {
                    format!("-> {}", g.field)
                };
                vec![
                    g.name.to_owned(),
                    type_text(g.ty, g.values),
                    field,
                    g.description.to_owned(),
                ]
            })
            .collect();
        s.push_str(&table(&groups, "  "));
        s.push_str("matches:\n");
        for m in p.matches {
            s.push_str(&format!("  {}\n", show(m.text)));
        }
        if !p.non_matches.is_empty() {
            s.push_str("non-matches:\n");
            for n in p.non_matches {
                s.push_str(&format!("  {}\n", show(n)));
            }
        }
        s
    }))
}

/// A byte span, half-open.
#[derive(Serialize, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Self {
        Span {
            start: r.start,
            end: r.end,
        }
    }
}

/// `box-docs regex NAME --test TEXT`.
#[derive(Serialize)]
struct TestResult {
    pattern: &'static str,
    /// `full` or `search`.
    mode: &'static str,
    matched: bool,
    span: Option<Span>,
    /// Every named group, in pattern order; null when it took no part.
    groups: Option<Map<String, Value>>,
    /// In full mode without a full match: where a search finds the pattern.
    search_span: Option<Span>,
}

/// `box-docs regex NAME --test TEXT`: does TEXT match the pattern, and what
/// each group captured.
///
/// # Errors
/// [`Error::UnknownName`].
pub fn regex_test(name: &str, text: &str, search: bool, json: bool) -> Result<Output, Error> {
    let p = lookup::pattern(name)?;
    let re = if search { p.regex() } else { p.full_regex() };
    let caps = re.captures(text);
    let result = TestResult {
        pattern: p.key,
        mode: if search { "search" } else { "full" },
        matched: caps.is_some(),
        span: caps
            .as_ref()
            .and_then(|c| c.get(0))
            .map(|m| m.range().into()),
        groups: caps.as_ref().map(|c| {
            p.groups
                .iter()
                .map(|g| {
                    (
                        g.name.to_owned(),
                        c.name(g.name)
                            .map_or(Value::Null, |m| Value::from(m.as_str())),
                    )
                })
                .collect()
        }),
        search_span: match (&caps, search) {
            (None, false) => p.regex().find(text).map(|m| m.range().into()),
            _ => None,
        },
    };
    let matched = result.matched;
    Ok(output(&result, json, matched, |r| {
        let whole = if search {
            "in the text"
        } else {
            "the whole text"
        };
        match (&r.span, &r.groups) {
            (Some(span), Some(groups)) => {
                let verb = if search { "is found" } else { "matches" };
                let mut s = format!(
                    "match: pattern `{}` {verb} {whole} (bytes {}..{})\n",
                    r.pattern, span.start, span.end
                );
                let rows: Vec<Vec<String>> = groups
                    .iter()
                    .map(|(g, v)| {
                        vec![
                            g.clone(),
                            v.as_str().map_or_else(|| "(none)".to_owned(), show),
                        ]
                    })
                    .collect();
                s.push_str(&table(&rows, "  "));
                s
            }
            _ => {
                let verb = if search {
                    "is not found"
                } else {
                    "does not match"
                };
                let mut s = format!("no match: pattern `{}` {verb} {whole}\n", r.pattern);
                if let Some(at) = r.search_span {
                    s.push_str(&format!(
                        "  it is found inside the text at bytes {}..{} (use --search)\n",
                        at.start, at.end
                    ));
                }
                s
            }
        }
    }))
}

/// `box-docs parse TEXT`.
#[derive(Serialize)]
struct ParseResult {
    found: Vec<scan::Found>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<Vec<Skipped>>,
    /// With `--resolve`: each directive of `found`, in order, resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    resolved: Option<Vec<Resolved>>,
    /// When nothing is found: where a structure's marker starts but the
    /// text does not fit it, and why (P212).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    near_misses: Vec<NearMiss>,
    /// Words in the place of an optional enumerated field that are none of
    /// its values (`DONE` where a `status` would be, P281).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<near_miss::Note>,
}

/// One directive resolved against the op catalogue (`--resolve`).
#[derive(Serialize)]
pub(crate) struct Resolved {
    span: Range<usize>,
    /// True when the call may run.
    runs: bool,
    /// The op, aliases applied.
    op: String,
    /// When it runs: the arguments as the typed call holds them.
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
    /// When it does not: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ops::ResolveError>,
}

fn resolve_all(found: &[scan::Found]) -> Vec<Resolved> {
    found
        .iter()
        .filter_map(|f| match &f.item {
            Item::Directive { directive } => Some(resolve_one(f.span.clone(), directive)),
            Item::Sentence { .. } => None,
        })
        .collect()
}

/// The directive at `span` resolved against the op catalogue.
pub(crate) fn resolve_one(span: Range<usize>, d: &scan::ToolDirective) -> Resolved {
    match ops::resolve(d) {
        Ok(call) => Resolved {
            span,
            runs: true,
            op: call.op().name().to_owned(),
            args: Some(call.args()),
            error: None,
        },
        Err(e) => Resolved {
            span,
            runs: false,
            op: e.op.clone(),
            args: None,
            error: Some(e),
        },
    }
}

/// The text lines of a resolution, under its directive.
fn resolved_text(r: &Resolved) -> String {
    match &r.error {
        None => format!("    resolve  runs: {}\n", r.op),
        Some(e) => {
            let mut s = format!("    resolve  not run: {}: {}\n", e.kind.as_str(), e.message);
            for a in &e.errors {
                let at = if a.pointer.is_empty() {
                    "(arguments)"
                } else {
                    a.pointer.as_str()
                };
                s.push_str(&format!("      at {at}: {}\n", a.message));
            }
            s
        }
    }
}

/// A JSON value on one line of text.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => show(s),
        Value::Null => "(none)".to_owned(),
        other => other.to_string(),
    }
}

/// `box-docs parse TEXT`: every sentence and directive the scanner finds.
pub fn parse(text: &str, diagnostics: bool, resolve: bool, json: bool) -> Output {
    let (found, skipped) = scan::scan_with_diagnostics(text);
    let resolved = resolve.then(|| resolve_all(&found));
    let near_misses = if found.is_empty() {
        let spans: Vec<Range<usize>> = skipped.iter().map(|k| k.span.clone()).collect();
        near_miss::near_misses(text, &spans)
    } else {
        Vec::new()
    };
    let notes = near_miss::notes(text, &found);
    let result = ParseResult {
        found,
        skipped: diagnostics.then_some(skipped),
        resolved,
        near_misses,
        notes,
    };
    let matched = !result.found.is_empty();
    output(&result, json, matched, |r| {
        // Items and skipped candidates, in text order.
        let mut entries: Vec<(usize, String)> = Vec::new();
        for f in &r.found {
            let (what, fields) = match &f.item {
                Item::Sentence { value } => {
                    let mut map = match serde_json::to_value(value).expect("a sentence serializes")
                    {
                        Value::Object(map) => map,
                        _ => Map::new(),
                    };
                    map.shift_remove("structure");
                    (format!("sentence  {}", value.kind().key()), map)
                }
                Item::Directive { directive } => {
                    let mut map = Map::new();
                    map.insert(
                        "form".into(),
                        serde_json::to_value(directive.form).expect("a form serializes"),
                    );
                    map.insert("engine".into(), directive.engine.clone().into());
                    map.insert("op".into(), directive.op.clone().into());
                    if directive.written_op != directive.op {
                        map.insert("written_op".into(), directive.written_op.clone().into());
                    }
                    map.insert("args".into(), Value::Object(directive.args.clone()));
                    (format!("directive  {}", directive.op), map)
                }
            };
            let rows: Vec<Vec<String>> = fields
                .iter()
                .map(|(k, v)| vec![k.clone(), value_text(v)])
                .collect();
            let mut text = format!(
                "bytes {}..{}  {what}\n{}",
                f.span.start,
                f.span.end,
                table(&rows, "    ")
            );
            if let Some(r) = r.resolved.iter().flatten().find(|r| r.span == f.span) {
                text.push_str(&resolved_text(r));
            }
            for n in r.notes.iter().filter(|n| f.span.contains(&n.start)) {
                text.push_str(&format!("    note: {}\n", n.message));
            }
            entries.push((f.span.start, text));
        }
        for k in r.skipped.iter().flatten() {
            let text = format!(
                "skipped bytes {}..{}  {}: {}\n",
                k.span.start, k.span.end, k.reason, k.message
            );
            entries.push((k.span.start, text));
        }
        for m in &r.near_misses {
            entries.push((
                m.start,
                format!("near miss at byte {}: {}\n", m.start, m.message),
            ));
        }
        entries.sort_by_key(|(start, _)| *start);
        let mut s: String = entries.into_iter().map(|(_, text)| text).collect();
        let n = r.found.len();
        let mut summary = match n {
            0 => "nothing found".to_owned(),
            1 => "1 found".to_owned(),
            n => format!("{n} found"),
        };
        if let Some(skipped) = &r.skipped {
            summary.push_str(&format!(", {} skipped", skipped.len()));
        }
        if let Some(resolved) = &r.resolved {
            let runs = resolved.iter().filter(|r| r.runs).count();
            summary.push_str(&format!(
                ", {runs} of {} directive(s) would run",
                resolved.len()
            ));
        }
        s.push_str(&summary);
        s.push('\n');
        s
    })
}

/// `box-docs get TABLE NAME`: the raw spec entry, pretty JSON, with or without
/// `--json` (it is JSON either way).
///
/// # Errors
/// [`Error::UnknownName`].
pub fn get(table: Table, name: &str) -> Result<Output, Error> {
    let entry = match table {
        Table::Structures => lookup::structure(name)?.spec_json(),
        Table::RegexPatterns => lookup::pattern(name)?.spec_json,
    };
    Ok(Output {
        stdout: format!("{entry}\n"),
        matched: true,
    })
}

/// `box-docs loops`: the log replayed into a tracker with the spec's SLA
/// defaults; every loop, every rejected event (a line that is not a message,
/// a line that is not UTF-8, among them), and with `at` the nudges due then;
/// with `prune` the closed loops dropped (the report counts them). Not
/// matched (exit 1) when anything was rejected, each rejection named on
/// stderr by its line: the report is printed all the same. Linear in the
/// log: each line is read once, each rejection written once.
pub fn loops(jsonl: &[u8], at: Option<&str>, prune: bool, json: bool) -> Result<Output, Error> {
    let at = at
        .map(|a| {
            a.parse::<agent_sentences::loops::Timestamp>()
                .map_err(|e| Error::Input(format!("--at {a}: not an RFC 3339 time: {e}")))
        })
        .transpose()?;
    let (mut tracker, _bad) =
        agent_sentences::loops::replay_bytes(jsonl, agent_sentences::loops::default_config())
            .map_err(|e| Error::Input(format!("the spec's SLA defaults: {e}")))?;
    if prune {
        tracker.prune();
    }
    let report = tracker.report(at);
    let mut stderr = std::io::BufWriter::new(std::io::stderr().lock());
    for r in &report.rejected {
        let id =
            r.id.as_deref()
                .map(|i| format!(" ({i})"))
                .unwrap_or_default();
        // A closed stderr is not an error: the report still goes to stdout.
        // A reason quotes senders as sent: a control character in one is
        // escaped, never acted on by the terminal.
        let _ = writeln!(stderr, "line {}{id}: {}", r.line, show(&r.reason));
    }
    let _ = stderr.flush();
    drop(stderr);
    Ok(output(&report, json, report.rejected.is_empty(), |r| {
        let mut s = String::new();
        let rows: Vec<Vec<String>> = r
            .loops
            .iter()
            .map(|l| {
                vec![
                    l.id.clone(),
                    l.state.clone(),
                    l.owner.as_deref().map_or_else(|| "-".into(), show),
                    l.nudges.to_string(),
                    l.opened_at.to_string(),
                    l.closed_at.map_or_else(|| "-".into(), |t| t.to_string()),
                ]
            })
            .collect();
        let mut all = vec![cells(&[
            "LOOP", "STATE", "OWNER", "NUDGES", "OPENED", "CLOSED",
        ])];
        all.extend(rows);
        s.push_str(&table(&all, ""));
        for rj in &r.rejected {
            s.push_str(&format!(
                "rejected line {}{}: {}\n",
                rj.line,
                rj.id
                    .as_deref()
                    .map(|i| format!(" ({i})"))
                    .unwrap_or_default(),
                show(&rj.reason)
            ));
        }
        if prune {
            s.push_str(&format!("pruned {} closed loop(s)\n", r.pruned));
        }
        for d in &r.due {
            match &d.sentence {
                Some(sentence) => s.push_str(&format!("due {}: {sentence}\n", d.id)),
                None => s.push_str(&format!(
                    "breached {}: every nudge sent, still open\n",
                    d.id
                )),
            }
        }
        s
    }))
}

/// `box-docs tools`: the `tools.list` response (D5), every op one per line.
pub fn tools_list(json: bool) -> Output {
    let list = ops::tools_list();
    output(&list, json, true, |list| {
        let mut rows = vec![cells(&[
            "OP",
            "SIDE-EFFECTING",
            "RUNS",
            "ALIASES",
            "PURPOSE",
        ])];
        rows.extend(list.ops.iter().map(|o| {
            let yes_no = |b: bool| if b { "yes" } else { "no" }.to_owned();
            let runs = if o.runnable {
                "yes".to_owned()
            } else {
                "no (incomplete)".to_owned()
            };
            vec![
                o.name.to_owned(),
                yes_no(o.side_effecting),
                runs,
                o.aliases.join(", "),
                o.description.to_owned(),
            ]
        }));
        table(&rows, "")
    })
}

/// `box-docs tools --format API`: the catalogue as an agent API's tool
/// list, pretty JSON (always JSON: it is what a request body holds).
pub fn native_tools(format: ToolsFormat) -> Output {
    let api = match format {
        ToolsFormat::OpenAi => ops::NativeApi::OpenAi,
        ToolsFormat::Anthropic => ops::NativeApi::Anthropic,
        ToolsFormat::Mcp => ops::NativeApi::Mcp,
    };
    output(&ops::native_tools(api), true, true, |_| String::new())
}

/// `box-docs tools NAME`: one op as `tools.list` lists it, in full.
///
/// # Errors
/// [`Error::UnknownName`].
pub fn tool(name: &str, json: bool) -> Result<Output, Error> {
    let spec = lookup::op(name)?;
    let entry = ops::tools_list()
        .ops
        .into_iter()
        .find(|o| o.name == spec.name)
        .expect("the op is listed");
    Ok(output(&entry, json, true, |o| {
        let rows = vec![
            cells(&["purpose", o.description]),
            vec![
                "side-effecting".into(),
                if o.side_effecting { "yes" } else { "no" }.into(),
            ],
            vec!["engines".into(), o.engines.join(", ")],
            vec![
                "aliases".into(),
                if o.aliases.is_empty() {
                    "(none)".into()
                } else {
                    o.aliases.join(", ")
                },
            ],
            vec![
                "runs".into(),
                if o.runnable {
                    "yes".into()
                } else {
                    format!("no: {}", o.missing.unwrap_or("incomplete"))
                },
            ],
        ];
        let mut s = format!("{}\n{}", o.name, table(&rows, "  "));
        if !o.args.is_null() {
            s.push_str("args (JSON Schema 2020-12):\n");
            for line in serde_json::to_string_pretty(&o.args)
                .expect("serializes")
                .lines()
            {
                s.push_str(&format!("  {line}\n"));
            }
        }
        s
    }))
}
