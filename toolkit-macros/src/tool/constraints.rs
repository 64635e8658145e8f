//! The expansion of a parameter's `#[arg(...)]` constraints: their runtime checks (in the
//! argument struct's `Validate` impl) and their schema keywords.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use super::param::Arg;
use crate::shared::syntax::located_at;

/// The runtime checks of `minimum`, `maximum`, `one_of`, `min_length`, `max_length`,
/// `pattern`, `format` (which checks only the formats it knows; see the runtime's
/// `check_format`) and `items_one_of`.
/// Each call is located at the parameter's type (its listed values keep their own
/// spans), so a constraint that does not fit the type ("`pattern` applies to strings, not
/// to `u32`") is reported there, once.
pub fn checks(krate: &TokenStream, binding: &syn::Ident, ty: &syn::Type, a: &Arg) -> Vec<TokenStream> {
    let wire = &a.wire;
    let at = ty.span();
    let check = |f: &str, bound: TokenStream| {
        let f = format_ident!("{}", f);
        let path = located_at(quote!(#krate::__private::#f), at);
        let value = located_at(quote!(#wire, &self.#binding,), at);
        let mut args = Group::new(Delimiter::Parenthesis, quote!(#value #bound));
        args.set_span(at);
        quote!(#path #args ?;)
    };
    let mut out = Vec::new();
    if let Some(e) = &a.minimum {
        out.push(check("check_min", quote!(#e)));
    }
    if let Some(e) = &a.maximum {
        out.push(check("check_max", quote!(#e)));
    }
    if let Some(n) = &a.min_length {
        out.push(check("check_min_length", quote!(#n)));
    }
    if let Some(n) = &a.max_length {
        out.push(check("check_max_length", quote!(#n)));
    }
    if let Some(values) = &a.one_of {
        out.push(check("check_one_of", quote!(&[#(#values),*])));
    }
    if let Some(f) = &a.format {
        out.push(check("check_format", quote!(#f)));
    }
    if let Some(values) = &a.items_one_of {
        out.push(check("check_items_one_of", quote!(&[#(#values),*])));
    }
    if let Some(p) = &a.pattern {
        let call = check("check_pattern", quote!(&__TOOLKIT_RE));
        out.push(quote!({
            static __TOOLKIT_RE: #krate::__private::LazyLock<#krate::__private::Option<#krate::__private::Regex>> =
                #krate::__private::LazyLock::new(|| #krate::__private::regex(#p));
            #call
        }));
    }
    out
}

/// The schema keywords of the constraints, as `(keyword, value)` expressions for
/// `ArgsSchema::param` (`p` is the runtime's `__private` path).
pub fn schema_keywords(p: &TokenStream, ty: &syn::Type, a: &Arg) -> Vec<TokenStream> {
    let mut constraints = Vec::new();
    if let Some(e) = &a.minimum {
        constraints.push(quote!(("minimum", #p::serde_json::json!(#e))));
    }
    if let Some(e) = &a.maximum {
        constraints.push(quote!(("maximum", #p::serde_json::json!(#e))));
    }
    if let Some(n) = &a.min_length {
        constraints.push(quote!(({
            #[allow(unused_imports)]
            use #p::{LengthViaTrait as _, LengthViaNothing as _};
            (&&#p::LengthProbe::<#ty>(::core::marker::PhantomData)).keywords().0
        }, #p::serde_json::json!(#n))));
    }
    if let Some(n) = &a.max_length {
        constraints.push(quote!(({
            #[allow(unused_imports)]
            use #p::{LengthViaTrait as _, LengthViaNothing as _};
            (&&#p::LengthProbe::<#ty>(::core::marker::PhantomData)).keywords().1
        }, #p::serde_json::json!(#n))));
    }
    if let Some(pat) = &a.pattern {
        constraints.push(quote!(("pattern", #p::serde_json::json!(#pat))));
    }
    if let Some(values) = &a.one_of {
        constraints.push(quote!(("enum", #p::serde_json::json!([#(#values),*]))));
    }
    if let Some(f) = &a.format {
        constraints.push(quote!(("format", #p::serde_json::json!(#f))));
    }
    if let Some(values) = &a.items_one_of {
        constraints.push(quote!(("items", #p::serde_json::json!({ "enum": [#(#values),*] }))));
    }
    constraints
}
