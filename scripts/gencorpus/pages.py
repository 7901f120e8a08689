"""HTML pages: the file's pool of page templates (404 pages, HTML served
as robots.txt, redirect targets, bodies cut at the fetch limit) and the
error pages of servers and of Cloudflare."""

import base64
import json
import math
from statistics import NormalDist

from .config import PAGE_MEDIAN, PAGE_SIGMA, REASONS
from .util import path_word, prose

# ---------------------------------------------------------------------------
# HTML pages: a pool of themes per file, host and title filled in per use
# ---------------------------------------------------------------------------

# Markers in a template, replaced by the host and the title on each use.
HOST = "\x00H"
TITLE = "\x00T"


class PagePool:
    """Pre-rendered HTML page templates (median ~14 KB, up to ~190 KB); a
    use fills in the host and the title, so every stored page differs."""

    def __init__(self, rng, count):
        normal = NormalDist()
        sizes = [max(3_000, int(PAGE_MEDIAN * math.exp(PAGE_SIGMA * normal.inv_cdf((i + 0.5) / count))
                                * rng.uniform(0.9, 1.1)))
                 for i in range(count)]
        self.templates = [render_template(rng, size) for size in sizes]

    def page(self, rng, host, title):
        t = rng.choice(self.templates)
        return t.replace(HOST, host).replace(TITLE, title).encode("utf-8")

    def big(self, rng, host, size):
        """Pages one after another until `size` bytes (for a body cut at 1 MiB)."""
        parts, n = [], 0
        while n < size:
            p = self.page(rng, host, "Archive")
            parts.append(p)
            n += len(p)
        return b"".join(parts)


def render_template(rng, size):
    """A page of a made-up theme, about `size` bytes: head, styles, menu,
    then blocks of content until the size, then the footer."""
    brand = "%s %s" % (path_word(rng).capitalize(),
                       rng.choice(("Store", "News", "Blog", "Group", "Online", "GmbH")))
    colors = ["#%06x" % rng.getrandbits(24) for _ in range(rng.randint(3, 7))]
    out = page_head(rng, brand, colors) + page_header(rng, brand)
    footer = ['</main><footer class="site-footer">',
              "<p>&copy; %d %s</p>" % (rng.randint(2012, 2025), brand),
              '<script src="https://%s/assets/js/app.min.js?v=%x"></script>' % (HOST, rng.getrandbits(32)),
              "</footer></body></html>"]
    n = sum(len(x) + 1 for x in out) + sum(len(x) + 1 for x in footer)
    while n < size:
        s = content_block(rng)
        out.append(s)
        n += len(s) + 1
    return "\n".join(out + footer)


def page_head(rng, brand, colors):
    """The lines from the doctype to the analytics script of the head."""
    H = HOST
    out = ["<!DOCTYPE html>", '<html lang="%s">' % rng.choice(("en", "en-US", "de-DE", "fr-FR", "es", "ru", "ja")),
           "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>%s | %s</title>" % (TITLE, brand),
           '<meta name="description" content="%s">' % prose(rng, rng.randint(8, 25)),
           '<link rel="canonical" href="https://%s/">' % H]
    for _ in range(rng.randint(2, 10)):
        out.append('<link rel="stylesheet" href="https://%s/%s/%s.css?ver=%d.%d.%d" media="all">' % (
            H, rng.choice(("assets/css", "wp-content/themes/%s" % path_word(rng), "static")), path_word(rng),
            rng.randint(1, 9), rng.randint(0, 30), rng.randint(0, 99)))
    out.append(page_style(rng, colors))
    out.append('<script async src="https://www.googletagmanager.com/gtag/js?id=G-%010X"></script>'
               % rng.getrandbits(40))
    return out


def page_style(rng, colors):
    """An inline <style> of random rules in the theme's colours."""
    css = []
    for _ in range(rng.randint(10, 120)):
        props = ";".join(rng.choice((
            "color:%s" % rng.choice(colors), "background:%s" % rng.choice(colors),
            "margin:%dpx %dpx" % (rng.randint(0, 40), rng.randint(0, 40)), "padding:%dpx" % rng.randint(0, 32),
            "display:%s" % rng.choice(("block", "flex", "grid", "none", "inline-block")),
            "font-size:%.2frem" % rng.uniform(0.7, 2.8), "line-height:%.1f" % rng.uniform(1.0, 2.0),
            "border:1px solid %s" % rng.choice(colors), "width:%d%%" % rng.randint(5, 100)))
            for _ in range(rng.randint(2, 6)))
        css.append(".%s-%s{%s}" % (path_word(rng), path_word(rng), props))
    return "<style>" + "".join(css) + "</style>"


def page_header(rng, brand):
    """The end of the head, the site header with its menu, the main heading."""
    H = HOST
    out = ["</head>", '<body class="%s">' % " ".join(path_word(rng) for _ in range(rng.randint(2, 7))),
           '<header class="site-header"><a class="logo" href="https://%s/">%s</a>' % (H, brand),
           '<nav><ul class="menu">']
    for _ in range(rng.randint(4, 40)):
        w = path_word(rng)
        out.append('<li class="menu-item menu-item-%d"><a href="https://%s/%s/">%s</a></li>' % (
            rng.randint(10, 9999), H, w, w.capitalize()))
    out += ["</ul></nav></header>", '<main id="content"><h1>%s</h1>' % TITLE]
    return out


