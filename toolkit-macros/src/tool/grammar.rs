//! `#[tool(lark = "...")]` and `#[tool(regex = "...")]`: the grammar of a free-form
//! tool's input, checked when the crate builds. A regex is compiled by the `regex`
//! crate (OpenAI's regex grammars take its syntax); a Lark grammar is read as far as
//! what a provider would refuse without running it: its tokens (strings, regular
//! expressions, brackets), each definition's `name:`, every name used defined or
//! imported, a `start` rule, no rule inside a terminal, and the regular expressions of
//! its terminals compiled as a regex would be.

use std::collections::BTreeSet;

use super::param::{Param, ParamKind};
use super::parse::ToolOptions;
use crate::errors::Errors;
use crate::shared::syntax::last_segment;

/// What is wrong with a Lark grammar, with the line it is on (1-based; 0 for the
/// grammar as a whole).
#[derive(Debug, PartialEq)]
pub struct LarkProblem {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LarkProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 { f.write_str(&self.message) } else { write!(f, "line {}: {}", self.line, self.message) }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A rule or terminal name (with `?`/`!`/`_` prefixes as written).
    Name(String),
    Str,
    /// A regular expression's body and flags.
    Regex(String, String),
    Directive(String),
    Punct(char),
    /// `..` (a range of characters) or `->` (an alias).
    Range,
    Arrow,
    Number,
    Newline,
}

fn problem(line: usize, message: impl Into<String>) -> LarkProblem {
    LarkProblem { line, message: message.into() }
}

fn tokens(text: &str) -> Result<Vec<(Token, usize)>, LarkProblem> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                out.push((Token::Newline, line));
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                let start = line;
                i += 1;
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(problem(start, "a string is not closed: end it with `\"` on the same line"));
                        }
                        Some('\\') => i += 2,
                        Some('"') => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                if chars.get(i) == Some(&'i') {
                    i += 1;
                }
                out.push((Token::Str, start));
            }
            '/' => {
                let start = line;
                i += 1;
                let mut body = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(problem(
                                start,
                                "a regular expression is not closed: end it with `/` on the same line",
                            ));
                        }
                        Some('\\') => {
                            body.push('\\');
                            if let Some(next) = chars.get(i + 1) {
                                body.push(*next);
                            }
                            i += 2;
                        }
                        Some('/') => break,
                        Some(c) => {
                            body.push(*c);
                            i += 1;
                        }
                    }
                }
                i += 1;
                let mut flags = String::new();
                while let Some(f) = chars.get(i).filter(|f| "imslux".contains(**f)) {
                    flags.push(*f);
                    i += 1;
                }
                out.push((Token::Regex(body, flags), start));
            }
            '%' => {
                let mut name = String::new();
                i += 1;
                while let Some(c) = chars.get(i).filter(|c| c.is_ascii_alphanumeric() || **c == '_') {
                    name.push(*c);
                    i += 1;
                }
                out.push((Token::Directive(name), line));
            }
            '.' if chars.get(i + 1) == Some(&'.') => {
                out.push((Token::Range, line));
                i += 2;
            }
            '-' if chars.get(i + 1) == Some(&'>') => {
                out.push((Token::Arrow, line));
                i += 2;
            }
            c if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) => {
                i += 1;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                out.push((Token::Number, line));
            }
            c if c.is_alphabetic()
                || c == '_'
                || ((c == '?' || c == '!') && chars.get(i + 1).is_some_and(|n| n.is_alphabetic() || *n == '_')) =>
            {
                let mut name = String::from(c);
                i += 1;
                while let Some(c) = chars.get(i).filter(|c| c.is_alphanumeric() || **c == '_') {
                    name.push(*c);
                    i += 1;
                }
                out.push((Token::Name(name), line));
            }
            ':' | '|' | '(' | ')' | '[' | ']' | '{' | '}' | '?' | '*' | '+' | '~' | ',' | '.' => {
                out.push((Token::Punct(c), line));
                i += 1;
            }
            other => return Err(problem(line, format!("unexpected `{other}`"))),
        }
    }
    Ok(out)
}

