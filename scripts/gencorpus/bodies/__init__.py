"""Robots.txt bodies: one builder per category of the mixture, each with
named variants and their shares (BODY_BUILDERS), the variants only
--preferences writes, and the text quirks applied when lines become bytes.

    common.py     Payload, Ctx, random rules and groups
    platforms.py  CMS templates and other well-formed site files
    ai.py         AI blocklists, Content-Signal, Content-Usage
    oddities.py   typos, sloppy syntax, odd encodings, junk, huge files
    render.py     render_text: key case, line ends, BOM, ...
"""

from ..config import BODY_SHARES
from .ai import body_ai_blocklist, body_cloudflare_managed, body_content_usage
from .common import Ctx, Payload
from .oddities import (body_comments, body_empty, body_html_page, body_huge, body_invalid_utf8,
                       body_junk, body_long_line, body_non_ascii, body_sloppy, body_typos, body_utf16,
                       huge_lines)
from .platforms import (body_allow_all, body_big_site, body_crawl_delay, body_disallow_all,
                        body_drupal, body_joomla, body_magento, body_shopify, body_sitemaps,
                        body_wordpress, body_yandex)
from .render import render_text

__all__ = ["BODY_BUILDERS", "PREFERENCE_ONLY_VARIANTS", "PREFERENCE_PLAIN_BODIES", "Ctx", "Payload",
           "body_big_site", "huge_lines", "render_text"]

# {category: (builder, {variant: weight})}, in the order of BODY_SHARES.
BODY_BUILDERS = {
    "wordpress": (body_wordpress, {"core": 45, "yoast": 20, "woocommerce": 20, "hardened": 15}),
    "drupal": (body_drupal, {"default": 70, "with_index_php": 30}),
    "joomla": (body_joomla, {"default": 80, "with_sitemap": 20}),
    "shopify": (body_shopify, {"plain": 80, "with_ai": 20}),
    "magento": (body_magento, {"default": 60, "with_delay": 40}),
    "allow_all": (body_allow_all, {"empty_disallow": 40, "allow_root": 15, "with_sitemap": 25,
                                   "allow_star": 5, "comment_only": 5, "disallow_space": 10}),
    "disallow_all": (body_disallow_all, {"root": 60, "star": 10, "staging": 15, "except_google": 10,
                                         "noindex": 5}),
    "ai_blocklist": (body_ai_blocklist, {"one_group": 35, "group_each": 35, "partial": 12,
                                         "search_allowed": 12, "full_list": 6}),
    "cloudflare_managed": (body_cloudflare_managed, {
        "cf2025": 35, "cf2025_spaces": 10, "cf2026": 25, "ai_input": 5, "policy_only": 10,
        "in_star_group": 6, "file_level": 4, "after_other_group": 3, "plural_typo": 2}),
    "content_usage": (body_content_usage, {
        "%s/%s" % (p, v): w * vw
        for p, w in (("in_group", 35), ("before_groups", 20), ("after_other_group", 15),
                     ("second_star_group", 15), ("with_content_signal", 15))
        for v, vw in (("new", 6), ("old", 3), ("unparseable", 1))}),
    "big_site": (body_big_site, {"typical": 95, "large": 5}),
    "yandex": (body_yandex, {"full": 75, "host_only": 25}),
    "crawl_delay": (body_crawl_delay, {"integer": 55, "decimal": 15, "invalid": 10, "others": 20}),
    "sitemaps": (body_sitemaps, {"same_host": 45, "other_host": 12, "same_domain": 15, "relative": 12,
                                 "invalid": 8, "many": 8}),
    "typos": (body_typos, {"accepted": 45, "unaccepted": 30, "mixed": 25}),
    "sloppy": (body_sloppy, {"missing_colon": 25, "rules_before_agent": 20, "empty_values": 20,
                             "whitespace": 20, "one_line": 8, "html_in_text": 7}),
    "comments": (body_comments, {"plain": 60, "ascii_art": 40}),
    "non_ascii": (body_non_ascii, {"utf8_paths": 60, "percent_encoded": 30, "idn_sitemap": 10}),
    "invalid_utf8": (body_invalid_utf8, {"latin1": 50, "cp1251": 30, "stray_bytes": 20}),
    "utf16": (body_utf16, {"le": 70, "be": 30}),
    "long_line": (body_long_line, {"long_rule": 60, "long_comment": 40}),
    "html_page": (body_html_page, {"text_html": 75, "text_plain": 25}),
    "empty": (body_empty, {"zero_bytes": 80, "whitespace": 20}),
    "junk": (body_junk, {"json": 25, "xml_sitemap": 20, "php_warning": 25, "ok": 15, "still_gzipped": 15}),
    "huge": (body_huge, {"rules": 70, "sitemap_spam": 30}),
}
assert set(BODY_BUILDERS) == set(BODY_SHARES)

# AI-use preference variants the builders can make but the mixture
# does not draw (the test sample and the benchmark corpus stay as they
# were); only --preferences writes them.
PREFERENCE_ONLY_VARIANTS = {
    "cloudflare_managed": ["yn_values", "uppercase_key", "named_group"],
    "content_usage": ["between_agents/new", "between_agents/old", "between_agents/unparseable",
                      "attach_example/new", "path_rules/new"],
}
# Bodies without preference lines that --preferences adds for contrast.
PREFERENCE_PLAIN_BODIES = [("allow_all", "allow_root"), ("disallow_all", "root"),
                           ("disallow_all", "except_google"), ("ai_blocklist", "search_allowed")]
