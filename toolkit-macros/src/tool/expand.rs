//! Code generation for one tool. Infallible: every rule was checked by `model`.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::args::{args_struct, default_fn_ident};
use super::model::{OutputKind, Site, ToolModel};
use super::param::{Param, ParamKind};
use crate::shared::syntax::{cfg_attrs, located_at};

/// The companion items of a tool: argument struct, handle, `Tool` impl (and for a
/// method, the accessor `toolbox!` uses). Each carries the function's `#[cfg]`s.
pub fn companions(m: &ToolModel) -> TokenStream {
    let args = args_struct(m);
    let handle = handle(m);
    let tool_impl = tool_impl(m);
    let checks = super::checks::output_checks(m);
    let examples = super::checks::example_test(m);
    quote! { #args #handle #tool_impl #checks #examples }
}

/// The handle of a free tool: a braced struct named like the function (types and
/// functions live in different namespaces), listable in `toolbox!`.
pub(super) fn free_handle(
    krate: &TokenStream,
    cfg: &TokenStream,
    vis: &syn::Visibility,
    ident: &syn::Ident,
) -> TokenStream {
    quote! {
        #cfg
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #ident {}
        #cfg
        #[automatically_derived]
        impl #krate::__private::Listable for #ident {
            type Handle = Self;
            const HANDLE: Self = #ident {};
        }
        // Listed in `hooks!` by mistake, it says it is a tool.
        #cfg
        #[automatically_derived]
        impl #krate::__private::Hookable for #ident {
            type Handle = #krate::__private::IsATool;
        }
    }
}

fn handle(m: &ToolModel) -> TokenStream {
    let vis = &m.vis;
    let ident = &m.handle_ident;
    let name = &m.name;
    let cfg = cfg_attrs(&m.cfgs);
    match &m.site {
        Site::Free => {
            let doc = format!("The `{name}` tool, for `toolbox![...]`; the function stays callable as written.");
            let handle = free_handle(&m.krate, &cfg, vis, ident);
            quote! {
                #[doc = #doc]
                #handle
            }
        }
        Site::Method { self_ty, .. } => method_handle(
            &m.krate,
            &cfg,
            vis,
            ident,
            self_ty,
            &m.fn_ident,
            quote!((::std::sync::Arc<#self_ty>)),
            quote!(#ident(self)),
        ),
    }
}

/// The handle of a method tool (`declared` is its fields: the shared value, or none for
/// a placeholder), its `MethodTool` impl, and the accessor `toolbox!` calls on an
/// `Arc<Self>` (`store.read_file` → `store.__toolkit_tool_read_file()`).
#[allow(clippy::too_many_arguments)]
pub(super) fn method_handle(
    krate: &TokenStream,
    cfg: &TokenStream,
    vis: &syn::Visibility,
    handle: &syn::Ident,
    self_ty: &syn::Type,
    fn_ident: &syn::Ident,
    declared: TokenStream,
    construct: TokenStream,
) -> TokenStream {
    let accessor = format_ident!("__toolkit_tool_{}", crate::shared::syntax::unraw(fn_ident));
    quote! {
        #cfg
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #handle #declared;
        #cfg
        #[automatically_derived]
        impl #krate::__private::MethodTool for #handle {
            type Handle = Self;
            #[inline]
            fn handle(self) -> Self {
                self
            }
        }
        #cfg
        #[allow(non_snake_case)]
        impl #self_ty {
            #[doc(hidden)]
            #vis fn #accessor(self: ::std::sync::Arc<Self>) -> #handle {
                #construct
            }
        }
    }
}

