//! The model of one parameter: injected (`#[context]`, `#[state]`) or sent by the model,
//! with its `#[arg(...)]` options checked (each mistake reported at its token).

use darling::util::Override;
use proc_macro2::Span;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, GenericArgument, Ident, LitInt, LitStr, Pat, PathArguments, Signature, Token, Type};

use super::defaults;
use super::parse::ArgOptions;
use crate::docs::{self, Docs};
use crate::errors::Errors;
use crate::shared::RawExpr;
use crate::shared::syntax::{cfgs, last_segment, type_args, unraw};

pub struct Param {
    /// The parameter's name in the function (a field of the argument struct).
    pub binding: Ident,
    pub ty: Type,
    pub kind: ParamKind,
    /// The parameter's `#[cfg(...)]` attributes, repeated wherever it is used.
    pub cfgs: Vec<Attribute>,
}

pub enum ParamKind {
    Arg(Box<Arg>),
    Context,
    State,
}

pub struct Arg {
    pub wire: String,
    pub wire_span: Span,
    pub docs: Docs,
    pub default: Option<DefaultValue>,
    pub optional: bool,
    pub minimum: Option<syn::Expr>,
    pub maximum: Option<syn::Expr>,
    pub min_length: Option<LitInt>,
    pub max_length: Option<LitInt>,
    pub pattern: Option<LitStr>,
    /// `one_of = [..]`: the values a number may take.
    pub one_of: Option<Vec<syn::Expr>>,
    /// `format = "..."`: the JSON Schema `format` of a string.
    pub format: Option<LitStr>,
    /// `items_one_of = [..]`: the values each item of a list may take.
    pub items_one_of: Option<Vec<syn::Expr>>,
    /// `schema_with = path`: the function giving the parameter's whole schema (no
    /// constraint goes with it).
    pub schema_with: Option<syn::Path>,
    /// `header = "Region"`: the MCP header (`Mcp-Param-Region`) that carries the value.
    pub header: Option<LitStr>,
}

pub enum DefaultValue {
    /// `#[arg(default)]`: the type's `Default`.
    Inherit,
    /// `#[arg(default = expr)]`.
    Expr(syn::Expr),
}

/// Strips the helper attributes (`#[arg]`, `#[context]`, `#[state]`, parameter docs)
/// from a signature, so the function compiles as written whatever else is wrong.
pub fn clean_signature(sig: &Signature) -> Signature {
    let mut sig = sig.clone();
    for input in sig.inputs.iter_mut() {
        let attrs = match input {
            FnArg::Typed(p) => &mut p.attrs,
            FnArg::Receiver(r) => &mut r.attrs,
        };
        attrs.retain(|a| !is_helper(a));
    }
    sig
}

fn is_helper(attr: &Attribute) -> bool {
    let p = attr.path();
    docs::is_doc(attr) || p.is_ident("arg") || p.is_ident("context") || p.is_ident("state")
}

fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option" && type_args(s).len() == 1)
}

/// `f32`, `f64`, or an `Option` of one.
fn is_float(ty: &Type) -> bool {
    match last_segment(ty) {
        Some(s) if s.ident == "Option" => type_args(s).first().is_some_and(|t| is_float(t)),
        Some(s) => (s.ident == "f32" || s.ident == "f64") && s.arguments.is_none(),
        None => false,
    }
}

/// `minimum = 0` on an `f64` means `0.0`: an unsuffixed integer literal becomes a float
/// literal, so the bound has the parameter's type instead of failing with "expected
/// `f64`, found integer".
fn as_float(expr: syn::Expr) -> syn::Expr {
    match expr {
        syn::Expr::Lit(syn::ExprLit { attrs, lit: syn::Lit::Int(i) }) if i.suffix().is_empty() => {
            let lit = syn::LitFloat::new(&format!("{}.0", i.base10_digits()), i.span());
            syn::Expr::Lit(syn::ExprLit { attrs, lit: syn::Lit::Float(lit) })
        }
        syn::Expr::Unary(mut u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            *u.expr = as_float(*u.expr);
            syn::Expr::Unary(u)
        }
        other => other,
    }
}

