//! `hooks![a, b, policy::c]`: a `Hooks` set of `#[hook]` functions, in order.
//!
//! As in `toolbox!`, each path is named once (a local type alias, so a path that is not a
//! type fails there only) and reached through one `const` of `hooked::<path>()`, whose
//! bounds are the only errors for a path that is not a hook (spanned at the path, once):
//! the name check (a `const` item, so `cargo check` runs it) and the set both read it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

use crate::errors::Errors;

pub fn entry(input: TokenStream) -> TokenStream {
    let (krate, input) = crate::distinct::split_crate(input);
    let parsed = match Punctuated::<Expr, Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let p = quote!(#krate::__private);
    let mut errors = Errors::default();
    let mut paths = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for expr in parsed {
        let key = quote!(#expr).to_string().replace(' ', "");
        if !seen.insert(key.clone()) {
            errors.at(&expr, format!("`{key}` is listed twice in this `hooks!`; remove one"));
            continue;
        }
        match expr {
            Expr::Path(p) if p.qself.is_none() => paths.push(p.path),
            other => errors.at(
                &other,
                "expected the path of a `#[hook]` function (`sandbox`, `policy::audit`); add hooks built at run time with `Hooks::with(Hook::before(name, closure))`",
            ),
        }
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }
    if paths.is_empty() {
        return quote!(#p::Hooks::new());
    }
    let labels: Vec<String> = paths.iter().map(|path| quote!(#path).to_string().replace(' ', "")).collect();
    let mut aliases = Vec::new();
    let mut names = Vec::new();
    let mut hook_of = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let alias = format_ident!("__toolkit_H{}", i, span = path.span());
        let item = format_ident!("__toolkit_K{}", i);
        // As in `toolbox!`: each through one `const` of `hooked`, bounded by `Hookable`.
        aliases.push(quote! {
            #[allow(non_camel_case_types)]
            type #alias = #path;
        });
        // Spanned at the path, as a whole: the bound is checked where the item is.
        aliases.push(quote_spanned! {path.span()=>
            #[allow(non_upper_case_globals)]
            const #item: #p::Hooked = #p::hooked::<#alias, _>();
        });
        names.push(quote!(#item.name));
        hook_of.push(quote!((#item.hook)()));
    }
    let spans: Vec<_> = paths.iter().map(|path| path.span()).collect();
    let checks = crate::distinct::check(&p, &names, &labels, &spans, "hook");
    quote! {{
        #(#aliases)*
        #[allow(non_camel_case_types)]
        struct __toolkit_Names;
        impl __toolkit_Names {
            #checks
        }
        const _: () = __toolkit_Names::DISTINCT;
        let mut __toolkit_hooks = #p::Hooks::new();
        #(__toolkit_hooks = __toolkit_hooks.with(#hook_of);)*
        __toolkit_hooks
    }}
}
