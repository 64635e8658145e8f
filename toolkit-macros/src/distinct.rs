//! The compile-time check that names in a `toolbox!` or `hooks!` are distinct, in code
//! that grows linearly with the list: one array of names, one call of a `const fn` that
//! finds the first repeat (a hash set, in expected linear time), and per entry one
//! comparison spanned at the entry, so a repeat is reported at the second entry with
//! both labels.
//!
//! Everything the checks share is an associated `const` of a generated type, reached as
//! `Self::...`: items are not subject to hygiene, so the comparisons can carry the user's
//! own spans (an error inside an external macro's expansion would be shown at the whole
//! macro call instead).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

/// Splits `$crate; rest` (what the `macro_rules!` wrappers in `toolkit` pass on) into the
/// crate path and the rest.
pub fn split_crate(input: TokenStream) -> (TokenStream, TokenStream) {
    let mut krate = TokenStream::new();
    let mut tokens = input.into_iter();
    for token in tokens.by_ref() {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ';' => return (krate, tokens.collect()),
            _ => krate.extend([token]),
        }
    }
    // Called directly, without the wrapper: the default path, and all of it is entries.
    (quote!(::toolkit), krate)
}

/// Associated items `NAMES`, `LABELS`, `REPEAT` and `DISTINCT` (which panics at the
/// second of two equal names) for an `impl` block. `names` are `&'static str`
/// expressions evaluable there.
pub fn check(p: &TokenStream, names: &[TokenStream], labels: &[String], spans: &[Span], what: &str) -> TokenStream {
    let n = names.len();
    let table = (2 * n + 1).next_power_of_two();
    let checks = (1..n).map(|i| {
        let label = &labels[i];
        quote_spanned! {spans[i]=>
            if let ::core::option::Option::Some((first, #i)) = Self::REPEAT {
                ::core::panic!("{}", #p::ConstMessage::duplicate(Self::LABELS[first], #label, #what, #what).as_str())
            }
        }
    });
    quote! {
        const NAMES: [&'static str; #n] = [#(#names),*];
        const LABELS: [&'static str; #n] = [#(#labels),*];
        const REPEAT: ::core::option::Option<(usize, usize)> = {
            let mut table = [usize::MAX; #table];
            #p::first_duplicate(&Self::NAMES, &mut table)
        };
        const DISTINCT: () = { #(#checks)* };
    }
}
