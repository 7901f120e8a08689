"""Robots.txt bodies about AI crawlers and AI-use preferences: AI
blocklists, Cloudflare's managed block and hand-written Content-Signal
lines, and IETF AIPREF Content-Usage rules in their placements and
vocabularies. Each builder takes (Ctx, variant) and returns a Payload."""

from ..vocab import AI_CORE, AI_MORE, CLOUDFLARE_BLOCKED
from .common import ai_tokens, star_group, text
from .platforms import body_allow_all, body_shopify, body_wordpress


def body_ai_blocklist(c, variant):
    rng = c.rng
    header = [rng.choice(("# Block AI crawlers", "# AI training bots are not welcome",
                          "# Opt out of generative AI training", "# --- AI ---",
                          "# Source: ai.robots.txt"))] if rng.random() < 0.7 else []
    if variant == "one_group":
        ai = header + ["User-agent: " + b for b in ai_tokens(rng, 4, 40)] + ["Disallow: /"]
    elif variant == "group_each":
        ai = header
        for b in ai_tokens(rng, 3, 20):
            ai += ["User-agent: " + b, "Disallow: /", ""]
        ai = ai[:-1]
    elif variant == "partial":
        ai = header
        for b in ai_tokens(rng, 3, 12):
            if rng.random() < 0.35:
                ai += ["User-agent: " + b, "Allow: /blog/", "Disallow: /", ""]
            else:
                ai += ["User-agent: " + b, "Disallow: /", ""]
        ai = ai[:-1]
    elif variant == "search_allowed":
        ai = header + ["User-agent: OAI-SearchBot", "User-agent: ChatGPT-User", "User-agent: PerplexityBot",
                       "Allow: /", "", "User-agent: GPTBot", "User-agent: CCBot", "User-agent: ClaudeBot",
                       "User-agent: Google-Extended", "User-agent: Bytespider", "Disallow: /"]
    else:  # full_list: every name of the list, as ai.robots.txt publishes it
        ai = ["# https://github.com/ai-robots-txt/ai.robots.txt"] + ["User-agent: " + b for b in AI_CORE + AI_MORE]
        ai += ["Disallow: /"]
    star = star_group(c)
    lines = ai + [""] + star if rng.random() < 0.5 else star + [""] + ai
    if rng.random() < 0.7:
        lines += ["", "Sitemap: " + c.url("/sitemap.xml")]
    return text(lines)


# The text around Cloudflare's managed block, after the deployed block
# (Cloudflare's documentation, managed-robots-txt, the 2026 template with
# use=); the preamble is abridged.
CF_PREAMBLE = [
    "# As a condition of accessing this website, you agree to abide by the following",
    "# content signals:",
    "#",
    "# (a)  If a content-signal = yes, you may collect content for the corresponding use.",
    "# (b)  If a content-signal = no, you may not collect content for the corresponding use.",
    "# (c)  If the website operator does not include a content signal for a corresponding",
    "#      use, the website operator neither grants nor restricts permission via content",
    "#      signal with respect to the corresponding use.",
    "#",
    "# The content signals and their meanings are:",
    "#",
    "# search:   building a search index and providing search results.",
    "# ai-input: inputting content into one or more AI models.",
    "# ai-train: training or fine-tuning AI models.",
    "#",
    "# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS",
    "# UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED",
    "# RIGHTS IN THE DIGITAL SINGLE MARKET.",
    "",
]
CF_USE_LINE = "# use:      how AI systems may consume the content (immediate, reference, or full)."


def site_rules(c):
    """A site's own robots.txt, placed after a managed block."""
    rng = c.rng
    kind = rng.choice(("wordpress", "allow_all", "shopify", "plain", "plain"))
    if kind == "wordpress":
        return body_wordpress(c, "core").lines
    if kind == "allow_all":
        return body_allow_all(c, rng.choice(("empty_disallow", "with_sitemap"))).lines
    if kind == "shopify":
        return body_shopify(c, "plain").lines
    return star_group(c, 15) + ["", "Sitemap: " + c.url("/sitemap.xml")]


