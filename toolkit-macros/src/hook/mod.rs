//! `#[hook(before | after | error, ...)]` on a free function.

mod expand;
mod model;
mod parse;

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;
use crate::shared::{RawFn, cfgs, parse_fn};
use parse::HookOptions;

pub fn entry(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match parse_fn(
        input,
        "`#[hook]` goes on a free function (`fn` or `async fn`) taking the event's context, such as `fn sandbox(call: &mut BeforeCall<'_>) -> Decision`",
    ) {
        Ok(item) => item,
        Err(tokens) => return tokens,
    };
    let mut errors = Errors::default();
    let options = match HookOptions::parse(args) {
        Ok(o) => o,
        Err(e) => {
            errors.extend(e);
            HookOptions::default()
        }
    };
    let RawFn { attrs, vis, sig, body } = &item;
    let function = quote!(#(#attrs)* #vis #sig #body);
    // Options that did not parse are reported alone: the event, and so the signature's
    // rules, are unknown.
    let parsed = errors.is_empty();
    let model = model::build(&options, parsed, attrs, vis, sig, &mut errors);
    match model {
        Some(model) if errors.is_empty() => {
            let companions = expand::companions(&model);
            quote!(#function #companions)
        }
        // A method sits in an `impl` block, where the handle struct could not go.
        _ if sig.receiver().is_some() => {
            let errs = errors.to_compile_errors();
            quote!(#errs #function)
        }
        _ => {
            let errs = errors.to_compile_errors();
            let name = model::placeholder_name(sig, &options);
            let placeholder = expand::placeholder(&options.krate(), &cfgs(attrs), vis, &sig.ident, &name);
            quote!(#errs #function #placeholder)
        }
    }
}
