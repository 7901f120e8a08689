"""The server's side of a fetch: the reply to each status (a robots.txt
body or a page for a 200, cut or not; a redirect with its Location; an
error page), with what it serves counted in the file's facts."""

from .bodies import BODY_BUILDERS, Ctx, Payload, body_big_site, huge_lines, render_text
from .config import (BODY_SHARES, FETCH_LIMIT, FOLLOW_OTHER_TARGET, FOLLOW_ROBOTS_TARGET,
                     NOT_FOUND_PAGE_SHARES, REASONS, RELATIVE_LOCATION, SCHEME_RELATIVE_LOCATION,
                     SERVER_SHARES, TRUNCATED_DISCONNECT, TRUNCATED_LENGTH, TRUNCATED_TIME)
from .hosts import redirect_kinds_for, redirect_target
from .pages import (apache_page, cloudflare_5xx, cloudflare_challenge, iis_page, moved_page, nginx_page,
                    s3_page)
from .reply import Reply
from .util import lognormal, pick

# Spec keys of a text quirk: a spec with one of them (or an encoding) and no
# body gets one of the text bodies below.
TEXT_QUIRK_KEYS = ("key_case", "line_end", "bom", "no_final_newline", "leading_blank", "tab_after_colon")
TEXT_BODY_KINDS = ["wordpress", "allow_all", "ai_blocklist", "big_site", "crawl_delay", "comments",
                   "typos", "shopify", "yandex", "sitemaps"]