/// A name as used: without the `?`/`!` prefix a definition may have.
fn bare(name: &str) -> &str {
    name.trim_start_matches(['?', '!'])
}

fn is_terminal(name: &str) -> bool {
    let name = bare(name).trim_start_matches('_');
    name.chars().next().is_some_and(char::is_uppercase) && !name.chars().any(char::is_lowercase)
}

/// Checks a Lark grammar (see the module's docs for how far).
pub fn check_lark(text: &str) -> Result<(), LarkProblem> {
    let tokens = tokens(text)?;
    // Split into statements: a statement starts at the beginning of a line, and a line
    // that starts with `|` continues the one before.
    let mut statements: Vec<Vec<(Token, usize)>> = Vec::new();
    let mut depth: Vec<(char, usize)> = Vec::new();
    let mut at_line_start = true;
    for (token, line) in tokens {
        match &token {
            Token::Newline => {
                at_line_start = depth.is_empty();
                continue;
            }
            Token::Punct(c @ ('(' | '[' | '{')) => depth.push((*c, line)),
            Token::Punct(c @ (')' | ']' | '}')) => {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match depth.pop() {
                    Some((o, _)) if o == open => {}
                    Some((o, l)) => {
                        return Err(problem(line, format!("`{c}` closes the `{o}` opened on line {l}")));
                    }
                    None => return Err(problem(line, format!("`{c}` closes nothing"))),
                }
            }
            _ => {}
        }
        let continues = matches!(token, Token::Punct('|'));
        if at_line_start && !continues || statements.is_empty() {
            statements.push(Vec::new());
        }
        at_line_start = false;
        statements.last_mut().expect("pushed").push((token, line));
    }
    if let Some((open, line)) = depth.pop() {
        return Err(problem(line, format!("`{open}` is never closed")));
    }

    let mut defined = BTreeSet::new();
    let mut used: Vec<(String, usize, Option<String>)> = Vec::new();
    for statement in &statements {
        let (first, line) = &statement[0];
        match first {
            Token::Directive(d) if d == "import" => {
                // `%import module.NAME (-> ALIAS)?` or `%import module (A, B)`.
                let names: Vec<&str> = statement[1..]
                    .iter()
                    .filter_map(|(t, _)| if let Token::Name(n) = t { Some(n.as_str()) } else { None })
                    .collect();
                if names.is_empty() {
                    return Err(problem(*line, "`%import` names what it imports: `%import common.NUMBER`"));
                }
                let listed = statement.iter().any(|(t, _)| matches!(t, Token::Punct('(')));
                let aliased = statement.iter().any(|(t, _)| matches!(t, Token::Arrow));
                if listed {
                    // The names after the module's path, in the parentheses.
                    let open = statement.iter().position(|(t, _)| matches!(t, Token::Punct('('))).unwrap_or(0);
                    for (t, _) in &statement[open..] {
                        if let Token::Name(n) = t {
                            defined.insert(n.clone());
                        }
                    }
                } else if let Some(last) = names.last() {
                    defined.insert((*last).to_string());
                }
                let _ = aliased;
            }
            Token::Directive(d) if d == "declare" => {
                for (t, _) in &statement[1..] {
                    if let Token::Name(n) = t {
                        defined.insert(n.clone());
                    }
                }
            }
            Token::Directive(d) if d == "ignore" => collect_used(&statement[1..], None, &mut used)?,
            Token::Directive(d) if d == "override" || d == "extend" => {
                definition(&statement[1..], *line, &mut defined, &mut used)?;
            }
            Token::Directive(d) => {
                return Err(problem(
                    *line,
                    format!(
                        "unknown directive `%{d}`: Lark has `%import`, `%ignore`, `%declare`, `%override` and `%extend`"
                    ),
                ));
            }
            Token::Punct('|') => {
                return Err(problem(
                    *line,
                    "an alternative (`|`) before any rule: start the grammar with `start: ...`",
                ));
            }
            _ => definition(statement, *line, &mut defined, &mut used)?,
        }
    }
    if !defined.contains("start") {
        return Err(problem(0, "a Lark grammar needs a `start` rule, where the input begins: add `start: ...`"));
    }
    for (name, line, in_terminal) in used {
        if let Some(terminal) = in_terminal
            && !is_terminal(&name)
        {
            return Err(problem(
                line,
                format!(
                    "terminal `{terminal}` uses rule `{name}`: a terminal is built from terminals, strings and regular expressions only"
                ),
            ));
        }
        if !defined.contains(&name) {
            return Err(problem(
                line,
                format!("`{name}` is used but never defined: define it, or import it (`%import common.{name}`)"),
            ));
        }
    }
    Ok(())
}

