//! The generated `ops` module: the exec op catalogue, typed calls and
//! `resolve`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::doc;

/// An example's argument object (compact JSON) as the canonical writer
/// writes it.
fn canonical(args: &str) -> String {
    agent_sentences_runtime::json::parse_object(args)
        .map(|m| agent_sentences_runtime::json::render_object(&m))
        .unwrap_or_else(|_| args.to_owned())
}
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
    let native_names: Vec<&String> = cat.ops.iter().map(|o| &o.native_name).collect();
    let native_engine = &cat.native_engine;
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
    // The native twin of the same call (in the generated crate only).
    let native_example = runnable
        .iter()
        .find_map(|o| Some((o, o.examples.first()?)))
        .filter(|_| crate_root)
        .map_or_else(TokenStream::new, |(o, args)| {
            doc(&format!(
                "```\n\
                 use agent_sentences::ops;\n\
                 let call = ops::resolve_native({:?}, {args:?}).unwrap();\n\
                 assert_eq!(call.op(), ops::Op::{});\n\
                 assert_eq!(ops::render_native({:?}, {args:?}).unwrap(), {:?});\n\
                 ```",
                o.native_name,
                o.variant,
                o.native_name,
                format!("[{} {} {}]", cat.native_engine, o.name, canonical(args)),
            ))
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
            pub use agent_sentences_runtime::ops::{is_native_name, native_name, NativeApi, NATIVE_NAME_MAX};
            use super::scan::ToolDirective;

            /// The catalogue: every op of `schema/ops.json` in its order, and
            /// the native aliases of `/aliases` in `schema/directives.json`.
            pub static CATALOGUE: Catalogue = Catalogue::new(&[#(#specs),*], &[#(#aliases),*]);

            /// The engine a native tool call comes through (`/native_engine`
            /// in `schema/ops.json`): [`resolve_native`] checks it as an
            /// in-band call on this engine.
            pub const NATIVE_ENGINE: &str = #native_engine;

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

                /// Its name in an agent API's tool list, e.g. `followup_create`
                /// ([`native_name`] of [`Op::name`]).
                pub fn native_name(self) -> &'static str {
                    match self { #(Op::#variants => #native_names,)* }
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
                resolve_parts(&directive.engine, &directive.op, &directive.args)
            }

            /// [`resolve`] from its parts: the engine keyword, the op (an
            /// alias is applied) and the argument object.
            ///
            /// # Errors
            /// As [`resolve`].
            pub fn resolve_parts(engine: &str, op: &str, args: &agent_sentences_runtime::serde_json::Map<String, agent_sentences_runtime::serde_json::Value>) -> Result<Call, ResolveError> {
                let index = CATALOGUE.check(engine, op, args)?;
                decode(index, engine, args.clone())
            }

            /// The typed call of the checked op at `index`.
            fn decode(index: usize, engine: &str, args: agent_sentences_runtime::serde_json::Map<String, agent_sentences_runtime::serde_json::Value>) -> Result<Call, ResolveError> {
                let args = agent_sentences_runtime::serde_json::Value::Object(args);
                let decoded = match Op::ALL[index] {
                    #(#decode,)*
                    #unreachable
                };
                decoded.map_err(|e| CATALOGUE.decode_error(index, engine, &e))
            }

            /// Resolves a native tool call (OpenAI `tool_calls`, Anthropic
            /// `tool_use`, MCP `tools/call`): `name` as the API gave it (an
            /// op's or alias's native name, [`native_name`]) and the arguments
            /// as JSON text. The result is what [`resolve`] gives for the
            /// in-band call on [`NATIVE_ENGINE`] with that op (or alias) and
            /// arguments: the same typed call, or the same [`ResolveError`].
            ///
            #native_example
            ///
            /// # Errors
            /// As [`resolve`]; a name that maps to no op or alias is
            /// `unknown-op`, and arguments that are not one strict JSON object
            /// within [`scan::LIMITS`](super::scan::LIMITS) are `invalid-args`.
            pub fn resolve_native(name: &str, arguments_json: &str) -> Result<Call, ResolveError> {
                let (index, args) = CATALOGUE.check_native(NATIVE_ENGINE, name, arguments_json, super::scan::LIMITS)?;
                decode(index, NATIVE_ENGINE, args)
            }

            /// A native tool call written as the in-band sentence that makes
            /// the same call, e.g. `[TOOL followup.create {"in_m":5}]` for
            /// `followup_create` with `{"in_m": 5}`: logs read the same
            /// whichever way a call came.
            ///
            /// # Errors
            /// `unknown-op` for a name that maps to no op or alias,
            /// `invalid-args` for arguments that are not one strict JSON object.
            pub fn render_native(name: &str, arguments_json: &str) -> Result<String, ResolveError> {
                CATALOGUE.render_native(NATIVE_ENGINE, name, arguments_json, super::scan::LIMITS)
            }

            /// The catalogue as `api`'s tool list: the runnable ops that allow
            /// [`NATIVE_ENGINE`], under their native names (an array for
            /// OpenAI and Anthropic, the `tools/list` result object for MCP).
            pub fn native_tools(api: NativeApi) -> agent_sentences_runtime::serde_json::Value {
                CATALOGUE.native_tools(NATIVE_ENGINE, api)
            }

            /// The `tools.list` response (D5): every op with its
            /// `side_effecting` flag and argument schema.
            pub fn tools_list() -> ToolsList {
                CATALOGUE.tools_list()
            }
        }
    }
}
