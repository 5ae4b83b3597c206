//! Token helpers shared by the Rust emitter's modules: string literals,
//! doc attributes, and the final parse-and-format step.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::emit::header::RUST_HEADER;

/// A string literal token, raw (`r"…"`) when that reads better.
pub(super) fn lit(s: &str) -> Literal {
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
pub(super) fn text_lit(s: &str) -> Literal {
    if s.contains("\"#") || s.contains('\r') {
        Literal::string(s)
    } else {
        format!("r#\"{s}\"#")
            .parse()
            .expect("a valid raw string literal")
    }
}

/// A pattern source anchored at both ends (`\A(?:…)\z`): whole-text matching (decision P10).
pub(super) fn anchored(source: &str) -> String {
    format!(r"\A(?:{source})\z")
}

/// Outer doc attributes (`///`), one per line of `text`.
pub(super) fn doc(text: &str) -> TokenStream {
    let lines: Vec<String> = text.lines().map(|l| format!(" {l}")).collect();
    quote! { #(#[doc = #lines])* }
}

/// Inner doc attributes (`//!`), one per line of `text`.
pub(super) fn inner_doc(text: &str) -> TokenStream {
    let lines: Vec<String> = text.lines().map(|l| format!(" {l}")).collect();
    quote! { #(#![doc = #lines])* }
}

/// Parses `tokens` as a Rust file (panics on invalid Rust: an emitter bug)
/// and formats it, under the `@generated` header.
pub(super) fn format_rust(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("the Rust emitter produced invalid Rust");
    format!("{RUST_HEADER}\n{}", prettyplease::unparse(&file))
}
