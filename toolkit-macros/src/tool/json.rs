//! `example = {...}` read from the attribute's tokens: a JSON value, each part with
//! where it was written (so a mistake in an example is reported at its token).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;

/// A JSON value read from tokens, each part with where it was written.
#[derive(Debug)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written (JSON's syntax).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Span, Json)>),
}

/// One `example = {...}`.
#[derive(Debug)]
pub struct Example {
    pub value: Json,
    pub span: Span,
}

/// Takes every `example = {...}` out of the attribute's tokens (darling reads the rest).
pub fn take_examples(args: TokenStream, errors: &mut Vec<syn::Error>) -> (TokenStream, Vec<Example>) {
    let tokens: Vec<TokenTree> = args.into_iter().collect();
    let mut rest = Vec::new();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let is_example = matches!(&tokens[i], TokenTree::Ident(id) if id == "example")
            && matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=');
        if !is_example {
            rest.push(tokens[i].clone());
            i += 1;
            continue;
        }
        let end = tokens[i..]
            .iter()
            .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
            .map_or(tokens.len(), |e| i + e);
        let value: TokenStream = tokens[i + 2..end].iter().cloned().collect();
        let span = tokens[i].span();
        match value.clone().into_iter().collect::<Vec<_>>().as_slice() {
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => match read(value) {
                Ok(value) => examples.push(Example { value, span }),
                Err(e) => errors.push(e),
            },
            _ => errors.push(syn::Error::new(
                if value.is_empty() { span } else { value.span() },
                "`example` is written like `example = {\"location\": \"Paris\", \"days\": 3}`: the arguments as a JSON object",
            )),
        }
        // Past the comma.
        i = end + 1;
    }
    (rest.into_iter().collect(), examples)
}

/// Reads one JSON value from tokens.
fn read(tokens: TokenStream) -> syn::Result<Json> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    let value = value(&tokens, &mut at)?;
    if let Some(extra) = tokens.get(at) {
        return Err(syn::Error::new(extra.span(), "unexpected token after a JSON value: separate values with `,`"));
    }
    Ok(value)
}

fn value(tokens: &[TokenTree], at: &mut usize) -> syn::Result<Json> {
    let Some(token) = tokens.get(*at) else {
        let span = tokens.last().map_or_else(Span::call_site, |t| t.span());
        return Err(syn::Error::new(span, "a JSON value is missing here"));
    };
    *at += 1;
    match token {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => object(g.stream()),
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            let items: Vec<TokenTree> = g.stream().into_iter().collect();
            let mut out = Vec::new();
            let mut i = 0;
            while i < items.len() {
                out.push(value(&items, &mut i)?);
                comma(&items, &mut i)?;
            }
            Ok(Json::Array(out))
        }
        TokenTree::Ident(id) => match id.to_string().as_str() {
            "true" => Ok(Json::Bool(true)),
            "false" => Ok(Json::Bool(false)),
            "null" => Ok(Json::Null),
            other => Err(syn::Error::new(
                id.span(),
                format!(
                    "`{other}` is not JSON: write a string in double quotes, a number, `true`, `false`, `null`, `[...]` or `{{...}}`"
                ),
            )),
        },
        TokenTree::Punct(p) if p.as_char() == '-' => match tokens.get(*at) {
            Some(TokenTree::Literal(lit)) => {
                *at += 1;
                number(lit).map(|n| Json::Number(format!("-{n}")))
            }
            _ => Err(syn::Error::new(p.span(), "`-` goes before a number")),
        },
        TokenTree::Literal(lit) => {
            let text = lit.to_string();
            if text.starts_with('"') {
                let s: syn::LitStr =
                    syn::parse_str(&text).map_err(|_| syn::Error::new(lit.span(), "not a JSON string"))?;
                Ok(Json::String(s.value()))
            } else if text.starts_with(|c: char| c.is_ascii_digit()) {
                number(lit).map(Json::Number)
            } else {
                Err(syn::Error::new(lit.span(), "not JSON: strings are written in double quotes"))
            }
        }
        other => Err(syn::Error::new(other.span(), "not JSON here: expected a value")),
    }
}

fn number(lit: &proc_macro2::Literal) -> syn::Result<String> {
    let text = lit.to_string();
    let json_like = text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && !(text.len() > 1 && text.starts_with('0') && !text.starts_with("0."));
    if json_like {
        Ok(text)
    } else {
        Err(syn::Error::new(
            lit.span(),
            format!("`{text}` is not a JSON number: write digits, without a suffix or `_`"),
        ))
    }
}

fn object(stream: TokenStream) -> syn::Result<Json> {
    let items: Vec<TokenTree> = stream.into_iter().collect();
    let mut out: Vec<(String, Span, Json)> = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let key = match &items[i] {
            TokenTree::Literal(lit) if lit.to_string().starts_with('"') => {
                let s: syn::LitStr = syn::parse_str(&lit.to_string())
                    .map_err(|_| syn::Error::new(lit.span(), "a key is a string in double quotes"))?;
                (s.value(), lit.span())
            }
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "a key is a string in double quotes: `\"location\": \"Paris\"`",
                ));
            }
        };
        i += 1;
        match items.get(i) {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => i += 1,
            other => {
                let at = other.map_or(key.1, |t| t.span());
                return Err(syn::Error::new(at, format!("expected `:` after the key \"{}\"", key.0)));
            }
        }
        if out.iter().any(|(k, _, _)| *k == key.0) {
            return Err(syn::Error::new(key.1, format!("\"{}\" is given twice in this example", key.0)));
        }
        let v = value(&items, &mut i)?;
        out.push((key.0, key.1, v));
        comma(&items, &mut i)?;
    }
    Ok(Json::Object(out))
}

fn comma(items: &[TokenTree], i: &mut usize) -> syn::Result<()> {
    match items.get(*i) {
        None => Ok(()),
        Some(TokenTree::Punct(p)) if p.as_char() == ',' => {
            *i += 1;
            Ok(())
        }
        Some(other) => Err(syn::Error::new(other.span(), "expected `,` between values")),
    }
}

impl Json {
    /// The value as JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => quote_into(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(fields) => {
                out.push('{');
                for (i, (k, _, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    quote_into(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn quote_into(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
