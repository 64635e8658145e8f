//! Collects every mistake in one macro input, so one compile shows them all.

use proc_macro2::TokenStream;
use std::fmt::Display;

#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    pub fn at<T: quote::ToTokens>(&mut self, tokens: T, message: impl Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at_span(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.0.push(syn::Error::new(span, message));
    }

    pub fn extend(&mut self, errors: impl IntoIterator<Item = syn::Error>) {
        self.0.extend(errors);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}
