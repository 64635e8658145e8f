//! The item an attribute macro is on: a function whose body is kept as raw tokens, or
//! the error that it is not a function.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Signature, Visibility};

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
