//! The generated `patterns` module: each pattern's source, compiled regex
//! and metadata.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::meta::value_type;
use super::tokens::{anchored, doc, lit, text_lit};
use crate::emit::docs::rustdoc;
use crate::lower::{Model, PatternIr};

/// The `patterns` module: every pattern's source constant, compiled regex
/// and `PatternInfo` metadata.
pub(super) fn patterns_mod(model: &Model) -> TokenStream {
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
            let ty = value_type(g.ty.value_type());
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
            pub use agent_sentences_runtime::meta::{Capture, GroupInfo, MatchExample, PatternInfo};
            use super::ValueType;
            #(#items)*
            /// Every pattern as `(key, source)`, in spec order.
            pub const ALL: &[(&str, &str)] = &[#(#all),*];

            #(#fulls)*

            /// Every pattern's metadata, in spec order.
            pub const INFO: &[PatternInfo] = &[#(#infos),*];

            /// The metadata of the pattern with key `key`, if any.
            pub fn info(key: &str) -> Option<&'static PatternInfo> {
                INFO.iter().find(|p| p.key == key)
            }
        }
    }
}
