//! The validated description of one tool. Every rule a tool definition must follow is
//! checked here, each mistake reported at its token with what to do.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, GenericParam, Ident, ReturnType, Signature, Type, Visibility};

use super::param::{Param, ParamKind, param_model};
use super::parse::ToolOptions;
use crate::docs::{self, Docs};
use crate::errors::Errors;
use crate::shared::duration::{TIMEOUT_UNITS, parse_timeout};
use crate::shared::syntax::{cfgs, last_segment, type_args, unraw};
use crate::shared::{NameProblem, check_name, checked_name};

/// Where the function stands.
pub enum Site {
    /// A free function.
    Free,
    /// A method of a `#[tools]` impl block on the type named `owner`.
    Method { owner: Ident, self_ty: Box<Type> },
}

pub struct ToolModel {
    pub krate: TokenStream,
    /// The function's `#[cfg(...)]` attributes, repeated on every companion item.
    pub cfgs: Vec<Attribute>,
    pub fn_ident: Ident,
    pub vis: Visibility,
    pub name: String,
    pub description: TokenStream,
    pub title: Option<String>,
    pub icon: Option<String>,
    pub timeout_ms: Option<u64>,
    /// `retries` and the `backoff` in milliseconds.
    pub retry: Option<(u32, u64)>,
    /// Example arguments, as JSON text.
    pub examples: Vec<String>,
    /// A free-form tool: its parameter and grammar.
    pub freeform: Option<super::grammar::Freeform>,
    /// Programs the model writes may call the tool too.
    pub programmatic: bool,
    /// Not sent to the model until `search_tools` finds it.
    pub deferred: bool,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub strict: bool,
    pub blocking: bool,
    pub is_async: bool,
    pub site: Site,
    pub params: Vec<Param>,
    pub output: OutputKind,
    /// The return type (or the name, for `()`): where a hidden error-type check points
    /// when the type is an alias such as `io::Result<T>`.
    pub output_span: Span,
    /// `Tool::Output`: the success type (`T` of `-> T` and `-> Result<T, E>`, `()` for
    /// none), nameable outside the function (lifetimes `'static`, `Self` resolved).
    pub output_ty: Type,
    /// Whether the typed output is kept for after hooks (`Output::with_raw`): a JSON
    /// output whose type borrows nothing.
    pub keeps_raw: bool,
    pub args_ident: Ident,
    pub handle_ident: Ident,
}

pub enum OutputKind {
    Unit,
    Text,
    /// Sent as JSON; the type is `ToolModel::output_ty`.
    Json,
    /// Text and parts (images, audio, files, links): `toolkit::Output`, a part type, a
    /// `Part` or a `Vec<Part>`, turned into an `Output` by `IntoOutput`.
    Parts,
    Result {
        ok: Box<OutputKind>,
        err: Option<Box<Type>>,
    },
}

impl OutputKind {
    /// Whether a success is sent as JSON (a `Result`'s `Ok` decides).
    fn is_json(&self) -> bool {
        match self {
            OutputKind::Json => true,
            OutputKind::Result { ok, .. } => matches!(**ok, OutputKind::Json),
            OutputKind::Unit | OutputKind::Text | OutputKind::Parts => false,
        }
    }
}

fn name_problem(name: &str) -> Option<String> {
    check_name(name).map(|problem| match problem {
        NameProblem::Empty => {
            "a tool name cannot be empty: write the name the model calls the tool by, or remove `name` to use the function's name"
                .into()
        }
        NameProblem::TooLong(len) => format!(
            "tool name `{name}` is {len} characters long; providers accept at most 64: shorten it with `#[tool(name = \"...\")]`"
        ),
        NameProblem::Char(what) => format!(
            "tool name `{name}` contains {what}; providers accept only ASCII letters, digits, `_` and `-`: rename it with `#[tool(name = \"...\")]`"
        ),
    })
}

