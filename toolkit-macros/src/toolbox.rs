//! `toolbox![a, b, store.c]`: a toolbox whose names are checked at compile time.
//!
//! Entries are paths to `#[tool]` functions, or `value.method` for a `#[tools]` method
//! of an `Arc<T>`. The expansion is linear in the number of entries: each becomes one
//! `ToolEntry` of the table, and the names are checked for repeats by one `const`
//! computation (see [`crate::distinct`]), pre-monomorphization when every entry is a
//! function (so `cargo check` reports it), else where the methods' handle types are known.
//!
//! Each path is named once (a local type alias, so a path that is not a type fails
//! there only) and reached through one `const` of `listed::<path>()`, whose bounds are
//! the only errors for a path that is not a tool (spanned at the path, once): the name
//! check and the table both read that `const`.

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
    let (krate, input) = crate::distinct::split_crate(input);
    let parsed = match Punctuated::<Expr, Token![,]>::parse_terminated.parse2(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    let mut entries = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for expr in parsed {
        let key = quote!(#expr).to_string();
        if !seen.insert(key.clone()) {
            errors.at(&expr, format!("`{key}` is listed twice in this `toolbox!`; remove one"));
            continue;
        }
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
    let labels: Vec<String> = entries
        .iter()
        .map(|e| match e {
            Entry::Free(path) => quote!(#path).to_string().replace(' ', ""),
            Entry::Method { base, method } => format!("{}.{}", quote!(#base).to_string().replace(' ', ""), method),
        })
        .collect();
    let spans: Vec<_> = entries
        .iter()
        .map(|e| match e {
            Entry::Free(path) => path.span(),
            Entry::Method { method, .. } => method.span(),
        })
        .collect();
    // Free entries: `type __toolkit_E{i} = path;`, its name and its entry through it.
    // Method entries: a value, passed to a generic function whose type parameter
    // `__toolkit_M{j}` names its handle type.
    let mut aliases = Vec::new();
    let mut listed = Vec::new();
    let mut names = Vec::new();
    let mut table = Vec::new();
    let mut params = Vec::new();
    let mut values = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match e {
            Entry::Free(path) => {
                let alias = format_ident!("__toolkit_E{}", i, span = path.span());
                let item = format_ident!("__toolkit_L{}", i);
                aliases.push(quote! {
                    #[allow(non_camel_case_types)]
                    type #alias = #path;
                });
                // Each reaches the tool through one `const` of `listed`, bounded by
                // `Listable`, so a path that is not a tool is reported at the path, once,
                // and no projection of its handle type is left for anything else to trip on.
                // Spanned at the path, as a whole: the bound is checked where the item is.
                listed.push(quote_spanned! {path.span()=>
                    #[allow(non_upper_case_globals)]
                    const #item: #p::Listed = #p::listed::<#alias, _>();
                });
                names.push(quote!(#item.name));
                table.push(quote!((#item.entry)()));
            }
            Entry::Method { base, method } => {
                // `method_tool(shared(&(base)).__toolkit_tool_method())`, located at
                // `method` (but `base` keeps its own spans): a method that is not a tool
                // is reported there.
                let at = method.span();
                let accessor = format_ident!("__toolkit_tool_{}", method, span = at);
                // The value must be an `Arc`: checked at `base`, with the fix in the message.
                let shared = quote_spanned!(base.span()=> #p::shared(&(#base)));
                // The braces keep the accessor call's span at `method`.
                let handle = quote_spanned!(at=> #p::method_tool({ #shared }.#accessor()));
                let param = format_ident!("__toolkit_M{}", params.len());
                let value = format_ident!("__toolkit_m{}", params.len());
                names.push(quote_spanned!(at=> <#param as #p::Tool>::NAME));
                table.push(quote_spanned!(at=> #p::entry(#value)));
                values.push(handle);
                params.push((param, value));
            }
        }
    }
    let check = crate::distinct::check(&p, &names, &labels, &spans, "tool");
    if params.is_empty() {
        return quote! {{
            #(#aliases)*
            #(#listed)*
            #[allow(non_camel_case_types)]
            struct __toolkit_Names;
            impl __toolkit_Names {
                #check
            }
            const _: () = __toolkit_Names::DISTINCT;
            #krate::Toolbox::from_tools([#(#table),*])
        }};
    }
    // Some handle types are known only to inference: check in an associated `const` of
    // a generic type, evaluated when the function below is instantiated.
    let (types, args): (Vec<_>, Vec<_>) = params.into_iter().unzip();
    quote! {{
        #(#aliases)*
        #(#listed)*
        #[allow(non_camel_case_types)]
        struct __toolkit_Names<#(#types),*>(::core::marker::PhantomData<(#(#types,)*)>);
        impl<#(#types: #p::Tool),*> __toolkit_Names<#(#types),*> {
            #check
        }
        #[allow(non_camel_case_types, clippy::too_many_arguments)]
        fn __toolkit_new<#(#types: #p::Tool),*>(#(#args: #types),*) -> #krate::Toolbox {
            #[allow(clippy::let_unit_value)]
            let () = __toolkit_Names::<#(#types),*>::DISTINCT;
            #krate::Toolbox::from_tools([#(#table),*])
        }
        __toolkit_new(#(#values),*)
    }}
}
