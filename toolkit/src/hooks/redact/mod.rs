//! Redaction: secrets and personal data never reach the model (as an after hook) or an
//! audit file (inside [`AuditLog`](super::AuditLog)).

mod checks;
mod engine;
mod json;
mod names;
mod parse;
mod rules;

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use self::engine::{Engine, Found, Replace, Rule};
use self::rules::Kind;
use crate::hook::{AfterCall, AfterHook, Hook, HookStep, OnFailure};

/// Finds secrets and personal data in text and replaces them with `[REDACTED:{label}]`,
/// leaving every other byte as it was.
///
/// # What it finds
///
/// Every category is on by default; [`without`](Redactor::without) turns one off by its
/// label.
///
/// | label | what | example (the secret part in bold) |
/// |---|---|---|
/// | `api_key` | provider keys by shape: OpenAI and Anthropic `sk-…` (`sk-proj-`, `sk-ant-`), AWS key ids `AKIA…`/`ASIA…` (and the secret access key right after one), GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, GitLab `glpat-`, Slack `xox?-` and `xapp-`, Google `AIza…` and `GOCSPX-`, Stripe `sk_live_`/`sk_test_`/`rk_live_`/`whsec_`, Hugging Face `hf_`, npm `npm_`, SendGrid `SG.`, PyPI `pypi-`, Vault `hvs.`/`hvb.`, Doppler `dp.pt.`/`dp.st.`…, Telegram and Discord bot tokens | key **sk-proj-Tq3…** |
/// | `secret` | the value of an assignment to a secret-named key, in any syntax (`KEY=v`, `key: v`, `"key": "v"`, `export KEY=v`, `--password=v`, `X-Api-Key: v`, `密码：v`) | `DB_PASSWORD=`**hunter22** |
/// | `token` | the token after `Bearer` (and `Authorization: Bot`), the credentials after `Basic` (checked to decode to `user:password`), and JWTs anywhere | `Authorization: Bearer `**eyJhbG…** |
/// | `password` | the password of URL credentials, of `curl -u user:password`, `mysql -p<password>` and `sshpass -p <password>` | `postgres://app:`**p@ss:w0rd**`@db:5432/app` |
/// | `private_key` | a PEM private key block, `BEGIN` to `END` (cut short, to the end of its base64 body); a PEM key base64-encoded whole (kubeconfig `client-key-data`) | **-----BEGIN RSA PRIVATE KEY-----…** |
/// | `webhook` | chat webhook URLs: Slack, Discord, Microsoft Teams, Feishu/Lark, DingTalk, WeCom | **`https://hooks.slack.com/services/T0…`** |
/// | `email` | e-mail addresses, internationalised (`josé@beispiel.de`, `用户@例子.广告`) and quoted (`"j doe"@example.com`) | **ana@example.com** |
/// | `phone` | `+` and a country code (8–15 digits), North American numbers with separators, national numbers with a leading 0 and separators, Chinese mobile numbers `1[3-9]…` (11 digits), also after `0086` | **+49 30 1234 5678** |
/// | `card` | 13–19 digits passing the Luhn check | **4111 1111 1111 1111** |
/// | `iban` | IBANs of their country's length with a valid mod-97 checksum | **DE89 3704 0044 0532 0130 00** |
/// | `national_id` | Chinese resident IDs (check character), US SSNs `AAA-GG-SSSS` (issued ranges), Brazilian CPFs (check digits), Spanish DNI/NIE (control letter) | **11010519491231002X** |
///
/// A name is secret-named when its last word (split on `_`, `-`, `.` and camelCase) is
/// `password`, `passwd`, `pwd`, `pass`, `passphrase`, `secret`, `token`, `apikey`,
/// `credential(s)` or `authorization`, or is `key` after `api`, `access`, `secret`,
/// `private`, `signing`, `client`, `auth`, ... (so `DB_PASSWORD`, `X_SIGNING_SECRET`,
/// `x-api-key`, `clientSecret`, but not `max_tokens`, `token_type` or `next_page_token`).
/// Its value is a secret unless it is code, a look-up, a template, a type or prose:
/// `vault.read_secret(path)`, `os.environ["KEY"]`, `${API_KEY}`, `${DB_PASSWORD:?unset}`
/// (of `${DB_PASSWORD:-default}`, the default is the value), `Option<String>`,
/// `Password: please enter 8 characters` and `token: expired` are left alone. An
/// unquoted value of a token, secret or key must look random (8+ characters with a
/// letter and a digit, or high entropy); a password needs 4+ characters.
///
/// # How it matches
///
/// - **Exact spans:** only the secret is replaced: the user and host of a URL, the quotes
///   and key of a JSON field, and the text around a key stay byte for byte.
/// - **Any script next to it:** boundaries are ASCII, so a key, a card number or an
///   address glued to Chinese text is found, and ends where the Chinese text starts.
/// - **Checked formats:** cards (Luhn), IBANs (length and mod-97), national IDs (their
///   check digits); a digit group that is part of a longer number (a tracking or order
///   number, `1Z 999 AA1 01 2345 6784`) is never a card or a phone number.
/// - **JSON:** [`redact`](Redactor::redact) redacts JSON text inside its strings, without
///   re-encoding the document: key order, spacing and escapes stay. The value of a
///   secret-named field is replaced whole (a number becomes a string, so the text stays
///   JSON); a string whose escapes hide a secret (`\u0040`) is re-encoded alone. JSON
///   text and plain text give the same result for string values.
/// - **Linear time:** all rules are one multi-pattern regular expression (a lazy DFA),
///   searched once; 50 MB take well under a second in a release build. Text built to be
///   re-read (overlapping near-secrets, `sk-` repeated) stays linear: once a scan has read
///   16 times the text, a match that fails its check is replaced anyway (failing closed).
///
/// # What it does not promise
///
/// It finds secrets by shape and by name. A secret with no recognisable shape and no
/// secret-named key next to it (a bare password in prose, an AWS secret key alone) is
/// not found; a URL password holding `/` is cut at the `/`; an unquoted value stops at
/// whitespace and at ``"'`,;&<>()[]{}``. Add your own shapes with
/// [`pattern`](Redactor::pattern) and names with [`redact_keys`](Redactor::redact_keys).
///
/// As a hook (an after hook named `redact`, priority 20) it rewrites every result the
/// model sees, and fails closed: if it fails, the result is withheld (``blocked: policy
/// check `redact` failed``) rather than shown unredacted. A `Redactor` is cheap to clone
/// (its rules are shared), so one value can serve the hook and an
/// [`AuditLog`](super::AuditLog).
///
/// ```
/// use toolkit::hooks::Redactor;
///
/// let r = Redactor::new().redact_keys(["ssn"]);
/// assert_eq!(
///     r.redact("mail ana@example.com, key sk-proj-Tq3bX9vLm2Nw8Kp4Rz7Y"),
///     "mail [REDACTED:email], key [REDACTED:api_key]"
/// );
/// assert_eq!(r.redact(r#"{"ssn": "078-05-1120", "n": 3}"#), r#"{"ssn": "[REDACTED:ssn]", "n": 3}"#);
/// assert_eq!(r.redact("密钥sk-proj-Tq3bX9vLm2Nw8Kp4Rz7Y已过期"), "密钥[REDACTED:api_key]已过期");
/// assert_eq!(r.redact("redis://app:p@ss#1@cache:6379/0"), "redis://app:[REDACTED:password]@cache:6379/0");
/// assert_eq!(r.redact("let secret = vault.read_secret(path)?;"), "let secret = vault.read_secret(path)?;");
/// assert_eq!(r.redact("card 1234 5678 9012 3456 is not a card"), "card 1234 5678 9012 3456 is not a card");
/// ```
#[derive(Clone)]
pub struct Redactor {
    name: Cow<'static, str>,
    engine: Arc<Engine>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels: Vec<&str> = self.engine.rules().iter().map(|r| r.label.as_ref()).collect();
        f.debug_struct("Redactor")
            .field("name", &self.name)
            .field("rules", &labels)
            .field("keys", &self.engine.keys())
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

const TEMPLATE: &str = "[REDACTED:{label}]";

static BUILT_IN: LazyLock<Arc<Engine>> = LazyLock::new(|| {
    Arc::new(Engine::new(engine::built_in(), Vec::new(), Cow::Borrowed(TEMPLATE)).expect("built-in rules compile"))
});

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

impl Redactor {
    /// Every built-in rule.
    pub fn new() -> Self {
        Redactor { name: Cow::Borrowed("redact"), engine: BUILT_IN.clone() }
    }

