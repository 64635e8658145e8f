//! `#[tool(example = {...})]`: an example of the arguments, written as JSON in the
//! attribute (read by [`super::json`]) and checked against the parameters where the
//! macro can (names, presence, the JSON type of plain types); a generated test parses
//! each example as the tool parses a call.

use super::json::{Example, Json};
use super::param::{Param, ParamKind};
use crate::errors::Errors;
use crate::shared::syntax::last_segment;

/// Checks an example against the parameters where the macro can: every key is a
/// parameter, every required parameter is there, and a plain type (text, integer,
/// number, boolean) has a value of its JSON type. The rest (nested types, constraints)
/// is checked by the generated test.
pub fn check(example: &Example, params: &[Param], errors: &mut Errors) {
    let Json::Object(fields) = &example.value else { return };
    let args: Vec<&super::param::Arg> = params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::Arg(a) => Some(&**a),
            _ => None,
        })
        .collect();
    for (key, span, value) in fields {
        let Some((arg, param)) = args
            .iter()
            .zip(params.iter().filter(|p| matches!(p.kind, ParamKind::Arg(_))))
            .find(|(a, _)| a.wire == *key)
        else {
            let names = args.iter().map(|a| format!("`{}`", a.wire)).collect::<Vec<_>>().join(", ");
            let hint = if names.is_empty() {
                "this tool takes no arguments".to_owned()
            } else {
                format!("its parameters are {names}")
            };
            errors.at_span(*span, format!("\"{key}\" is not a parameter of this tool: {hint}"));
            continue;
        };
        let null_for_optional = matches!(value, Json::Null) && arg.optional;
        if let Some(expected) = plain_kind(&param.ty, arg.optional)
            && !null_for_optional
            && !expected.accepts(value)
        {
            errors.at_span(
                *span,
                format!(
                    "\"{key}\" is {}, so its example is {}, not {}",
                    expected.what(),
                    expected.article(),
                    value.to_json()
                ),
            );
        }
    }
    for arg in &args {
        let required = arg.default.is_none() && !arg.optional;
        if required && !fields.iter().any(|(k, _, _)| *k == arg.wire) {
            errors.at_span(
                example.span,
                format!("this example leaves out `{}`, which the tool requires: add \"{}\": ...", arg.wire, arg.wire),
            );
        }
    }
}

/// The JSON type of a plain parameter type.
#[derive(Clone, Copy)]
enum Plain {
    Text,
    Integer,
    Number,
    Boolean,
}

impl Plain {
    fn accepts(self, value: &Json) -> bool {
        match (self, value) {
            (_, Json::Null) => false,
            (Plain::Text, Json::String(_)) | (Plain::Boolean, Json::Bool(_)) | (Plain::Number, Json::Number(_)) => true,
            (Plain::Integer, Json::Number(n)) => !n.contains(['.', 'e', 'E']),
            _ => false,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Plain::Text => "text",
            Plain::Integer => "an integer",
            Plain::Number => "a number",
            Plain::Boolean => "a boolean",
        }
    }

    fn article(self) -> &'static str {
        match self {
            Plain::Text => "a string",
            Plain::Integer => "an integer",
            Plain::Number => "a number",
            Plain::Boolean => "`true` or `false`",
        }
    }
}

/// The plain kind of `ty` (through `Option` for an optional parameter), if it has one.
fn plain_kind(ty: &syn::Type, optional: bool) -> Option<Plain> {
    let mut seg = last_segment(ty)?;
    if optional && seg.ident == "Option" {
        let inner = crate::shared::syntax::type_args(seg).first().copied()?;
        seg = last_segment(inner)?;
    }
    let name = seg.ident.to_string();
    Some(match name.as_str() {
        "String" | "str" => Plain::Text,
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            Plain::Integer
        }
        "f32" | "f64" => Plain::Number,
        "bool" => Plain::Boolean,
        _ => return None,
    })
}
