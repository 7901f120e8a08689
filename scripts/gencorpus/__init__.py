"""The generator of synthetic Common-Crawl-like robots.txt WARC files that
scripts/gen_corpus.py runs (its docstring says what it writes and how to run
it). Python 3 standard library only.

    config.py    fixed facts of the corpus and the assumed mixture (shares)
    vocab.py     words, names and crawler tokens, with their sources
    util.py      weighted picks, lognormal sizes, Zipf words, ids, dates
    hosts.py     sites, domains, IP addresses, redirect targets
    bodies/      robots.txt bodies (one builder per category) and text quirks
    pages.py     HTML page templates and error pages
    reply.py     the Reply, its transport, the HTTP head as CC stores it
    warc.py      the WARC writer, file names, warcinfo, request/response records
    plan.py      the Fetch and the plan of a file's fetches
    server.py    the reply to each fetch
    modes.py     --small and --preferences: forced specs and their checks
    generate.py  one file: FileGenerator and the per-file job
    crawlplan.py --crawls: scenarios, bodies, layout, expected states
    crawls.py    --crawls: the files of the three crawls and plan.tsv
    ruleset.py   --copies: Google's lines, the canonical ruleset, digests
    templates.py --copies: the platform defaults (data/templates/), their matcher
    copiesplan.py --copies: hosts, refetches, files, the bodies of hosts
    copies.py    --copies: the files of the crawl and copies.tsv
    cli.py       arguments, parallel jobs, progress and --stats output

Each module imports only modules above it in this list. Every file has its
own random stream and the order of its draws fixes the output: a change
that adds, drops or moves a draw changes the bytes.
"""
