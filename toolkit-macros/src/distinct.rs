//! The compile-time check that names in a `toolbox!` or `hooks!` are distinct, in code
//! that grows linearly with the list: one array of names, one call of a `const fn` that
//! finds the first repeat (a hash set, in expected linear time), and per entry one
//! comparison spanned at the entry, so a repeat is reported at the second entry with
//! both labels.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;

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

/// Statements for a `const` context that panic at the second of two equal names.
/// `names` are `&'static str` expressions evaluable there.
pub fn check(p: &TokenStream, names: &[TokenStream], labels: &[String], spans: &[Span], what: &str) -> TokenStream {
    let n = names.len();
    let table = (2 * n + 1).next_power_of_two();
    let checks = (1..n).map(|i| {
        let label = &labels[i];
        // Located at the entry, with the hygiene of the rest of the expansion.
        crate::tool::located_at(
            quote! {
                if let ::core::option::Option::Some((__toolkit_first, #i)) = __toolkit_repeat {
                    ::core::panic!("{}", #p::ConstMessage::duplicate(
                        __toolkit_labels[__toolkit_first], #label, #what, #what,
                    ).as_str())
                }
            },
            spans[i],
        )
    });
    quote! {
        let __toolkit_names: [&'static str; #n] = [#(#names),*];
        let __toolkit_labels: [&'static str; #n] = [#(#labels),*];
        let mut __toolkit_table = [usize::MAX; #table];
        let __toolkit_repeat = #p::first_duplicate(&__toolkit_names, &mut __toolkit_table);
        #(#checks)*
    }
}
