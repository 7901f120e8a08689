"""AI-use preference lines read from the WARC bodies without robostats: the
Content-Signal and Content-Usage lines, their RFC 9651 dictionaries, the
groups they stand in under Google's and AIPREF's groupings, Cloudflare's
managed blocks, and which lines apply to a crawler at `/`.

Sources: draft-ietf-aipref-attach (section 3: the Content-Usage rule, its
path, its group, longest match), draft-ietf-aipref-vocab (the dictionary,
tokens y and n, the last of a repeated key, combining: n, then y, then
unknown), Cloudflare's managed robots.txt (the block's marker lines,
Content-Signal with yes and no, use=immediate|reference|full), RFC 9651
(Structured Field dictionaries) and Google's robots.txt parser (lines, keys,
groups: see warc_facts)."""

import re
from dataclasses import dataclass, field

from warc_facts import GOOGLE_LIMIT, LINE_END, google_key

DIRECTIVES = {"content-signal": ("yes", "no"), "content-usage": ("y", "n")}
SPACE = b" \t\n\r\x0b\x0c"
MAX_LINE_BYTES = 2083 * 8 - 1  # Google keeps this much of a line
CF_BEGIN = "begin cloudflare managed content"
CF_END = "end cloudflare managed content"
USE_LEVELS = ("immediate", "reference", "full")  # most restrictive first


# --- RFC 9651 dictionaries -------------------------------------------------

class NotADictionary(ValueError):
    pass


LCALPHA = set("abcdefghijklmnopqrstuvwxyz")
DIGIT = set("0123456789")
ALPHA = LCALPHA | set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
TCHAR = ALPHA | DIGIT | set("!#$%&'*+-.^_`|~")
BASE64 = ALPHA | DIGIT | set("+/=")


class _Reader:
    def __init__(self, text):
        self.s, self.i = text, 0

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else ""

    def take(self):
        c = self.peek()
        if not c:
            raise NotADictionary("end of input")
        self.i += 1
        return c

    def skip(self, chars):
        while self.peek() and self.peek() in chars:
            self.i += 1

    def key(self):
        c = self.peek()
        if not c or not (c in LCALPHA or c == "*"):
            raise NotADictionary(f"key expected at {self.i}")
        start = self.i
        while self.peek() and (self.peek() in LCALPHA or self.peek() in DIGIT or self.peek() in "_-.*"):
            self.i += 1
        return self.s[start:self.i]

    def bare_item(self):
        """('token', text) for a token, (kind, None) for any other item."""
        c = self.peek()
        if c == "-" or (c and c in DIGIT):
            self.number()
            return "number", None
        if c == '"':
            self.string()
            return "string", None
        if c and (c in ALPHA or c == "*"):
            start = self.i
            self.i += 1
            while self.peek() and (self.peek() in TCHAR or self.peek() in ":/"):
                self.i += 1
            return "token", self.s[start:self.i]
        if c == ":":
            self.i += 1
            while self.peek() and self.peek() in BASE64:
                self.i += 1
            if self.take() != ":":
                raise NotADictionary("byte sequence")
            return "bytes", None
        if c == "?":
            self.i += 1
            if self.take() not in "01":
                raise NotADictionary("boolean")
            return "boolean", None
        if c == "@":
            self.i += 1
            if self.number() != "integer":
                raise NotADictionary("date")
            return "date", None
        if c == "%":
            self.i += 1
            if self.take() != '"':
                raise NotADictionary("display string")
            while True:
                ch = self.take()
                if ch == '"':
                    break
                if ch == "%":
                    h = self.take() + self.take()
                    if not re.fullmatch("[0-9a-f]{2}", h):
                        raise NotADictionary("display string escape")
                elif not (" " <= ch <= "~"):
                    raise NotADictionary("display string character")
            return "display", None
        raise NotADictionary(f"item expected at {self.i}")

    def number(self):
        m = re.compile(r"-?(\d+)(\.(\d*))?").match(self.s, self.i)
        if not m:
            raise NotADictionary("number")
        whole, dot, frac = m.group(1), m.group(2), m.group(3)
        if dot is None:
            if len(whole) > 15:
                raise NotADictionary("integer too long")
            kind = "integer"
        else:
            if len(whole) > 12 or not frac or len(frac) > 3:
                raise NotADictionary("decimal")
            kind = "decimal"
        self.i = m.end()
        return kind

    def string(self):
        self.take()
        while True:
            ch = self.take()
            if ch == "\\":
                if self.take() not in '"\\':
                    raise NotADictionary("string escape")
            elif ch == '"':
                return
            elif not (" " <= ch <= "~"):
                raise NotADictionary("string character")

    def parameters(self):
        while self.peek() == ";":
            self.i += 1
            self.skip(" ")
            self.key()
            if self.peek() == "=":
                self.i += 1
                self.bare_item()

    def item_or_inner_list(self):
        if self.peek() == "(":
            self.i += 1
            while True:
                self.skip(" ")
                if self.peek() == ")":
                    self.i += 1
                    self.parameters()
                    return "inner_list", None
                self.bare_item()
                self.parameters()
                if self.peek() not in (" ", ")"):
                    raise NotADictionary("inner list")
        item = self.bare_item()
        self.parameters()
        return item


