//! The generated `envelope` module: the prompt envelope and `wrap`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::doc;
use crate::lower::Model;

/// The `envelope` module: the prompt envelope of `schema/envelope.json`, laid
/// out as pieces, and `wrap`, which renders it around a message and checks
/// that it scans back. Nothing when the spec has no `envelope.json`.
pub(super) fn envelope_mod(model: &Model, crate_root: bool) -> TokenStream {
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
