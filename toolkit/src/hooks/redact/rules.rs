//! The built-in redaction rules: one regular expression per rule, all searched in one pass.
//!
//! Every pattern keeps to two habits, so that a span always falls on character
//! boundaries and is right next to any script:
//! - boundaries are ASCII (`(?-u:\b)`): a CJK letter is not a word character, so a key
//!   glued to Chinese text is still found, and one glued to ASCII letters is not;
//! - open-ended classes are either ASCII sets or negated ASCII sets, so a match never
//!   ends inside a multi-byte character.

/// What a match must pass, beyond the pattern, and which parts of it are the secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Every capture group that took part is a span (the whole match when there are none).
    Plain,
    /// `scheme://user:password@host`: the password.
    UrlPassword,
    /// `-u user:password`: the password.
    CurlPassword,
    /// An AWS key id and the secret access key after it: both.
    AwsPair,
    /// A provider key: the body holds a digit, or both cases (prose like `sk-learn-...`
    /// does not).
    Key,
    /// The token after `Bearer` (or `Authorization: Bot`): 8+ characters holding a digit,
    /// or 16+ characters.
    Bearer,
    /// The credentials after `Basic`: base64 of `user:password`.
    Basic,
    /// `name = value` where the name is secret-named (see `names::secret_name`).
    Assignment,
    /// An e-mail address (not `git@host:path`, not `icon@2x.png`).
    Email,
    /// 13 to 19 digits passing the Luhn check.
    Card,
    /// An IBAN of its country's length with a valid mod-97 checksum.
    Iban,
    /// An 18-character Chinese resident ID with a valid check character.
    CnId,
    /// A US social security number `AAA-GG-SSSS` in the issued ranges.
    Ssn,
    /// A Brazilian CPF `ddd.ddd.ddd-dd` with valid check digits.
    Cpf,
    /// A Spanish DNI or NIE with the right control letter.
    Dni,
    /// A phone number of `min..=max` digits, not part of a longer number.
    Phone(u8, u8),
    /// A PEM private key's header: the key runs to its END line or, cut, to the end of
    /// its base64 body.
    PrivateKey,
    /// A PEM private key, base64-encoded whole (kubeconfig `client-key-data`): its
    /// header decodes to `-----BEGIN … PRIVATE KEY-----`.
    EncodedKey,
    /// A Telegram bot token (`123456789:AA…`, the `bot` before it in an API URL left out)
    /// or a Discord one (its first part decodes to a numeric id), not glued to more.
    BotToken,
    /// `mysql -p<password>`, `sshpass -p <password>`: the password (group 1, without its
    /// quotes), if it is one and not a variable or a placeholder.
    FlagPassword,
}

/// A built-in rule: its label, its pattern and its check.
pub(super) struct BuiltIn {
    pub label: &'static str,
    pub pattern: &'static str,
    pub kind: Kind,
}

const fn rule(label: &'static str, pattern: &'static str, kind: Kind) -> BuiltIn {
    BuiltIn { label, pattern, kind }
}

/// The name part of an assignment: an identifier holding a secret keyword (which one
/// counts is decided by `names::secret_name`), or a label in another language. The
/// `{custom}` slot takes the keys of `Redactor::redact_keys`.
pub(super) const ASSIGNMENT: &str = concat!(
    r#"(?:(?-u:\b)[A-Za-z0-9_.-]*(?:(?i-u:pass|pwd|secret|token|key|credential|auth){custom})[A-Za-z0-9_.-]*"#,
    r#"|密码|密碼|密钥|密鑰|秘钥|口令|令牌|パスワード|비밀번호)"#,
    r#"["']?[ \t]*(?:[:=]=?>?|：|是|为|為)[ \t]*"#,
    r#"(?:"(?:(?:[^"\\\r\n]|\\.)+)"|'(?:[^'\r\n]+)'|(?:[!#-%*+\-./0-:=?-Z^_a-z|~]+))"#,
);