def sf_dictionary(data):
    """The members of an RFC 9651 dictionary, in written order, each as
    (label, token or None, value as written after '=' or None): raises
    NotADictionary otherwise. An empty input is an empty dictionary."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as e:
        raise NotADictionary("not ASCII") from e
    r = _Reader(text)
    r.skip(" ")
    members = []
    if not r.peek():
        return members
    while True:
        label = r.key()
        token, written = None, None
        if r.peek() == "=":
            r.i += 1
            start = r.i
            kind, tok = r.item_or_inner_list()
            token = tok if kind == "token" else None
            written = text[start:r.i].rstrip(" \t")
        else:
            r.parameters()
        members.append((label, token, written))
        r.skip(" \t")
        if not r.peek():
            return members
        if r.take() != ",":
            raise NotADictionary(f"comma expected at {r.i - 1}")
        r.skip(" \t")
        if not r.peek():
            raise NotADictionary("trailing comma")


# --- Lines -----------------------------------------------------------------

@dataclass
class Statement:
    line: int
    directive: str
    key: str
    google_group: int | None
    aipref_group: int | None
    in_cloudflare_block: bool
    path: str | None
    pattern: bytes
    dictionary: str
    status: str
    members: list  # (label, token, value as written, overridden)

    def preference(self, label):
        """y, n or unknown: the last member of that label, its token."""
        yes, no = DIRECTIVES[self.directive]
        token = next((t for lab, t, _, _ in reversed(self.members) if lab == label), None)
        return "y" if token == yes else "n" if token == no else "unknown"

    def use_level(self):
        m = next((m for m in reversed(self.members) if m[0] == "use"), None)
        if m is None:
            return None
        return m[1] if m[1] in USE_LEVELS else "unknown"


@dataclass
class UserAgentLine:
    line: int
    google_group: int
    aipref_group: int
    is_global: bool
    product: str


@dataclass
class PreferenceFile:
    statements: list = field(default_factory=list)
    user_agents: list = field(default_factory=list)
    cloudflare_blocks: int = 0


def google_escape(path):
    """Google's MaybeEscapePattern: bytes >= 0x80 %-escaped, the hex of
    existing escapes upper-cased."""
    out = bytearray()
    i = 0
    while i < len(path):
        b = path[i]
        if b == 0x25 and re.fullmatch(rb"[0-9a-fA-F]{2}", path[i + 1:i + 3]):
            out += b"%" + path[i + 1:i + 3].upper()
            i += 3
            continue
        out += b"%%%02X" % b if b >= 0x80 else bytes([b])
        i += 1
    return bytes(out)


def pattern_matches(pattern, path):
    """Google's matching: from the start, * any run, $ at the end anchors."""
    anchored = pattern.endswith(b"$")
    body = pattern[:-1] if anchored else pattern
    regex = b".*".join(re.escape(part) for part in body.split(b"*"))
    return re.match(regex + (rb"\Z" if anchored else b""), path, re.S) is not None


def split_usage(value):
    """AIPREF's split of a Content-Usage value into path and dictionary."""
    if not value.startswith(b"/"):
        return None, value
    m = re.match(rb"[^ \t]*", value)
    return value[:m.end()], value[m.end():].lstrip(b" \t")


