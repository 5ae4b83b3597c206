//! The sentence items of the generated crate: the enumerations, one struct
//! per structure (parse, `from_groups`, render), `SentenceKind` and
//! `Sentence`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::meta::{opt_str, rust_type, rust_type_name, type_doc, value_type};
use super::tokens::{anchored, doc, lit, text_lit};
use crate::emit::docs::rustdoc;
use crate::lower::{FieldIr, FieldTy, Model, SentenceIr};
use crate::template::Piece;

fn field_doc(s: &SentenceIr, f: &FieldIr) -> String {
    let mut d = format!(
        "{}\n\nType: {}; {}.",
        rustdoc(&f.description),
        type_doc(&f.ty),
        if f.required { "required" } else { "optional" }
    );
    let groups: Vec<String> = f.groups.iter().map(|g| format!("`{g}`")).collect();
    d.push_str(&format!(
        " Captured by group {} of pattern `{}`.",
        groups.join(", "),
        s.pattern_key
    ));
    if let Some(from) = &f.derived_from {
        d.push_str(&format!(
            " Derived from `{from}`: it must agree with it, and rendering writes only `{from}`."
        ));
    }
    d.push_str(&format!(
        "\n\nSource: `/structures/{}` field `{}`.",
        s.key, f.name
    ));
    d
}

/// A doc example for `Sentence::parse`: the second structure's example, so
/// spec order visibly matters.
pub(super) fn sentence_parse_example(model: &Model) -> String {
    let Some(s) = model.sentences.get(1).or(model.sentences.first()) else {
        return String::new();
    };
    format!(
        "\n```\nuse agent_sentences::{{Sentence, SentenceKind}};\n\n\
         let any = Sentence::parse({text:?})?;\n\
         assert_eq!(any.kind(), SentenceKind::{ty});\n\
         assert_eq!(any.to_string(), {text:?});\n\
         # Ok::<(), agent_sentences::ParseError>(())\n```",
        ty = s.type_name,
        text = s.example_sentence,
    )
}

/// One enum per spec enumeration (`ALL`, `as_str`, `Display`, `FromStr`).
pub(super) fn enum_items(model: &Model, schemars: &TokenStream) -> TokenStream {
    let enums = model.enums.iter().map(|e| {
        let name = format_ident!("{}", e.name);
        let d = doc(&format!(
            "{}\n\nSource: group `{}` of `/patterns/{}` in `schema/regex_patterns.json`.",
            rustdoc(&e.description), e.group, e.pattern
        ));
        let variants = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            let vd = doc(&format!("`{text}`."));
            quote! { #vd #[serde(rename = #text)] #v }
        });
        let as_str = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            quote! { #name::#v => #text }
        });
        let from = e.variants.iter().map(|(v, text)| {
            let v = format_ident!("{}", v);
            quote! { #text => Ok(#name::#v) }
        });
        let all = e.variants.iter().map(|(v, _)| {
            let v = format_ident!("{}", v);
            quote! { #name::#v }
        });
        let n = e.variants.len();
        quote! {
            #d
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
            #schemars
            #[serde(crate = "agent_sentences_runtime::serde")]
            pub enum #name { #(#variants,)* }

            impl #name {
                /// Every value, in spec order.
                pub const ALL: [#name; #n] = [#(#all),*];
                /// The value as written in a sentence.
                pub fn as_str(self) -> &'static str {
                    match self { #(#as_str,)* }
                }
            }

            impl fmt::Display for #name {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
            }

            impl FromStr for #name {
                type Err = UnknownValue;
                /// Parses the exact text (case-sensitive).
                fn from_str(s: &str) -> Result<Self, UnknownValue> {
                    match s { #(#from,)* _ => Err(UnknownValue(s.to_owned())) }
                }
            }
        }
    });
    quote! { #(#enums)* }
}

