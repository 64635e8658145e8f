//! Code generation for one hook. Infallible: every rule was checked by `model`; what
//! only the compiler can check is written so that it fails at the user's token.

use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Visibility};

use super::model::{Filter, Form, HookModel, Policy};
use super::parse::Event;
use crate::shared::located_at;

/// The companion items of a hook: its handle struct (`NAME`, `hook()`), the event trait's
/// impl, and the compile-time checks of a typed hook. Each carries the function's `#[cfg]`s.
pub fn companions(m: &HookModel) -> TokenStream {
    let handle = handle(&m.krate, &m.cfgs, &m.vis, &m.fn_ident, &m.name, Some(builder(m)));
    let event_impl = event_impl(m);
    let checks = raw_check(m);
    quote! { #handle #event_impl #checks }
}

/// What is emitted beside a hook whose definition has errors: the handle, acting on no
/// event, so `hooks![...]` and other uses produce no further errors.
pub fn placeholder(
    krate: &TokenStream,
    cfgs: &[Attribute],
    vis: &Visibility,
    ident: &Ident,
    name: &str,
) -> TokenStream {
    handle(krate, cfgs, vis, ident, name, None)
}

/// The handle: a braced struct named like the function (types and functions live in
/// different namespaces), with the hook's name and its `Hook`.
fn handle(
    krate: &TokenStream,
    cfgs: &[Attribute],
    vis: &Visibility,
    ident: &Ident,
    name: &str,
    build: Option<TokenStream>,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let cfg = quote!(#(#cfgs)*);
    let build = build.unwrap_or_else(|| quote!(#p::Hook::new(Self::NAME)));
    let doc = format!(
        "The `{name}` hook, for `hooks![...]` and `Toolbox::with_hook`; the function stays callable as written."
    );
    quote! {
        #cfg
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #ident {}
        #cfg
        #[allow(dead_code)]
        impl #ident {
            /// The hook's name: unique within a toolbox, an agent's hooks or the global
            /// registry.
            pub const NAME: &'static str = #name;
            /// The hook with its options, for `Toolbox::with_hook`, `Hooks::with` or
            /// `hook::register`.
            pub fn hook() -> #p::Hook {
                #build
            }
        }
        #cfg
        #[automatically_derived]
        impl #p::Hookable for #ident {
            type Handle = Self;
        }
        // Listed in `toolbox!` by mistake, it says it is a hook.
        #cfg
        #[automatically_derived]
        impl #p::Listable for #ident {
            type Handle = #p::IsAHook;
            const HANDLE: #p::IsAHook = #p::IsAHook;
        }
        #cfg
        #[automatically_derived]
        impl #p::HookDef for #ident {
            const NAME: &'static str = #name;
            #[inline]
            fn hook() -> #p::Hook {
                #ident::hook()
            }
        }
        #cfg
        #[automatically_derived]
        impl ::core::convert::From<#ident> for #p::Hook {
            #[inline]
            fn from(_: #ident) -> Self {
                #ident::hook()
            }
        }
    }
}

