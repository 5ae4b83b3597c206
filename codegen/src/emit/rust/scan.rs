//! The generated `scan` module: the scanned structures and the directive
//! grammar, handed to the runtime's scanner.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::{doc, lit};
use crate::lower::{Model, SentenceIr};

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

/// `examples`: the doc examples (doctests), which name the crate
/// `agent_sentences` and so are left out of [`module_rs`].
pub(super) fn scan_mod(model: &Model, examples: bool) -> TokenStream {
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

            /// One event of a [`Stream`]: a found item, final, or a skipped candidate.
            pub type Event = agent_sentences_runtime::scan::Event<Sentence>;

            pub use agent_sentences_runtime::scan::StreamError;

            /// The scan of one text fed in pieces as it arrives (a model's reply, token by
            /// token): each push returns the events it makes final, [`Stream::finish`] the
            /// rest. Every event's span is a byte offset into the whole stream, and all the
            /// events of a stream are what [`scan_with_diagnostics`] returns for the whole
            /// text, however it was cut.
            #[derive(Debug)]
            pub struct Stream(agent_sentences_runtime::scan::Stream<'static, Sentence>);

            impl Stream {
                /// A stream over the spec's scanner.
                pub fn new() -> Self {
                    Stream(SCANNER.stream())
                }

                /// Pushes the next piece of text; the events it makes final.
                pub fn push(&mut self, chunk: &str) -> Vec<Event> {
                    self.0.push(chunk)
                }

                /// Pushes the next piece as bytes; an incomplete UTF-8 sequence at its end
                /// is held until the next piece completes it.
                ///
                /// # Errors
                /// [`StreamError`] at the first byte that is not UTF-8.
                pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event>, StreamError> {
                    self.0.push_bytes(chunk)
                }

                /// Ends the stream; the events not yet given.
                ///
                /// # Errors
                /// [`StreamError`] when the stream ends inside a UTF-8 sequence.
                pub fn finish(self) -> Result<Vec<Event>, StreamError> {
                    self.0.finish()
                }
            }

            impl Default for Stream {
                fn default() -> Self {
                    Stream::new()
                }
            }

            /// As [`scan_with_diagnostics`], with the text's Markdown context forced trivial
            /// (each paragraph one run of text, whatever its markup): not the text's scan. The
            /// bench measures the candidate work with it, apart from the CommonMark readers.
            #[doc(hidden)]
            pub fn scan_context_forced_trivial(text: &str) -> (Vec<Found>, Vec<Skipped>) {
                SCANNER.scan_context_forced_trivial(text)
            }
        }
    }
}