# The Content-signal value of each managed-block variant ("policy_only" has
# the default).
CF_MANAGED_SIGNALS = {"cf2025": "search=yes,ai-train=no", "cf2025_spaces": "search=yes, ai-train=no",
                      "cf2026": "search=yes,ai-train=no,use=reference",
                      "ai_input": "search=yes,ai-input=no,ai-train=no"}
CF_MANAGED_VARIANTS = ("cf2025", "cf2025_spaces", "cf2026", "ai_input", "policy_only")


def body_cloudflare_managed(c, variant):
    if variant in CF_MANAGED_VARIANTS:
        return cloudflare_managed_block(c, variant)
    return hand_written_signal(c, variant)


def cloudflare_managed_block(c, variant):
    """The policy comment and Cloudflare's managed block, then the site's own
    rules (none for "policy_only")."""
    signal = CF_MANAGED_SIGNALS.get(variant, "search=yes,ai-train=no")
    pre = list(CF_PREAMBLE)
    if variant == "cf2026":
        pre.insert(14, CF_USE_LINE)
    block = ["# BEGIN Cloudflare Managed content", "", "User-Agent: *",
             "Content-signal: " + signal, "Allow: /", ""]
    if variant != "policy_only":
        blocked = CLOUDFLARE_BLOCKED + (["CloudflareBrowserRenderingCrawler"] if variant == "cf2026" else [])
        for b in blocked:
            block += ["User-agent: " + b, "Disallow: /", ""]
    block += ["# END Cloudflare Managed Content"]
    lines = pre + block
    if variant != "policy_only":
        lines += [""] + site_rules(c)    # the site's own file comes after the block
    return text(lines)


def hand_written_signal(c, variant):
    """Content-Signal written by hand, outside any managed block."""
    rng = c.rng
    value = rng.choice(("search=yes, ai-train=no", "ai-train=no", "search=yes,ai-input=yes,ai-train=no",
                        "search=yes, ai-input=no, ai-train=no, use=immediate"))
    own = site_rules(c)
    star = star_group(c, 12)
    if variant == "yn_values":
        # y/n, the AIPREF tokens, where Cloudflare's signal spells yes/no
        return text([star[0], "Content-Signal: search=y, ai-train=n"] + star[1:])
    if variant == "uppercase_key":
        # upper-case keys, which an RFC 9651 Dictionary does not allow
        return text([star[0], "Content-Signal: Search=yes, AI-Train=no"] + star[1:])
    if variant == "named_group":
        # a signal for one crawler's group and another for everyone else's
        return text(["User-agent: GPTBot", "Content-Signal: ai-train=no", "Allow: /", "",
                     star[0], "Content-Signal: search=yes, ai-train=yes"] + star[1:])
    if variant == "in_star_group":
        return text([star[0], "Content-Signal: " + value] + star[1:] + ["", "Sitemap: " + c.url("/sitemap.xml")])
    if variant == "file_level":
        return text(["# AI preferences for the whole site", "Content-Signal: " + value, ""] + own)
    if variant == "after_other_group":
        return text(own + ["", "User-agent: Baiduspider", "Disallow: /", "Content-Signal: " + value])
    # plural_typo: a key nobody defines ("Content-Signals", seen in crawler-commons PR #595)
    return text([star[0], "Content-Signals: " + value] + star[1:])


