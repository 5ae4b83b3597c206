//! The metadata the generated crate carries about its types: how a field's
//! type is spelled, and the spec title, version and metadata types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::lower::{FieldIr, FieldTy, Model};
use crate::model::GroupType;

/// The Rust type of a field, as tokens: `u32`, `Option<Status>`.
pub(super) fn rust_type(f: &FieldIr) -> TokenStream {
    let base = match &f.ty {
        FieldTy::String => quote!(String),
        FieldTy::Integer => quote!(u32),
        FieldTy::Enum(e) => {
            let e = format_ident!("{}", e);
            quote!(#e)
        }
        FieldTy::JsonObject => quote!(JsonObject),
    };
    if f.required {
        base
    } else {
        quote!(Option<#base>)
    }
}

/// A field type in words, for the field's rustdoc.
pub(super) fn type_doc(ty: &FieldTy) -> String {
    match ty {
        FieldTy::String => "text".into(),
        FieldTy::Integer => "a non-negative integer (`u32`)".into(),
        FieldTy::Enum(e) => format!("one of [`{e}`]"),
        FieldTy::JsonObject => "one strict JSON object".into(),
    }
}

/// The Rust type of a field as written in its struct, e.g. `Option<Status>`.
pub(super) fn rust_type_name(f: &FieldIr) -> String {
    let base = match &f.ty {
        FieldTy::String => "String".to_owned(),
        FieldTy::Integer => "u32".to_owned(),
        FieldTy::Enum(e) => e.clone(),
        FieldTy::JsonObject => "JsonObject".to_owned(),
    };
    if f.required {
        base
    } else {
        format!("Option<{base}>")
    }
}

/// A `ValueType` variant for a group type.
pub(super) fn value_type(ty: GroupType) -> TokenStream {
    match ty {
        GroupType::String => quote!(ValueType::String),
        GroupType::Integer => quote!(ValueType::Integer),
        GroupType::Enum => quote!(ValueType::Enum),
        GroupType::JsonObject => quote!(ValueType::JsonObject),
    }
}

/// An `Option<&'static str>` expression.
pub(super) fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    }
}

/// The spec's title and version, and the metadata types shared by
/// [`SentenceKind`] and the `patterns` module.
pub(super) fn meta_items(model: &Model) -> TokenStream {
    let (title, version) = (&model.title, &model.version);
    quote! {
        /// The spec's title (`title` of `schema/structures.json`).
        pub const SPEC_TITLE: &str = #title;
        /// The spec's version (`version` of `schema/structures.json`).
        pub const SPEC_VERSION: &str = #version;

        /// The type of a captured value, named as the spec names it (`type` of a pattern group).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(rename_all = "snake_case")]
        pub enum ValueType {
            /// Text, kept as captured.
            String,
            /// A non-negative decimal integer that fits in 32 bits.
            Integer,
            /// One of a closed set of texts.
            Enum,
            /// Exactly one strict JSON object.
            JsonObject,
        }

        impl ValueType {
            /// The spec's name of the type, e.g. `json_object`.
            pub fn as_str(self) -> &'static str {
                match self {
                    ValueType::String => "string",
                    ValueType::Integer => "integer",
                    ValueType::Enum => "enum",
                    ValueType::JsonObject => "json_object",
                }
            }
        }

        impl fmt::Display for ValueType {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }

        /// A field of a generated sentence type ([`SentenceKind::field_info`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
        #[serde(crate = "agent_sentences_runtime::serde")]
        pub struct FieldInfo {
            /// The field's name as the spec writes it (and as it serializes).
            pub name: &'static str,
            /// The type of its value.
            #[serde(rename = "type")]
            pub ty: ValueType,
            /// For [`ValueType::Enum`]: the allowed texts, in spec order; empty otherwise.
            pub values: &'static [&'static str],
            /// The Rust type of the struct field, e.g. `Option<Status>`.
            pub rust_type: &'static str,
            /// True for the spec's `required_fields`.
            pub required: bool,
            /// What the field holds (the description of the group that captures it).
            pub description: &'static str,
            /// The pattern groups that capture it, in pattern order.
            pub groups: &'static [&'static str],
            /// The field it is derived from, when its group lies inside that field's group.
            pub derived_from: Option<&'static str>,
        }
    }
}
