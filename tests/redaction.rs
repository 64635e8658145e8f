//! The redactor against corpora of our own and property tests.
//!
//! - `tests/corpus/redact/secrets.txt`: texts with every secret marked `⟦label|secret⟧`;
//!   the redactor must replace exactly the marked spans and leave every other byte.
//! - `tests/corpus/redact/clean.txt`: texts that look like they hold secrets and do not;
//!   each must come back unchanged.
//!
//! Cases are separated by a line holding `%%`.

use std::borrow::Cow;

use proptest::prelude::*;
use toolkit::hooks::Redactor;

struct Case {
    text: String,
    expected: String,
    secrets: Vec<(String, String)>,
}

fn cases(file: &str) -> Vec<String> {
    let path = format!("{}/tests/corpus/redact/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.split("\n%%\n")
        .map(|case| case.strip_prefix("%%\n").unwrap_or(case).strip_suffix("\n%%").unwrap_or(case))
        .map(|case| case.strip_suffix('\n').unwrap_or(case).to_owned())
        .filter(|case| !case.trim().is_empty())
        .collect()
}

/// A marked case: the text without markers, the text expected back, and the secrets.
fn marked(case: &str) -> Case {
    let (mut text, mut expected, mut secrets) = (String::new(), String::new(), Vec::new());
    let mut rest = case;
    while let Some(open) = rest.find('⟦') {
        text.push_str(&rest[..open]);
        expected.push_str(&rest[..open]);
        let inner = &rest[open + '⟦'.len_utf8()..];
        let close = inner.find('⟧').unwrap_or_else(|| panic!("unclosed marker in {case:?}"));
        let (label, secret) =
            inner[..close].split_once('|').unwrap_or_else(|| panic!("marker without label in {case:?}"));
        text.push_str(secret);
        expected.push_str(&format!("[REDACTED:{label}]"));
        secrets.push((label.to_owned(), secret.to_owned()));
        rest = &inner[close + '⟧'.len_utf8()..];
    }
    text.push_str(rest);
    expected.push_str(rest);
    Case { text, expected, secrets }
}

fn secrets() -> Vec<Case> {
    cases("secrets.txt").iter().map(|c| marked(c)).collect()
}

#[test]
fn every_marked_secret_is_masked_and_nothing_else_changes() {
    let r = Redactor::new();
    let cases = secrets();
    let spans: usize = cases.iter().map(|c| c.secrets.len()).sum();
    assert!(spans >= 400, "the corpus holds {spans} secrets");
    let mut failures = Vec::new();
    let mut leaked = 0;
    for case in &cases {
        let out = r.redact(&case.text);
        leaked += case.secrets.iter().filter(|(_, secret)| out.contains(secret.as_str())).count();
        if out != case.expected {
            failures.push(format!("input:    {:?}\nexpected: {:?}\ngot:      {:?}", case.text, case.expected, out));
        }
    }
    println!("{} cases, {spans} secrets, {leaked} left unmasked, {} cases not exact", cases.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} cases differ:\n\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

#[test]
fn every_category_is_in_the_corpus() {
    let cases = secrets();
    for label in [
        "api_key",
        "secret",
        "token",
        "password",
        "private_key",
        "webhook",
        "email",
        "phone",
        "card",
        "iban",
        "national_id",
    ] {
        let n = cases.iter().flat_map(|c| &c.secrets).filter(|(l, _)| l == label).count();
        assert!(n >= 20, "only {n} `{label}` secrets in the corpus");
    }
}

#[test]
fn text_mode_and_json_mode_agree_on_strings() {
    // Every JSON case gives the same through `redact` (in place, inside strings) and
    // `redact_text` (plain text).
    let r = Redactor::new();
    let mut json = 0;
    for case in secrets() {
        if serde_json::from_str::<serde_json::Value>(&case.text).is_ok()
            && case.text.trim_start().starts_with(['{', '['])
        {
            json += 1;
            assert_eq!(r.redact(&case.text), r.redact_text(&case.text), "{}", case.text);
        }
    }
    assert!(json >= 10, "only {json} JSON cases");
}

#[test]
fn clean_texts_come_back_unchanged() {
    let r = Redactor::new();
    let cases = cases("clean.txt");
    assert!(cases.len() >= 200, "the clean corpus holds {} texts", cases.len());
    let altered: Vec<String> = cases
        .iter()
        .filter_map(|text| match r.redact(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(out) => Some(format!("input: {text:?}\ngot:   {out:?}")),
        })
        .collect();
    assert!(
        altered.is_empty(),
        "{} of {} clean texts altered:\n\n{}",
        altered.len(),
        cases.len(),
        altered.join("\n\n")
    );
}

/// Text built of overlapping near-secrets (`sk-` repeated: each is the start of a key
/// that runs to the end and fails its check for lack of digits and capitals) is scanned
/// in linear time: once the scan has read 16 times the text, a match that fails its
/// check is replaced anyway (failing closed). Before, this 150 KB took about 4 * 10^9
/// steps and 1 MiB about 10^12: the audit log's writer, and with its queue full every
/// call, stalled.
#[test]
fn text_built_to_be_re_read_is_scanned_in_linear_time_and_fails_closed() {
    let r = Redactor::new();
    let run = "sk-".repeat(50_000);
    let out = r.redact_text(&run);
    // The start was checked and let through; the rest, past the budget, is replaced.
    assert!(out.starts_with("sk-sk-") && out.contains("[REDACTED:api_key]") && out.len() < 1_000, "{out}");
    // A real key after such a run is still masked, in text and in JSON.
    let key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t";
    let text = format!("{run} then {key}");
    assert!(!r.redact_text(&text).contains(key));
    let json = serde_json::json!({"note": text}).to_string();
    assert!(!r.redact(&json).contains(key));
    // Ordinary text of the same size is untouched.
    let prose = "the quick brown fox jumps over the lazy dog; ".repeat(4_000);
    assert_eq!(r.redact_text(&prose), prose);
}

#[test]
fn redacted_json_stays_the_same_json_outside_the_secrets() {
    let r = Redactor::new();
    let text = "{\n    \"b\": 1,   \"user\": {\"mail\": \"ana@example.com\", \"token\": \"ghp_Xb7Kq2Lm9Pz4Rt6Vw8Yc1Dn3Fh5Jk0Gs2Ae9\"},\n  \"a\": [1,2,  3]\n}";
    let out = r.redact(text);
    assert_eq!(
        out,
        "{\n    \"b\": 1,   \"user\": {\"mail\": \"[REDACTED:email]\", \"token\": \"[REDACTED:secret]\"},\n  \"a\": [1,2,  3]\n}"
    );
    // A secret hidden by escapes is found; that one string is re-encoded.
    let escaped = r#"{"log": "key\nsk-proj-Tq3bX9vLm2Nw8Kp4Rz7Y", "n":  2}"#;
    assert_eq!(r.redact(escaped), r#"{"log": "key\n[REDACTED:api_key]", "n":  2}"#);
    let unicode = r#"{"to": "ana\u0040example.com"}"#;
    assert_eq!(r.redact(unicode), r#"{"to": "[REDACTED:email]"}"#);
}

/// A secret inside a JSON string is masked by `redact` (the JSON form the hook and the
/// audit log use) exactly as `redact_text` masks it, in a secret-named field too: a field
/// whose value is not a secret as a whole (`Bearer …`, prose) is still read as text.
/// Before, such a value came back whole: `{"authorization":"Bearer …"}` leaked its token.
#[test]
fn json_strings_are_redacted_as_text_is() {
    let r = Redactor::new();
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let cases = [
        (
            r#"{"authorization":"Bearer Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aF"}"#.to_owned(),
            r#"{"authorization":"Bearer [REDACTED:token]"}"#.to_owned(),
        ),
        (
            r#"{"token": "Bearer Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aF", "n": 1}"#.to_owned(),
            r#"{"token": "Bearer [REDACTED:token]", "n": 1}"#.to_owned(),
        ),
        (format!(r#"{{"authorization":"Bearer {jwt}"}}"#), r#"{"authorization":"Bearer [REDACTED:token]"}"#.to_owned()),
        (
            r#"{"headers":{"Authorization":"Basic dXNlcjpwYXNzd29yZA=="}}"#.to_owned(),
            r#"{"headers":{"Authorization":"Basic [REDACTED:token]"}}"#.to_owned(),
        ),
        (
            r#"{"credentials":"please send them to ana.silva@example.com"}"#.to_owned(),
            r#"{"credentials":"please send them to [REDACTED:email]"}"#.to_owned(),
        ),
        (
            r#"[{"secret":"ask ops@example.com, not the chat"},{"client_secret":"ask the team, not bob@example.org"}]"#
                .to_owned(),
            r#"[{"secret":"ask [REDACTED:email], not the chat"},{"client_secret":"ask the team, not [REDACTED:email]"}]"#
                .to_owned(),
        ),
    ];
    for (json, want) in &cases {
        assert_eq!(r.redact_text(json), *want, "redact_text");
        assert_eq!(r.redact(json), *want, "redact");
        // The audit log redacts a call's arguments as a value: the same spans.
        let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert!(r.redact_json(&mut value));
        assert_eq!(value, serde_json::from_str::<serde_json::Value>(want).unwrap(), "redact_json");
    }
    // A number that is no secret as the field's value is still read as a number: a card
    // number under `card_token` is masked (as a JSON string, so the text stays JSON).
    assert_eq!(r.redact(r#"{"card_token": 4111111111111111}"#), r#"{"card_token": "[REDACTED:card]"}"#);
}

/// AWS access key ids are base32 after their prefix, so about one in 28 has no digit;
/// those are found too (before, a body without a digit was taken for a word).
#[test]
fn aws_key_ids_without_a_digit_are_found() {
    let r = Redactor::new();
    for id in ["AKIAQWERTYUIOPASDFGH", "ASIAZXCVBNMLKJHGFDSA", "AKIAJTYSQFWOHXKRBDEV"] {
        assert_eq!(r.redact(&format!("aws_access_key_id = {id}")), "aws_access_key_id = [REDACTED:api_key]");
        assert_eq!(r.redact(&format!("密钥ID：{id}。")), "密钥ID：[REDACTED:api_key]。");
    }
    // Placeholders stay.
    for text in ["AKIAXXXXXXXXXXXXXXXX", "ASIAEXAMPLEEXAMPLEEX", "AKIA_PLACEHOLDER_KEY"] {
        assert_eq!(r.redact(text), text);
    }
}

/// `${NAME:?message}`, `${NAME:+word}` are shell parameter expansions, not assignments:
/// they stay as they are. A default value (`${NAME:-value}`) is a value, without its
/// operator.
#[test]
fn shell_parameter_expansions_are_not_assignments() {
    let r = Redactor::new();
    for text in [
        "${DB_PASSWORD:?err}",
        "psql -h db -U app \"${DB_PASSWORD:?DB_PASSWORD must be set}\"",
        "environment:\n  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it in .env}",
        "curl ${API_TOKEN:+--header} https://api.example.com",
        "echo \"${SECRET_KEY?missing}\"",
        ": \"${GITHUB_TOKEN:?}\"",
        "${DB_PASSWORD:-}",
        "${DB_PASSWORD:-changeme}",
    ] {
        assert_eq!(r.redact(text), text);
    }
    assert_eq!(r.redact("${DB_PASSWORD:-s3cr3t-Default}"), "${DB_PASSWORD:-[REDACTED:secret]}");
    assert_eq!(r.redact("DB_PASSWORD=${DB_PASSWORD:=Hunter2024}"), "DB_PASSWORD=${DB_PASSWORD:=[REDACTED:secret]}");
}

/// 64-character lines of base64, as PEM writes them.
const KEY_LINES: [&str; 3] = [
    "MIIEowIBAAKCAQEAx7Qb3Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aFpL0oKj5Ni2M",
    "Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aFx7Qb3Kj5Ni2MpL0oW4xXrT7yVb9nQ3hU",
    "d8sYh1NcQb6TzUa4oEg5HfW0iKpVr2LmZ7",
];

/// A private key cut before its END line ends with its base64 body: the text after it is
/// kept, up to and including the next key (which is masked on its own). Before, the span
/// ran to the next key's END line: 22 MB of a 50 MB log mix vanished.
#[test]
fn a_cut_private_key_ends_with_its_base64_body() {
    let r = Redactor::new();
    let head = "-----BEGIN RSA PRIVATE KEY-----";
    let whole = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----", KEY_LINES.join("\n"));
    let log = "2024-05-01T12:00:00Z INFO deploy: 3 hosts updated, 0 failed\n".repeat(20);
    for cut in [
        // Cut after a whole line, inside the last line, and in its first line.
        format!("{head}\n{}\n{}", KEY_LINES[0], KEY_LINES[1]),
        format!("{head}\n{}\n{}", KEY_LINES[0], &KEY_LINES[1][..20]),
        format!("{head}\n{}", &KEY_LINES[0][..40]),
        // Indented (YAML), with Windows line ends, with PEM headers.
        format!("{head}\n    {}\n    {}", KEY_LINES[0], KEY_LINES[2]),
        format!("{head}\r\n{}\r\n{}", KEY_LINES[0], KEY_LINES[2]),
        format!(
            "{head}\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F1B0C9A7D2E4F6A8B0C1D2E3F4A5B6C\n\n{}",
            KEY_LINES[0]
        ),
    ] {
        let text = format!("{cut}\n{log}{whole}\nThanks!\n");
        assert_eq!(
            r.redact_text(&text),
            format!("[REDACTED:private_key]\n{log}[REDACTED:private_key]\nThanks!\n"),
            "{cut:?}"
        );
    }
    // A word on the line after a cut key is text, not base64; so is a sentence.
    let text = format!("{head}\n{}\n{}\nThanks, see you.\nRegards\n", KEY_LINES[0], KEY_LINES[1]);
    assert_eq!(r.redact_text(&text), "[REDACTED:private_key]\nThanks, see you.\nRegards\n");
    let text = format!("{head}\n{}\n{}\nRegards\n", KEY_LINES[0], KEY_LINES[2]);
    assert_eq!(r.redact_text(&text), "[REDACTED:private_key]\nRegards\n");
    // Inside a JSON string (`\n` escapes), cut: the string's closing quote stays.
    let json = format!(r#"{{"key":"{head}\n{}\n{}","next":"ok"}}"#, KEY_LINES[0], KEY_LINES[2]);
    assert_eq!(r.redact(&json), r#"{"key":"[REDACTED:private_key]","next":"ok"}"#);
    assert_eq!(r.redact_text(&json), r#"{"key":"[REDACTED:private_key]","next":"ok"}"#);
    // On one line (newlines lost), cut: the words after it stay.
    let text = format!("key: {head} {} {} was pasted by mistake", KEY_LINES[0], KEY_LINES[2]);
    assert_eq!(r.redact_text(&text), "key: [REDACTED:private_key] was pasted by mistake");
}

/// Shapes the redactor did not know: PyPI, Vault, Doppler, Telegram and Discord bot
/// tokens, the `Bot` scheme, base64-encoded PEM keys (kubeconfig), `mysql -p…` and
/// `sshpass -p …`, `0086` phone numbers; and a UPS tracking number is not a phone.
#[test]
fn more_shapes_are_found() {
    let r = Redactor::new();
    let pypi = "pypi-AgEIcHlwaS5vcmcCJDVhYTJmNzRkLTQ1ZGItNGE2Ny1hMzQ5LWQ4ZjE5NzNiZWI0NgACKlsz";
    let vault = "hvs.CAESIJ2vRb8WcN4YdH6sQ1uE7aFZk3JqLx9TmPGh4KHGh2cy5Yb3Fz";
    let doppler = "dp.pt.Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aFpL0oKj5Ni2M";
    let telegram = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    let discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs";
    let encoded = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1DNENBUUF3QlFZREsyVndCQ0lFSVBxN1hrMnZSOW1MdzNKZDhzWWgxTmNRYjZUelVhNG9FZzVIZlcwaUtwVnIKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo=";
    let cases = [
        (
            format!("twine upload -u __token__ -p {pypi} dist/*"),
            "twine upload -u __token__ -p [REDACTED:api_key] dist/*".to_owned(),
        ),
        (
            format!("export VAULT_ADDR=https://vault:8200; vault login {vault}"),
            "export VAULT_ADDR=https://vault:8200; vault login [REDACTED:api_key]".to_owned(),
        ),
        (
            format!("Doppler 服务令牌 {doppler}，请勿外传。"),
            "Doppler 服务令牌 [REDACTED:api_key]，请勿外传。".to_owned(),
        ),
        (
            format!("GET https://api.telegram.org/bot{telegram}/sendMessage?chat_id=42"),
            "GET https://api.telegram.org/bot[REDACTED:api_key]/sendMessage?chat_id=42".to_owned(),
        ),
        (format!("Telegram-Bot: {telegram}"), "Telegram-Bot: [REDACTED:api_key]".to_owned()),
        (format!("client.run('{discord}')"), "client.run('[REDACTED:api_key]')".to_owned()),
        (
            "curl -H 'Authorization: Bot OTk2NTc4NDQ5ZmFrZTEyMw.GhKl9z.q3Zk8Lp' https://discord.com/api/v10/users/@me"
                .to_owned(),
            "curl -H 'Authorization: Bot [REDACTED:token]' https://discord.com/api/v10/users/@me".to_owned(),
        ),
        (format!("    client-key-data: {encoded}"), "    client-key-data: [REDACTED:private_key]".to_owned()),
        (
            "mysql -h db.internal -u root -pS3cr3t!Pass shop < dump.sql".to_owned(),
            "mysql -h db.internal -u root -p[REDACTED:password] shop < dump.sql".to_owned(),
        ),
        (
            "mysqldump -uroot -p'Tr0ub4dor&3' --all-databases".to_owned(),
            "mysqldump -uroot -p'[REDACTED:password]' --all-databases".to_owned(),
        ),
        (
            "sshpass -p 'Tr0ub4dor&3' ssh deploy@10.0.0.5 uptime".to_owned(),
            "sshpass -p '[REDACTED:password]' ssh deploy@10.0.0.5 uptime".to_owned(),
        ),
        (
            "sshpass -pHunter2024 scp app.tar.gz host:".to_owned(),
            "sshpass -p[REDACTED:password] scp app.tar.gz host:".to_owned(),
        ),
        ("客服电话：0086 138 1234 5678".to_owned(), "客服电话：[REDACTED:phone]".to_owned()),
        (
            "tel. 0086-13912345678, fax 008613812345678".to_owned(),
            "tel. [REDACTED:phone], fax [REDACTED:phone]".to_owned(),
        ),
    ];
    for (text, want) in &cases {
        assert_eq!(r.redact(text), *want);
    }
    // Look-alikes stay.
    let certificate = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lVZTNKZDhzWWgxTmNRYjZUelVhNG9FZzVIZlcwd0NnWUlLb1pJemowRUF3SXcKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
    for text in [
        format!("    certificate-authority-data: {certificate}"),
        "mysql -u root -p shop".to_owned(),
        "mysql -uroot -p\"$MYSQL_ROOT_PASSWORD\" -e 'show databases'".to_owned(),
        "mysql -P 3306 -h db -u app --protocol=tcp".to_owned(),
        "sshpass -p \"$SSHPASS\" ssh deploy@host".to_owned(),
        "sshpass -e ssh deploy@host".to_owned(),
        "The bot 1234 replied: Bot commands are listed in /help.".to_owned(),
        "UPS: 1Z 999 AA1 01 2345 6784".to_owned(),
        "Tracking 1Z 4A7 62E 03 9876 5432 (UPS Ground)".to_owned(),
        "pypi-package-name, hvs.example, dp.pt.short".to_owned(),
    ] {
        assert_eq!(r.redact(&text), text);
    }
}

/// Secrets found by shape alone, with no key next to them (checksums valid).
const PLANTED: &[&str] = &[
    "sk-proj-Tq3bX9vLm2Nw8Kp4Rz7YhG5s",
    "sk-ant-api03-Zr8Kd2Mx7Qp4Lw9Vb3Nc6Ty1Hj5Fg0Sa",
    "AKIAZ7QH3K2LM9XW4PRT",
    "ghp_Xb7Kq2Lm9Pz4Rt6Vw8Yc1Dn3Fh5Jk0Gs2Ae9",
    "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOP",
    "xoxb-2045-98311-Zk8Qm2Lp7Xw4",
    "xapp-1-A0123456789-1234567890123-abcdef0123456789",
    "AIzaSyD3fG7hJ9kL1mN5pQ8rT2vW4xZ6yB0cE3a",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "rk_test_51Hx9Qz2Lk8Mn4Pq7Rs3Tv6Wx",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/Zk8Qm2Lp7Xw4Tn9Rb6Vc3Hs",
    "https://discord.com/api/webhooks/112233445566778899/Zk8Qm2Lp7Xw4Tn9Rb6Vc3Hs-Aq1",
    "ana.silva@example.com",
    "zhang.wei+billing@mail.example.cn",
    "4111111111111111",
    "5555 5555 5555 4444",
    "378282246310005",
    "6011-1111-1111-1117",
    "DE89370400440532013000",
    "GB82 WEST 1234 5698 7654 32",
    "FR1420041010050500013M02606",
    "IT60X0542811101000000123456",
    "PL61109010140000071219812874",
    "11010519491231002X",
    "440308199901011234",
    "310104198506154323",
    "13812345678",
    "+86 139 1234 5678",
    "+49 30 1234 5678",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",
];

/// What may sit right next to a secret: anything but an ASCII letter, digit or `_`.
const AROUND: &[&str] = &[
    " ", "\n", "，", "。", "：", "（", "）", "(", ")", "\"", "'", "<", ">", "中文", "です", "über ", ", ", "; ", "\t",
    "「", "」",
];

/// Text with no secret in it: words of several languages and punctuation. (No bare
/// digit groups: a secret planted one space after one reads as part of a longer number,
/// which is meant.)
const WORDS: &[&str] = &[
    "the",
    "report",
    "was",
    "sent",
    "to",
    "the",
    "team",
    "on",
    "Monday",
    "order",
    "shipped",
    "密码",
    "请",
    "输入",
    "你好",
    "世界",
    "数据",
    "今日は",
    "ありがとう",
    "Straße",
    "größer",
    "привет",
    "мир",
    "key",
    "token",
    "password",
    "secret",
    "api",
    "v2",
    "四十二",
    "2024-05-01",
    "12:30",
    "#",
    "-",
    "/",
    ",",
    ".",
    "—",
    "…",
    "(",
    ")",
];

/// Field names of JSON objects: secret-named and not, in several languages.
const FIELDS: &[&str] = &[
    "authorization",
    "token",
    "password",
    "api_key",
    "client_secret",
    "密码",
    "note",
    "message",
    "user",
    "comment",
    "描述",
    "headers",
];

/// What a string value may start with.
const LEADS: &[&str] = &["", "see ", "please send it to ", "the key is ", "Authorization: ", "令牌：", "请用 "];

/// Secrets a JSON string may hold, each between what it needs to be found (a scheme, a
/// host).
const IN_STRINGS: &[(&str, &str, &str)] = &[
    ("Bearer ", "Zk3JqLx9TmP2vRb8WcN4YdH6sQ1uE7aF", ""),
    ("bearer ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", ""),
    ("Basic ", "dXNlcjpwYXNzd29yZA==", ""),
    ("", "ana.silva@example.com", ""),
    ("", "sk-proj-Tq3bX9vLm2Nw8Kp4Rz7YhG5s", ""),
    ("", "AKIAQWERTYUIOPASDFGH", ""),
    ("", "4111 1111 1111 1111", ""),
    ("", "+49 30 1234 5678", ""),
    ("postgres://app:", "p4ss-W0rd", "@db:5432/app"),
];

/// Words, each with the separator after it.
fn clean_words() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec((prop::sample::select(WORDS), prop::sample::select(&[" ", " ", "\n", ""][..])), 0..40)
        .prop_map(|words| words.into_iter().map(|(w, sep)| format!("{w}{sep}")).collect())
}

fn clean_text() -> impl Strategy<Value = String> {
    clean_words().prop_map(|words| words.concat())
}

/// `secret` planted between two words of `words`, between `before` and `after`.
fn plant(words: &[String], at: prop::sample::Index, before: &str, secret: &str, after: &str) -> String {
    let cut = at.index(words.len() + 1);
    format!("{}{before}{secret}{after}{}", words[..cut].concat(), words[cut..].concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn redaction_is_idempotent(words in clean_words(), secret in prop::sample::select(PLANTED), at in any::<prop::sample::Index>(), around in prop::sample::select(AROUND)) {
        let r = Redactor::new();
        let planted = plant(&words, at, around, secret, around);
        let once = r.redact(&planted).into_owned();
        let twice = r.redact(&once).into_owned();
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn no_planted_secret_survives(words in clean_words(), secret in prop::sample::select(PLANTED), at in any::<prop::sample::Index>(), before in prop::sample::select(AROUND), after in prop::sample::select(AROUND)) {
        let r = Redactor::new();
        let planted = plant(&words, at, before, secret, after);
        let out = r.redact(&planted);
        prop_assert!(!out.contains(secret), "{:?} survived in {:?}", secret, out);
    }

    /// What is masked in a string value as text is masked in JSON: a JSON object gives
    /// the same through `redact` (inside its strings) as through `redact_text`, and no
    /// planted secret survives either.
    #[test]
    fn json_and_text_agree(fields in prop::collection::vec((prop::sample::select(FIELDS), prop::sample::select(LEADS), prop::option::of(prop::sample::select(IN_STRINGS)), clean_words()), 1..5)) {
        let r = Redactor::new();
        let mut members = Vec::new();
        let mut planted = Vec::new();
        for (field, lead, secret, words) in &fields {
            let (before, secret, after) = secret.unwrap_or(("", "", ""));
            let value = format!("{lead}{before}{secret}{after} {}", words.concat());
            if !secret.is_empty() {
                planted.push(secret);
            }
            members.push(format!("{}:{}", serde_json::to_string(field).unwrap(), serde_json::to_string(value.trim_end()).unwrap()));
        }
        let json = format!("{{{}}}", members.join(","));
        let as_json = r.redact(&json);
        prop_assert_eq!(&as_json, &r.redact_text(&json), "{}", json);
        for secret in planted {
            prop_assert!(!as_json.contains(secret), "{:?} survived in {:?}", secret, as_json);
        }
    }

    #[test]
    fn clean_text_comes_back_unchanged(text in clean_text()) {
        let r = Redactor::new();
        prop_assert!(matches!(r.redact(&text), Cow::Borrowed(_)), "{:?} was altered", text);
    }

    #[test]
    fn any_text_is_safe(text in "\\PC{0,200}") {
        // Arbitrary text never panics, and the result is stable.
        let r = Redactor::new();
        let once = r.redact(&text).into_owned();
        prop_assert_eq!(r.redact(&once).into_owned(), once);
    }
}