fn contains_borrow_or_impl(ty: &Type) -> Option<&'static str> {
    struct Finder(Option<&'static str>);
    impl Finder {
        fn ty(&mut self, ty: &Type) {
            match ty {
                Type::Reference(_) => self.0 = self.0.or(Some("reference")),
                Type::ImplTrait(_) => self.0 = self.0.or(Some("impl")),
                Type::Path(p) => {
                    for seg in &p.path.segments {
                        if let PathArguments::AngleBracketed(a) = &seg.arguments {
                            for arg in &a.args {
                                match arg {
                                    GenericArgument::Type(t) => self.ty(t),
                                    GenericArgument::Lifetime(l) if l.ident != "static" => {
                                        self.0 = self.0.or(Some("lifetime"))
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                }
                Type::Array(a) => self.ty(&a.elem),
                Type::Slice(s) => self.ty(&s.elem),
                Type::Tuple(t) => t.elems.iter().for_each(|e| self.ty(e)),
                Type::Paren(p) => self.ty(&p.elem),
                Type::Group(g) => self.ty(&g.elem),
                _ => {}
            }
        }
    }
    let mut f = Finder(None);
    f.ty(ty);
    f.0
}

/// The pattern is compiled here by the same `regex` crate that checks it at run time,
/// so a pattern it would refuse there (bad syntax, or over its size limit) is an error
/// at the pattern now.
fn check_pattern(lit: &LitStr, errors: &mut Errors) {
    match regex::Regex::new(&lit.value()) {
        Ok(_) => {}
        Err(regex::Error::CompiledTooBig(limit)) => errors.at(
            lit,
            format!("`pattern` is too large: compiled, it exceeds the regex crate's size limit ({limit} bytes); simplify the pattern"),
        ),
        Err(e) => {
            let text = e.to_string();
            let last = text.lines().last().unwrap_or("invalid").trim();
            let reason = last.strip_prefix("error: ").unwrap_or(last);
            errors.at(lit, format!("`pattern` is not a valid regular expression ({reason}): fix the pattern"));
        }
    }
}

/// A header name is an HTTP token (RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``),
/// sent as `Mcp-Param-{name}`.
fn check_header(lit: &LitStr, errors: &mut Errors) {
    let name = lit.value();
    const PUNCTUATION: &str = "!#$%&'*+-.^_`|~";
    if name.is_empty() {
        errors
            .at(lit, "`header` is empty: name the header, such as `header = \"Region\"` (sent as `Mcp-Param-Region`)");
    } else if let Some(bad) = name.chars().find(|c| !c.is_ascii_alphanumeric() && !PUNCTUATION.contains(*c)) {
        errors.at(
            lit,
            format!(
                "`header` must be an HTTP token (letters, digits and ``{PUNCTUATION}``), not `{bad}`: such as `header = \"Region\"` (sent as `Mcp-Param-Region`)"
            ),
        );
    }
}

/// The formats JSON Schema (draft 2020-12) defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// A format may be any name (JSON Schema allows formats of one's own, published as
/// written), but not empty, and not a standard one misspelled in case, `-` or `_`
/// (`datetime`, `date_time`, `UUID`): a validator would ignore it without a word.
fn check_format(lit: &LitStr, errors: &mut Errors) {
    let value = lit.value();
    if value.trim().is_empty() {
        errors.at(lit, "`format` is empty: name the format, such as `format = \"date-time\"`, or remove it");
        return;
    }
    let plain = |s: &str| s.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).collect::<String>().to_lowercase();
    if !STANDARD_FORMATS.contains(&value.as_str())
        && let Some(near) = STANDARD_FORMATS.iter().find(|f| plain(f) == plain(&value))
    {
        errors.at(lit, format!("`{value}` is not a JSON Schema format: did you mean `format = \"{near}\"`?"));
    }
}

pub fn param_model(pat: &syn::PatType, errors: &mut Errors, contexts: &mut Vec<Span>) -> Option<Param> {
    let binding = match &*pat.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            errors.at(
                other,
                "tool parameters must be plain names (`location: String`): the name is the argument's name in the schema; destructure inside the body",
            );
            return None;
        }
    };
    let ty = (*pat.ty).clone();
    let cfgs = cfgs(&pat.attrs);
    let injected: Vec<&Attribute> =
        pat.attrs.iter().filter(|a| a.path().is_ident("context") || a.path().is_ident("state")).collect();
    let is_context = injected.iter().any(|a| a.path().is_ident("context"));
    let is_state = injected.iter().any(|a| a.path().is_ident("state"));
    for a in &injected {
        if !matches!(a.meta, syn::Meta::Path(_)) {
            let name = a.path().to_token_stream();
            errors.at(&a.meta, format!("`#[{name}]` takes no arguments: write `#[{name}]`"));
        }
    }
    let arg_attr = pat.attrs.iter().find(|a| a.path().is_ident("arg"));
    if is_context || is_state {
        if is_context && is_state {
            errors.at(
                injected[1],
                "a parameter is either `#[context]` (the call context) or `#[state]` (a shared value), not both: keep one",
            );
        }
        if let Some(a) = arg_attr {
            errors.at(
                a,
                "`#[arg(...)]` describes an argument the model supplies; an injected parameter takes none: remove it",
            );
        }
        if is_context {
            contexts.push(pat.pat.span());
            if contexts.len() > 1 {
                errors
                    .at(&pat.pat, "a tool takes at most one `#[context]` parameter; remove this one and use the first");
            }
        }
        let kind = if is_context { ParamKind::Context } else { ParamKind::State };
        return Some(Param { binding, ty, kind, cfgs });
    }
    let options = match ArgOptions::parse(&pat.attrs) {
        Ok(o) => o,
        Err(e) => {
            errors.extend(e);
            ArgOptions::default()
        }
    };
    match contains_borrow_or_impl(&ty) {
        Some("impl") => errors.at(
            &ty,
            "tool parameters cannot be `impl Trait`: the schema is built for one concrete type; name the type",
        ),
        Some(_) => errors.at(
            &ty,
            "tool parameters must be owned types (`String`, not `&str`): arguments are parsed from the model's JSON and outlive no borrow; mark injected values `#[context]` or `#[state]`",
        ),
        None => {}
    }
    let optional = is_option(&ty);
    let default = options.default.as_ref().map(|d| match &**d {
        Override::Inherit => DefaultValue::Inherit,
        Override::Explicit(e) => DefaultValue::Expr(e.0.clone()),
    });
    if let (true, Some(d)) = (optional, &options.default) {
        errors.at_span(
            d.span(),
            "`default` has no effect on an `Option` parameter (a missing value is already `None`): remove `default`, or make the parameter non-optional",
        );
    }
    if let Some(p) = &options.pattern {
        check_pattern(p, errors);
    }
    if let Some(f) = &options.format {
        check_format(f, errors);
    }
    if let Some(h) = &options.header {
        check_header(h, errors);
    }
    let bounds_ok = match (&options.minimum, &options.maximum) {
        (Some(min), Some(max)) => match (defaults::number(&min.0), defaults::number(&max.0)) {
            (Some(a), Some(b)) if a > b => {
                errors.at(&max.0, format!("`maximum` ({b}) is below `minimum` ({a}): no value could pass"));
                false
            }
            _ => true,
        },
        _ => true,
    };
    if let (Some(d), false, true) = (&options.default, optional, bounds_ok) {
        let (expr, at) = match &**d {
            Override::Explicit(e) => (Some(&e.0), e.0.to_token_stream()),
            Override::Inherit => (None, Ident::new("default", d.span()).to_token_stream()),
        };
        if let Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) = expr
            && defaults::is_scalar(&ty)
        {
            let ty_name = ty.to_token_stream().to_string().replace(' ', "");
            let text = s.value();
            let written = text.trim();
            let example = match ty_name.as_str() {
                "bool" if written == "true" || written == "false" => written,
                "bool" => "false",
                _ if written.parse::<f64>().is_ok() => written,
                _ => "5",
            };
            errors.at(
                s,
                format!(
                    "`default = {}` is a string, and `{ty_name}` is not: write the value without quotes, such as `default = {example}`",
                    s.to_token_stream()
                ),
            );
        } else {
            let constraints = defaults::Constraints {
                minimum: options.minimum.as_ref().map(|e| &e.0),
                maximum: options.maximum.as_ref().map(|e| &e.0),
                one_of: options.one_of.as_ref().map(|e| &e.0),
                min_length: options.min_length.as_ref(),
                max_length: options.max_length.as_ref(),
                pattern: options.pattern.as_ref(),
                format: options.format.as_ref(),
                items_one_of: options.items_one_of.as_ref().map(|e| &e.0),
            };
            defaults::check(expr, &ty, &constraints, at, errors);
        }
    }
    if let (Some(min), Some(max)) = (&options.min_length, &options.max_length)
        && let (Ok(a), Ok(b)) = (min.base10_parse::<usize>(), max.base10_parse::<usize>())
        && a > b
    {
        errors.at(max, format!("`max_length` ({b}) is below `min_length` ({a}): no value could pass"));
    }
    for lit in [&options.min_length, &options.max_length].into_iter().flatten() {
        if let Err(e) = lit.base10_parse::<usize>() {
            errors.push(e);
        }
    }
    let (wire, wire_span) = match &options.rename {
        Some(r) => {
            if r.value().is_empty() {
                errors
                    .at(r, "`rename` needs a non-empty name: write the name the model should use, or remove `rename`");
            }
            (r.value(), r.span())
        }
        None => (unraw(&binding), binding.span()),
    };
    let bound = |e: RawExpr| if is_float(&ty) { as_float(e.0) } else { e.0 };
    let one_of = options.one_of.and_then(|list| match list.0 {
        syn::Expr::Array(array) if !array.elems.is_empty() => {
            Some(array.elems.into_iter().map(bound_expr(&ty)).collect())
        }
        other => {
            errors.at(&other, "`one_of` takes a list of the values the number may take: `one_of = [1, 2, 7]`");
            None
        }
    });
    let items_one_of = options.items_one_of.and_then(|list| match list.0 {
        syn::Expr::Array(array) if !array.elems.is_empty() => {
            let item_ty = item_type(&ty).unwrap_or(&ty);
            Some(array.elems.into_iter().map(bound_expr(item_ty)).collect())
        }
        other => {
            errors.at(
                &other,
                "`items_one_of` takes a list of the values each item may take: `items_one_of = [\"news\", \"sports\"]`",
            );
            None
        }
    });
    if options.schema_with.is_some() {
        reject_beside_schema_with(&pat.attrs, errors);
    }
    let arg = Arg {
        wire,
        wire_span,
        docs: Docs::from_attrs(&pat.attrs),
        default,
        optional,
        minimum: options.minimum.map(bound),
        maximum: options.maximum.map(bound),
        min_length: options.min_length,
        max_length: options.max_length,
        pattern: options.pattern,
        one_of,
        format: options.format,
        items_one_of,
        schema_with: options.schema_with,
        header: options.header,
    };
    Some(Param { binding, ty, kind: ParamKind::Arg(Box::new(arg)), cfgs })
}

/// The options that add to the schema a parameter's type gives, and are checked when
/// parsing.
const CONSTRAINTS: &[&str] =
    &["minimum", "maximum", "one_of", "min_length", "max_length", "pattern", "format", "items_one_of"];

/// `schema_with` gives the parameter's whole schema, so a constraint beside it is an error
/// at the constraint's key: it could be neither added to a schema the macro does not know
/// (a `$ref`, an `anyOf`) nor checked without being published.
fn reject_beside_schema_with(attrs: &[Attribute], errors: &mut Errors) {
    let keys = attrs
        .iter()
        .filter(|a| a.path().is_ident("arg"))
        .filter_map(|a| a.parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated).ok())
        .flatten();
    for meta in keys {
        if let Some(key) = CONSTRAINTS.iter().find(|k| meta.path().is_ident(k)) {
            errors.at(
                meta.path(),
                format!(
                    "`{key}` cannot be combined with `schema_with`: the function gives the parameter's whole schema; write the constraint into that schema (it is then not checked when parsing), or remove `schema_with`"
                ),
            );
        }
    }
}

/// The item type of a list type as spelled (`Vec<T>`, `[T; N]`, `Option<HashSet<T>>`,
/// ...), to write `items_one_of`'s values as the items take them; `None` when the
/// spelling does not say (a type alias: the values are then taken as written).
fn item_type(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Slice(s) => Some(&s.elem),
        Type::Paren(p) => item_type(&p.elem),
        Type::Group(g) => item_type(&g.elem),
        _ => {
            let seg = last_segment(ty)?;
            let first = *type_args(seg).first()?;
            match seg.ident.to_string().as_str() {
                "Option" | "Box" => item_type(first),
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => Some(first),
                _ => None,
            }
        }
    }
}

/// A listed value as the parameter's type takes it (`1` is `1.0` for a float).
fn bound_expr(ty: &Type) -> impl Fn(syn::Expr) -> syn::Expr + '_ {
    move |e| if is_float(ty) { as_float(e) } else { e }
}
