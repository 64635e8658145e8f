//! The validated description of one hook. Every rule a hook definition must follow is
//! checked here, each mistake reported at its token with what to do. What only the
//! compiler knows (that a listed tool exists, that a typed parameter is that tool's type,
//! that the return type is one a hook may return) is checked by the expansion, at the
//! user's tokens.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, GenericParam, Ident, LitStr, Path, ReturnType, Signature, Type, Visibility};

use super::parse::{Event, HookOptions};
use crate::errors::Errors;
use crate::shared::{
    NameProblem, RawExpr, TIMEOUT_UNITS, check_name, checked_name, last_segment, parse_timeout, type_args, unraw,
};

pub struct HookModel {
    pub krate: TokenStream,
    /// The function's `#[cfg(...)]` attributes, repeated on every companion item.
    pub cfgs: Vec<Attribute>,
    pub vis: Visibility,
    pub fn_ident: Ident,
    pub name: String,
    pub event: Event,
    pub is_async: bool,
    /// How the function is called.
    pub form: Form,
    /// The return type (or the name, for `()`): where the return-type check points.
    pub ret_span: Span,
    pub filter: Filter,
    pub priority: Option<i32>,
    pub on_failure: Option<Policy>,
    pub timeout_ms: Option<u64>,
}

/// What the function takes.
pub enum Form {
    /// The event's context: `call: &mut BeforeCall<'_>`, `out: &mut AfterCall<'_>`,
    /// `err: &ErrorCall<'_>`.
    Context,
    /// A before hook of one tool taking its argument struct (the type as written).
    TypedArgs(Type),
    /// An after hook of one tool that also takes `raw: Option<&T>` (`T` as written).
    Raw(Type),
}

pub enum Filter {
    All,
    Tools(Vec<Path>),
    Matching(String),
}

#[derive(Clone, Copy)]
pub enum Policy {
    Block,
    Continue,
}

const BEFORE_FORMS: &str = "a before hook takes `call: &mut BeforeCall<'_>`, or, when it acts on exactly one tool (`tools = [read_file]`), that tool's argument struct: `args: &mut ReadFileArgs` (also written `&mut Args<read_file>`)";
const AFTER_FORMS: &str = "an after hook takes `out: &mut AfterCall<'_>`, and, when it acts on exactly one tool (`tools = [get_weather]`), optionally that tool's typed output as a second parameter: `raw: Option<&Weather>`";
const ERROR_FORMS: &str = "an error hook takes `err: &mut ErrorCall<'_>` or `err: &ErrorCall<'_>`";

fn forms(event: Event) -> &'static str {
    match event {
        Event::Before => BEFORE_FORMS,
        Event::After => AFTER_FORMS,
        Event::Error => ERROR_FORMS,
    }
}

/// `&T` / `&mut T` → (mutable, T).
fn referent(ty: &Type) -> Option<(bool, &Type)> {
    match ty {
        Type::Reference(r) => Some((r.mutability.is_some(), &r.elem)),
        Type::Group(g) => referent(&g.elem),
        Type::Paren(p) => referent(&p.elem),
        _ => None,
    }
}

/// Whether `ty` names one of the hook contexts (`BeforeCall`, `AfterCall`, `ErrorCall`),
/// by its last path segment: the only way a macro can tell.
fn context_name(ty: &Type) -> Option<String> {
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    ["BeforeCall", "AfterCall", "ErrorCall"].contains(&name.as_str()).then_some(name)
}

fn context_of(event: Event) -> &'static str {
    match event {
        Event::Before => "BeforeCall",
        Event::After => "AfterCall",
        Event::Error => "ErrorCall",
    }
}

