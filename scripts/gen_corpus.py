#!/usr/bin/env python3
"""Synthetic Common-Crawl-like robots.txt WARC files: robostats' own test
sample and benchmark corpus.

What it writes
    Files named like Common Crawl's `robotstxt/` WARC files,
    `CC-MAIN-<start>-<end>-<NNNNN>.warc.gz`, of crawl CC-MAIN-2025-47. Each
    starts with a `warcinfo` record (whose description says the data is
    synthetic), then holds one `request` and one `response` record per
    fetch of a robots.txt URL (or of a redirect's target). Every record is
    its own gzip member (zlib level 6, gzip mtime 0), with Common Crawl's
    WARC header order and real sha1/base32 digests. Payloads are stored
    decoded: the server's Content-Encoding, Transfer-Encoding and a wrong
    Content-Length are renamed `X-Crawler-...` and a Content-Length of the
    stored payload is added, as Common Crawl's writer does. HTTP/2 replies
    keep lower-case header names and get an `HTTP/1.1` status line.
    Nothing in the files is real crawl data. The assumed mixture (every
    share is an assumption, not a measurement) is in gencorpus/config.py.

    Among the robots.txt bodies are AI-use preference lines: Cloudflare's
    managed block, hand-written Content-Signal lines (in the * group, before
    the groups, after another group, a misspelt key) and IETF AIPREF
    Content-Usage rules (in the * group, before the groups, after another
    group, in a second * group, beside a Content-Signal; each with the
    current, an older draft's or an unparseable vocabulary). More cases are
    not in the mixture and only --preferences writes them: Content-Signal
    with y/n values, with upper-case keys, and in a named crawler's group;
    Content-Usage between two user-agent lines of one run, the attach
    draft's example verbatim, and path-scoped rules (wildcards, conflicting
    values for one path, duplicate keys, parameters, a disallowed path, a
    path without a leading "/").

    --crawls writes three crawls instead (CC-MAIN-2025-05, -13 and -21:
    isPartOf set, two files each, named and dated in the crawl's ISO week)
    of the same hosts, whose robots.txt policies change in planned ways
    between crawls, for the crawl-over-crawl queries: GPTBot newly blocked
    and unblocked, named and * blocks, a comment-only change, 200 -> 404,
    503 and 429, hosts that come and go, hosts captured twice in a crawl
    (the later capture decides), http and https of one host, a resolved
    and an unresolved redirect, an empty body, a failed fetch. Each
    scenario has its own number of hosts (gencorpus/crawlplan.py lists
    them). Fetch times strictly increase through each crawl's files.
    Beside the files, plan.tsv (tab-separated, a header line) gives the
    expected state of every host in every crawl it is captured in, for the
    crawlers *, GPTBot, CCBot, ClaudeBot and Googlebot: crawl,
    url_host_name, agent, state (full, partial, none, no_robots,
    unreachable, redirect), decided_by (named, wildcard, no_group; empty
    unless 2xx) and body (the deciding body's id: the same id for the same
    bytes; empty unless 2xx).

    --copies writes one crawl instead (CC-MAIN-2025-30, files named and
    dated in its ISO week) as Common Crawl fetches robots.txt: it keeps a
    fetched robots.txt about two hours (one segment), so a host is fetched
    again in many files of a crawl ("180 million fetched robots.txt for 50
    million hosts", 3.6 fetches per host: Sebastian Nagel, common-crawl
    list, October 2016, https://groups.google.com/d/topic/common-crawl/
    IKAaDlFdC60). Each host is fetched 1 to 50 times (weight n^-1.79: mean
    3.6, 54 % once, 70 % once or twice), in different files (sometimes
    twice in one), over https, http or both; most refetches return the
    same bytes, 3 % a changed body (a sitemap line or a rule added) and 4 %
    another status once (503, 429, 404, 500, 502, a failed fetch). The 200
    hosts serve the platform defaults of crates/robostats-rows/data/
    templates/ (read at run time: wordpress-5.5 14 % of them, yoast-19.8
    3.5 %, shopify 3 %, wix-2026 2.5 %, squarespace 2 %, blogger 2 %,
    cloudflare-managed 3 %, drupal, joomla and ghost 0.9-1 % each, empty
    1.7 %, ...), near-defaults that are none (a rule added or removed,
    Yoast's block without its marker line, ...), cosmetic variants of
    wordpress-5.5 with its ruleset (CRLF, a comment, a blank line,
    user-agent in lower case, "Useragent", the sitemap on the other scheme
    or host, a BOM, ...), and the default mixture's hand-written bodies
    (gencorpus/copiesplan.py has every share). Beside the files, copies.tsv
    (tab-separated, a header line) has a row per response record:
    warc_filename, url, host, fetch_status (empty for a failed fetch),
    truncated, template (the default the body is, as robostats finds it),
    body_key and ruleset_key (robostats' body_digest and ruleset_digest:
    the BLAKE3 hash of the body and the XXH3-128 hash of its canonical
    ruleset; 2xx only), planted, fetch_index, refetch, version
    (gencorpus/copies.py says what each holds). --copies at --scale 1:
    3,000 hosts, 10,938 captures in 4 files, 22 MB; --scale K has K times
    the hosts, in a file per about 20,000 captures (K=18: 195,193 captures
    in 10 files, 404 MB, 1.0 GB uncompressed).

    --scale K (with --crawls; default 1, the files above) gives every
    scenario K times its hosts for benchmarks: copy 0 keeps the names,
    copy j > 0 appends -j to the first label (shop-amber-3.example). The
    plan is the same, and plan.tsv has K times the rows of each (crawl,
    crawler, state, decided_by). A crawl gets a file per about 20,000
    fetches (at least two); a file's window grows to fit a fetch a second,
    so fetch times still strictly increase through each crawl's files,
    which start in the crawl's ISO week up to K of about 2,150 (later
    files fall in the next week). K=2000: 1,526,000 fetches in 78 files,
    1.8 GB (2.8 GB uncompressed) and a 490 MB plan.tsv.

How to run
    # the ~2 MB test sample (samples/): one file, 700 fetches, every
    # category below at least once, and its per-category counts as JSON
    python3 scripts/gen_corpus.py --out samples --small --seed 1 --stats

    # the AI-use preference cases (samples/preferences/): one small file,
    # one 200 robots.txt fetch per content_usage and cloudflare_managed
    # variant (each exactly once, in a fixed order), then 4 plain bodies
    python3 scripts/gen_corpus.py --out samples/preferences --preferences --seed 1 --stats

    # the benchmark corpus: 10 files x 16,000 fetches, ~1 GB uncompressed,
    # ~35-40 MB compressed per file (keep it outside the repository)
    python3 scripts/gen_corpus.py --out DIR

    # three crawls with planned policy transitions, and their plan.tsv
    python3 scripts/gen_corpus.py --out DIR --crawls

    # the same at benchmark scale: 2000 times the hosts, 1.5 million
    # fetches (keep it outside the repository)
    python3 scripts/gen_corpus.py --out DIR --crawls --scale 2000

    # one crawl with its hosts' robots.txt fetched again and again, and
    # copies.tsv (a row per capture: body, ruleset and template)
    python3 scripts/gen_corpus.py --out DIR --copies

    Options: --files N, --records-per-file M (fetches per file: a file
    holds 2*M+1 records), --seed S, --jobs J (default: all CPUs), --stats,
    --scale K (with --crawls or --copies).

    --stats prints a JSON list on stdout, one object per file: sizes, then
    counts per group: status, redirect_kind, location (absolute, path,
    scheme_relative, absent, empty), fetch (fresh, follow_up, refetch,
    non_robots_path), body (category of each 200 for a robots.txt URL) and
    variant (category:variant), error_page, truncated, encoding (gzip, br,
    chunked), x_crawler (renamed headers), bom, line_end, quirk, size
    (over_500kib), cache_control, protocol, scheme, host, and
    directive_lines (Content-Signal, Content-Usage, Crawl-delay, Host, ...
    lines and Cloudflare managed blocks in the first 500 KiB of 2xx bodies).
    Progress goes to stderr. --small checks that every category occurs and
    fails otherwise. --preferences (not with --small; it sets the number of
    files and fetches) checks that each case occurs exactly once and uncut
    and fails otherwise; its bodies are stored without the text quirks (LF
    line ends, no BOM, keys as written, a final newline). --crawls (not
    with --small or --preferences; it sets the files and fetches) fails if
    a scenario's hosts do not get the states it plans. --copies (the same)
    fails if a near-default is a default, or a cosmetic variant not
    wordpress-5.5 with its ruleset.

Requirements
    Python 3 standard library only (tested with CPython 3.11.7, zlib 1.2.13,
    Debian 12).

Determinism
    The output depends only on the arguments: every file has its own random
    stream derived from (--seed, file index), so --jobs does not change a
    byte. (--crawls draws each crawl's plan and, at --scale 1, its files
    from one stream per crawl, in one process; above 1 each file has its
    own stream and the files are written in --jobs processes. --copies
    plans in one stream and writes each file from its own, and each body
    from its host's, in --jobs processes.) The
    uncompressed WARC stream depends on the arguments alone; the
    gzip bytes also depend on the zlib build.

Code
    This script only runs the package gencorpus/ next to it; its
    __init__.py lists the modules (the mixture, vocabulary, hosts,
    robots.txt bodies, pages, HTTP replies, WARC records, the plan of a
    file, --small and --preferences, --crawls, --copies, the command line).

Facts taken from public sources (crawler lists, Cloudflare's managed
block, the AIPREF drafts, Google's parser) say where they come from.
"""

import os
import sys

# `python3 scripts/gen_corpus.py` puts scripts/ on sys.path already; other
# ways of running this file may not.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from gencorpus.cli import main  # noqa: E402  (after the path is set)

if __name__ == "__main__":
    main()
