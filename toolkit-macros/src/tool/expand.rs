//! Code generation for one tool. Infallible: every rule was checked by `model`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::{Arg, DefaultValue, OutputKind, ParamKind, Site, ToolModel};

/// The companion items of a tool: argument struct, handle, `Tool` impl (and for a
/// method, the accessor `toolbox!` uses).
pub fn companions(m: &ToolModel) -> TokenStream {
    let args = args_struct(m);
    let handle = handle(m);
    let tool_impl = tool_impl(m);
    quote! { #args #handle #tool_impl }
}

fn default_fn_ident(binding: &syn::Ident) -> syn::Ident {
    format_ident!("__toolkit_default_{}", super::model::unraw(binding))
}

fn args_struct(m: &ToolModel) -> TokenStream {
    let krate = &m.krate;
    let vis = &m.vis;
    let ident = &m.args_ident;
    let serde_crate = format!("{}::__private::serde", quote!(#krate)).replace(' ', "");
    let fn_name = m.fn_ident.to_string();
    let doc = format!("The arguments of the [`{fn_name}`] tool, parsed from the model's JSON.");
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut checks = Vec::new();
    for p in &m.params {
        let ParamKind::Arg(a) = &p.kind else { continue };
        let binding = &p.binding;
        let ty = &p.ty;
        let wire = &a.wire;
        let de_with =
            syn::LitStr::new(&format!("{serde_crate}::de_param").replace("serde::de_param", "de_param"), ty.span());
        let mut serde_attrs = vec![quote!(rename = #wire), quote!(deserialize_with = #de_with)];
        if let Some(d) = &a.default {
            let f = default_fn_ident(binding);
            let path = syn::LitStr::new(&format!("{ident}::{f}"), ty.span());
            serde_attrs.push(quote!(default = #path));
            let value = match d {
                DefaultValue::Inherit => quote_spanned!(ty.span()=> #krate::__private::param_default::<#ty>()),
                DefaultValue::Expr(syn::Expr::Lit(l)) if matches!(l.lit, syn::Lit::Str(_)) => {
                    quote!(::core::convert::Into::into(#l))
                }
                DefaultValue::Expr(e) => quote!(#e),
            };
            defaults.push(quote! {
                #[doc(hidden)]
                fn #f() -> #ty { #value }
            });
        } else if a.optional {
            serde_attrs.push(quote!(default));
        }
        let field_doc = match &a.docs {
            crate::docs::Docs::Text(t) if t.is_empty() => quote!(),
            d => {
                let t = d.to_tokens();
                quote!(#[doc = #t])
            }
        };
        fields.push(quote! {
            #field_doc
            #[serde(#(#serde_attrs),*)]
            pub #binding: #ty,
        });
        checks.extend(constraint_checks(m, binding, a));
    }
    let defaults = if defaults.is_empty() {
        quote!()
    } else {
        quote! { #[allow(non_snake_case)] impl #ident { #(#defaults)* } }
    };
    quote! {
        #[doc = #doc]
        #[derive(#krate::__private::serde::Deserialize)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {
            #(#fields)*
        }
        #defaults
        impl #krate::__private::Validate for #ident {
            #[inline]
            fn validate(&self) -> #krate::__private::Result<(), #krate::__private::Violation> {
                #(#checks)*
                #krate::__private::Ok(())
            }
        }
    }
}

fn constraint_checks(m: &ToolModel, binding: &syn::Ident, a: &Arg) -> Vec<TokenStream> {
    let krate = &m.krate;
    let wire = &a.wire;
    let mut out = Vec::new();
    if let Some(e) = &a.minimum {
        out.push(quote_spanned!(e.span()=> #krate::__private::check_minimum(#wire, &self.#binding, #e)?;));
    }
    if let Some(e) = &a.maximum {
        out.push(quote_spanned!(e.span()=> #krate::__private::check_maximum(#wire, &self.#binding, #e)?;));
    }
    if let Some(n) = &a.min_length {
        out.push(quote_spanned!(n.span()=> #krate::__private::check_min_length(#wire, &self.#binding, #n)?;));
    }
    if let Some(n) = &a.max_length {
        out.push(quote_spanned!(n.span()=> #krate::__private::check_max_length(#wire, &self.#binding, #n)?;));
    }
    if let Some(p) = &a.pattern {
        out.push(quote_spanned!(p.span()=> {
            static RE: #krate::__private::LazyLock<#krate::__private::Regex> =
                #krate::__private::LazyLock::new(|| #krate::__private::regex(#p));
            #krate::__private::check_pattern(#wire, &self.#binding, &RE)?;
        }));
    }
    out
}

fn handle(m: &ToolModel) -> TokenStream {
    let vis = &m.vis;
    let ident = &m.handle_ident;
    let name = &m.name;
    match &m.site {
        Site::Free => {
            let doc = format!("The `{name}` tool, for `toolbox![...]`; the function stays callable as written.");
            quote! {
                #[doc = #doc]
                #[allow(non_camel_case_types, dead_code)]
                #[derive(Clone, Copy, Debug, Default)]
                #vis struct #ident {}
            }
        }
        Site::Method { self_ty, .. } => {
            let accessor = format_ident!("__toolkit_tool_{}", super::model::unraw(&m.fn_ident));
            quote! {
                #[doc(hidden)]
                #[allow(non_camel_case_types, dead_code)]
                #vis struct #ident(::std::sync::Arc<#self_ty>);
                #[allow(non_snake_case)]
                impl #self_ty {
                    #[doc(hidden)]
                    #vis fn #accessor(self: ::std::sync::Arc<Self>) -> #ident {
                        #ident(self)
                    }
                }
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
        let param_call = quote_spanned!(ty.span()=> __schema.param::<#ty>);
        params.push(quote! {
            #param_call(#wire, #p::Some(#docs), #presence, #p::vec![#(#constraints),*]);
        });
    }
    let title = match &m.title {
        Some(t) => quote!(__spec.title = #p::Some(#p::String::from(#t));),
        None => quote!(),
    };
    let timeout = match m.timeout_ms {
        Some(ms) => quote!(__spec.timeout = #p::Some(#p::Duration::from_millis(#ms));),
        None => quote!(),
    };
    let (read_only, destructive, idempotent, open_world, strict) =
        (m.read_only, m.destructive, m.idempotent, m.open_world, m.strict);
    let output_ty = match &m.output {
        OutputKind::Json(t) => Some(t),
        OutputKind::Result { ok, .. } => match &**ok {
            OutputKind::Json(t) => Some(t),
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
        #timeout
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
        OutputKind::Json(ty) => quote_spanned!(ty.span()=> #p::output_json(&#value)),
        OutputKind::Result { ok, err } => {
            let ok_conv = convert(m, ok, quote!(__toolkit_ok));
            let err_check = err.as_ref().map(|e| quote_spanned!(e.span()=> let _ = #p::assert_error_type::<#e>;));
            quote! {
                match #value {
                    #p::Ok(__toolkit_ok) => #ok_conv,
                    #p::Err(__toolkit_err) => {
                        #err_check
                        #[allow(unused_imports)]
                        use #p::{ErrViaDisplay as _, ErrViaError as _};
                        #p::Err((&&#p::ErrProbe(__toolkit_err)).tool_error())
                    }
                }
            }
        }
    }
}

fn tool_impl(m: &ToolModel) -> TokenStream {
    let krate = &m.krate;
    let p = quote!(#krate::__private);
    let handle = &m.handle_ident;
    let args_ident = &m.args_ident;
    let name = &m.name;
    let fn_ident = &m.fn_ident;
    let spec = spec_body(m);

    let arg_bindings: Vec<_> =
        m.params.iter().filter(|p| matches!(p.kind, ParamKind::Arg(_))).map(|p| &p.binding).collect();
    let mut injections = Vec::new();
    let mut call_args = Vec::new();
    for param in &m.params {
        let b = &param.binding;
        let ty = &param.ty;
        match param.kind {
            ParamKind::Arg(_) => {}
            ParamKind::Context => injections.push(quote_spanned!(ty.span()=> let #b = #p::from_context(__toolkit_cx);)),
            ParamKind::State => injections.push(quote_spanned!(ty.span()=> let #b = #p::from_state(__toolkit_cx)?;)),
        }
        call_args.push(quote!(#b));
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
    let invoke_body = quote_spanned! {fn_ident.span()=>
        async move {
            #this
            #destructure
            #(#injections)*
            #body
        }
    };
    quote! {
        impl #p::Tool for #handle {
            type Args = #args_ident;
            const NAME: &'static str = #name;

            fn spec() -> &'static #p::ToolSpec {
                static SPEC: #p::LazyLock<#p::ToolSpec> = #p::LazyLock::new(|| { #spec });
                &SPEC
            }

            #[allow(unused_variables, clippy::unit_arg, clippy::let_unit_value)]
            fn invoke<'__toolkit>(
                &'__toolkit self,
                __toolkit_args: #args_ident,
                __toolkit_cx: &'__toolkit #p::CallContext<'__toolkit>,
            ) -> impl ::core::future::Future<
                Output = #p::Result<#p::Output, #p::ToolError>,
            > + ::core::marker::Send + '__toolkit {
                #invoke_body
            }
        }
    }
}

/// What is emitted beside a tool whose definition has errors: the handle and a `Tool`
/// impl that type-checks, so `toolbox![...]` and other uses produce no further errors.
pub fn placeholder(
    krate: &TokenStream,
    vis: &syn::Visibility,
    handle: &syn::Ident,
    name: &str,
    free: bool,
) -> TokenStream {
    let p = quote!(#krate::__private);
    let decl = if free {
        quote! {
            #[allow(non_camel_case_types, dead_code)]
            #[derive(Clone, Copy, Debug, Default)]
            #vis struct #handle {}
        }
    } else {
        quote! {
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #handle;
        }
    };
    quote! {
        #decl
        impl #p::Tool for #handle {
            type Args = #p::NoArgs;
            const NAME: &'static str = #name;
            fn spec() -> &'static #p::ToolSpec { #p::placeholder_spec() }
            fn invoke<'__toolkit>(
                &'__toolkit self,
                _: #p::NoArgs,
                _: &'__toolkit #p::CallContext<'__toolkit>,
            ) -> impl ::core::future::Future<Output = #p::Result<#p::Output, #p::ToolError>> + ::core::marker::Send + '__toolkit {
                async { #p::Err(#p::placeholder_error()) }
            }
        }
    }
}
