//! The Rust emitter: the `agent-sentences` crate under `generated/rust/`.
//!
//! One function per output file. Code is built with `quote`, parsed with
//! `syn` (which proves it is valid Rust) and formatted with `prettyplease`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::emit::docs::rustdoc;
use crate::emit::header::{MD_HEADER, RUST_HEADER, TOML_HEADER};
use crate::lower::{FieldIr, FieldTy, Model, PatternIr, SentenceIr};
use crate::model::GroupType;
use crate::options::Runtime;
use crate::template::Piece;

/// A string literal token, raw (`r"…"`) when that reads better.
fn lit(s: &str) -> Literal {
    if s.contains('\\') && !s.contains("\"#") && !s.contains('\r') {
        format!("r#\"{s}\"#")
            .parse()
            .expect("a valid raw string literal")
    } else {
        Literal::string(s)
    }
}

/// A string literal token for multi-line text (JSON): raw, so it reads as
/// written, unless the text holds `"#`.
fn text_lit(s: &str) -> Literal {
    if s.contains("\"#") || s.contains('\r') {
        Literal::string(s)
    } else {
        format!("r#\"{s}\"#")
            .parse()
            .expect("a valid raw string literal")
    }
}

/// A pattern source anchored at both ends (`\A(?:…)\z`): whole-text matching (decision P10).
fn anchored(source: &str) -> String {
    format!(r"\A(?:{source})\z")
}

fn doc(text: &str) -> TokenStream {
    let lines: Vec<String> = text.lines().map(|l| format!(" {l}")).collect();
    quote! { #(#[doc = #lines])* }
}

fn inner_doc(text: &str) -> TokenStream {
    let lines: Vec<String> = text.lines().map(|l| format!(" {l}")).collect();
    quote! { #(#![doc = #lines])* }
}

fn format_rust(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the Rust emitter produced invalid Rust");
    format!("{RUST_HEADER}\n{}", prettyplease::unparse(&file))
}

/// The edition, minimum Rust version and license the generated crate
/// declares (the workspace's, written out: the crate must build outside it).
pub const CRATE_EDITION: &str = "2021";
/// See [`CRATE_EDITION`].
pub const CRATE_RUST_VERSION: &str = "1.85";
/// See [`CRATE_EDITION`].
pub const CRATE_LICENSE: &str = "MIT";
/// The repository the generated crate's manifest names (the workspace's
/// `repository`).
pub const CRATE_REPOSITORY: &str = "https://github.com/agent-sentences/agent-sentences";

/// `generated/rust/README.md`: the crate's README for its registry page
/// (the manifest's `readme`): the spec it is generated from and how to use it.
pub fn readme_md(model: &Model) -> String {
    format!(
        "{MD_HEADER}\n# agent-sentences\n\nTyped sentence structures, parsers and renderers of \"{title}\" (spec version {version}),\ngenerated from the spec: one type per structure with `FromStr` (`parse`) and\n`Display` (`render`), `Sentence` for any structure, and `scan::scan` for every\nsentence and tool directive in free text, with byte spans. A `ParseError` names\nthe structure expected, the byte where the text stopped fitting and what was\nexpected there.\n\n```rust\nlet any: agent_sentences::Sentence = \"[ACK:7fce46e0] [from 646]\".parse().unwrap();\nassert_eq!(any.kind().key(), \"ack\");\n```\n\nIt depends on one crate, `agent-sentences-runtime`. Licensed under {CRATE_LICENSE}.\n",
        title = model.title,
        version = model.version
    )
}

/// A TOML basic string holding `s` (JSON's escapes are TOML's).
fn toml_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// `generated/rust/Cargo.toml`: a self-contained manifest (no workspace
/// inheritance) whose version is the spec's. The runtime is named as
/// [`Runtime::dependency`] says: by the version the generator was built with
/// (`agent_sentences_runtime::VERSION`) or the one the user named, and, for
/// a path or a vendored copy, also by that path relative to the crate's
/// directory, as prost names prost-types: the path is used in a checkout, the
/// version from a registry (`cargo package` drops the path).
pub fn cargo_toml(model: &Model, runtime: &Runtime) -> String {
    let (version, path) = runtime.dependency();
    let runtime_version = toml_str(&version);
    let runtime = match path {
        Some(path) => format!(
            "{{ version = {runtime_version}, path = {} }}",
            toml_str(&path)
        ),
        None => format!("{{ version = {runtime_version} }}"),
    };
    format!(
        r#"{TOML_HEADER}
[package]
name = "agent-sentences"
version = {version}
description = "Typed sentence structures, parsers and renderers of the agent messaging protocol, generated from schema/."
edition = "{CRATE_EDITION}"
rust-version = "{CRATE_RUST_VERSION}"
license = "{CRATE_LICENSE}"
repository = "{CRATE_REPOSITORY}"
readme = "README.md"
documentation = "https://docs.rs/agent-sentences"
keywords = ["agents", "protocol", "parser", "codegen"]
categories = ["parser-implementations"]

[features]
default = []
# Derive `schemars::JsonSchema` on every type.
schemars = ["dep:schemars"]

[dependencies]
# Also re-exports what the generated code uses: regex, serde, serde_json.
agent-sentences-runtime = {runtime}
schemars = {{ version = "0.8", features = ["preserve_order", "indexmap2"], optional = true }}

[dev-dependencies]
proptest = "1"

[lints.rust]
missing_docs = "warn"
"#,
        version = toml_str(&model.version)
    )
}

fn rust_type(f: &FieldIr) -> TokenStream {
    let base = match &f.ty {
        FieldTy::String => quote!(String),
        FieldTy::Integer => quote!(u32),
        FieldTy::Enum(e) => {
            let e = format_ident!("{}", e);
            quote!(#e)
        }
        FieldTy::JsonObject => quote!(JsonObject),
    };
    if f.required {
        base
    } else {
        quote!(Option<#base>)
    }
}

fn type_doc(ty: &FieldTy) -> String {
    match ty {
        FieldTy::String => "text".into(),
        FieldTy::Integer => "a non-negative integer (`u32`)".into(),
        FieldTy::Enum(e) => format!("one of [`{e}`]"),
        FieldTy::JsonObject => "one strict JSON object".into(),
    }
}

fn field_doc(s: &SentenceIr, f: &FieldIr) -> String {
    let mut d = format!(
        "{}\n\nType: {}; {}.",
        rustdoc(&f.description),
        type_doc(&f.ty),
        if f.required { "required" } else { "optional" }
    );
    let groups: Vec<String> = f.groups.iter().map(|g| format!("`{g}`")).collect();
    d.push_str(&format!(
        " Captured by group {} of pattern `{}`.",
        groups.join(", "),
        s.pattern_key
    ));
    if let Some(from) = &f.derived_from {
        d.push_str(&format!(
            " Derived from `{from}`: it must agree with it, and rendering writes only `{from}`."
        ));
    }
    d.push_str(&format!(
        "\n\nSource: `/structures/{}` field `{}`.",
        s.key, f.name
    ));
    d
}

/// `generated/rust/src/lib.rs`: the crate root.
pub fn lib_rs(model: &Model) -> String {
    lib_tokens(model, true, Some("schemars"))
}

/// The same items as [`lib_rs`] without the crate-level doc and attributes,
/// for a build script to write into `OUT_DIR` and `include!` in a module of
/// its own crate, which then needs one dependency: `agent-sentences-runtime`
/// (the items reach `regex`, `serde` and `serde_json` through its
/// re-exports).
///
/// With `schemars_feature` `Some(name)`, every type also derives
/// `schemars::JsonSchema` under `#[cfg_attr(feature = "<name>", …)]`, so the
/// including crate must declare that feature and an optional `schemars`
/// dependency; with `None` no `cfg` is emitted at all (a crate without such a
/// feature would get an `unexpected cfg` warning per type).
pub fn module_rs(model: &Model, schemars_feature: Option<&str>) -> String {
    lib_tokens(model, false, schemars_feature)
}

/// The crate-level example: parse, read a field, render and scan the first
/// structure's own example sentence (all from the spec).
fn crate_example(model: &Model) -> String {
    let Some(s) = model.sentences.iter().find(|s| s.scanned) else {
        return String::new();
    };
    let field = s
        .fields
        .iter()
        .find(|f| f.required && f.ty == FieldTy::String && f.derived_from.is_none());
    let read = field.map_or(String::new(), |f| {
        let value = s
            .example_captures
            .iter()
            .find(|(g, _)| f.groups.contains(g))
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        format!("assert_eq!(s.{}, {value:?});\n", f.rust_name)
    });
    format!(
        "```\nuse agent_sentences::{{scan, Sentence, {ty}}};\n\n\
         let text = {text:?};\n\
         // Parse a whole text as one structure (`FromStr`), and render it back (`Display`).\n\
         let s: {ty} = text.parse()?;\n\
         {read}\
         assert_eq!(s.to_string(), text);\n\
         // Find every sentence and tool directive in free text, with byte spans.\n\
         let found = scan::scan(text);\n\
         assert_eq!(found[0].span, 0..text.len());\n\
         assert!(matches!(&found[0].item, scan::Item::Sentence {{ value: Sentence::{ty}(_) }}));\n\
         # Ok::<(), agent_sentences::ParseError>(())\n```",
        ty = s.type_name,
        text = s.example_sentence,
    )
}

/// A doc example for `Sentence::parse`: the second structure's example, so
/// spec order visibly matters.
fn sentence_parse_example(model: &Model) -> String {
    let Some(s) = model.sentences.get(1).or(model.sentences.first()) else {
        return String::new();
    };
    format!(
        "\n```\nuse agent_sentences::{{Sentence, SentenceKind}};\n\n\
         let any = Sentence::parse({text:?})?;\n\
         assert_eq!(any.kind(), SentenceKind::{ty});\n\
         assert_eq!(any.to_string(), {text:?});\n\
         # Ok::<(), agent_sentences::ParseError>(())\n```",
        ty = s.type_name,
        text = s.example_sentence,
    )
}

/// A doc example for `scan_with_diagnostics`: a bracket call with a trailing
/// comma, skipped as invalid JSON, after the first scanned structure's example.
fn scan_diagnostics_example(model: &Model) -> String {
    let d = &model.directives;
    let (Some(engine), Some(op)) = (
        d.bracket.engines.first(),
        d.aliases
            .values()
            .next()
            .or(d.shorthands.values().map(|s| &s.op).next()),
    ) else {
        return String::new();
    };
    let call = format!("[{engine} {op} {{\"x\": 1,}}]");
    format!(
        "\n```\nuse agent_sentences::scan::{{scan_with_diagnostics, SkipReason}};\n\n\
         let text = {call:?};\n\
         let (found, skipped) = scan_with_diagnostics(text);\n\
         assert!(found.is_empty());\n\
         assert_eq!(skipped[0].reason, SkipReason::InvalidJson);\n\
         assert_eq!(skipped[0].span, 0..text.len());\n```"
    )
}

fn lib_tokens(model: &Model, crate_root: bool, schemars_feature: Option<&str>) -> String {
    let schemars = match schemars_feature {
        Some(feature) => quote!(#[cfg_attr(feature = #feature, derive(schemars::JsonSchema))]),
        None => quote!(),
    };
    let crate_doc = inner_doc(&format!(
        "Typed sentences of \"{}\" (version {}).\n\n\
         Every type here is generated by `cargo xtask gen` from `schema/structures.json` and \
         `schema/regex_patterns.json`; edit those, not this file.\n\n\
         - One struct per sentence structure, with `FromStr` (parse a whole text as that sentence) \
         and `Display` (render the canonical text from the structure's template).\n\
         - [`Sentence`]: any structure; [`SentenceKind`]: each structure's metadata.\n\
         - [`patterns`]: the pattern source strings and their compiled regexes.\n\n\
         Offsets in [`ParseError`] are byte offsets into the parsed text.\n\n{}",
        model.title,
        model.version,
        crate_example(model)
    ));
    let meta = meta_items(model);
    let patterns = patterns_mod(model);
    let enums = model.enums.iter().map(|e| {
        let name = format_ident!("{}", e.name);
        let d = doc(&format!(
            "{}\n\nSource: group `{}` of `/patterns/{}` in `schema/regex_patterns.json`.",
            rustdoc(&e.description), e.group, e.pattern
        ));
        let variants = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            let vd = doc(&format!("`{text}`."));
            quote! { #vd #[serde(rename = #text)] #v }
        });
        let as_str = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            quote! { #name::#v => #text }
        });
        let from = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            quote! { #text => Ok(#name::#v) }
        });
        let all = e.variants.iter().map(|(v, _)| {
            let v = format_ident!("{}", v);
            quote! { #name::#v }
        });
        let n = e.variants.len();
        quote! {
            #d
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
            #schemars
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub enum #name { #(#variants,)* }

            impl #name {
                /// Every value, in spec order.
                pub const ALL: [#name; #n] = [#(#all),*];
                /// The value as written in a sentence.
                pub fn as_str(self) -> &'static str {
                    match self { #(#as_str,)* }
                }
            }

            impl fmt::Display for #name {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
            }

            impl FromStr for #name {
                type Err = UnknownValue;
                /// Parses the exact text (case-sensitive).
                fn from_str(s: &str) -> Result<Self, UnknownValue> {
                    match s { #(#from,)* _ => Err(UnknownValue(s.to_owned())) }
                }
            }
        }
    });
    let structs = model
        .sentences
        .iter()
        .map(|s| sentence_struct(s, &schemars));
    let kind = kind_enum(model, &schemars);
    let sentence = sentence_enum(model, &schemars, crate_root);
    let scan = scan_mod(model, crate_root);
    let loops = loops_mod(model, crate_root);
    let ops = ops_mod(model, crate_root);
    let envelope = envelope_mod(model, crate_root);
    let root = crate_root.then(|| quote! { #crate_doc #![forbid(unsafe_code)] });
    format_rust(quote! {
        #root

        use std::fmt;
        use std::str::FromStr;
        use std::sync::LazyLock;

        use agent_sentences_runtime::regex::Regex;
        use agent_sentences_runtime::serde::{Deserialize, Serialize};

        pub use agent_sentences_runtime::json::JsonError;
        pub use agent_sentences_runtime::{ParseError, ParseErrorKind};
        use agent_sentences_runtime::{field_capture, stop_point, Groups, Step};

        /// A JSON object of tool arguments, keys in their original order.
        pub type JsonObject = agent_sentences_runtime::serde_json::Map<String, agent_sentences_runtime::serde_json::Value>;

        /// A text that is none of an enumeration's values (case-sensitive).
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct UnknownValue(pub String);

        impl fmt::Display for UnknownValue {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "`{}` is not one of the allowed values", self.0) }
        }

        impl std::error::Error for UnknownValue {}

        #meta
        #patterns
        #(#enums)*
        #(#structs)*
        #kind
        #sentence
        #scan
        #loops
        #ops
        #envelope
    })
}

/// The Rust type of a field as written in its struct, e.g. `Option<Status>`.
fn rust_type_name(f: &FieldIr) -> String {
    let base = match &f.ty {
        FieldTy::String => "String".to_owned(),
        FieldTy::Integer => "u32".to_owned(),
        FieldTy::Enum(e) => e.clone(),
        FieldTy::JsonObject => "JsonObject".to_owned(),
    };
    if f.required {
        base
    } else {
        format!("Option<{base}>")
    }
}

/// A `ValueType` variant for a group type.
fn value_type(ty: GroupType) -> TokenStream {
    match ty {
        GroupType::String => quote!(ValueType::String),
        GroupType::Integer => quote!(ValueType::Integer),
        GroupType::Enum => quote!(ValueType::Enum),
        GroupType::JsonObject => quote!(ValueType::JsonObject),
    }
}

/// An `Option<&'static str>` expression.
fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

/// The spec's title and version, and the metadata types shared by
/// [`SentenceKind`] and the `patterns` module.
fn meta_items(model: &Model) -> TokenStream {
    let (title, version) = (&model.title, &model.version);
    quote! {
        /// The spec's title (`title` of `schema/structures.json`).
        pub const SPEC_TITLE: &str = #title;
        /// The spec's version (`version` of `schema/structures.json`).
        pub const SPEC_VERSION: &str = #version;

        /// The type of a captured value, named as the spec names it (`type` of a pattern group).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(rename_all = "snake_case")]
        pub enum ValueType {
            /// Text, kept as captured.
            String,
            /// A non-negative decimal integer that fits in 32 bits.
            Integer,
            /// One of a closed set of texts.
            Enum,
            /// Exactly one strict JSON object.
            JsonObject,
        }

        impl ValueType {
            /// The spec's name of the type, e.g. `json_object`.
            pub fn as_str(self) -> &'static str {
                match self {
                    ValueType::String => "string",
                    ValueType::Integer => "integer",
                    ValueType::Enum => "enum",
                    ValueType::JsonObject => "json_object",
                }
            }
        }

        impl fmt::Display for ValueType {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }

        /// A field of a generated sentence type ([`SentenceKind::field_info`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
        #[serde(crate = "agent_sentences_runtime::serde")]
        pub struct FieldInfo {
            /// The field's name as the spec writes it (and as it serializes).
            pub name: &'static str,
            /// The type of its value.
            #[serde(rename = "type")]
            pub ty: ValueType,
            /// For [`ValueType::Enum`]: the allowed texts, in spec order; empty otherwise.
            pub values: &'static [&'static str],
            /// The Rust type of the struct field, e.g. `Option<Status>`.
            pub rust_type: &'static str,
            /// True for the spec's `required_fields`.
            pub required: bool,
            /// What the field holds (the description of the group that captures it).
            pub description: &'static str,
            /// The pattern groups that capture it, in pattern order.
            pub groups: &'static [&'static str],
            /// The field it is derived from, when its group lies inside that field's group.
            pub derived_from: Option<&'static str>,
        }
    }
}

