//! The argument struct of a tool: its fields (the parameters the model sends), its
//! map-only `Deserialize` impl and its `Validate` impl (the `#[arg]` constraints).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::ToolModel;
use super::param::{DefaultValue, ParamKind};
use crate::shared::syntax::{cfg_attrs, located_at};

/// The function giving a parameter's default (an associated function of the argument
/// struct).
pub fn default_fn_ident(binding: &syn::Ident) -> syn::Ident {
    format_ident!("__toolkit_default_{}", crate::shared::syntax::unraw(binding))
}

/// The argument struct and its `Deserialize` and `Validate` impls.
pub fn args_struct(m: &ToolModel) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let vis = &m.vis;
    let ident = &m.args_ident;
    let fn_name = m.fn_ident.to_string();
    let doc = format!("The arguments of the [`{fn_name}`] tool, parsed from the model's JSON.");
    let cfg = cfg_attrs(&m.cfgs);
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut checks = Vec::new();
    // The `Deserialize` impl: one slot per field, a loop over the keys, then each
    // field from its slot, its default, or a `missing field` error.
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut field_arms = Vec::new();
    let mut finals = Vec::new();
    let mut inits = Vec::new();
    let mut wires = Vec::new();
    for p_ in &m.params {
        let ParamKind::Arg(a) = &p_.kind else { continue };
        let binding = &p_.binding;
        let ty = &p_.ty;
        let wire = &a.wire;
        let param_cfg = cfg_attrs(&p_.cfgs);
        let missing = if let Some(d) = &a.default {
            let f = default_fn_ident(binding);
            let value = match d {
                DefaultValue::Inherit => quote_spanned!(ty.span()=> #krate::__private::param_default::<#ty>()),
                // A string literal: the type's `From<&str>` (`String`, `PathBuf`, ...), else
                // the value the model would send (`"celsius"` for an enum), read by its
                // `Deserialize` (autoref: the first that applies).
                DefaultValue::Expr(syn::Expr::Lit(l)) if matches!(l.lit, syn::Lit::Str(_)) => {
                    quote! {{
                        #[allow(unused_imports)]
                        use #p::{StrDefaultViaFrom as _, StrDefaultViaDeserialize as _, StrDefaultViaNothing as _};
                        (&&&#p::StrDefault::<#ty>::new(#l, #wire)).value()
                    }}
                }
                DefaultValue::Expr(e) => quote!(#e),
            };
            defaults.push(quote! {
                #param_cfg
                #[doc(hidden)]
                fn #f() -> #ty { #value }
            });
            quote!(#ident::#f())
        } else if a.optional {
            quote!(#p::None)
        } else {
            quote!(return #p::Err(<__M::Error as #p::serde::de::Error>::missing_field(#wire)))
        };
        let field_doc = match &a.docs {
            crate::docs::Docs::Text(t) if t.is_empty() => quote!(),
            d => {
                let t = d.to_tokens();
                quote!(#[doc = #t])
            }
        };
        fields.push(quote! {
            #param_cfg
            #field_doc
            pub #binding: #ty,
        });
        // Located at the parameter's type: a type that is not `Deserialize` is reported
        // there, once.
        let value = located_at(quote!(#p::param_value::<__M, #ty>), ty.span());
        slots.push(quote!(#param_cfg let mut #binding: #p::Option<#ty> = #p::None;));
        let index = wires.len();
        field_arms.push(quote!(#param_cfg #wire => #p::Some(#index),));
        arms.push(quote! {
            #param_cfg
            #p::Some(#index) => {
                if #binding.is_some() {
                    return #p::Err(<__M::Error as #p::serde::de::Error>::duplicate_field(#wire));
                }
                #binding = #p::Some(#value(&mut __map)?);
            }
        });
        finals.push(quote! {
            #param_cfg
            let #binding = match #binding {
                #p::Some(__toolkit_value) => __toolkit_value,
                #p::None => #missing,
            };
        });
        inits.push(quote!(#param_cfg #binding));
        wires.push(wire.clone());
        checks.extend(super::constraints::checks(krate, binding, ty, a).into_iter().map(|c| quote!(#param_cfg #c)));
    }
    let defaults = if defaults.is_empty() {
        quote!()
    } else {
        quote! { #cfg #[allow(non_snake_case)] impl #ident { #(#defaults)* } }
    };
    quote! {
        #cfg
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code, missing_docs)]
        #vis struct #ident {
            #(#fields)*
        }
        #defaults
        // A map-only `Deserialize`: arguments are always an object, so there is no
        // sequence form to compile, and every field's value is read by one shared
        // function per parameter type.
        #cfg
        #[automatically_derived]
        impl<'__toolkit_de> #p::serde::Deserialize<'__toolkit_de> for #ident {
            fn deserialize<__D: #p::serde::Deserializer<'__toolkit_de>>(
                __deserializer: __D,
            ) -> #p::Result<Self, __D::Error> {
                const __TOOLKIT_FIELDS: &[&str] = &[#(#wires),*];
                // The key's place among the fields: the one part of reading a key that is
                // this tool's own.
                fn __toolkit_field(key: &str) -> #p::Option<usize> {
                    match key {
                        #(#field_arms)*
                        _ => #p::None,
                    }
                }
                struct __Visitor;
                #[automatically_derived]
                impl<'__toolkit_de> #p::serde::de::Visitor<'__toolkit_de> for __Visitor {
                    type Value = #ident;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str("an object")
                    }
                    #[allow(unused_mut)]
                    fn visit_map<__M: #p::serde::de::MapAccess<'__toolkit_de>>(
                        self,
                        mut __map: __M,
                    ) -> #p::Result<#ident, __M::Error> {
                        #(#slots)*
                        loop {
                            // Any other key is serde's `unknown field` error, raised there.
                            let __toolkit_seed = #p::FieldSeed { fields: __TOOLKIT_FIELDS, find: __toolkit_field };
                            match #p::serde::de::MapAccess::next_key_seed(&mut __map, __toolkit_seed)? {
                                #(#arms)*
                                #p::None => break,
                                // A parameter compiled out by its `#[cfg]`: unknown here too.
                                #p::Some(__toolkit_i) => {
                                    return #p::Err(<__M::Error as #p::serde::de::Error>::unknown_field(
                                        __TOOLKIT_FIELDS[__toolkit_i],
                                        __TOOLKIT_FIELDS,
                                    ));
                                }
                            }
                        }
                        #(#finals)*
                        #p::Ok(#ident { #(#inits),* })
                    }
                }
                #p::serde::Deserializer::deserialize_map(__deserializer, __Visitor)
            }
        }
        #cfg
        #[automatically_derived]
        impl #krate::__private::Validate for #ident {
            #[inline]
            fn validate(&self) -> #krate::__private::Result<(), #krate::__private::Violation> {
                #(#checks)*
                #krate::__private::Ok(())
            }
        }
    }
}
