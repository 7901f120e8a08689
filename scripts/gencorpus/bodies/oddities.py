"""Robots.txt bodies that are odd or broken: misspelt keys, sloppy syntax,
comments, non-ASCII and invalid text, UTF-16, over-long lines, HTML pages,
empty and junk bodies, and huge files. Each builder takes (Ctx, variant) and
returns a Payload."""

import zlib

from ..config import GOOGLE_LINE_MAX, HUGE_TARGET
from ..util import path_word, prose
from ..vocab import ACCEPTED_TYPOS, IDN_NAMES, UNACCEPTED_TYPOS
from .common import Payload, rule_path, text


def body_typos(c, variant):
    rng = c.rng
    lines = []
    if variant in ("accepted", "mixed"):
        lines += ["%s: *" % rng.choice(ACCEPTED_TYPOS["user-agent"])]
        lines += ["%s: %s" % (t, rule_path(rng)) for t in rng.sample(ACCEPTED_TYPOS["disallow"], 3)]
        lines += ["%s: %s" % (rng.choice(ACCEPTED_TYPOS["sitemap"]), c.url("/sitemap.xml"))]
    if variant in ("unaccepted", "mixed"):
        if not lines:
            lines.append("User-agent: *")
        for directive, spellings in UNACCEPTED_TYPOS.items():
            value = {"user-agent": "Googlebot", "sitemap": c.url("/sitemap2.xml"),
                     "crawl-delay": "10"}.get(directive) or rule_path(rng)
            lines.append("%s: %s" % (rng.choice(spellings), value))
    lines += ["Disallow: /private/"]
    return text(lines)


def body_sloppy(c, variant):
    rng = c.rng
    if variant == "missing_colon":
        return text(["User-agent *", "Disallow /admin/", "Disallow %s" % rule_path(rng),
                     "Allow /public/", "Disallow /a /b", "Sitemap " + c.url("/sitemap.xml")])
    if variant == "rules_before_agent":
        return text(["Disallow: /tmp/", "Allow: /tmp/public/", "", "User-agent: *", "Disallow: /cgi-bin/"])
    if variant == "empty_values":
        return text(["User-agent:", "Disallow: /x/", "", "User-agent: *", "Disallow:", "Allow:",
                     "Crawl-delay:", "Sitemap:"])
    if variant == "whitespace":
        return text(["  User-agent: *", "\tDisallow: /admin/", "User-Agent : Googlebot",
                     "Disallow :/nospace/", "Allow:\t/tabbed/", "Disallow: /trailing/   "])
    if variant == "one_line":
        return text(["User-agent: * Disallow: /", "User-agent: Googlebot Allow: /"])
    # html_in_text: a robots.txt with HTML leftovers
    return text(['<meta name="robots" content="noindex">', "User-agent: *", "Disallow: /admin/",
                 "<br>", "Disallow: /private/</p>"])


ASCII_ART = ["#  ____       _           _       ", "# |  _ \\ ___ | |__   ___ | |_ ___ ",
             "# | |_) / _ \\| '_ \\ / _ \\| __/ __|", "# |  _ < (_) | |_) | (_) | |_\\__ \\",
             "# |_| \\_\\___/|_.__/ \\___/ \\__|___/", "#"]


def body_comments(c, variant):
    rng = c.rng
    lines = list(ASCII_ART) if variant == "ascii_art" else []
    lines += ["# Hello, robot!", "# We're hiring: %s" % c.url("/careers"), "#"]
    lines += ["# " + prose(rng, rng.randint(3, 14)) for _ in range(rng.randint(3, 25))]
    lines += ["", "User-agent: *  # everyone", "Disallow: /tmp/   # temporary files", "# Disallow: /old/",
              "Disallow: /private/#no space", "", "", "Allow: /  "]
    return text(lines)


def body_non_ascii(c, variant):
    rng = c.rng
    if variant == "utf8_paths":
        pool = ["/поиск/", "/корзина/", "/café/", "/über-uns/intern/", "/検索/", "/ログイン", "/购物车/",
                "/niño/", "/ürün/*?sırala=", "/προϊόντα/", "/sản-phẩm/", "/منتجات/"]
        lines = [rng.choice(("# Robots für %s", "# Règles pour %s", "# 机器人协议 %s")) % c.site.host.lower(),
                 "User-agent: *"] + ["Disallow: " + p for p in rng.sample(pool, rng.randint(3, 7))]
    elif variant == "percent_encoded":
        lines = ["User-agent: *", "Disallow: /%D0%BF%D0%BE%D0%B8%D1%81%D0%BA/", "Disallow: /caf%C3%A9/",
                 "Disallow: /%E6%A4%9C%E7%B4%A2/", "Allow: /%7Euser/", "Disallow: /a%2Fb/"]
    else:  # idn_sitemap
        label = rng.choice(IDN_NAMES)
        lines = ["User-agent: *", "Disallow: /intern/", "Sitemap: https://%s.%s/sitemap.xml" % label]
    return text(lines)


