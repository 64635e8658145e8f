//! `toolbox![a, b, store.c]`: a dispatch table fixed at compile time.
//!
//! Entries are paths to `#[tool]` functions, or `value.method` for a `#[tools]` method
//! of an `Arc<T>`. The table is a generic struct of the tools' handles; dispatch is a
//! chain of name comparisons, each arm monomorphized; duplicate names are compile errors.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Member, Token};

use crate::errors::Errors;

enum Entry {
    Free(syn::Path),
    Method { base: Expr, method: syn::Ident },
}

pub fn entry(input: TokenStream) -> TokenStream {
    let parsed = match Punctuated::<Expr, Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let krate = quote!(::toolkit);
    let mut errors = Errors::default();
    let mut entries = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for expr in parsed {
        let key = quote!(#expr).to_string();
        if seen.contains(&key) {
            errors.at(&expr, format!("`{key}` is listed twice in this `toolbox!`; remove one"));
            continue;
        }
        seen.push(key);
        match expr {
            Expr::Path(p) if p.qself.is_none() => entries.push(Entry::Free(p.path)),
            Expr::Field(f) => match f.member {
                Member::Named(method) => entries.push(Entry::Method { base: *f.base, method }),
                Member::Unnamed(_) => errors.at(&f, "expected `value.method`, where `method` is a `#[tool]` of a `#[tools]` impl"),
            },
            other => errors.at(
                &other,
                "expected a `#[tool]` function (`get_weather`) or a `#[tool]` method of an `Arc` value (`store.read_file`)",
            ),
        }
    }
    if !errors.is_empty() {
        return errors.to_compile_errors();
    }
    if entries.is_empty() {
        return quote!(#krate::Toolbox::new());
    }
    let p = quote!(#krate::__private);
    let params: Vec<_> = (0..entries.len()).map(|i| format_ident!("T{}", i)).collect();
    let indices: Vec<_> = (0..entries.len()).map(syn::Index::from).collect();
    let labels: Vec<String> = entries
        .iter()
        .map(|e| match e {
            Entry::Free(path) => quote!(#path).to_string().replace(' ', ""),
            Entry::Method { base, method } => format!("{}.{}", quote!(#base).to_string().replace(' ', ""), method),
        })
        .collect();
    let values: Vec<_> = entries
        .iter()
        .map(|e| match e {
            Entry::Free(path) => quote_spanned!(path.span()=> #path {}),
            Entry::Method { base, method } => {
                let accessor = format_ident!("__toolkit_tool_{}", method, span = method.span());
                quote!(::std::sync::Arc::clone(&(#base)).#accessor())
            }
        })
        .collect();

    // Pairs of free tools are checked without generics, so `cargo check` reports them;
    // pairs involving methods are checked when the table is monomorphized.
    let mut static_checks = Vec::new();
    let mut generic_checks = Vec::new();
    for i in 0..entries.len() {
        for j in (i + 1)..entries.len() {
            let message = format!(
                "`{}` and `{}` have the same tool name; give one another name with `#[tool(name = \"...\")]`",
                labels[i], labels[j]
            );
            if let (Entry::Free(a), Entry::Free(b)) = (&entries[i], &entries[j]) {
                static_checks.push(quote_spanned! {b.span()=>
                    const _: () = if #p::str_eq(<#a as #p::Tool>::NAME, <#b as #p::Tool>::NAME) {
                        ::core::panic!(#message)
                    };
                });
            } else {
                let (ti, tj) = (&params[i], &params[j]);
                generic_checks.push(quote! {
                    if #p::str_eq(<#ti as #p::Tool>::NAME, <#tj as #p::Tool>::NAME) {
                        ::core::panic!(#message)
                    }
                });
            }
        }
    }
    let arms = params.iter().zip(&indices).map(|(t, i)| {
        quote! {
            if __toolkit_call.name == <#t as #p::Tool>::NAME {
                return #p::Ok(#p::Box::pin(#p::run(&self.#i, __toolkit_call, __toolkit_env)));
            }
        }
    });
    quote! {{
        #(#static_checks)*
        #[allow(non_camel_case_types)]
        struct __toolkit_Table<#(#params),*>(#(#params),*);
        impl<#(#params: #p::Tool),*> __toolkit_Table<#(#params),*> {
            const __TOOLKIT_DISTINCT: () = { #(#generic_checks)* };
        }
        impl<#(#params: #p::Tool),*> #p::Dispatch for __toolkit_Table<#(#params),*> {
            fn specs(&self) -> #p::Vec<&'static #p::ToolSpec> {
                #p::vec![#(<#params as #p::Tool>::spec()),*]
            }
            fn dispatch<'__toolkit>(
                &'__toolkit self,
                __toolkit_call: #p::ToolCall,
                __toolkit_env: #p::Env<'__toolkit>,
            ) -> #p::Result<#p::BoxFuture<'__toolkit, #p::ToolResult>, #p::ToolCall> {
                #(#arms)*
                #p::Err(__toolkit_call)
            }
        }
        fn __toolkit_new<#(#params: #p::Tool),*>(#(#params: #params),*) -> #krate::Toolbox {
            #[allow(clippy::let_unit_value)]
            let () = __toolkit_Table::<#(#params),*>::__TOOLKIT_DISTINCT;
            #krate::Toolbox::from_table(__toolkit_Table(#(#params),*))
        }
        __toolkit_new(#(#values),*)
    }}
}
