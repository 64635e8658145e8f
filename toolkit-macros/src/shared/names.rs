//! Names: the rule tool and hook names share, and a name checked where it was written.

use quote::ToTokens;

use super::syntax::unraw;
use crate::errors::Errors;

/// What breaks the name rule `^[a-zA-Z0-9_-]{1,64}$` (accepted by every provider), which
/// tool and hook names share.
pub enum NameProblem {
    Empty,
    TooLong(usize),
    /// The first character outside the rule, described (`a space`, `'é'`).
    Char(String),
}

pub fn check_name(name: &str) -> Option<NameProblem> {
    if name.is_empty() {
        return Some(NameProblem::Empty);
    }
    if name.len() > 64 {
        return Some(NameProblem::TooLong(name.len()));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(|c| NameProblem::Char(if c == ' ' { "a space".to_string() } else { format!("{c:?}") }))
}

/// The name given with `name = "..."`, else the function's (without `r#`), checked by
/// `problem` and reported at the token it came from. Shared by `#[tool]` and `#[hook]`,
/// which word their problems differently.
pub fn checked_name(
    given: Option<&syn::LitStr>,
    ident: &syn::Ident,
    problem: fn(&str) -> Option<String>,
    errors: &mut Errors,
) -> String {
    let (name, at) = match given {
        Some(lit) => (lit.value(), lit.to_token_stream()),
        None => (unraw(ident), ident.to_token_stream()),
    };
    if let Some(p) = problem(&name) {
        errors.at(at, p);
    }
    name
}