    /// No rules: only what [`pattern`](Redactor::pattern) and
    /// [`redact_keys`](Redactor::redact_keys) add.
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::empty().pattern("employee", r"EMP-\d{6}").unwrap();
    /// assert_eq!(r.redact("EMP-123456 wrote to ana@example.com"), "[REDACTED:employee] wrote to ana@example.com");
    /// ```
    pub fn empty() -> Self {
        let engine = Engine::new(Vec::new(), Vec::new(), Cow::Borrowed(TEMPLATE)).expect("no rules compile");
        Redactor { name: Cow::Borrowed("redact"), engine: Arc::new(engine) }
    }

    fn rebuild(mut self, change: impl FnOnce(&mut Vec<Rule>, &mut Vec<String>)) -> Result<Self, String> {
        let mut rules = self.engine.rules().to_vec();
        let mut keys = self.engine.keys().to_vec();
        change(&mut rules, &mut keys);
        let template = Cow::Owned(self.engine.template().to_owned());
        self.engine = Arc::new(Engine::new(rules, keys, template)?);
        Ok(self)
    }

    /// Adds a rule: matches of `pattern` (a regular expression; its capture groups that
    /// matched, if it has groups, else the whole match) become `[REDACTED:{label}]`.
    pub fn pattern(self, label: impl Into<Cow<'static, str>>, pattern: &str) -> Result<Self, PatternError> {
        let error = |reason: String| PatternError { pattern: pattern.to_owned(), reason };
        let checked = regex::Regex::new(pattern).map_err(|e| error(e.to_string()))?;
        if checked.is_match("") {
            return Err(error("it matches the empty string".into()));
        }
        let rule = Rule { label: label.into(), pattern: Cow::Owned(pattern.to_owned()), kind: Kind::Plain };
        self.rebuild(|rules, _| rules.push(rule)).map_err(error)
    }

