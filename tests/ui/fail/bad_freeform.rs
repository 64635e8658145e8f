use toolkit::prelude::*;

/// Run code: two parameters the model sends.
#[tool(freeform)]
fn run(code: String, language: String) -> String {
    format!("{language}: {code}")
}

/// Count: the text is not a `String`.
#[tool(freeform)]
fn count(n: u32) -> u32 {
    n
}

/// Both grammars.
#[tool(lark = "start: \"a\"", regex = "a+")]
fn both(text: String) -> String {
    text
}

/// A Lark grammar that uses a name it never defines.
#[tool(lark = r#"
start: expr
expr: NUMBER ("+" NUMBER)*
"#)]
fn add(expression: String) -> String {
    expression
}

/// A Lark grammar without a `start` rule.
#[tool(lark = "query: \"SELECT 1\"")]
fn query(sql: String) -> String {
    sql
}

/// A regex that does not compile.
#[tool(regex = "[0-9")]
fn digits(text: String) -> String {
    text
}

/// A default on the text.
#[tool(freeform)]
fn note(#[arg(default)] text: String) -> String {
    text
}

/// A pattern beside a regex.
#[tool(regex = "[a-z]+")]
fn word(#[arg(pattern = "^[a-z]+$")] text: String) -> String {
    text
}

/// No parameter at all.
#[tool(freeform)]
fn nothing() -> String {
    String::new()
}

fn main() {}
