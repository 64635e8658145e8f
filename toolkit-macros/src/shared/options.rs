//! What attribute options share: an expression taken as written, and darling's errors
//! reworded in the crate's style (lowercase, code in backticks, how to write the option).

use darling::FromMeta;
use syn::Expr;

/// An expression taken as written (darling would parse a string literal's contents as
/// an expression; `default = "celsius"` means the string).
#[derive(Debug, Clone)]
pub struct RawExpr(pub Expr);

impl FromMeta for RawExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(RawExpr(expr.clone()))
    }
}

/// Rewords darling's errors ("Unknown field: `read_onyl`. Did you mean `read_only`?") in
/// the crate's style, keeping darling's spans (the unknown key; a repeated key's second
/// occurrence; the value of the wrong shape).
pub fn explain(error: darling::Error, attr: &str, keys: &[(&str, &str)]) -> Vec<syn::Error> {
    error.flatten().into_iter().map(|e| syn::Error::new(e.span(), reword(&e.to_string(), attr, keys))).collect()
}

fn reword(message: &str, attr: &str, keys: &[(&str, &str)]) -> String {
    let quoted = |s: &str| s.split('`').nth(1).map(str::to_string);
    let list = || keys.iter().map(|(k, _)| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    if let Some(rest) = message.strip_prefix("Unknown field: ") {
        let key = quoted(rest).unwrap_or_default();
        return match rest.split_once("Did you mean ").and_then(|(_, s)| quoted(s)) {
            Some(guess) => format!("unknown option `{key}` in `{attr}`: did you mean `{guess}`?"),
            None => format!("unknown option `{key}` in `{attr}`; the options are {}", list()),
        };
    }
    if let Some(rest) = message.strip_prefix("Duplicate field ") {
        let key = quoted(rest).unwrap_or_default();
        return format!("`{key}` is given twice in `{attr}`; keep one");
    }
    let shape = ["Unexpected type", "Unexpected literal type", "Unexpected meta-item format", "Unsupported shape"];
    if shape.iter().any(|p| message.starts_with(p))
        && let Some((_, location)) = message.rsplit_once(" at ")
        && let Some((key, form)) = keys.iter().find(|(k, _)| *k == location)
    {
        return if key == form {
            format!("`{key}` takes no value: write just `{key}`")
        } else {
            format!("`{key}` is written like `{form}`")
        };
    }
    let mut chars = message.chars();
    chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default()
}
