//! `#[tools]` on an inherent `impl` block: every method marked `#[tool]` becomes a tool
//! whose handle holds the value (`Arc<Self>`), so tools can share a client or a config.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl, Type};

use crate::errors::Errors;
use crate::tool::{self, Site, ToolOptions};

pub fn entry(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(i) => i,
        Err(_) => {
            let err = syn::Error::new_spanned(
                crate::shared::first_tokens(&input),
                "`#[tools]` goes on an inherent `impl` block (`impl MyType { ... }`) whose methods are marked `#[tool]`",
            )
            .to_compile_error();
            return quote!(#err #input);
        }
    };
    if let Some((path, _)) = &item.trait_ {
        errors.at(path, "`#[tools]` goes on an inherent `impl` block (`impl MyType { ... }`), not a trait impl");
    }
    if !item.generics.params.is_empty() {
        errors.at(&item.generics, "`#[tools]` does not support generic `impl` blocks: each tool needs one concrete schema; implement the tools on a concrete type");
    }
    let owner = match &*item.self_ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    };
    if owner.is_none() {
        errors.at(&item.self_ty, "`#[tools]` needs a named type (`impl FileStore { ... }`)");
    }
    let owner = owner.unwrap_or_else(|| quote::format_ident!("Unnamed"));
    let self_ty = item.self_ty.clone();
    // On a trait impl, a generic impl or an unnamed type, companions could not be
    // generated (they would name `T`, or add methods a trait does not have): report the
    // block and each method's own mistakes, and emit the block with `#[tool]` removed.
    let block_ok = errors.is_empty();
    if !args.is_empty() {
        errors.at(&args, "`#[tools]` takes no options; put options on each method's `#[tool(...)]`");
    }

    let mut companions = Vec::new();
    let mut unmarked = Vec::new();
    let mut block_krate = None;
    let mut found = 0usize;
    for impl_item in item.items.iter_mut() {
        let ImplItem::Fn(method) = impl_item else { continue };
        // `#[tool]`, or a path to it (`#[toolkit::tool]`, `#[tk::tool]` for a renamed crate).
        let Some(pos) = method.attrs.iter().position(|a| a.path().segments.last().is_some_and(|s| s.ident == "tool"))
        else {
            if block_ok && method.sig.receiver().is_some() {
                unmarked.push(method.clone());
            }
            continue;
        };
        found += 1;
        let attr = method.attrs.remove(pos);
        let args = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(l) => l.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                errors.at(nv, "write `#[tool]` or `#[tool(option, ...)]`");
                TokenStream::new()
            }
        };
        let mut local = Errors::default();
        let options = match ToolOptions::parse(args) {
            Ok(o) => o,
            Err(e) => {
                local.extend(e);
                ToolOptions::default()
            }
        };
        let krate = options.krate();
        block_krate.get_or_insert_with(|| krate.clone());
        let site = Site::Method { owner: owner.clone(), self_ty: self_ty.clone() };
        let model = tool::build(options, &method.attrs, &method.vis, &method.sig, site, &mut local);
        method.sig = tool::clean_signature(&method.sig);
        match model {
            _ if !block_ok => companions.push(local.to_compile_errors()),
            Some(m) if local.is_empty() => companions.push(tool::companions(&m)),
            _ => {
                let handle = quote::format_ident!(
                    "__toolkit_{}_{}",
                    crate::shared::unraw(&owner),
                    crate::shared::unraw(&method.sig.ident)
                );
                let name = crate::shared::unraw(&method.sig.ident);
                let method_of = Some((&*self_ty, &method.sig.ident));
                companions.push(tool::placeholder(
                    &krate,
                    &crate::shared::cfgs(&method.attrs),
                    &method.vis,
                    &handle,
                    &name,
                    method_of,
                ));
                companions.push(local.to_compile_errors());
            }
        }
    }
    let krate = block_krate.unwrap_or_else(|| quote!(::toolkit));
    companions.extend(unmarked.iter().map(|method| tool::unmarked_method(&krate, &self_ty, method)));
    if found == 0 {
        errors.at(
            &item.self_ty,
            "this `#[tools]` impl block has no `#[tool]` methods: mark the methods the model may call with `#[tool]`",
        );
    }
    let errs = errors.to_compile_errors();
    quote!(#errs #item #(#companions)*)
}
