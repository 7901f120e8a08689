"""The plan of --copies: one crawl's robots.txt captures as Common Crawl
makes them, with its many copies of one file.

Refetches. Common Crawl keeps a fetched robots.txt for about two hours (one
segment), so a host whose pages are fetched in many segments has its
robots.txt fetched again in many files of the crawl: "180 million fetched
robots.txt for 50 million hosts", 3.6 fetches per host (Sebastian Nagel,
common-crawl list, October 2016,
https://groups.google.com/d/topic/common-crawl/IKAaDlFdC60). The number of
fetches of a host here is n = 1..50 with weight n^-1.79, allotted exactly
(largest remainders) over the hosts: mean 3.6, 54 % of hosts fetched once,
70 % once or twice, 8.5 % ten times or more. A host's fetches go to
different files while it has fewer than the crawl has (then to every file,
the rest at random); 8 % of the others fall into a file the host already
has (the cache expired within a segment). Fetch times increase through
the files.

Each host has a usual reply, the first fetch's. A later fetch of a host
whose usual reply is a body returns the same bytes (93 %), a changed body
(3 %: a sitemap line or a rule added, kept by the later fetches), or
another status once (4 %: 503 30 %, 429 20 %, 404 15 %, 500 10 %, 502 5 %,
a failed fetch 20 %: the body cut, WARC-Truncated: disconnect). A host
without a body returns its status again (97 %) or one of those (3 %). A
host is fetched over https (72 %), http (14 %), both (8 %), or both with
http redirected to https (6 %, the http fetches are 301s). Every share is
an assumption, not a measurement, except the 3.6.

The hosts' usual statuses are config.STATUS_SHARES (67 % 200, 19 % 404,
8 % redirects: to the www or bare host of the same domain, 70 %, which is
then one of the planned hosts; to the site's home page, 15 %; to another
host, 15 %), allotted exactly. The bodies of the 200 hosts, in percent of
them (allotted exactly, each kind at least MIN_HOSTS times):

    platform defaults (crates/robostats-rows/data/templates/), 39.9 %:
      wordpress-5.5 14 (3 % of them in /blog or /wp), wordpress-5.5-plain
      1.2, wordpress-4.4 3, wordpress-4.0 0.4, wordpress-3.3 0.3,
      yoast-19.8 3.5, shopify 3, wix-2026 2.5, squarespace 2, blogger 2,
      cloudflare-managed 3 (any of its texts, then a blank line and the
      site's own lines),
      cloudflare-policy 0.5, drupal-8.8 0.7, drupal-8.0 0.2, joomla-4 0.6,
      joomla-3 0.4, ghost-5 0.5, ghost-5.0 0.15, ghost-4 0.15, ghost-3 0.1,
      empty 1.7 (the share the HTTP Archive's Web Almanac 2025 is cited
      for, not checked here; 0 bytes, sometimes "\\n" or " \\n")
    near-defaults that are none (NEAR), 10 kinds of 0.3 %: 3 %
    cosmetic variants of wordpress-5.5, the same ruleset (COSMETIC),
      11 kinds of 0.4 %: 4.4 %
    hand-written bodies of the default mixture (config.BODY_SHARES without
      empty and huge, drawn), the rest: 52.7 %
The bodies found to be a default are more (some hand-written bodies are
one, the cosmetic variants are wordpress-5.5, a 204 is empty): at --scale
1 about 19 % of the 200 hosts serve wordpress-5.5, 5 % yoast-19.8, 2.2 %
empty. Yoast's block without its first line (near:yoast-19.8/no_marker)
has Yoast's ruleset but is not the default: its marker line is missing.

In a default's text `https://example.com` becomes the capture's origin
(so the http and https copies of one host differ in bytes, not in
ruleset), `{PATH}` the install path, `{ID}` the shop's number (5 to 11
digits). A host's body is made from its own random stream (seed, host),
wherever it is written, so its copies are the same bytes in every file."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime

from .bodies import BODY_BUILDERS, Ctx, render_text
from .bodies.common import rules
from .config import BODY_SHARES, SERVER_SHARES, STATUS_SHARES
from .crawlplan import CrawlFile, crawl_start, file_window
from .hosts import Site, new_domain, new_site, public_ipv4
from .ruleset import ruleset
from .templates import match_template, templates
from .util import file_rng, path_word, pick

CRAWL = "CC-MAIN-2025-30"
HOSTS_PER_SCALE = 3000           # hosts at --scale 1 (redirect targets among them)
FETCHES_PER_FILE = 20_000        # a file per about this many captures ...
MIN_FILES = 4                    # ... and at least this many
MAX_FETCHES = 50
FETCH_EXPONENT = 1.79            # weight n^-1.79 for n = 1..50 fetches: mean 3.6
FETCH_WEIGHTS = {n: n ** -FETCH_EXPONENT for n in range(1, MAX_FETCHES + 1)}
SAME_FILE = 0.08
MIN_HOSTS = 5                    # of each default, near-default and cosmetic variant

# Percent of the hosts whose robots.txt is a 200.
TEMPLATE_SHARES = {
    "wordpress-5.5": 14.0, "wordpress-5.5-plain": 1.2, "wordpress-4.4": 3.0, "wordpress-4.0": 0.4,
    "wordpress-3.3": 0.3, "yoast-19.8": 3.5, "shopify": 3.0, "wix-2026": 2.5, "squarespace": 2.0,
    "blogger": 2.0, "cloudflare-managed": 3.0, "cloudflare-policy": 0.5, "drupal-8.8": 0.7,
    "drupal-8.0": 0.2, "joomla-4": 0.6, "joomla-3": 0.4, "ghost-5": 0.5, "ghost-5.0": 0.15,
    "ghost-4": 0.15, "ghost-3": 0.1, "empty": 1.7,
}
# Defaults changed in a way that makes them none (name: base/change).
NEAR = ["wordpress-5.5/extra_rule", "wordpress-5.5/sitemap_moved", "wordpress-4.4/no_slash",
        "yoast-19.8/no_marker", "yoast-19.8/extra_rules", "joomla-4/line_removed", "shopify/ai_group",
        "squarespace/rule_removed", "ghost-5/extra_rule", "cloudflare-managed/rule_inside"]
# wordpress-5.5 written otherwise, with the same ruleset.
COSMETIC = ["wordpress-5.5/crlf", "wordpress-5.5/comment_line", "wordpress-5.5/trailing_comment",
            "wordpress-5.5/lower_user_agent", "wordpress-5.5/useragent_typo", "wordpress-5.5/blank_lines",
            "wordpress-5.5/sitemap_other_scheme", "wordpress-5.5/sitemap_other_host", "wordpress-5.5/bom",
            "wordpress-5.5/no_final_newline", "wordpress-5.5/tab_after_colon"]
NEAR_SHARE = 0.3
COSMETIC_SHARE = 0.4
HAND_SHARES = {k: v for k, v in BODY_SHARES.items() if k not in ("empty", "huge")}
WP_PATHS = {"": 97, "/blog": 2, "/wp": 1}

SCHEMES = {"https": 72, "http": 14, "both": 8, "upgrade": 6}
HOST_KINDS = {"www": 50.8, "bare": 30, "sub": 16, "idn": 2.0}
REFETCH_BODY = {"same": 93, "changed": 3, "status": 4}
REFETCH_OTHER = {"same": 97, "status": 3}
OTHER_STATUS = {503: 30, 429: 20, 404: 15, 500: 10, 502: 5, "failed": 20}
REDIRECT_TO = {"sibling": 70, "home": 15, "elsewhere": 15}
# The server software of a platform's hosts (others: config.SERVER_SHARES).
PLATFORM_SERVERS = {"shopify": "cloudflare", "cloudflare": "cloudflare", "blogger": "gws", "wix": "openresty",
                    "squarespace": "none", "ghost": "nginx"}


@dataclass
class Host:
    """A planned host: its name (lower case), its usual reply (status, and
    the body it serves if a 2xx, or the Location of a 3xx), how it is
    fetched."""
    id: int
    name: str
    domain: str
    kind: str                    # www | bare | sub | idn
    ip: str
    server: str
    status: int
    body: str | None             # template:ID | near:ID/change | cosmetic:ID/change | hand:category:variant
    schemes: str                 # https | http | both | upgrade
    fetches: int
    location: str | None = None

    @property
    def planted(self):
        return self.body or "status:%d" % self.status


@dataclass
class Capture:
    """One fetch of a host's robots.txt: which file, the order in it, the
    scheme, what the server answers (status, the body's version, cut or
    not, a 3xx's Location), its place among the host's fetches, and how it
    differs from the host's fetch before (refetch: same, changed, status;
    empty for the first)."""
    host: Host
    file: int
    key: float
    scheme: str = "https"
    status: int = 200
    version: int = 0
    failed: bool = False
    location: str | None = None
    index: int = 0
    refetch: str = ""
    when: datetime | None = None

    @property
    def url(self):
        return "%s://%s/robots.txt" % (self.scheme, self.host.name)


def allot(weights, n):
    """{item: count}: n items shared in proportion to `weights`, exactly
    (largest remainders; ties by the order of `weights`)."""
    total = sum(weights.values())
    exact = [(k, n * w / total) for k, w in weights.items()]
    counts = {k: int(x) for k, x in exact}
    for k, _ in sorted(exact, key=lambda kx: int(kx[1]) - kx[1])[:n - sum(counts.values())]:
        counts[k] += 1
    return counts


def body_kinds(n):
    """{body kind: hosts} of `n` hosts serving a 200."""
    shares = {"template:" + t: s for t, s in TEMPLATE_SHARES.items()}
    shares.update(("near:" + k, NEAR_SHARE) for k in NEAR)
    shares.update(("cosmetic:" + k, COSMETIC_SHARE) for k in COSMETIC)
    shares["hand"] = 100 - sum(shares.values())
    counts = allot(shares, n)
    for k in counts:
        if k != "hand" and counts[k] < MIN_HOSTS:
            counts["hand"] -= MIN_HOSTS - counts[k]
            counts[k] = MIN_HOSTS
    if counts["hand"] < 0:
        raise ValueError("too few hosts for every kind of body")
    return counts


def plan_hosts(rng, scale):
    """The hosts of the crawl, in a drawn order."""
    n = HOSTS_PER_SCALE * scale
    statuses = allot(STATUS_SHARES, n)
    usual = [(200, kind) for kind, c in body_kinds(statuses.pop(200)).items() for _ in range(c)]
    usual += [(status, None) for status, c in statuses.items() for _ in range(c)]
    rng.shuffle(usual)
    fetches = [k for k, c in allot(FETCH_WEIGHTS, n).items() for _ in range(c)]
    rng.shuffle(fetches)
    used, pending, hosts = set(), [], []
    for i, ((status, body), count) in enumerate(zip(usual, fetches)):
        if body == "hand":
            category = pick(rng, HAND_SHARES)
            body = "hand:%s:%s" % (category, pick(rng, BODY_BUILDERS[category][1]))
        while pending and pending[0] in used:
            pending.pop(0)
        if status == 200 and pending:
            name = pending.pop(0)
            domain = name[4:] if name.startswith("www.") else name
            site_kind, ip = "www" if name.startswith("www.") else "bare", public_ipv4(rng)
        else:
            site = unique_site(rng, used)
            name, domain, site_kind, ip = site.host, site.domain, site.kind, site.ip
        used.add(name)
        platform = templates()[body.split(":")[1].split("/")[0]].platform \
            if body and body.split(":")[0] in ("template", "near", "cosmetic") else None
        server = PLATFORM_SERVERS.get(platform) or pick(rng, SERVER_SHARES)
        host = Host(i, name, domain, site_kind, ip, server, status, body, pick(rng, SCHEMES), count)
        if 300 <= status < 400:
            host.location = redirect_location(rng, host, pending)
        hosts.append(host)
    return hosts


def unique_site(rng, used):
    """A new site whose host name no planned host has (IDN names are few:
    a taken one gives way to a www host)."""
    kind = pick(rng, HOST_KINDS)
    for attempt in range(100):
        site = new_site(rng, kind=kind if attempt < 3 else "www", scheme="https", port=None)
        if site.host not in used and "www." + site.host not in used:
            return site
    raise RuntimeError("no new host name in 100 draws")


def redirect_location(rng, host, pending):
    """The Location of a host whose robots.txt redirects: the www (or bare)
    host of its domain, one of the next hosts planned; its home page; or
    a host that is not captured."""
    to = pick(rng, REDIRECT_TO)
    if to == "sibling":
        target = host.domain if host.name.startswith("www.") else "www." + host.domain
        pending.append(target)
        return "https://%s/robots.txt" % target
    if to == "home":
        return "https://%s/" % host.name
    return "https://www.%s/robots.txt" % new_domain(rng)


def plan_captures(rng, hosts, files):
    """Every host's captures, each placed in a file, in time order per
    host with its scheme and reply drawn."""
    for host in hosts:
        n = host.fetches
        if n <= files:
            chosen = rng.sample(range(files), n)
        else:
            chosen = list(range(files)) + [rng.randrange(files) for _ in range(n - files)]
            rng.shuffle(chosen)
        for k in range(1, min(n, files)):
            if rng.random() < SAME_FILE:
                chosen[k] = chosen[rng.randrange(k)]
        caps = sorted((Capture(host, f, rng.random()) for f in chosen), key=lambda c: (c.file, c.key))
        version = 0
        has_body = host.body is not None
        for i, cap in enumerate(caps):
            cap.index = i + 1
            cap.scheme = scheme_of(rng, host.schemes)
            cap.status, cap.location = host.status, host.location
            if i:
                cap.refetch = pick(rng, REFETCH_BODY if has_body else REFETCH_OTHER)
            if cap.refetch == "changed":
                version += 1
            cap.version = version
            if cap.refetch == "status":
                other = pick(rng, OTHER_STATUS)
                while other == host.status:
                    other = pick(rng, OTHER_STATUS)
                if other == "failed":
                    cap.failed = True
                else:
                    cap.status, cap.location = other, None
            elif host.schemes == "upgrade" and cap.scheme == "http":
                cap.status, cap.location = 301, "https://%s/robots.txt" % host.name
            yield cap


def scheme_of(rng, schemes):
    if schemes in ("https", "http"):
        return schemes
    return "https" if rng.random() < 0.5 else "http"


def plan_copies(seed, scale):
    """(hosts, [CrawlFile]) of the crawl: every capture placed and in order
    (not dated yet)."""
    rng = file_rng("copies plan " + seed, scale)
    hosts = plan_hosts(rng, scale)
    total = sum(h.fetches for h in hosts)
    files = max(MIN_FILES, math.ceil(total / FETCHES_PER_FILE))
    placed = [[] for _ in range(files)]
    for cap in plan_captures(rng, hosts, files):
        placed[cap.file].append(cap)
    for caps in placed:
        caps.sort(key=lambda c: c.key)
    window = file_window(max(len(caps) for caps in placed))
    start = crawl_start(CRAWL)
    return hosts, [CrawlFile(CRAWL, i, start + i * window, window, caps) for i, caps in enumerate(placed)]


# ---------------------------------------------------------------------------
# The bodies
# ---------------------------------------------------------------------------

def host_body(seed, host, version, scheme, pages):
    """(bytes, Payload or None) of the body `host` serves in its `version`
    to a fetch over `scheme`: the same arguments, the same bytes."""
    rng = file_rng("copies body " + seed, host.id)
    origin = "%s://%s" % (scheme, host.name)
    what, detail = host.body.split(":", 1)
    if what == "hand":
        category, variant = detail.split(":")
        site = Site("https", host.name, host.domain, host.kind, None, host.ip)
        payload = BODY_BUILDERS[category][0](Ctx(rng, site, pages), variant)
        extra = change_lines(seed, host, version, "https://" + host.name)
        if payload.data is not None:
            return append_lines(payload.data, extra), payload
        payload.lines = payload.lines + extra
        return render_text(rng, payload, {}, defaultdict(Counter)), payload
    path, digits = pick(rng, WP_PATHS), rng.randint(5, 11)
    shop_id = rng.randint(10 ** (digits - 1), 10 ** digits - 1)
    if what == "template":
        body = template_body(rng, detail, origin, path, shop_id)
    elif what == "near":
        body = near_body(rng, detail, origin, shop_id)
    else:
        body = cosmetic_body(rng, detail, origin, host)
    return append_lines(body, change_lines(seed, host, version, origin)), None


def filled(template_id, origin, path="", shop_id=""):
    return templates()[template_id].fill(origin, path, shop_id)


def template_body(rng, template_id, origin, path, shop_id):
    if template_id == "empty":
        return rng.choice((b"", b"", b"", b"", b"", b"", b"", b"", b"\n", b" \n"))
    if template_id == "cloudflare-managed":     # any of the texts Cloudflare serves
        t = templates()[template_id]
        return rng.choice([t.text] + t.variants) + b"\n" + site_lines(rng, origin)
    return filled(template_id, origin, path if template_id.startswith("wordpress") else "", shop_id)


def site_lines(rng, origin):
    """A site's own robots.txt after Cloudflare's managed block: a default
    or a hand-written * group."""
    r = rng.random()
    if r < 0.4:
        return filled("wordpress-5.5", origin)
    if r < 0.55:
        return filled("shopify", origin, shop_id=str(rng.randint(10 ** 6, 10 ** 10)))
    lines = ["User-agent: *"] + rules(rng, rng.randint(1, 8)) + ["", "Sitemap: %s/sitemap.xml" % origin]
    return ("\n".join(lines) + "\n").encode()


def near_body(rng, kind, origin, shop_id):
    """A default with a change that makes it none."""
    base, change = kind.split("/")
    text = filled(base, origin, "", shop_id)
    if change == "extra_rule" and base == "wordpress-5.5":
        extra = rng.choice((b"/private/", b"/cgi-bin/", b"/search/", b"/?s=", b"/wp-login.php"))
        out = text.replace(b"admin-ajax.php\n", b"admin-ajax.php\nDisallow: " + extra + b"\n")
    elif change == "sitemap_moved":
        out = text.replace(b"/wp-sitemap.xml", rng.choice((b"/sitemap.xml", b"/sitemap_index.xml")))
    elif change == "no_slash":
        out = text.replace(b"Disallow: /wp-admin/\n", b"Disallow: /wp-admin\n")
    elif change == "no_marker":
        out = text.replace(b"# START YOAST BLOCK\n", b"")
    elif change == "extra_rules":      # Yoast's crawl settings add rules inside its block
        out = text.replace(b"Disallow:\n", b"Disallow:\nDisallow: /?s=\nDisallow: /page/*/?s=\nDisallow: /search/\n")
    elif change == "line_removed":
        lines = text.split(b"\n")
        rules_at = [i for i, line in enumerate(lines) if line.startswith(b"Disallow:")]
        del lines[rng.choice(rules_at)]
        out = b"\n".join(lines)
    elif change == "ai_group":
        out = text + b"\n# Block AI crawlers\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n"
    elif change == "rule_removed":
        out = text.replace(b"Disallow: /static/\n", b"")
    elif change == "extra_rule":       # ghost-5
        out = text + b"Disallow: /tag/\n"
    elif change == "rule_inside":      # the site's rule inside Cloudflare's block: a copy by hand
        out = text.replace(b"Allow: /\n", b"Allow: /\nDisallow: /admin/\n", 1) + b"\n" + site_lines(rng, origin)
    else:
        raise ValueError(kind)
    if out == text:
        raise RuntimeError("near-default %s changes nothing" % kind)
    return out


def cosmetic_body(rng, kind, origin, host):
    """wordpress-5.5 written otherwise: the same ruleset."""
    _, change = kind.split("/")
    text = filled("wordpress-5.5", origin)
    sitemap = b"Sitemap: " + origin.encode()
    if change == "crlf":
        return text.replace(b"\n", b"\r\n")
    if change == "comment_line":
        return b"# robots.txt for " + host.name.encode() + b"\n" + text
    if change == "trailing_comment":
        return text.replace(b"/wp-admin/\n", b"/wp-admin/   # the dashboard\n")
    if change == "lower_user_agent":
        return text.replace(b"User-agent:", b"user-agent:")
    if change == "useragent_typo":          # a typo Google accepts
        return text.replace(b"User-agent:", b"Useragent:")
    if change == "blank_lines":
        return b"\n" + text.replace(b"\n", b"\n\n", 2)
    if change == "sitemap_other_scheme":
        other = "http" if origin.startswith("https:") else "https"
        return text.replace(sitemap, b"Sitemap: %s://%s" % (other.encode(), host.name.encode()))
    if change == "sitemap_other_host":
        other = host.domain if host.name.startswith("www.") else "www." + host.domain
        return text.replace(sitemap, b"Sitemap: https://" + other.encode())
    if change == "bom":
        return b"\xef\xbb\xbf" + text
    if change == "no_final_newline":
        return text.rstrip(b"\n")
    if change == "tab_after_colon":
        return text.replace(b": ", b":\t")
    raise ValueError(kind)


def change_lines(seed, host, version, origin):
    """The lines a host's changes 1..version added: each a sitemap or a rule."""
    out = []
    for v in range(1, version + 1):
        rng = file_rng("copies change %s %d" % (seed, host.id), v)
        if rng.random() < 0.5:
            out.append("Sitemap: %s/sitemap-%s-%d.xml" % (origin, path_word(rng), v))
        else:
            out.append("Disallow: /%s-%d/" % (path_word(rng), v))
    return out