    /// Drops the built-in rules of this label (`"phone"`, `"email"`, ...).
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::new().without("phone");
    /// assert_eq!(r.redact("call +49 30 1234 5678"), "call +49 30 1234 5678");
    /// ```
    pub fn without(self, label: &str) -> Self {
        self.rebuild(|rules, _| rules.retain(|r| r.label != label)).expect("fewer rules compile")
    }

    /// Marks more names as secret (compared without regard to case, `_`, `-` or
    /// camelCase): their values become `[REDACTED:{name}]`, in JSON fields
    /// (`"ssn": "..."`) and in text (`ssn=...`, `ssn: ...`).
    pub fn redact_keys<I, S>(self, keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let added: Vec<String> =
            keys.into_iter().map(|k| k.as_ref().to_lowercase()).filter(|k| !k.is_empty()).collect();
        self.rebuild(|_, keys| {
            for key in added {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        })
        .expect("escaped names compile")
    }

    /// Sets the replacement text; `{label}` is replaced by the rule's label (default
    /// `[REDACTED:{label}]`).
    ///
    /// ```
    /// let r = toolkit::hooks::Redactor::new().replacement("<{label}>");
    /// assert_eq!(r.redact("ana@example.com"), "<email>");
    /// ```
    pub fn replacement(mut self, template: impl Into<Cow<'static, str>>) -> Self {
        let template = template.into();
        let engine = Arc::make_mut(&mut self.engine);
        *engine =
            Engine::new(engine.rules().to_vec(), engine.keys().to_vec(), template).expect("the same rules compile");
        self
    }

    /// Sets the hook's name (default `redact`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Redacts `text`: inside its strings when it is a JSON object or array (it stays the
    /// same JSON, byte for byte outside the secrets), as plain text otherwise. Borrowed
    /// when nothing was found.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match json::scan(&self.engine, text) {
            Some(found) => finish(text, &found, self.engine.template()),
            None => self.redact_text(text),
        }
    }

