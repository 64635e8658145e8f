//! Attribute syntax: `#[tool(...)]` and, on parameters, `#[arg(...)]`, `#[context]`,
//! `#[state]`. Unknown keys are errors with a did-you-mean (darling).

use darling::util::{Flag, Override};
use darling::{FromAttributes, FromMeta};
use proc_macro2::TokenStream;
use syn::{Expr, LitInt, LitStr, Path};

/// The options of `#[tool(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct ToolOptions {
    /// The name the model calls the tool by (default: the function's name).
    pub name: Option<LitStr>,
    /// A human title (MCP `title`).
    pub title: Option<LitStr>,
    /// Replaces the doc comment as the description.
    pub description: Option<LitStr>,
    /// Per-call timeout: `"10s"`, `"500ms"`, `"2m"`.
    pub timeout: Option<LitStr>,
    pub read_only: Flag,
    pub destructive: Flag,
    pub idempotent: Flag,
    pub open_world: Flag,
    pub strict: Flag,
    /// A sync function that blocks: runs on the blocking pool.
    pub blocking: Flag,
    /// The path of the runtime crate (default `::toolkit`).
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

impl ToolOptions {
    pub fn parse(args: TokenStream) -> darling::Result<ToolOptions> {
        if args.is_empty() {
            return Ok(ToolOptions::default());
        }
        let items = darling::ast::NestedMeta::parse_meta_list(args)?;
        ToolOptions::from_list(&items)
    }
}

/// An expression taken as written (darling would parse a string literal's contents as
/// an expression; `default = "celsius"` means the string).
#[derive(Debug, Clone)]
pub struct RawExpr(pub Expr);

impl FromMeta for RawExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(RawExpr(expr.clone()))
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
}