class Server:
    """Makes the reply to a fetch from the file's random stream and page
    pool. `follow(slot, target, path, chain)` schedules the fetch of a
    redirect's target; --preferences (`preferences`) cuts no body and stores
    bodies without text quirks."""

    def __init__(self, rng, pages, facts, follow, preferences=False):
        self.rng = rng
        self.pages = pages
        self.facts = facts
        self.follow = follow
        self.preferences = preferences

    def serve(self, slot, fetch):
        rng, force, facts = self.rng, fetch.force, self.facts
        server = force.get("server") or pick(rng, SERVER_SHARES)
        status = fetch.status
        if 200 <= status < 300 and status != 204:
            return self.serve_ok(fetch, server)
        if status == 204:
            facts["error_page"]["no_content_204"] += 1
            return Reply(204, b"", None, None, server)
        if 300 <= status < 400:
            return self.serve_redirect(slot, fetch, server)
        return self.serve_error(fetch, server)

    # -- 200 ---------------------------------------------------------------

    def serve_ok(self, fetch, server):
        """A 200: a robots.txt body (an HTML page for another path), cut at
        the fetch limit, in time or by a disconnect, or whole."""
        rng, force, facts = self.rng, fetch.force, self.facts
        site = fetch.site
        ctx = Ctx(rng, site, self.pages)
        truncation = self.draw_truncation(force)
        if fetch.path != "/robots.txt":
            kind, variant = "page_for_other_path", None
            payload = Payload(data=self.pages.page(rng, site.host.lower(), rng.choice(("Home", "Sign in", "Welcome"))),
                              ctype="text/html; charset=UTF-8", identified="text/html")
        elif truncation == "length":
            kind = force.get("body") or rng.choice(("html_page", "huge"))
            variant = payload = None
        else:
            kind, variant, payload = self.robots_body(ctx, force)
        if truncation == "length":
            return self.cut_at_limit(ctx, kind, server)
        body = payload.data if payload.data is not None else render_text(rng, payload, force, facts)
        if truncation in ("time", "disconnect") and len(body) < 400:
            # cut something worth cutting: a big site's file
            kind, variant = "big_site", "typical"
            payload = body_big_site(ctx, variant)
            body = render_text(rng, payload, {}, facts)
        self.count_body(kind, variant, payload, body)
        reply = Reply(200, body, self.robots_ctype(payload), payload.identified if body else None, server)
        if truncation in ("time", "disconnect"):
            cut = int(len(body) * rng.uniform(0.2, 0.9))
            reply.announced = len(body)
            reply.body = body[:cut]
            reply.truncated = truncation
        return reply

    def draw_truncation(self, force):
        """How a 200 is cut short: "length", "time", "disconnect" or None."""
        truncation = force.get("truncation")
        if truncation is None and not self.preferences:   # --preferences: no body is cut
            r = self.rng.random()
            if r < TRUNCATED_LENGTH:
                truncation = "length"
            elif r < TRUNCATED_LENGTH + TRUNCATED_TIME:
                truncation = "time"
            elif r < TRUNCATED_LENGTH + TRUNCATED_TIME + TRUNCATED_DISCONNECT:
                truncation = "disconnect"
        return truncation

    def robots_body(self, ctx, force):
        """(category, variant, Payload) of a robots.txt body, as the spec
        says or drawn from the mixture."""
        rng = self.rng
        kind = force.get("body")
        if kind is None:
            text_quirk = any(k in force for k in TEXT_QUIRK_KEYS + ("encoding", "chunked"))
            kind = rng.choice(TEXT_BODY_KINDS) if text_quirk else pick(rng, BODY_SHARES)
        builder, variants = BODY_BUILDERS[kind]
        variant = force.get("variant") if "body" in force and "variant" in force else pick(rng, variants)
        payload = builder(ctx, variant)
        if self.preferences:
            payload.quirks = False    # LF, no BOM, keys as written, a final newline
        return kind, variant, payload

    def cut_at_limit(self, ctx, kind, server):
        """The server announced more than the fetch limit; the stored part
        is cut there (a huge robots.txt or HTML pages)."""
        rng = self.rng
        if kind == "huge":
            lines = huge_lines(rng, FETCH_LIMIT + rng.randint(1000, 200_000), ctx)
            full = ("\n".join(lines) + "\n").encode()
            ctype, ident = "text/plain", "text/plain"
        else:
            full = self.pages.big(rng, ctx.site.host.lower(), FETCH_LIMIT + 1)
            ctype, ident = "text/html; charset=UTF-8", "text/html"
        self.facts["body"]["truncated_" + ("robots" if kind == "huge" else "html")] += 1
        announced = max(len(full), lognormal(rng, 1_600_000, 0.4, FETCH_LIMIT + 1, 9_000_000))
        return Reply(200, full[:FETCH_LIMIT], ctype, ident, server, announced=announced, truncated="length")

    def count_body(self, kind, variant, payload, body):
        facts = self.facts
        facts["body"][kind] += 1
        if variant:
            facts["variant"]["%s:%s" % (kind, variant)] += 1
        if payload.lines is not None and payload.bom:
            facts["bom"]["utf-16le" if payload.bom == b"\xff\xfe" else "utf-16be"] += 1
        elif body.startswith(b"\xef\xbb\xbf"):
            facts["bom"]["utf-8"] += 1

    def robots_ctype(self, payload):
        """The server's Content-Type for a robots.txt body: mostly text/plain."""
        if payload.ctype != "text/plain":
            return payload.ctype
        r = self.rng.random()
        if payload.encoding == "latin-1":
            return "text/plain; charset=ISO-8859-1"
        if r < 0.45:
            return "text/plain"
        if r < 0.80:
            return "text/plain; charset=utf-8"
        if r < 0.95:
            return "text/plain; charset=UTF-8"
        if r < 0.98:
            return "application/octet-stream"
        return None

    # -- 3xx ---------------------------------------------------------------

    def serve_redirect(self, slot, fetch, server):
        """A redirect: its target, the Location's form, a body, and maybe a
        later fetch of the target."""
        rng, site, force, facts = self.rng, fetch.site, fetch.force, self.facts
        kind = fetch.redirect_kind or rng.choice(redirect_kinds_for(site))
        facts["redirect_kind"][kind] += 1
        target, target_path = redirect_target(rng, site, kind, force)
        form = self.location_form(site, target, kind, force)
        location = location_value(form, target, target_path)
        facts["location"][form] += 1
        extra = [] if location is None else [("Location", location)]
        body, ctype, ident = self.redirect_body(fetch.status, location)
        if location:
            follow = force.get("follow")
            if follow is None:
                follow = rng.random() < (FOLLOW_ROBOTS_TARGET if target_path == "/robots.txt" else FOLLOW_OTHER_TARGET)
            if follow:
                self.follow(slot, target, target_path, force.get("chain"))
        return Reply(fetch.status, body, ctype, ident, server, extra)

    def location_form(self, site, target, kind, force):
        """absolute, path, scheme_relative (same scheme, other host), absent
        or empty (missing_location)."""
        rng = self.rng
        if kind == "missing_location":
            return force.get("location_form") or rng.choice(("absent", "absent", "empty"))
        if kind == "not_robots_path":
            return force.get("location_form") or ("path" if rng.random() < RELATIVE_LOCATION else "absolute")
        if kind in ("www_added", "www_removed", "same_site", "other_host") and target.scheme == site.scheme:
            return force.get("location_form") or ("scheme_relative" if rng.random() < SCHEME_RELATIVE_LOCATION
                                                  else "absolute")
        return "absolute"

    def redirect_body(self, status, location):
        """(body, Content-Type, identified type): nginx's page, nothing, or
        Apache's page linking the Location."""
        r = self.rng.random()
        if r < 0.45:
            return nginx_page(status), "text/html", "text/html"
        if r < 0.75:
            return b"", None, None
        return moved_page(status, location), "text/html; charset=iso-8859-1", "text/html"

    # -- 4xx, 5xx ----------------------------------------------------------

    def serve_error(self, fetch, server):
        """A 4xx or 5xx: Cloudflare's pages, a themed 404 or 503 page, or
        the server's own, plain, JSON, S3 or empty."""
        rng, site, force, facts = self.rng, fetch.site, fetch.force, self.facts
        status = fetch.status
        host = site.host.lower()
        extra = []
        if status == 401:
            extra.append(("WWW-Authenticate", rng.choice(('Basic realm="Restricted"', 'Bearer'))))
        if status in (429, 503) and rng.random() < 0.6:
            extra.append(("Retry-After", rng.choice(("120", "3600", "30"))))
        if status in (520, 521, 522):
            facts["error_page"]["cloudflare_5xx"] += 1
            return Reply(status, cloudflare_5xx(rng, status, host), "text/html; charset=UTF-8", "text/html",
                         "cloudflare", extra)
        if status == 403 and (force.get("page") == "cloudflare_challenge" or
                              (server == "cloudflare" and rng.random() < 0.5)):
            facts["error_page"]["cloudflare_challenge"] += 1
            return Reply(403, cloudflare_challenge(rng, host), "text/html; charset=UTF-8", "text/html",
                         "cloudflare", extra)
        page = force.get("page")
        if status == 404:
            page = page or pick(rng, NOT_FOUND_PAGE_SHARES)
        elif status == 503 and not page and rng.random() < 0.5:
            page = "themed"
        else:
            page = page or "server_default"
        facts["error_page"][page] += 1
        return self.error_page(page, status, site, server, extra)

    def error_page(self, page, status, site, server, extra):
        rng = self.rng
        host = site.host.lower()
        if page == "themed":
            title = "Page not found" if status == 404 else REASONS.get(status) or "Error"
            return Reply(status, self.pages.page(rng, host, title), "text/html; charset=UTF-8", "text/html",
                         server, extra)
        if page == "plain":
            return Reply(status, b"%d %s\n" % (status, REASONS.get(status, "").encode()), "text/plain",
                         "text/plain", server, extra)
        if page == "json":
            return Reply(status, b'{"error":{"code":%d,"message":"%s"}}' % (status, REASONS.get(status, "").encode()),
                         "application/json", "application/json", server, extra)
        if page == "s3_xml":
            return Reply(status, s3_page(rng), "application/xml", "application/xml", "s3", extra)
        if page == "empty":
            return Reply(status, b"", "text/html", None, server, extra)
        if server == "apache":
            body = apache_page(status, host, 443 if site.scheme == "https" else 80)
        elif server == "iis":
            body = iis_page(status)
        elif server == "s3" and status in (403, 404):
            return Reply(status, s3_page(rng), "application/xml", "application/xml", server, extra)
        else:
            body = nginx_page(status, "" if rng.random() < 0.7 else "/1.24.0")
        return Reply(status, body, "text/html", "text/html", server, extra)


def location_value(form, target, target_path):
    """The Location header's value for its form (None: no header)."""
    if form == "absolute":
        return target.url(target_path)
    if form == "path":
        return target_path
    if form == "scheme_relative":
        return "//" + target.hostport + target_path
    if form == "empty":
        return ""
    return None
