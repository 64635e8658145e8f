//! The scanner: every rule compiled into one multi-pattern regular expression (a lazy
//! DFA, linear in the text), searched once from left to right. A match that fails its
//! rule's check gives the other rules a chance at the same place, then the search goes
//! on one character later.

use std::borrow::Cow;

use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input, meta};

use super::checks;
use super::names::{self, Secret};
use super::parse;
use super::rules::{ASSIGNMENT, BUILT_IN, Kind};

/// How many times its length one scan may read of a text (searches after a failed match
/// read part of it again) before a match that fails its check is replaced anyway: far
/// above what any text but one built to be re-read needs (the test corpora need under 4).
const SCAN_BUDGET: usize = 16;
/// Bytes every scan may read besides, so short texts never reach the budget.
const SCAN_SLACK: usize = 1 << 16;

/// A rule: its label, its pattern (kept to rebuild the set) and its check.
#[derive(Clone, Debug)]
pub(super) struct Rule {
    pub label: Cow<'static, str>,
    pub pattern: Cow<'static, str>,
    pub kind: Kind,
}

/// What replaces a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Replace<'e> {
    /// The replacement template with this label, as is.
    Label(&'e str),
    /// The same, escaped for the inside of a JSON string.
    InString(&'e str),
    /// The same as a JSON string (quotes included): a secret that was a JSON number.
    Quoted(&'e str),
    /// Literal text (a re-encoded JSON string).
    Text(String),
}

/// A span to replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Found<'e> {
    pub start: usize,
    pub end: usize,
    pub replace: Replace<'e>,
}

/// The compiled rules.
#[derive(Clone, Debug)]
pub(super) struct Engine {
    rules: Vec<Rule>,
    /// `Redactor::redact_keys`, as given (the labels).
    keys: Vec<String>,
    /// The same, lower case, words joined by `_` (what names are compared with).
    key_words: Vec<String>,
    /// Whether the built-in secret names count (the built-in assignment rule is on).
    builtin_names: bool,
    /// The replacement; `{label}` stands for the rule's label.
    template: Cow<'static, str>,
    /// All rules in one: finds the next match and which rule made it (no groups).
    regex: meta::Regex,
    /// Each rule alone: tries a rule at a given place and resolves its groups (a small
    /// automaton per rule keeps that cheap).
    each: Vec<meta::Regex>,
    /// Per rule, the bytes a match can start with.
    starts: Vec<[bool; 256]>,
}

/// The built-in rules, uncompiled.
pub(super) fn built_in() -> Vec<Rule> {
    BUILT_IN
        .iter()
        .map(|r| Rule { label: Cow::Borrowed(r.label), pattern: Cow::Borrowed(r.pattern), kind: r.kind })
        .collect()
}

impl Engine {
    /// Compiles `rules`; `keys` are extra secret names.
    pub fn new(rules: Vec<Rule>, keys: Vec<String>, template: Cow<'static, str>) -> Result<Engine, String> {
        // Custom keys are found in text by the assignment rule; without the built-in one
        // (`Redactor::empty()`, `without("secret")`), a rule for them alone is added.
        let builtin_names = rules.iter().any(|r| r.kind == Kind::Assignment);
        let mut rules = rules;
        if !builtin_names && !keys.is_empty() {
            rules.push(Rule {
                label: Cow::Borrowed("secret"),
                pattern: Cow::Borrowed(ASSIGNMENT),
                kind: Kind::Assignment,
            });
        }
        let custom: String = keys.iter().map(|k| format!("|(?i:{})", regex::escape(k))).collect();
        let patterns: Vec<Cow<'_, str>> = rules
            .iter()
            .map(|r| match r.kind {
                Kind::Assignment if r.pattern == ASSIGNMENT => Cow::Owned(ASSIGNMENT.replace("{custom}", &custom)),
                _ => Cow::Borrowed(r.pattern.as_ref()),
            })
            .collect();
        let config = meta::Config::new().nfa_size_limit(Some(64 << 20));
        let regex = meta::Regex::builder()
            .configure(config.clone().which_captures(WhichCaptures::Implicit).hybrid_cache_capacity(8 << 20))
            .build_many(&patterns)
            .map_err(|e| e.to_string())?;
        let each = patterns
            .iter()
            .map(|p| meta::Regex::builder().configure(config.clone()).build(p).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let starts = patterns.iter().map(|p| first_bytes(p)).collect();
        let key_words = keys.iter().map(|k| names::words(k).join("_")).collect();
        Ok(Engine { rules, keys, key_words, builtin_names, template, regex, each, starts })
    }

    /// The rules as configured (without the one added for custom keys alone).
    pub fn rules(&self) -> &[Rule] {
        let added = !self.builtin_names && !self.keys.is_empty();
        &self.rules[..self.rules.len() - usize::from(added)]
    }

    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    pub fn template(&self) -> &str {
        &self.template
    }

    /// Whether a JSON field name is secret, and its label.
    pub fn secret_key(&self, name: &str) -> Option<(Secret, &str)> {
        let kind = names::secret_name(name, &self.key_words)?;
        match kind {
            Secret::Custom(i) => Some((kind, self.keys[i].as_str())),
            _ if self.builtin_names => Some((kind, "secret")),
            _ => None,
        }
    }

    /// Appends the spans to replace in `text[from..to]` (the rest of `text` is context for
    /// boundaries). `in_string`: the range is the inside of a JSON string.
    ///
    /// Linear in the text: searching again one character after a match that failed its
    /// check re-reads that match, which text built of overlapping near-secrets (`sk-`
    /// repeated) would make quadratic; so once the searches have read [`SCAN_BUDGET`]
    /// times the range, a match that fails its check is replaced anyway (failing closed)
    /// and the search goes on after it.
    pub fn scan<'e>(&'e self, text: &str, from: usize, to: usize, in_string: bool, out: &mut Vec<Found<'e>>) {
        if self.rules.is_empty() {
            return;
        }
        let mut caps = self.each[0].create_captures();
        let budget = (to - from).saturating_mul(SCAN_BUDGET).saturating_add(SCAN_SLACK);
        let mut read = 0usize;
        let mut at = from;
        while at < to {
            let Some(m) = self.regex.search(&Input::new(text).range(at..to)) else { break };
            read += m.end() - at;
            let (start, end) = (m.start(), m.end());
            let first = m.pattern().as_usize();
            let mut next = self.accept(text, to, first, m, &mut caps, in_string, out);
            // The match failed its check: another rule may match here.
            let byte = usize::from(text.as_bytes()[start]);
            for pid in (0..self.rules.len()).filter(|&p| p != first && self.starts[p][byte]) {
                if next.is_some() {
                    break;
                }
                let input = Input::new(text).range(start..to).anchored(Anchored::Yes);
                if let Some(m) = self.each[pid].search(&input) {
                    read += m.end() - start;
                    next = self.accept(text, to, pid, m, &mut caps, in_string, out);
                }
            }
            at = match next {
                Some(end) if end > start => end,
                _ if read > budget && end > start => {
                    let label = self.rules[first].label.as_ref();
                    let replace = if in_string { Replace::InString(label) } else { Replace::Label(label) };
                    out.push(Found { start, end, replace });
                    end
                }
                _ => next_char(text, start),
            };
        }
    }

    /// Checks match `m` of rule `pid`; if it holds a secret, pushes its spans and returns
    /// where the search goes on (a span read by hand may run past the match, never past
    /// `to`). Capture groups are resolved only for rules that have them.
    #[allow(clippy::too_many_arguments)]
    fn accept<'e>(
        &'e self,
        text: &str,
        to: usize,
        pid: usize,
        m: regex_automata::Match,
        caps: &mut Captures,
        in_string: bool,
        out: &mut Vec<Found<'e>>,
    ) -> Option<usize> {
        let rule = &self.rules[pid];
        let (start, end) = (m.start(), m.end());
        let each = &self.each[pid];
        let groups = each.group_info().group_len(regex_automata::PatternID::ZERO) > 1;
        if groups {
            // The match is known: resolving its groups looks at it alone (look-around
            // still sees the text around it).
            *caps = each.create_captures();
            let input = Input::new(text).range(start..end).anchored(Anchored::Yes);
            each.search_captures(&input, caps);
            caps.get_match()?;
        }
        let span = &text[start..end];
        let label = rule.label.as_ref();
        let wrap = |label| if in_string { Replace::InString(label) } else { Replace::Label(label) };
        let mut push = |(s, e): (usize, usize), replace: Replace<'e>| {
            if s < e && text.is_char_boundary(s) && text.is_char_boundary(e) {
                out.push(Found { start: s, end: e, replace });
            }
        };
        // A part of the match, by offsets into it.
        let part = |(s, e): (usize, usize)| (start + s, start + e);
        let whole = (start, end);
        match rule.kind {
            Kind::Plain | Kind::Key => {
                if rule.kind == Kind::Key && !checks::key_body(span) {
                    return None;
                }
                if !groups {
                    push(whole, wrap(label));
                }
                for g in (1..caps.group_len()).filter_map(|i| caps.get_group(i)).filter(|_| groups) {
                    push((g.start, g.end), wrap(label));
                }
            }
            Kind::UrlPassword => push(part(parse::url_password(span)?), wrap(label)),
            Kind::CurlPassword => push(part(parse::curl_password(span)?), wrap(label)),
            Kind::AwsPair => {
                let (id, secret) = parse::aws_pair(span)?;
                push(part(id), wrap(label));
                push(part(secret), wrap(label));
            }
            Kind::Bearer | Kind::Basic => {
                let token = parse::last_word(span);
                let ok = if rule.kind == Kind::Bearer { checks::bearer } else { checks::basic };
                if !ok(&span[token.0..token.1]) {
                    return None;
                }
                push(part(token), wrap(label));
            }
            Kind::Assignment => {
                let a = parse::assignment(span)?;
                return self.assignment(text, start, a, in_string, out).then_some(end);
            }
            Kind::Email if checks::email(text, start, end) => push(whole, wrap(label)),
            Kind::Iban => {
                let end = checks::iban(text, start, end)?;
                push((start, end), wrap(label));
                return Some(end);
            }
            Kind::Phone(..) | Kind::Card => {
                // The pattern may have taken a group that is not part of the number (a
                // date or a time after it): try the match, then shorter, group by group.
                let valid = |e: usize| match rule.kind {
                    Kind::Phone(min, max) => checks::phone(&text[start..e], min, max),
                    _ => checks::card(&text[start..e]),
                };
                let cuts = std::iter::once(span.len())
                    .chain(span.char_indices().rev().filter(|(_, c)| matches!(c, ' ' | '.' | '-')).map(|(i, _)| i));
                let end = cuts
                    .map(|cut| start + span[..cut].trim_end_matches([' ', '.', '-', '(']).len())
                    .find(|&e| e > start && valid(e) && checks::isolated_number(text, start, e))?;
                push((start, end), wrap(label));
                return Some(end);
            }
            Kind::CnId | Kind::Ssn | Kind::Cpf => {
                let valid = match rule.kind {
                    Kind::CnId => checks::cn_id(span),
                    Kind::Ssn => checks::ssn(span),
                    Kind::Cpf => checks::cpf(span),
                    _ => false,
                };
                if !valid || !checks::isolated_number(text, start, end) {
                    return None;
                }
                push(whole, wrap(label));
            }
            Kind::Dni if checks::dni(span) => push(whole, wrap(label)),
            Kind::BotToken => push((checks::bot_token(text, start, end)?, end), wrap(label)),
            Kind::EncodedKey if checks::encoded_key(span) => push(whole, wrap(label)),
            Kind::FlagPassword => {
                let g = caps.get_group(1)?;
                let quoted = matches!(text.as_bytes()[g.start], b'"' | b'\'');
                let (s, e) = if quoted { (g.start + 1, g.end - 1) } else { (g.start, g.end) };
                if !names::assigned_secret("password", &text[s..e], quoted, None, Secret::Password) {
                    return None;
                }
                push((s, e), wrap(label));
            }
            Kind::PrivateKey => {
                let end = parse::pem_body(text, end, to)?;
                push((start, end), wrap(label));
                return Some(end);
            }
            Kind::Email | Kind::Dni | Kind::EncodedKey => return None,
        }
        Some(end)
    }

    /// An assignment at `start`: pushes the value's span if the name is secret-named and
    /// the value is a secret.
    fn assignment<'e>(
        &'e self,
        text: &str,
        start: usize,
        a: parse::Assignment,
        in_string: bool,
        out: &mut Vec<Found<'e>>,
    ) -> bool {
        let (name, mut value) = ((start + a.name.0, start + a.name.1), (start + a.value.0, start + a.value.1));
        // A shell parameter expansion: `${NAME:?message}` and `${NAME:+word}` hold no value
        // of NAME; `${NAME:-default}` holds a default (without its `-`).
        if text[..name.0].ends_with("${") {
            match text.as_bytes()[name.1..].get(..2) {
                Some(b":?" | b":+") => return false,
                Some(b":-") if value.0 == name.1 + 1 => value.0 += 1,
                _ => {}
            }
            if value.0 >= value.1 {
                return false;
            }
        }
        let name_text = &text[name.0..name.1];
        let value_text = &text[value.0..value.1];
        let Some((kind, label)) = self.secret_key(name_text) else { return false };
        let after = text[value.1..].chars().next();
        // A double-quoted value with escapes is judged decoded (`"a\nb"` is two words), as
        // the same string is in JSON.
        let bytes = text.as_bytes();
        let decoded = (a.quoted && value_text.contains('\\') && bytes[value.0 - 1] == b'"')
            .then(|| serde_json::from_str::<String>(&text[value.0 - 1..value.1 + 1]).ok())
            .flatten();
        if !names::assigned_secret(name_text, decoded.as_deref().unwrap_or(value_text), a.quoted, after, kind) {
            return false;
        }
        // `"pin": 1234` in JSON text: the replacement is a JSON string.
        let json_name = name.0 > 0 && bytes[name.0 - 1] == b'"' && bytes.get(name.1) == Some(&b'"');
        let replace = if in_string {
            Replace::InString(label)
        } else if json_name && !a.quoted {
            Replace::Quoted(label)
        } else {
            Replace::Label(label)
        };
        out.push(Found { start: value.0, end: value.1, replace });
        true
    }
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(text.len(), |c| at + c.len_utf8())
}

/// The bytes a match of `pattern` can start with (all of them when that is not known).
fn first_bytes(pattern: &str) -> [bool; 256] {
    let all = [true; 256];
    let Ok(hir) = regex_syntax::parse(pattern) else { return all };
    let mut extractor = regex_syntax::hir::literal::Extractor::new();
    extractor.limit_class(64).limit_total(512);
    let prefixes = extractor.extract(&hir);
    let Some(literals) = prefixes.literals() else { return all };
    let mut set = [false; 256];
    for literal in literals {
        match literal.as_bytes().first() {
            Some(&b) => set[usize::from(b)] = true,
            None => return all,
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::first_bytes;

    #[test]
    fn first_bytes_of_rules() {
        let digits = first_bytes(r"(?-u:\b)[0-9](?:[ -]?[0-9]){12,18}");
        assert!(digits[usize::from(b'7')] && !digits[usize::from(b'a')]);
        let bearer = first_bytes(r"(?i-u:\bbearer)[ \t]+x");
        assert!(bearer[usize::from(b'B')] && bearer[usize::from(b'b')] && !bearer[usize::from(b'x')]);
        assert!(first_bytes(r"[A-Za-z0-9_.-]*token")[usize::from(b'z')]);
    }
}
