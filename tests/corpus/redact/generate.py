#!/usr/bin/env python3
"""Generates the redaction corpora `secrets.txt` and `clean.txt` (deterministic: seeded).

    python3 generate.py          # write both files, then check them
    python3 generate.py --check  # only check the files as they are

Format (both files): cases separated by a line holding exactly `%%`. In `secrets.txt`
every secret span is written `⟦label|secret text⟧`; the label is what comes before the
first `|`. The check parses the files, verifies every marker, the checksums of marked
cards, IBANs and national ids, the shape of every marked value, the context of every
`secret` / `token` / `password` span, and lints the unmarked text for anything that
looks like it should have been marked (or, in `clean.txt`, should not be there).

Pure JSON cases (a case that is a JSON object or array) are written the way serde_json
writes them (compact: no spaces; pretty: two-space indent), so a redactor that redacts
JSON value by value and re-encodes it gives back the same bytes.
"""

import base64
import json
import random
import re
import string
import sys
import uuid as _uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECRETS = HERE / "secrets.txt"
CLEAN = HERE / "clean.txt"
SEP = "\n%%\n"
OPEN, CLOSE = "\u27e6", "\u27e7"

R = random.Random(0x5EC2E7)

UP, LO, DG = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64URL = AN + "-_"
USED = set()

# ---------------------------------------------------------------- checksums


def luhn_ok(digits):
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def luhn_digit(partial):
    for c in DG:
        if luhn_ok(partial + c):
            return c
    raise AssertionError


CARD_WINDOW = re.compile(r"(?=((?<!\d)\d(?:[ -]?\d){12,18}(?!\d)))")


def luhn_windows(text):
    """Every 13-19 digit run (single spaces/dashes allowed) not touching another digit
    that passes Luhn and is not all one digit: what a card rule could take."""
    out = []
    for m in CARD_WINDOW.finditer(text):
        s = m.group(1)
        d = re.sub(r"\D", "", s)
        if luhn_ok(d) and len(set(d)) > 1:
            out.append((m.start(1), m.start(1) + len(s), s))
    return out


IBAN_LEN = {
    "DE": 22, "GB": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "CH": 21, "AT": 20,
    "BE": 16, "PL": 28, "SE": 24, "DK": 18, "NO": 15, "FI": 18, "IE": 22, "PT": 25,
    "LU": 20, "CZ": 24, "HU": 28, "RO": 24, "GR": 27, "TR": 26, "SK": 24, "HR": 21,
    "SI": 19, "LT": 20, "LV": 21, "EE": 20, "MT": 31, "SA": 24, "AE": 23, "LI": 21,
}


def iban_mod97(iban):
    s = iban[4:] + iban[:4]
    n = "".join(str(int(c, 36)) for c in s)
    return int(n) % 97


def iban_ok(text):
    c = text.replace(" ", "")
    return (
        re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", c) is not None
        and IBAN_LEN.get(c[:2]) == len(c)
        and iban_mod97(c) == 1
    )


CN_W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]


def cn_check(first17):
    return "10X98765432"[sum(int(a) * b for a, b in zip(first17, CN_W)) % 11]


def cn_ok(s):
    if not re.fullmatch(r"\d{17}[\dX]", s):
        return False
    y, mo, d = int(s[6:10]), int(s[10:12]), int(s[12:14])
    import datetime

    try:
        datetime.date(y, mo, d)
    except ValueError:
        return False
    return 1900 <= y <= 2024 and cn_check(s[:17]) == s[17]


def cpf_digits(nine):
    d = [int(c) for c in nine]
    r = sum(v * (10 - i) for i, v in enumerate(d)) % 11
    d1 = 0 if r < 2 else 11 - r
    d.append(d1)
    r = sum(v * (11 - i) for i, v in enumerate(d)) % 11
    d2 = 0 if r < 2 else 11 - r
    return f"{d1}{d2}"


def cpf_ok(s):
    m = re.fullmatch(r"(\d{3})\.(\d{3})\.(\d{3})-(\d{2})", s)
    if not m:
        return False
    nine = m.group(1) + m.group(2) + m.group(3)
    return len(set(nine)) > 1 and cpf_digits(nine) == m.group(4)


DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_ok(s):
    return re.fullmatch(r"\d{8}[A-Z]", s) is not None and DNI_LETTERS[int(s[:8]) % 23] == s[8]


def ssn_ok(s):
    m = re.fullmatch(r"(\d{3})-(\d{2})-(\d{4})", s)
    if not m:
        return False
    a, g, n = m.groups()
    return a != "000" and a != "666" and not a.startswith("9") and g != "00" and n != "0000"


# ---------------------------------------------------------------- random values


def rs(n, chars=AN):
    return "".join(R.choice(chars) for _ in range(n))


def max_digit_run(s):
    return max((len(m) for m in re.findall(r"\d+", s)), default=0)


def rnd(n, chars=AN, need=None, edge=None, maxrun=5, unique=True):
    """n random chars; `need`: groups each of which must occur; `edge`: allowed first
    and last chars; `maxrun`: longest allowed run of digits (so nothing inside looks
    like a phone or card number)."""
    if need is None:
        need = [g for g in (UP, LO, DG) if any(c in chars for c in g)] if n >= 12 else []
    edge = edge or "".join(c for c in chars if c in AN)
    for _ in range(10000):
        s = rs(n, chars)
        if s[0] not in edge or s[-1] not in edge:
            continue
        if not all(any(c in g for c in s) for g in need):
            continue
        if maxrun is not None and max_digit_run(s) > maxrun:
            continue
        if unique and s in USED:
            continue
        USED.add(s)
        return s
    raise AssertionError("cannot draw a value")


def digits(n, first=DG):
    return R.choice(first) + rs(n - 1, DG)


def hexs(n, maxrun=5):
    return rnd(n, HEX, need=[DG, "abcdef"], maxrun=maxrun)


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def b64(b):
    return base64.b64encode(b).decode()


def uuid4():
    while True:
        u = str(_uuid.UUID(bytes=R.randbytes(16), version=4))
        if max_digit_run(u) <= 5 and u not in USED:
            USED.add(u)
            return u


def safe_hex(n):
    return hexs(n, maxrun=4)


def no_card(s):
    return not luhn_windows(s)


# ---------------------------------------------------------------- api keys


def k_openai():
    return "sk-" + rnd(20) + "T3BlbkFJ" + rnd(20)


def k_proj():
    return "sk-proj-" + rnd(R.randint(40, 70), B64URL) + "T3BlbkFJ" + rnd(R.randint(40, 70), B64URL)


def k_svc():
    return "sk-svcacct-" + rnd(R.randint(40, 60), B64URL) + "T3BlbkFJ" + rnd(R.randint(40, 60), B64URL)


def k_ant():
    return "sk-ant-api03-" + rnd(93, B64URL) + "AA"


def k_aws():
    return "AKIA" + rnd(16, UP + "234567", need=[UP, "234567"])


def k_asia():
    return "ASIA" + rnd(16, UP + "234567", need=[UP, "234567"])


def k_aws_secret():
    return rnd(40, AN + "/+", need=[UP, LO, DG, "/+"])


def k_gh(prefix="ghp_"):
    return prefix + rnd(36)


def k_pat():
    return "github_pat_11" + rnd(20, UP + DG) + "_" + rnd(59)


def k_glpat():
    return "glpat-" + rnd(20)


def k_xoxb():
    return f"xoxb-{digits(12, '123456789')}-{digits(13, '123456789')}-{rnd(24)}"


def k_xoxp():
    return f"xoxp-{digits(12, '123456789')}-{digits(12, '123456789')}-{digits(13, '123456789')}-{hexs(32, None)}"


def k_xoxa():
    return f"xoxa-2-{digits(12, '123456789')}-{digits(13, '123456789')}-{hexs(64, None)}"


def k_xoxs():
    return f"xoxs-{digits(11, '123456789')}-{digits(12, '123456789')}-{digits(13, '123456789')}-{hexs(64, None)}"


def k_xapp():
    return f"xapp-1-A{rnd(10, UP + DG)}-{digits(13, '123456789')}-{hexs(64, None)}"


def k_google():
    return "AIzaSy" + rnd(33, B64URL)


def k_gocspx():
    return "GOCSPX-" + rnd(28, B64URL)


def k_stripe(prefix="sk_live_"):
    return prefix + "51" + rnd(R.choice([24, 32, 46, 97]) - 2)


def k_whsec():
    return "whsec_" + rnd(32)


def k_hf():
    return "hf_" + rnd(34, UP + LO)


def k_npm():
    return "npm_" + rnd(36)


def k_sg():
    return "SG." + rnd(22, B64URL) + "." + rnd(43, B64URL)


KEYS = {
    "openai": k_openai, "proj": k_proj, "svc": k_svc, "ant": k_ant, "aws": k_aws, "asia": k_asia,
    "ghp": lambda: k_gh("ghp_"), "gho": lambda: k_gh("gho_"), "ghu": lambda: k_gh("ghu_"),
    "ghs": lambda: k_gh("ghs_"), "ghr": lambda: k_gh("ghr_"), "pat": k_pat, "glpat": k_glpat,
    "xoxb": k_xoxb, "xoxp": k_xoxp, "xoxa": k_xoxa, "xoxs": k_xoxs, "xapp": k_xapp,
    "google": k_google, "gocspx": k_gocspx, "sk_live": lambda: k_stripe("sk_live_"),
    "sk_test": lambda: k_stripe("sk_test_"), "rk_live": lambda: k_stripe("rk_live_"),
    "rk_test": lambda: k_stripe("rk_test_"), "whsec": k_whsec, "hf": k_hf, "npm": k_npm,
    "sg": k_sg, "aws_secret": k_aws_secret,
}


def key(kind=None):
    kind = kind or R.choice([k for k in KEYS if k != "aws_secret"])
    while True:
        v = KEYS[kind]()
        if no_card(v):
            return v


# ---------------------------------------------------------------- other secret values

WORDS = (
    "amber anchor basalt cobalt copper delta ember falcon glacier harbor indigo jasper juniper "
    "kestrel lantern marble meadow nimbus orchid pebble quartz raven saffron sierra tundra "
    "umber velvet willow zephyr"
).split()
PW_SYMBOLS = "!#^-_.+~"


def pwd():
    """A password usable unquoted (no whitespace, quotes, , ; & < > ( ) [ ] { } `)."""
    form = R.random()
    if form < 0.6:
        v = rnd(R.randint(10, 18), AN + PW_SYMBOLS, need=[UP, LO, DG, PW_SYMBOLS])
    elif form < 0.8:
        w = R.sample(WORDS, 3)
        v = f"{w[0].capitalize()}{R.choice('-_.')}{w[1]}{R.choice('-_.')}{w[2]}{R.randint(10, 99)}{R.choice('!#^~')}"
    else:
        v = rnd(R.randint(5, 7), LO) + R.choice("!#^~") + rnd(R.randint(3, 4), DG, need=[]) + rnd(R.randint(3, 5), UP)
    assert v not in USED or True
    USED.add(v)
    return v


def pwd_spaces():
    """A passphrase with spaces (quoted contexts only)."""
    w = R.sample(WORDS, 4)
    return " ".join(w) + f" {R.randint(10, 99)}"


def pwurl():
    """A password for URL credentials: may hold @ # ! % : but no / or whitespace."""
    base = rnd(R.randint(9, 14))
    specials = R.sample(["@", "#", "!", "%40", "%23", "%21", ":", "-", "_", ".", "~", "!"], R.randint(1, 2))
    for s in specials:
        i = R.randint(1, len(base) - 1)
        base = base[:i] + s + base[i:]
    return base


def secv(kind=None):
    """A random-looking secret value (letters and digits, 8+ chars, no quotes)."""
    kind = kind or R.choice(["hex32", "hex40", "hex64", "b64", "an32", "an24", "b64u"])
    if kind == "hex32":
        return hexs(32)
    if kind == "hex40":
        return hexs(40)
    if kind == "hex64":
        return hexs(64)
    if kind == "b64":
        while True:
            v = b64(R.randbytes(R.choice([24, 30, 32])))
            if re.search(r"\d", v) and re.search(r"[A-Za-z]", v) and max_digit_run(v) <= 5:
                return v
    if kind == "b64u":
        return rnd(R.choice([32, 43]), B64URL)
    if kind == "an24":
        return rnd(24)
    return rnd(32)


# ---------------------------------------------------------------- tokens


def jwt(email=None):
    alg = R.choice(["HS256", "RS256", "ES256", "HS512", "RS256"])
    hdr = {"alg": alg, "typ": "JWT"}
    if alg.startswith(("RS", "ES")):
        hdr["kid"] = rnd(R.choice([8, 16]), AN + "-_")
    now = R.randint(1_700_000_000, 1_760_000_000)
    payload = {}
    payload["iss"] = R.choice(
        ["https://auth.example.com/", "https://login.acme-corp.io", "accounts.example.org", "https://sso.northwind.dev"]
    )
    payload["sub"] = R.choice([str(R.randint(10000, 99999)), "usr_" + rnd(12, LO + DG), uuid4()])
    if email:
        payload["email"] = email
    if R.random() < 0.5:
        payload["aud"] = R.choice(["api", "web-app", "https://api.example.com"])
    payload["iat"] = now
    payload["exp"] = now + R.choice([900, 3600, 86400])
    if R.random() < 0.4:
        payload["scope"] = R.choice(["read write", "openid profile email", "orders:read"])
    siglen = {"HS256": 32, "HS512": 64, "ES256": 64, "RS256": 256}[alg]
    enc = lambda o: b64u(json.dumps(o, separators=(",", ":")).encode())
    while True:
        t = f"{enc(hdr)}.{enc(payload)}.{b64u(R.randbytes(siglen))}"
        if no_card(t) and max_digit_run(t) <= 6:
            return t


def opaque():
    form = R.choice(["ya29", "an", "hex", "eaa", "shpat", "sl", "pat", "dot"])
    if form == "ya29":
        return "ya29.a0" + rnd(R.randint(90, 130), B64URL)
    if form == "an":
        return rnd(R.choice([32, 40, 48]))
    if form == "hex":
        return hexs(64)
    if form == "eaa":
        return "EAAG" + rnd(R.randint(100, 160))
    if form == "shpat":
        return "shpat_" + hexs(32)
    if form == "sl":
        return "sl.B" + rnd(R.randint(110, 130), B64URL)
    if form == "pat":
        return "pat-na1-" + uuid4()
    return rnd(16) + "." + rnd(27, B64URL)


USERS = ["admin", "deploy", "svc_backup", "app", "postgres", "root", "ci-bot", "reporting", "etl_user",
         "grafana", "jenkins", "analytics", "billing", "monitor", "webapp", "readonly", "ana", "kmueller",
         "zhangwei", "tanaka", "ops", "svc-sync"]


def basic():
    while True:
        u = R.choice(USERS)
        p = pwd()
        v = b64(f"{u}:{p}".encode())
        if re.search(r"\d", v) and max_digit_run(v) <= 5 and no_card(v):
            return v


# ---------------------------------------------------------------- private keys


def wrap(s, width=64):
    return [s[i : i + width] for i in range(0, len(s), width)]


def openssh_body(keytype="ssh-ed25519"):
    def string_(b):
        return len(b).to_bytes(4, "big") + b

    pub = R.randbytes(32)
    pubblob = string_(keytype.encode()) + string_(pub)
    check = R.randbytes(4)
    priv = check + check + pubblob + string_(R.randbytes(32) + pub) + string_(
        f"{R.choice(USERS)}@{R.choice(['laptop', 'build-01', 'bastion', 'mbp-ana', 'ci'])}".encode()
    )
    priv += bytes(range(1, 1 + (-len(priv)) % 8))
    body = b"openssh-key-v1\0" + string_(b"none") + string_(b"none") + string_(b"") + (1).to_bytes(4, "big")
    body += string_(pubblob) + string_(priv)
    return b64(body)