# AIPREF Content-Usage values (IETF drafts draft-ietf-aipref-attach and
# draft-ietf-aipref-vocab): the current vocabulary (train-ai, search), the
# labels of older drafts (vocab-01: tdm ai genai search inference; vocab-02:
# all train-ai train-genai ai-use search; vocab-03: bots train-ai train-genai
# search; vocab-04: bots train-ai ai-output search), and values that do not
# parse as a Structured-Fields Dictionary (RFC 9651; upper-case keys among
# them) or carry no y/n token. The rule is "Content-Usage: [path SP] dictionary",
# in a group.
CONTENT_USAGE_VALUES = {
    "new": ["train-ai=n", "train-ai=y", "search=y, train-ai=n", "train-ai=n, search=y", "search=n"],
    "old": ["ai=n", "tdm=n", "genai=n", "bots=n", "train-genai=n", "ai-use=n", "all=n",
            "inference=n", "ai-output=n", "tdm=y, ai=n"],
    "unparseable": ["/restricted/ ai=n train-ai=n", "Train-AI=N", "train-ai=no", "train-ai",
                    "train-ai=\"n\"", "n", "=n", "train-ai=n;;", "train ai = n"],
}


def content_usage_line(rng, vocab, path=None):
    value = rng.choice(CONTENT_USAGE_VALUES[vocab])
    key = rng.choice(("Content-Usage", "Content-Usage", "content-usage"))
    return "%s: %s%s" % (key, path + " " if path else "", value)


# The example of draft-ietf-aipref-attach (section 3.4), verbatim; stored
# without the text quirks of render.py (LF, no BOM, keys as written).
AIPREF_ATTACH_EXAMPLE = [
    "User-Agent: *", "Allow: /", "Disallow: /never/", "Content-Usage: train-ai=n",
    "Content-Usage: /ai-ok/ train-ai=y", "",
    "User-Agent: ExampleBot", "Allow: /", "Content-Usage: train-ai=y",
]
# Path-scoped Content-Usage rules in one group: a wildcard path, one path
# with conflicting values, a duplicate key (Structured Fields: the last one
# wins), a parameter, a path its group disallows, and a first word that looks
# like a path but does not start with "/".
AIPREF_PATH_RULES = [
    "User-agent: *", "Disallow: /private/", "Content-Usage: train-ai=y, train-ai=n",
    "Content-Usage: /*.pdf$ train-ai=n", "Content-Usage: /a/ train-ai=y", "Content-Usage: /a/ train-ai=n",
    "Content-Usage: /blog/ train-ai=n;src=site", "Content-Usage: /private/ train-ai=y",
    "Content-Usage: *.pdf train-ai=n", "Allow: /",
]
# Search crawlers that share a run of user-agent lines with GPTBot.
CU_OTHER_AGENTS = ["Googlebot", "Bingbot", "Applebot", "DuckDuckBot"]


def body_content_usage(c, variant):
    rng = c.rng
    placement, vocab = variant.split("/")
    if placement == "attach_example":
        return text(list(AIPREF_ATTACH_EXAMPLE), quirks=False)
    if placement == "path_rules":
        return text(["# AI usage preferences (IETF AIPREF)"] + AIPREF_PATH_RULES)
    cu = content_usage_line(rng, vocab)
    if placement == "between_agents":
        # One group for Google's parser, whose unknown lines do not end a
        # group (google/robotstxt robots.cc, HandleUnknownAction); under
        # AIPREF's grouping the Content-Usage line ends the first run, so
        # GPTBot's group is that line alone and only the second agent gets
        # the Disallow.
        return text(["User-agent: GPTBot", cu,
                     "User-agent: " + rng.choice(CU_OTHER_AGENTS), "Disallow: /private/", ""] + star_group(c))
    if placement == "in_group":
        return text(["User-agent: *", "Allow: /", "Disallow: /never/", cu,
                     content_usage_line(rng, "new", "/ai-ok/")])
    if placement == "before_groups":
        return text(["# AI usage preferences (IETF AIPREF)", cu, ""] + star_group(c))
    if placement == "after_other_group":
        return text(star_group(c) + ["", "User-agent: Googlebot", "Allow: /", cu])
    if placement == "second_star_group":
        return text(star_group(c) + ["", "User-agent: GPTBot", "Disallow: /", "",
                                     "User-agent: *", cu])
    # with_content_signal: both vocabularies in one group
    return text(["User-agent: *", "Content-Signal: search=yes, ai-train=no", cu, "Allow: /"])
