//! `generated/rust/tests/roundtrip.rs`: property tests that random values
//! render and parse back.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::{doc, format_rust, lit};
use crate::lower::{FieldIr, FieldTy, Model, SentenceIr};

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