def pem_private(kind=None, indent=""):
    kind = kind or R.choice(["rsa", "pkcs8", "ec", "openssh", "openssh", "ec", "pkcs8_ed", "enc", "pkcs8_ec"])
    width = 64
    extra = []
    if kind == "rsa":
        label = "RSA PRIVATE KEY"
        if R.random() < 0.5:
            der = bytes.fromhex("3082025c02010002818100") + R.randbytes(593)
        else:
            der = bytes.fromhex("308204a40201000282010100") + R.randbytes(1180)
    elif kind == "rsa_enc":
        label = "RSA PRIVATE KEY"
        extra = ["Proc-Type: 4,ENCRYPTED", f"DEK-Info: AES-128-CBC,{rnd(32, '0123456789ABCDEF', need=[])}", ""]
        der = R.randbytes(608)
    elif kind == "pkcs8":
        label = "PRIVATE KEY"
        der = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100") + R.randbytes(1178)
    elif kind == "pkcs8_ed":
        label = "PRIVATE KEY"
        der = bytes.fromhex("302e020100300506032b657004220420") + R.randbytes(32)
    elif kind == "pkcs8_ec":
        label = "PRIVATE KEY"
        der = (
            bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420")
            + R.randbytes(32)
            + bytes.fromhex("a14403420004")
            + R.randbytes(64)
        )
    elif kind == "ec":
        label = "EC PRIVATE KEY"
        der = (
            bytes.fromhex("307702010104")
            + b"\x20"
            + R.randbytes(32)
            + bytes.fromhex("a00a06082a8648ce3d030107a144034200 04".replace(" ", ""))
            + R.randbytes(64)
        )
    elif kind == "enc":
        label = "ENCRYPTED PRIVATE KEY"
        der = bytes.fromhex(
            "308205243056" "06092a864886f70d01050d3049" "303106092a864886f70d01050c30240410"
        ) + R.randbytes(R.choice([300, 420]))
    elif kind == "openssh":
        label = "OPENSSH PRIVATE KEY"
        width = 70
        lines = wrap(openssh_body(), 70)
        text = [f"-----BEGIN {label}-----"] + lines + [f"-----END {label}-----"]
        return ("\n" + indent).join(text)
    else:
        raise ValueError(kind)
    lines = extra + wrap(b64(der), width)
    text = [f"-----BEGIN {label}-----"] + lines + [f"-----END {label}-----"]
    return ("\n" + indent).join(text)


def pem_public(kind=None, indent=""):
    kind = kind or R.choice(["pub", "cert", "rsapub", "csr", "pub_ec"])
    if kind == "pub":
        label, der = "PUBLIC KEY", bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100") + R.randbytes(261)
    elif kind == "pub_ec":
        label, der = "PUBLIC KEY", bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d03010703420004") + R.randbytes(64)
    elif kind == "rsapub":
        label, der = "RSA PUBLIC KEY", bytes.fromhex("3082010a0282010100") + R.randbytes(261)
    elif kind == "csr":
        label, der = "CERTIFICATE REQUEST", bytes.fromhex("308202a33082018b020100305e310b3009") + R.randbytes(560)
    else:
        label, der = "CERTIFICATE", bytes.fromhex("3082036b30820253a003020102021400") + R.randbytes(R.choice([620, 860]))
    while True:
        body = b64(der)
        if max_digit_run(body) <= 4:
            break
        der = der[:40] + R.randbytes(len(der) - 40)
    text = [f"-----BEGIN {label}-----"] + wrap(body) + [f"-----END {label}-----"]
    return ("\n" + indent).join(text)


