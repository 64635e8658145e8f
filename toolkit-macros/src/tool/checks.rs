//! Checks generated beside a tool: that a JSON output serializes (a `const`, checked
//! when the crate builds, no code at run time) and that each `example` parses as a call
//! (a `#[test]`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use super::model::{OutputKind, ToolModel};
use crate::shared::syntax::{cfg_attrs, located_at};

/// A test that parses each `example` as the tool parses a call (nested types and
/// constraints included, which the macro cannot check): `cargo test` fails on one the
/// tool would refuse.
pub fn example_test(m: &ToolModel) -> TokenStream {
    if m.examples.is_empty() {
        return quote!();
    }
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let handle = &m.handle_ident;
    let test = format_ident!("__toolkit_examples_of_{}", crate::shared::syntax::unraw(handle));
    let cfg = cfg_attrs(&m.cfgs);
    quote! {
        #cfg
        #[cfg(test)]
        #[test]
        #[allow(non_snake_case, unnameable_test_items)]
        fn #test() {
            #p::check_examples::<#handle>();
        }
    }
}

/// The check that a JSON output serializes, in a `const` (no code at run time): of the
/// type itself, or, through the standard containers whose serializing is their items'
/// (`Vec<T>`, `Option<T>`, `HashMap<K, V>`, tuples, ...), of the items, each spanned at
/// its own type. So `-> Vec<Item>` gets the same message as `-> Item` ("`Item` cannot be
/// a tool's output"), at `Item`.
pub fn output_checks(m: &ToolModel) -> TokenStream {
    let json = match &m.output {
        OutputKind::Json => true,
        OutputKind::Result { ok, .. } => matches!(**ok, OutputKind::Json),
        OutputKind::Unit | OutputKind::Text | OutputKind::Parts => false,
    };
    if !json {
        return quote!();
    }
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let mut checks = Vec::new();
    serialized_parts(&p, &m.output_ty, &mut checks, 0);
    let cfg = cfg_attrs(&m.cfgs);
    quote! {
        #cfg
        const _: () = { #(#checks)* };
    }
}

/// The checks of `ty`'s parts (see [`output_checks`]), spanned at each.
fn serialized_parts(p: &TokenStream, ty: &syn::Type, checks: &mut Vec<TokenStream>, depth: usize) {
    use crate::shared::syntax::{last_segment, type_args};
    let at = ty.span();
    match ty {
        syn::Type::Paren(inner) => return serialized_parts(p, &inner.elem, checks, depth),
        syn::Type::Group(inner) => return serialized_parts(p, &inner.elem, checks, depth),
        syn::Type::Tuple(t) if !t.elems.is_empty() && depth < 8 => {
            return t.elems.iter().for_each(|e| serialized_parts(p, e, checks, depth + 1));
        }
        _ => {}
    }
    if depth < 8
        && let Some(seg) = last_segment(ty)
    {
        let args = type_args(seg);
        match (seg.ident.to_string().as_str(), args.as_slice()) {
            (
                "Vec" | "VecDeque" | "LinkedList" | "BinaryHeap" | "BTreeSet" | "HashSet" | "Option" | "Box",
                [item, ..],
            ) => {
                checks.push(located_at(quote!(#p::check_items::<#ty, #item>();), at));
                return serialized_parts(p, item, checks, depth + 1);
            }
            ("BTreeMap" | "HashMap", [key, value, ..]) => {
                checks.push(located_at(quote!(#p::check_entries::<#ty, #key, #value>();), at));
                serialized_parts(p, key, checks, depth + 1);
                return serialized_parts(p, value, checks, depth + 1);
            }
            _ => {}
        }
    }
    checks.push(located_at(quote!(#p::check_output::<#ty>();), at));
}
