"""Robots.txt bodies of well-formed files as platforms and sites write
them: CMS templates (WordPress, Drupal, Joomla, Shopify, Magento), allow-all
and disallow-all files, big sites' many groups, Yandex's directives,
crawl delays and sitemaps. Each builder takes (Ctx, variant) and returns a
Payload."""

from ..util import lognormal, path_word, prose
from ..vocab import AI_CORE, SEARCH_BOTS, SEO_BOTS
from .common import rules, text


def body_wordpress(c, variant):
    rng = c.rng
    sitemap = c.url(rng.choice(("/wp-sitemap.xml", "/sitemap_index.xml", "/sitemap.xml")))
    core = ["User-agent: *", "Disallow: /wp-admin/", "Allow: /wp-admin/admin-ajax.php"]
    if variant == "core":
        return text(core + ([] if rng.random() < 0.3 else ["", "Sitemap: " + sitemap]))
    if variant == "yoast":
        return text(["# START YOAST BLOCK", "# ---------------------------", "User-agent: *",
                     "Disallow:", "", "Sitemap: " + c.url("/sitemap_index.xml"),
                     "# ---------------------------", "# END YOAST BLOCK"])
    if variant == "woocommerce":
        shop = ["Disallow: /cart/", "Disallow: /checkout/", "Disallow: /my-account/",
                "Disallow: /*?add-to-cart=*", "Disallow: /*?orderby=", "Disallow: /*?filter_*",
                "Disallow: /*add_to_wishlist=*"]
        return text(core + shop[:rng.randint(3, len(shop))] + ["", "Sitemap: " + sitemap])
    extra = ["Disallow: /wp-includes/", "Disallow: /wp-content/plugins/", "Disallow: /wp-content/cache/",
             "Disallow: /trackback/", "Disallow: */feed/", "Disallow: /comments/", "Disallow: /?s=",
             "Disallow: /search/", "Disallow: /*?replytocom", "Disallow: /xmlrpc.php",
             "Disallow: /readme.html", "Disallow: /wp-login.php", "Allow: /wp-content/uploads/",
             "Disallow: /*/feed/$", "Disallow: /author/", "Disallow: /tag/*/page/", "Allow: /*.css$",
             "Allow: /*.js$"]
    rng.shuffle(extra)
    return text(core + extra[:rng.randint(4, len(extra))] + ["", "Sitemap: " + sitemap])


def body_drupal(c, variant):
    rng = c.rng
    head = ["#", "# robots.txt", "#", "# This file keeps well-behaved crawlers out of the parts",
            "# of this Drupal site that only make sense to people logged in.", "#",
            "# See http://www.robotstxt.org/robotstxt.html", "#"]
    assets = ["# CSS, JS, Images"]
    assets += ["Allow: /%s/*.%s%s" % (d, e, rng.choice(("$", "?", "")))
               for d in ("core", "profiles") for e in ("css", "js", "png", "svg")]
    dirs = ["# Directories", "Disallow: /core/", "Disallow: /profiles/",
            "# Files", "Disallow: /README.md", "Disallow: /web.config", "Disallow: /composer.json"]
    paths = ["admin/", "comment/reply/", "filter/tips", "node/add/", "search/", "user/register",
             "user/password", "user/login", "user/logout", "media/oembed"]
    clean = ["# Paths (clean URLs)"] + ["Disallow: /" + p for p in paths]
    plain = ["# Paths (no clean URLs)"] + ["Disallow: /index.php/" + p for p in paths]
    lines = head + ["User-agent: *"] + assets + dirs + clean
    if variant == "with_index_php":
        lines += plain
    return text(lines)


def body_joomla(c, variant):
    lines = ["# If the Joomla site is installed within a folder",
             "# eg www.example.com/joomla/ then the robots.txt file",
             "# MUST be moved to the site root", "# and the joomla folder name MUST be prefixed",
             "# to all of the paths.", "", "User-agent: *"]
    dirs = ["administrator", "api", "bin", "cache", "cli", "components", "includes",
            "installation", "language", "layouts", "libraries", "logs", "modules", "plugins", "tmp"]
    lines += ["Disallow: /%s/" % d for d in dirs]
    if variant == "with_sitemap":
        lines += ["", "Sitemap: " + c.url("/index.php?option=com_jmap&view=sitemap&format=xml")]
    return text(lines)


