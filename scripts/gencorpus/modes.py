"""The two special files: --small (the test sample: a spec forcing each
category of the mixture at least once, and the check that all occur) and
--preferences (one fetch per AI-use preference case, and the check that
each occurs exactly once)."""

import itertools
from collections import Counter

from .bodies import BODY_BUILDERS, PREFERENCE_ONLY_VARIANTS, PREFERENCE_PLAIN_BODIES
from .config import (CACHE_CONTROL_VALUES, HOST_KIND_SHARES, LINE_END_SHARES, NOT_FOUND_PAGE_SHARES,
                     REDIRECT_KIND_SHARES, REDIRECT_STATUSES, STATUS_SHARES)


def forced_plan(rng, fetches, small, preferences):
    """The specs --small or --preferences force and the slots they start
    at: (specs, slots), both in file order (none for the corpus)."""
    if small:
        forced = forced_specs(rng)
        return forced, sorted(rng.sample(range(fetches - 80), len(forced)))
    if preferences:        # one case per fetch, in the order of preference_cases()
        forced = [{"status": 200, "body": kind, "variant": variant}
                  for kind, variant in preference_cases()]
        assert fetches == len(forced)
        return forced, list(range(len(forced)))
    return [], []


# ---------------------------------------------------------------------------
# --small: every category at least once
# ---------------------------------------------------------------------------

def forced_specs(rng):
    """One fetch spec per category of the mixture, for the test sample, in
    a random order."""
    specs = (status_specs() + redirect_specs() + body_specs() + error_page_specs() + text_quirk_specs()
             + truncation_specs() + transport_specs() + host_specs())
    rng.shuffle(specs)
    return specs


def status_specs():
    return [{"status": status} for status in STATUS_SHARES]


def redirect_specs():
    """Each redirect kind followed and not, each Location form, a two-hop
    chain, re-fetches."""
    specs = []
    codes = itertools.cycle(REDIRECT_STATUSES)
    for kind in REDIRECT_KIND_SHARES:
        specs.append({"status": next(codes), "redirect_kind": kind, "follow": True})
        specs.append({"status": next(codes), "redirect_kind": kind, "follow": False})
    return specs + [
        {"redirect_kind": "not_robots_path", "location_form": "path", "follow": True},
        {"redirect_kind": "not_robots_path", "location_form": "absolute", "target_path": "/login?next=/robots.txt",
         "follow": True},
        {"redirect_kind": "not_robots_path", "location_form": "path", "target_path": "/robots.txt/"},
        {"redirect_kind": "not_robots_path", "location_form": "absolute", "target_path": "/"},
        {"redirect_kind": "www_added", "location_form": "scheme_relative", "scheme": "https", "follow": True},
        {"redirect_kind": "other_host", "location_form": "scheme_relative", "scheme": "https"},
        {"redirect_kind": "missing_location", "location_form": "absent"},
        {"redirect_kind": "missing_location", "location_form": "empty"},
        {"redirect_kind": "https_upgrade", "follow": True, "chain": True},   # a 2-hop chain
        {"redirect_kind": "https_upgrade", "follow": True, "chain": True},
        {"refetch": True, "status": 200}, {"refetch": True, "status": 404}, {"refetch": True, "status": 301},
    ]


def body_specs():
    """Each variant of each robots.txt body category."""
    return [{"status": 200, "body": kind, "variant": variant}
            for kind, (_, variants) in BODY_BUILDERS.items() for variant in variants]


def error_page_specs():
    specs = [{"status": 404, "page": page} for page in NOT_FOUND_PAGE_SHARES]
    specs += [{"status": 404, "page": "server_default", "server": server}
              for server in ("nginx", "apache", "iis", "s3")]
    return specs + [{"status": 403, "page": "cloudflare_challenge"}, {"status": 503, "page": "themed"}]


def text_quirk_specs():
    """Each line end, BOM, key case and other quirk of robots.txt text."""
    specs = [{"status": 200, "line_end": e} for e in LINE_END_SHARES]
    return specs + [{"status": 200, "line_end": "cr", "body": "big_site", "variant": "typical"},
                    {"status": 200, "bom": True}, {"status": 200, "bom": True, "line_end": "crlf"},
                    {"status": 200, "key_case": "upper"}, {"status": 200, "key_case": "lower"},
                    {"status": 200, "no_final_newline": True, "body": "allow_all", "variant": "empty_disallow"},
                    {"status": 200, "leading_blank": True, "body": "wordpress", "variant": "core"},
                    {"status": 200, "tab_after_colon": True, "body": "allow_all", "variant": "with_sitemap"}]


