//! The metadata the generated crate carries about its types: how a field's
//! type is written in Rust (from [`FieldTy::spelling`]), and the spec title
//! and version. The metadata types themselves (`ValueType`, `FieldInfo`,
//! the pattern types) are the runtime's (`agent_sentences_runtime::meta`),
//! re-exported.

use agent_sentences_runtime::meta::ValueType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::lower::{FieldIr, FieldTy, Model};

/// The Rust type of a field, as tokens: `u32`, `Option<Status>`.
pub(super) fn rust_type(f: &FieldIr) -> TokenStream {
    rust_type_name(f)
        .parse()
        .expect("a field's Rust type is a Rust type")
}

/// A field type in words, for the field's rustdoc.
pub(super) fn type_doc(ty: &FieldTy) -> String {
    ty.spelling().words
}

/// The Rust type of a field as written in its struct, e.g. `Option<Status>`.
pub(super) fn rust_type_name(f: &FieldIr) -> String {
    let base = f.ty.spelling().rust;
    if f.required {
        base
    } else {
        format!("Option<{base}>")
    }
}

/// The tokens naming a value type in the generated code, e.g.
/// `ValueType::JsonObject` (the derived `Debug` is the variant's name).
pub(super) fn value_type(ty: ValueType) -> TokenStream {
    let v = format_ident!("{ty:?}");
    quote!(ValueType::#v)
}

/// An `Option<&'static str>` expression.
pub(super) fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

/// The spec's title and version, and the runtime's metadata types that
/// [`SentenceKind`] and the `patterns` module fill in, re-exported.
pub(super) fn meta_items(model: &Model) -> TokenStream {
    let (title, version) = (&model.title, &model.version);
    quote! {
        /// The spec's title (`title` of `schema/structures.json`).
        pub const SPEC_TITLE: &str = #title;
        /// The spec's version (`version` of `schema/structures.json`).
        pub const SPEC_VERSION: &str = #version;

        pub use agent_sentences_runtime::meta::{FieldInfo, ValueType};
    }
}
