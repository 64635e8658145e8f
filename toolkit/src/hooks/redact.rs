//! Redaction: secrets and personal data never reach the model (as an after hook) or an
//! audit file (inside [`AuditLog`](super::AuditLog)).

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

use crate::hook::{AfterCall, AfterHook, Hook, HookStep, OnFailure};

/// Finds secrets and personal data in text and replaces them with `[REDACTED:{label}]`.
///
/// Built-in rules, by label:
///
/// - `api_key`: provider keys by their shape: `sk-…` (OpenAI, Anthropic), `AKIA…` /
///   `ASIA…` (AWS), `ghp_…` and the other GitHub token prefixes, `github_pat_…`,
///   `xox?-…` (Slack), `AIza…` (Google);
/// - `token`: the token of `Bearer xxx`;
/// - `secret`: the value of `api_key=…`, `token: …`, `password=…`, `"secret": "…"` and
///   similar assignments;
/// - `email`: e-mail addresses;
/// - `card`: card numbers, 13 to 19 digits with optional spaces or dashes, *only* when
///   the Luhn check passes (so order numbers and ids stay);
/// - `phone`: international numbers (`+CC …`, 8 to 15 digits), North American numbers
///   with separators (`(555) 123-4567`, `555-123-4567`) and national numbers with a
///   leading `0` and separators (`030 1234 5678`). A bare run of digits is never taken
///   for a phone number, so years, counts and ids stay.
///
/// Add rules with [`pattern`](Redactor::pattern), drop built-in ones with
/// [`without`](Redactor::without), and name JSON fields whose values are always
/// secret with [`redact_keys`](Redactor::redact_keys). When the text is JSON, it is
/// redacted value by value and stays valid JSON.
///
/// As a hook (an after hook named `redact`, priority 20) it rewrites every result the
/// model sees, and fails closed: if it fails, the result is withheld (``blocked: policy
/// check `redact` failed``) rather than shown unredacted. A `Redactor` is cheap to clone (its rules are shared), so one value can
/// serve the hook and an [`AuditLog`](super::AuditLog).
///
/// ```
/// use toolkit::hooks::Redactor;
///
/// let r = Redactor::new().redact_keys(["ssn"]);
/// assert_eq!(
///     r.redact("mail ana@example.com, key sk-proj-abcdefghijklmnop1234"),
///     "mail [REDACTED:email], key [REDACTED:api_key]"
/// );
/// assert_eq!(r.redact(r#"{"ssn":"078-05-1120","n":3}"#), r#"{"ssn":"[REDACTED:ssn]","n":3}"#);
/// assert_eq!(r.redact("card 1234 5678 9012 3456 is not a card"), "card 1234 5678 9012 3456 is not a card");
/// ```
#[derive(Clone)]
pub struct Redactor {
    name: Cow<'static, str>,
    rules: Arc<Rules>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels: Vec<&str> = self.rules.rules.iter().map(|r| r.label.as_ref()).collect();
        f.debug_struct("Redactor")
            .field("name", &self.name)
            .field("rules", &labels)
            .field("keys", &self.rules.keys)
            .finish()
    }
}

/// A pattern given to [`Redactor::pattern`] is not a valid regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` is not a valid redaction pattern: {reason}")]
pub struct PatternError {
    /// The pattern.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: String,
}

#[derive(Clone)]
struct Rules {
    rules: Vec<Rule>,
    /// JSON field names whose values are secret, lower case.
    keys: Vec<String>,
    /// The assignment rule for `keys` in plain text (`ssn=…`).
    key_rule: Option<Rule>,
    replacement: Cow<'static, str>,
}

#[derive(Clone)]
struct Rule {
    label: Cow<'static, str>,
    regex: Regex,
    check: Check,
}

/// What a match must also pass to be redacted.
#[derive(Clone, Copy)]
enum Check {
    None,
    /// 13 to 19 digits passing the Luhn check.
    Card,
    /// Between `min` and `max` digits.
    Digits(usize, usize),
}

/// Field names whose JSON values are always secret.
const SECRET_KEYS: [&str; 12] = [
    "password",
    "passwd",
    "secret",
    "client_secret",
    "api_key",
    "apikey",
    "access_token",
    "refresh_token",
    "auth_token",
    "private_key",
    "secret_key",
    "authorization",
];

