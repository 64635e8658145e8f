//! Doc comments (`///`) to descriptions: the text a model decides by.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The doc comments of an item, in order.
pub enum Docs {
    /// Every line is a literal: tidied at compile time.
    Text(String),
    /// Some line is computed (`#[doc = include_str!(..)]`): joined at compile time with
    /// `concat!`, untidied.
    Computed(Vec<Expr>),
}

impl Docs {
    pub fn from_attrs(attrs: &[Attribute]) -> Docs {
        let mut lines = Vec::new();
        let mut exprs = Vec::new();
        let mut computed = false;
        for attr in attrs {
            if let Meta::NameValue(nv) = &attr.meta
                && nv.path.is_ident("doc")
            {
                if let Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) = &nv.value {
                    lines.push(s.value());
                } else {
                    computed = true;
                }
                exprs.push(nv.value.clone());
            }
        }
        if computed { Docs::Computed(exprs) } else { Docs::Text(tidy(&lines)) }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Docs::Text(t) if t.is_empty())
    }

    /// An expression of type `&'static str`.
    pub fn to_tokens(&self) -> TokenStream {
        match self {
            Docs::Text(t) => quote!(#t),
            Docs::Computed(exprs) => {
                let mut parts = Vec::new();
                for (i, e) in exprs.iter().enumerate() {
                    if i > 0 {
                        parts.push(quote!("\n"));
                    }
                    parts.push(quote!(#e));
                }
                quote!(::core::concat!(#(#parts),*))
            }
        }
    }
}

/// Removes the common indentation `///` leaves, trailing spaces, leading and trailing
/// blank lines, and runs of blank lines; keeps Markdown otherwise as written.
pub fn tidy(lines: &[String]) -> String {
    let split: Vec<&str> = lines.iter().flat_map(|l| l.split('\n')).collect();
    // Indentation is ASCII spaces and tabs only: slicing it off can then never cut a
    // character (a line starting with a no-break space keeps it).
    let indent = split
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = Vec::new();
    for line in split {
        let line = if line.trim().is_empty() { "" } else { line[indent.min(line.len())..].trim_end() };
        if line.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// Whether an attribute is a doc comment.
pub fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}