/// Whether `src` can be a tool's icon: an `https://` URL with a host, or a `data:image/`
/// URI with its data (what MCP clients fetch or show; they are told to refuse others).
fn check_icon(src: &str) -> Result<(), String> {
    let example = "such as \"https://example.com/weather.svg\" or \"data:image/png;base64,...\"";
    if let Some(rest) = src.strip_prefix("https://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.is_empty() || src.chars().any(char::is_whitespace) {
            return Err(format!("invalid `icon`: an `https://` URL needs a host and no spaces, {example}"));
        }
        return Ok(());
    }
    if let Some(rest) = src.strip_prefix("data:image/") {
        if rest.split_once(',').is_none_or(|(_, data)| data.is_empty()) {
            return Err(format!("invalid `icon`: a `data:` URI needs its data after a comma, {example}"));
        }
        return Ok(());
    }
    Err(format!(
        "invalid `icon`: write an `https://` URL or a `data:image/` URI, {example} (MCP clients refuse other schemes)"
    ))
}

/// `name` as the start of a type name: `_` before one that would start with a digit
/// (`_2fa_verify` camel-cased is `2faVerify`, not an identifier).
fn type_name(name: &str) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) { format!("_{name}") } else { name.to_string() }
}

/// `get_weather` → `GetWeather`.
pub fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// The success type as the `Tool` impl can name it: every lifetime `'static` (the
/// function's own lifetimes are not in scope there) and, in a method, `Self` replaced by
/// the type of the `impl` block. Also says whether any lifetime had to be replaced: such
/// a value borrows, and is not kept for after hooks.
fn nameable(mut ty: Type, self_ty: Option<&Type>) -> (Type, bool) {
    use syn::visit_mut::{self, VisitMut};
    struct Fix<'a> {
        self_ty: Option<&'a Type>,
        borrows: bool,
    }
    impl VisitMut for Fix<'_> {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let (Type::Path(p), Some(self_ty)) = (&*ty, self.self_ty)
                && p.qself.is_none()
                && p.path.segments.first().is_some_and(|s| s.ident == "Self")
            {
                let rest: Vec<_> = p.path.segments.iter().skip(1).cloned().collect();
                *ty = if rest.is_empty() { self_ty.clone() } else { syn::parse_quote!(<#self_ty>::#(#rest)::*) };
            }
            visit_mut::visit_type_mut(self, ty);
        }
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            if r.lifetime.is_none() {
                self.borrows = true;
                r.lifetime = Some(syn::Lifetime::new("'static", r.and_token.span()));
            }
            visit_mut::visit_type_reference_mut(self, r);
        }
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            if l.ident != "static" {
                self.borrows = true;
                *l = syn::Lifetime::new("'static", l.span());
            }
        }
        // Lifetimes there are bound by the type itself (`for<'a> fn(&'a str)`).
        fn visit_type_fn_ptr_mut(&mut self, _: &mut syn::TypeFnPtr) {}
        fn visit_type_trait_object_mut(&mut self, _: &mut syn::TypeTraitObject) {}
    }
    let mut fix = Fix { self_ty, borrows: false };
    fix.visit_type_mut(&mut ty);
    (ty, fix.borrows)
}

/// The output types sent as text and parts (`toolkit::Output` and `toolkit::parts`'s).
const PART_TYPES: [&str; 6] = ["Output", "Image", "Audio", "File", "ResourceLink", "Part"];

fn classify_output(ty: &Type, errors: &mut Errors, top: bool) -> OutputKind {
    match ty {
        Type::Tuple(t) if t.elems.is_empty() => OutputKind::Unit,
        Type::Reference(r) if last_segment(&r.elem).is_some_and(|s| s.ident == "str") => OutputKind::Text,
        Type::ImplTrait(_) => {
            errors.at(
                ty,
                "a tool must return a named type, not `impl Trait`: the runtime serializes it and publishes its schema",
            );
            OutputKind::Unit
        }
        Type::Reference(_) => {
            errors.at(
                ty,
                "a tool must return an owned value (or `&'static str`): return `String` or a type that owns its data",
            );
            OutputKind::Unit
        }
        _ => match last_segment(ty) {
            Some(s) if s.ident == "String" => OutputKind::Text,
            // The types of `toolkit::parts` (and `Output`): by name, like `String`; a
            // type of another crate with one of these names gets `IntoOutput`'s message.
            Some(s) if PART_TYPES.iter().any(|t| s.ident == t) && s.arguments.is_none() => OutputKind::Parts,
            Some(s)
                if s.ident == "Vec"
                    && type_args(s).first().is_some_and(|t| last_segment(t).is_some_and(|s| s.ident == "Part")) =>
            {
                OutputKind::Parts
            }
            Some(s)
                if s.ident == "Cow"
                    && type_args(s).first().is_some_and(|t| last_segment(t).is_some_and(|s| s.ident == "str")) =>
            {
                OutputKind::Text
            }
            Some(s) if s.ident == "Result" && top => {
                let args = type_args(s);
                let ok = match args.first() {
                    Some(t) => classify_output(t, errors, false),
                    None => OutputKind::Unit,
                };
                OutputKind::Result { ok: Box::new(ok), err: args.get(1).map(|t| Box::new((*t).clone())) }
            }
            _ => OutputKind::Json,
        },
    }
}

