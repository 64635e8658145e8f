//! Attribute syntax of `#[hook(...)]` (darling). Values with a grammar of their own
//! (`tools = [..]`, `priority`, `on_failure`) are taken as written here and checked in
//! `model`, so each mistake is reported at its token in the crate's words.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::Flag;
use proc_macro2::{Span, TokenStream};
use syn::{LitStr, Meta, Path};

use crate::shared::{RawExpr, explain};

/// The event a hook acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Before,
    After,
    Error,
}

impl Event {
    pub fn as_str(self) -> &'static str {
        match self {
            Event::Before => "before",
            Event::After => "after",
            Event::Error => "error",
        }
    }
}

/// The options of `#[hook(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct HookOptions {
    // The event flags are declared so darling knows the keys; `events` keeps the order
    // they were written in.
    #[allow(dead_code)]
    pub before: Flag,
    #[allow(dead_code)]
    pub after: Flag,
    #[allow(dead_code)]
    pub error: Flag,
    /// `tools = [read_file, write_file]`: paths to `#[tool]` functions.
    pub tools: Option<RawExpr>,
    /// `matching = "mcp_*"`: a tool-name pattern.
    pub matching: Option<LitStr>,
    /// `priority = 10` (or negative): higher runs first.
    pub priority: Option<RawExpr>,
    /// `on_failure = block | continue`.
    pub on_failure: Option<RawExpr>,
    /// `timeout = "2s"` (async hooks only).
    pub timeout: Option<LitStr>,
    /// The hook's name (default: the function's name).
    pub name: Option<LitStr>,
    /// The path of the runtime crate (default `::toolkit`).
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
    /// The event flags in the order they were written, for "one event" errors.
    #[darling(skip)]
    pub events: Vec<(Event, Span)>,
}

/// Each option of `#[hook(...)]` and how it is written, for error messages.
const HOOK_KEYS: &[(&str, &str)] = &[
    ("before", "before"),
    ("after", "after"),
    ("error", "error"),
    ("tools", "tools = [read_file, write_file]"),
    ("matching", "matching = \"mcp_*\""),
    ("priority", "priority = 10"),
    ("on_failure", "on_failure = block"),
    ("timeout", "timeout = \"2s\""),
    ("name", "name = \"sandbox\""),
    ("crate", "crate = ::toolkit"),
];

impl HookOptions {
    pub fn parse(args: TokenStream) -> Result<HookOptions, Vec<syn::Error>> {
        if args.is_empty() {
            return Ok(HookOptions::default());
        }
        let items = NestedMeta::parse_meta_list(args).map_err(|e| vec![e])?;
        let mut options = HookOptions::from_list(&items).map_err(|e| explain(e, "#[hook(...)]", HOOK_KEYS))?;
        for item in &items {
            if let NestedMeta::Meta(Meta::Path(path)) = item {
                let event = match path.get_ident().map(|i| i.to_string()).as_deref() {
                    Some("before") => Event::Before,
                    Some("after") => Event::After,
                    Some("error") => Event::Error,
                    _ => continue,
                };
                options.events.push((event, syn::spanned::Spanned::span(path)));
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_form_parses() {
        for (_, form) in HOOK_KEYS {
            assert!(HookOptions::parse(form.parse().unwrap()).is_ok(), "{form}");
        }
        let o = HookOptions::parse("after, on_failure = continue, priority = -5".parse().unwrap()).unwrap();
        assert_eq!(o.events.iter().map(|(e, _)| *e).collect::<Vec<_>>(), [Event::After]);
        assert!(matches!(o.on_failure, Some(RawExpr(syn::Expr::Continue(_)))));
    }

    #[test]
    fn messages_are_reworded() {
        let e = HookOptions::parse("befor".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "unknown option `befor` in `#[hook(...)]`: did you mean `before`?");
        let e = HookOptions::parse("before, priority = 1, priority = 2".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`priority` is given twice in `#[hook(...)]`; keep one");
        let e = HookOptions::parse("before, timeout = 2".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`timeout` is written like `timeout = \"2s\"`");
        let e = HookOptions::parse("before = true".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`before` takes no value: write just `before`");
        let e = HookOptions::parse("before, tools(read_file)".parse().unwrap()).unwrap_err();
        assert_eq!(e[0].to_string(), "`tools` is written like `tools = [read_file, write_file]`");
    }
}