def truncation_specs():
    return [{"status": 200, "truncation": "length", "body": "html_page"},
            {"status": 200, "truncation": "length", "body": "huge"},
            {"status": 200, "truncation": "time", "body": "big_site", "variant": "typical"},
            {"status": 200, "truncation": "disconnect", "body": "html_page", "variant": "text_html",
             "chunked": True, "protocol": "http/1.1", "scheme": "http"}]


def transport_specs():
    """Each encoding, protocol, header quirk and Cache-Control value."""
    specs = [{"status": 200, "encoding": "gzip", "body": "wordpress"},
             {"status": 200, "encoding": "br", "body": "big_site", "variant": "typical"},
             {"status": 404, "encoding": "gzip", "page": "themed"},
             {"status": 200, "chunked": True, "protocol": "http/1.1", "scheme": "http", "body": "shopify"},
             {"status": 200, "chunked": True, "protocol": "http/1.1", "scheme": "https", "body": "yandex"},
             {"status": 200, "protocol": "h2", "scheme": "https"},
             {"status": 200, "protocol": "http/1.0", "scheme": "http"},
             {"status": 200, "no_reason": True}, {"status": 200, "lower_headers": True, "protocol": "http/1.1"}]
    return specs + [{"status": 200, "cache_control": v} for v in CACHE_CONTROL_VALUES]


def host_specs():
    """Each host kind, an explicit port, both schemes."""
    specs = [{"status": 200, "host_kind": k} for k in HOST_KIND_SHARES]
    return specs + [{"status": 404, "host_kind": "idn"},
                    {"status": 301, "redirect_kind": "other_host", "host_kind": "ipv4"},
                    {"status": 200, "port": 8080, "scheme": "http"}, {"status": 200, "port": 8443, "scheme": "https"},
                    {"status": 200, "scheme": "http"}, {"status": 200, "scheme": "https"}]

def check_small(facts):
    """The test sample must hold every category; raise if one is missing."""
    missing = []
    for status in STATUS_SHARES:
        if not facts["status"][str(status)]:
            missing.append("status %d" % status)
    for kind in REDIRECT_KIND_SHARES:
        if not facts["redirect_kind"][kind]:
            missing.append("redirect " + kind)
    for kind, (_, variants) in BODY_BUILDERS.items():
        for v in variants:
            if not facts["variant"]["%s:%s" % (kind, v)]:
                missing.append("body %s:%s" % (kind, v))
    required = {
        "bom": ["utf-8", "utf-16le", "utf-16be"],
        "encoding": ["gzip", "br", "chunked"],
        "truncated": ["length", "time", "disconnect"],
        "size": ["over_500kib"],
        "line_end": ["lf", "crlf", "cr"],
        "directive_lines": ["content-signal", "content-usage", "cloudflare_managed_block", "crawl-delay",
                            "host", "clean-param", "noindex", "request-rate", "visit-time"],
        "location": ["absolute", "path", "scheme_relative", "absent", "empty"],
        "fetch": ["refetch", "follow_up", "non_robots_path"],
        "host": ["explicit_port", "idn", "ipv4", "upper", "ipv6_peer"],
        "protocol": ["h2", "http/1.1", "http/1.0"],
        "quirk": ["keys_lower", "keys_upper", "no_final_newline", "leading_blank_lines", "tab_after_colon",
                  "lower_case_headers", "no_reason_phrase"],
    }
    for group, keys in required.items():
        missing += ["%s %s" % (group, k) for k in keys if not facts[group][k]]
    if missing:
        raise RuntimeError("the --small sample lacks: " + ", ".join(missing))


# ---------------------------------------------------------------------------
# --preferences: one fetch per AI-use preference case
# ---------------------------------------------------------------------------

def preference_cases():
    """(category, variant) of each fetch of the --preferences file, in file
    order: every content_usage variant (placement/vocabulary), every
    cloudflare_managed variant, then the plain bodies."""
    cases = []
    for kind in ("content_usage", "cloudflare_managed"):
        cases += [(kind, v) for v in list(BODY_BUILDERS[kind][1]) + PREFERENCE_ONLY_VARIANTS[kind]]
    return cases + PREFERENCE_PLAIN_BODIES


def check_preferences(facts):
    """Each case exactly once, every fetch a 200 for a robots.txt URL, none cut."""
    cases = preference_cases()
    want = Counter("%s:%s" % case for case in cases)
    if facts["variant"] != want or facts["status"] != Counter({"200": len(cases)}) or facts["truncated"] \
            or facts["fetch"] != Counter({"fresh": len(cases)}):
        raise RuntimeError("the --preferences file does not hold each case once: %r" % dict(facts["variant"]))