def body_shopify(c, variant):
    rng = c.rng
    star = ["Disallow: /admin", "Disallow: /cart", "Disallow: /orders", "Disallow: /checkouts/",
            "Disallow: /checkout", "Disallow: /*/checkouts/", "Disallow: /carts", "Disallow: /account",
            "Disallow: /collections/*sort_by*", "Disallow: /*/collections/*sort_by*",
            "Disallow: /collections/*+*", "Disallow: /collections/*%2B*", "Disallow: /collections/*%2b*",
            "Disallow: /blogs/*+*", "Disallow: /*?*oseid=*", "Disallow: /*preview_theme_id*",
            "Disallow: /*preview_script_id*", "Disallow: /policies/", "Disallow: /search",
            "Disallow: /apple-app-site-association", "Disallow: /.well-known/shopify/monorail",
            "Disallow: /cdn/wpm/*.js", "Disallow: /recommendations/products",
            "Disallow: /products/*.oembed", "Disallow: /*/products/*.oembed"]
    lines = ["# we use Shopify as our ecommerce platform", "", "User-agent: *"] + star
    lines += ["Sitemap: " + c.url("/sitemap.xml"), "",
              "# Google adsbot ignores robots.txt unless specifically named!",
              "User-agent: adsbot-google", "Disallow: /checkouts/", "Disallow: /checkout",
              "Disallow: /carts", "Disallow: /orders", "Disallow: /*?*oseid=*", "",
              "User-agent: Nutch", "Disallow: /", "",
              "User-agent: AhrefsBot", "Crawl-delay: 10"] + star[:6]
    lines += ["", "User-agent: AhrefsSiteAudit", "Crawl-delay: 10"] + star[:6]
    lines += ["", "User-agent: MJ12bot", "Crawl-Delay: 10", "", "User-agent: Pinterest", "Crawl-delay: 1"]
    if variant == "with_ai":
        lines += ["", "# no AI training"] + ["User-agent: " + b for b in rng.sample(AI_CORE, 5)] + ["Disallow: /"]
    return text(lines)


def body_magento(c, variant):
    lines = ["User-agent: *", "Disallow: /index.php/", "Disallow: /*?", "Disallow: /checkout/",
             "Disallow: /app/", "Disallow: /lib/", "Disallow: /*.php$", "Disallow: /pkginfo/",
             "Disallow: /report/", "Disallow: /var/", "Disallow: /customer/",
             "Disallow: /sendfriend/", "Disallow: /review/", "Disallow: /*SID=",
             "Disallow: /catalogsearch/", "Disallow: /catalog/product_compare/",
             "Disallow: /wishlist/", "Allow: /*?p=", "Disallow: /*?dir*", "Disallow: /*?limit*",
             "Disallow: /*?mode*", "Disallow: /*?price=*"]
    if variant == "with_delay":
        lines += ["Crawl-delay: %d" % c.rng.choice((5, 10, 20))]
    return text(lines + ["", "Sitemap: " + c.url("/pub/media/sitemap.xml")])


def body_allow_all(c, variant):
    sm = c.url("/sitemap.xml")
    return text({
        "empty_disallow": ["User-agent: *", "Disallow:"],
        "allow_root": ["User-agent: *", "Allow: /"],
        "with_sitemap": ["User-agent: *", "Disallow:", "", "Sitemap: " + sm],
        "allow_star": ["User-agent: *", "Allow: /*"],
        "comment_only": ["# robots.txt for " + c.site.host.lower(), "# everything is allowed"],
        "disallow_space": ["User-Agent: *", "Disallow: "],
    }[variant])


def body_disallow_all(c, variant):
    return text({
        "root": ["User-agent: *", "Disallow: /"],
        "star": ["User-agent: *", "Disallow: /*"],
        "staging": ["# Staging server - do not index", "User-agent: *", "Disallow: /"],
        "except_google": ["User-agent: *", "Disallow: /", "", "User-agent: Googlebot", "Allow: /"],
        "noindex": ["User-Agent: *", "Disallow: /", "Noindex: /"],
    }[variant])


