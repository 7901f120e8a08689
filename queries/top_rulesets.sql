-- Question: which robots.txt rulesets do the most hosts serve? Per crawl,
-- the 20 rulesets most hosts serve (a ruleset: what a file says to
-- crawlers, without comments, blank lines, key spelling or sitemap hosts;
-- docs/templates.md), the template it is if any, and an example host.
-- Reads: the view crawl_hosts (a host's deciding capture, counted when it
-- is a parsed 2xx body): ruleset_digest, body_digest, template.
-- A template is a body (a platform's default text), a ruleset may be
-- served by bodies of several templates and by others: an empty file and
-- a comment-only one have the same (empty) ruleset. template is the one
-- most of the ruleset's hosts serve (ties: the later name), and
-- template_hosts counts those hosts alone: templates.sql's hosts of that
-- template in the crawl.
-- Result: crawl, rank, ruleset_digest, hosts, share (of the crawl's hosts
-- with a robots.txt), bodies (distinct bodies with this ruleset), template,
-- template_hosts, example_host (the first in sort order). Ordered by
-- crawl, rank.
WITH parsed AS MATERIALIZED (
    SELECT crawl, ruleset_digest, body_digest, template, url_host_name
    FROM crawl_hosts
    WHERE robots_parsed
),
rulesets AS (
    SELECT crawl, ruleset_digest, count(*) AS hosts, count(DISTINCT body_digest) AS bodies,
           min(url_host_name) AS example_host
    FROM parsed
    GROUP BY ALL
),
templates AS (
    SELECT crawl, ruleset_digest, max({hosts: hosts, template: template}) AS top
    FROM (SELECT crawl, ruleset_digest, template, count(*) AS hosts
          FROM parsed WHERE template IS NOT NULL GROUP BY ALL)
    GROUP BY ALL
)
SELECT r.crawl,
       row_number() OVER (PARTITION BY r.crawl ORDER BY r.hosts DESC, r.ruleset_digest) AS rank,
       r.ruleset_digest, r.hosts, r.hosts / sum(r.hosts) OVER (PARTITION BY r.crawl) AS share, r.bodies,
       t.top.template, coalesce(t.top.hosts, 0) AS template_hosts, r.example_host
FROM rulesets r
LEFT JOIN templates t ON t.crawl IS NOT DISTINCT FROM r.crawl AND t.ruleset_digest = r.ruleset_digest
QUALIFY rank <= 20
ORDER BY r.crawl, rank;