/// `Hook::new(NAME).on_before(handle)` and the options.
fn builder(m: &HookModel) -> TokenStream {
    let p = {
        let krate = &m.krate;
        quote!(#krate::__private)
    };
    let ident = &m.fn_ident;
    let on = match m.event {
        Event::Before => quote!(on_before),
        Event::After => quote!(on_after),
        Event::Error => quote!(on_error),
    };
    let mut chain = quote!(#p::Hook::new(Self::NAME).#on(#ident {}));
    if matches!(m.form, Form::Raw(_)) {
        chain.extend(quote!(.reading_raw()));
    }
    if let Some(n) = m.priority {
        chain.extend(quote!(.priority(#n)));
    }
    match m.on_failure {
        Some(Policy::Block) => chain.extend(quote!(.on_failure(#p::OnFailure::Block))),
        Some(Policy::Continue) => chain.extend(quote!(.on_failure(#p::OnFailure::Continue))),
        None => {}
    }
    if let Some(ms) = m.timeout_ms {
        chain.extend(quote!(.timeout(#p::Duration::from_millis(#ms))));
    }
    match &m.filter {
        Filter::All => {}
        // The paths keep their spans: a path that is not a tool is reported there.
        Filter::Tools(paths) => chain.extend(quote!(.for_tools([#(<#paths as #p::Tool>::NAME),*]))),
        Filter::Matching(pattern) => chain.extend(quote!(.matching(#pattern))),
    }
    chain
}

/// `impl BeforeHook` (or `AfterHook`, `ErrorHook`) for the handle: calls the function
/// with the context (or the typed view it asked for) and turns what it returned into the
/// hook's result; an async function's future is boxed.
fn event_impl(m: &HookModel) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let ident = &m.fn_ident;
    let (hook_trait, method, context, decided, result) = match m.event {
        Event::Before => {
            (quote!(BeforeHook), quote!(before), quote!(BeforeCall), quote!(#p::Decision), quote!(before_result))
        }
        Event::After => (quote!(AfterHook), quote!(after), quote!(AfterCall), quote!(()), quote!(after_result)),
        Event::Error => {
            (quote!(ErrorHook), quote!(error), quote!(ErrorCall), quote!(#p::Recovery), quote!(error_result))
        }
    };
    // The tool of a typed hook, named once: a path that is not a tool is reported at the
    // path (as in `Hook::for_tools`), and the checks below are spanned at the user's type.
    let tool_alias = match &m.filter {
        Filter::Tools(paths) if !matches!(m.form, Form::Context) => {
            let path = &paths[0];
            quote! {
                #[allow(non_camel_case_types)]
                type __toolkit_Tool = #path;
            }
        }
        _ => quote!(),
    };
    let (prelude, call) = match &m.form {
        Form::Context => (quote!(), quote!(#ident(__toolkit_cx))),
        Form::TypedArgs(ty) => {
            let check = located_at(quote!(#p::args_of::<__toolkit_Tool, #ty>();), ty.span());
            let prelude = quote! {
                #tool_alias
                #check
                // `None`: a tool of that name defined at run time; the hook does nothing.
                let #p::Some(__toolkit_args) = #p::BeforeCall::typed::<#ty>(__toolkit_cx) else {
                    return #p::HookStep::Ready(#p::Ok(#p::Decision::Continue));
                };
            };
            (prelude, quote!(#ident(__toolkit_args)))
        }
        Form::Raw(ty) => {
            let check = located_at(quote!(#p::output_of::<__toolkit_Tool, #ty>();), ty.span());
            let prelude = quote! {
                #tool_alias
                #check
                let __toolkit_raw = #p::AfterCall::raw::<#ty>(__toolkit_cx);
            };
            (prelude, quote!(#ident(__toolkit_cx, __toolkit_raw)))
        }
    };
    // The one check of the return type, at the return type.
    let converted = located_at(quote!(#p::#result(__toolkit_ret)), m.ret_span);
    let step = if m.is_async {
        // The future must be `Send`: a future that is not is reported at the function's
        // name (with the compiler's note on what is held across which `.await`).
        let at = ident.span();
        let start = located_at(quote!(#p::pending), at);
        let async_move = located_at(quote!(async move), at);
        let mut body = Group::new(
            Delimiter::Brace,
            quote! {
                let __toolkit_ret = #call.await;
                #converted
            },
        );
        body.set_span(body.span().located_at(at));
        let mut args = Group::new(Delimiter::Parenthesis, quote!(#async_move #body));
        args.set_span(args.span().located_at(at));
        quote!(#start #args)
    } else {
        quote! {
            let __toolkit_ret = #call;
            #p::HookStep::Ready(#converted)
        }
    };
    let cfgs = &m.cfgs;
    // A sync hook never waits: with a sync tool, the whole call runs with no future.
    let is_sync = (!m.is_async).then(|| {
        quote! {
            #[inline]
            fn is_sync(&self) -> bool {
                true
            }
        }
    });
    quote! {
        #(#cfgs)*
        #[automatically_derived]
        impl #p::#hook_trait for #ident {
            #[allow(clippy::let_unit_value, clippy::unit_arg, clippy::needless_lifetimes)]
            fn #method<'__toolkit>(
                &'__toolkit self,
                __toolkit_cx: &'__toolkit mut #p::#context<'_>,
            ) -> #p::HookStep<'__toolkit, #decided> {
                #prelude
                #step
            }
            #is_sync
        }
    }
}

/// A `raw` parameter needs a tool that keeps its typed output (a JSON output that
/// borrows nothing): checked in a `const` item, so `cargo check` reports it, at the
/// parameter's type.
fn raw_check(m: &HookModel) -> TokenStream {
    let (Form::Raw(ty), Filter::Tools(paths)) = (&m.form, &m.filter) else { return quote!() };
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let path = &paths[0];
    let label = quote!(#path).to_string().replace(' ', "");
    let message = format!(
        "the `{label}` tool keeps no typed output for after hooks (it returns text, `()`, or a type that borrows): remove the `raw` parameter and read `out.text()`"
    );
    let at: Span = ty.span();
    let test = quote_spanned! {at=>
        if !#p::keeps_raw::<#path>() {
            ::core::panic!(#message)
        }
    };
    let cfgs = &m.cfgs;
    quote! {
        #(#cfgs)*
        const _: () = { #test };
    }
}
