//! A parameter's default checked against the parameter's own constraints, when both are
//! written as literals: `#[arg(default = 10, maximum = 5)]` would publish a default the
//! parser then refuses on every call that leaves the parameter out, blaming the model
//! for a value it never sent. Reported at the default.
//!
//! What is checked: a number against `minimum`, `maximum` and `one_of`; a string against
//! `min_length`, `max_length`, `pattern` and the formats the runtime checks (`format`);
//! a list (`[..]` or `vec![..]`) against `min_length`, `max_length` and `items_one_of`.
//! `#[arg(default)]` counts as the literal its type's `Default` gives, for the types
//! whose `Default` is known here (numbers: `0`; `String`: `""`; `Vec` and the other
//! lists: empty). A default or a bound written as an expression (`default = LIMIT`) is
//! left to the runtime.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitInt, LitStr, Token, Type};

use super::formats;
use crate::errors::Errors;
use crate::shared::syntax::{last_segment, type_args};

/// A default as far as it is known at compile time.
enum Known {
    Number(f64),
    Text(String),
    List(Vec<Expr>),
}

/// The constraints written on the parameter, as `#[arg(...)]` gave them.
pub struct Constraints<'a> {
    pub minimum: Option<&'a Expr>,
    pub maximum: Option<&'a Expr>,
    pub one_of: Option<&'a Expr>,
    pub min_length: Option<&'a LitInt>,
    pub max_length: Option<&'a LitInt>,
    pub pattern: Option<&'a LitStr>,
    pub format: Option<&'a LitStr>,
    pub items_one_of: Option<&'a Expr>,
}

/// The numeric value of a literal (`5`, `-2`, `0.5`).
pub fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<f64>().ok(),
            Lit::Float(f) => f.base10_parse::<f64>().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => number(&u.expr).map(|v| -v),
        Expr::Paren(p) => number(&p.expr),
        Expr::Group(g) => number(&g.expr),
        _ => None,
    }
}

/// The text of a string literal, also as `"a".into()`, `"a".to_string()`,
/// `"a".to_owned()` or `String::from("a")` (how a list of strings is written).
fn text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
        Expr::Paren(p) => text(&p.expr),
        Expr::Group(g) => text(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty() && ["into", "to_string", "to_owned"].iter().any(|name| m.method == name) =>
        {
            text(&m.receiver)
        }
        Expr::Call(c)
            if c.args.len() == 1
                && matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2
                    && p.path.segments[0].ident == "String" && p.path.segments[1].ident == "from") =>
        {
            text(&c.args[0])
        }
        _ => None,
    }
}

/// The items of `[a, b]` or `vec![a, b]`.
fn list(expr: &Expr) -> Option<Vec<Expr>> {
    match expr {
        Expr::Array(a) => Some(a.elems.iter().cloned().collect()),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            m.mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated).ok().map(|p| p.into_iter().collect())
        }
        _ => None,
    }
}

fn known(expr: &Expr) -> Option<Known> {
    number(expr).map(Known::Number).or_else(|| text(expr).map(Known::Text)).or_else(|| list(expr).map(Known::List))
}

/// What `Default::default()` gives for the types whose `Default` is known from their
/// spelling.
fn known_default(ty: &Type) -> Option<Known> {
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    let plain = seg.arguments.is_none();
    match name.as_str() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "f32"
        | "f64"
            if plain =>
        {
            Some(Known::Number(0.0))
        }
        "String" if plain => Some(Known::Text(String::new())),
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" if type_args(seg).len() == 1 => Some(Known::List(Vec::new())),
        _ => None,
    }
}

/// Whether the type is spelled as a number or a `bool`, which a string cannot be.
pub fn is_scalar(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|seg| {
        seg.arguments.is_none()
            && matches!(
                seg.ident.to_string().as_str(),
                "i8" | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "isize"
                    | "u8"
                    | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "usize"
                    | "f32"
                    | "f64"
                    | "bool"
            )
    })
}

/// `5` for 5.0, `0.5` for 0.5.
fn plain(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
}

