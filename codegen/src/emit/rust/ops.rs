//! The generated `ops` module: the exec op catalogue, typed calls and
//! `resolve`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::doc;
use crate::lower::Model;

/// The `ops` module: the exec op catalogue of `schema/ops.json`, a typed
/// argument struct per runnable op, the `Op` enum, `Call` and `resolve`.
/// Nothing when the spec has no `ops.json`.
pub(super) fn ops_mod(model: &Model, crate_root: bool) -> TokenStream {
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
