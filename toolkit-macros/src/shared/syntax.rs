//! Small pieces of syntax the macros share: spans, `#[cfg]`s, identifiers and type
//! paths.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;
use syn::{Attribute, GenericArgument, Ident, PathArguments, Type};

/// Moves every token to `span`'s location, keeping its hygiene: a trait-bound failure
/// inside a hidden check is then reported at the user's token (a parameter's type, the
/// return type) instead of at `#[tool]`.
pub fn located_at(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(g) => {
                let mut moved = Group::new(g.delimiter(), located_at(g.stream(), span));
                moved.set_span(g.span().located_at(span));
                TokenTree::Group(moved)
            }
            mut other => {
                other.set_span(other.span().located_at(span));
                other
            }
        })
        .collect()
}

/// `#[cfg(...)]` attributes to repeat on a generated item.
pub fn cfg_attrs(cfgs: &[Attribute]) -> TokenStream {
    quote!(#(#cfgs)*)
}

/// The `#[cfg(...)]` attributes among `attrs`.
pub fn cfgs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).cloned().collect()
}

/// An identifier without its `r#`.
pub fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// The last segment of a type's path (`Vec` of `std::vec::Vec<T>`), through groups and parentheses.
pub fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// The type arguments of a path segment (`T` of `Vec<T>`).
pub fn type_args(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
