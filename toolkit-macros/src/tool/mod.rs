//! `#[tool]` on a free function.

mod args;
mod checks;
mod constraints;
mod defaults;
mod examples;
mod expand;
mod formats;
mod grammar;
mod json;
mod model;
mod param;
mod parse;
mod placeholder;
mod retry;

pub use expand::companions;
pub use model::{Site, build};
pub use param::clean_signature;
pub use parse::ToolOptions;
pub use placeholder::{orphan_method_accessor, placeholder, unmarked_method};

use proc_macro2::TokenStream;
use quote::quote;

use crate::shared::{RawFn, cfgs, parse_fn, unraw};

use crate::errors::Errors;

pub fn entry(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match parse_fn(
        input,
        "`#[tool]` goes on a function (`fn` or `async fn`); for methods, put `#[tools]` on the `impl` block and `#[tool]` on each method",
    ) {
        Ok(item) => item,
        Err(tokens) => return tokens,
    };
    let mut errors = Errors::default();
    let options = match ToolOptions::parse(args) {
        Ok(o) => o,
        Err(e) => {
            errors.extend(e);
            ToolOptions::default()
        }
    };
    let krate = options.krate();
    let clean = clean_signature(&item.sig);
    let RawFn { attrs, vis, body, .. } = &item;
    let function = quote!(#(#attrs)* #vis #clean #body);
    match build(options, attrs, vis, &item.sig, Site::Free, &mut errors) {
        Some(model) if errors.is_empty() => {
            let companions = companions(&model);
            quote!(#function #companions)
        }
        // A function taking `self` sits in an `impl` block, where the placeholder's
        // struct could not go: emit the error, the function, and the accessor `toolbox!`
        // calls for `value.method` (its placeholder tool declared inside it), so listing
        // the method adds no second error about a missing `__toolkit_tool_...`.
        _ if item.sig.receiver().is_some() => {
            let errs = errors.to_compile_errors();
            let name = unraw(&item.sig.ident);
            let accessor = orphan_method_accessor(&krate, &cfgs(attrs), vis, &item.sig.ident, &name);
            quote!(#errs #function #accessor)
        }
        _ => {
            let errs = errors.to_compile_errors();
            let name = unraw(&item.sig.ident);
            let placeholder = placeholder(&krate, &cfgs(attrs), vis, &item.sig.ident, &name, None);
            quote!(#errs #function #placeholder)
        }
    }
}