/// `name(.priority)? : expansions` (a template `name{a, b}: ...` takes parameters).
fn definition(
    statement: &[(Token, usize)],
    line: usize,
    defined: &mut BTreeSet<String>,
    used: &mut Vec<(String, usize, Option<String>)>,
) -> Result<(), LarkProblem> {
    let Some((Token::Name(name), _)) = statement.first() else {
        return Err(problem(line, "a definition starts with its name: `start: ...`, `NUMBER: /[0-9]+/`"));
    };
    let mut i = 1;
    let mut params = BTreeSet::new();
    if matches!(statement.get(i), Some((Token::Punct('{'), _))) {
        while let Some((t, _)) = statement.get(i) {
            i += 1;
            match t {
                Token::Name(p) => {
                    params.insert(p.clone());
                }
                Token::Punct('}') => break,
                _ => {}
            }
        }
    }
    if matches!(statement.get(i), Some((Token::Punct('.'), _))) {
        if !matches!(statement.get(i + 1), Some((Token::Number, _))) {
            return Err(problem(line, format!("`{name}.` is followed by its priority, a number: `{name}.2: ...`")));
        }
        i += 2;
    }
    if !matches!(statement.get(i), Some((Token::Punct(':'), _))) {
        return Err(problem(
            line,
            format!("`{}` is not followed by `:`: a definition is written `{}: ...`", bare(name), bare(name)),
        ));
    }
    if statement.len() == i + 1 {
        return Err(problem(line, format!("`{}` has nothing after `:`", bare(name))));
    }
    let bare_name = bare(name).to_string();
    let terminal = is_terminal(&bare_name).then(|| bare_name.clone());
    defined.insert(bare_name);
    let mut body = Vec::new();
    let mut alias = false;
    for (t, l) in &statement[i + 1..] {
        match t {
            // `-> alias` names a tree node, not a rule.
            Token::Arrow => alias = true,
            Token::Name(n) if alias => {
                let _ = n;
                alias = false;
            }
            Token::Name(n) if params.contains(n) => {}
            _ => body.push((t.clone(), *l)),
        }
    }
    collect_used(&body, terminal, used)
}

/// The names `body` uses (for the definitions check), and its regular expressions
/// compiled.
fn collect_used(
    body: &[(Token, usize)],
    terminal: Option<String>,
    used: &mut Vec<(String, usize, Option<String>)>,
) -> Result<(), LarkProblem> {
    for (t, l) in body {
        match t {
            Token::Name(n) => used.push((n.clone(), *l, terminal.clone())),
            Token::Regex(pattern, flags) => check_lark_regex(pattern, flags, *l)?,
            _ => {}
        }
    }
    Ok(())
}

