//! What a tool that cannot be generated expands to: a placeholder handle and `Tool`
//! impl beside a definition with errors, and the accessors `toolbox!` calls for a
//! method that is not a tool, so that only the real error is reported, at its token,
//! and no cascade of "not found" errors follows it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Attribute;

use super::expand::{free_handle, method_handle};
use crate::shared::syntax::cfg_attrs;

/// The accessor `#[tools]` gives a method of its block that is not marked `#[tool]`:
/// listing it in `toolbox!` then reports "this method is not a tool" at the method's
/// name instead of "no method named `__toolkit_tool_...`".
pub fn unmarked_method(krate: &TokenStream, self_ty: &syn::Type, method: &syn::ImplItemFn) -> TokenStream {
    let accessor = format_ident!("__toolkit_tool_{}", crate::shared::syntax::unraw(&method.sig.ident));
    let (vis, cfg) = (&method.vis, cfg_attrs(&crate::shared::syntax::cfgs(&method.attrs)));
    quote! {
        #cfg
        #[allow(non_snake_case)]
        impl #self_ty {
            #[doc(hidden)]
            #vis fn #accessor(self: ::std::sync::Arc<Self>) -> #krate::__private::UnmarkedMethod {
                #krate::__private::UnmarkedMethod
            }
        }
    }
}

/// The accessor `toolbox!` calls for `value.method`, for a `#[tool]` method outside a
/// `#[tools]` block (an error already reported): it returns a placeholder tool declared
/// inside it (the `impl` block can hold no struct), named like the method, so listing
/// the method produces no further error.
pub fn orphan_method_accessor(
    krate: &TokenStream,
    cfgs: &[Attribute],
    vis: &syn::Visibility,
    fn_ident: &syn::Ident,
    name: &str,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let cfg = cfg_attrs(cfgs);
    let accessor = format_ident!("__toolkit_tool_{}", crate::shared::syntax::unraw(fn_ident));
    let tool = placeholder_tool(krate, &quote!(), &format_ident!("__toolkit_Placeholder"), name);
    quote! {
        #cfg
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code)]
        #vis fn #accessor(self: ::std::sync::Arc<Self>) -> impl #p::MethodTool<Handle: #p::Tool>
        where
            Self: ::core::marker::Sized,
        {
            #[allow(non_camel_case_types)]
            struct __toolkit_Placeholder;
            #[automatically_derived]
            impl #p::MethodTool for __toolkit_Placeholder {
                type Handle = Self;
                fn handle(self) -> Self {
                    self
                }
            }
            #tool
            let _ = self;
            __toolkit_Placeholder
        }
    }
}

/// A `Tool` impl for a placeholder handle: no arguments, the placeholder spec, and a call
/// that says the tool is not available.
fn placeholder_tool(krate: &TokenStream, cfg: &TokenStream, handle: &syn::Ident, name: &str) -> TokenStream {
    let p = quote!(#krate::__private);
    quote! {
        #cfg
        #[automatically_derived]
        impl #p::Tool for #handle {
            type Args = #p::NoArgs;
            type Output = ();
            const NAME: &'static str = #name;
            fn spec() -> &'static #p::ToolSpec { #p::placeholder_spec() }
            fn invoke<'__toolkit>(
                &'__toolkit self,
                _: #p::NoArgs,
                _: #p::CallContext<'__toolkit>,
            ) -> impl ::core::future::Future<Output = #p::Result<#p::Output, #p::ToolError>> + ::core::marker::Send + '__toolkit {
                async { #p::Err(#p::placeholder_error()) }
            }
        }
    }
}

/// What is emitted beside a tool whose definition has errors: the handle and a `Tool`
/// impl that type-checks, so `toolbox![...]` and other uses produce no further errors.
pub fn placeholder(
    krate: &TokenStream,
    cfgs: &[Attribute],
    vis: &syn::Visibility,
    handle: &syn::Ident,
    name: &str,
    method: Option<(&syn::Type, &syn::Ident)>,
) -> TokenStream {
    let cfg = cfg_attrs(cfgs);
    let decl = match method {
        None => free_handle(krate, &cfg, vis, handle),
        Some((self_ty, fn_ident)) => {
            method_handle(krate, &cfg, vis, handle, self_ty, fn_ident, quote!(), quote!({ let _ = self; #handle }))
        }
    };
    let tool = placeholder_tool(krate, &cfg, handle, name);
    quote! {
        #decl
        #tool
    }
}