/// Builds the model of one tool, or the list of everything wrong with it. Each rule is a
/// function of its own below, called in the order its errors are reported.
pub fn build(
    options: ToolOptions,
    attrs: &[Attribute],
    vis: &Visibility,
    sig: &Signature,
    site: Site,
    errors: &mut Errors,
) -> Option<ToolModel> {
    let krate = options.krate();
    check_signature(sig, errors);
    let is_async = sig.asyncness.is_some();
    let blocking = options.blocking.is_present();
    check_flags(&options, is_async, errors);
    let name = checked_name(options.name.as_ref(), &sig.ident, name_problem, errors);
    let description = description(&options, attrs, sig, errors);
    let timeout_ms = timeout(&options, errors);
    let retry = super::retry::retry_policy(&options, errors);
    let icon = icon(&options, errors);
    let mut params = parameters(sig, &site, &options, blocking, errors);
    let freeform = super::grammar::freeform(&options, &mut params, &sig.ident, errors);
    for example in &options.examples {
        super::examples::check(example, &params, errors);
    }
    check_method(sig, &site, errors);
    let (output, output_span) = match &sig.output {
        ReturnType::Default => (OutputKind::Unit, sig.ident.span()),
        ReturnType::Type(_, ty) => (classify_output(ty, errors, true), ty.span()),
    };
    let (output_ty, borrows) = output_type(sig, &output, &site);
    let json = output.is_json();
    check_programmatic(&options, &output, output_span, errors);
    let (args_ident, handle_ident) = idents(sig, &site);

    if !errors.is_empty() {
        return None;
    }
    Some(ToolModel {
        krate,
        cfgs: cfgs(attrs),
        fn_ident: sig.ident.clone(),
        vis: vis.clone(),
        name,
        description,
        title: options.title.map(|t| t.value()),
        icon,
        timeout_ms,
        retry,
        examples: options.examples.iter().map(|e| e.value.to_json()).collect(),
        freeform,
        programmatic: options.programmatic.is_present(),
        deferred: options.defer.is_present(),
        read_only: options.read_only.is_present(),
        destructive: options.destructive.is_present(),
        idempotent: options.idempotent.is_present(),
        open_world: options.open_world.is_present(),
        strict: options.strict.is_present(),
        blocking,
        is_async,
        site,
        params,
        output,
        output_span,
        output_ty,
        keeps_raw: json && !borrows,
        args_ident,
        handle_ident,
    })
}

/// The function itself: not `unsafe`, not `extern`, not variadic, not generic (lifetimes
/// are fine).
fn check_signature(sig: &Signature, errors: &mut Errors) {
    if let syn::Safety::Unsafe(t) = &sig.safety {
        errors.at(t, "a tool cannot be `unsafe fn`: the runtime calls it with model-supplied arguments; keep the `unsafe` block inside a safe function");
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "a tool cannot have an `extern` ABI: the runtime calls it as a Rust function");
    }
    if let Some(v) = &sig.variadic {
        errors.at(v, "a tool cannot be variadic: take a `Vec` parameter instead");
    }
    for g in &sig.generics.params {
        match g {
            GenericParam::Lifetime(_) => {}
            GenericParam::Type(_) | GenericParam::Const(_) => errors.at(
                g,
                "a tool cannot be generic: its schema is built for one concrete type per parameter; pick the type (or write one tool per type)",
            ),
        }
    }
}

