//! The generated `scan` module: the scanned structures and the directive
//! grammar, handed to the runtime's scanner.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::{doc, lit, text_lit};
use crate::lower::{Model, SentenceIr};

/// The bracket engine and the op the doc examples call: the first bracket
/// engine and the first alias's (or shorthand's) op, if the spec has both.
fn example_engine_and_op(model: &Model) -> Option<(&str, &str)> {
    let d = &model.directives;
    let engine = d.bracket.engines.first()?;
    let op = d
        .aliases
        .values()
        .next()
        .or(d.shorthands.values().map(|s| &s.op).next())?;
    Some((engine.as_str(), op.as_str()))
}

/// A doc example for `scan_with_diagnostics`: a bracket call with a trailing
/// comma, skipped as invalid JSON, after the first scanned structure's example.
fn scan_diagnostics_example(model: &Model) -> String {
    let Some((engine, op)) = example_engine_and_op(model) else {
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

/// A doc example for `Stream`: the first bracket engine's call, committed
/// once a blank line and the next line follow it.
fn stream_example(model: &Model) -> String {
    let Some((engine, op)) = example_engine_and_op(model) else {
        return String::new();
    };
    let call = format!("[{engine} {op} {{\"x\": 1}}]");
    format!(
        "\n```\nuse agent_sentences::scan::{{Event, Stream}};\n\n\
         let call = {call:?};\n\
         let mut stream = Stream::new();\n\
         // Not final yet: a later line could still change how it reads.\n\
         assert!(stream.push(call).is_empty());\n\
         assert!(stream.push(\"\\n\").is_empty());\n\
         // A blank line, then the next line: the call is final.\n\
         let events = stream.push(\"\\nThe next paragraph.\\n\");\n\
         assert!(matches!(&events[..], [Event::Found(f)] if f.span == (0..call.len())));\n\
         // Nothing is committed twice.\n\
         assert!(stream.finish().unwrap().is_empty());\n```"
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
    let stream_example = if examples {
        doc(&stream_example(model))
    } else {
        quote!()
    };
    let scanned: Vec<&SentenceIr> = model.sentences.iter().filter(|s| s.scanned).collect();
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
                (quote!(Some((#g.into(), #before.into(), #inner.into()))), *trailer)
            }
            None => (quote!(None), false),
        };
        quote! {
            StructureScan {
                key: #key.into(), head: #head.into(), source: #src.into(), from_groups: #f, quotes_brackets: #quotes, tail: #tail,
                trailing_blanks: #trailing_blanks,
            }
        }
    });
    let directives_json = text_lit(
        &serde_json::to_string_pretty(&model.directive_spec)
            .expect("a directive grammar serializes"),
    );
    let limits = &model.directive_spec.limits;
    let (depth, bytes) = (limits.max_depth, limits.max_bytes);
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
            pub use agent_sentences_runtime::scan::{DirectiveForm, Item, SkipReason, Skipped, StreamError, ToolDirective};
            use agent_sentences_runtime::scan::{DirectiveSpec, Scanner, StructureScan};
            use agent_sentences_runtime::Groups;

            use super::{ParseError, Sentence};

            /// Limits on tool arguments (`/limits` in `schema/directives.json`).
            pub const LIMITS: Limits = Limits { max_depth: #depth, max_bytes: #bytes };

            /// One thing found in a text: a span and a sentence or directive.
            pub type Found = agent_sentences_runtime::scan::Found<Sentence>;

            #(#parse_fns)*

            /// The scanned structures, in spec order.
            fn structures() -> Vec<StructureScan<Sentence>> {
                Vec::from([#(#entries),*])
            }

            /// The directive grammar (`schema/directives.json`), as the generator lowered it.
            const DIRECTIVES: &str = #directives_json;

            static SCANNER: LazyLock<Scanner<Sentence>> =
                LazyLock::new(|| Scanner::new(structures(), DirectiveSpec::from_json(DIRECTIVES)));

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

            /// One event of a [`Stream`]: an item committed ([`Event::Found`], final, never
            /// retracted) or a skipped candidate reported ([`Event::Skipped`]), each the same
            /// as [`scan_with_diagnostics`] gives for the whole text.
            pub type Event = agent_sentences_runtime::scan::Event<Sentence>;

            /// A scan of a text that arrives in chunks (an agent's streamed reply): push
            /// the chunks as they arrive, then finish. An item is committed once a blank
            /// line and the line after it follow it (a work order at the end, a result at
            /// the next result marker); what a stream commits equals [`scan_with_diagnostics`]
            /// on the whole text, however the text is cut. Spans are byte offsets into the
            /// whole stream.
            #stream_example
            #[derive(Debug)]
            pub struct Stream(agent_sentences_runtime::scan::Stream<'static, Sentence>);

            impl Stream {
                /// A stream over the spec's scanner.
                pub fn new() -> Self {
                    Stream(SCANNER.stream())
                }

                /// Appends `chunk`; returns the events it made final, in text order.
                pub fn push(&mut self, chunk: &str) -> Vec<Event> {
                    self.0.push(chunk)
                }

                /// Appends bytes that may end inside a UTF-8 sequence (held until the rest
                /// arrives).
                ///
                /// # Errors
                /// A [`StreamError`] at the first byte that is not UTF-8; the stream is
                /// then unchanged.
                pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event>, StreamError> {
                    self.0.push_bytes(chunk)
                }

                /// Ends the stream: the events of everything not yet final.
                ///
                /// # Errors
                /// A [`StreamError`] when the bytes pushed end inside a UTF-8 sequence.
                pub fn finish(self) -> Result<Vec<Event>, StreamError> {
                    self.0.finish()
                }

                /// The bytes its readings have read so far (tests hold it linear).
                #[doc(hidden)]
                pub fn bytes_read(&self) -> usize {
                    self.0.bytes_read()
                }
            }

            impl Default for Stream {
                fn default() -> Self {
                    Self::new()
                }
            }

            /// The scan of `text` from one reading of the whole of it (no sections, no commit
            /// points): not the text's scan. Tests compare what a [`Stream`] commits with it.
            #[doc(hidden)]
            pub fn scan_single_reading(text: &str) -> (Vec<Found>, Vec<Skipped>) {
                SCANNER.scan_single_reading(text)
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
