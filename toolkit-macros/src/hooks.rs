//! `hooks![a, b, policy::c]`: a `Hooks` set of `#[hook]` functions, in order.
//!
//! As in `toolbox!`, each path is named once (a local type alias, so a path that is not a
//! type fails there only) and reached through `hook_handle::<T>()`, whose type is left
//! unknown when `T` is not a hook, so nothing downstream repeats the error; the
//! duplicate-name check (a `const` item, so `cargo check` runs it) writes the same
//! tokens, so its error is the same diagnostic and is shown once.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

use crate::errors::Errors;
use crate::tool::located_at;

pub fn entry(input: TokenStream) -> TokenStream {
    let parsed = match Punctuated::<Expr, Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let krate = quote!(::toolkit);
    let p = quote!(#krate::__private);
    let mut errors = Errors::default();
    let mut paths = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for expr in parsed {
        let key = quote!(#expr).to_string().replace(' ', "");
        if seen.contains(&key) {
            errors.at(&expr, format!("`{key}` is listed twice in this `hooks!`; remove one"));
            continue;
        }
        seen.push(key);
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
    let mut handles = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let alias = format_ident!("__toolkit_H{}", i);
        aliases.push(quote! {
            #[allow(non_camel_case_types)]
            type #alias = #path;
        });
        handles.push(located_at(quote!(#p::hook_handle::<#alias>()), path.span()));
    }
    let mut checks = Vec::new();
    for i in 0..paths.len() {
        for j in (i + 1)..paths.len() {
            let message = format!(
                "`{}` and `{}` have the same hook name; give one another name with `#[hook(name = \"...\")]`",
                labels[i], labels[j]
            );
            checks.push(quote_spanned! {paths[j].span()=>
                if #p::str_eq(__toolkit_names[#i], __toolkit_names[#j]) {
                    ::core::panic!(#message)
                }
            });
        }
    }
    let checks = if checks.is_empty() {
        quote!()
    } else {
        quote! {
            const _: () = {
                let __toolkit_names = [#(#p::hook_name(&#handles)),*];
                #(#checks)*
            };
        }
    };
    quote! {{
        #(#aliases)*
        #checks
        let mut __toolkit_hooks = #p::Hooks::new();
        #(__toolkit_hooks = __toolkit_hooks.with(#p::hook_of(#handles));)*
        __toolkit_hooks
    }}
}