/// Flags that contradict the function or each other.
fn check_flags(options: &ToolOptions, is_async: bool, errors: &mut Errors) {
    if options.blocking.is_present() && is_async {
        errors.at_span(
            options.blocking.span(),
            "`blocking` is for sync functions that block; an `async fn` already runs on the async workers (remove `blocking`, or make the function sync)",
        );
    }
    if options.read_only.is_present() && options.destructive.is_present() {
        errors.at_span(
            options.destructive.span(),
            "a tool cannot be both `read_only` and `destructive`: keep the one that is true",
        );
    }
}

/// The description: `description = "..."` (not empty), else the doc comment (required).
fn description(options: &ToolOptions, attrs: &[Attribute], sig: &Signature, errors: &mut Errors) -> TokenStream {
    let docs = Docs::from_attrs(attrs);
    match &options.description {
        Some(lit) if lit.value().trim().is_empty() => {
            errors.at(lit, "`description` is empty: say what the tool does and when to use it");
            quote!("")
        }
        Some(lit) => {
            let t = docs::tidy(&[lit.value()]);
            quote!(#t)
        }
        None if docs.is_empty() => {
            errors.at(
                &sig.ident,
                "`#[tool]` needs a doc comment describing what the tool does and when to use it: the model decides by it (or give `#[tool(description = \"...\")]`)",
            );
            quote!("")
        }
        None => docs.to_tokens(),
    }
}

/// `timeout = "..."` in milliseconds.
fn timeout(options: &ToolOptions, errors: &mut Errors) -> Option<u64> {
    options.timeout.as_ref().and_then(|lit| match parse_timeout(&lit.value()) {
        Some(ms) => Some(ms),
        None => {
            errors.at(
                lit,
                format!(
                    "invalid `timeout`: write a positive number and a unit, {TIMEOUT_UNITS}, such as \"10s\", \"500ms\", \"1.5s\" or \"2 min\""
                ),
            );
            None
        }
    })
}

/// `icon = "..."`, checked by [`check_icon`].
fn icon(options: &ToolOptions, errors: &mut Errors) -> Option<String> {
    options.icon.as_ref().and_then(|lit| match check_icon(&lit.value()) {
        Ok(()) => Some(lit.value()),
        Err(problem) => {
            errors.at(lit, problem);
            None
        }
    })
}

/// The parameters: the receiver where one belongs, and each parameter's model with the
/// rules between parameters (wire names and headers unique, docs when required, what a
/// `blocking` tool cannot take).
fn parameters(sig: &Signature, site: &Site, options: &ToolOptions, blocking: bool, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    let mut contexts = Vec::new();
    let mut seen: Vec<(String, Span)> = Vec::new();
    // Header names and the parameters they carry.
    let mut headers: Vec<(String, String)> = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => check_receiver(r, site, errors),
            FnArg::Typed(p) => {
                let Some(param) = param_model(p, errors, &mut contexts) else { continue };
                if let ParamKind::Arg(a) = &param.kind {
                    if a.docs.is_empty() && options.require_param_docs.is_present() {
                        errors.at(
                            &param.binding,
                            format!(
                                "parameter `{}` has no doc comment, and this tool has `require_param_docs`: the model reads what to send from it; add `/// ...` above the parameter",
                                param.binding
                            ),
                        );
                    }
                    if let Some(header) = &a.header {
                        let name = header.value();
                        if let Some((earlier, first)) = headers.iter().find(|(h, _)| h.eq_ignore_ascii_case(&name)) {
                            errors.at(
                                header,
                                format!("header `{name}` is the same as `{earlier}`, the header of parameter `{first}` (header names ignore case): give each parameter a header of its own"),
                            );
                        }
                        headers.push((name, a.wire.clone()));
                    }
                    if seen.iter().any(|(w, _)| *w == a.wire) {
                        errors.at_span(
                            a.wire_span,
                            format!("two parameters are named `{}` on the wire; give one another name with `#[arg(rename = \"...\")]`", a.wire),
                        );
                    }
                    seen.push((a.wire.clone(), a.wire_span));
                }
                if blocking {
                    check_blocking_param(p, &param, errors);
                }
                params.push(param);
            }
        }
    }
    params
}