def append_lines(body, lines):
    """`body` with `lines` at its end, in its line end."""
    if not lines:
        return body
    end = b"\r\n" if b"\r\n" in body else b"\r" if b"\r" in body and b"\n" not in body else b"\n"
    if body and not body.endswith((b"\n", b"\r")):
        body += end
    return body + end.join(line.encode() for line in lines) + end


def check_kinds(seed):
    """Each near-default is none, each cosmetic variant is wordpress-5.5
    with its ruleset, each default itself (for two hosts, both schemes)."""
    wp = ruleset(filled("wordpress-5.5", "https://a.example"))
    for i, name in enumerate(["www.check-one.example", "check-two.example"]):
        domain = name[4:] if name.startswith("www.") else name
        for kind in ["template:" + t for t in TEMPLATE_SHARES] + ["near:" + k for k in NEAR] + \
                ["cosmetic:" + k for k in COSMETIC]:
            host = Host(-1 - i, name, domain, "www", "192.0.2.1", "nginx", 200, kind, "both", 1)
            for scheme in ("https", "http"):
                body, _ = host_body(seed, host, 0, scheme, None)
                got = match_template(body, ruleset(body))
                what, detail = kind.split(":")
                want = None if what == "near" else detail.split("/")[0]
                if got != want:
                    raise RuntimeError("%s over %s is %s, not %s" % (kind, scheme, got, want))
                if what == "cosmetic" and ruleset(body) != wp:
                    raise RuntimeError("%s over %s is another ruleset" % (kind, scheme))
