//! `#[tool]` on a free function.

mod args;
mod checks;
mod constraints;
mod defaults;
mod duration;
mod examples;
mod expand;
mod formats;
mod grammar;
mod json;
mod model;
mod param;
mod parse;
mod retry;
mod syntax;

pub use duration::{TIMEOUT_UNITS, parse_timeout};
pub use expand::{companions, orphan_method_accessor, placeholder, unmarked_method};
pub use model::{NameProblem, Site, build, check_name, checked_name};
pub use param::clean_signature;
pub use parse::{RawExpr, ToolOptions, explain};
pub use syntax::{cfgs, last_segment, located_at, type_args, unraw};

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Signature, Visibility};

use crate::errors::Errors;

/// A function whose body is kept as raw tokens: half-typed code still expands, so the
/// IDE keeps working, and the body is never re-parsed.
pub struct RawFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub sig: Signature,
    pub body: TokenStream,
}

impl Parse for RawFn {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let sig: Signature = input.parse()?;
        let mut body = TokenStream::new();
        while !input.is_empty() {
            body.extend(std::iter::once(input.parse::<TokenTree>()?));
        }
        Ok(RawFn { attrs, vis, sig, body })
    }
}

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

/// The function an attribute macro is on, or (if it is not on one) the error `message`
/// at the item's first tokens, followed by the item unchanged. Shared by `#[tool]` and
/// `#[hook]`.
pub fn parse_fn(input: TokenStream, message: &str) -> Result<RawFn, TokenStream> {
    match syn::parse2(input.clone()) {
        Ok(f) if input_is_fn(&input) => Ok(f),
        _ => {
            let err = syn::Error::new_spanned(first_tokens(&input), message).to_compile_error();
            Err(quote!(#err #input))
        }
    }
}

/// Whether the tokens are a function item (and not, say, a struct that happens to
/// parse as far as a signature).
fn input_is_fn(input: &TokenStream) -> bool {
    let mut tokens = input.clone().into_iter().peekable();
    while let Some(t) = tokens.next() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                tokens.next();
            }
            TokenTree::Ident(i) if i == "fn" => return true,
            TokenTree::Ident(i)
                if ["pub", "async", "const", "unsafe", "extern", "crate", "in", "self", "super", "safe"]
                    .contains(&i.to_string().as_str()) => {}
            TokenTree::Group(_) | TokenTree::Literal(_) => {}
            _ => return false,
        }
    }
    false
}

/// The item's keyword and name, to point an error at.
pub fn first_tokens(input: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = input.clone().into_iter().peekable();
    while let Some(t) = tokens.next() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                tokens.next();
            }
            TokenTree::Ident(i) if i == "pub" => {}
            TokenTree::Group(_) if out.is_empty() => {}
            TokenTree::Ident(_) => {
                out.extend([t.clone()]);
                if out.clone().into_iter().count() == 2 {
                    break;
                }
            }
            _ => break,
        }
    }
    if out.is_empty() { input.clone() } else { out }
}