def read_lines(body):
    """(number, raw line, key or None, value) of each line of the first
    500 KiB, split as Google's parser splits them."""
    b = body[:GOOGLE_LIMIT]
    for prefix in (b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"):
        if b.startswith(prefix):
            b = b[len(prefix):]
            break
    for number, raw in enumerate(LINE_END.split(b), 1):
        content = raw[:MAX_LINE_BYTES].split(b"\0", 1)[0].split(b"#", 1)[0].strip(SPACE)
        key = value = None
        if b":" in content:
            k, v = content.split(b":", 1)
            key, value = k.strip(SPACE), v.strip(SPACE)
        else:
            m = re.fullmatch(rb"([^ \t]+)[ \t]+([^ \t]+)", content)
            if m:
                key, value = m.group(1), m.group(2)
        yield number, raw, (key or None), value


def parse_preferences(body):
    """The preference lines, user-agent lines and Cloudflare blocks of a
    robots.txt body."""
    pf = PreferenceFile()
    in_block = False
    google = aipref = -1  # current group in each grouping
    google_open = aipref_open = True  # a rule came since the last user-agent line
    for number, raw, key, value in read_lines(body):
        text = raw.strip(SPACE)
        if text.startswith(b"#"):
            marker = text[1:].strip(SPACE).decode("latin-1").lower()
            if marker == CF_BEGIN:
                pf.cloudflare_blocks += 1
                in_block = True
            elif marker == CF_END:
                in_block = False
        if key is None:
            continue
        name = key.decode("latin-1").lower()
        kind, _ = google_key(name)
        if kind == "user-agent":
            if google_open:
                google, google_open = google + 1, False
            if aipref_open:
                aipref, aipref_open = aipref + 1, False
            is_global = value == b"*" or (value[:1] == b"*" and value[1:2] in (b" ", b"\t", b"\x0b", b"\x0c"))
            product = "" if is_global else re.match(rb"[A-Za-z_-]*", value).group(0).decode()
            pf.user_agents.append(UserAgentLine(number, google, aipref, is_global, product))
        elif kind in ("allow", "disallow"):
            if google >= 0:
                google_open = aipref_open = True
        elif kind is None and name in DIRECTIVES:
            path, dictionary = split_usage(value) if name == "content-usage" else (None, value)
            try:
                members = sf_dictionary(dictionary)
                status = "ok" if members else "empty"
            except NotADictionary:
                members, status = [], "unparseable"
            labels = [m[0] for m in members]
            members = [(lab, tok, val, lab in labels[i + 1:]) for i, (lab, tok, val) in enumerate(members)]
            pf.statements.append(Statement(
                line=number, directive=name, key=key.decode("utf-8", "replace"),
                google_group=google if google >= 0 else None,
                aipref_group=aipref if aipref >= 0 else None,
                in_cloudflare_block=in_block,
                path=path.decode("utf-8", "replace") if path is not None else None,
                pattern=google_escape(path) if path is not None else b"",
                dictionary=dictionary.decode("utf-8", "replace"), status=status, members=members))
            if name == "content-usage" and aipref >= 0:
                aipref_open = True
    return pf


# --- What applies to a crawler at / ----------------------------------------

def combine(values):
    """AIPREF's combination: n if any, else y if any, else unknown."""
    values = list(values)
    return "n" if "n" in values else "y" if "y" in values else "unknown"


def crawler_groups(pf, agent, ignores_global_group):
    """The crawler's groups, (Google's, AIPREF's): those naming it, else
    none for a crawler that ignores the * group, else the * groups."""
    named = [u for u in pf.user_agents if not u.is_global and u.product.lower() == agent.lower()]
    if agent == "*":
        named = []
    if not named and ignores_global_group:
        return set(), set()
    own = named or [u for u in pf.user_agents if u.is_global]
    return {u.google_group for u in own}, {u.aipref_group for u in own}


def stated_lines(pf, agent, ignores_global_group):
    """The Content-Usage rules (any path) and the Content-Signal lines the
    file writes for the crawler."""
    google, aipref = crawler_groups(pf, agent, ignores_global_group)
    usage = [s for s in pf.statements if s.directive == "content-usage" and s.aipref_group in aipref]
    signal = [s for s in pf.statements if s.directive == "content-signal" and s.google_group in google]
    scope = "group" if signal else None
    if not signal:
        signal = [s for s in pf.statements if s.directive == "content-signal" and s.google_group is None]
        scope = "file" if signal else None
    return usage, signal, scope


def preferences_at_root(pf, agent, ignores_global_group):
    """The agent_verdicts preference columns of a crawler that may fetch /."""
    usage, signal, scope = stated_lines(pf, agent, ignores_global_group)
    matching = [s for s in usage if pattern_matches(s.pattern, b"/")]
    longest = max((len(s.pattern) for s in matching), default=None)
    best = [s for s in matching if len(s.pattern) == longest]
    levels = [lv for lv in (s.use_level() for s in signal) if lv in USE_LEVELS]
    return {
        "usage_train_ai": combine(s.preference("train-ai") for s in best),
        "usage_search": combine(s.preference("search") for s in best),
        "usage_line": min((s.line for s in best), default=None),
        "signal_search": combine(s.preference("search") for s in signal),
        "signal_ai_train": combine(s.preference("ai-train") for s in signal),
        "signal_ai_input": combine(s.preference("ai-input") for s in signal),
        "signal_use": min(levels, key=USE_LEVELS.index) if levels else "unknown",
        "signal_line": min((s.line for s in signal), default=None),
        "signal_scope": scope,
    }


def preference_files(responses):
    """{(warc_filename, offset): PreferenceFile} of every body a crawler
    parses (warc_facts.Response.parsed)."""
    return {(r.path, r.offset): parse_preferences(r.body) for r in responses if r.parsed}


# The labels of each draft of draft-ietf-aipref-vocab, with the date of its
# tag in the working group's repository (github.com/ietf-wg-aipref/drafts).
VOCAB_DRAFTS = [
    ("vocab-01", "2025-06-18", ("tdm", "ai", "genai", "search", "inference")),
    ("vocab-02", "2025-07-20", ("all", "train-ai", "train-genai", "ai-use", "search")),
    ("vocab-03", "2025-09-05", ("bots", "train-ai", "train-genai", "search")),
    ("vocab-04", "2025-10-23", ("bots", "train-ai", "ai-output", "search")),
    ("vocab-05", "2025-11-28", ("train-ai", "search")),
    ("vocab-06", "2026-04-28", ("train-ai", "search")),
    ("vocab-07", "2026-08-19", ("train-ai", "search")),
]
# The labels only earlier drafts define.
OLD_LABELS = ({label for _, _, labels in VOCAB_DRAFTS for label in labels}
              - set(max(VOCAB_DRAFTS, key=lambda d: d[1])[2]))