/// One structure's struct: fields, `parse`, `from_groups`, `FromStr` and
/// `Display` (the template).
pub(super) fn sentence_struct(s: &SentenceIr, schemars: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", s.type_name);
    let key = &s.key;
    let mut d = format!(
        "{} (`{}`): {}\n\nTemplate: `{}`\n\nExample: `{}`\n\nReply expectation: {}\n\nLifecycle transition: `{}`",
        rustdoc(&s.name),
        s.tag,
        rustdoc(&s.description),
        s.template,
        s.example,
        rustdoc(&s.reply_expectation),
        s.lifecycle_transition
    );
    if !s.omitted_fields.is_empty() {
        d.push_str(&format!(
            "\n\nThe spec also lists optional field(s) {}, which no pattern group captures; they are left out.",
            s.omitted_fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    d.push_str(&format!(
        "\n\nSource: `/structures/{key}` in `schema/structures.json`, parsed by pattern `{}`.",
        s.pattern_key
    ));
    let d = doc(&d);
    let fields = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.rust_name);
        let ty = rust_type(f);
        let fd = doc(&field_doc(s, f));
        let rename = (f.rust_name != f.name).then(|| {
            let n = &f.name;
            quote!(#[serde(rename = #n)])
        });
        let default = (!f.required).then(|| quote!(#[serde(default)]));
        quote! { #fd #rename #default pub #fname: #ty }
    });
    let full = lit(&anchored(&s.source));
    let steps = s.steps.iter().map(|st| {
        let p = lit(&format!(r"\A(?:{}{})", s.flag_prefix, st.prefix));
        let e = &st.expected;
        quote!(Step::new(#p, #e))
    });
    let nsteps = s.steps.len();
    let fixed = s.fixed.iter().map(|(g, v)| {
        quote! {
            match caps.group(#g) {
                Some(m) if m.as_str() == #v => {}
                other => {
                    let (offset, found) = other.map_or((0, String::new()), |m| (m.start(), m.as_str().to_owned()));
                    return Err(ParseError::new(#key, offset, ParseErrorKind::FixedMismatch { group: #g, expected: #v, found }));
                }
            }
        }
    });
    let unbound = s.unbound_groups.iter().map(|g| {
        quote! {
            if let Some(m) = caps.group(#g) {
                return Err(ParseError::new(#key, m.start(), ParseErrorKind::UnexpectedGroup { group: #g }));
            }
        }
    });
    let field_parses = s.fields.iter().map(|f| {
        let fname = format_ident!("{}", f.rust_name);
        let fkey = &f.name;
        let groups = &f.groups;
        let convert = match &f.ty {
            FieldTy::String => quote!(m.as_str().to_owned()),
            FieldTy::Integer => quote! {
                m.as_str().parse::<u32>().map_err(|_| ParseError::new(#key, m.start(), ParseErrorKind::Integer { field: #fkey }))?
            },
            FieldTy::Enum(e) => {
                let e = format_ident!("{}", e);
                quote! {
                    m.as_str().parse::<#e>().map_err(|_| ParseError::new(#key, m.start(), ParseErrorKind::NoMatch { expected: format!("<{}>", #fkey) }))?
                }
            }
            FieldTy::JsonObject => quote! {
                agent_sentences_runtime::json::parse_object_with(m.as_str(), scan::LIMITS)
                    .map_err(|error| ParseError::new(#key, m.start(), ParseErrorKind::Json { field: #fkey, error }))?
            },
        };
        if f.required {
            quote! {
                let #fname = match field_capture(caps, &[#(#groups),*], #key, #fkey)? {
                    Some(m) => #convert,
                    None => return Err(ParseError::new(#key, caps.end(), ParseErrorKind::NoMatch { expected: format!("<{}>", #fkey) })),
                };
            }
        } else if f.ty == FieldTy::String {
            quote! {
                let #fname = field_capture(caps, &[#(#groups),*], #key, #fkey)?.map(|m| m.as_str().to_owned());
            }
        } else {
            quote! {
                let #fname = match field_capture(caps, &[#(#groups),*], #key, #fkey)? {
                    Some(m) => Some(#convert),
                    None => None,
                };
            }
        }
    });
    let field_names: Vec<_> = s
        .fields
        .iter()
        .map(|f| format_ident!("{}", f.rust_name))
        .collect();
    let render = s.segments.iter().map(|seg| {
        let pieces = |owner: Option<&str>| -> Vec<TokenStream> {
            seg.pieces
                .iter()
                .map(|p| match p {
                    Piece::Literal(l) => quote!(f.write_str(#l)?;),
                    Piece::Field(fname) => {
                        let field = s.fields.iter().find(|x| &x.name == fname).expect("lowered template names fields");
                        let value = if owner == Some(fname.as_str()) {
                            quote!(v)
                        } else {
                            let id = format_ident!("{}", field.rust_name);
                            quote!(&self.#id)
                        };
                        match &field.ty {
                            FieldTy::String => quote!(f.write_str(#value)?;),
                            FieldTy::Integer | FieldTy::Enum(_) => quote!(write!(f, "{}", #value)?;),
                            FieldTy::JsonObject => quote!(f.write_str(&agent_sentences_runtime::json::render_object(#value))?;),
                        }
                    }
                })
                .collect()
        };
        match &seg.optional {
            None => {
                let p = pieces(None);
                quote!(#(#p)*)
            }
            Some(opt) => {
                let id = format_ident!("{}", s.fields.iter().find(|x| &x.name == opt).expect("optional field").rust_name);
                let p = pieces(Some(opt));
                quote! { if let Some(v) = &self.#id { #(#p)* } }
            }
        }
    });
    let parse_doc = doc(&format!(
        "Parses `text` as exactly one `{key}` sentence (the whole text; use a scanner to find \
         sentences inside prose).\n\n# Errors\n[`ParseError`] naming `{key}` and the byte offset where the text \
         stopped fitting, or the field whose value is invalid."
    ));
    quote! {
        #d
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        pub struct #name { #(#fields,)* }

        impl #name {
            /// This structure's kind.
            pub const KIND: SentenceKind = SentenceKind::#name;

            #parse_doc
            pub fn parse(text: &str) -> Result<Self, ParseError> {
                static FULL: LazyLock<Regex> = LazyLock::new(|| Regex::new(#full).expect("the generator compiled this pattern"));
                static STEPS: [Step; #nsteps] = [#(#steps),*];
                let Some(caps) = FULL.captures(text) else {
                    let (offset, expected) = stop_point(text, &STEPS);
                    return Err(ParseError::new(#key, offset, ParseErrorKind::NoMatch { expected: expected.to_owned() }));
                };
                Self::from_groups(&caps)
            }

            /// Builds the sentence from the named groups of one match of its
            /// pattern (fixed groups checked, repeats compared, fields
            /// converted). Used by [`Self::parse`] and by the scanner, so a
            /// sentence found in text costs one pass of the regex engine.
            ///
            /// # Errors
            /// As [`Self::parse`], for what the groups hold.
            #[doc(hidden)]
            pub fn from_groups<'t>(caps: &dyn Groups<'t>) -> Result<Self, ParseError> {
                #(#fixed)*
                #(#unbound)*
                #(#field_parses)*
                Ok(#name { #(#field_names),* })
            }
        }

        impl FromStr for #name {
            type Err = ParseError;
            fn from_str(text: &str) -> Result<Self, ParseError> { #name::parse(text) }
        }

        impl fmt::Display for #name {
            /// Writes the canonical text from the template; an absent optional
            /// field drops its whole segment.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                #(#render)*
                Ok(())
            }
        }
    }
}

/// `SentenceKind`: one variant per structure, with its spec metadata.
pub(super) fn kind_enum(model: &Model, schemars: &TokenStream) -> TokenStream {
    let variants = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let d = doc(&format!("`{}`: {}", s.key, s.name));
        quote!(#d #v)
    });
    let all = model
        .sentences
        .iter()
        .map(|s| format_ident!("{}", s.type_name));
    let n = model.sentences.len();
    let getter = |name: &str, docstr: &str, f: &dyn Fn(&SentenceIr) -> String| {
        let fname = format_ident!("{}", name);
        let arms = model.sentences.iter().map(|s| {
            let v = format_ident!("{}", s.type_name);
            let val = f(s);
            quote!(SentenceKind::#v => #val)
        });
        let d = doc(docstr);
        quote! {
            #d
            pub fn #fname(self) -> &'static str { match self { #(#arms,)* } }
        }
    };
    let getters = [
        getter("key", "The structure key (`/structures/<key>`), e.g. `work_order`.", &|s| s.key.clone()),
        getter("name", "Human name (`name`).", &|s| s.name.clone()),
        getter("tag", "Protocol tag (`protocol_tag`), e.g. `[WO:]`.", &|s| s.tag.clone()),
        getter("template", "Template with `{field}` placeholders (`template`).", &|s| s.template.clone()),
        getter("description", "What the structure is for (`description`).", &|s| s.description.clone()),
        getter("reply_expectation", "What the recipient should reply (`reply_expectation`).", &|s| s.reply_expectation.clone()),
        getter("lifecycle_transition", "The loop state change (`lifecycle_transition`).", &|s| s.lifecycle_transition.clone()),
        getter("example", "The owner's example (`example`), as written.", &|s| s.example.clone()),
        getter("example_sentence", "The part of the example that is the sentence (the whole example unless it carries trailing prose).", &|s| s.example_sentence.clone()),
        getter("regex_ref", "The owner's `regex_ref`.", &|s| s.regex_ref.clone()),
        getter("pattern_key", "The pattern that parses the structure (the `regex_ref`, unless a binding in `regex_patterns.json` refines it).", &|s| s.pattern_key.clone()),
    ];
    let from_key = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let k = &s.key;
        quote!(#k => Some(SentenceKind::#v))
    });
    let fields = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let names = s.fields.iter().map(|f| &f.name);
        quote!(SentenceKind::#v => &[#(#names),*])
    });
    let field_info = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let infos = s.fields.iter().map(|f| {
            let name = &f.name;
            let ty = value_type(f.ty.value_type());
            let values: Vec<String> = match &f.ty {
                FieldTy::Enum(e) => model
                    .enums
                    .iter()
                    .find(|x| &x.name == e)
                    .map(|x| x.variants.iter().map(|(_, t)| t.clone()).collect())
                    .unwrap_or_default(),
                _ => vec![],
            };
            let rust_type = rust_type_name(f);
            let required = f.required;
            let description = &f.description;
            let groups = &f.groups;
            let derived = opt_str(f.derived_from.as_deref());
            quote! {
                FieldInfo {
                    name: #name,
                    ty: #ty,
                    values: &[#(#values),*],
                    rust_type: #rust_type,
                    required: #required,
                    description: #description,
                    groups: &[#(#groups),*],
                    derived_from: #derived,
                }
            }
        });
        quote!(SentenceKind::#v => &[#(#infos),*])
    });
    let omitted = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let names = &s.omitted_fields;
        quote!(SentenceKind::#v => &[#(#names),*])
    });
    let notes = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let note = opt_str(s.binding_note.as_deref());
        quote!(SentenceKind::#v => #note)
    });
    let fixed = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let pairs = s.fixed.iter().map(|(g, t)| quote!((#g, #t)));
        quote!(SentenceKind::#v => &[#(#pairs),*])
    });
    let spec_json = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let j = text_lit(&s.spec_json);
        quote!(SentenceKind::#v => #j)
    });
    let parses = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(SentenceKind::#v => #v::parse(text).map(Sentence::#v))
    });
    quote! {
        /// Which sentence structure; each kind carries its spec metadata.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(rename_all = "snake_case")]
        pub enum SentenceKind { #(#variants,)* }

        impl SentenceKind {
            /// Every kind, in spec order.
            pub const ALL: [SentenceKind; #n] = [#(SentenceKind::#all),*];
            #(#getters)*
            /// The kind with structure key `key`, if any.
            pub fn from_key(key: &str) -> Option<SentenceKind> {
                match key { #(#from_key,)* _ => None }
            }
            /// The generated fields, in struct order (spec names).
            pub fn fields(self) -> &'static [&'static str] {
                match self { #(#fields,)* }
            }
            /// The generated fields with their types, in struct order.
            pub fn field_info(self) -> &'static [FieldInfo] {
                match self { #(#field_info,)* }
            }
            /// Fields the spec lists that no pattern group captures: left out of the generated type.
            pub fn omitted_fields(self) -> &'static [&'static str] {
                match self { #(#omitted,)* }
            }
            /// Groups of the bound pattern that must capture fixed text for this structure, as
            /// `(group, text)` (e.g. `verb` = `CLAIM` for `claim`).
            pub fn fixed_groups(self) -> &'static [(&'static str, &'static str)] {
                match self { #(#fixed,)* }
            }
            /// Why the structure binds to another pattern than its `regex_ref`, where it does.
            pub fn binding_note(self) -> Option<&'static str> {
                match self { #(#notes,)* }
            }
            /// The spec entry `/structures/<key>` as written, pretty-printed JSON.
            pub fn spec_json(self) -> &'static str {
                match self { #(#spec_json,)* }
            }
            /// Parses `text` as exactly one sentence of this structure (the
            /// structure's own `parse`, wrapped in [`Sentence`]).
            ///
            /// # Errors
            /// The structure's [`ParseError`].
            pub fn parse(self, text: &str) -> Result<Sentence, ParseError> {
                match self { #(#parses,)* }
            }
        }

        impl fmt::Display for SentenceKind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.key()) }
        }
    }
}

/// `Sentence`: any structure, parsed by trying each in spec order.
pub(super) fn sentence_enum(model: &Model, schemars: &TokenStream, examples: bool) -> TokenStream {
    let parse_example = if examples {
        doc(&sentence_parse_example(model))
    } else {
        quote!()
    };
    let variants = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        let k = &s.key;
        let d = doc(&format!("A `{k}` sentence."));
        quote!(#d #[serde(rename = #k)] #v(#v))
    });
    let kinds = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(Sentence::#v(_) => SentenceKind::#v)
    });
    let displays = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote!(Sentence::#v(x) => x.fmt(f))
    });
    let tries = model.sentences.iter().map(|s| {
        let v = format_ident!("{}", s.type_name);
        quote! {
            match #v::parse(text) {
                Ok(x) => return Ok(Sentence::#v(x)),
                Err(e) => {
                    let rank = (e.offset, agent_sentences_runtime::tag_affinity(SentenceKind::#v.tag(), text));
                    match &best {
                        Some((_, b)) if *b >= rank => {}
                        _ => best = Some((e, rank)),
                    }
                }
            }
        }
    });
    quote! {
        /// Any sentence. Serializes as the structure's fields plus
        /// `"structure": "<key>"`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #schemars
        #[serde(crate = "agent_sentences_runtime::serde")]
        #[serde(tag = "structure")]
        pub enum Sentence { #(#variants,)* }

        impl Sentence {
            /// Parses `text` as exactly one sentence of any structure, trying
            /// structures in spec order; the first that fits the whole text wins.
            ///
            /// # Errors
            /// [`ParseError`] with `structure: None` and `closest` set to the
            /// structure that fitted the longest prefix, with its offset and
            /// reason; among equally long ones, the one whose protocol tag
            /// the text starts with the most of (`tag_affinity`), then the
            /// first in spec order.
            #parse_example
            pub fn parse(text: &str) -> Result<Sentence, ParseError> {
                let mut best: Option<(ParseError, (usize, usize))> = None;
                #(#tries)*
                let (best, _) = best.expect("at least one structure");
                Err(ParseError { structure: None, closest: best.structure, offset: best.offset, kind: best.kind })
            }

            /// The structure of this sentence.
            pub fn kind(&self) -> SentenceKind {
                match self { #(#kinds,)* }
            }
        }

        impl FromStr for Sentence {
            type Err = ParseError;
            fn from_str(text: &str) -> Result<Self, ParseError> { Sentence::parse(text) }
        }

        impl fmt::Display for Sentence {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self { #(#displays,)* }
            }
        }
    }
}
