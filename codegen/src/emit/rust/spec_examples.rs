//! `generated/rust/tests/spec_examples.rs`: the spec's own examples as tests.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::format_rust;
use crate::lower::{FieldIr, FieldTy, Model, SentenceIr};

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
