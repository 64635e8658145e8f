//! Attribute syntax: `#[tool(...)]` and, on parameters, `#[arg(...)]`, `#[context]`,
//! `#[state]`. Unknown keys are errors with a did-you-mean (darling), reworded in our
//! style: lowercase, code in backticks, and how to write the option.

use darling::util::{Flag, Override};
use darling::{FromAttributes, FromMeta};
use proc_macro2::TokenStream;

use crate::shared::{RawExpr, explain};
use syn::{Attribute, LitInt, LitStr, Path};

/// The options of `#[tool(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct ToolOptions {
    /// The name the model calls the tool by (default: the function's name).
    pub name: Option<LitStr>,
    /// A human title (MCP `title`).
    pub title: Option<LitStr>,
    /// An icon a client may show (MCP `icons`): an `https://` URL or a `data:image/` URI.
    pub icon: Option<LitStr>,
    /// Replaces the doc comment as the description.
    pub description: Option<LitStr>,
    /// Per-call timeout: `"10s"`, `"500ms"`, `"2m"` (see `model::parse_timeout`).
    pub timeout: Option<LitStr>,
    /// How many times a failed call is run again: `retries = 3`.
    pub retries: Option<LitInt>,
    /// The pause before the first retry: `backoff = "200ms"`.
    pub backoff: Option<LitStr>,
    pub read_only: Flag,
    pub destructive: Flag,
    pub idempotent: Flag,
    pub open_world: Flag,
    pub strict: Flag,
    /// A sync function that blocks: runs on the blocking pool.
    pub blocking: Flag,
    /// Every parameter the model sends must have a doc comment.
    pub require_param_docs: Flag,
    /// The model writes the one `String` parameter as plain text (an OpenAI custom tool).
    pub freeform: Flag,
    /// A free-form tool whose text follows this Lark grammar.
    pub lark: Option<LitStr>,
    /// A free-form tool whose text matches this regular expression.
    pub regex: Option<LitStr>,
    /// Programs the model writes may call the tool too (programmatic tool calling).
    pub programmatic: Flag,
    /// Not sent to the model until `search_tools` finds it.
    pub defer: Flag,
    /// The path of the runtime crate (default `::toolkit`).
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
    /// `example = {...}`, each (taken out before darling reads the rest).
    #[darling(skip)]
    pub examples: Vec<super::json::Example>,
}

/// Each option of `#[tool(...)]` and how it is written, for error messages.
const TOOL_KEYS: &[(&str, &str)] = &[
    ("name", "name = \"get_weather\""),
    ("title", "title = \"Get weather\""),
    ("icon", "icon = \"https://example.com/weather.svg\""),
    ("description", "description = \"...\""),
    ("timeout", "timeout = \"10s\""),
    ("example", "example = {\"location\": \"Paris\"}"),
    ("retries", "retries = 3"),
    ("backoff", "backoff = \"200ms\""),
    ("read_only", "read_only"),
    ("destructive", "destructive"),
    ("idempotent", "idempotent"),
    ("open_world", "open_world"),
    ("strict", "strict"),
    ("blocking", "blocking"),
    ("require_param_docs", "require_param_docs"),
    ("freeform", "freeform"),
    ("lark", "lark = \"start: ...\""),
    ("regex", "regex = \"[0-9]+\""),
    ("programmatic", "programmatic"),
    ("defer", "defer"),
    ("crate", "crate = ::toolkit"),
];

impl ToolOptions {
    pub fn parse(args: TokenStream) -> Result<ToolOptions, Vec<syn::Error>> {
        if args.is_empty() {
            return Ok(ToolOptions::default());
        }
        let mut errors = Vec::new();
        let (args, examples) = super::json::take_examples(args, &mut errors);
        let items = darling::ast::NestedMeta::parse_meta_list(args).map_err(|e| vec![e])?;
        let mut options = ToolOptions::from_list(&items).map_err(|e| explain(e, "#[tool(...)]", TOOL_KEYS))?;
        if !errors.is_empty() {
            return Err(errors);
        }
        options.examples = examples;
        Ok(options)
    }

    /// The path generated code reaches the runtime by: `crate = path`, or `::toolkit`.
    pub fn krate(&self) -> TokenStream {
        match &self.krate {
            Some(path) => quote::ToTokens::to_token_stream(path),
            None => quote::quote!(::toolkit),
        }
    }
}

/// The options of `#[arg(...)]` on a parameter.
#[derive(Debug, Default, FromAttributes)]
#[darling(attributes(arg))]
pub struct ArgOptions {
    /// `default` (the type's `Default`) or `default = expr`.
    pub default: Option<darling::util::SpannedValue<Override<RawExpr>>>,
    /// The name on the wire.
    pub rename: Option<LitStr>,
    pub minimum: Option<RawExpr>,
    pub maximum: Option<RawExpr>,
    pub min_length: Option<LitInt>,
    pub max_length: Option<LitInt>,
    pub pattern: Option<LitStr>,
    /// The values a number may take: `one_of = [1, 2, 7, 13]`.
    pub one_of: Option<RawExpr>,
    /// The JSON Schema `format` of a string: `format = "date-time"`.
    pub format: Option<LitStr>,
    /// The values each item of a list may take: `items_one_of = ["news", "sports"]`.
    pub items_one_of: Option<RawExpr>,
    /// The function giving the parameter's whole schema: `schema_with = my_schema`.
    pub schema_with: Option<Path>,
    /// The MCP header that carries the value: `header = "Region"` (`Mcp-Param-Region`).
    pub header: Option<LitStr>,
}

/// Each option of `#[arg(...)]` and how it is written, for error messages.
const ARG_KEYS: &[(&str, &str)] = &[
    ("default", "default = 5"),
    ("rename", "rename = \"type\""),
    ("minimum", "minimum = 1"),
    ("maximum", "maximum = 100"),
    ("min_length", "min_length = 1"),
    ("max_length", "max_length = 200"),
    ("pattern", "pattern = \"^[a-z]+$\""),
    ("one_of", "one_of = [1, 2, 7]"),
    ("format", "format = \"date-time\""),
    ("items_one_of", "items_one_of = [\"news\", \"sports\"]"),
    ("schema_with", "schema_with = path::to::function"),
    ("header", "header = \"Region\""),
];

impl ArgOptions {
    pub fn parse(attrs: &[Attribute]) -> Result<ArgOptions, Vec<syn::Error>> {
        ArgOptions::from_attributes(attrs).map_err(|e| explain(e, "#[arg(...)]", ARG_KEYS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_form_parses() {
        for (_, form) in TOOL_KEYS {
            assert!(ToolOptions::parse(form.parse().unwrap()).is_ok(), "{form}");
        }
        for (_, form) in ARG_KEYS {
            let tokens: TokenStream = form.parse().unwrap();
            let attr: Attribute = syn::parse_quote!(#[arg(#tokens)]);
            assert!(ArgOptions::parse(&[attr]).is_ok(), "{form}");
        }
    }

    #[test]
    fn messages_are_reworded() {
        let e = ToolOptions::parse("read_onyl".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "unknown option `read_onyl` in `#[tool(...)]`: did you mean `read_only`?");
        let e = ToolOptions::parse("name = \"a\", name = \"b\"".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`name` is given twice in `#[tool(...)]`; keep one");
        let e = ToolOptions::parse("timeout = 10".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`timeout` is written like `timeout = \"10s\"`");
        let e = ToolOptions::parse("read_only = true".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`read_only` takes no value: write just `read_only`");
    }
}