    /// The first `chars` characters of `text`, redacted as [`redact`](Redactor::redact)
    /// would redact the whole of `text`: a secret that starts within them is replaced
    /// whole (even where it runs past them), and nothing of the text after them is kept.
    /// Cutting after redacting would not do: a long secret replaced by a short label
    /// pulls in text from further on, which may hold a secret cut where `text` ends.
    pub(crate) fn redact_head(&self, text: &str, chars: usize) -> String {
        let cut = text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i);
        let found = json::scan(&self.engine, text).unwrap_or_else(|| {
            let mut found = Vec::new();
            self.engine.scan(text, 0, text.len(), false, &mut found);
            found
        });
        let kept: Vec<Found<'_>> = found.into_iter().filter(|f| f.start < cut).collect();
        let end = kept.iter().map(|f| f.end).fold(cut, usize::max);
        apply(&text[..end], &kept, self.engine.template())
    }

    /// Redacts `text` as plain text (a JSON text is scanned like any other).
    pub fn redact_text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut found = Vec::new();
        self.engine.scan(text, 0, text.len(), false, &mut found);
        finish(text, &found, self.engine.template())
    }

    /// Redacts a JSON value in place: the values of secret-named fields (read as text
    /// when they are not secrets as a whole: `"Bearer …"`), strings (as text), and
    /// numbers that are card or phone numbers. Returns whether anything
    /// changed. (Field names are left as they are.)
    ///
    /// ```
    /// let mut v = serde_json::json!({"password": 12345678, "note": "from ana@example.com"});
    /// assert!(toolkit::hooks::Redactor::new().redact_json(&mut v));
    /// assert_eq!(v, serde_json::json!({"password": "[REDACTED:secret]", "note": "from [REDACTED:email]"}));
    /// ```
    pub fn redact_json(&self, value: &mut Value) -> bool {
        match value {
            Value::Object(map) => {
                let mut changed = false;
                for (key, value) in map.iter_mut() {
                    if let Some((kind, label)) = self.engine.secret_key(key) {
                        let secret = match value {
                            Value::String(s) => names::assigned_secret(key, s, true, None, kind),
                            Value::Number(n) => names::assigned_secret(key, &n.to_string(), false, None, kind),
                            Value::Object(_) | Value::Array(_) => true,
                            Value::Null | Value::Bool(_) => false,
                        };
                        if secret {
                            *value = Value::String(self.engine.template().replace("{label}", label));
                            changed = true;
                            continue;
                        }
                    }
                    // Not a secret as a whole (`Bearer …`, prose): read like any value.
                    changed |= self.redact_json(value);
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
                let text = n.to_string();
                let mut found = Vec::new();
                self.engine.scan(&text, 0, text.len(), false, &mut found);
                match found.as_slice() {
                    [one] if one.start == 0 && one.end == text.len() => {
                        *value = Value::String(apply(&text, &found, self.engine.template()));
                        true
                    }
                    _ => false,
                }
            }
            Value::Null | Value::Bool(_) => false,
        }
    }
}

fn finish<'t>(text: &'t str, found: &[Found<'_>], template: &str) -> Cow<'t, str> {
    if found.is_empty() { Cow::Borrowed(text) } else { Cow::Owned(apply(text, found, template)) }
}

/// `text` with every span of `found` (in order, not overlapping) replaced.
fn apply(text: &str, found: &[Found<'_>], template: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in found {
        if f.start < at {
            continue;
        }
        out.push_str(&text[at..f.start]);
        match &f.replace {
            Replace::Label(label) => out.push_str(&template.replace("{label}", label)),
            Replace::InString(label) => {
                let quoted = serde_json::to_string(&template.replace("{label}", label)).unwrap_or_default();
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
            Replace::Quoted(label) => {
                out.push_str(&serde_json::to_string(&template.replace("{label}", label)).unwrap_or_default());
            }
            Replace::Text(replacement) => out.push_str(replacement),
        }
        at = f.end;
    }
    out.push_str(&text[at..]);
    out
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