def ssh_public(kind=None):
    kind = kind or R.choice(["ed", "rsa"])
    while True:
        if kind == "ed":
            body = b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + R.randbytes(32))
            t = "ssh-ed25519"
        else:
            body = b64(b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00" + R.randbytes(256))
            t = "ssh-rsa"
        if max_digit_run(body) <= 4:
            return f"{t} {body}"


# ---------------------------------------------------------------- webhooks


def webhook(kind=None):
    kind = kind or R.choice(["slack", "discord", "teams", "feishu", "dingtalk", "wecom"])
    if kind == "slack":
        return f"https://hooks.slack.com/services/T{rnd(R.choice([8, 10]), UP + DG)}/B{rnd(R.choice([8, 10]), UP + DG)}/{rnd(24)}"
    if kind == "discord":
        while True:
            v = f"https://discord.com/api/webhooks/{digits(R.choice([18, 19]), '1')}/{rnd(68, B64URL)}"
            if no_card(v):
                return v
    if kind == "teams":
        tenant = R.choice(["contoso", "fabrikam", "acmecorp", "northwind", "tailspin"])
        return (
            f"https://{tenant}.webhook.office.com/webhookb2/{uuid4()}@{uuid4()}"
            f"/IncomingWebhook/{hexs(32)}/{uuid4()}"
        )
    if kind == "feishu":
        return f"https://open.feishu.cn/open-apis/bot/v2/hook/{uuid4()}"
    if kind == "dingtalk":
        return f"https://oapi.dingtalk.com/robot/send?access_token={hexs(64)}"
    if kind == "wecom":
        return f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={uuid4()}"
    raise ValueError(kind)


# ---------------------------------------------------------------- emails

FIRST = ("ana liam sofia noah mia lucas emma ethan olivia mateo chloe yuki hiroshi wei li fatima omar ivan "
         "olga jean marie klaus anna pierre camille raj priya sven ingrid diego lena tom nina jonas elif "
         "aiko kenji mei chen lars freya").split()
LAST = ("garcia smith mueller schmidt dubois martin rossi tanaka sato wang zhang li chen ivanov petrova kowalski "
        "nielsen johansson silva santos patel kumar novak horvat oconnor walsh fischer weber lefebvre moreau").split()
DOMAINS = ["example.com", "example.org", "example.net", "acme-corp.io", "mail.contoso.com", "fabrikam.co.uk",
           "gmail.com", "outlook.com", "qq.com", "163.com", "yahoo.co.jp", "web.de", "orange.fr", "yandex.ru",
           "proton.me", "northwind.dev", "university.edu", "posteo.de", "sina.com.cn", "tailspin-toys.com",
           "eu.example-shop.com", "hotmail.fr", "gmx.net", "mail.ru"]


def email(domain=None):
    f, l = R.choice(FIRST), R.choice(LAST)
    form = R.randint(0, 7)
    local = [f"{f}.{l}", f"{f}_{l}", f"{f[0]}.{l}", f"{f}+{R.choice(['billing', 'news', 'dev', 'shop'])}",
             f"{f}.{l}{R.randint(1, 99)}", f"{f.capitalize()}.{l.capitalize()}", f"{f}-{l}", f"{l}{f[0]}{R.randint(70, 99)}"][form]
    v = f"{local}@{domain or R.choice(DOMAINS)}"
    if v in USED:
        return email(domain)
    USED.add(v)
    return v


# ---------------------------------------------------------------- phones


def d(n):
    return rs(n, DG)


def phone(kind=None):
    kinds = ["us_paren", "us_dash", "us_toll", "us_intl", "uk", "uk_intl", "uk_mob", "de", "de_intl",
             "de_mob", "fr", "fr_intl", "jp", "jp_intl", "cn", "cn_sp", "cn_dash", "cn_intl", "cn_land",
             "ru", "es", "it", "br", "in", "au", "nl"]
    kind = kind or R.choice(kinds)
    area = lambda: R.choice("2345689") + d(2)
    ex = lambda: R.choice(["555", R.choice("23456789") + d(2)])
    line = lambda e: f"01{d(2)}" if e == "555" else d(4)
    while True:
        if kind == "us_paren":
            e = ex(); v = f"({area()}) {e}-{line(e)}"
        elif kind == "us_dash":
            e = ex(); v = f"{area()}-{e}-{line(e)}"
        elif kind == "us_toll":
            v = f"1-{R.choice(['800', '888', '877', '866'])}-555-01{d(2)}"
        elif kind == "us_intl":
            e = ex()
            a = area()
            v = R.choice([f"+1 {a} {e} {line(e)}", f"+1 ({a}) {e}-{line(e)}", f"+1-{a}-{e}-{line(e)}", f"+1.{a}.{e}.{line(e)}"])
        elif kind == "uk":
            v = R.choice([f"020 7946 0{d(3)}", f"0161 496 0{d(3)}", f"0113 496 0{d(3)}"])
        elif kind == "uk_intl":
            v = R.choice([f"+44 20 7946 0{d(3)}", f"+44 (0)20 7946 0{d(3)}", f"+44 161 496 0{d(3)}"])
        elif kind == "uk_mob":
            v = R.choice([f"07700 900{d(3)}", f"+44 7700 900{d(3)}"])
        elif kind == "de":
            v = R.choice([f"030 {d(4)} {d(4)}", f"089 {d(3)} {d(4)}", f"040 {d(3)} {d(3)} {d(2)}", f"0221 {d(4)} {d(3)}"])
        elif kind == "de_intl":
            v = R.choice([f"+49 30 {d(8)}", f"+49 89 {d(4)} {d(3)}", f"+49 (0)30 {d(4)} {d(4)}", f"+49 40 {d(3)} {d(4)}"])
        elif kind == "de_mob":
            v = R.choice([f"+49 151 {d(8)}", f"0171 {d(7)}", f"+49 170 {d(3)} {d(4)}", f"0160 {d(3)} {d(4)}"])
        elif kind == "fr":
            v = R.choice([f"06 {d(2)} {d(2)} {d(2)} {d(2)}", f"01 {d(2)} {d(2)} {d(2)} {d(2)}", f"07.{d(2)}.{d(2)}.{d(2)}.{d(2)}"])
        elif kind == "fr_intl":
            v = R.choice([f"+33 6 {d(2)} {d(2)} {d(2)} {d(2)}", f"+33 1 {d(2)} {d(2)} {d(2)} {d(2)}", f"+33 (0)7 {d(2)} {d(2)} {d(2)} {d(2)}"])
        elif kind == "jp":
            v = R.choice([f"090-{d(4)}-{d(4)}", f"080-{d(4)}-{d(4)}", f"03-{d(4)}-{d(4)}", f"06-{d(4)}-{d(4)}"])
        elif kind == "jp_intl":
            v = R.choice([f"+81 90-{d(4)}-{d(4)}", f"+81 3-{d(4)}-{d(4)}", f"+81 80 {d(4)} {d(4)}"])
        elif kind == "cn":
            v = f"1{R.choice('3456789')}{d(9)}"
        elif kind == "cn_sp":
            v = f"1{R.choice('3456789')}{d(1)} {d(4)} {d(4)}"
        elif kind == "cn_dash":
            v = f"1{R.choice('3456789')}{d(1)}-{d(4)}-{d(4)}"
        elif kind == "cn_intl":
            v = R.choice([f"+86 1{R.choice('3456789')}{d(1)} {d(4)} {d(4)}", f"+86 1{R.choice('3456789')}{d(9)}", f"+86-10-{d(4)}-{d(4)}", f"+86 21 {d(4)} {d(4)}"])
        elif kind == "cn_land":
            v = R.choice([f"010-{d(8)}", f"021-{d(8)}", f"0755-{d(8)}", f"020-{d(4)}-{d(4)}"])
        elif kind == "ru":
            v = R.choice([f"+7 (495) {d(3)}-{d(2)}-{d(2)}", f"+7 916 {d(3)}-{d(2)}-{d(2)}", f"+7 812 {d(3)} {d(2)} {d(2)}"])
        elif kind == "es":
            v = R.choice([f"+34 6{d(2)} {d(3)} {d(3)}", f"+34 91 {d(3)} {d(2)} {d(2)}"])
        elif kind == "it":
            v = R.choice([f"+39 06 {d(4)} {d(4)}", f"+39 3{d(2)} {d(3)} {d(4)}", f"02 {d(4)} {d(4)}"])
        elif kind == "br":
            v = R.choice([f"+55 11 9{d(4)}-{d(4)}", f"+55 (21) 9{d(4)}-{d(4)}"])
        elif kind == "in":
            v = R.choice([f"+91 9{d(4)} {d(5)}", f"+91 80 {d(4)} {d(4)}"])
        elif kind == "au":
            v = R.choice([f"+61 2 {d(4)} {d(4)}", f"0412 {d(3)} {d(3)}", f"+61 412 {d(3)} {d(3)}"])
        elif kind == "nl":
            v = R.choice([f"+31 20 {d(3)} {d(4)}", f"06-{d(8)}", f"020 {d(3)} {d(4)}"])
        else:
            raise ValueError(kind)
        if no_card(v) and v not in USED:
            USED.add(v)
            return v


# ---------------------------------------------------------------- cards

CARD_KINDS = {
    "visa": (["4"], 16), "mc": (["51", "52", "53", "54", "55", "2221", "2720"], 16), "amex": (["34", "37"], 15),
    "discover": (["6011", "65"], 16), "jcb": (["3528", "3589"], 16), "unionpay": (["62"], 16),
    "unionpay19": (["62"], 19), "diners": (["36", "38"], 14), "visa13": (["4"], 13), "maestro": (["6759", "5018"], 19),
    "mir": (["2200", "2202", "2204"], 16),
}
GROUPS = {16: [4, 4, 4, 4], 15: [4, 6, 5], 14: [4, 6, 4], 19: [4, 4, 4, 4, 3], 13: [4, 4, 5]}


def card(kind=None, sep=None):
    kind = kind or R.choice(["visa", "visa", "mc", "mc", "amex", "discover", "jcb", "unionpay", "unionpay19", "diners", "visa13", "maestro"])
    prefixes, n = CARD_KINDS[kind]
    while True:
        p = R.choice(prefixes)
        body = p + d(n - len(p) - 1)
        num = body + luhn_digit(body)
        if num in USED or len(set(num)) < 4:
            continue
        USED.add(num)
        break
    s = sep if sep is not None else R.choice([" ", " ", "-", ""])
    if not s:
        return num
    out, i = [], 0
    for g in GROUPS[n]:
        out.append(num[i : i + g])
        i += g
    return s.join(out)


# ---------------------------------------------------------------- IBAN

IBAN_BBAN = {
    "DE": "8n10n", "GB": "4a6n8n", "FR": "5n5n11n2n", "ES": "4n4n2n10n", "IT": "1a5n5n12n", "NL": "4a10n",
    "CH": "5n12n", "AT": "5n11n", "BE": "12n", "PL": "8n16n", "SE": "3n17n", "DK": "4n10n", "NO": "4n7n",
    "FI": "3n11n", "IE": "4a6n8n", "PT": "4n4n11n2n", "LU": "3n13n", "CZ": "4n6n10n", "HU": "3n4n1n15n1n",
    "RO": "4a16n", "GR": "3n4n16n", "TR": "5n1n16n", "SK": "4n6n10n", "HR": "7n10n", "SI": "5n8n2n",
    "LT": "5n11n", "LV": "4a13n", "EE": "2n2n11n1n", "MT": "4a5n18n", "SA": "2n18n", "AE": "3n16n", "LI": "5n12n",
}
BANKS = {"GB": ["NWBK", "BARC", "HBUK", "LOYD", "MIDL"], "NL": ["ABNA", "INGB", "RABO", "TRIO"],
         "IE": ["AIBK", "BOFI"], "RO": ["BTRL", "RNCB"], "LV": ["HABA", "PARX"], "MT": ["MALT", "VALL"]}


def iban(cc=None, grouped=None):
    cc = cc or R.choice(["DE", "DE", "GB", "GB", "FR", "ES", "IT", "NL", "CH", "AT", "BE", "PL", "SE", "DK", "NO",
                         "FI", "IE", "PT", "LU", "CZ", "HU", "RO"])
    while True:
        bban = ""
        for n, t in re.findall(r"(\d+)([an])", IBAN_BBAN[cc]):
            n = int(n)
            if t == "a":
                bban += R.choice(BANKS[cc]) if n == 4 and cc in BANKS else rs(n, UP)
            else:
                bban += d(n)
        if cc == "BE":
            r = int(bban[:10]) % 97 or 97
            bban = bban[:10] + f"{r:02d}"
        chk = 98 - iban_mod97(cc + "00" + bban)
        v = f"{cc}{chk:02d}{bban}"
        assert iban_ok(v) and len(v) == IBAN_LEN[cc], v
        g = grouped if grouped is not None else R.random() < 0.55
        if g:
            v = " ".join(v[i : i + 4] for i in range(0, len(v), 4))
        if no_card(v) and v.replace(" ", "") not in USED:
            USED.add(v.replace(" ", ""))
            return v


# ---------------------------------------------------------------- national ids

CN_REGIONS = ["110101", "110105", "110108", "120101", "310101", "310104", "310115", "320102", "320106", "330102",
              "330106", "340104", "350203", "370202", "420106", "430104", "440103", "440106", "440305", "440306",
              "500103", "510104", "510107", "610113", "210102", "230102", "530102", "360102", "410105", "130102",
              "140105", "150102", "450103", "460105", "520102", "620102", "650102"]


def cn_id(want_x=None):
    import datetime

    while True:
        day = datetime.date(1950, 1, 1) + datetime.timedelta(days=R.randint(0, 20000))
        first = R.choice(CN_REGIONS) + day.strftime("%Y%m%d") + d(3)
        v = first + cn_check(first)
        if want_x is not None and (v[-1] == "X") != want_x:
            continue
        if no_card(v) and no_card(v[:17]) and v not in USED:
            USED.add(v)
            return v


def ssn():
    while True:
        a = R.randint(1, 899)
        if a == 666:
            continue
        v = f"{a:03d}-{R.randint(1, 99):02d}-{R.randint(1, 9999):04d}"
        if ssn_ok(v) and v not in USED:
            USED.add(v)
            return v


def cpf():
    while True:
        nine = d(9)
        if len(set(nine)) < 3:
            continue
        v = f"{nine[:3]}.{nine[3:6]}.{nine[6:]}-{cpf_digits(nine)}"
        if v not in USED:
            USED.add(v)
            return v


def dni():
    n = digits(8, "1234567")
    return n + DNI_LETTERS[int(n) % 23]


def nid(kind=None):
    kind = kind or R.choice(["cn", "cn", "ssn", "cpf", "dni"])
    return {"cn": cn_id, "cnx": lambda: cn_id(True), "ssn": ssn, "cpf": cpf, "dni": dni}[kind]()


# ---------------------------------------------------------------- markers


def mark(label, value):
    assert OPEN not in value and CLOSE not in value
    return f"{OPEN}{label}|{value}{CLOSE}"


def K(kind=None):
    return mark("api_key", key(kind))


def S(value=None):
    return mark("secret", value if value is not None else secv())


def SP(value=None):
    """A password-named secret value."""
    return mark("secret", value if value is not None else pwd())


def T(value=None):
    return mark("token", value if value is not None else opaque())


def J(email_=None):
    return mark("token", jwt(email_))


def B():
    return mark("token", basic())


def P(value=None):
    return mark("password", value if value is not None else pwurl())


def E(value=None, domain=None):
    return mark("email", value if value is not None else email(domain))


def PH(kind=None):
    return mark("phone", phone(kind))


def C(kind=None, sep=None):
    return mark("card", card(kind, sep))


def I(cc=None, grouped=None):
    return mark("iban", iban(cc, grouped))


def N(kind=None):
    return mark("national_id", nid(kind))


def PK(kind=None, indent=""):
    return mark("private_key", pem_private(kind, indent))


def W(kind=None):
    return mark("webhook", webhook(kind))


def ts(sep="T", z="Z", ms=True):
    y, mo, dd = R.choice([2023, 2024, 2025]), R.randint(1, 12), R.randint(1, 28)
    h, mi, s = R.randint(0, 23), R.randint(0, 59), R.randint(0, 59)
    frac = f".{R.randint(0, 999):03d}" if ms else ""
    return f"{y}-{mo:02d}-{dd:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{frac}{z}"


def ip():
    return R.choice([f"10.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)}",
                     f"192.168.{R.randint(0, 255)}.{R.randint(1, 254)}", f"203.0.113.{R.randint(1, 254)}",
                     f"198.51.100.{R.randint(1, 254)}", f"172.{R.randint(16, 31)}.{R.randint(0, 255)}.{R.randint(1, 254)}"])


def reqid():
    return R.choice(["req_", "trace-", ""]) + safe_hex(R.choice([16, 24]))


def jdump(obj, pretty=False):
    """JSON the way serde_json writes it."""
    if pretty:
        return json.dumps(obj, ensure_ascii=False, indent=2)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


SECRET_CASES = []
CLEAN_CASES = []


def sec(n=1):
    def register(fn):
        for _ in range(n):
            SECRET_CASES.append(fn().strip("\n"))
        return fn

    return register


def cln(n=1):
    def register(fn):
        for _ in range(n):
            CLEAN_CASES.append(fn().strip("\n"))
        return fn

    return register


# =================================================================== secrets.txt

HOSTS = ["db.internal.example.com", "10.0.3.17", "pg-primary.prod.svc.cluster.local", "mysql.acme-corp.net",
         "cache-01.eu-west-1.example.net", "localhost", "rabbitmq.example.org", "db", "192.168.10.25",
         "warehouse.northwind.dev"]
DBS = ["shop", "app", "billing", "analytics", "orders", "crm", "inventory", "auth"]


def host():
    return R.choice(HOSTS)


def user():
    return R.choice(USERS)


# ------------------------------------------------------------ .env files


@sec(2)
def _():
    return f"""
# production settings
APP_ENV=production
APP_DEBUG=false
DATABASE_URL=postgres://{user()}:{P()}@{host()}:5432/{R.choice(DBS)}
REDIS_URL=redis://cache.internal:6379/0
OPENAI_API_KEY={S(key('proj'))}
STRIPE_WEBHOOK_SECRET={S(key('whsec'))}
MAIL_FROM={E()}
"""


@sec(2)
def _():
    return f"""
export AWS_ACCESS_KEY_ID={K('aws')}
export AWS_SECRET_ACCESS_KEY="{S(key('aws_secret'))}"
export AWS_DEFAULT_REGION={R.choice(['eu-central-1', 'us-east-1', 'ap-northeast-1'])}
"""


@sec()
def _():
    return f"""
# Anthropic
ANTHROPIC_API_KEY='{S(key('ant'))}'
# GitHub (fine-grained PAT, expires in 90 days)
GITHUB_PAT={K('pat')}
GH_TOKEN={S(key('ghp'))}
HF_HUB_TOKEN="{S(key('hf'))}"
"""


@sec()
def _():
    return f"""
SESSION_SECRET={S(secv('hex64'))}
JWT_SIGNING_KEY={S(secv('b64'))}
ENCRYPTION_KEY={S(secv('b64'))}
ADMIN_EMAIL={E()}
LOG_LEVEL=info
"""


@sec()
def _():
    return f"""
DB_HOST={ip()}
DB_PORT=3306
DB_USER=shop
DB_PASSWORD={SP()}
DB_NAME=shop_prod
MYSQL_ROOT_PASSWORD={SP()}
"""


@sec()
def _():
    return f"""
# .env.local — do not commit
NEXT_PUBLIC_MAPS_KEY={K('google')}
STRIPE_KEY={K('sk_test')}
STRIPE_SECRET={S(key('sk_test'))}
SENDGRID_API_KEY={S(key('sg'))}
SLACK_WEBHOOK_URL={W('slack')}
"""


@sec()
def _():
    return f"""
HUGGINGFACE_HUB_CACHE=/data/hf
HF_TOKEN="{S(key('hf'))}"
WANDB_API_KEY={S(secv('hex40'))}
NPM_TOKEN={S(key('npm'))}
GOOGLE_CLIENT_ID={digits(12, '123456789')}-{rnd(32, LO + DG)}.apps.googleusercontent.com
GOOGLE_CLIENT_SECRET={S(key('gocspx'))}
"""


@sec()
def _():
    return f"""
SMTP_HOST=smtp.example.com
SMTP_PORT=587
SMTP_USER={E()}
SMTP_PASS={SP()}
SMS_FROM={PH('us_intl')}
"""


@sec()
def _():
    return f"""
# feature flags
ENABLE_BETA=true
MAX_UPLOAD_MB=25
SENTRY_ENVIRONMENT=staging
SLACK_BOT_TOKEN={S(key('xoxb'))}
SLACK_APP_TOKEN={S(key('xapp'))}
SLACK_SIGNING_SECRET={S(secv('hex32'))}
"""


# ------------------------------------------------------------ shell


@sec(2)
def _():
    return f"""$ curl -s https://api.example.com/v1/models -H "Authorization: Bearer {T()}" | jq '.data[].id'"""


@sec(2)
def _():
    return f"""curl -u {user()}:{P(pwd())} -X POST https://jenkins.example.com/job/nightly/buildWithParameters?BRANCH=main"""


@sec()
def _():
    return f"""curl --user {user()}:{P(pwd())} https://nexus.example.org/repository/raw/releases/app-2.4.1.tar.gz -o app.tar.gz"""


@sec()
def _():
    return f"""docker run -d --name pg -e POSTGRES_USER=app -e POSTGRES_PASSWORD={SP()} -p 5432:5432 postgres:16"""


@sec()
def _():
    return f"""mysql -h {host()} -u root --password={SP()} shop < dump.sql"""


@sec()
def _():
    return f"""kubectl create secret generic api-creds \\
  --from-literal=username=svc-sync \\
  --from-literal=password='{SP()}' \\
  --from-literal=api-key={S(secv('hex40'))}"""


@sec(2)
def _():
    return f"""psql "postgresql://{user()}:{P()}@{host()}:5432/{R.choice(DBS)}?sslmode=require" -c 'select count(*) from orders'"""


@sec()
def _():
    return f"""gh auth login --with-token <<< {K('gho')}"""


@sec()
def _():
    return f"""npm config set //registry.npmjs.org/:_authToken={S(key('npm'))}"""


@sec()
def _():
    return f"""pip install --index-url https://__token__:{P('pypi-AgEIcHlwaS5vcmc' + rnd(60, B64URL))}@pypi.example.org/simple/ internal-utils==1.4.2"""


@sec()
def _():
    return f"""wget --user={user()} --password={SP()} https://files.example.com/backup/2024-05-01.tar.gz"""


@sec()
def _():
    return f"""echo "{K('glpat')}" | docker login registry.gitlab.com -u ci-bot --password-stdin"""


@sec()
def _():
    return f"""$ aws sts get-session-token --duration-seconds 3600
{{
    "Credentials": {{
        "AccessKeyId": "{K('asia')}",
        "SecretAccessKey": "{S(key('aws_secret'))}",
        "SessionToken": "{S(rnd(180, AN + '/+'))}",
        "Expiration": "2024-05-01T12:00:00+00:00"
    }}
}}"""


@sec()
def _():
    return f"""$ export OPENAI_API_KEY="{S(key('openai'))}"
$ python -m app.cli summarize report.pdf"""


@sec()
def _():
    return f"""REDIS_URL=rediss://default:{P()}@redis-12345.c1.eu-west-1.example.net:12345/0"""


@sec()
def _():
    return f"""ssh-add - <<'EOF'
{PK('openssh')}
EOF"""


@sec()
def _():
    return f"""az login --service-principal -u {uuid4()} --password={SP(rnd(40, AN + '~.-_'))} --tenant {uuid4()}"""


@sec()
def _():
    return f"""$ env | grep -i -E 'token|key'
GITHUB_TOKEN={S(key('ghs'))}
CI_JOB_TOKEN={S(rnd(20, AN + '-_'))}
TF_VAR_api_key={S(secv('an32'))}"""


@sec()
def _():
    return f"""git remote add backup https://{user()}:{P()}@git.example.org/platform/infra.git"""


@sec()
def _():
    return f"""mongosh "mongodb+srv://{user()}:{P()}@cluster0.{rnd(5, LO + DG)}.mongodb.net/?retryWrites=true&w=majority" --eval 'db.stats()'"""


@sec()
def _():
    return f"""curl https://api.stripe.com/v1/charges \\
  -u {mark('api_key', key('sk_test'))}: \\
  -d amount=2000 -d currency=eur \\
  -d description="Order for {E()}\""""


@sec()
def _():
    return f"""rclone config create s3remote s3 provider=AWS access_key_id={K('aws')} secret_access_key={S(key('aws_secret'))} region=eu-west-1"""


# ------------------------------------------------------------ AWS key pairs


@sec(2)
def _():
    return f"""User name,Password,Access key ID,Secret access key,Console login link
{user()},,{K('aws')},{mark('api_key', key('aws_secret'))},https://{digits(12, '23456789')}.signin.aws.amazon.com/console"""


@sec()
def _():
    return f"""{ts()} WARN secrets-scanner: leaked credential pair {K('aws')}:{mark('api_key', key('aws_secret'))} found in commit {safe_hex(40)}"""


@sec()
def _():
    return f"""| account | key id | secret |
|---------|--------|--------|
| staging | {K('aws')} | {mark('api_key', key('aws_secret'))} |
| prod | {K('aws')} | {mark('api_key', key('aws_secret'))} |"""


@sec()
def _():
    return f"""Use these for the migration job and delete this message afterwards:
{K('aws')} {mark('api_key', key('aws_secret'))}"""


# ------------------------------------------------------------ pure JSON (serde_json layout)


@sec()
def _():
    return jdump({"id": R.randint(1000, 9999), "name": "Ana García", "email": E(), "phone": PH("es"),
                  "apiKey": S(key("openai")), "active": True})


@sec()
def _():
    return jdump({
        "service": "billing",
        "db": {"host": host(), "port": 5432, "user": "billing", "password": SP()},
        "stripe": {"secretKey": S(key("sk_live")), "webhookSecret": S(key("whsec"))},
        "alerts": {"slack": W("slack"), "email": E()},
    }, pretty=True)


@sec()
def _():
    return jdump({
        "customer": {"name": "Lena Fischer", "email": E(), "phone": PH("de_intl"),
                     "address": "Hauptstraße 12, 10115 Berlin"},
        "payment": {"method": "sepa", "iban": I("DE"), "mandate": "MNDT-" + str(R.randint(100000, 999999))},
        "notes": "Rückruf erbeten unter " + PH("de"),
    }, pretty=True)


@sec()
def _():
    return jdump([{"id": 1, "user": E(), "card": C("visa"), "status": "captured"},
                  {"id": 2, "user": E(), "card": C("mc"), "status": "refunded"},
                  {"id": 3, "user": E(), "card": C("amex"), "status": "pending"}])


@sec()
def _():
    return jdump({"access_token": S(jwt()), "token_type": "Bearer", "expires_in": 3600,
                  "refresh_token": S(secv("b64u")), "id_token": S(jwt(email()))}, pretty=True)


@sec()
def _():
    proj = R.choice(["acme-data", "northwind-prod", "tailspin-ml"])
    return jdump({"type": "service_account", "project_id": proj, "private_key_id": safe_hex(40),
                  "client_email": E(f"etl-runner@{proj}.iam.gserviceaccount.com"),
                  "client_id": digits(21, "1"), "token_uri": "https://oauth2.googleapis.com/token"}, pretty=True)


@sec()
def _():
    return jdump({"姓名": "张伟", "手机": PH("cn"), "身份证号": N("cn"), "邮箱": E(domain="163.com"),
                  "银行卡": C("unionpay19", sep="")})


@sec()
def _():
    return jdump({"level": "error", "msg": "upstream rejected key", "key": K("ant"), "request_id": reqid()})


@sec()
def _():
    return jdump({"event": "webhook.created", "data": {"url": W("discord"), "owner": E()}}, pretty=True)


@sec()
def _():
    return jdump({"employees": [
        {"name": "John Carter", "ssn": N("ssn"), "phone": PH("us_paren")},
        {"name": "Maria Souza", "cpf": N("cpf"), "phone": PH("br")},
        {"name": "Javier Ruiz", "dni": N("dni"), "phone": PH("es")},
    ]}, pretty=True)


@sec()
def _():
    return jdump({"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                                              "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": S(key("pat"))}}}}, pretty=True)


@sec()
def _():
    return jdump({"user": "tanaka", "パスワード": SP(), "メール": E(domain="yahoo.co.jp"), "電話": PH("jp")})


@sec()
def _():
    return jdump({"headers": {"Accept": "application/json", "X-Api-Key": S(secv("hex32"))},
                  "url": "https://api.example.com/v2/orders?page=2"})


# ------------------------------------------------------------ JSON inside other text


@sec()
def _():
    return f"""{ts()} DEBUG http.client POST /api/login body={{"username":"{user()}","password":"{SP()}","remember":true}}"""


@sec()
def _():
    return f"""curl -X POST https://api.example.com/v1/users \\
  -H 'Content-Type: application/json' \\
  -H 'X-Api-Key: {S(secv('hex40'))}' \\
  -d '{{ "email": "{E()}", "phone": "{PH('uk_intl')}", "plan": "pro" }}'"""


@sec()
def _():
    return f"""Response (200):
{{
  "object": "customer",
  "email": "{E()}",
  "default_source": {{ "brand": "Visa", "number": "{C('visa', '')}", "exp": "08/27" }},
  "metadata": {{ "crm_id": "C-{R.randint(10000, 99999)}" }}
}}"""


@sec()
def _():
    return f"""{ts()} INFO  worker[3]: job payload {{"to": "{E()}", "template": "reset", "reset_token": "{S(secv('b64u'))}"}}"""


# ------------------------------------------------------------ YAML


@sec()
def _():
    return f"""apiVersion: v1
kind: Secret
metadata:
  name: app-secrets
  namespace: prod
type: Opaque
stringData:
  DB_PASSWORD: "{SP()}"
  STRIPE_API_KEY: {S(key('rk_live'))}
  SMTP_PASSWORD: '{SP()}'"""


@sec()
def _():
    return f"""services:
  db:
    image: postgres:16
    environment:
      - POSTGRES_USER=app
      - POSTGRES_PASSWORD={SP()}
  api:
    image: ghcr.io/acme/api:2.3.1
    environment:
      DATABASE_URL: postgres://app:{P()}@db:5432/app
      JWT_SECRET: {S(secv('an32'))}
    ports:
      - "8080:8080\""""


@sec()
def _():
    return f"""spring:
  datasource:
    url: jdbc:postgresql://{host()}:5432/{R.choice(DBS)}
    username: {user()}
    password: {SP()}
  mail:
    host: smtp.example.com
    username: {E()}
    password: "{SP()}\""""


@sec()
def _():
    return f"""# group_vars/all.yml
ansible_user: deploy
ansible_become_pass: {SP()}
vault_token: {S('hvs.' + rnd(24))}
ntp_servers:
  - 0.pool.ntp.org
  - 1.pool.ntp.org"""


@sec()
def _():
    return f"""alerting:
  feishu:
    url: {W('feishu')}
  dingtalk:
    url: "{W('dingtalk')}"
  wecom:
    url: {W('wecom')}
  oncall: {PH('cn_sp')}"""


@sec()
def _():
    return f"""# values.yaml
ingress:
  enabled: true
  host: shop.example.com
smtp:
  host: smtp.sendgrid.net
  port: 587
  username: apikey
  password: {S(key('sg'))}
tls:
  tls.key: |
    {PK('ec', indent='    ')}"""


@sec()
def _():
    return f"""jobs:
  deploy:
    runs-on: ubuntu-latest
    env:
      NODE_AUTH_TOKEN: {S(key('npm'))}
      DEPLOY_HOOK: {W('teams')}
    steps:
      - uses: actions/checkout@v4"""


@sec()
def _():
    return f"""apiVersion: v1
kind: Secret
metadata:
  name: ssh-deploy-key
data: {{}}
stringData:
  id_ed25519: |
    {PK('openssh', indent='    ')}"""


@sec()
def _():
    return f"""contacts:
  - name: Claire Moreau
    email: {E(domain='orange.fr')}
    phone: "{PH('fr')}"
  - name: Kenji Sato
    email: {E(domain='yahoo.co.jp')}
    phone: "{PH('jp_intl')}"
  - name: Olga Ivanova
    email: {E(domain='yandex.ru')}
    phone: "{PH('ru')}\""""


# ------------------------------------------------------------ HTTP


@sec(2)
def _():
    return f"""GET /api/v1/me HTTP/1.1
Host: api.example.com
Authorization: Bearer {J()}
Accept: application/json
User-Agent: okhttp/4.12.0"""


@sec(2)
def _():
    return f"""GET /admin/metrics HTTP/1.1
Host: grafana.internal:3000
Authorization: Basic {B()}
Connection: keep-alive"""


@sec()
def _():
    return f"""POST /v1/messages HTTP/1.1
Host: api.anthropic.com
x-api-key: {S(key('ant'))}
anthropic-version: 2023-06-01
content-type: application/json

{{"model":"claude-sonnet-4","max_tokens":1024,"messages":[{{"role":"user","content":"Email {E()} about the invoice"}}]}}"""


@sec()
def _():
    return f""":method: POST
:path: /graphql
authorization: Bearer {T()}
cookie: theme=dark; auth_token={S(secv('an32'))}; lang=en"""


@sec()
def _():
    return f"""HTTP/1.1 401 Unauthorized
WWW-Authenticate: Bearer realm="api", error="invalid_token"
Content-Type: application/json

{{"error":"invalid_token","hint":"token {J()} is expired"}}"""


@sec()
def _():
    return f"""> GET /v3/contacts?limit=50 HTTP/2
> Host: api.hubapi.com
> Authorization: Bearer {T('pat-na1-' + uuid4())}
> X-Request-Id: {uuid4()}
< HTTP/2 200"""


@sec()
def _():
    return f"""PUT /repos/acme/infra/contents/README.md HTTP/1.1
Host: api.github.com
X-GitHub-Api-Version: 2022-11-28
Authorization: Bearer {T()}"""


# ------------------------------------------------------------ Python


@sec()
def _():
    return f"""from openai import OpenAI

client = OpenAI(api_key="{S(key('proj'))}")
resp = client.chat.completions.create(model="gpt-4o-mini", messages=msgs)"""


@sec()
def _():
    return f"""import anthropic

client = anthropic.Anthropic(
    api_key='{S(key('ant'))}',
)"""


@sec()
def _():
    return f"""# settings.py
SECRET_KEY = '{S('django-insecure-' + rnd(50, LO + DG + '!^-_+~'))}'
DEBUG = False
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "shop",
        "USER": "shop",
        "PASSWORD": "{SP()}",
        "HOST": "{host()}",
        "PORT": "5432",
    }}
}}
EMAIL_HOST_USER = "{E()}"
EMAIL_HOST_PASSWORD = "{SP()}\""""


@sec()
def _():
    return f"""s3 = boto3.client(
    "s3",
    aws_access_key_id="{K('aws')}",
    aws_secret_access_key="{S(key('aws_secret'))}",
    region_name="eu-west-1",
)"""


@sec()
def _():
    return f"""conn = psycopg2.connect("dbname={R.choice(DBS)} user={user()} password={SP()} host={host()} port=5432")"""


@sec()
def _():
    return f"""with smtplib.SMTP_SSL("smtp.gmail.com", 465) as server:
    server.login(user="{E(domain='gmail.com')}", password="{SP()}")
    server.send_message(msg)"""


@sec()
def _():
    return f"""TEST_CARDS = [
    "{C('visa', '')}",
    "{C('mc', ' ')}",
    "{C('amex', ' ')}",
    "{C('discover', '-')}",
]"""


@sec()
def _():
    return f"""requests.post(
    "{W('discord')}",
    json={{"content": "Deploy finished by {E()}"}},
    timeout=5,
)"""


@sec()
def _():
    return f"""headers = {{
    "Accept": "application/json",
    "X-API-Key": "{S(secv('an32'))}",
}}
r = requests.get("https://api.example.com/v1/reports", headers=headers)"""


@sec()
def _():
    return f"""# TODO: move to vault before release
HUGGING_FACE_KEY = "{mark('api_key', key('hf'))}"
model = AutoModel.from_pretrained("acme/secret-sauce", token=HUGGING_FACE_KEY)"""


@sec()
def _():
    return f"""engine = create_engine("mysql+pymysql://{user()}:{P()}@{host()}:3306/{R.choice(DBS)}?charset=utf8mb4")"""


@sec()
def _():
    return f"""def test_masks_iban():
    assert mask("{I()}") == "****"
    assert mask("{I(grouped=False)}") == "****\""""


@sec()
def _():
    return f"""private_pem = b\"\"\"{PK('pkcs8_ec')}
\"\"\"
key = serialization.load_pem_private_key(private_pem, None)"""


# ------------------------------------------------------------ JavaScript / TypeScript


@sec()
def _():
    proj = R.choice(["acme-shop", "northwind-app", "tailspin-web"])
    return f"""const firebaseConfig = {{
  apiKey: "{S(key('google'))}",
  authDomain: "{proj}.firebaseapp.com",
  projectId: "{proj}",
  storageBucket: "{proj}.appspot.com",
}};"""


@sec()
def _():
    return f"""const stripe = require('stripe')('{K('sk_live')}');"""


@sec()
def _():
    return f"""const transporter = nodemailer.createTransport({{
  host: 'smtp.example.com',
  port: 465,
  auth: {{ user: '{E()}', pass: '{SP()}' }},
}});"""


@sec()
def _():
    return f"""await mongoose.connect('mongodb+srv://{user()}:{P()}@cluster0.{rnd(5, LO + DG)}.mongodb.net/app?retryWrites=true&w=majority');"""


@sec()
def _():
    return f"""export const client = axios.create({{
  baseURL: 'https://api.example.com',
  headers: {{ 'x-api-key': '{S(secv('hex32'))}' }},
}});"""


@sec()
def _():
    return f"""// webhook for #alerts — rotate if this leaks
const webhookUrl = "{W('slack')}";"""


@sec()
def _():
    return f"""const octokit = new Octokit({{ auth: `{K('ghp')}` }});"""


@sec()
def _():
    return f"""const config = {{
  clientId: "{digits(12, '23456789')}-{rnd(32, LO + DG)}.apps.googleusercontent.com",
  clientSecret: "{S(key('gocspx'))}",
  redirectUri: "https://app.example.com/oauth/callback",
}};"""


@sec()
def _():
    return f"""fetch("https://api.example.com/v2/me", {{
  headers: {{ Authorization: "Bearer {J()}" }},
}}).then((r) => r.json());"""


# ------------------------------------------------------------ Rust


@sec()
def _():
    return f"""let api_key = "{S(key('openai'))}";
let client = reqwest::Client::new();"""


@sec()
def _():
    return f"""let cfg = Config {{
    host: "{host()}".into(),
    user: "{user()}".into(),
    password: "{SP()}".into(),
}};"""


@sec()
def _():
    return f"""const DSN: &str = "postgres://{user()}:{P()}@{host()}/{R.choice(DBS)}";"""


@sec()
def _():
    return f"""// FIXME: remove before merging: {K('ghp')}
fn token() -> String {{ std::env::var("GITHUB_TOKEN").unwrap_or_default() }}"""


@sec()
def _():
    return f"""let resp = client
    .get("https://api.example.com/v1/items")
    .header("Authorization", "Bearer {T()}")
    .send()
    .await?;"""


@sec()
def _():
    return f"""#[test]
fn parses_contact() {{
    let c = Contact::parse("{E()}; {PH('uk_intl')}").unwrap();
    assert_eq!(c.kind, Kind::Both);
}}"""


# ------------------------------------------------------------ Go


@sec()
def _():
    return f"""cfg := &Config{{
	APIKey:   "{S(secv('an32'))}",
	Endpoint: "https://api.example.com",
	Timeout:  30 * time.Second,
}}"""


@sec()
def _():
    return f"""req.Header.Set("Authorization", "Bearer {T()}")"""


@sec()
def _():
    return f"""const stripeKey = "{K('rk_live')}\""""


@sec()
def _():
    return f"""db, err := sql.Open("postgres", "postgres://{user()}:{P()}@{host()}/{R.choice(DBS)}?sslmode=disable")
if err != nil {{
	log.Fatal(err)
}}"""


@sec()
def _():
    return f"""var slackHook = "{W('slack')}"

func notify(msg string) error {{
	return post(slackHook, msg)
}}"""


@sec()
def _():
    return f"""client := github.NewClient(nil).WithAuthToken("{K('ghp')}")"""


@sec()
def _():
    return f"""type Creds struct {{
	Username string `json:"username"`
	Password string `json:"password"`
}}

var testCreds = Creds{{Username: "qa", Password: "{SP()}"}}"""


# ------------------------------------------------------------ logs


@sec(2)
def _():
    return f"""{ts()} WARN  auth: login failed for {E()} from {ip()} (attempt 3/5)"""


@sec()
def _():
    return f"""[{ts(' ', '', False)}] DEBUG http: GET https://api.example.com/v2/items?api_key={S(secv('hex32'))}&page=2 -> 200 (183 ms)"""


@sec()
def _():
    return f"""{ip()} - - [12/Mar/2024:09:14:22 +0000] "GET /password/reset?token={S(secv('b64u'))} HTTP/1.1" 302 0 "-" "Mozilla/5.0\""""


@sec()
def _():
    return f"""{ts()} ERROR payments: charge declined card={C()} amount=49.90 currency=EUR customer={E()}"""


@sec()
def _():
    return f"""level=info ts={ts()} caller=client.go:88 msg="connecting" dsn="amqp://{user()}:{P()}@{host()}:5672/%2F\""""


@sec()
def _():
    return f"""Traceback (most recent call last):
  File "/app/sync.py", line 42, in <module>
    client = Client(token="{S(key('xoxb'))}")
slack_sdk.errors.SlackApiError: invalid_auth"""


@sec()
def _():
    return f"""{ts()} INFO  webhook: delivered alert to {W('teams')} status=200"""


@sec()
def _():
    return f"""{ts()} DEBUG oauth: exchanging code, client_secret={S(key('gocspx'))} redirect_uri=https://app.example.com/cb"""


@sec()
def _():
    return f"""{ts()} INFO  signup: new user email={E()} phone={PH()} country=DE"""


@sec()
def _():
    return f"""2024-05-12 10:33:21,118 - kyc - WARNING - document mismatch for ssn={N('ssn')} (expected {N('ssn')})"""


@sec()
def _():
    return f"""{ts()} [gateway] request id={reqid()} headers={{Authorization: Bearer {T()}, X-Forwarded-For: {ip()}}}"""


@sec()
def _():
    return f"""Mar 12 09:14:22 web-01 sshd[2213]: Accepted publickey for deploy from {ip()} port 52144 ssh2
Mar 12 09:15:03 web-01 app[991]: using key {K('svc')} for batch export"""


@sec()
def _():
    return f"""{ts()} ERROR git: fatal: unable to access 'https://{user()}:{P()}@git.example.org/acme/app.git/': The requested URL returned error: 403"""


@sec()
def _():
    return f"""{ts()} WARN  dingtalk: send failed url={W('dingtalk')} errcode=310000"""


@sec()
def _():
    return f"""{ts()} INFO  session: issued jwt {J()} for uid={R.randint(1000, 99999)}"""


@sec()
def _():
    return f"""{ts()} WARN  billing: refund to {I()} for {E()} pending review"""


# ------------------------------------------------------------ URLs


@sec()
def _():
    return f"""https://maps.googleapis.com/maps/api/geocode/json?address=Alexanderplatz+Berlin&key={K('google')}"""


@sec()
def _():
    return f"""Reset link: https://app.example.com/account/reset?token={S(secv('b64u'))}&uid={R.randint(100, 99999)}"""


@sec()
def _():
    return f"""Redirected to https://app.example.com/callback#access_token={S(jwt())}&token_type=Bearer&expires_in=3600"""


@sec()
def _():
    return f"""ftp://{user()}:{P()}@ftp.example.com/pub/exports/2024/"""


@sec()
def _():
    return f"""Dashboard: https://{user()}:{P()}@grafana.example.net:3000/d/abc123/overview?orgId=1"""


@sec()
def _():
    return f"""Open https://status.example.com/embed?jwt={J()} in the kiosk browser"""


@sec()
def _():
    return f"""smtp://{email().replace('@', '%40')}:{P()}@smtp.example.com:587"""


# ------------------------------------------------------------ CSV


@sec()
def _():
    rows = "\n".join(
        f"{i},{n},{E()},{PH(k)},{C()}"
        for i, (n, k) in enumerate([("Ana García", "es"), ("Tom Walsh", "uk_mob"), ("Nina Novak", "de_mob"),
                                    ("Yuki Tanaka", "jp")], 1)
    )
    return f"id,name,email,phone,card_number\n{rows}"


@sec()
def _():
    rows = "\n".join(f"{n},{N('ssn')},{PH(R.choice(['us_dash', 'us_paren']))},{d(5)}" for n in ["Carter, J.", "Lopez, M.", "Nguyen, T."])
    return f"employee,ssn,phone,zip\n{rows}".replace("Carter, J.", '"Carter, J."').replace("Lopez, M.", '"Lopez, M."').replace("Nguyen, T.", '"Nguyen, T."')


@sec()
def _():
    rows = "\n".join(f"{n};{N('cpf')};{E(domain='example.com.br')};{PH('br')}" for n in ["João Silva", "Mariana Costa", "Pedro Santos"])
    return f"nome;cpf;email;telefone\n{rows}"


@sec()
def _():
    rows = "\n".join(f"{n},{N('dni')},{I('ES')}" for n in ["Lucía Fernández", "Javier Ruiz"])
    return f"titular,dni,iban\n{rows}"


@sec()
def _():
    rows = "\n".join(f"{n},{N('cn')},{PH('cn')},{C('unionpay')}" for n in ["李娜", "王强", "陈静"])
    return f"姓名,身份证号,手机号,银行卡号\n{rows}"


@sec()
def _():
    return f"""name,iban,bic
ACME GmbH,{I('DE')},COBADEFFXXX
Northwind Ltd,{I('GB')},NWBKGB2L
Tailspin SAS,{I('FR')},BNPAFRPPXXX
Molen BV,{I('NL')},ABNANL2A"""


# ------------------------------------------------------------ private keys


@sec()
def _():
    return PK("rsa")


@sec()
def _():
    return f"""$ cat ~/.ssh/id_ed25519
{PK('openssh')}
$ chmod 600 ~/.ssh/id_ed25519"""


@sec()
def _():
    return f"""Here is the key for the staging box, please don't share it:

{PK('pkcs8_ed')}

Thanks!"""


@sec()
def _():
    return f"""-----BEGIN EC PARAMETERS-----
BggqhkjOPQMBBw==
-----END EC PARAMETERS-----
{PK('ec')}"""


@sec()
def _():
    return f"""resource "tls_private_key" "imported" {{
  private_key_pem = <<EOT
{PK('pkcs8')}
EOT
}}"""


@sec()
def _():
    return f"""# server.key (passphrase protected)
{PK('enc')}"""


@sec()
def _():
    return f"""{PK('rsa_enc')}"""


@sec()
def _():
    return f"""echo '{PK('ec')}' > /etc/ssl/private/api.key"""


@sec()
def _():
    return f"""{pem_public('cert')}
{PK('pkcs8_ec')}"""


@sec()
def _():
    return f"""请把下面的私钥配置到 CI 里：
{PK('openssh')}
配置好后告诉我。"""


@sec()
def _():
    return f"""Der private Schlüssel für den Deploy-Benutzer:
{PK('pkcs8_ed')}"""


@sec()
def _():
    return f"""SSH_KEY_B64 is unset, falling back to the inline key:
{PK('openssh')}"""


@sec()
def _():
    return f"""keys = {{
    "signing": \"\"\"{PK('ec')}\"\"\",
}}"""


@sec()
def _():
    return f"""> {PK('pkcs8_ed', indent='> ')}"""


@sec()
def _():
    return f"""{PK('rsa')}
{PK('pkcs8_ed')}"""


@sec()
def _():
    return f"""鍵ファイルの内容です：
{PK('ec')}
よろしくお願いします。"""


@sec()
def _():
    return f"""-- migration 042: seed the signing key (dev only!)
INSERT INTO signing_keys (kid, pem) VALUES ('k1', '{PK('pkcs8_ec')}');"""


@sec()
def _():
    return f"""Voici la clé privée du serveur de test :
{PK('openssh')}
Merci de la supprimer après usage."""


@sec()
def _():
    return f"""<key name="saml-signing">{PK('pkcs8')}</key>"""


@sec()
def _():
    return f"""Закрытый ключ для стенда:
{PK('ec')}"""


@sec()
def _():
    return f"""{PK('enc')}
(passphrase is in the vault)"""


# ------------------------------------------------------------ English prose


@sec()
def _():
    return f"""Hi team, the staging Stripe key is {K('rk_test')} so please rotate it after the demo on Friday."""


@sec()
def _():
    return f"""Ticket #48213: customer Jane Doe ({E()}, {PH('us_intl')}) says her card {C('visa', ' ')} was charged twice. She wants the refund sent to {I('GB')} instead."""


@sec()
def _():
    return f"""Best regards,
Lena Fischer
Head of Finance | ACME GmbH
Tel. {PH('de_intl')}
Mobil {PH('de_mob')}
{E(domain='acme-corp.io')}"""


@sec()
def _():
    return f"""I accidentally pushed my OpenAI key ({K('openai')}) to a public repo an hour ago. Is revoking it enough?"""


@sec()
def _():
    return f"""Can you check why {E()} can't log in? Her number is {PH('us_paren')} if you need to call."""


@sec()
def _():
    return f"""Please wire the deposit to {I()} and quote reference INV-2024-0193 so we can match it."""


@sec()
def _():
    return f"""Applicant: Robert Kim, SSN {N('ssn')}, date of birth 1984-07-19, phone {PH('us_dash')}."""


@sec()
def _():
    return f"""user: my card number is {C()} and it expires 04/26, why was it declined?
assistant: I can't see card details, but I can open a ticket for you."""


@sec()
def _():
    return f"""Here's the Slack bot token: {S(key('xoxb'))}
and the user token is {K('xoxp')} if the bot one doesn't have the scope."""


@sec()
def _():
    return f"""Your temporary login:
Username: {user()}
Password: {SP()}
Please change it after your first login."""


@sec()
def _():
    return f"""For the demo use {K('sk_test')} (test mode) and the webhook signing secret {K('whsec')} from the dashboard."""


@sec()
def _():
    return f"""Decode this JWT for me please: {J(email())}"""


@sec()
def _():
    return f"""The GitLab runner registered fine but it logs {K('glpat')} in plain text on every job start."""


@sec()
def _():
    return f"""Send the signed contract to {E('"john doe"@example.com')} or fax it to {PH('us_toll')}."""


@sec()
def _():
    return f"""Reminder: the shared mailbox is {E('"ops team"@acme-corp.io')}, and the on-call phone is {PH('uk_mob')}."""


@sec()
def _():
    return f"""I pasted the wrong thing, that was my npm token {K('npm')}, revoking it now."""


@sec()
def _():
    return f"""Found in the old wiki page: Google OAuth client secret {K('gocspx')}, Maps key {K('google')}."""


@sec()
def _():
    return f"""Hugging Face token for the eval cluster: {mark('api_key', key('hf'))} (read-only)."""


@sec()
def _():
    return f"""The bug: when {E()} signs up with {PH('in')}, the SMS never arrives."""


@sec()
def _():
    return f"""Our new SendGrid key {K('sg')} replaces the old one from March."""


@sec()
def _():
    return f"""Hi! I'm moving flats, please update my details: new phone {PH('au')}, new email {E()}, and pay my salary into {I('IE')} from next month."""


# ------------------------------------------------------------ Chinese


@sec()
def _():
    return f"""您好，我的手机号是{PH('cn')}，邮箱是{E(domain='163.com')}，身份证号{N('cn')}。"""


@sec()
def _():
    return f"""这是我们的OpenAI密钥{K('proj')}请不要外传"""


@sec()
def _():
    return f"""银行卡号：{C('unionpay19', ' ')}，开户行：招商银行深圳分行"""


@sec()
def _():
    return f"""飞书机器人地址：{W('feishu')} 已配置到告警群。"""


@sec()
def _():
    return f"""密码：{SP()}，请在首次登录后修改。"""


@sec()
def _():
    return f"""企业微信群机器人 {W('wecom')} 每天九点推送日报。"""


@sec()
def _():
    return f"""钉钉告警：{W('dingtalk')}
负责人：王磊 {PH('cn_sp')}"""


@sec()
def _():
    return f"""请联系{E()}谢谢"""


@sec()
def _():
    return f"""张经理电话{PH('cn_dash')}，座机{PH('cn_land')}。"""


@sec()
def _():
    return f"""令牌：{S(secv('an32'))}
口令={SP()}
秘钥：{S(secv('hex40'))}"""


@sec()
def _():
    return f"""帳號：chen.jing
密碼：{SP()}"""


@sec()
def _():
    return f"""把key发我一下……好的，给你：{K('ant')}"""


@sec()
def _():
    return f"""部署失败，日志显示Authorization: Bearer {T()}无效"""


@sec()
def _():
    return f"""用户邮箱 {E('用户@例子.广告')} 已验证，手机 {PH('cn_intl')} 待验证。"""


@sec()
def _():
    return f"""退款请打到IBAN {I('DE')}，谢谢！"""


@sec()
def _():
    return f"""测试卡号{C('visa', '')}已过期，请换{C('mc', '')}再试"""


@sec()
def _():
    return f"""GitHub令牌{K('ghp')}已经泄露，马上吊销。"""


@sec()
def _():
    return f"""数据库连接串：mysql://root:{P()}@{host()}:3306/app"""


@sec()
def _():
    return f"""密钥：{S(key('openai'))}
有效期到月底。"""


@sec()
def _():
    return f"""收件人：李娜，电话：{PH('cn')}，身份证：{N('cnx')}，地址：北京市朝阳区建国路88号"""


@sec()
def _():
    return f"""请用这个JWT测试接口：{J()}，过期时间一小时。"""


@sec()
def _():
    return f"""客户王强的银行卡{C('unionpay', ' ')}绑定手机号{PH('cn')}，身份证号码{N('cn')}"""


@sec()
def _():
    return f"""把 AWS 的 {K('aws')} 和 Slack 的 {K('xoxb')} 都换掉。"""


@sec()
def _():
    return f"""DB_PASSWORD={SP()}谢谢，配置好了。"""


@sec()
def _():
    return f"""飞书Webhook：{W('feishu')}
钉钉Webhook：{W('dingtalk')}"""


@sec()
def _():
    return f"""新同事的邮箱是{E(domain='qq.com')}，工号A1023，手机{PH('cn')}。"""


# ------------------------------------------------------------ Japanese / German / French / Russian


@sec()
def _():
    return f"""パスワード：{SP()}です。ログイン後に変更してください。"""


@sec()
def _():
    return f"""田中様のメールアドレスは{E(domain='yahoo.co.jp')}、電話番号は{PH('jp')}です。"""


@sec()
def _():
    return f"""APIキーは{K('openai')}です。共有しないでください。"""


@sec()
def _():
    return f"""クレジットカード番号：{C('jcb', '-')}
有効期限：2027年3月"""


@sec()
def _():
    return f"""Slackの通知先は {W('slack')} に変更しました。"""


@sec()
def _():
    return f"""Sehr geehrte Frau Weber,

bitte überweisen Sie den Betrag auf folgendes Konto:
IBAN: {I('DE')}
BIC: COBADEFFXXX

Bei Fragen erreichen Sie uns unter {PH('de')} oder {E(domain='web.de')}.

Mit freundlichen Grüßen"""


@sec()
def _():
    return f"""Benutzername: kmueller
Passwort: {SP()}"""


@sec()
def _():
    return f"""Kontakt: {E('josé.müller@beispiel.de')}, Telefon {PH('de_intl')}"""


@sec()
def _():
    return f"""Die Kreditkarte {C('mc', ' ')} wurde gesperrt, bitte nutzen Sie die neue Karte."""


@sec()
def _():
    return f"""Zugangsdaten für den Testserver: https://{user()}:{P()}@test.example.de/admin"""


@sec()
def _():
    return f"""Bonjour, veuillez contacter {E(domain='orange.fr')} ou appeler le {PH('fr')}.
IBAN : {I('FR')}"""


@sec()
def _():
    return f"""Votre carte {C('visa', ' ')} expire le 08/26, merci de la mettre à jour."""


@sec()
def _():
    return f"""Le jeton {K('sk_live')} a été révoqué ce matin, utilisez le nouveau."""


@sec()
def _():
    return f"""Écrivez à {E('françois.dupont@société.fr')} pour toute question."""


@sec()
def _():
    return f"""Свяжитесь с нами: {E(domain='yandex.ru')}, тел. {PH('ru')}."""


@sec()
def _():
    return f"""Номер карты {C('mir', ' ')}, срок действия 12/27."""


@sec()
def _():
    return f"""Ключ доступа {K('ghp')} больше не действует, создайте новый."""


@sec()
def _():
    return f"""Пишите на {E('иван.петров@пример.рф')} или звоните {PH('ru')}"""


@sec()
def _():
    return f"""Hola, mi DNI es {N('dni')} y mi móvil {PH('es')}. Transferid a {I('ES')} por favor."""


@sec()
def _():
    return f"""Olá, segue meu CPF {N('cpf')} e o celular {PH('br')} para o cadastro."""


@sec()
def _():
    return f"""Gentile cliente, l'IBAN per il bonifico è {I('IT')} (causale: ordine 2024/118)."""


@sec()
def _():
    return f"""Hallo, mijn rekeningnummer is {I('NL')} en mijn telefoonnummer {PH('nl')}."""


@sec()
def _():
    return f"""Kontonummer: {I('CH')}
Zahlbar bis 30.06.2024"""


@sec()
def _():
    return f"""Proszę o przelew na {I('PL')}, tytułem: faktura FV/2024/05/17."""


@sec()
def _():
    return f"""Δοκιμαστικός λογαριασμός: {E('δοκιμή@παράδειγμα.δοκιμή')} (μόνο για QA)"""


@sec()
def _():
    return f"""Mail an {E('jürgen.groß@straße.de')} geht zurück, bitte {E('"jane.doe+billing"@example.org')} verwenden."""


# ------------------------------------------------------------ more webhooks


@sec()
def _():
    return f"""## Alert channels

| channel | url |
|---------|-----|
| #ops | {W('slack')} |
| #deploys | {W('discord')} |
| Teams | {W('teams')} |"""


@sec()
def _():
    return f"""variable "alert_webhook" {{
  type    = string
  default = "{W('slack')}"
}}"""


@sec()
def _():
    return f"""post {{
    failure {{
        sh 'curl -X POST -H "Content-Type: application/json" -d @msg.json {W('discord')}'
    }}
}}"""


@sec()
def _():
    return f"""Invoke-RestMethod -Method Post -Uri "{W('teams')}" -Body $payload -ContentType 'application/json'"""


@sec()
def _():
    return f"""curl '{W('wecom')}' -H 'Content-Type: application/json' -d '{{"msgtype":"text","text":{{"content":"备份完成"}}}}'"""


@sec()
def _():
    return f"""告警机器人{W('feishu')}每隔五分钟推送一次"""


@sec()
def _():
    return f"""curl -H 'Content-Type: application/json' -d '{{"msgtype":"text","text":{{"content":"发布成功"}}}}' '{W('dingtalk')}'"""


@sec()
def _():
    return f"""Webhook für den Build-Kanal: {W('discord')}"""


@sec()
def _():
    return f"""notifications:
  - type: msteams
    url: {W('teams')}
  - type: slack
    url: {W('slack')}"""


@sec()
def _():
    return jdump({"name": "nightly-report", "schedule": "0 7 * * *", "notify": [W("feishu"), W("wecom")]}, pretty=True)


# ------------------------------------------------------------ more tokens


@sec(2)
def _():
    return f"""curl -H "Authorization: Bearer {J()}" https://api.example.com/v1/orders?status=open"""


@sec()
def _():
    return f"""http GET https://api.example.com/v1/me "Authorization: Bearer {T()}\""""


@sec()
def _():
    return jdump({"info": {"name": "Orders API"},
                  "request": {"method": "GET", "header": [{"key": "Accept", "value": "application/json"}],
                              "url": "https://api.example.com/orders"},
                  "note": f"auth header was Authorization: Bearer {T()} (expired)"}, pretty=True)


@sec()
def _():
    return f"""wget --header="Authorization: Basic {B()}" https://repo.example.com/artifacts/app.jar"""


@sec()
def _():
    return f"""Authorization: Basic {B()}"""


@sec()
def _():
    return f"""Set-Cookie: jwt={J()}; Path=/; HttpOnly; Secure; SameSite=Lax"""


@sec()
def _():
    return f"""ws://localhost:8080/socket?jwt={J()}"""


@sec()
def _():
    return f"""{ts()} DEBUG grpc: metadata authorization=[Bearer {T()}] x-client=ios/7.2.1"""


@sec()
def _():
    return f"""Laut Log wurde der Header Authorization: Bearer {T()} gesendet, aber abgelehnt."""


@sec()
def _():
    return f"""Authorization: Bearer {J()}
Authorization: Bearer {T()}"""


# ------------------------------------------------------------ more passwords (URL credentials, curl -u)


@sec()
def _():
    return f"""AMQP_URL=amqps://{user()}:{P()}@b-{uuid4()}.mq.eu-west-1.amazonaws.com:5671"""


@sec()
def _():
    return f"""sftp://{user()}:{P()}@files.example.com:2222/incoming"""


@sec()
def _():
    return f"""curl -k -u elastic:{P(pwd())} "https://es.example.net:9200/_cat/indices?v\""""


@sec()
def _():
    return f"""celery -A proj worker --broker=redis://default:{P()}@redis.example.com:6379/1 --loglevel=info"""


@sec()
def _():
    return f"""jdbc url: jdbc:mysql://{user()}:{P()}@{host()}:3306/{R.choice(DBS)}?useSSL=true"""


@sec()
def _():
    return f"""$ git clone https://{user()}:{P()}@bitbucket.example.org/scm/team/repo.git"""


@sec()
def _():
    return f"""Backup target: s3+ssh://{user()}:{P()}@backup.example.com/volumes/2024"""


@sec()
def _():
    return f"""curl --user {user()}:{P(pwd())} --upload-file build.zip https://artifacts.example.com/upload/"""


@sec()
def _():
    return f"""- name: proxy
  url: http://{user()}:{P()}@proxy.corp.example.com:3128"""


# ------------------------------------------------------------ more IBANs


@sec()
def _():
    return f"""ACME GmbH · Hauptstraße 12 · 10115 Berlin
Commerzbank Berlin · IBAN {I('DE', True)} · BIC COBADEFFXXX
USt-IdNr. DE123456789 · Amtsgericht Charlottenburg HRB 12345"""


@sec()
def _():
    return f"""<CdtrAcct>
  <Id>
    <IBAN>{I('NL', False)}</IBAN>
  </Id>
</CdtrAcct>
<DbtrAcct><Id><IBAN>{I('BE', False)}</IBAN></Id></DbtrAcct>"""


@sec()
def _():
    return jdump({"type": "sepa_credit_transfer", "amount": 125000, "currency": "EUR",
                  "debtor": {"name": "Tailspin SAS", "iban": I("FR")},
                  "creditor": {"name": "Molen BV", "iban": I("NL")},
                  "remittance": "Rechnung 2024-0458"}, pretty=True)


@sec()
def _():
    return f"""Zahlungsempfänger: Verein für Gartenfreunde e.V.
Konto: {I('AT')}
Verwendungszweck: Mitgliedsbeitrag 2024"""


@sec()
def _():
    return f"""Konto / Zahlbar an
{I('CH', True)}
Genossenschaft Wohnen Zürich
8004 Zürich"""


@sec()
def _():
    return f"""收款账户（IBAN）：{I('GB', True)}
收款银行：Barclays Bank UK PLC"""


@sec()
def _():
    return f"""{ts()} INFO  payouts: batch 77 → {I('SE')}, {I('DK')}, {I('NO')} (3 transfers)"""


@sec()
def _():
    return f"""Numer rachunku: {I('PL', True)}
Tytuł: zwrot kaucji"""


@sec()
def _():
    return f"""IBAN: {I('PT')}
NIF: 123456789"""


@sec()
def _():
    return f"""payout_account:
  holder: Jana Nováková
  iban: {I('CZ', False)}
  currency: CZK"""


@sec()
def _():
    return f"""Számlaszám (IBAN): {I('HU', True)}"""


@sec()
def _():
    return f"""Please update our bank details: old {I('IE', True)}, new {I('FI', True)}."""


@sec()
def _():
    return f"""Cont bancar: {I('RO', True)} (Banca Transilvania)"""


@sec()
def _():
    return f"""Bankverbindung: {I('LU', False)}"""


@sec()
def _():
    return f"""口座（海外送金用）：{I('DE', True)}"""


# ------------------------------------------------------------ more national ids


@sec()
def _():
    return f"""HR note: the W-4 for Daniel Brooks lists SSN {N('ssn')}; the I-9 copy shows {N('ssn')}. Please confirm which is right."""


@sec()
def _():
    return jdump({"applicant": {"first_name": "Emily", "last_name": "Turner", "ssn": N("ssn"),
                                "dob": "1991-02-17", "email": E()}, "status": "review"})


@sec()
def _():
    return f"""姓名：陈静
性别：女
公民身份号码：{N('cn')}
住址：上海市徐汇区漕溪北路100号"""


@sec()
def _():
    return f"""{ts()} WARN  realname: verify failed name=王磊 id_card={N('cn')} reason=photo_mismatch"""


@sec()
def _():
    return f"""请核对一下身份证号{N('cnx')}是否正确"""


@sec()
def _():
    return f"""Prezado cliente, confirmamos o cadastro do CPF {N('cpf')} em nosso sistema."""


@sec()
def _():
    return f"""customer:
  name: Ana Oliveira
  cpf: "{N('cpf')}"
  phone: "{PH('br')}\""""


@sec()
def _():
    return f"""Nombre: Lucía Fernández
DNI: {N('dni')}
Teléfono: {PH('es')}"""


@sec()
def _():
    return f"""El titular con DNI {N('dni')} solicitó la baja el 3 de mayo."""


@sec()
def _():
    return f"""INSERT INTO citizens (name, id_no) VALUES ('赵敏', '{N('cn')}'), ('孙悦', '{N('cnx')}');"""


@sec()
def _():
    return f"""Social Security Number: {N('ssn')}"""


@sec()
def _():
    return f"""身份证：{N('cn')}（已核验），手机号：{PH('cn_dash')}"""


@sec()
def _():
    return f"""CPF do titular: {N('cpf')}; CPF do dependente: {N('cpf')}"""


@sec()
def _():
    return f"""本人の中国居民身份証番号は{N('cn')}です。"""


@sec()
def _():
    return f"""Antragsteller (US-Bürger), SSN {N('ssn')}, Reisepass liegt bei."""


# ------------------------------------------------------------ more cards


@sec()
def _():
    return f"""{ts()} INFO  checkout: authorised {C('amex', ' ')} for EUR 129.00 (order A-{R.randint(10000, 99999)})"""


@sec()
def _():
    return f"""Kartennummer: {C('visa', ' ')}
Gültig bis: 09/27
Karteninhaber: Jonas Weber"""


@sec()
def _():
    return f"""カード番号 {C('jcb', ' ')} の利用停止をお願いします。"""


@sec()
def _():
    return f"""payment_method:
  type: card
  number: "{C('mc', '')}"
  exp_month: 11
  exp_year: 2027"""


@sec()
def _():
    return f"""order_id,amount,card
9001,19.99,{C('visa', '-')}
9002,5.00,{C('diners', ' ')}
9003,250.00,{C('maestro', ' ')}"""


@sec()
def _():
    return f"""信用卡号：{C('unionpay', '-')}，有效期：2026/08"""


@sec()
def _():
    return f"""Numéro de carte : {C('mc', ' ')} (Mastercard)"""


@sec()
def _():
    return jdump({"charge": {"amount": 4990, "currency": "usd", "source": {"number": C("discover", ""),
                                                                           "brand": "discover"}}})


@sec()
def _():
    return f"""Please charge my other card instead: {C('visa13', '')}. Thanks, Raj"""


@sec()
def _():
    return f"""card_number={C('visa', '')}&exp=0427&name=Tom+Walsh"""


# ------------------------------------------------------------ more tokens


@sec()
def _():
    return f"""import requests

r = requests.get(
    "https://api.example.com/v1/invoices",
    headers={{"Accept": "application/json", "X-Trace": "{uuid4()}"}},
    cookies={{"jwt": "{J()}"}},
)"""


@sec()
def _():
    return f"""{ts()} DEBUG proxy: upstream request GET /v1/orders Authorization: Bearer {T()} -> 401"""


@sec()
def _():
    return f"""Authorization: Bearer {T()}
Content-Type: application/json
X-Request-Id: {uuid4()}"""


@sec()
def _():
    return f"""The failing call was made with the id token {J(email())} and a stale refresh cookie."""


@sec()
def _():
    return f"""$ grpcurl -H "Authorization: Bearer {T()}" api.example.com:443 orders.v1.Orders/List"""


@sec()
def _():
    return f"""请求头里带上Authorization: Basic {B()}就可以访问了"""


@sec()
def _():
    return f"""Session cookie: session={J()}"""


@sec()
def _():
    return f"""-H 'Authorization: Bearer {T()}' \\
-H 'Accept: application/vnd.github+json'"""


# ------------------------------------------------------------ more CJK-glued spans


@sec()
def _():
    return f"""请用{K('aws')}这个key，不要用旧的。"""


@sec()
def _():
    return f"""地图Key为{K('google')}。"""


@sec()
def _():
    return f"""发件人{E()}，收件人{E(domain='qq.com')}，抄送{E()}"""


@sec()
def _():
    return f"""收到的JWT是{J()}，解析失败"""


@sec()
def _():
    return f"""Slack机器人{K('xoxb')}没有chat:write权限"""


@sec()
def _():
    return f"""手机{PH('cn')}微信同号，备用{PH('cn_sp')}"""


@sec()
def _():
    return f"""卡号{C('unionpay19', '')}，户名李娜，开户行建设银行"""


@sec()
def _():
    return f"""IBAN：{I('FR', False)}，BIC：BNPAFRPPXXX"""


@sec()
def _():
    return f"""連絡先：{E()}まで。至急の場合は{PH('jp')}へ。"""


@sec()
def _():
    return f"""トークン{K('ghp')}を無効化しました。"""


@sec()
def _():
    return f"""HF的token在这里{K('hf')}，只读权限。"""


# ------------------------------------------------------------ the less common key shapes


@sec()
def _():
    return f"""gitleaks detect --report-format=text
Finding:     {K('ghu')}
File:        src/integrations/github.ts
Line:        14
Finding:     {K('ghs')}
File:        .github/workflows/old-release.yml
Line:        8
Finding:     {K('ghr')}
File:        scripts/refresh.sh
Line:        3"""


@sec()
def _():
    return f"""{ts()} WARN  slack: legacy workspace token {K('xoxa')} and {K('xoxs')} still in use by the sync job"""


@sec()
def _():
    return f"""旧的Socket Mode令牌{K('xapp')}已作废，新的在1Password里。"""


@sec()
def _():
    return f"""// local testing only, never ship this: {K('proj')}
const client = new OpenAI({{ apiKey: process.env.OPENAI_API_KEY }});"""


@sec()
def _():
    return f"""Rotated today: {K('proj')} (old), {K('svc')} (service account), {K('ghu')} (user-to-server)."""


# =================================================================== clean.txt

CLEAN_STATIC = [
    # --- code that names secrets but holds none
    r"""let secret = vault.read_secret(path)?;""",
    r"""#[derive(Debug, Deserialize)]
pub struct Settings {
    pub api_key: Option<String>,
    pub base_url: String,
    pub max_tokens: u32,
}""",
    r"""pub fn login(user: &str, password: &str) -> Result<Session, AuthError> {
    let hash = store.hash_for(user)?;
    verify(password, &hash)
}""",
    r"""token = os.environ["TOKEN"]""",
    r"""const apiKey = process.env.API_KEY;
if (!apiKey) throw new Error("API_KEY is not set");""",
    r"""import getpass

password = getpass.getpass()""",
    r"""let key = std::env::var("API_KEY")?;""",
    r"""secret := os.Getenv("SECRET")
if secret == "" {
	log.Fatal("SECRET must be set")
}""",
    r"""api_key: ${API_KEY}
base_url: https://api.example.com/v1""",
    r"""env:
  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}""",
    r"""set PGPASSWORD=%DB_PASSWORD%
psql -h localhost -U app -d app -f schema.sql""",
    r"""curl -sS -H "X-Token: $SECRET_TOKEN" https://api.example.com/health""",
    r"""def check_password(plain: str, hashed: bytes) -> bool:
    return bcrypt.checkpw(plain.encode(), hashed)""",
    r"""password_hash = bcrypt.hashpw(plain.encode(), bcrypt.gensalt(rounds=12))""",
    r"""if not verify_token(request.headers.get("Authorization")):
    abort(401)""",
    r"""client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])""",
    r"""const { token } = await login(form.email, form.password);
localStorage.setItem("session", token);""",
    r"""var apiKey = configuration["ApiKey"];""",
    r"""token, err := auth.NewToken(ctx, userID)
if err != nil {
	return nil, fmt.Errorf("issue token: %w", err)
}""",
    r"""if len(password) < 12 {
	return ErrPasswordTooShort
}""",
    r"""resp = requests.get(url, auth=(username, password), timeout=10)""",
    r"""@Value("${spring.datasource.password}")
private String dbPassword;""",
    r"""@dataclass
class Credentials:
    username: str
    password: str
    api_key: str | None = None""",
    r"""CREATE TABLE users (
    id bigserial PRIMARY KEY,
    email text NOT NULL UNIQUE,
    password_hash text NOT NULL,
    api_key_prefix char(8)
);""",
    r"""become_pass: "{{ vault_become_pass }}"
ansible_user: deploy""",
    r"""password: {{ .Values.db.password | quote }}""",
    r"""environment:
  POSTGRES_PASSWORD_FILE: /run/secrets/db_password
secrets:
  db_password:
    file: ./secrets/db_password.txt""",
    r"""env:
  - name: DB_PASSWORD
    valueFrom:
      secretKeyRef:
        name: db-credentials
        key: password""",
    r"""variable "db_password" {
  type      = string
  sensitive = true
}""",
    r"""# .env.example — copy to .env and fill in
OPENAI_API_KEY=
DATABASE_URL=postgres://localhost:5432/app
API_KEY=your-api-key-here
DB_PASSWORD=""",
    r"""PASSWORD=<password>
TOKEN=<token>""",
    r'''password: "${DB_PASSWORD}"
username: "${DB_USER}"''',
    r"""pg_dump --username=app --password=$PGPASSWORD --host=localhost app > dump.sql""",
    r"""export OPENAI_API_KEY=$(pass show openai/api-key)""",
    r"""const headers = buildAuthHeaders(credentials);""",
    r"""let token = match auth.refresh().await {
    Ok(t) => t,
    Err(e) => return Err(e.into()),
};""",
    r"""fn redact(secret: &SecretString) -> String {
    "*".repeat(secret.expose_secret().len())
}""",
    r"""self.api_key = api_key or os.getenv("ACME_API_KEY")""",
    r"""raise ValueError("token must be a non-empty string")""",
    r"""expect(screen.getByLabelText("Password")).toBeInTheDocument();""",
    r"""<input type="password" name="password" autocomplete="current-password" required>""",
    r"""<label for="api-key">API key</label>
<input id="api-key" name="api_key" placeholder="sk-..." />""",
    r"""Get-Secret -Name DbPassword -Vault Prod | ConvertFrom-SecureString""",
    r"""password_field = forms.CharField(widget=forms.PasswordInput, min_length=12)""",
    # --- settings that are not secrets
    r"""max_tokens: 4096
temperature: 0.2
top_p: 1""",
    r"""token_count=12 prompt_tokens=845 completion_tokens=211""",
    r"""password_min_length = 12
password_require_digit = true
password_require_symbol = false""",
    r"""secret_name: prod-db
secret_version: AWSCURRENT
rotation_days: 30""",
    r"""token_type: bearer
expires_in: 3600
scope: read write""",
    r"""api_key_header: X-Api-Key
rate_limit_per_minute: 600""",
    r"""{"token_type":"Bearer","expires_in":3600,"scope":"openid profile"}""",
    r"""PASSWORD_RESET_TIMEOUT = 259200
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]""",
    r'''token_url = "https://oauth2.googleapis.com/token"
authorization_url = "https://accounts.google.com/o/oauth2/v2/auth"''',
    r"""session_timeout: 30m
token_expiry: 2024-07-01T00:00:00Z
key_rotation: monthly""",
    r"""hotkey: ctrl+shift+p
keyboard: us-intl
monkey_patch: false""",
    r"""bypass_cache: true
compass_heading: 270
passenger_count: 3""",
    r"""secretary: Marie Curie
tokenizer: cl100k_base
keyspace: metrics""",
    r"""public_key_path: ~/.ssh/id_ed25519.pub
known_hosts: ~/.ssh/known_hosts""",
    r"""[auth]
method = oidc
token_ttl = 3600
password_auth_enabled = false""",
    r"""secretName: tls-example-com
hosts:
  - shop.example.com""",
    r"""max_tokens=1024, stop_sequences=["\n\nHuman:"], stream=True""",
    r"""{
  "model": "gpt-4o",
  "max_tokens": 512,
  "usage": {
    "prompt_tokens": 1200,
    "completion_tokens": 340,
    "total_tokens": 1540
  }
}""",
    # --- form labels and instructions
    r"""Password: enter at least 8 characters""",
    r"""密码：请输入8位以上密码""",
    r"""Password: choose a passphrase you don't use anywhere else
Confirm password: type it again""",
    r"""パスワード：8文字以上で入力してください""",
    r"""用户名：请输入手机号或邮箱
密码：请输入登录密码
验证码：请输入短信验证码""",
    r"""Passwort: (mindestens 12 Zeichen)""",
    r"""口令：请向管理员申请""",
    # --- placeholders and statuses
    r"""password: ********""",
    r"""token: <your token>""",
    r"""Password: required""",
    r"""token: expired""",
    r"""api_key: null""",
    r"""{"password": "", "token": null, "api_key": null}""",
    r"""username: admin
password: ********
status: locked""",
    r"""Authorization: Bearer <token>""",
    r"""Authorization: Bearer $TOKEN""",
    r"""Authorization: Basic <credentials>""",
    r"""curl -H "Authorization: Bearer ${ACCESS_TOKEN}" https://api.example.com/v1/me""",
    r"""token: revoked
secret: rotated
api_key: disabled""",
    r"""OPENAI_API_KEY=sk-...
GITHUB_TOKEN=ghp_...""",
    r"""密钥：已隐藏
令牌：无""",
    r"""password: [hidden]
secret: <redacted>""",
    # --- prose
    r"""Never share your password or API key with anyone, including our support staff.""",
    r"""Tokens are rotated every 24 hours; the old token stays valid for five minutes after rotation.""",
    r"""To create a key, open Settings → API keys and click New key. OpenAI keys start with sk- and GitHub tokens with ghp_, and both are shown only once.""",
    r"""Bearer tokens expire after one hour.""",
    r"""Basic authentication is deprecated and will be removed in v3.""",
    r"""请妥善保管您的密码，不要告诉任何人。密钥每90天轮换一次，令牌过期后需要重新登录。""",
    r"""パスワードを忘れた場合は、ログイン画面の「パスワードを忘れた方」から再設定してください。""",
    r"""Das Passwort muss mindestens zwölf Zeichen lang sein und darf nicht dem Benutzernamen entsprechen.""",
    r"""Votre mot de passe doit comporter au moins huit caractères, dont un chiffre.""",
    r"""Никогда не сообщайте пароль и код из SMS третьим лицам.""",
    r"""La contraseña debe tener al menos 8 caracteres y no puede contener tu nombre de usuario.""",
    r"""The secret to good sourdough is patience: feed the starter twice a day and keep it warm.""",
    r"""A private key never leaves the device; only the public key is uploaded.""",
    r"""If you suspect your token leaked, revoke it in the dashboard and create a new one.""",
    r"""我们不会通过电话或邮件向您索要密码、验证码或银行卡信息。""",
    r"""API密钥可以在控制台的“安全设置”页面创建，每个账号最多5个。""",
    r"""Passwörter werden mit Argon2id gehasht und niemals im Klartext gespeichert.""",
    r"""Les jetons d'accès expirent au bout d'une heure ; utilisez le jeton de rafraîchissement.""",
    r"""Ключи API можно отозвать в личном кабинете в разделе «Безопасность».""",
    r"""トークンの有効期限は1時間です。期限切れの場合は再度ログインしてください。""",
    r"""Use a password manager and turn on two-factor authentication for every account.""",
    r"""The AWS access key id starts with AKIA and the secret access key is 40 characters long.""",
    r"""Slack bot tokens start with xoxb- and app-level tokens with xapp-.""",
    r"""Stripe secret keys begin with sk_live_ in live mode and sk_test_ in test mode.""",
    r"""Keys must start with -----BEGIN OPENSSH PRIVATE KEY----- and end with the matching END line.""",
    r"""Send the token as a Bearer credential in the Authorization header, never in the query string.""",
    r"""Passkeys replace passwords with a key pair stored on your device.""",
    r"""The password policy was updated on 2024-03-01: minimum length 12, no reuse of the last 5.""",
    # --- URLs without credentials
    r"""https://example.com:8080/path?x=1""",
    r"""https://deploy@git.internal/platform/infra.git""",
    r"""Clone with https://builder@ci.example.com/scm/app.git (you will be asked for the password).""",
    r"""postgres://localhost:5432/app?sslmode=disable""",
    r"""redis://cache:6379/0""",
    r"""https://example.com/search?q=password+reset&lang=en""",
    r"""https://docs.example.com/api-keys#rotate-a-key""",
    r"""http://[::1]:8080/healthz""",
    r"""s3://acme-backups/2024/06/11/db.dump.gz""",
    r"""https://hooks.slack.com/services/ is the base URL; append the path Slack gives you.""",
    r"""https://discord.com/api/webhooks is documented at https://discord.com/developers/docs/resources/webhook""",
    r"""飞书机器人的地址格式为 https://open.feishu.cn/open-apis/bot/v2/hook/ 加上机器人ID。""",
    r"""https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=<your-key>""",
    r"""https://oapi.dingtalk.com/robot/send?access_token=""",
    r"""https://example.com/oauth/authorize?response_type=code&client_id=web-app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb""",
    r"""GET /api/v1/users?page=2&per_page=50 HTTP/1.1""",
    # --- e-mail-like strings that are not addresses
    r"""ssh deploy@localhost -p 2222""",
    r"""thanks @mention, merging now""",
    r"""a@b""",
    r"""@app.route("/login", methods=["GET", "POST"])
def login():
    ...""",
    r"""npm install --save-dev @types/node @types/express""",
    r"""@pytest.mark.parametrize("value", [1, 2, 3])
def test_value(value):
    assert value > 0""",
    r"""@Override
public String toString() { return "User(" + id + ")"; }""",
    r"""deploy@web-01:~$ systemctl restart api""",
    r"""docker pull nginx@sha256:3f1a9c0e6b7d4a2fbe5c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a""",
    r"""npx create-react-app@5 my-app""",
    r"""user@host""",
    r"""Contact: support at example dot com""",
    # --- identifiers, hashes, numbers
    r"""git log --oneline
3f9a1c7 fix: handle empty tokens in the parser
b82e0d4 feat: add password strength meter
e71c5aa chore: rotate test fixtures""",
    r"""Version 2.14.3 (build 20240611.1), released 2024-06-11, requires Rust 1.75.0 or newer.""",
    r"""Listening on 0.0.0.0:8080, metrics on 127.0.0.1:9090, admin on [::]:9443""",
    r"""Server: 192.168.1.20, gateway 192.168.1.1, DNS 1.1.1.1 and 8.8.8.8""",
    r"""inet6 2001:db8::1/64 scope global
ether 00:1a:2b:3c:4d:5e""",
    r"""Windows 10.0.19045.3693, Office 16.0.17231.20194""",
    r"""Total: €1,234.56 (incl. VAT 19%), paid on 11.06.2024""",
    r"""Coordinates: 52.5200, 13.4050; elevation 34 m""",
    r"""2024年6月11日 14:30 会议室 A-302""",
    r"""Invoice INV-2024-000183, due 2024-07-15, PO 4500018823""",
    r"""Rechnung Nr. RE-2024-0458 vom 11.06.2024, Kundennummer 100234""",
    r"""Facture n° FA-2024-06-0091, échéance 30/06/2024""",
    r"""Order #A-10293 shipped in 3 parcels (weights 1.2 kg, 0.8 kg, 2.5 kg)""",
    r"""ISBN 978-0-306-40615-7""",
    r"""UPS: 1Z999AA10123456784, 1Z 999 AA1 01 2345 678 4""",
    r"""Benchmark: 1234567 ops in 2.13 s (579 562 ops/s), p99 0.84 ms""",
    r"""Build 20240611.3 of pipeline 4312 finished in 00:12:43""",
    r"""SELECT id, email, created_at FROM users WHERE created_at > '2024-01-01' LIMIT 100;""",
    r"""SSN placeholders used in the form mockups: 666-45-6789, 912-34-5678, 123-00-4567 and 123-45-0000 (all invalid).""",
    r"""CPF de exemplo inválido (dígitos verificadores errados): 529.982.247-26""",
    r"""DNI de ejemplo (letra incorrecta): 12345678A""",
    r"""工单号：10023456789，退款单号：12087654321""",
    r"""12306 是铁路客服电话，110 是报警电话，120 是急救电话。""",
    r"""Room 101, floor 3, building B; extension 4412""",
    r"""The answer is 42, the year is 2024 and the population is 83 200 000.""",
    r"""Chapter 3.2.1, page 114, figure 7""",
    r"""RFC 7519 defines JWT; RFC 6750 defines bearer token usage.""",
    r"""-rw-r--r--  1 deploy deploy  4096 Jun 11 09:14 id_ed25519.pub""",
    r"""Jun 11 09:14:22 web-01 sshd[2213]: Accepted publickey for deploy from 10.0.3.7 port 52144 ssh2: ED25519 SHA256:k9fQm3v1XxTz0sD8l2u5yB7wN4eRc6hJpAaGtLqWvEo""",
    r"""{"status":"ok","uptime_seconds":86400,"version":"3.1.4"}""",
    r"""[
  {
    "id": 1,
    "name": "basic",
    "price_cents": 900
  },
  {
    "id": 2,
    "name": "pro",
    "price_cents": 2900
  }
]""",
    r"""| plan  | seats | price |
|-------|-------|-------|
| basic | 5     | 9     |
| pro   | 25    | 29    |""",
    r"""Tracking: JD014600003829382743 (courier), SF1402938475612""",
    r"""[2024-06-11 09:14:22] INFO Server started on port 8080 (pid 4412)""",
    r"""id,sku,qty,price
1,TSHIRT-BLK-M,2,19.99
2,MUG-WHT,1,8.50
3,POSTER-A2,5,12.00""",
    r'''WWW-Authenticate: Basic realm="Restricted", charset="UTF-8"''',
    r"""Authorization: Basic dGhpcyBpcyBub3QgYSBjcmVk""",
    r"""ssh-keygen -t ed25519 -C "ci" -f ~/.ssh/id_ed25519 -N ''""",
    r"""openssl genpkey -algorithm RSA -out private.pem -pkeyopt rsa_keygen_bits:2048
openssl rsa -in private.pem -pubout -out public.pem""",
    r"""git config --global credential.helper store""",
    r"""Next page: ?cursor=eyJpZCI6MTI4NCwiZGlyIjoibmV4dCJ9&limit=50""",
    r"""The JWT format is header.payload.signature, each part base64url encoded.""",
    r"""echo 'aGVsbG8gd29ybGQ=' | base64 -d   # prints: hello world""",
    r"""publishable_key: pk_live_51HxQn2ExampleOnlyPublicKey0000""",
    r"""data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==""",
]
for _text in CLEAN_STATIC:
    CLEAN_CASES.append(_text.strip("\n"))


CLEAN_MORE = [
    r"""ISBN-13: 978-3-16-148410-0, ISBN-10: 0-306-40615-2""",
    r"""Die Telefonnummer und die E-Mail-Adresse finden Sie im Impressum.""",
    r"""Pour réinitialiser votre mot de passe, cliquez sur le lien reçu par e-mail.""",
    r"""Забыли пароль? Нажмите «Восстановить доступ» и следуйте инструкциям.""",
    r"""パスワードは定期的に変更することをおすすめします。""",
    r"""The key insight: secrets belong in a vault, not in environment files checked into git.""",
    r"""我们的客服电话会在工作日9:00-18:00接听，节假日休息。""",
    r"""## 2.3.0 - 2024-06-11
- redact: mask Slack tokens (xoxb-, xoxp-) and GitHub tokens (ghp_)
- fix: the password field no longer echoes input""",
    r"""NAME                  TYPE                                  DATA   AGE
db-credentials        Opaque                                2      41d
default-token-x7k2p   kubernetes.io/service-account-token   3      210d""",
    r"""KEY_PATTERN = re.compile(r"sk-(?:proj-)?[A-Za-z0-9_-]{20,}")""",
    r"""Öffnungszeiten: Mo–Fr 08:00–18:00, Sa 09:00–13:00""",
    r"""dependencies: react ^18.2.0, typescript >=5.4.0 <6, eslint ~8.57.0""",
    r"""epoch=12 step=120000 loss=0.0123 lr=3e-4 grad_norm=1.07""",
    r"""license: MIT
license_key: <paste your license key here>""",
    r"""session_key_ttl: 30
master_key_id: mk-01
signing_key_algorithm: ES256""",
    r"""[
  {
    "id": "tok_ci",
    "name": "ci",
    "scopes": [
      "read"
    ],
    "last_used": "2024-06-10"
  }
]""",
    r"""| code | meaning |
|------|---------|
| 401  | missing or invalid token |
| 403  | token valid, permission denied |
| 429  | too many requests |""",
    r"""验证码已发送，请在5分钟内输入。""",
    r"""Das Token ist abgelaufen. Bitte melden Sie sich erneut an.""",
    r"""Le certificat expire le 2025-01-31 ; pensez à le renouveler.""",
]
for _text in CLEAN_MORE:
    CLEAN_CASES.append(_text.strip("\n"))


def fail_luhn(n, first=DG[1:]):
    while True:
        v = digits(n, first)
        if not luhn_ok(v) and len(set(v)) > 2:
            return v


def grouped(v, sizes=None, sep=" "):
    sizes = sizes or [4] * ((len(v) + 3) // 4)
    out, i = [], 0
    for g in sizes:
        if i >= len(v):
            break
        out.append(v[i : i + g])
        i += g
    return sep.join(out)


def bad_iban(cc=None):
    while True:
        good = iban(cc, grouped=False)
        USED.discard(good)
        chk = int(good[2:4])
        wrong = f"{good[:2]}{(chk + R.randint(1, 9)) % 100:02d}{good[4:]}"
        if not iban_ok(wrong) and no_card(wrong) and no_card(grouped(wrong)) and not re.search(r" 0", grouped(wrong)):
            return wrong


def bad_cn_id():
    while True:
        good = cn_id()
        USED.discard(good)
        wrong = good[:17] + R.choice([c for c in "0123456789X" if c != good[17]])
        if not cn_ok(wrong) and no_card(wrong) and no_card(wrong[:17]):
            return wrong


@cln(2)
def _():
    return f"""$ sha256sum dist/*
{safe_hex(64)}  dist/app-{R.randint(1, 3)}.{R.randint(0, 20)}.{R.randint(0, 9)}-linux-amd64.tar.gz
{safe_hex(64)}  dist/app-{R.randint(1, 3)}.{R.randint(0, 20)}.{R.randint(0, 9)}-darwin-arm64.tar.gz"""


@cln(2)
def _():
    return f"""commit {safe_hex(40)}
Merge: {safe_hex(7)} {safe_hex(7)}
Date:   Tue Jun 11 09:14:22 2024 +0200

    Rotate signing keys (no secrets in this commit)"""


@cln()
def _():
    return f"""md5: {safe_hex(32)}
sha1: {safe_hex(40)}
sha256: {safe_hex(64)}"""


@cln(2)
def _():
    return f"""{ts()} INFO  request_id={uuid4()} trace_id={safe_hex(32)} span_id={safe_hex(16)} status=200 duration_ms={R.randint(3, 900)}"""


@cln()
def _():
    return f"""image: ghcr.io/acme/api@sha256:{safe_hex(64)}"""


@cln()
def _():
    return f"""  "node_modules/left-pad": {{
    "version": "1.3.0",
    "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
    "integrity": "sha512-{b64(R.randbytes(64)).replace('=', '')}=="
  }}"""


@cln(2)
def _():
    return pem_public("pub")


@cln(2)
def _():
    return pem_public("cert")


@cln()
def _():
    return f"""server.crt:
{pem_public('cert')}
ca.crt:
{pem_public('cert')}"""


@cln()
def _():
    return pem_public("rsapub")


@cln()
def _():
    return pem_public("csr")


@cln()
def _():
    return f"""public_key: |
  {pem_public('pub_ec', indent='  ')}"""


@cln(2)
def _():
    return f"""{ssh_public()} {R.choice(USERS)}@{R.choice(['laptop', 'build-01', 'bastion', 'ci-runner'])}"""


@cln()
def _():
    return f"""# ~/.ssh/authorized_keys
{ssh_public('ed')} ana@laptop
{ssh_public('rsa')} deploy@ci-runner"""


@cln()
def _():
    return f"""known_hosts entry: github.example.org {ssh_public('ed')}"""


@cln(2)
def _():
    return f"""USPS tracking: {grouped(digits(22, '9'))}"""


@cln()
def _():
    return f"""Tracking numbers: {grouped(digits(20, '9'))}, {digits(22, '9')}, {grouped(digits(22, '9'))}"""


@cln()
def _():
    return f"""Your parcel {grouped(digits(22, '9'))} is out for delivery."""


@cln()
def _():
    return f"""Paket {'1Z' + rs(6, UP + DG) + digits(10)} wurde zugestellt."""


@cln(2)
def _():
    while True:
        v = f"{digits(3, '1')}-{fail_luhn(7)}-{fail_luhn(7)}"
        if no_card(v):
            return f"""Order #{v} has shipped."""


@cln()
def _():
    return f"""订单号{fail_luhn(16)}已发货，预计3天到达"""


@cln(2)
def _():
    return f"""reference number {grouped(fail_luhn(16))} (not a card: fails the checksum)"""


@cln()
def _():
    return f"""card 1234 5678 9012 3456 is not a card, nor is {fail_luhn(16)} or {grouped(fail_luhn(16), sep='-')}"""


@cln(2)
def _():
    return f"""Kundennummer {fail_luhn(16)}, Vertragsnummer {fail_luhn(13)}"""


@cln(2)
def _():
    v = bad_iban()
    return f"""IBAN {grouped(v)} was rejected: invalid checksum"""


@cln()
def _():
    return f"""Ungültige IBAN: {bad_iban('DE')} (Prüfziffer falsch)"""


@cln()
def _():
    return f"""IBAN incorrect : {grouped(bad_iban('FR'))}"""


@cln(2)
def _():
    return f"""身份证号{bad_cn_id()}校验失败，请核对后重新输入。"""


@cln()
def _():
    return f"""batch id {bad_cn_id()} processed"""


@cln()
def _():
    return f"""long ids: {digits(24)} {digits(32)} {digits(21)}"""


@cln()
def _():
    return f"""big = {digits(40)}
print(big % 97)"""


@cln()
def _():
    return f"""用户编号：10{digits(9)}，会员号：12{digits(9)}"""


@cln()
def _():
    return f"""epoch: {R.randint(1_600_000_000, 1_750_000_000)}  epoch_ms: {fail_luhn(13, '1')}"""


@cln()
def _():
    return f"""next_cursor: {b64(json.dumps({'offset': R.randint(100, 9999), 'sort': 'created_at'}).encode())}"""


@cln()
def _():
    return f"""config_b64: {b64(json.dumps({'theme': 'dark', 'lang': 'de', 'beta': False}).encode())}"""


@cln()
def _():
    return f"""ETag: "{safe_hex(32)}"
Last-Modified: Tue, 11 Jun 2024 09:14:22 GMT
Content-Length: {R.randint(1000, 99999)}"""


@cln()
def _():
    return f"""uuid,name,created
{uuid4()},alpha,2024-01-03
{uuid4()},beta,2024-02-14
{uuid4()},gamma,2024-03-30"""


@cln()
def _():
    return f"""Idempotency-Key: {uuid4()}
X-Request-Id: {uuid4()}"""


@cln()
def _():
    return f"""session {safe_hex(24)} closed after 1800 s of inactivity"""


@cln()
def _():
    return f"""{{"id":"{uuid4()}","object":"chat.completion","created":{R.randint(1_700_000_000, 1_750_000_000)},"model":"gpt-4o-mini","usage":{{"prompt_tokens":{R.randint(10, 999)},"completion_tokens":{R.randint(10, 999)}}}}}"""


@cln()
def _():
    return f"""{{"id":"msg_{rnd(24, AN)}","type":"message","role":"assistant","stop_reason":"end_turn","usage":{{"input_tokens":{R.randint(10, 999)},"output_tokens":{R.randint(10, 999)}}}}}"""


# =================================================================== checking

LABELS = ["api_key", "secret", "token", "password", "private_key", "webhook", "email", "phone", "card", "iban",
          "national_id"]

KEY_SHAPES = [
    r"sk-(?:proj-|svcacct-|ant-api03-)?[A-Za-z0-9_-]{20,}",
    r"(?:AKIA|ASIA)[A-Z0-9]{16}",
    r"gh[pousr]_[A-Za-z0-9]{36}",
    r"github_pat_[A-Za-z0-9_]{22,}",
    r"glpat-[A-Za-z0-9_-]{20}",
    r"xox[bpas]-[A-Za-z0-9-]{10,}",
    r"xapp-1-[A-Za-z0-9-]{10,}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"GOCSPX-[A-Za-z0-9_-]{28}",
    r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,}",
    r"whsec_[A-Za-z0-9]{32}",
    r"hf_[A-Za-z]{34}",
    r"npm_[A-Za-z0-9]{36}",
    r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
]
KEY_RE = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(KEY_SHAPES) + r")(?![A-Za-z0-9_])")
AWS_SECRET_RE = re.compile(r"[A-Za-z0-9/+]{40}")
JWT_RE = re.compile(r"eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
WEBHOOK_RES = [
    r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
    r"https://discord\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
    r"https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]+",
    r"https://open\.feishu\.cn/open-apis/bot/v2/hook/[0-9a-f-]{36}",
    r"https://oapi\.dingtalk\.com/robot/send\?access_token=[0-9a-f]{64}",
    r"https://qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[0-9a-f-]{36}",
]
WEBHOOK_RE = re.compile("|".join(WEBHOOK_RES))
PEM_RE = re.compile(r"-----BEGIN ((?:RSA |EC |OPENSSH |ENCRYPTED |DSA )?)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----", re.S)
EMAIL_RE = re.compile(r'(?:"[^"\n]+"|[\w.%+-]+)@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}')
PHONE_RES = [
    r"\+\d[\d ().-]{6,}\d",
    r"\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}",
    r"(?<![\d.-])(?:1-)?\d{3}[.-]\d{3}[.-]\d{4}(?![\d])",
    r"(?<![\d.,:/-])0\d{1,4}(?:[ .-]\d{2,8}){1,4}(?![\d])",
    r"(?<!\d)1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)",
]
PHONE_RE = re.compile("|".join(f"(?:{p})" for p in PHONE_RES))
SECRET_LAST = {"password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey", "credential",
               "credentials", "authorization"}
KEY_PREV = {"api", "access", "secret", "private", "signing", "encryption", "master", "client", "auth", "app",
            "account", "license", "session"}
RANDOM_CLASS = {"token", "secret", "key", "apikey", "credential", "credentials"}
CJK_LABELS = ["密码", "密碼", "密钥", "秘钥", "口令", "令牌", "パスワード", "Passwort"]
NAME_BEFORE = re.compile(
    r"(?:(?P<cjk>" + "|".join(CJK_LABELS) + r")|(?P<name>[A-Za-z_][A-Za-z0-9_.-]*))"
    r"(?P<q1>[\"'])?[ \t]*(?P<sep>=|:|：)[ \t]*(?P<q2>[\"'`])?$"
)
TERMINATORS = set(" \t\n\r\"'`,;&<>()[]{}")
CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")


def name_words(name):
    out = []
    for part in re.split(r"[_.\-]+", name):
        out += re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", part)
    return [w.lower() for w in out]


def secret_class(name):
    """None if the name is not secret-named, else 'random' or 'any'."""
    if name in CJK_LABELS:
        return "random" if name in ("密钥", "秘钥", "令牌") else "any"
    w = name_words(name)
    if not w:
        return None
    if w[-1] in SECRET_LAST:
        return "random" if w[-1] in RANDOM_CLASS else "any"
    if w[-1] == "key" and len(w) >= 2 and w[-2] in KEY_PREV:
        return "random"
    return None


def looks_random(v):
    return len(v) >= 8 and re.search(r"[A-Za-z]", v) and re.search(r"\d", v)


def parse_marked(text):
    """Strips the markers; returns (plain text, [(start, end, label, value)])."""
    out, spans, i = [], [], 0
    pos = 0
    while i < len(text):
        ch = text[i]
        if ch == CLOSE:
            raise ValueError(f"stray {CLOSE} at {i}: {text[max(0, i - 40):i + 10]!r}")
        if ch != OPEN:
            out.append(ch)
            pos += 1
            i += 1
            continue
        j = text.find(CLOSE, i)
        if j < 0:
            raise ValueError(f"unclosed {OPEN}: {text[i:i + 60]!r}")
        inner = text[i + 1 : j]
        if OPEN in inner:
            raise ValueError(f"nested {OPEN}: {inner[:60]!r}")
        if "|" not in inner:
            raise ValueError(f"no label: {inner[:60]!r}")
        label, value = inner.split("|", 1)
        if label not in LABELS:
            raise ValueError(f"unknown label {label!r}")
        if not value:
            raise ValueError("empty span")
        spans.append((pos, pos + len(value), label, value))
        out.append(value)
        pos += len(value)
        i = j + 1
    return "".join(out), spans


def split_cases(path):
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n") and not text.endswith("\n\n"), path
    return text[:-1].split(SEP)


def is_ascii_word(c):
    return c.isascii() and (c.isalnum() or c == "_")


def check_span(plain, start, end, label, value):
    """Problems with one marked span (empty list if it is well formed)."""
    before, after = plain[:start], plain[end:]
    b, a = before[-1:] or " ", after[:1] or " "
    errs = []
    digits_ = re.sub(r"\D", "", value)
    if label in ("api_key", "phone", "card", "iban", "national_id", "webhook") or (label == "token" and JWT_RE.fullmatch(value)):
        if is_ascii_word(b) or is_ascii_word(a):
            errs.append("glued to an ASCII letter/digit")
    if label == "api_key":
        if not KEY_RE.fullmatch(value):
            if not AWS_SECRET_RE.fullmatch(value):
                errs.append("not a known key shape")
            elif not re.search(r"(?:AKIA|ASIA)[A-Z0-9]{16}(?:[:,|]|\s*\|\s*|\s+)$", before):
                errs.append("AWS secret not right after a key id")
        if NAME_BEFORE.search(before) and secret_class((NAME_BEFORE.search(before).group("cjk") or NAME_BEFORE.search(before).group("name"))):
            errs.append("api_key shape in a secret-named assignment (should be secret)")
    elif label == "secret":
        m = NAME_BEFORE.search(before)
        if not m:
            errs.append("no assignment before the value")
        else:
            name = m.group("cjk") or m.group("name")
            cls = secret_class(name)
            if cls is None:
                errs.append(f"name {name!r} is not secret-named")
            q = m.group("q2")
            if q:
                if a != q:
                    errs.append("quoted value not closed right after the span")
                if q in value:
                    errs.append("quote inside quoted value")
            else:
                if any(c in TERMINATORS for c in value) or not value.isascii():
                    errs.append("unquoted value holds a terminator or non-ASCII")
                if not (a in TERMINATORS or not a.isascii() or after == ""):
                    errs.append(f"unquoted value does not end at a terminator (next {a!r})")
                if len(value) < 4:
                    errs.append("unquoted value shorter than 4")
                if cls == "random" and not looks_random(value):
                    errs.append("unquoted token/key value does not look random")
    elif label == "token":
        if JWT_RE.fullmatch(value):
            pass
        elif before.endswith("Bearer "):
            if not (len(value) >= 8 and (re.search(r"\d", value) or len(value) >= 24)):
                errs.append("bearer token too weak")
            if not re.fullmatch(r"[A-Za-z0-9._~+/-]+=*", value):
                errs.append("bearer token has odd characters")
        elif re.search(r"Authorization:\s*Basic $", before):
            try:
                dec = base64.b64decode(value, validate=True).decode()
                if not re.fullmatch(r"[^:\s]+:\S+", dec):
                    errs.append("basic credentials do not decode to user:password")
            except Exception:
                errs.append("basic credentials are not base64")
        else:
            errs.append("token neither JWT nor after Bearer/Basic")
        if a.isascii() and (a.isalnum() or a in "_-."):
            errs.append(f"token followed by {a!r}")
    elif label == "password":
        if re.search(r"\s|/", value):
            errs.append("password holds / or whitespace")
        if re.search(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:$", before):
            if a != "@":
                errs.append("URL password not followed by @")
            if "@" in re.split(r"[/\s\"'?]", after[1:], maxsplit=1)[0]:
                errs.append("@ in host part")
        elif re.search(r"(?:-u|--user)[ =][^\s:]+:$", before):
            if not (a.isspace() or after == "" or a in "\"'"):
                errs.append("curl password not followed by whitespace")
        else:
            errs.append("password not in URL credentials or curl -u")
    elif label == "private_key":
        if not PEM_RE.fullmatch(value):
            errs.append("not a whole PEM private key block")
    elif label == "webhook":
        if not WEBHOOK_RE.fullmatch(value):
            errs.append("not a webhook URL")
    elif label == "email":
        if not EMAIL_RE.fullmatch(value):
            errs.append("not an address")
        if value.isascii() and (is_ascii_word(b) or is_ascii_word(a)):
            errs.append("glued to ASCII")
        if not value.isascii() and not (b in " \t\n:,;(<\"'" and (a in " \t\n,;)>\"'." or after == "")):
            errs.append("internationalised address not surrounded by spaces/punctuation")
    elif label == "phone":
        if not (8 <= len(digits_) <= 15) or not PHONE_RE.fullmatch(value):
            errs.append("not a phone shape")
        if b.isdigit() or a.isdigit() or re.search(r"\d[ .-]$", before) or re.match(r"^[ .-]\d", after):
            errs.append("part of a longer number")
    elif label == "card":
        if not (13 <= len(digits_) <= 19 and luhn_ok(digits_) and len(set(digits_)) > 1):
            errs.append("not a Luhn-valid card")
        if not re.fullmatch(r"\d(?:[ -]?\d)+", value):
            errs.append("odd card separators")
        if b.isdigit() or a.isdigit() or re.search(r"\d[ -]$", before) or re.match(r"^[ -]\d", after):
            errs.append("part of a longer number")
    elif label == "iban":
        if not iban_ok(value) or not re.fullmatch(r"[A-Z0-9]+|(?:[A-Z0-9]{4} )+[A-Z0-9]{1,4}", value):
            errs.append("not a valid IBAN")
    elif label == "national_id":
        if not (cn_ok(value) or ssn_ok(value) or cpf_ok(value) or dni_ok(value)):
            errs.append("not a valid national id")
    if label != "card" and label != "iban":
        for w in luhn_windows(value):
            if label not in ("private_key", "webhook", "token", "api_key", "secret"):
                errs.append(f"holds a Luhn-valid run {w[2]!r}")
    return errs


def lint(plain, spans):
    """Things in the unmarked text that look like they should have been marked."""
    covered = [(s, e) for s, e, *_ in spans]

    def free(s, e):
        return not any(s < ce and cs < e for cs, ce in covered)

    hits = []

    def add(kind, s, e):
        if free(s, e):
            hits.append((kind, plain[max(0, s - 25) : e + 25].replace("\n", "⏎")))

    for m in KEY_RE.finditer(plain):
        add("api_key", m.start(), m.end())
    for m in JWT_RE.finditer(plain):
        add("jwt", m.start(), m.end())
    for m in re.finditer(r"Bearer\s+([A-Za-z0-9._~+/-]+=*)", plain):
        v = m.group(1)
        if len(v) >= 8 and (re.search(r"\d", v) or len(v) >= 24):
            add("bearer", m.start(1), m.end(1))
    for m in re.finditer(r"Basic\s+([A-Za-z0-9+/]{8,}=*)", plain):
        try:
            if re.fullmatch(r"[^:\s]+:\S+", base64.b64decode(m.group(1)).decode()):
                add("basic", m.start(1), m.end(1))
        except Exception:
            pass
    for m in re.finditer(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:([^/\s]+)@", plain):
        add("url-password", m.start(1), m.end(1))
    for m in re.finditer(r"(?:-u|--user)[ =][^\s:]+:(\S+)", plain):
        add("curl-password", m.start(1), m.end(1))
    for m in re.finditer(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", plain):
        add("pem", m.start(), m.end())
    for m in WEBHOOK_RE.finditer(plain):
        add("webhook", m.start(), m.end())
    for m in EMAIL_RE.finditer(plain):
        add("email", m.start(), m.end())
    for m in PHONE_RE.finditer(plain):
        dg = re.sub(r"\D", "", m.group())
        joined = re.search(r"\d[ .-]$", plain[: m.start()]) or re.match(r"[ .-]\d", plain[m.end() :])
        if 8 <= len(dg) <= 15 and not joined:
            add("phone", m.start(), m.end())
    for s, e, w in luhn_windows(plain):
        add("luhn", s, e)
    for m in re.finditer(r"(?<![A-Z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}", plain):
        t = m.group()
        for k in range(len(t), 14, -1):
            if iban_ok(t[:k].rstrip()):
                add("iban", m.start(), m.start() + k)
                break
    for m in re.finditer(r"(?<!\d)\d{17}[\dX](?!\d)", plain):
        if cn_ok(m.group()):
            add("cn_id", m.start(), m.end())
    for m in re.finditer(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])", plain):
        if ssn_ok(m.group()):
            add("ssn", m.start(), m.end())
    for m in re.finditer(r"\d{3}\.\d{3}\.\d{3}-\d{2}", plain):
        if cpf_ok(m.group()):
            add("cpf", m.start(), m.end())
    for m in re.finditer(r"(?<!\d)\d{8}[A-Z](?![A-Za-z])", plain):
        if dni_ok(m.group()):
            add("dni", m.start(), m.end())
    assign = re.compile(
        r"(?:(?P<cjk>" + "|".join(CJK_LABELS) + r")|(?P<name>[A-Za-z_][A-Za-z0-9_.-]*))"
        r"[\"']?[ \t]*(?:=|:|：)[ \t]*(?:(?P<q>[\"'`])(?P<qv>[^\"'`\n]*)(?P=q)|(?P<v>[^\s\"'`,;&<>()\[\]{}]*))"
    )
    for m in assign.finditer(plain):
        name = m.group("cjk") or m.group("name")
        cls = secret_class(name)
        if cls is None:
            continue
        if name.lower().endswith("authorization") and m.group("v") in ("Bearer", "Basic"):
            continue
        if m.group("q"):
            v, s = m.group("qv"), m.start("qv")
            weak = not v
        else:
            v, s = m.group("v"), m.start("v")
            v = re.match(r"[\x21-\x7e]*", v).group()
            weak = len(v) < 4 or (cls == "random" and not looks_random(v))
        if not weak:
            add(f"assign:{name}", s, s + len(v))
    return hits


# Clean cases the brief requires although a naive rule would take them: placeholders and
# instructions after a password label, a lone BEGIN line, user@host right after `://`, and
# USPS numbers in groups of 4 (a 16-digit slice may pass Luhn but is part of a longer run).
INTENDED_CLEAN = [
    "getpass.getpass()", "{{ vault_become_pass }}", "${DB_PASSWORD}", "$PGPASSWORD", "Password: enter at least",
    "Password: choose a", "password: type it", "password: ********", "Password: required",
    "-----BEGIN OPENSSH PRIVATE KEY----- and end", "https://deploy@git.internal", "https://builder@ci.example.com",
    "Tracking numbers:", "Your parcel", "USPS tracking:",
]


def check():
    problems = 0
    counts = {l: 0 for l in LABELS}
    sec_cases = split_cases(SECRETS)
    values = {}
    lint_hits = []
    for n, case in enumerate(sec_cases, 1):
        try:
            plain, spans = parse_marked(case)
        except ValueError as e:
            print(f"secrets case {n}: {e}")
            problems += 1
            continue
        if not spans:
            print(f"secrets case {n}: no span")
            problems += 1
        for s, e, label, value in spans:
            counts[label] += 1
            values[value] = values.get(value, 0) + 1
            for err in check_span(plain, s, e, label, value):
                print(f"secrets case {n}: {label} {value[:50]!r}: {err}")
                problems += 1
        for h in lint(plain, spans):
            lint_hits.append(("secrets", n) + h)
        stripped = plain.lstrip()
        if stripped[:1] in "{[":
            try:
                obj = json.loads(plain)
            except ValueError:
                obj = None
            if obj is not None and jdump(obj, "\n" in plain) != plain:
                print(f"secrets case {n}: pure JSON not in serde_json layout")
                problems += 1
    for v, k in values.items():
        if k > 2:
            print(f"value used {k} times: {v[:40]!r}")
            problems += 1
    clean_cases = split_cases(CLEAN)
    for n, case in enumerate(clean_cases, 1):
        if OPEN in case or CLOSE in case:
            print(f"clean case {n}: holds a marker")
            problems += 1
        for h in lint(case, []):
            lint_hits.append(("clean", n) + h)
    intended = []
    for h in lint_hits:
        if h[0] == "clean" and any(x in h[3] for x in INTENDED_CLEAN):
            intended.append(h)
        else:
            print("lint:", h)
    if intended:
        print(f"clean near-misses the conventions exclude on purpose ({len(intended)}):")
        for h in intended:
            print("   ", h[1], h[2], h[3])
    total = sum(counts.values())
    print()
    print(f"secrets.txt: {len(sec_cases)} cases, {total} spans")
    for l in LABELS:
        flag = "" if counts[l] >= 25 else "   <-- fewer than 25"
        print(f"  {l:<12} {counts[l]:>4}{flag}")
    print(f"clean.txt: {len(clean_cases)} cases")
    print(f"problems: {problems}, lint hits: {len(lint_hits)}")
    return problems


def write():
    for cases, path in ((SECRET_CASES, SECRETS), (CLEAN_CASES, CLEAN)):
        for c in cases:
            assert c.strip() and "\n%%\n" not in f"\n{c}\n", c[:80]
        path.write_text(SEP.join(cases) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if "--check" not in sys.argv:
        write()
    sys.exit(1 if check() else 0)