def body_big_site(c, variant):
    """Many groups, many rules: 1-60 KiB (variant "large": 60-200 KiB)."""
    rng = c.rng
    target = lognormal(rng, 5000, 1.0, 1000, 60_000) if variant == "typical" else rng.randint(60_000, 200_000)
    lines = ["# robots.txt for %s" % c.home, "# Questions? webmaster@%s" % c.site.domain, ""]
    agents = SEARCH_BOTS + SEO_BOTS + AI_CORE
    rng.shuffle(agents)
    size, first, k = 60, True, 0
    while size < target:
        if first:
            uas, first = ["*"], False
        else:
            m = rng.choice((1, 1, 1, 2, 3))
            uas = [agents[(k + j) % len(agents)] for j in range(m)]
            k += m
        group = ["User-agent: " + ua for ua in uas]
        if rng.random() < 0.15:
            group.append("Crawl-delay: %s" % rng.choice(("1", "2", "5", "10", "0.5")))
        group += rules(rng, lognormal(rng, 20, 0.9, 1, 400), rng.choice((0.05, 0.15, 0.3)))
        if rng.random() < 0.1:
            group.insert(rng.randint(1, len(group)), "# " + prose(rng, rng.randint(3, 10)))
        lines += group + [""]
        size += sum(len(x) + 1 for x in group) + 1
    for _ in range(rng.randint(1, 5)):
        lines.append("Sitemap: " + c.url(rng.choice(("/sitemap.xml", "/sitemap_index.xml", "/sitemaps/news.xml",
                                                     "/sitemaps/products-%d.xml" % rng.randint(1, 40)))))
    return text(lines)


def body_yandex(c, variant):
    rng = c.rng
    lines = ["# Файл robots.txt для сайта %s" % c.site.host.lower(), "User-agent: *"]
    common = ["Disallow: /bitrix/", "Disallow: /search/", "Disallow: /auth/", "Disallow: /personal/",
              "Disallow: /*?print=", "Disallow: /*&print=", "Disallow: /*register=yes",
              "Disallow: /*forgot_password=yes", "Disallow: /*login=yes", "Disallow: /*bitrix_*=",
              "Allow: /bitrix/components/", "Allow: /bitrix/cache/", "Allow: /bitrix/js/",
              "Allow: /bitrix/templates/"]
    lines += common + ["", "User-agent: Yandex"] + common[:6]
    for _ in range(rng.randint(1, 3)):
        lines.append("Clean-param: " + rng.choice(("utm_source&utm_medium&utm_campaign", "sid /forum/*.php",
                                                   "PAGEN_1", "sort&order /catalog/", "yclid&gclid", "ref /")))
    if variant != "host_only":
        lines.append("Crawl-delay: %s" % rng.choice(("1", "2", "0.5", "5")))
    lines.append("Host: " + rng.choice((c.home, c.site.host.lower(), "https://www." + c.site.domain)))
    lines += ["", "# Карта сайта", "Sitemap: " + c.url("/sitemap.xml")]
    return text(lines)


def body_crawl_delay(c, variant):
    rng = c.rng
    value = {"integer": rng.choice(("1", "5", "10", "30", "120")), "decimal": rng.choice(("0.5", "1.5", "2.5")),
             "invalid": rng.choice(("ten", "5s", "-1", "", "5 # seconds"))}.get(variant, "10")
    lines = ["User-agent: *", "Crawl-delay: " + value]
    lines += rules(rng, rng.randint(0, 8))
    if variant == "others":
        lines += ["Request-rate: %s" % rng.choice(("1/10", "1/5s", "30/1m", "1/10s 0600-0845")),
                  "Visit-time: %s" % rng.choice(("0600-0845", "2200-0600")), "Noindex: /search/"]
    for bot in rng.sample(["bingbot", "Slurp", "AhrefsBot", "SemrushBot", "MJ12bot", "Baiduspider"],
                          rng.randint(0, 3)):
        lines += ["", "User-agent: " + bot, "Crawl-delay: %d" % rng.choice((5, 10, 30, 60, 3600))]
    return text(lines)


def body_sitemaps(c, variant):
    rng = c.rng
    d = c.site.domain
    urls = {
        "same_host": [c.url("/sitemap.xml"), c.url("/sitemap_index.xml")],
        "other_host": ["https://cdn.%s-static.com/sitemaps/%s.xml" % (d.split(".")[0], path_word(rng)),
                       "https://sitemaps.example-hosting.net/%s/sitemap.xml.gz" % d],
        "same_domain": ["https://sitemaps.%s/sitemap.xml" % d, "https://www.%s/news-sitemap.xml" % d,
                        "https://%s/sitemap.xml" % d],
        "relative": ["/sitemap.xml", "sitemap.xml", "/sitemaps/sitemap-index.xml"],
        "invalid": ["", "www.%s/sitemap.xml" % d, "https://%s/site map.xml" % d, "htp://%s/sitemap.xml" % d,
                    "https:///sitemap.xml"],
        "many": [c.url("/sitemaps/sitemap-%d.xml" % i) for i in range(rng.randint(20, 60))],
    }[variant]
    keys = ("Sitemap", "Sitemap", "sitemap", "SITEMAP")
    lines = ["%s: %s" % (rng.choice(keys), u) for u in urls]
    if rng.random() < 0.5:
        lines = ["User-agent: *", "Allow: /", ""] + lines
    return text(lines)