/// `self` only in a `#[tools]` impl block, and there as `&self`.
fn check_receiver(r: &syn::Receiver, site: &Site, errors: &mut Errors) {
    match site {
        Site::Free => errors.at(
            r,
            "`self` in a `#[tool]` outside a tool impl block: put `#[tools]` on the `impl` block so the tool can reach its value",
        ),
        Site::Method { .. } => {
            if !matches!(&r.kind, syn::ReceiverKind::Reference(_, _, None)) {
                errors.at(
                    r,
                    "a tool method takes `&self`: calls run concurrently on one shared value (use interior mutability such as a `Mutex` for state that changes)",
                );
            }
        }
    }
}

/// What a `blocking` tool, which runs on another thread, cannot take: borrowed state, the
/// call context.
fn check_blocking_param(p: &syn::PatType, param: &Param, errors: &mut Errors) {
    if matches!(param.kind, ParamKind::State) && matches!(param.ty, Type::Reference(_)) {
        errors.at(&p.ty, "a `blocking` tool runs on another thread and cannot borrow `#[state]`: take it as `Arc<T>`");
    }
    if matches!(param.kind, ParamKind::Context) {
        errors.at(
            &p.pat,
            "a `blocking` tool cannot take the call context (it runs on another thread); read what you need in an async tool, or drop `#[context]`",
        );
    }
}

/// In a `#[tools]` block, a tool is a method (it takes `&self`).
fn check_method(sig: &Signature, site: &Site, errors: &mut Errors) {
    if let (Site::Method { .. }, false) = (site, matches!(sig.inputs.first(), Some(FnArg::Receiver(_)))) {
        errors.at(
            &sig.ident,
            "a `#[tool]` in a `#[tools]` impl block is a method taking `&self`; move associated functions out of the block and mark them `#[tool]` there",
        );
    }
}

/// The type of a successful output (a `Result`'s `Ok` type), nameable outside the
/// function, and whether it borrows.
fn output_type(sig: &Signature, output: &OutputKind, site: &Site) -> (Type, bool) {
    let success = match (&sig.output, output) {
        (ReturnType::Default, _) => syn::parse_quote!(()),
        (ReturnType::Type(_, ty), OutputKind::Result { .. }) => {
            last_segment(ty).and_then(|s| type_args(s).first().map(|t| (*t).clone())).unwrap_or(syn::parse_quote!(()))
        }
        (ReturnType::Type(_, ty), _) => (**ty).clone(),
    };
    let self_ty = match site {
        Site::Free => None,
        Site::Method { self_ty, .. } => Some(&**self_ty),
    };
    nameable(success, self_ty)
}

/// A `programmatic` tool returns JSON (a program reads it).
fn check_programmatic(options: &ToolOptions, output: &OutputKind, output_span: Span, errors: &mut Errors) {
    if !options.programmatic.is_present() || output.is_json() {
        return;
    }
    let ok = match output {
        OutputKind::Result { ok, .. } => &**ok,
        other => other,
    };
    let what = match ok {
        OutputKind::Unit => "nothing",
        OutputKind::Parts => "text and parts",
        _ => "text",
    };
    errors.at_span(
        output_span,
        format!("a `programmatic` tool returns JSON the program that calls it reads, and this one returns {what}: return a struct that derives `Serialize` and `JsonSchema`"),
    );
}

/// The generated argument struct's name, and the handle `toolbox!` names the tool by.
fn idents(sig: &Signature, site: &Site) -> (Ident, Ident) {
    match site {
        Site::Free => (format_ident!("{}Args", type_name(&camel(&unraw(&sig.ident)))), sig.ident.clone()),
        Site::Method { owner, .. } => (
            format_ident!("{}{}Args", unraw(owner), camel(&unraw(&sig.ident))),
            format_ident!("__toolkit_{}_{}", unraw(owner), unraw(&sig.ident)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(name_problem("get_weather").is_none());
        assert!(name_problem("a-b_C9").is_none());
        assert!(name_problem(&"x".repeat(65)).is_some());
        assert!(name_problem("météo").is_some());
        assert_eq!(camel("get_weather"), "GetWeather");
    }
}
