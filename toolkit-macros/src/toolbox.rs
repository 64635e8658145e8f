//! `toolbox![a, b, store.c]`: a dispatch table fixed at compile time.
//!
//! Entries are paths to `#[tool]` functions, or `value.method` for a `#[tools]` method
//! of an `Arc<T>`. The table is a generic struct of the tools' handles; dispatch is a
//! chain of name comparisons, each arm monomorphized; duplicate names are compile errors.
//!
//! One mistake, one error: each path is named once (a local type alias, so a path that
//! is not a type fails there only), and reached through `listed::<T>()`, whose type is
//! left unknown when `T` is not a tool, so nothing downstream repeats the error. The
//! duplicate-name check (a `const` item, so `cargo check` runs it) writes
//! `listed::<T>()` with the same tokens, so its error is the same diagnostic and is
//! shown once.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Member, Token};

use crate::errors::Errors;
use crate::tool::located_at;

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
    // Free entries: `type __toolkit_E{i} = path;` and the handle `listed::<__toolkit_E{i}>()`;
    // `slot[i]` is the entry's place among the free entries' names.
    let mut aliases = Vec::new();
    let mut listed = Vec::new();
    let mut slot = Vec::new();
    let mut values = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match e {
            Entry::Free(path) => {
                let alias = format_ident!("__toolkit_E{}", i);
                aliases.push(quote! {
                    #[allow(non_camel_case_types)]
                    type #alias = #path;
                });
                let handle = located_at(quote!(#p::listed::<#alias>()), path.span());
                slot.push(Some(listed.len()));
                listed.push(handle.clone());
                values.push(handle);
            }
            Entry::Method { base, method } => {
                // `method_tool(Arc::clone(&(base)).__toolkit_tool_method())`, located at
                // `method` (but `base` keeps its own spans): a method that is not a tool
                // is reported there.
                let at = method.span();
                let accessor = format_ident!("__toolkit_tool_{}", method, span = at);
                let clone = located_at(quote!(::std::sync::Arc::clone), at);
                let mut base = Group::new(Delimiter::Parenthesis, quote!(&(#base)));
                base.set_span(base.span().located_at(at));
                let rest = located_at(quote!(.#accessor()), at);
                let mut call = Group::new(Delimiter::Parenthesis, quote!(#clone #base #rest));
                call.set_span(call.span().located_at(at));
                let handle = located_at(quote!(#p::method_tool), at);
                slot.push(None);
                values.push(quote!(#handle #call));
            }
        }
    }

    // Pairs of free tools are checked in a `const` item, so `cargo check` reports them;
    // pairs involving methods are checked when the table is monomorphized.
    let mut static_checks = Vec::new();
    let mut generic_checks = Vec::new();
    for i in 0..entries.len() {
        for j in (i + 1)..entries.len() {
            let message = format!(
                "`{}` and `{}` have the same tool name; give one another name with `#[tool(name = \"...\")]`",
                labels[i], labels[j]
            );
            if let (Some(a), Some(b), Entry::Free(path)) = (slot[i], slot[j], &entries[j]) {
                static_checks.push(quote_spanned! {path.span()=>
                    if #p::str_eq(__toolkit_names[#a], __toolkit_names[#b]) {
                        ::core::panic!(#message)
                    }
                });
            } else {
                let (ti, tj) = (&params[i], &params[j]);
                let at = match &entries[j] {
                    Entry::Free(path) => path.span(),
                    Entry::Method { method, .. } => method.span(),
                };
                generic_checks.push(quote_spanned! {at=>
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
                return #p::Some(#p::run(&self.#i, __toolkit_call, __toolkit_env));
            }
        }
    });
    let static_checks = if static_checks.is_empty() {
        quote!()
    } else {
        let names = listed.iter().map(|handle| quote!(#p::tool_name(&#handle)));
        quote! {
            const _: () = {
                let __toolkit_names = [#(#names),*];
                #(#static_checks)*
            };
        }
    };
    quote! {{
        #(#aliases)*
        #static_checks
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
                __toolkit_call: &'__toolkit #p::ToolCall,
                __toolkit_env: #p::Env<'__toolkit>,
            ) -> #p::Option<#p::Started<'__toolkit>> {
                #(#arms)*
                #p::None
            }
        }
        #[allow(clippy::too_many_arguments)]
        fn __toolkit_new<#(#params: #p::Tool),*>(#(#params: #params),*) -> #krate::Toolbox {
            #[allow(clippy::let_unit_value)]
            let () = __toolkit_Table::<#(#params),*>::__TOOLKIT_DISTINCT;
            #krate::Toolbox::from_table(__toolkit_Table(#(#params),*))
        }
        __toolkit_new(#(#values),*)
    }}
}