/// A terminal's `/pattern/flags`, compiled as the provider's engine reads it (the Rust
/// `regex` syntax: no look-around, no backreferences).
fn check_lark_regex(pattern: &str, flags: &str, line: usize) -> Result<(), LarkProblem> {
    let flags: String = flags.chars().filter(|f| "imsx".contains(*f)).collect();
    let pattern = pattern.replace("\\/", "/");
    let full = if flags.is_empty() { pattern.clone() } else { format!("(?{flags}){pattern}") };
    regex::Regex::new(&full).map(drop).map_err(|e| {
        problem(line, format!("the regular expression `/{pattern}/` does not compile ({}); grammars take the Rust `regex` syntax (no look-around, no backreferences)", reason(&e)))
    })
}

/// The last line of a `regex` error, which says what is wrong.
pub fn reason(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text.lines().last().unwrap_or("invalid").trim();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

/// A free-form tool as the macro checked it: the parameter its text goes to, and its
/// grammar (`"lark"` or `"regex"`, and the text).
pub struct Freeform {
    pub param: String,
    pub grammar: Option<(&'static str, String)>,
}

/// `freeform`, `lark = "..."` or `regex = "..."`: one `String` parameter the model
/// sends, and a grammar that parses. A regex becomes that parameter's `pattern`
/// (anchored: the whole text matches), so every call is checked against it.
pub fn freeform(
    options: &ToolOptions,
    params: &mut [Param],
    ident: &syn::Ident,
    errors: &mut Errors,
) -> Option<Freeform> {
    let (lark, regex) = (options.lark.as_ref(), options.regex.as_ref());
    if !options.freeform.is_present() && lark.is_none() && regex.is_none() {
        return None;
    }
    if let (Some(_), Some(regex)) = (lark, regex) {
        errors.at(regex, "a free-form tool's input follows one grammar: keep `lark` or `regex`");
        return None;
    }
    let mut sent: Vec<&mut Param> = params.iter_mut().filter(|p| matches!(p.kind, ParamKind::Arg(_))).collect();
    let given = if options.freeform.is_present() {
        "freeform"
    } else if lark.is_some() {
        "lark"
    } else {
        "regex"
    };
    if sent.is_empty() {
        errors.at(
            ident,
            format!("a free-form tool takes the model's text as its one parameter: add it (`text: String`), or drop `{given}`"),
        );
        return None;
    }
    if sent.len() != 1 {
        let message = format!(
            "a free-form tool takes the model's text as its one parameter, a `String`; this one has {} parameters the model sends: keep one (`#[context]` and `#[state]` parameters may stay), or drop `{given}`",
            sent.len(),
        );
        errors.at(&sent[1].binding, message);
        return None;
    }
    let param = &mut *sent[0];
    let is_string = last_segment(&param.ty).is_some_and(|s| s.ident == "String" && s.arguments.is_none());
    if !is_string {
        errors.at(
            &param.ty,
            "the input of a free-form tool is the text the model wrote: take it as a `String` (parse it in the function)",
        );
        return None;
    }
    let ParamKind::Arg(arg) = &mut param.kind else { return None };
    if arg.default.is_some() {
        errors.at(&param.binding, "the model always sends a free-form tool's text: remove `default`");
        return None;
    }
    let grammar = if let Some(lit) = lark {
        if let Err(problem) = check_lark(&lit.value()) {
            let sep = if problem.line == 0 { ":" } else { "," };
            errors.at(lit, format!("the Lark grammar does not parse{sep} {problem}"));
            return None;
        }
        Some(("lark", lit.value()))
    } else if let Some(lit) = regex {
        if arg.pattern.is_some() {
            errors.at(lit, "`regex` is the parameter's pattern already: remove its `#[arg(pattern = ...)]`");
            return None;
        }
        let anchored = format!("^(?:{})$", lit.value());
        match regex::Regex::new(&anchored) {
            Ok(_) => arg.pattern = Some(syn::LitStr::new(&anchored, lit.span())),
            Err(e) => {
                errors.at(lit, format!("`regex` is not a valid regular expression ({}): fix it (the Rust `regex` syntax, which OpenAI's regex grammars take)", reason(&e)));
                return None;
            }
        }
        Some(("regex", lit.value()))
    } else {
        None
    };
    Some(Freeform { param: arg.wire.clone(), grammar })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATH: &str = r#"
start: expr
expr: term (SP ADD SP term)* -> add
    | term
term: factor (SP MUL SP factor)* -> mul
    | factor
factor: INT
SP: " "
ADD: "+"
MUL: "*"
%import common.INT
"#;

    const SQL: &str = r#"
// A read-only query over one table.
start: "SELECT"i _WS columns _WS "FROM"i _WS NAME (_WS where)? ";"?
columns: "*" | NAME ("," _WS? NAME)*
?where: "WHERE"i _WS condition
condition: NAME _WS? OP _WS? value
value: NUMBER | ESCAPED_STRING
OP.2: "=" | "<" | ">" | "<=" | ">=" | "!="
NAME: /[a-z_][a-z0-9_]*/i
_WS: /[ \t]+/
%import common (NUMBER, ESCAPED_STRING)
%ignore /\n/
"#;

    #[test]
    fn grammars_that_parse() {
        check_lark(MATH).unwrap();
        check_lark(SQL).unwrap();
        check_lark("start: \"a\"~3 | \"b\" ~ 2..5 | \"c\"..\"f\"").unwrap();
        check_lark("start: _list{NAME}\n_list{x}: x (\",\" x)*\nNAME: /\\w+/\n%declare EXTRA\n").unwrap();
        check_lark("start: ITEM+\nITEM: /a\\/b/\n").unwrap();
        check_lark("start: X\n%import common.WORD -> X\n").unwrap();
    }

    fn problem_of(grammar: &str) -> String {
        check_lark(grammar).unwrap_err().to_string()
    }

    #[test]
    fn each_mistake_is_named_with_its_line() {
        assert_eq!(
            problem_of("expr: \"1\""),
            "a Lark grammar needs a `start` rule, where the input begins: add `start: ...`"
        );
        assert_eq!(
            problem_of("start: expr\nexpr: NUMBER\n"),
            "line 2: `NUMBER` is used but never defined: define it, or import it (`%import common.NUMBER`)"
        );
        assert_eq!(problem_of("start: \"abc\n"), "line 1: a string is not closed: end it with `\"` on the same line");
        assert_eq!(
            problem_of("start: /abc\n"),
            "line 1: a regular expression is not closed: end it with `/` on the same line"
        );
        assert_eq!(problem_of("start: (\"a\" | \"b\"\n"), "line 1: `(` is never closed");
        assert_eq!(problem_of("start: \"a\" ]\n"), "line 1: `]` closes nothing");
        assert_eq!(problem_of("start: (\"a\"]\n"), "line 1: `]` closes the `(` opened on line 1");
        assert_eq!(
            problem_of("start: WORD\nWORD: letter+\nletter: /[a-z]/\n"),
            "line 2: terminal `WORD` uses rule `letter`: a terminal is built from terminals, strings and regular expressions only"
        );
        assert_eq!(
            problem_of("start \"a\"\n"),
            "line 1: `start` is not followed by `:`: a definition is written `start: ...`"
        );
        assert_eq!(problem_of("start:\n"), "line 1: `start` has nothing after `:`");
        assert!(problem_of("start: \"a\"\n%include other\n").starts_with("line 2: unknown directive `%include`"));
        assert!(
            problem_of("start: X\nX: /(?=a)b/\n")
                .starts_with("line 2: the regular expression `/(?=a)b/` does not compile (look-around")
        );
        assert_eq!(problem_of("start: \"a\" @ \"b\""), "line 1: unexpected `@`");
        assert_eq!(
            problem_of("| \"a\""),
            "line 1: an alternative (`|`) before any rule: start the grammar with `start: ...`"
        );
    }
}