def body_invalid_utf8(c, variant):
    if variant == "latin1":
        return text(["# Règles d'accès pour les robots", "User-agent: *", "Disallow: /café/",
                     "Disallow: /über/", "Disallow: /señor/"], encoding="latin-1")
    if variant == "cp1251":
        return text(["# Запрет индексации служебных разделов", "User-agent: *", "Disallow: /поиск/",
                     "Disallow: /admin/"], encoding="cp1251")
    # stray_bytes: valid text with a few bytes that are no UTF-8
    body = ("User-agent: *\nDisallow: /tmp/\n# \x80\x81 broken \xff\xfe bytes\nDisallow: /caf\xe9/\n"
            "Disallow: /ok/\n").encode("latin-1")
    return Payload(data=body)


def body_utf16(c, variant):
    lines = ["User-agent: *", "Disallow: /admin/", "Disallow: /privé/", "", "Sitemap: " + c.url("/sitemap.xml")]
    if variant == "le":
        return text(lines, encoding="utf-16-le", bom=b"\xff\xfe")
    return text(lines, encoding="utf-16-be", bom=b"\xfe\xff")


def body_long_line(c, variant):
    rng = c.rng
    n = rng.randint(GOOGLE_LINE_MAX + 100, GOOGLE_LINE_MAX + 20_000)
    if variant == "long_rule":
        long = "Disallow: /" + "-".join(path_word(rng) for _ in range(n // 6))[:n]
    else:  # long_comment
        long = "# " + ("=" * n)
    return text(["User-agent: *", "Disallow: /a/", long, "Disallow: /after-the-long-line/",
                 "Sitemap: " + c.url("/sitemap.xml")])


def body_html_page(c, variant):
    page = c.pages.page(c.rng, c.site.host.lower(), c.rng.choice(("Home", "Welcome", "Page not found")))
    ctype = "text/html; charset=UTF-8" if variant == "text_html" else "text/plain; charset=UTF-8"
    return Payload(data=page, ctype=ctype, identified="text/html")


def body_empty(c, variant):
    if variant == "zero_bytes":
        return Payload(data=b"", identified=None)
    return Payload(data=c.rng.choice((b"\n", b"\r\n", b"   \n\n", b"\t")))


def body_junk(c, variant):
    rng = c.rng
    if variant == "json":
        return Payload(data=b'{"status":"ok","robots":null,"message":"not configured"}\n',
                       ctype="application/json", identified="application/json")
    if variant == "xml_sitemap":
        locs = "".join("<url><loc>%s</loc></url>" % c.url("/" + path_word(rng)) for _ in range(rng.randint(3, 30)))
        return Payload(data=('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                             '"http://www.sitemaps.org/schemas/sitemap/0.9">%s</urlset>\n' % locs).encode(),
                       ctype="application/xml", identified="application/xml")
    if variant == "php_warning":
        return Payload(data=("<br />\n<b>Warning</b>:  session_start(): Cannot send session cookie - headers "
                             "already sent in <b>/var/www/html/index.php</b> on line <b>%d</b><br />\n"
                             "User-agent: *\nDisallow: /admin/\n" % rng.randint(2, 300)).encode(),
                       identified="text/html")
    if variant == "ok":
        return Payload(data=b"OK")
    # still_gzipped: the server compressed twice; the stored payload is gzip bytes
    inner = zlib.compressobj(6, zlib.DEFLATED, 31)
    data = inner.compress(b"User-agent: *\nDisallow: /wp-admin/\n") + inner.flush()
    return Payload(data=data, ctype="text/plain", identified="application/gzip")


def huge_lines(rng, target, c):
    """Auto-generated per-item rules until the text passes `target` bytes."""
    lines = ["# Automatically generated - do not edit", "User-agent: *"]
    size = 60
    words = [path_word(rng) for _ in range(64)]
    n = rng.randint(1000, 90_000)
    while size < target:
        n += rng.randint(1, 97)
        line = "Disallow: /%s/%d-%s/" % (words[n % 64], n, words[(n // 64) % 64])
        lines.append(line)
        size += len(line) + 1
    lines.append("Sitemap: " + c.url("/sitemap.xml"))
    return lines


def body_huge(c, variant):
    rng = c.rng
    if variant == "sitemap_spam":
        lines = ["User-agent: *", "Disallow:"]
        size = 30
        while size < HUGE_TARGET:
            line = "Sitemap: %s/sitemap-%s-%d.xml" % (c.home, path_word(rng), rng.randint(1, 10 ** 7))
            lines.append(line)
            size += len(line) + 1
        return text(lines, quirks=False)
    return text(huge_lines(rng, rng.randint(HUGE_TARGET - 40_000, HUGE_TARGET + 40_000), c), quirks=False)