/// The value of an assignment to one of `keys`, in text: `key=v`, `key: v`,
/// `"key": "v w"`, `key='v'`. The first group that took part is the secret.
fn assignment(keys: &str) -> String {
    format!(r#"(?i)\b(?:{keys})["']?\s*[:=]\s*(?:"([^"]+)"|'([^']+)'|([^\s"'&,;}}\]]{{3,}}))"#)
}

static BUILT_IN: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |label: &'static str, pattern: &str, check| Rule {
        label: Cow::Borrowed(label),
        regex: Regex::new(pattern).expect("built-in redaction patterns are valid"),
        check,
    };
    vec![
        rule(
            "api_key",
            r"\b(?:sk-[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b",
            Check::None,
        ),
        rule("token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)", Check::None),
        rule(
            "secret",
            &assignment(
                "api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|token|\
                 client[_-]?secret|secret[_-]?key|secret|private[_-]?key|password|passwd|pwd",
            ),
            Check::None,
        ),
        rule(
            "email",
            r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b",
            Check::None,
        ),
        rule("card", r"\b\d(?:[ -]?\d){12,18}\b", Check::Card),
        rule("phone", r"\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){1,6}\b", Check::Digits(8, 15)),
        rule("phone", r"(?:\(\d{3}\)[ .-]?|\b\d{3}[ .-])\d{3}[.-]\d{4}\b", Check::Digits(10, 10)),
        rule("phone", r"\b0\d{1,4}[ /-]\d{3,4}[ -]?\d{3,5}\b", Check::Digits(9, 12)),
    ]
});

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

impl Redactor {
    /// Every built-in rule.
    pub fn new() -> Self {
        Redactor::with_rules(BUILT_IN.clone())
    }

    /// No rules: only what [`pattern`](Redactor::pattern) and
    /// [`redact_keys`](Redactor::redact_keys) add.
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::empty().pattern("employee", r"EMP-\d{6}").unwrap();
    /// assert_eq!(r.redact("EMP-123456 wrote to ana@example.com"), "[REDACTED:employee] wrote to ana@example.com");
    /// ```
    pub fn empty() -> Self {
        Redactor::with_rules(Vec::new())
    }

    fn with_rules(rules: Vec<Rule>) -> Self {
        Redactor {
            name: Cow::Borrowed("redact"),
            rules: Arc::new(Rules {
                rules,
                keys: SECRET_KEYS.iter().map(|k| k.to_string()).collect(),
                key_rule: None,
                replacement: Cow::Borrowed("[REDACTED:{label}]"),
            }),
        }
    }

    /// Adds a rule: matches of `pattern` (a regular expression; its first capture group
    /// that matched, if it has groups, else the whole match) become
    /// `[REDACTED:{label}]`.
    pub fn pattern(mut self, label: impl Into<Cow<'static, str>>, pattern: &str) -> Result<Self, PatternError> {
        let regex =
            Regex::new(pattern).map_err(|e| PatternError { pattern: pattern.to_owned(), reason: e.to_string() })?;
        Arc::make_mut(&mut self.rules).rules.push(Rule { label: label.into(), regex, check: Check::None });
        Ok(self)
    }

    /// Drops the built-in rules of this label (`"phone"`, `"email"`, ...).
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::new().without("phone");
    /// assert_eq!(r.redact("call +49 30 1234 5678"), "call +49 30 1234 5678");
    /// ```
    pub fn without(mut self, label: &str) -> Self {
        Arc::make_mut(&mut self.rules).rules.retain(|r| r.label != label);
        self
    }