def content_block(rng):
    """One block of the page's content: a paragraph, a product card, a list
    of links or a configuration script."""
    H = HOST
    r = rng.random()
    if r < 0.5:
        return "<p>%s.</p>" % prose(rng, rng.randint(12, 90)).capitalize()
    if r < 0.72:
        return ('<div class="card"><a href="https://%s/product/%s-%d/"><img loading="lazy" '
                'src="https://%s/media/%08x.jpg" alt="%s"></a><span class="price">%d.%02d</span></div>') % (
            H, path_word(rng), rng.randint(1, 99999), H, rng.getrandbits(32), prose(rng, 3),
            rng.randint(1, 999), rng.randint(0, 99))
    if r < 0.9:
        return '<ul class="related">%s</ul>' % "".join(
            '<li><a href="https://%s/%s/%s">%s</a></li>' % (H, path_word(rng), path_word(rng), prose(rng, 3))
            for _ in range(rng.randint(3, 10)))
    return "<script>window.__cfg=%s;</script>" % json.dumps(
        {path_word(rng): rng.choice((path_word(rng), rng.randint(0, 9999), True))
         for _ in range(rng.randint(4, 30))}, separators=(",", ":"))


# ---------------------------------------------------------------------------
# Error pages
# ---------------------------------------------------------------------------

def nginx_page(status, version=""):
    r = REASONS.get(status, "")
    return ("<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n"
            "<hr><center>nginx%s</center>\r\n</body>\r\n</html>\r\n" % (status, r, status, r, version)).encode()


def apache_page(status, host, port):
    r = REASONS.get(status, "")
    msg = {404: "The requested URL was not found on this server.",
           403: "You don't have permission to access this resource.",
           301: "The document has moved.", 302: "The document has moved."}.get(status, r)
    return ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>%d %s</title>\n'
            "</head><body>\n<h1>%s</h1>\n<p>%s</p>\n<hr>\n<address>Apache/2.4.58 (Ubuntu) Server at %s Port %d"
            "</address>\n</body></html>\n" % (status, r, r, msg, host, port)).encode()


def moved_page(status, location):
    """Apache's page of a redirect, linking its Location."""
    return ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>%d %s</title>\n'
            '</head><body>\n<h1>%s</h1>\n<p>The document has moved <a href="%s">here</a>.</p>\n'
            "</body></html>\n" % (status, REASONS[status], REASONS[status], location or "")).encode()


def iis_page(status):
    r = REASONS.get(status, "")
    return ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\r\n<html xmlns="http://www.w3.org/1999/xhtml">\r\n'
            '<head>\r\n<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>\r\n'
            "<title>%d - %s</title>\r\n</head>\r\n<body>\r\n<div id=\"header\"><h1>Server Error</h1></div>\r\n"
            '<div id="content"><h2>%d - %s</h2><h3>The resource you are looking for might have been removed, '
            "had its name changed, or is temporarily unavailable.</h3></div>\r\n</body>\r\n</html>\r\n"
            % (status, r, status, r)).encode()


def s3_page(rng):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key '
            "does not exist.</Message><Key>robots.txt</Key><RequestId>%016X</RequestId><HostId>%s</HostId></Error>"
            % (rng.getrandbits(64), base64.b64encode(rng.getrandbits(480).to_bytes(60, "big")).decode())).encode()


def cloudflare_challenge(rng, host):
    ray = "%016x" % rng.getrandbits(64)
    token = base64.urlsafe_b64encode(rng.getrandbits(8 * 1500).to_bytes(1500, "big")).decode()
    return ('<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>'
            '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">'
            '<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,'
            'initial-scale=1"></head><body><div class="main-wrapper" role="main"><div class="main-content">'
            "<noscript>Enable JavaScript and cookies to continue</noscript></div></div><script>(function(){"
            "window._cf_chl_opt={cvId:'3',cZone:'%s',cType:'managed',cRay:'%s',cH:'%s'};}());</script>"
            "</body></html>" % (host, ray, token)).encode()


def cloudflare_5xx(rng, status, host):
    what = {520: "Web server is returning an unknown error", 521: "Web server is down",
            522: "Connection timed out"}.get(status, "Error")
    return ('<!DOCTYPE html>\n<html class="no-js" lang="en-US">\n<head>\n<title>%s | %d: %s</title>\n'
            '<meta charset="UTF-8" />\n</head>\n<body>\n<div id="cf-wrapper"><h1><span>%s</span> '
            '<span class="code-label">Error code %d</span></h1>\n<p>Cloudflare Ray ID: <strong>%016x</strong></p>\n'
            "</div>\n</body>\n</html>\n" % (host, status, what, what, status, rng.getrandbits(64))).encode()
