//! Procedural macros of `toolkit`: `#[tool]`, `#[tools]`, `toolbox!`, `#[hook]` and
//! `hooks!`.
//!
//! Use them through the `toolkit` crate, which re-exports them; generated code refers to
//! the runtime through `::toolkit` (or the path given with `crate = path`).
//!
//! Each macro is `parse` (attribute syntax, via darling) → `model` (validated; every
//! mistake collected with its span) → `expand` (code generation; cannot fail).

#![forbid(unsafe_code)]

use proc_macro::TokenStream;

mod distinct;
mod docs;
mod errors;
mod hook;
mod hooks;
mod shared;
mod tool;
mod toolbox;
mod tools;

/// Makes a function a tool a language model can call. See the `toolkit` crate.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::entry(args.into(), input.into()).into()
}

/// Makes the `#[tool]` methods of an inherent `impl` block tools. See the `toolkit` crate.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    tools::entry(args.into(), input.into()).into()
}

/// Builds a `Toolbox` whose names are checked at compile time. Use it as
/// `toolkit::toolbox!`, which passes this crate's path (`$crate`) first.
#[doc(hidden)]
#[proc_macro]
pub fn toolbox_impl(input: TokenStream) -> TokenStream {
    toolbox::entry(input.into()).into()
}

/// Makes a function a hook that governs tool calls. See the `toolkit` crate.
#[proc_macro_attribute]
pub fn hook(args: TokenStream, input: TokenStream) -> TokenStream {
    hook::entry(args.into(), input.into()).into()
}

/// Builds a `Hooks` set of `#[hook]` functions. Use it as `toolkit::hooks!`, which
/// passes this crate's path (`$crate`) first.
#[doc(hidden)]
#[proc_macro]
pub fn hooks_impl(input: TokenStream) -> TokenStream {
    hooks::entry(input.into()).into()
}