/// Checks the default (`None`: `#[arg(default)]`, the type's `Default`) against the
/// constraints; each broken one is an error at `at` (the default's value, or `default`).
pub fn check(default: Option<&Expr>, ty: &Type, c: &Constraints<'_>, at: TokenStream, errors: &mut Errors) {
    let (value, shown) = match default {
        // A list is named, not repeated.
        Some(expr) => match known(expr) {
            Some(value @ Known::List(_)) => (value, "`default`".to_string()),
            Some(value) => (value, format!("`default = {}`", expr.to_token_stream())),
            None => return,
        },
        None => match known_default(ty) {
            Some(value) => (value, "`default` (the type's `Default`, ".to_string()),
            None => return,
        },
    };
    // `#[arg(default)]` reads "`default` (the type's `Default`, 0) is below ...".
    let subject = |v: &str| if default.is_some() { shown.clone() } else { format!("{shown}{v})") };
    let fix = "every call that leaves the parameter out would be refused; give a default that keeps the constraints, or change them";
    let mut broken = |message: String| errors.at(&at, format!("{message}: {fix}"));
    match value {
        Known::Number(n) => {
            let s = subject(&plain(n));
            if let Some(min) = c.minimum.and_then(number)
                && n < min
            {
                broken(format!("{s} is below `minimum = {}`", plain(min)));
            }
            if let Some(max) = c.maximum.and_then(number)
                && n > max
            {
                broken(format!("{s} is above `maximum = {}`", plain(max)));
            }
            if let Some(values) = c.one_of.and_then(list) {
                let numbers: Option<Vec<f64>> = values.iter().map(number).collect();
                if let Some(numbers) = numbers
                    && !numbers.contains(&n)
                {
                    let listed: Vec<String> = numbers.iter().map(|v| plain(*v)).collect();
                    broken(format!("{s} is not one of `one_of = [{}]`", listed.join(", ")));
                }
            }
        }
        Known::Text(t) => {
            let s = subject("\"\"");
            let chars = t.chars().count();
            if let Some(min) = c.min_length.and_then(|l| l.base10_parse::<usize>().ok())
                && chars < min
            {
                broken(format!("{s} has {chars} characters, fewer than `min_length = {min}`"));
            }
            if let Some(max) = c.max_length.and_then(|l| l.base10_parse::<usize>().ok())
                && chars > max
            {
                broken(format!("{s} has {chars} characters, more than `max_length = {max}`"));
            }
            if let Some(p) = c.pattern
                && let Ok(re) = regex::Regex::new(&p.value())
                && !re.is_match(&t)
            {
                broken(format!("{s} does not match `pattern = {:?}`", p.value()));
            }
            if let Some(f) = c.format
                && let Some(format) = formats::checked(&f.value())
                && !(format.test)(&t)
            {
                broken(format!("{s} is not {} (`format = {:?}`, like {})", format.what, f.value(), format.example));
            }
        }
        Known::List(items) => {
            let s = subject("empty");
            let n = items.len();
            let noun = |n: usize| if n == 1 { "item" } else { "items" };
            if let Some(min) = c.min_length.and_then(|l| l.base10_parse::<usize>().ok())
                && n < min
            {
                broken(format!("{s} has {n} {}, fewer than `min_length = {min}`", noun(n)));
            }
            if let Some(max) = c.max_length.and_then(|l| l.base10_parse::<usize>().ok())
                && n > max
            {
                broken(format!("{s} has {n} {}, more than `max_length = {max}`", noun(n)));
            }
            if let Some(allowed) = c.items_one_of.and_then(list) {
                let same = |a: &Expr, b: &Expr| match (number(a), number(b), text(a), text(b)) {
                    (Some(x), Some(y), _, _) => Some(x == y),
                    (_, _, Some(x), Some(y)) => Some(x == y),
                    _ => None,
                };
                for item in &items {
                    let verdicts: Option<Vec<bool>> = allowed.iter().map(|a| same(item, a)).collect();
                    if verdicts.is_some_and(|v| !v.contains(&true)) {
                        let listed: Vec<String> = allowed.iter().map(|a| a.to_token_stream().to_string()).collect();
                        broken(format!(
                            "{s} holds `{}`, not one of `items_one_of = [{}]`",
                            item.to_token_stream(),
                            listed.join(", ")
                        ));
                        break;
                    }
                }
            }
        }
    }
}