/// The rules, in order of preference when two match at the same place.
pub(super) const BUILT_IN: &[BuiltIn] = &[
    // The header; the body is read by hand (`parse::pem_body`), so that it ends where
    // its base64 ends, and the search does not read it.
    rule("private_key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", Kind::PrivateKey),
    rule(
        "webhook",
        concat!(
            r"https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+",
            r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]+",
            r"|[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_.-]+",
            r"|outlook\.office(?:365)?\.com/webhook/[A-Za-z0-9@/_.-]+",
            r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[A-Za-z0-9-]+",
            r"|oapi\.dingtalk\.com/robot/send\?access_token=[A-Za-z0-9]+",
            r"|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[A-Za-z0-9-]+)",
        ),
        Kind::Plain,
    ),
    // `scheme://user:password@host`: only the password; it ends at the last `@` before
    // the host, so `@`, `:` and `#` inside it are covered.
    rule(
        "password",
        r#"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@"'<>]*:(?:[^\s/"'<>]+)@[^\s/@?#"'<>:]*[A-Za-z0-9\]]"#,
        Kind::UrlPassword,
    ),
    // `curl -u user:password`, `--user user:password`.
    rule("password", r#"(?:^|[ \t])(?:-u|--user)[ =]['"]?[^\s:'"]+:[^\s'"/][^\s'"]*"#, Kind::CurlPassword),
    rule("token", r"(?i-u:\bbearer)[ \t]+(?:[A-Za-z0-9._~+/-]{8,}=*)", Kind::Bearer),
    rule("token", r"(?i-u:\bbasic)[ \t]+(?:[A-Za-z0-9+/]{6,}={0,2})", Kind::Basic),
    // Discord's `Authorization: Bot <token>` (`bot` alone is a word: only after the header).
    rule(
        "token",
        r#"(?i-u:\bauthorization)["']?[ \t]*[:=][ \t]*["']?(?i-u:bot)[ \t]+(?:[A-Za-z0-9._~+/-]{8,}=*)"#,
        Kind::Bearer,
    ),
    rule("token", r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", Kind::Plain),
    rule("secret", ASSIGNMENT, Kind::Assignment),
    // An AWS key id followed by its secret access key (credentials CSV, `id:secret`).
    rule(
        "api_key",
        r"(?-u:\b)(?:(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16})(?:[ \t]*[:,|;][ \t]*|[ \t]+)(?:[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        Kind::AwsPair,
    ),
    rule(
        "api_key",
        concat!(
            r"(?-u:\b)(?:(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}",
            r"|sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)[0-9]{2}-)?[A-Za-z0-9_-]{20,}",
            r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}",
            r"|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}",
            r"|AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{28}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}",
            r"|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
            r"|pypi-AgE[A-Za-z0-9_-]{50,}|hv[sbr]\.[A-Za-z0-9_-]{24,}",
            r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,})(?-u:\b)",
        ),
        Kind::Key,
    ),
    rule(
        "api_key",
        concat!(
            r"(?:(?-u:\b)bot|(?-u:\b))[0-9]{5,16}:AA[A-Za-z0-9_-]{32,33}",
            r"|(?-u:\b)[MNO][A-Za-z0-9_-]{22,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        ),
        Kind::BotToken,
    ),
    rule("private_key", r"(?-u:\b)LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}", Kind::EncodedKey),
    // `mysql -pPASSWORD` (glued: `-p PASSWORD` asks for it and names a database) and
    // `sshpass -p PASSWORD`, after any other options.
    rule(
        "password",
        concat!(
            r#"(?-u:\b)(?:(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mariadb|mariadb-dump|mariadb-admin)[ \t](?:[^\r\n\\|;&<>]*?[ \t])?-p"#,
            r#"|sshpass[ \t](?:[^\r\n\\|;&<>]*?[ \t])?-p[ \t]*)"#,
            r#"('[^'\r\n]+'|"[^"\r\n]+"|[^\s'"\\|;&<>]+)"#,
        ),
        Kind::FlagPassword,
    ),
    // ASCII addresses first (so one glued to CJK text ends where the CJK starts), then
    // internationalised ones, each in one script; a quoted local part keeps its quotes.
    rule(
        "email",
        concat!(
            r#"(?:"[^"\r\n@]+"|(?-u:\b)[A-Za-z0-9._%+-]+|(?-u:\b)[\p{Latin}\p{M}0-9._%+-]+|[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}0-9._-]+|[\p{Cyrillic}0-9._-]+|[\p{Greek}0-9._-]+)"#,
            r"@(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}",
            r"|(?:[\p{Latin}\p{M}0-9](?:[\p{Latin}\p{M}0-9-]*)?\.)+\p{Latin}{2,}",
            r"|(?:[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}0-9]+\.)+[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]+",
            r"|(?:[\p{Greek}0-9](?:[\p{Greek}0-9-]*)?\.)+\p{Greek}{2,}",
            r"|(?:[\p{Cyrillic}0-9](?:[\p{Cyrillic}0-9-]*)?\.)+\p{Cyrillic}{2,})",
        ),
        Kind::Email,
    ),
    rule("iban", r"(?-u:\b)[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]){11,30}", Kind::Iban),
    rule(
        "national_id",
        r"(?-u:\b)[1-9][0-9]{5}(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{3}[0-9Xx](?-u:\b)",
        Kind::CnId,
    ),
    rule("national_id", r"(?-u:\b)[0-9]{3}-[0-9]{2}-[0-9]{4}(?-u:\b)", Kind::Ssn),
    rule("national_id", r"(?-u:\b)[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}(?-u:\b)", Kind::Cpf),
    rule("national_id", r"(?-u:\b)[XYZ]?[0-9]{7,8}-?[A-Z](?-u:\b)", Kind::Dni),
    rule("phone", r"\+[1-9][0-9]{0,2}(?:[ .-]?(?:\([0-9]{1,5}\)|[0-9]{1,5})){1,6}", Kind::Phone(8, 15)),
    // Chinese numbers after the international prefix 0086: mobiles, and landlines with
    // separators.
    rule(
        "phone",
        r"(?-u:\b)0086[ -]?(?:1[3-9][0-9](?:[ -]?[0-9]{4}){2}|(?:10|2[0-9]|[3-9][0-9]{2})[ -][0-9]{3,4}[ -]?[0-9]{4})(?-u:\b)",
        Kind::Phone(13, 15),
    ),
    rule("card", r"(?-u:\b)[0-9](?:[ -]?[0-9]){12,18}(?-u:\b)", Kind::Card),
    // Chinese mobile numbers: 1[3-9] and 9 digits, grouped 3-4-4 or not.
    rule("phone", r"(?-u:\b)1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?-u:\b)", Kind::Phone(11, 11)),
    // North American numbers with separators: (555) 123-4567, 555-123-4567, 1-800-555-0199.
    rule(
        "phone",
        r"(?:(?-u:\b)1[ .-])?(?:\([2-9][0-9]{2}\)[ .-]?|(?-u:\b)[2-9][0-9]{2}[.-])[0-9]{3}[.-][0-9]{4}(?-u:\b)",
        Kind::Phone(10, 11),
    ),
    // National numbers with a leading 0 and separators: 030 1234 5678, 06 12 34 56 78,
    // 090-1234-5678.
    rule("phone", r"(?-u:\b)0[1-9](?:[ .][0-9]{2}){4}(?-u:\b)", Kind::Phone(10, 10)),
    rule("phone", r"(?-u:\b)0[1-9][0-9]{0,3}[ /-][0-9]{3,4}[ -]?[0-9]{3,5}(?-u:\b)", Kind::Phone(9, 12)),
];