/// `Option<&T>` → `T`.
fn raw_type(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    if seg.ident != "Option" {
        return None;
    }
    match type_args(seg).as_slice() {
        [inner] => match referent(inner) {
            Some((false, t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn name_problem(name: &str) -> Option<String> {
    check_name(name).map(|problem| match problem {
        NameProblem::Empty => {
            "a hook name cannot be empty: write one, or remove `name` to use the function's name".to_string()
        }
        NameProblem::TooLong(len) => format!(
            "hook name `{name}` is {len} characters long; hook names follow the tool-name rule of at most 64: shorten it with `#[hook(name = \"...\")]`"
        ),
        NameProblem::Char(what) => format!(
            "hook name `{name}` contains {what}; hook names follow the tool-name rule (ASCII letters, digits, `_` and `-`): rename it with `#[hook(name = \"...\")]`"
        ),
    })
}

fn tool_paths(expr: &Expr, errors: &mut Errors) -> Vec<Path> {
    let Expr::Array(array) = expr else {
        errors.at(expr, "`tools` is written like `tools = [read_file, write_file]`");
        return Vec::new();
    };
    if array.elems.is_empty() {
        errors.at(expr, "`tools` is empty: list the tools the hook acts on, or remove `tools` to act on every tool");
    }
    let mut paths: Vec<Path> = Vec::new();
    for elem in &array.elems {
        match elem {
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                let key = p.path.to_token_stream().to_string();
                if paths.iter().any(|q| q.to_token_stream().to_string() == key) {
                    errors.at(p, format!("`{}` is listed twice in `tools`; remove one", key.replace(' ', "")));
                } else {
                    paths.push(p.path.clone());
                }
            }
            other => errors.at(
                other,
                "`tools` lists `#[tool]` functions by path (`tools = [read_file, files::write_file]`); for tools known only by name at run time, use `matching = \"...\"`",
            ),
        }
    }
    paths
}

fn priority(expr: &Expr, errors: &mut Errors) -> Option<i32> {
    let value = match expr {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<i64>().ok(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<i64>().ok().map(|v| -v),
            _ => None,
        },
        Expr::Group(g) => return priority(&g.expr, errors),
        _ => None,
    };
    match value.and_then(|v| i32::try_from(v).ok()) {
        Some(v) => Some(v),
        None => {
            errors.at(
                expr,
                "`priority` is a whole number that fits in an `i32`: write `priority = 10` (runs earlier) or `priority = -10` (runs later)",
            );
            None
        }
    }
}

fn policy(expr: &Expr, errors: &mut Errors) -> Option<Policy> {
    match expr {
        Expr::Path(p) if p.path.is_ident("block") => Some(Policy::Block),
        Expr::Continue(c) if c.label.is_none() => Some(Policy::Continue),
        Expr::Group(g) => policy(&g.expr, errors),
        _ => {
            errors.at(
                expr,
                "`on_failure` is `block` (fail closed: the call is blocked) or `continue` (fail open: the failure is logged): write `on_failure = block` or `on_failure = continue`",
            );
            None
        }
    }
}

/// Builds the model of one hook, or the list of everything wrong with it.
pub fn build(
    options: &HookOptions,
    parsed: bool,
    attrs: &[Attribute],
    vis: &Visibility,
    sig: &Signature,
    errors: &mut Errors,
) -> Option<HookModel> {
    let krate = options.krate();

    // The event.
    let event = match options.events.as_slice() {
        [] if !parsed => None,
        [] => {
            errors.at_span(
                Span::call_site(),
                "`#[hook]` needs the event it acts on: write `#[hook(before)]`, `#[hook(after)]` or `#[hook(error)]`",
            );
            None
        }
        [(event, _)] => Some(*event),
        [(first, _), rest @ ..] => {
            for (other, span) in rest {
                errors.at_span(
                    *span,
                    format!(
                        "a hook acts on one event, and `{}` is given first: remove `{}` (and write another hook for it)",
                        first.as_str(),
                        other.as_str()
                    ),
                );
            }
            Some(*first)
        }
    };

    // The function itself.
    let is_async = sig.asyncness.is_some();
    if let Some(r) = sig.receiver() {
        errors.at(
            r,
            "hooks are free functions: `#[hook]` cannot take `self`; move the function out of the `impl` block, or build a hook that holds state at run time with `Hook::before(name, closure)`",
        );
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        errors.at(
            t,
            "a hook cannot be `unsafe fn`: the runtime calls it on every call; keep the `unsafe` block inside a safe function",
        );
    }
    for g in &sig.generics.params {
        if !matches!(g, GenericParam::Lifetime(_)) {
            errors.at(g, "a hook cannot be generic: the runtime calls one function; name the types it works with");
        }
    }

    // Options.
    let name = checked_name(options.name.as_ref(), &sig.ident, name_problem, errors);
    let tools = options.tools.as_ref().map(|RawExpr(e)| tool_paths(e, errors));
    if let Some(m) = &options.matching {
        if options.tools.is_some() {
            errors.at(
                m,
                "`tools` and `matching` both choose the tools a hook acts on: keep one (`tools` for `#[tool]` functions, checked at compile time; `matching` for names known only at run time)",
            );
        } else if m.value().is_empty() {
            errors.at(
                m,
                "`matching` needs a pattern such as \"mcp_*\" (`*` matches any run of characters, `?` one character)",
            );
        }
    }
    let filter = match (tools, &options.matching) {
        (Some(paths), _) => Filter::Tools(paths),
        (None, Some(m)) => Filter::Matching(m.value()),
        (None, None) => Filter::All,
    };
    let priority = options.priority.as_ref().and_then(|RawExpr(e)| priority(e, errors));
    let on_failure = options.on_failure.as_ref().and_then(|RawExpr(e)| policy(e, errors));
    let timeout_ms = options.timeout.as_ref().and_then(|lit| {
        let ms = parse_timeout(&lit.value());
        if ms.is_none() {
            errors.at(
                lit,
                format!(
                    "invalid `timeout`: write a positive number and a unit, {TIMEOUT_UNITS}, such as \"2s\", \"500ms\" or \"1.5s\""
                ),
            );
        } else if !is_async {
            errors.at(
                lit,
                "`timeout` needs an `async fn` hook: a sync hook cannot be interrupted; make the hook `async fn`, or remove `timeout`",
            );
        }
        ms
    });

    // The signature.
    let form = event.and_then(|event| signature(event, sig, &filter, errors));
    let ret_span = match &sig.output {
        ReturnType::Default => sig.ident.span(),
        ReturnType::Type(_, ty) => ty.span(),
    };

    let (Some(event), Some(form)) = (event, form) else { return None };
    if !errors.is_empty() {
        return None;
    }
    Some(HookModel {
        krate,
        cfgs: crate::shared::cfgs(attrs),
        vis: vis.clone(),
        fn_ident: sig.ident.clone(),
        name,
        event,
        is_async,
        form,
        ret_span,
        filter,
        priority,
        on_failure,
        timeout_ms,
    })
}

/// Checks the parameters against the forms the event accepts.
fn signature(event: Event, sig: &Signature, filter: &Filter, errors: &mut Errors) -> Option<Form> {
    let params: Vec<&Type> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(p) => Some(&*p.ty),
            FnArg::Receiver(_) => None,
        })
        .collect();
    if sig.receiver().is_some() {
        return None;
    }
    let max = if event == Event::After { 2 } else { 1 };
    if params.is_empty() || params.len() > max {
        if params.is_empty() {
            errors.at_span(sig.paren_token.span.join(), forms(event));
        } else {
            errors.at(&sig.inputs, forms(event));
        }
        return None;
    }
    // `what` says what needs one tool; `instead`, how to act on several.
    let one_tool = |what: &str, instead: &str, at: &Type, errors: &mut Errors| match filter {
        Filter::Tools(paths) if paths.len() == 1 => true,
        Filter::Tools(paths) => {
            errors
                .at(at, format!("{what} of one tool, and `tools` lists {}: keep one tool, or {instead}", paths.len()));
            false
        }
        Filter::All | Filter::Matching(_) => {
            errors.at(at, format!("{what} of one tool: name it with `tools = [the_tool]`"));
            false
        }
    };
    let context = context_of(event);
    let first = params[0];
    if let (Event::Error, true, Some((false, inner))) = (event, sig.asyncness.is_some(), referent(first))
        && context_name(inner).as_deref() == Some("ErrorCall")
    {
        errors.at(
            first,
            "an async error hook takes `err: &mut ErrorCall<'_>`: a shared `&ErrorCall<'_>` is not `Send`, so it cannot be held across `.await`",
        );
        return None;
    }
    let first_form = match referent(first) {
        Some((mutable, inner)) => match context_name(inner) {
            Some(name) if name == context && (mutable || event == Event::Error) => Some(Form::Context),
            Some(_) => None,
            None if event == Event::Before && mutable => {
                if one_tool(
                    "a before hook that takes an argument struct acts on the arguments",
                    "take `call: &mut BeforeCall<'_>` and use `call.typed::<ReadFileArgs>()` for each tool",
                    inner,
                    errors,
                ) {
                    Some(Form::TypedArgs(inner.clone()))
                } else {
                    return None;
                }
            }
            None => None,
        },
        None => None,
    };
    let Some(form) = first_form else {
        errors.at(first, forms(event));
        return None;
    };
    if let Some(second) = params.get(1) {
        let Some(raw) = raw_type(second) else {
            errors.at(second, forms(event));
            return None;
        };
        if !one_tool(
            "a `raw` parameter reads the typed output",
            "drop `raw` and use `out.raw::<T>()` for each tool",
            second,
            errors,
        ) {
            return None;
        }
        return Some(Form::Raw(raw.clone()));
    }
    Some(form)
}

/// The hook's name as far as it is known, for the placeholder emitted beside a hook with
/// errors.
pub fn placeholder_name(sig: &Signature, options: &HookOptions) -> String {
    options.name.as_ref().map(LitStr::value).unwrap_or_else(|| unraw(&sig.ident))
}