fn spec_body(m: &ToolModel) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let name = &m.name;
    let description = &m.description;
    let args_ident = &m.args_ident;
    let mut params = Vec::new();
    let mut headers = Vec::new();
    for param in &m.params {
        let ParamKind::Arg(a) = &param.kind else { continue };
        let ty = &param.ty;
        let wire = &a.wire;
        let docs = a.docs.to_tokens();
        let presence = match (&a.default, a.optional) {
            (Some(_), _) => {
                let f = default_fn_ident(&param.binding);
                quote! {{
                    #[allow(unused_imports)]
                    use #p::{DefaultViaNothing as _, DefaultViaSerialize as _};
                    let value: #ty = #args_ident::#f();
                    #p::Presence::Default((&&#p::DefaultProbe(&value)).default_json())
                }}
            }
            (None, true) => quote!(#p::Presence::Optional),
            (None, false) => quote!(#p::Presence::Required),
        };
        let constraints = super::constraints::schema_keywords(&p, ty, a);
        let param_cfg = cfg_attrs(&param.cfgs);
        if let Some(header) = &a.header {
            // Checked at the type: one error there if it has no header form.
            let check = quote_spanned!(ty.span()=> #p::header_param::<#ty>());
            headers.push(quote! {
                #param_cfg
                {
                    #check;
                    __spec.headers.push(#p::ParamHeader::new(#wire, #header));
                }
            });
        }
        params.push(match &a.schema_with {
            // The function keeps its span: a wrong signature is reported at its path.
            Some(f) => quote! {
                #param_cfg
                __schema.param_with(#wire, #p::Some(#docs), #presence, #f);
            },
            None => {
                let param_call = quote_spanned!(ty.span()=> __schema.param::<#ty>);
                quote! {
                    #param_cfg
                    #param_call(#wire, #p::Some(#docs), #presence, #p::vec![#(#constraints),*]);
                }
            }
        });
    }
    let title = match &m.title {
        Some(t) => quote!(__spec.title = #p::Some(#p::String::from(#t));),
        None => quote!(),
    };
    let icon = match &m.icon {
        Some(src) => quote!(__spec.icons.push(#p::Icon::new(#src));),
        None => quote!(),
    };
    let timeout = match m.timeout_ms {
        Some(ms) => quote!(__spec.timeout = #p::Some(#p::Duration::from_millis(#ms));),
        None => quote!(),
    };
    let examples = m.examples.iter().map(|json| quote!(__spec.examples.push(#p::example(#json));));
    let freeform = m.freeform.as_ref().map(|f| {
        let param = &f.param;
        let grammar = match &f.grammar {
            Some(("lark", text)) => quote!(.with_grammar(#p::Grammar::Lark(#p::String::from(#text)))),
            Some((_, text)) => quote!(.with_grammar(#p::Grammar::Regex(#p::String::from(#text)))),
            None => quote!(),
        };
        quote!(__spec.freeform = #p::Some(#p::Freeform::new(#param) #grammar);)
    });
    let callers = m.programmatic.then(|| quote!(__spec.callers = #p::Callers::Both;));
    let deferred = m.deferred.then(|| quote!(__spec.deferred = true;));
    let retry = match m.retry {
        Some((retries, ms)) => {
            quote!(__spec.retry = #p::Some(#p::RetryPolicy::new(#retries, #p::Duration::from_millis(#ms)));)
        }
        None => quote!(),
    };
    let (read_only, destructive, idempotent, open_world, strict) =
        (m.read_only, m.destructive, m.idempotent, m.open_world, m.strict);
    // The type as the `Tool` impl names it (`Self` of a method resolved, lifetimes
    // `'static`): this runs in a `static` initializer, outside the function.
    let output_ty = match &m.output {
        OutputKind::Json => Some(&m.output_ty),
        OutputKind::Result { ok, .. } => match &**ok {
            OutputKind::Json => Some(&m.output_ty),
            _ => None,
        },
        _ => None,
    };
    let output_schema = match output_ty {
        Some(t) => quote! {{
            #[allow(unused_imports)]
            use #p::{OutputViaNothing as _, OutputViaSchema as _};
            __spec.output_schema = (&&#p::OutputProbe::<#t>(::core::marker::PhantomData)).output_schema();
        }},
        None => quote!(),
    };
    quote! {
        let mut __schema = #p::ArgsSchema::new();
        #(#params)*
        let mut __spec = #p::ToolSpec::new(#name, #description, __schema.finish());
        #title
        #icon
        #(#headers)*
        #timeout
        #retry
        #(#examples)*
        #freeform
        #callers
        #deferred
        __spec.annotations = #p::Annotations {
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
        };
        __spec.strict = #strict;
        #output_schema
        __spec
    }
}

/// Turns the function's return value (bound to `__toolkit_ret`) into
/// `Result<Output, ToolError>`.
fn convert(m: &ToolModel, kind: &OutputKind, value: TokenStream) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    match kind {
        OutputKind::Unit => quote!({ let () = #value; #p::Ok(#p::Output::unit()) }),
        OutputKind::Text => quote!(#p::Ok(#p::Output::text(#value))),
        OutputKind::Parts => {
            // At the type's own name (`File` of `std::fs::File`), which is what is wrong.
            let at = crate::shared::last_segment(&m.output_ty).map_or(m.output_span, |s| s.ident.span());
            located_at(quote!(#p::Ok(#p::IntoOutput::into_output(#value))), at)
        }
        OutputKind::Json => {
            // Whether the type serializes is checked once, by `output_checks`.
            let json = quote! {{
                #[allow(unused_imports)]
                use #p::{JsonViaNothing as _, JsonViaSerialize as _};
                (&&#p::JsonProbe(&#value)).output_json()
            }};
            if !m.keeps_raw {
                return json;
            }
            // An after hook will read the typed value: kept beside its JSON when it is
            // `Any + Send + Sync` (autoref, so no new bound on the output type).
            quote! {
                match #json {
                    #p::Ok(__toolkit_out) if __toolkit_keep_raw => {
                        #[allow(unused_imports)]
                        use #p::{RawViaAny as _, RawViaNothing as _};
                        let __toolkit_probe = #p::RawProbe::of(&#value);
                        #p::Ok((&&__toolkit_probe).keep_raw(__toolkit_out, #value))
                    }
                    __toolkit_other => __toolkit_other,
                }
            }
        }
        OutputKind::Result { ok, err } => {
            let ok_conv = convert(m, ok, quote!(__toolkit_ok));
            // The one place a non-`Display` error type is reported: at `E`, or at the
            // return type when an alias (`io::Result<T>`) hides it. The probe below has
            // a silent fallback so it does not report the same mistake again.
            let at = err.as_ref().map_or(m.output_span, |e| e.span());
            let err_check = located_at(quote!(#p::check_error(&__toolkit_err);), at);
            quote! {
                match #value {
                    #p::Ok(__toolkit_ok) => #ok_conv,
                    #p::Err(__toolkit_err) => {
                        #err_check
                        #[allow(unused_imports)]
                        use #p::{ErrorViaDisplay as _, ErrorViaError as _, ErrorViaNothing as _, ErrorViaToolError as _};
                        #p::Err((&&&&#p::ErrorProbe(__toolkit_err)).tool_error())
                    }
                }
            }
        }
    }
}

/// The local a parameter's value is bound to before the call: not the parameter's own
/// name, which could shadow the function (`fn echo(echo: String)`) or another item the
/// call needs. Located at the parameter, so errors about it point there.
fn local(i: usize, param: &Param) -> syn::Ident {
    format_ident!("__toolkit_p{}", i, span = param.binding.span())
}

fn tool_impl(m: &ToolModel) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let handle = &m.handle_ident;
    let args_ident = &m.args_ident;
    let name = &m.name;
    let fn_ident = &m.fn_ident;
    let spec = spec_body(m);

    let arg_bindings: Vec<_> = m
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, ParamKind::Arg(_)))
        .map(|(i, p)| {
            let (cfg, field, b) = (cfg_attrs(&p.cfgs), &p.binding, local(i, p));
            quote!(#cfg #field: #b)
        })
        .collect();
    let mut injections = Vec::new();
    let mut call_args = Vec::new();
    for (i, param) in m.params.iter().enumerate() {
        let b = &local(i, param);
        let cfg = cfg_attrs(&param.cfgs);
        // Located at the parameter's type: a type that cannot be injected is reported there.
        let at = param.ty.span();
        match param.kind {
            ParamKind::Arg(_) => {}
            ParamKind::Context => {
                let inject = located_at(quote!(#p::from_context(__toolkit_cx)), at);
                injections.push(quote!(#cfg let #b = #inject;));
            }
            ParamKind::State => {
                let inject = located_at(quote!(#p::from_state(__toolkit_cx)), at);
                injections.push(quote!(#cfg let #b = #inject?;));
            }
        }
        call_args.push(quote!(#cfg #b));
    }
    let target = match &m.site {
        Site::Free => quote!(#fn_ident),
        Site::Method { .. } => quote!(__toolkit_this.#fn_ident),
    };
    let this = match &m.site {
        Site::Free => quote!(),
        Site::Method { .. } if m.blocking => quote!(let __toolkit_this = ::std::sync::Arc::clone(&self.0);),
        Site::Method { .. } => quote!(let __toolkit_this = &*self.0;),
    };
    let await_ = if m.is_async { quote!(.await) } else { quote!() };
    let call = quote_spanned!(fn_ident.span()=> #target(#(#call_args),*) #await_);
    let conversion = convert(m, &m.output, quote!(__toolkit_ret));
    let body = if m.blocking {
        quote! {
            #p::run_blocking(#name, move || {
                let __toolkit_ret = #call;
                #conversion
            }).await
        }
    } else {
        quote! {
            let __toolkit_ret = #call;
            #conversion
        }
    };
    let destructure = quote!(let #args_ident { #(#arg_bindings),* } = __toolkit_args;);
    // Read before a `blocking` body moves to another thread (the context stays here).
    let keep_raw =
        if m.keeps_raw { quote!(let __toolkit_keep_raw = #p::CallContext::keeps_raw(__toolkit_cx);) } else { quote!() };
    // A sync tool that does not block runs at dispatch, under the panic guard, with no
    // future to box (`invoke_now`); its `invoke` delegates there, so the body, and any
    // error in it, appears once.
    let runs_now = !m.is_async && !m.blocking;
    let borrows_context = m.params.iter().any(|p| matches!(p.kind, ParamKind::Context));
    let invoke_body = if runs_now {
        // Its `invoke` (which the runtime never calls for it) runs it at once and
        // returns the ready result: no coroutine.
        quote! { ::core::future::ready(#p::finished(<Self as #p::Tool>::invoke_now(self, __toolkit_args, &__toolkit_cx))) }
    } else if m.is_async && !m.blocking && !borrows_context {
        mapped_invoke(m, [&this, &destructure, &keep_raw], &call_args, &target)
    } else {
        // A tool that borrows its context, or blocks: an `async move { .. }` that owns
        // the context, located at the function's name (a future that is not `Send` is
        // reported there), its contents keeping their own spans and hygiene (so a tool
        // defined by a `macro_rules!` still sees the generated bindings).
        let invoke_inner = quote! {
            let __toolkit_cx = &__toolkit_cx;
            #this
            #destructure
            #(#injections)*
            #keep_raw
            #body
        };
        let async_move = located_at(quote!(async move), fn_ident.span());
        let mut block = Group::new(Delimiter::Brace, invoke_inner);
        block.set_span(block.span().located_at(fn_ident.span()));
        quote!(#async_move #block)
    };
    let invoke_now = if runs_now {
        quote! {
            const RUNS_NOW: bool = true;

            #[inline]
            #[allow(unused_variables, clippy::unit_arg, clippy::let_unit_value, clippy::redundant_closure_call)]
            fn invoke_now<'__toolkit>(
                &'__toolkit self,
                __toolkit_args: #args_ident,
                __toolkit_cx: &'__toolkit #p::CallContext<'__toolkit>,
            ) -> #p::Result<#p::Result<#p::Output, #p::ToolError>, #args_ident> {
                #p::Ok((move || -> #p::Result<#p::Output, #p::ToolError> {
                    #this
                    #destructure
                    #(#injections)*
                    #keep_raw
                    #body
                })())
            }
        }
    } else {
        quote!()
    };
    // A future that is not `Send` (an `Rc` held across `.await`) is reported at the
    // function's name rather than at `#[tool]`.
    let future = located_at(
        quote! {
            impl ::core::future::Future<
                Output = #p::Result<#p::Output, #p::ToolError>,
            > + ::core::marker::Send + '__toolkit
        },
        fn_ident.span(),
    );
    let encode_args = encode_args(m);
    let output_ty = &m.output_ty;
    let keeps_raw = if m.keeps_raw {
        quote!(
            const KEEPS_RAW: bool = true;
        )
    } else {
        quote!()
    };
    let retries = if m.retry.is_some() {
        quote!(
            const RETRIES: bool = true;
        )
    } else {
        quote!()
    };
    let deferred = m.deferred.then(|| {
        quote!(
            const DEFERRED: bool = true;
        )
    });
    let cfg = cfg_attrs(&m.cfgs);
    quote! {
        #cfg
        #[automatically_derived]
        impl #p::Tool for #handle {
            type Args = #args_ident;
            type Output = #output_ty;
            const NAME: &'static str = #name;
            #keeps_raw
            #retries
            #deferred
            #encode_args

            fn spec() -> &'static #p::ToolSpec {
                static SPEC: #p::LazyLock<#p::ToolSpec> = #p::LazyLock::new(|| { #spec });
                &SPEC
            }

            #[allow(unused_variables, clippy::unit_arg, clippy::let_unit_value)]
            fn invoke<'__toolkit>(
                &'__toolkit self,
                __toolkit_args: #args_ident,
                __toolkit_cx: #p::CallContext<'__toolkit>,
            ) -> #future {
                #invoke_body
            }

            #invoke_now
        }
    }
}

/// The body of `invoke` for an async tool that does not borrow its context: the
/// function's own future, mapped to the tool's result (`__private::invoked`). No `async`
/// block, whose coroutine rustc builds, lays out and compiles once per tool: about
/// 170 KB of rustc memory per tool. A tool that borrows its context needs the context to
/// live in its future, and keeps the `async` block (see [`tool_impl`]).
fn mapped_invoke(
    m: &ToolModel,
    [this, destructure, keep_raw]: [&TokenStream; 3],
    call_args: &[TokenStream],
    target: &TokenStream,
) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    // A `#[state]` that is missing refuses the call before the function is called.
    let refusable = m.params.iter().any(|param| matches!(param.kind, ParamKind::State));
    let injections =
        m.params.iter().enumerate().filter(|(_, param)| matches!(param.kind, ParamKind::State)).map(|(i, param)| {
            let (b, cfg) = (local(i, param), cfg_attrs(&param.cfgs));
            let inject = located_at(quote!(#p::from_state(__toolkit_cx)), param.ty.span());
            quote! {
                #cfg let #b = match #inject {
                    #p::Ok(__toolkit_state) => __toolkit_state,
                    #p::Err(__toolkit_err) => return #p::Either::Right(#p::refused(__toolkit_err)),
                };
            }
        });
    let call = quote_spanned!(m.fn_ident.span()=> #target(#(#call_args),*));
    let conversion = convert(m, &m.output, quote!(__toolkit_ret));
    let mapped = quote!(#p::invoked(#call, move |__toolkit_ret| { #conversion }));
    let mapped = if refusable { quote!(#p::Either::Left(#mapped)) } else { mapped };
    quote! {
        let __toolkit_cx = &__toolkit_cx;
        #this
        #destructure
        #(#injections)*
        #keep_raw
        #mapped
    }
}

/// `Tool::encode_args`: the argument struct as the JSON object a model would send (wire
/// names, `None` omitted), for hooks' JSON view and call records. Each field goes through
/// an autoref probe, so parameter types need not be `Serialize`: one that is not makes
/// the encoding fail at run time, with its name.
fn encode_args(m: &ToolModel) -> TokenStream {
    let p = {
        let krate = &m.krate;
        quote!(#krate::__private)
    };
    let args_ident = &m.args_ident;
    // One entry per argument; the encoding itself is `__private::encode_fields`,
    // compiled once.
    let fields = m.params.iter().filter_map(|param| {
        let ParamKind::Arg(a) = &param.kind else { return None };
        let (binding, wire, cfg, optional) = (&param.binding, &a.wire, cfg_attrs(&param.cfgs), a.optional);
        Some(quote!(#cfg (#wire, #optional, (&&#p::EncodeProbe(&__toolkit_args.#binding)).encoder()),))
    });
    quote! {
        #[allow(unused_variables)]
        fn encode_args(
            __toolkit_args: &#args_ident,
        ) -> #p::Result<#p::serde_json::Map<#p::String, #p::serde_json::Value>, #p::String> {
            #[allow(unused_imports)]
            use #p::{EncodeViaNothing as _, EncodeViaSerialize as _};
            #p::encode_fields(&[#(#fields)*])
        }
    }
}