/// `examples`: the doc examples (doctests), which name the crate
/// `agent_sentences` and so are left out of [`module_rs`].
fn scan_mod(model: &Model, examples: bool) -> TokenStream {
    let diag_example = if examples {
        doc(&scan_diagnostics_example(model))
    } else {
        quote!()
    };
    let d = &model.directives;
    let scanned: Vec<&SentenceIr> = model.sentences.iter().filter(|s| s.scanned).collect();
    let n = scanned.len();
    let parse_fns = scanned.iter().map(|s| {
        let f = format_ident!("parse_{}", s.key);
        let ty = format_ident!("{}", s.type_name);
        quote! {
            fn #f(groups: &dyn Groups<'_>) -> Result<Sentence, ParseError> { super::#ty::from_groups(groups).map(Sentence::#ty) }
        }
    });
    let entries = scanned.iter().map(|s| {
        let f = format_ident!("parse_{}", s.key);
        let key = &s.key;
        let head = &s.head;
        let src = lit(&s.scan_source);
        let quotes = s.quotes_brackets;
        let (tail, trailing_blanks) = match &s.tail_split {
            Some((g, before, inner, trailer)) => {
                let (before, inner) = (lit(before), lit(inner));
                (quote!(Some((#g, #before, #inner))), *trailer)
            }
            None => (quote!(None), false),
        };
        quote! {
            StructureScan {
                key: #key, head: #head, source: #src, from_groups: #f, quotes_brackets: #quotes, tail: #tail,
                trailing_blanks: #trailing_blanks,
            }
        }
    });
    let op_pattern = lit(&d.op_pattern);
    let engines = &d.bracket.engines;
    let shorthands = d.shorthands.iter().map(|(k, v)| {
        let (op, engine) = (&v.op, &v.engine);
        quote!((#k, #op, #engine))
    });
    let fences = d.fences.info_strings.iter().map(|(k, v)| quote!((#k, #v)));
    let aliases = d.aliases.iter().map(|(k, v)| quote!((#k, #v)));
    let (path, flags, curl_engine, op_key, args_key) = (
        &d.curl.path,
        &d.curl.data_flags,
        &d.curl.engine,
        &d.curl.op_key,
        &d.curl.args_key,
    );
    let (value_opts, flag_opts) = (&d.curl.value_options, &d.curl.flag_options);
    let (depth, bytes) = (d.limits.max_json_depth, d.limits.max_args_bytes);
    let excluded: Vec<String> = model
        .sentences
        .iter()
        .filter(|s| !s.scanned)
        .map(|s| format!("`{}`", s.key))
        .collect();
    let mod_doc = doc(&format!(
        "Scanning free text for every sentence and tool directive.\n\n\
         The rules are those of `agent_sentences_runtime::scan`; the structures and the directive grammar \
         come from `schema/regex_patterns.json` and `schema/directives.json`. Structures with a JSON object \
         field ({}) are found as directives, by balanced JSON, not by their pattern. Spans are byte offsets.",
        excluded.join(", ")
    ));
    quote! {
        #mod_doc
        pub mod scan {
            use std::sync::LazyLock;

            use agent_sentences_runtime::json::Limits;
            pub use agent_sentences_runtime::scan::{DirectiveForm, Item, SkipReason, Skipped, ToolDirective};
            use agent_sentences_runtime::scan::{DirectiveSpec, Scanner, StructureScan};
            use agent_sentences_runtime::Groups;

            use super::{ParseError, Sentence};

            /// Limits on tool arguments (`/limits` in `schema/directives.json`).
            pub const LIMITS: Limits = Limits { max_depth: #depth, max_bytes: #bytes };

            /// One thing found in a text: a span and a sentence or directive.
            pub type Found = agent_sentences_runtime::scan::Found<Sentence>;

            #(#parse_fns)*

            static STRUCTURES: [StructureScan<Sentence>; #n] = [#(#entries),*];

            static DIRECTIVES: DirectiveSpec = DirectiveSpec {
                op_pattern: #op_pattern,
                bracket_engines: &[#(#engines),*],
                shorthands: &[#(#shorthands),*],
                fences: &[#(#fences),*],
                curl_path: #path,
                curl_data_flags: &[#(#flags),*],
                curl_value_options: &[#(#value_opts),*],
                curl_flag_options: &[#(#flag_opts),*],
                curl_engine: #curl_engine,
                curl_op_key: #op_key,
                curl_args_key: #args_key,
                aliases: &[#(#aliases),*],
                limits: LIMITS,
            };

            static SCANNER: LazyLock<Scanner<Sentence>> = LazyLock::new(|| Scanner::new(&STRUCTURES, &DIRECTIVES));

            /// Every sentence and directive in `text`, in order, with byte spans.
            /// Skipped directive candidates are dropped silently (decision D4).
            pub fn scan(text: &str) -> Vec<Found> {
                SCANNER.scan(text)
            }

            /// As [`scan`], plus every skipped directive candidate with its span and reason.
            #diag_example
            pub fn scan_with_diagnostics(text: &str) -> (Vec<Found>, Vec<Skipped>) {
                SCANNER.scan_with_diagnostics(text)
            }
        }
    }
}

fn patterns_mod(model: &Model) -> TokenStream {
    let items = model.patterns.iter().map(|p: &PatternIr| {
        let c = format_ident!("{}", p.const_name);
        let f = format_ident!("{}", crate::ident::rust_field(&p.key));
        let src = lit(&p.source);
        let groups: Vec<String> = p.groups.iter().map(|g| format!("- `{}` ({:?}): {}", g.name, g.ty, rustdoc(&g.description))).collect();
        let d = doc(&format!(
            "{}\n\nNamed groups:\n{}\n\nFlags are inline at the start, so the same string compiles in Python `re` \
             and Rust `regex`. Source: `/patterns/{}` in `schema/regex_patterns.json`.",
            rustdoc(&p.purpose),
            groups.join("\n"),
            p.key
        ));
        let fd = doc(&format!("[`{}`], compiled once on first use (search semantics: use `captures` to find it anywhere in a text).", p.const_name));
        quote! {
            #d
            pub const #c: &str = #src;
            #fd
            pub fn #f() -> &'static Regex {
                static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(#c).expect("the generator compiled this pattern"));
                &RE
            }
        }
    });
    let all = model.patterns.iter().map(|p| {
        let key = &p.key;
        let c = format_ident!("{}", p.const_name);
        quote! { (#key, #c) }
    });
    let fulls = model.patterns.iter().map(|p| {
        let f = format_ident!("{}_full", crate::ident::rust_field(&p.key));
        let src = lit(&anchored(&p.source));
        quote! {
            fn #f() -> &'static Regex {
                static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(#src).expect("the generator compiled this pattern"));
                &RE
            }
        }
    });
    let infos = model.patterns.iter().map(|p| {
        let key = &p.key;
        let c = format_ident!("{}", p.const_name);
        let f = format_ident!("{}", crate::ident::rust_field(&p.key));
        let full = format_ident!("{}_full", crate::ident::rust_field(&p.key));
        let purpose = &p.purpose;
        let pattern = lit(&p.pattern);
        let flags: Vec<String> =
            p.flags.iter().map(|fl| serde_json::to_value(fl).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()).collect();
        let seed = match &p.seed_pattern {
            Some(sp) => {
                let sp = lit(sp);
                quote!(Some(#sp))
            }
            None => quote!(None),
        };
        let groups = p.groups.iter().map(|g| {
            let (name, description, field) = (&g.name, &g.description, &g.field);
            let ty = value_type(g.ty);
            let values = &g.values;
            quote! { GroupInfo { name: #name, ty: #ty, values: &[#(#values),*], field: #field, description: #description } }
        });
        let matches = p.matches.iter().map(|m| {
            let text = &m.text;
            let caps = m.captures.iter().map(|(g, t)| quote!(Capture { group: #g, text: #t }));
            quote! { MatchExample { text: #text, captures: &[#(#caps),*] } }
        });
        let non = &p.non_matches;
        let spec_json = text_lit(&p.spec_json);
        quote! {
            PatternInfo {
                key: #key,
                purpose: #purpose,
                source: #c,
                pattern: #pattern,
                flags: &[#(#flags),*],
                seed_pattern: #seed,
                groups: &[#(#groups),*],
                matches: &[#(#matches),*],
                non_matches: &[#(#non),*],
                spec_json: #spec_json,
                search: #f,
                full: #full,
            }
        }
    });
    quote! {
        /// The spec's patterns: source strings (flags inline), compiled regexes and metadata.
        pub mod patterns {
            use std::sync::LazyLock;
            use agent_sentences_runtime::regex::Regex;
            use agent_sentences_runtime::serde::Serialize;
            use super::ValueType;
            #(#items)*
            /// Every pattern as `(key, source)`, in spec order.
            pub const ALL: &[(&str, &str)] = &[#(#all),*];

            #(#fulls)*

            /// A named group of a pattern (`/patterns/<key>/groups/<name>`).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub struct GroupInfo {
                /// The group's name.
                pub name: &'static str,
                /// The type of the captured value.
                #[serde(rename = "type")]
                pub ty: ValueType,
                /// For [`ValueType::Enum`]: the allowed texts; empty otherwise.
                pub values: &'static [&'static str],
                /// The structure field the group fills (its own name unless the spec maps it).
                pub field: &'static str,
                /// What the group captures.
                pub description: &'static str,
            }

            /// What one group captures in a [`MatchExample`].
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub struct Capture {
                /// The group's name.
                pub group: &'static str,
                /// The captured text.
                pub text: &'static str,
            }

            /// A text the pattern matches in full, with what each taking-part group captures.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub struct MatchExample {
                /// The text.
                pub text: &'static str,
                /// The groups that take part, in the spec's order.
                pub captures: &'static [Capture],
            }

            /// One pattern's metadata (`/patterns/<key>` in `schema/regex_patterns.json`).
            #[derive(Debug, Clone, Copy, Serialize)]
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub struct PatternInfo {
                /// The pattern key, e.g. `work_order`.
                pub key: &'static str,
                /// What it matches.
                pub purpose: &'static str,
                /// Flags inline, then the pattern: the string both engines compile.
                pub source: &'static str,
                /// The pattern without flags, as the spec writes it (a free-text group with `runs_until` written out, P91).
                pub pattern: &'static str,
                /// The spec's flags, named as Python's `re` names them (`MULTILINE`, `DOTALL`).
                pub flags: &'static [&'static str],
                /// The pattern as the seed document printed it, where it did (never compiled).
                pub seed_pattern: Option<&'static str>,
                /// Named groups, in the order they open.
                pub groups: &'static [GroupInfo],
                /// Texts the pattern matches in full.
                pub matches: &'static [MatchExample],
                /// Texts the pattern does not match in full.
                pub non_matches: &'static [&'static str],
                /// The spec entry as written, pretty-printed JSON.
                #[serde(skip)]
                pub spec_json: &'static str,
                #[serde(skip)]
                search: fn() -> &'static Regex,
                #[serde(skip)]
                full: fn() -> &'static Regex,
            }

            impl PatternInfo {
                /// The compiled pattern, search semantics (finds it anywhere in a text).
                pub fn regex(&self) -> &'static Regex {
                    (self.search)()
                }

                /// The pattern anchored at both ends (`\A(?:…)\z`): matches a whole text or nothing.
                pub fn full_regex(&self) -> &'static Regex {
                    (self.full)()
                }
            }

            /// Every pattern's metadata, in spec order.
            pub const INFO: &[PatternInfo] = &[#(#infos),*];

            /// The metadata of the pattern with key `key`, if any.
            pub fn info(key: &str) -> Option<&'static PatternInfo> {
                INFO.iter().find(|p| p.key == key)
            }
        }
    }
}

fn sentence_struct(s: &SentenceIr, schemars: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", s.type_name);
    let key = &s.key;
    let mut d = format!(
        "{} (`{}`): {}\n\nTemplate: `{}`\n\nExample: `{}`\n\nReply expectation: {}\n\nLifecycle transition: `{}`",
        rustdoc(&s.name),
        s.tag,
        rustdoc(&s.description),
        s.template,
        s.example,
        rustdoc(&s.reply_expectation),
        s.lifecycle_transition
    );
    if !s.omitted_fields.is_empty() {
        d.push_str(&format!(
            "\n\nThe spec also lists optional field(s) {}, which no pattern group captures; they are left out.",
            s.omitted_fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    d.push_str(&format!(
        "\n\nSource: `/structures/{key}` in `schema/structures.json`, parsed by pattern `{}`.",
        s.pattern_key
    ));
    let d = doc(&d);
    let fields = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.rust_name);
        let ty = rust_type(f);
        let fd = doc(&field_doc(s, f));
        let rename = (f.rust_name != f.name).then(|| {
            let n = &f.name;
            quote!(#[serde(rename = #n)])
        });
        let default = (!f.required).then(|| quote!(#[serde(default)]));
        quote! { #fd #rename #default pub #fname: #ty }
    });
    let full = lit(&anchored(&s.source));
    let steps = s.steps.iter().map(|st| {
        let p = lit(&format!(r"\A(?:{}{})", s.flag_prefix, st.prefix));
        let e = &st.expected;
        quote!(Step::new(#p, #e))
    });
    let nsteps = s.steps.len();
    let fixed = s.fixed.iter().map(|(g, v)| {
        quote! {
            match caps.group(#g) {
                Some(m) if m.as_str() == #v => {}
                other => {
                    let (offset, found) = other.map_or((0, String::new()), |m| (m.start(), m.as_str().to_owned()));
                    return Err(ParseError::new(#key, offset, ParseErrorKind::FixedMismatch { group: #g, expected: #v, found }));
                }
            }
        }
    });
    let unbound = s.unbound_groups.iter().map(|g| {
        quote! {
            if let Some(m) = caps.group(#g) {
                return Err(ParseError::new(#key, m.start(), ParseErrorKind::UnexpectedGroup { group: #g }));
            }
        }
    });
    let field_parses = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.rust_name);
        let fkey = &f.name;
        let groups = &f.groups;
        let convert = match &f.ty {
            FieldTy::String => quote!(m.as_str().to_owned()),
            FieldTy::Integer => quote! {
                m.as_str().parse::<u32>().map_err(|_| ParseError::new(#key, m.start(), ParseErrorKind::Integer { field: #fkey }))?
            },
            FieldTy::Enum(e) => {
                let e = format_ident!("{}", e);
                quote! {
                    m.as_str().parse::<#e>().map_err(|_| ParseError::new(#key, m.start(), ParseErrorKind::NoMatch { expected: format!("<{}>", #fkey) }))?
                }
            }
            FieldTy::JsonObject => quote! {
                agent_sentences_runtime::json::parse_object_with(m.as_str(), scan::LIMITS)
                    .map_err(|error| ParseError::new(#key, m.start(), ParseErrorKind::Json { field: #fkey, error }))?
            },
        };
        if f.required {
            quote! {
                let #fname = match field_capture(caps, &[#(#groups),*], #key, #fkey)? {
                    Some(m) => #convert,
                    None => return Err(ParseError::new(#key, caps.end(), ParseErrorKind::NoMatch { expected: format!("<{}>", #fkey) })),
                };
            }
        } else if f.ty == FieldTy::String {
            quote! {
                let #fname = field_capture(caps, &[#(#groups),*], #key, #fkey)?.map(|m| m.as_str().to_owned());
            }
        } else {
            quote! {
                let #fname = match field_capture(caps, &[#(#groups),*], #key, #fkey)? {
                    Some(m) => Some(#convert),
                    None => None,
                };
            }
        }
    });
    let field_names: Vec<_> = s
        .fields
        .iter()
        .map(|f| format_ident!("{}", f.rust_name))
        .collect();
    let render = s.segments.iter().map(|seg| {
        let pieces = |owner: Option<&str>| -> Vec<TokenStream> {
            seg.pieces
                .iter()
                .map(|p| match p {
                    Piece::Literal(l) => quote!(f.write_str(#l)?;),
                    Piece::Field(fname) => {
                        let field = s.fields.iter().find(|x| &x.name == fname).expect("lowered template names fields");
                        let value = if owner == Some(fname.as_str()) {
                            quote!(v)
                        } else {
                            let id = format_ident!("{}", field.rust_name);
                            quote!(&self.#id)
                        };
                        match &field.ty {
                            FieldTy::String => quote!(f.write_str(#value)?;),
                            FieldTy::Integer | FieldTy::Enum(_) => quote!(write!(f, "{}", #value)?;),
                            FieldTy::JsonObject => quote!(f.write_str(&agent_sentences_runtime::json::render_object(#value))?;),
                        }
                    }
                })
                .collect()
        };
        match &seg.optional {
            None => {
                let p = pieces(None);
                quote!(#(#p)*)
            }
            Some(opt) => {
                let id = format_ident!("{}", s.fields.iter().find(|x| &x.name == opt).expect("optional field").rust_name);
                let p = pieces(Some(opt));
                quote! { if let Some(v) = &self.#id { #(#p)* } }
            }
        }
    });
    let parse_doc = doc(&format!(
        "Parses `text` as exactly one `{key}` sentence (the whole text; use a scanner to find \
         sentences inside prose).\n\n# Errors\n[`ParseError`] naming `{key}` and the byte offset where the text \
         stopped fitting, or the field whose value is invalid."
    ));
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        pub struct #name { #(#fields,)* }

        impl #name {
            /// This structure's kind.
            pub const KIND: SentenceKind = SentenceKind::#name;

            #parse_doc
            pub fn parse(text: &str) -> Result<Self, ParseError> {
                static FULL: LazyLock<Regex> = LazyLock::new(|| Regex::new(#full).expect("the generator compiled this pattern"));
                static STEPS: [Step; #nsteps] = [#(#steps),*];
                let Some(caps) = FULL.captures(text) else {
                    let (offset, expected) = stop_point(text, &STEPS);
                    return Err(ParseError::new(#key, offset, ParseErrorKind::NoMatch { expected: expected.to_owned() }));
                };
                Self::from_groups(&caps)
            }

            /// Builds the sentence from the named groups of one match of its
            /// pattern (fixed groups checked, repeats compared, fields
            /// converted). Used by [`Self::parse`] and by the scanner, so a
            /// sentence found in text costs one pass of the regex engine.
            ///
            /// # Errors
            /// As [`Self::parse`], for what the groups hold.
            #[doc(hidden)]
            pub fn from_groups<'t>(caps: &dyn Groups<'t>) -> Result<Self, ParseError> {
                #(#fixed)*
                #(#unbound)*
                #(#field_parses)*
                Ok(#name { #(#field_names),* })
            }
        }

        impl FromStr for #name {
            type Err = ParseError;
            fn from_str(text: &str) -> Result<Self, ParseError> { #name::parse(text) }
        }

        impl fmt::Display for #name {
            /// Writes the canonical text from the template; an absent optional
            /// field drops its whole segment.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                #(#render)*
                Ok(())
            }
        }
    }
}

fn kind_enum(model: &Model, schemars: &TokenStream) -> TokenStream {
    let variants = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let d = doc(&format!("`{}`: {}", s.key, s.name));
        quote!(#d #v)
    });
    let all = model
        .sentences
        .iter()
        .map(|s| format_ident!("{}", s.type_name));
    let n = model.sentences.len();
    let getter = |name: &str, docstr: &str, f: &dyn Fn(&SentenceIr) -> String| {
        let fname = format_ident!("{}", name);
        let arms = model.sentences.iter().map(|s| {
            let v = format_ident!("{}", s.type_name);
            let val = f(s);
            quote!(SentenceKind::#v => #val)
        });
        let d = doc(docstr);
        quote! {
            #d
            pub fn #fname(self) -> &'static str { match self { #(#arms,)* } }
        }
    };
    let getters = [
        getter("key", "The structure key (`/structures/<key>`), e.g. `work_order`.", &|s| s.key.clone()),
        getter("name", "Human name (`name`).", &|s| s.name.clone()),
        getter("tag", "Protocol tag (`protocol_tag`), e.g. `[WO:]`.", &|s| s.tag.clone()),
        getter("template", "Template with `{field}` placeholders (`template`).", &|s| s.template.clone()),
        getter("description", "What the structure is for (`description`).", &|s| s.description.clone()),
        getter("reply_expectation", "What the recipient should reply (`reply_expectation`).", &|s| s.reply_expectation.clone()),
        getter("lifecycle_transition", "The loop state change (`lifecycle_transition`).", &|s| s.lifecycle_transition.clone()),
        getter("example", "The owner's example (`example`), as written.", &|s| s.example.clone()),
        getter("example_sentence", "The part of the example that is the sentence (the whole example unless it carries trailing prose).", &|s| s.example_sentence.clone()),
        getter("regex_ref", "The owner's `regex_ref`.", &|s| s.regex_ref.clone()),
        getter("pattern_key", "The pattern that parses the structure (the `regex_ref`, unless a binding in `regex_patterns.json` refines it).", &|s| s.pattern_key.clone()),
    ];
    let from_key = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let k = &s.key;
        quote!(#k => Some(SentenceKind::#v))
    });
    let fields = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let names = s.fields.iter().map(|f| &f.name);
        quote!(SentenceKind::#v => &[#(#names),*])
    });
    let field_info = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let infos = s.fields.iter().map(|f| {
            let name = &f.name;
            let (ty, values): (TokenStream, Vec<String>) = match &f.ty {
                FieldTy::String => (quote!(ValueType::String), vec![]),
                FieldTy::Integer => (quote!(ValueType::Integer), vec![]),
                FieldTy::Enum(e) => (
                    quote!(ValueType::Enum),
                    model
                        .enums
                        .iter()
                        .find(|x| &x.name == e)
                        .map(|x| x.variants.iter().map(|(_, t)| t.clone()).collect())
                        .unwrap_or_default(),
                ),
                FieldTy::JsonObject => (quote!(ValueType::JsonObject), vec![]),
            };
            let rust_type = rust_type_name(f);
            let required = f.required;
            let description = &f.description;
            let groups = &f.groups;
            let derived = opt_str(f.derived_from.as_deref());
            quote! {
                FieldInfo {
                    name: #name,
                    ty: #ty,
                    values: &[#(#values),*],
                    rust_type: #rust_type,
                    required: #required,
                    description: #description,
                    groups: &[#(#groups),*],
                    derived_from: #derived,
                }
            }
        });
        quote!(SentenceKind::#v => &[#(#infos),*])
    });
    let omitted = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let names = &s.omitted_fields;
        quote!(SentenceKind::#v => &[#(#names),*])
    });
    let notes = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let note = opt_str(s.binding_note.as_deref());
        quote!(SentenceKind::#v => #note)
    });
    let fixed = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let pairs = s.fixed.iter().map(|(g, t)| quote!((#g, #t)));
        quote!(SentenceKind::#v => &[#(#pairs),*])
    });
    let spec_json = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let j = text_lit(&s.spec_json);
        quote!(SentenceKind::#v => #j)
    });
    let parses = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(SentenceKind::#v => #v::parse(text).map(Sentence::#v))
    });
    quote! {
        /// Which sentence structure; each kind carries its spec metadata.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(rename_all = "snake_case")]
        pub enum SentenceKind { #(#variants,)* }

        impl SentenceKind {
            /// Every kind, in spec order.
            pub const ALL: [SentenceKind; #n] = [#(SentenceKind::#all),*];
            #(#getters)*
            /// The kind with structure key `key`, if any.
            pub fn from_key(key: &str) -> Option<SentenceKind> {
                match key { #(#from_key,)* _ => None }
            }
            /// The generated fields, in struct order (spec names).
            pub fn fields(self) -> &'static [&'static str] {
                match self { #(#fields,)* }
            }
            /// The generated fields with their types, in struct order.
            pub fn field_info(self) -> &'static [FieldInfo] {
                match self { #(#field_info,)* }
            }
            /// Fields the spec lists that no pattern group captures: left out of the generated type.
            pub fn omitted_fields(self) -> &'static [&'static str] {
                match self { #(#omitted,)* }
            }
            /// Groups of the bound pattern that must capture fixed text for this structure, as
            /// `(group, text)` (e.g. `verb` = `CLAIM` for `claim`).
            pub fn fixed_groups(self) -> &'static [(&'static str, &'static str)] {
                match self { #(#fixed,)* }
            }
            /// Why the structure binds to another pattern than its `regex_ref`, where it does.
            pub fn binding_note(self) -> Option<&'static str> {
                match self { #(#notes,)* }
            }
            /// The spec entry `/structures/<key>` as written, pretty-printed JSON.
            pub fn spec_json(self) -> &'static str {
                match self { #(#spec_json,)* }
            }
            /// Parses `text` as exactly one sentence of this structure (the
            /// structure's own `parse`, wrapped in [`Sentence`]).
            ///
            /// # Errors
            /// The structure's [`ParseError`].
            pub fn parse(self, text: &str) -> Result<Sentence, ParseError> {
                match self { #(#parses,)* }
            }
        }

        impl fmt::Display for SentenceKind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.key()) }
        }
    }
}

fn sentence_enum(model: &Model, schemars: &TokenStream, examples: bool) -> TokenStream {
    let parse_example = if examples {
        doc(&sentence_parse_example(model))
    } else {
        quote!()
    };
    let variants = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let k = &s.key;
        let d = doc(&format!("A `{k}` sentence."));
        quote!(#d #[serde(rename = #k)] #v(#v))
    });
    let kinds = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(Sentence::#v(_) => SentenceKind::#v)
    });
    let displays = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(Sentence::#v(x) => x.fmt(f))
    });
    let tries = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote! {
            match #v::parse(text) {
                Ok(x) => return Ok(Sentence::#v(x)),
                Err(e) => {
                    let rank = (e.offset, agent_sentences_runtime::tag_affinity(SentenceKind::#v.tag(), text));
                    match &best {
                        Some((_, b)) if *b >= rank => {}
                        _ => best = Some((e, rank)),
                    }
                }
            }
        }
    });
    quote! {
        /// Any sentence. Serializes as the structure's fields plus
        /// `"structure": "<key>"`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(tag = "structure")]
        pub enum Sentence { #(#variants,)* }

        impl Sentence {
            /// Parses `text` as exactly one sentence of any structure, trying
            /// structures in spec order; the first that fits the whole text wins.
            ///
            /// # Errors
            /// [`ParseError`] with `structure: None` and `closest` set to the
            /// structure that fitted the longest prefix, with its offset and
            /// reason; among equally long ones, the one whose protocol tag
            /// the text starts with the most of (`tag_affinity`), then the
            /// first in spec order.
            #parse_example
            pub fn parse(text: &str) -> Result<Sentence, ParseError> {
                let mut best: Option<(ParseError, (usize, usize))> = None;
                #(#tries)*
                let (best, _) = best.expect("at least one structure");
                Err(ParseError { structure: None, closest: best.structure, offset: best.offset, kind: best.kind })
            }

            /// The structure of this sentence.
            pub fn kind(&self) -> SentenceKind {
                match self { #(#kinds,)* }
            }
        }

        impl FromStr for Sentence {
            type Err = ParseError;
            fn from_str(text: &str) -> Result<Self, ParseError> { Sentence::parse(text) }
        }

        impl fmt::Display for Sentence {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self { #(#displays,)* }
            }
        }
    }
}

fn typed_literal(s: &SentenceIr, f: &FieldIr, text: &str) -> TokenStream {
    let _ = s;
    match &f.ty {
        FieldTy::String => quote!(#text),
        FieldTy::Integer => {
            let n: u32 = text.parse().expect("checked integer");
            quote!(#n)
        }
        FieldTy::Enum(e) => {
            let e = format_ident!("{}", e);
            quote!(#text.parse::<#e>().unwrap())
        }
        FieldTy::JsonObject => {
            quote!(agent_sentences_runtime::serde_json::from_str::<JsonObject>(#text).unwrap())
        }
    }
}

/// `generated/rust/tests/spec_examples.rs`: one test per structure example and
/// one per pattern, from the spec's declared examples.
pub fn spec_examples_rs(model: &Model) -> String {
    let per_structure = model.sentences.iter().map(|s| {
        let test = format_ident!("{}_example_parses_and_renders_back", s.key);
        let ty = format_ident!("{}", s.type_name);
        let text = &s.example_sentence;
        let asserts = s.fields.iter().map(|f| {
            let id = format_ident!("{}", f.rust_name);
            let captured = f.groups.iter().find_map(|g| s.example_captures.get(g));
            match (captured, f.required) {
                (Some(c), true) => {
                    let v = typed_literal(s, f, c);
                    quote!(assert_eq!(v.#id, #v, "field {}", stringify!(#id));)
                }
                (Some(c), false) => {
                    let v = typed_literal(s, f, c);
                    let v = if f.ty == FieldTy::String {
                        quote!(#v.to_owned())
                    } else {
                        v
                    };
                    quote!(assert_eq!(v.#id, Some(#v), "field {}", stringify!(#id));)
                }
                (None, false) => quote!(assert_eq!(v.#id, None, "field {}", stringify!(#id));),
                (None, true) => {
                    quote!(compile_error!("required field without a declared capture");)
                }
            }
        });
        quote! {
            #[test]
            fn #test() {
                let text = #text;
                let v: #ty = text.parse().unwrap();
                #(#asserts)*
                assert_eq!(v.to_string(), text);
                let any = Sentence::parse(text).unwrap();
                assert_eq!(any.kind(), SentenceKind::#ty);
                assert_eq!(any, Sentence::#ty(v));
            }
        }
    });
    let per_pattern = model.patterns.iter().map(|p| {
        let test = format_ident!("pattern_{}_examples", p.key);
        let c = format_ident!("{}", p.const_name);
        let matches = p.matches.iter().map(|m| {
            let text = &m.text;
            let groups = p.groups.iter().map(|g| {
                let name = &g.name;
                match m.captures.get(name) {
                    Some(v) => quote!(assert_eq!(caps.name(#name).map(|m| m.as_str()), Some(#v), "group {}", #name);),
                    None => quote!(assert_eq!(caps.name(#name).map(|m| m.as_str()), None, "group {}", #name);),
                }
            });
            quote! {
                let caps = full.captures(#text).expect(#text);
                #(#groups)*
            }
        });
        let non = p.non_matches.iter().map(|t| quote!(assert!(!full.is_match(#t), "must not match: {:?}", #t);));
        quote! {
            #[test]
            fn #test() {
                let full = Regex::new(&format!(r"\A(?:{})\z", patterns::#c)).unwrap();
                #(#matches)*
                #(#non)*
            }
        }
    });
    format_rust(quote! {
        //! The spec's own examples, run against the generated crate.
        #![allow(clippy::bool_assert_comparison)]
        use agent_sentences::*;
        use agent_sentences_runtime::regex::Regex;
        #(#per_structure)*
        #(#per_pattern)*
    })
}

/// Pairs `(optional enum field, next field)` where the template writes
/// `{opt} {next}`: when `opt` is absent, a `next` that starts with one of
/// `opt`'s values and a blank would be read back as `opt` (the optional group
/// is tried first, P4), so such values are outside the canonical domain.
pub fn absorbing_pairs(s: &SentenceIr) -> Vec<(&FieldIr, &FieldIr)> {
    s.fields
        .iter()
        .filter(|f| !f.required && matches!(f.ty, FieldTy::Enum(_)))
        .filter_map(|f| {
            let after = s.template.split_once(&format!("{{{}}} {{", f.name))?.1;
            let next = &after[..after.find('}')?];
            s.fields.iter().find(|g| g.name == next).map(|g| (f, g))
        })
        .collect()
}

fn value_strategy(s: &SentenceIr, f: &FieldIr) -> TokenStream {
    let pattern = lit(&format!("{}{}", s.flag_prefix, f.inner));
    let base = match &f.ty {
        FieldTy::String => {
            let biased = absorbing_pairs(s).into_iter().find(|(_, next)| next.name == f.name).map(|(opt, _)| {
                let FieldTy::Enum(e) = &opt.ty else { unreachable!("absorbing fields are enums") };
                let e = format_ident!("{}", e);
                quote! {
                    1 => (proptest::sample::select(#e::ALL.to_vec()), text(#pattern)).prop_map(|(v, s)| format!("{v} {s}")),
                }
            });
            match biased {
                Some(b) => quote!(prop_oneof![3 => text(#pattern), #b].boxed()),
                None => quote!(text(#pattern)),
            }
        }
        FieldTy::Integer => {
            quote!(text(#pattern).prop_map(|s| s.parse::<u32>().expect("integer groups are 1-9 digits")).boxed())
        }
        FieldTy::Enum(e) => {
            let e = format_ident!("{}", e);
            quote!(proptest::sample::select(#e::ALL.to_vec()).boxed())
        }
        FieldTy::JsonObject => quote!(json_object().boxed()),
    };
    if f.required {
        base
    } else {
        quote!(proptest::option::of(#base))
    }
}

/// `generated/rust/tests/roundtrip.rs`: property tests. For every structure,
/// random values (each field drawn from its group's own pattern, JSON objects
/// from a recursive strategy, derived fields computed from their source
/// field) render to a text that parses back, as the structure and as any
/// sentence, to the same value.
pub fn roundtrip_rs(model: &Model) -> String {
    let tests = model.sentences.iter().map(|s| {
        let test = format_ident!("{}_renders_and_parses_back", s.key);
        let ty = format_ident!("{}", s.type_name);
        let generated: Vec<&FieldIr> = s.fields.iter().filter(|f| f.derived_from.is_none()).collect();
        let ids: Vec<_> = generated.iter().map(|f| format_ident!("{}", f.rust_name)).collect();
        let strategies = generated.iter().map(|f| value_strategy(s, f));
        let derived = s.fields.iter().filter(|f| f.derived_from.is_some()).map(|f| {
            let id = format_ident!("{}", f.rust_name);
            let parent = s.fields.iter().find(|p| Some(&p.name) == f.derived_from.as_ref()).expect("derived from a field");
            let pid = format_ident!("{}", parent.rust_name);
            let pattern = lit(&format!(r"\A(?:{}{})\z", s.flag_prefix, parent.inner));
            let group = f.groups.first().expect("a field has a group");
            let convert = match &f.ty {
                FieldTy::Integer => quote!(.map(|t| t.parse::<u32>().expect("integer groups are 1-9 digits"))),
                FieldTy::Enum(e) => {
                    let e = format_ident!("{}", e);
                    quote!(.map(|t| t.parse::<#e>().expect("enum groups are their values")))
                }
                FieldTy::String => quote!(),
                FieldTy::JsonObject => quote!(.map(|t| agent_sentences_runtime::serde_json::from_str::<JsonObject>(&t).expect("a JSON object group"))),
            };
            let required = f.required.then(|| quote!(.expect("a required derived field is always captured")));
            quote!(let #id = derived(&#pid, #pattern, #group) #convert #required;)
        });
        let pairs = absorbing_pairs(s);
        let setup = pairs.iter().map(|(_, next)| {
            let re = format_ident!("{}_pattern", next.rust_name);
            let full = lit(&format!(r"\A(?:{}{})\z", s.flag_prefix, next.inner));
            quote!(let #re = Regex::new(#full).unwrap();)
        });
        let guards = pairs.iter().map(|(opt, next)| {
            let o = format_ident!("{}", opt.rust_name);
            let n = format_ident!("{}", next.rust_name);
            let re = format_ident!("{}_pattern", next.rust_name);
            let FieldTy::Enum(e) = &opt.ty else { unreachable!("absorbing fields are enums") };
            let e = format_ident!("{}", e);
            let why = format!("`{}` absent and `{}` starting with one of its values and a blank: read back as `{}`", opt.name, next.name, opt.name);
            quote! {
                prop_assume!(
                    #o.is_some() || !#e::ALL.iter().any(|v| #n.strip_prefix(v.as_str()).is_some_and(|r| r.starts_with([' ', '\t']))),
                    #why
                );
                prop_assume!(#re.is_match(&#n), "biased value outside the group's pattern");
            }
        });
        let names = s.fields.iter().map(|f| format_ident!("{}", f.rust_name));
        let doc = doc(&format!("`{}`: random values render and parse back.", s.key));
        quote! {
            #doc
            #[test]
            fn #test() {
                #(#setup)*
                check((#(#strategies,)*), |(#(#ids,)*)| {
                    #(#derived)*
                    #(#guards)*
                    round_trip(#ty { #(#names),* }, Sentence::#ty)
                });
            }
        }
    });
    format_rust(quote! {
        //! Property tests: random valid values of every structure render to a
        //! text that parses back to the same value, as the structure and as
        //! any sentence; 1000 cases per structure (`PROPTEST_CASES` overrides).
        //!
        //! Each string or integer field is drawn from its group's own pattern
        //! (`proptest::string::string_regex`), so the groups must admit exactly
        //! the canonical values. Derived fields are computed from their source
        //! field. One domain constraint is stated explicitly: an absent optional
        //! enum field followed by ` {next}` in the template requires `next` not
        //! to start with one of the enum's values and a blank (P4); such texts
        //! are drawn often on purpose, with the enum present.
        use agent_sentences::*;
        use proptest::prelude::*;
        use proptest::string::string_regex;
        use proptest::test_runner::{Config, TestRunner};
        use agent_sentences_runtime::regex::Regex;
        use agent_sentences_runtime::serde_json::{self, Value};

        /// Strings matching `pattern`.
        fn text(pattern: &str) -> BoxedStrategy<String> {
            string_regex(pattern).expect("proptest reads every spec pattern").boxed()
        }

        /// Any JSON value a strict object may hold, nested a few levels.
        fn json_value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(Value::from),
                any::<u64>().prop_map(Value::from),
                any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
                any::<String>().prop_map(Value::String),
            ];
            leaf.prop_recursive(4, 32, 6, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                    proptest::collection::vec((any::<String>(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
                ]
            })
        }

        /// Any JSON object.
        fn json_object() -> BoxedStrategy<JsonObject> {
            proptest::collection::vec((any::<String>(), json_value()), 0..6).prop_map(|kv| kv.into_iter().collect()).boxed()
        }

        /// What group `group` of `pattern` captures in `source`.
        fn derived(source: &str, pattern: &str, group: &str) -> Option<String> {
            Regex::new(pattern).unwrap().captures(source).and_then(|c| c.name(group)).map(|m| m.as_str().to_owned())
        }

        /// Renders `value`, parses the text back as its structure and as any
        /// sentence, and checks both give `value`.
        fn round_trip<T>(value: T, wrap: fn(T) -> Sentence) -> Result<(), TestCaseError>
        where
            T: std::fmt::Display + std::str::FromStr<Err = ParseError> + PartialEq + std::fmt::Debug + Clone,
        {
            let text = value.to_string();
            let back: T = text.parse().map_err(|e| TestCaseError::fail(format!("{text:?} does not parse back: {e}")))?;
            prop_assert_eq!(&back, &value, "text {:?}", text);
            let any = Sentence::parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
            prop_assert_eq!(any, wrap(value), "text {:?}", text);
            Ok(())
        }

        /// Runs `test` on 1000 values of `strategy` (or `PROPTEST_CASES`).
        fn check<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
            let mut config = Config { failure_persistence: None, ..Config::default() };
            if std::env::var_os("PROPTEST_CASES").is_none() {
                config.cases = 1000;
            }
            if let Err(e) = TestRunner::new(config).run(&strategy, test) {
                panic!("{e}");
            }
        }

        #(#tests)*
    })
}

/// The `loops` module: the state machine of `schema/loops.json` and the
/// structures' `lifecycle_transition`s, and the glue from scanned sentences to
/// the runtime's tracker. Nothing when the spec has no `loops.json`.
fn loops_mod(model: &Model, crate_root: bool) -> TokenStream {
    let Some(m) = &model.machine else {
        return TokenStream::new();
    };
    let sentence_of = |key: &str| {
        model
            .sentences
            .iter()
            .find(|s| s.key == key)
            .expect("checked: the structure exists")
    };
    let field_ident = |s: &SentenceIr, name: &str| {
        let f = s
            .fields
            .iter()
            .find(|f| f.name == name)
            .expect("checked: the field exists");
        format_ident!("{}", f.rust_name)
    };
    let (opener, initial, claim) = (&m.opener, &m.initial, &m.claim);
    let states = &m.states;
    let closed = &m.closed_states;
    let rules = m.rules.iter().map(|r| {
        let (structure, from, to, closes) = (&r.structure, &r.from, &r.to, r.closes);
        quote! { EventRule { structure: #structure, from: &[#(#from),*], to: #to, closes: #closes } }
    });
    let nudge_key = &m.nudge.structure;
    let nudge = sentence_of(nudge_key);
    let mut arms: Vec<TokenStream> = m
        .ids
        .iter()
        .map(|(key, field)| {
            let s = sentence_of(key);
            let variant = format_ident!("{}", s.type_name);
            let id = field_ident(s, field);
            quote! { Sentence::#variant(s) => Some(LoopEvent { structure: #key, id: s.#id.clone(), count: None }) }
        })
        .collect();
    let nudge_example = &nudge.example_sentence;
    let nudge_variant = format_ident!("{}", nudge.type_name);
    let nudge_type = format_ident!("{}", nudge.type_name);
    let (n_id, n_count, n_max, n_deadline) = (
        field_ident(nudge, &m.nudge.loop_id),
        field_ident(nudge, &m.nudge.count),
        field_ident(nudge, &m.nudge.max),
        field_ident(nudge, &m.nudge.deadline),
    );
    arms.push(quote! { Sentence::#nudge_variant(s) => Some(LoopEvent { structure: #nudge_key, id: s.#n_id.clone(), count: Some(s.#n_count) }) });
    let played = [
        &m.nudge.loop_id,
        &m.nudge.count,
        &m.nudge.max,
        &m.nudge.deadline,
    ];
    let others = nudge
        .fields
        .iter()
        .filter(|f| !played.contains(&&f.name))
        .map(|f| {
            let f = format_ident!("{}", f.rust_name);
            quote! { #f: None }
        });
    let per_opener = m.sla.deadline_minutes.iter().map(|(k, v)| {
        let secs = i64::from(*v) * 60;
        quote! { (#k.to_owned(), #secs) }
    });
    let default_secs = i64::from(m.sla.default_deadline_minutes) * 60;
    let every_secs = i64::from(m.sla.nudge_every_minutes) * 60;
    let max = m.sla.max_nudges;
    // The example (a doctest, in the generated crate only, P102) opens a loop
    // with the opener's own example sentence.
    let example = if crate_root {
        let sentence = format!("{:?}", sentence_of(opener).example_sentence);
        format!(
            "\n\n```\n\
             use agent_sentences::loops;\n\
             let mut t = loops::tracker(loops::default_config()).unwrap();\n\
             let at = \"2026-12-01T09:00:00Z\".parse().unwrap();\n\
             assert_eq!(loops::feed(&mut t, at, \"super\", {sentence}), 1);\n\
             let (id, l) = t.state().loops.iter().next().unwrap();\n\
             assert_eq!(l.state, loops::MACHINE.initial);\n\
             let due = t.due(l.deadline);\n\
             assert_eq!(due[0].id, *id);\n\
             assert!(due[0].sentence.as_deref().unwrap().contains(&format!(\" {{id}}]\")));\n\
             ```"
        )
    } else {
        String::new()
    };
    let mod_doc = doc(&format!(
        "The loop tracker for this spec: a [`{opener}`]({}) sentence opens a loop in state `{initial}`, \
         the other sentences move it as their `lifecycle_transition` says (`loops::MACHINE`), and loops that go quiet \
         are due a `{nudge_key}` (`Tracker::due`).\n\n\
         Source: `schema/loops.json` and each structure's `lifecycle_transition` in `schema/structures.json`; the rules \
         are in `agent_sentences_runtime::loops`.{example}",
        sentence_of(opener).type_name
    ));
    quote! {
        #mod_doc
        pub mod loops {
            pub use agent_sentences_runtime::loops::{
                Config, Due, EventRule, Loop, LoopError, LoopEvent, Machine, Message, Rejected, RejectedReport, Report, State, Step,
                Timestamp, Tracker, MAX_SECONDS,
            };

            use super::scan::{Found, Item};
            use super::Sentence;

            /// The state machine: states, which structure is which event, the
            /// moves each makes (`schema/loops.json`, each structure's
            /// `lifecycle_transition`).
            pub static MACHINE: Machine = Machine {
                opener: #opener,
                initial: #initial,
                states: &[#(#states),*],
                closed_states: &[#(#closed),*],
                rules: &[#(#rules),*],
                nudge: Some(#nudge_key),
                claim: Some(#claim),
            };

            /// The SLA defaults of `/sla` in `schema/loops.json`.
            pub fn default_config() -> Config {
                Config {
                    sla_seconds: [#(#per_opener),*].into_iter().collect(),
                    default_sla_seconds: #default_secs,
                    nudge_interval_seconds: #every_secs,
                    max_nudges: #max,
                }
            }

            /// The loop event of a sentence: its structure and the loop id it
            /// names; `None` for a sentence that moves no loop.
            pub fn event(sentence: &Sentence) -> Option<LoopEvent> {
                match sentence {
                    #(#arms,)*
                    _ => None,
                }
            }

            /// The loop events of a scan, in order.
            pub fn events(found: &[Found]) -> Vec<LoopEvent> {
                found
                    .iter()
                    .filter_map(|f| match &f.item {
                        Item::Sentence { value } => event(value),
                        Item::Directive { .. } => None,
                    })
                    .collect()
            }

            /// The canonical nudge sentence: `(loop id, count, max, deadline)`.
            pub fn render_nudge(id: &str, n: u32, of: u32, deadline: &str) -> String {
                super::#nudge_type { #n_id: id.to_owned(), #n_count: n, #n_max: of, #n_deadline: deadline.to_owned(), #(#others),* }.to_string()
            }

            /// True when `id` can be written back into a sentence: the nudge
            /// rendered for it reads back as one nudge of this id (a line
            /// break, a `]` or any character outside the nudge's id pattern
            /// fails).
            pub fn writable_id(id: &str) -> bool {
                super::#nudge_type::parse(&render_nudge(id, 1, 1, "1970-01-01T00:00Z")).is_ok_and(|n| n.#n_id == id)
            }

            /// True when nudges can be counted up to `max` in a sentence: the
            /// nudge `max` of `max`, rendered for the spec's example nudge,
            /// reads back with these counts (a count past the nudge's count
            /// pattern fails).
            pub fn writable_max(max: u32) -> bool {
                let Ok(example) = super::#nudge_type::parse(#nudge_example) else {
                    return true;
                };
                super::#nudge_type::parse(&render_nudge(&example.#n_id, max, max, &example.#n_deadline))
                    .is_ok_and(|n| n.#n_count == max && n.#n_max == max)
            }

            /// `config`'s `max_nudges` as [`writable_max`] checks it, the
            /// error at `pointer`.
            fn check_max(config: &Config, pointer: &str) -> Result<(), LoopError> {
                if writable_max(config.max_nudges) {
                    return Ok(());
                }
                Err(LoopError {
                    pointer: pointer.to_owned(),
                    message: format!(
                        "{} nudges cannot be counted in a nudge sentence: `{}` does not read back",
                        config.max_nudges,
                        render_nudge("…", config.max_nudges, config.max_nudges, "…")
                    ),
                })
            }

            /// A tracker with no loops.
            ///
            /// # Errors
            /// A [`LoopError`] when `config` would overflow a deadline or a
            /// nudge time (`Config::check`), or counts more nudges than a
            /// nudge sentence can carry (at `/max_nudges`, [`writable_max`]).
            pub fn tracker(config: Config) -> Result<Tracker, LoopError> {
                check_max(&config, "/max_nudges")?;
                Tracker::new(&MACHINE, render_nudge, writable_id, config)
            }

            /// A tracker resuming from a saved [`State`], checked as a fed
            /// one (`Tracker::with_state`), its config as [`tracker`] checks
            /// one.
            ///
            /// # Errors
            /// A [`LoopError`] at the first value of `state` that does not
            /// hold.
            pub fn restore(state: State) -> Result<Tracker, LoopError> {
                check_max(&state.config, "/config/max_nudges")?;
                Tracker::restore(&MACHINE, render_nudge, writable_id, state)
            }

            /// Scans `text` and applies its sentences to their loops; how many
            /// were applied (the rest are in [`State::rejected`]).
            pub fn feed(tracker: &mut Tracker, at: Timestamp, from: &str, text: &str) -> usize {
                tracker.feed(at, from, &events(&super::scan::scan(text)))
            }

            /// Replays a JSON Lines log (one `{"at", "from", "text"}` per
            /// line) into a new tracker with `config`: the tracker, and the
            /// numbers of the lines that were not messages (each also in
            /// [`State::rejected`] with why; the other lines are still fed).
            ///
            /// # Errors
            /// A [`LoopError`] when `config` does not pass `Config::check`.
            pub fn replay(jsonl: &str, config: Config) -> Result<(Tracker, Vec<usize>), LoopError> {
                replay_bytes(jsonl.as_bytes(), config)
            }

            /// [`replay`] of raw bytes: a line that is not UTF-8 is a bad line
            /// like any other.
            ///
            /// # Errors
            /// A [`LoopError`] when `config` does not pass `Config::check`.
            pub fn replay_bytes(jsonl: &[u8], config: Config) -> Result<(Tracker, Vec<usize>), LoopError> {
                let mut t = tracker(config)?;
                let bad = agent_sentences_runtime::loops::replay_bytes(&mut t, jsonl, |t, m| {
                    feed(t, m.at, &m.from, &m.text);
                });
                Ok((t, bad))
            }
        }
    }
}

/// The `ops` module: the exec op catalogue of `schema/ops.json`, a typed
/// argument struct per runnable op, the `Op` enum, `Call` and `resolve`.
/// Nothing when the spec has no `ops.json`.
fn ops_mod(model: &Model, crate_root: bool) -> TokenStream {
    use crate::ops::ArgTy;
    let Some(cat) = &model.ops else {
        return TokenStream::new();
    };
    let specs = cat.ops.iter().map(|o| {
        let (name, description, engines, side) = (&o.name, &o.description, &o.engines, o.side_effecting);
        let aliases = &o.aliases;
        let schema = o.args_schema.as_ref().map_or_else(|| quote!(None), |s| quote!(Some(#s)));
        let missing = o.missing.as_ref().map_or_else(|| quote!(None), |s| quote!(Some(#s)));
        quote! {
            OpSpec { name: #name, description: #description, engines: &[#(#engines),*], side_effecting: #side,
                     args_schema: #schema, missing: #missing, aliases: &[#(#aliases),*] }
        }
    });
    let aliases = cat.aliases.iter().map(|(a, o)| quote!((#a, #o)));
    let variants: Vec<_> = cat
        .ops
        .iter()
        .map(|o| format_ident!("{}", o.variant))
        .collect();
    let names: Vec<&String> = cat.ops.iter().map(|o| &o.name).collect();
    let indexes: Vec<usize> = (0..cat.ops.len()).collect();
    let variant_docs = cat.ops.iter().map(|o| {
        let state = if o.runnable {
            "Runnable".to_owned()
        } else {
            format!(
                "Incomplete, never runs: {}",
                o.missing.as_deref().unwrap_or("")
            )
        };
        doc(&format!(
            "`{}` (`/ops/{}` in `schema/ops.json`): {}\n\n{state}",
            o.name, o.name, o.description
        ))
    });
    let runnable: Vec<_> = cat.ops.iter().filter(|o| o.runnable).collect();
    let structs = runnable.iter().map(|o| {
        let ty = format_ident!("{}", o.args_type);
        let fields = o.args.iter().map(|a| {
            let f = format_ident!("{}", a.rust_name);
            let key = &a.key;
            let base = match a.ty {
                ArgTy::String => quote!(String),
                ArgTy::Integer => quote!(i64),
                ArgTy::Number => quote!(f64),
                ArgTy::Boolean => quote!(bool),
                ArgTy::Object => quote!(agent_sentences_runtime::serde_json::Map<String, agent_sentences_runtime::serde_json::Value>),
                ArgTy::Array => quote!(Vec<agent_sentences_runtime::serde_json::Value>),
            };
            let d = doc(&format!(
                "`{key}`{}: {} (`/ops/{}/args/properties/{key}`, schema `{}`).",
                if a.required { "" } else { ", optional" },
                a.description.as_deref().unwrap_or("no description"),
                o.name,
                a.schema
            ));
            if a.required {
                quote! { #d #[serde(rename = #key)] pub #f: #base, }
            } else {
                quote! { #d #[serde(rename = #key, default, skip_serializing_if = "Option::is_none")] pub #f: Option<#base>, }
            }
        });
        let d = doc(&format!("The arguments of `{}` (`/ops/{}/args` in `schema/ops.json`), valid against its schema.", o.name, o.name));
        quote! {
            #d
            #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
            #[serde(crate = "agent_sentences_runtime::serde", deny_unknown_fields)]
            pub struct #ty { #(#fields)* }
        }
    });
    let call_variants = runnable.iter().map(|o| {
        let v = format_ident!("{}", o.variant);
        let ty = format_ident!("{}", o.args_type);
        let d = doc(&format!("A call of `{}`.", o.name));
        quote! { #d #v(#ty) }
    });
    let call_op = runnable.iter().map(|o| {
        let v = format_ident!("{}", o.variant);
        quote! { Call::#v(_) => Op::#v }
    });
    let call_args = runnable.iter().map(|o| {
        let v = format_ident!("{}", o.variant);
        quote! { Call::#v(a) => agent_sentences_runtime::serde_json::to_value(a).expect("arguments serialize") }
    });
    let decode = runnable.iter().map(|o| {
        let v = format_ident!("{}", o.variant);
        quote! { Op::#v => agent_sentences_runtime::serde_json::from_value(args).map(Call::#v) }
    });
    let has_incomplete = runnable.len() < cat.ops.len();
    let unreachable =
        has_incomplete.then(|| quote! { _ => unreachable!("check passes runnable ops only"), });
    // The example (a doctest, in the generated crate only, P102) resolves the
    // first runnable op's first example call.
    let example = runnable
        .iter()
        .find_map(|o| Some((o, o.examples.first()?, o.engines.first()?)))
        .filter(|_| crate_root)
        .map_or_else(String::new, |(o, args, engine)| {
            let text = format!("[{engine} {} {args}]", o.name);
            format!(
                "\n\n```\n\
                 use agent_sentences::{{ops, scan}};\n\
                 let found = scan::scan({text:?});\n\
                 let scan::Item::Directive {{ directive }} = &found[0].item else {{ unreachable!() }};\n\
                 let call = ops::resolve(directive).unwrap();\n\
                 assert_eq!(call.op(), ops::Op::{});\n\
                 assert_eq!(call.args(), agent_sentences_runtime::serde_json::Value::Object(directive.args.clone()));\n\
                 ```",
                o.variant
            )
        });
    let module_doc = doc(&format!(
        "The exec op catalogue (`schema/ops.json`): every op a call may run, and [`resolve`](ops::resolve), which turns a scanned \
         tool directive into a typed [`Call`](ops::Call) or says why it does not run: the alias applied, the op in the \
         catalogue, the engine allowed, the arguments valid against the op's JSON Schema (draft 2020-12, the \
         `jsonschema` crate), each fault located by JSON pointer. Scanning never resolves: call [`resolve`](ops::resolve) on the \
         directives you mean to run.{example}"
    ));
    quote! {
        #module_doc
        pub mod ops {
            use agent_sentences_runtime::serde::{Deserialize, Serialize};

            pub use agent_sentences_runtime::ops::{ArgError, Catalogue, OpSpec, ResolveError, ResolveErrorKind, ToolEntry, ToolsList};
            use super::scan::ToolDirective;

            /// The catalogue: every op of `schema/ops.json` in its order, and
            /// the native aliases of `/aliases` in `schema/directives.json`.
            pub static CATALOGUE: Catalogue = Catalogue::new(&[#(#specs),*], &[#(#aliases),*]);

            /// Every op of the catalogue (`/ops` in `schema/ops.json`).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub enum Op {
                #(#variant_docs #[serde(rename = #names)] #variants,)*
            }

            impl Op {
                /// Every op, in catalogue order.
                pub const ALL: &'static [Op] = &[#(Op::#variants),*];

                /// The op's name, e.g. `followup.create`.
                pub fn name(self) -> &'static str {
                    match self { #(Op::#variants => #names,)* }
                }

                /// The op named `name` (no alias applied).
                pub fn from_name(name: &str) -> Option<Op> {
                    match name { #(#names => Some(Op::#variants),)* _ => None }
                }

                /// Its catalogue entry.
                pub fn spec(self) -> &'static OpSpec {
                    &CATALOGUE.ops[match self { #(Op::#variants => #indexes,)* }]
                }

                /// True when running it changes anything (D5).
                pub fn side_effecting(self) -> bool {
                    self.spec().side_effecting
                }
            }

            #(#structs)*

            /// A call that may run: a runnable op with arguments valid
            /// against its schema.
            #[derive(Debug, Clone, PartialEq)]
            pub enum Call { #(#call_variants,)* }

            impl Call {
                /// The op called.
                pub fn op(&self) -> Op {
                    match self { #(#call_op,)* }
                }

                /// The arguments as a JSON object.
                pub fn args(&self) -> agent_sentences_runtime::serde_json::Value {
                    match self { #(#call_args,)* }
                }
            }

            /// Resolves a scanned directive: the typed call, or why it does not
            /// run (an unknown op, an engine the op does not allow, an op the
            /// catalogue leaves incomplete, bad arguments).
            ///
            /// # Errors
            /// A [`ResolveError`]: nothing of it may run.
            pub fn resolve(directive: &ToolDirective) -> Result<Call, ResolveError> {
                resolve_parts(directive.engine, &directive.op, &directive.args)
            }

            /// [`resolve`] from its parts: the engine keyword, the op (an
            /// alias is applied) and the argument object.
            ///
            /// # Errors
            /// As [`resolve`].
            pub fn resolve_parts(engine: &str, op: &str, args: &agent_sentences_runtime::serde_json::Map<String, agent_sentences_runtime::serde_json::Value>) -> Result<Call, ResolveError> {
                let index = CATALOGUE.check(engine, op, args)?;
                let args = agent_sentences_runtime::serde_json::Value::Object(args.clone());
                let decoded = match Op::ALL[index] {
                    #(#decode,)*
                    #unreachable
                };
                decoded.map_err(|e| CATALOGUE.decode_error(index, engine, &e))
            }

            /// The `tools.list` response (D5): every op with its
            /// `side_effecting` flag and argument schema.
            pub fn tools_list() -> ToolsList {
                CATALOGUE.tools_list()
            }
        }
    }
}

/// The `envelope` module: the prompt envelope of `schema/envelope.json`, laid
/// out as pieces, and `wrap`, which renders it around a message and checks
/// that it scans back. Nothing when the spec has no `envelope.json`.
fn envelope_mod(model: &Model, crate_root: bool) -> TokenStream {
    use crate::lower::EnvPiece;
    let Some(e) = &model.envelope else {
        return TokenStream::new();
    };
    let pieces = e.pieces.iter().map(|p| match p {
        EnvPiece::Message => quote!(Piece::Message),
        EnvPiece::Text(t) => quote!(Piece::Text(#t)),
        EnvPiece::Id => quote!(Piece::Id),
    });
    let (fstart, fend) = (e.footer.start, e.footer.end);
    let advertised = &e.advertised;
    let ty = format_ident!("{}", e.footer_type);
    let field = format_ident!("{}", e.footer_field);
    let example = if crate_root {
        format!(
            "\n\n```\n\
             use agent_sentences::{{envelope, scan}};\n\
             let text = envelope::wrap({message:?}, {id:?}).unwrap();\n\
             assert_eq!(text, {text:?});\n\
             let last = scan::scan(&text).pop().unwrap();\n\
             assert!(matches!(last.item, scan::Item::Sentence {{ value: agent_sentences::Sentence::{ty}(f) }} if f.{field} == {id:?}));\n\
             ```",
            message = e.example_message,
            id = e.example_id,
            text = e.example_text,
            ty = e.footer_type,
            field = e.footer_field,
        )
    } else {
        String::new()
    };
    let mod_doc = doc(&format!(
        "The prompt envelope (`schema/envelope.json`): the text that wraps timer and job messages, after one blank line: \
         the ops it advertises, the verdict rule and the `{}` footer carrying the message's id (P149). [`wrap`](envelope::wrap) \
         renders it and scans it back.{example}",
        e.footer_structure
    ));
    quote! {
        #mod_doc
        pub mod envelope {
            pub use agent_sentences_runtime::envelope::{EnvelopeError, Piece};

            use super::Sentence;

            /// The pieces, in order: the message, then the envelope's lines.
            pub const PIECES: &[Piece] = &[#(#pieces),*];

            /// The pieces of the footer (a range of [`PIECES`]).
            pub const FOOTER: std::ops::Range<usize> = #fstart..#fend;

            /// The ops the envelope advertises, in order.
            pub const ADVERTISED: &[&str] = &[#(#advertised),*];

            /// The envelope around `message`, its footer carrying `id`, without
            /// the check of [`wrap`]; and the footer's byte span.
            pub fn render(message: &str, id: &str) -> (String, std::ops::Range<usize>) {
                agent_sentences_runtime::envelope::render(PIECES, FOOTER, message, id)
            }

            /// `message` wrapped in the envelope, its footer carrying `id`.
            ///
            /// # Errors
            /// When the wrapped text does not scan back as the envelope: past the
            /// message exactly the footer, carrying `id` (an id the footer cannot
            /// hold, or a message that quotes what follows it, such as an
            /// unclosed fence).
            pub fn wrap(message: &str, id: &str) -> Result<String, EnvelopeError> {
                let (text, footer) = render(message, id);
                let (found, skipped) = super::scan::scan_with_diagnostics(&text);
                agent_sentences_runtime::envelope::check(message.len(), &footer, &found, &skipped, |s| {
                    matches!(s, Sentence::#ty(f) if f.#field == id)
                })?;
                Ok(text)
            }
        }
    }
}