    /// Marks JSON field names as sensitive (compared without regard to case): in JSON
    /// text, their values become `[REDACTED:{field}]` whatever they are; in plain text,
    /// `field=value` and `field: value` lose the value. Some names are always sensitive:
    /// `password`, `secret`, `api_key`, `access_token`, `authorization` and the like.
    pub fn redact_keys<I, S>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let rules = Arc::make_mut(&mut self.rules);
        for key in keys {
            let key = key.as_ref().to_lowercase();
            if !rules.keys.contains(&key) {
                rules.keys.push(key);
            }
        }
        let custom: Vec<String> = rules.keys[SECRET_KEYS.len()..].iter().map(|k| regex::escape(k)).collect();
        if !custom.is_empty() {
            let regex = Regex::new(&assignment(&custom.join("|"))).expect("escaped field names form a valid pattern");
            rules.key_rule = Some(Rule { label: Cow::Borrowed("secret"), regex, check: Check::None });
        }
        self
    }

    /// Sets the replacement text; `{label}` is replaced by the rule's label (default
    /// `[REDACTED:{label}]`).
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::new().replacement("<{label}>");
    /// assert_eq!(r.redact("ana@example.com"), "<email>");
    /// ```
    pub fn replacement(mut self, template: impl Into<Cow<'static, str>>) -> Self {
        Arc::make_mut(&mut self.rules).replacement = template.into();
        self
    }

    /// Sets the hook's name (default `redact`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Redacts `text`: value by value when it is a JSON object or array (it stays valid
    /// JSON, compact or pretty as it was), as plain text otherwise. Borrowed when
    /// nothing was found.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let start = text.trim_start().as_bytes().first();
        if matches!(start, Some(b'{' | b'['))
            && let Ok(mut value) = serde_json::from_str::<Value>(text)
        {
            if !self.redact_json(&mut value) {
                return Cow::Borrowed(text);
            }
            let pretty = text.contains('\n');
            let encoded = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
            // Encoding a `Value` cannot fail (its keys are strings).
            return Cow::Owned(encoded.unwrap_or_default());
        }
        self.redact_text(text)
    }

    /// Redacts `text` as plain text (a JSON text is scanned like any other).
    pub fn redact_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut found: Vec<(usize, usize, &str)> = Vec::new();
        for rule in self.rules.rules.iter().chain(&self.rules.key_rule) {
            for caps in rule.regex.captures_iter(text) {
                let Some(m) = caps.iter().skip(1).flatten().next().or_else(|| caps.get(0)) else { continue };
                if rule.check.passes(m.as_str()) {
                    found.push((m.start(), m.end(), &rule.label));
                }
            }
        }
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        // Earliest first; of two starting together, the longer.
        found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, label) in found {
            if start < at {
                continue;
            }
            out.push_str(&text[at..start]);
            out.push_str(&self.replacement_for(label));
            at = end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// Redacts a JSON value in place: the values of sensitive fields, strings (as
    /// text), and numbers that are card numbers. Returns whether anything changed.
    ///
    /// ```
    /// let mut v = serde_json::json!({"password": 1234, "note": "from ana@example.com"});
    /// assert!(toolkit::hooks::Redactor::new().redact_json(&mut v));
    /// assert_eq!(v, serde_json::json!({"password": "[REDACTED:password]", "note": "from [REDACTED:email]"}));
    /// ```
    pub fn redact_json(&self, value: &mut Value) -> bool {
        match value {
            Value::Object(map) => {
                let mut changed = false;
                for (key, value) in map.iter_mut() {
                    if !value.is_null() && self.is_sensitive(key) {
                        *value = Value::String(self.replacement_for(&key.to_lowercase()));
                        changed = true;
                    } else {
                        changed |= self.redact_json(value);
                    }
                }
                changed
            }
            Value::Array(items) => items.iter_mut().fold(false, |changed, item| self.redact_json(item) | changed),
            Value::String(s) => match self.redact_text(s) {
                Cow::Owned(redacted) => {
                    *s = redacted;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Number(n) => {
                let card = self.rules.rules.iter().any(|r| matches!(r.check, Check::Card))
                    && n.as_u64().is_some_and(|n| Check::Card.passes(&n.to_string()));
                if card {
                    *value = Value::String(self.replacement_for("card"));
                }
                card
            }
            Value::Null | Value::Bool(_) => false,
        }
    }

    fn is_sensitive(&self, key: &str) -> bool {
        self.rules.keys.iter().any(|k| k.eq_ignore_ascii_case(key))
    }

    fn replacement_for(&self, label: &str) -> String {
        self.rules.replacement.replace("{label}", label)
    }
}

impl Check {
    fn passes(self, matched: &str) -> bool {
        match self {
            Check::None => true,
            Check::Digits(min, max) => (min..=max).contains(&matched.bytes().filter(u8::is_ascii_digit).count()),
            Check::Card => {
                let digits: Vec<u8> = matched.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
                (13..=19).contains(&digits.len()) && digits.iter().any(|&d| d != digits[0]) && luhn(&digits)
            }
        }
    }
}

/// The Luhn checksum every payment card number satisfies.
fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                let twice = d * 2;
                if twice > 9 { twice - 9 } else { twice }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

impl AfterHook for Redactor {
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        let redacted = match self.redact(out.text()) {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        };
        if let Some(text) = redacted {
            out.set_text(text);
        }
        HookStep::Ready(Ok(()))
    }

    fn is_sync(&self) -> bool {
        true
    }
}

impl From<Redactor> for Hook {
    fn from(redactor: Redactor) -> Hook {
        // Text that could not be redacted must not reach the model: it fails closed.
        Hook::new(redactor.name.clone()).priority(20).on_failure(OnFailure::Block).on_after(redactor)
    }
}

#[cfg(test)]
mod tests {
    use super::luhn;

    #[test]
    fn luhn_accepts_test_card_numbers_only() {
        let digits = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<_>>();
        assert!(luhn(&digits("4111111111111111")));
        assert!(luhn(&digits("5555555555554444")));
        assert!(luhn(&digits("378282246310005")));
        assert!(!luhn(&digits("4111111111111112")));
        assert!(!luhn(&digits("1234567890123456")));
    }
}
