-- Question: which robots.txt rulesets do the most hosts serve? Per crawl,
-- the 20 rulesets most hosts serve (a ruleset: what a file says to
-- crawlers, without comments, blank lines, key spelling or sitemap hosts;
-- docs/templates.md), the template it is if any, and an example host.
-- Reads: the view crawl_hosts (a host's deciding capture, counted when it
-- is a parsed 2xx body): ruleset_digest, body_digest, template.
-- Result: crawl, rank, ruleset_digest, hosts, share (of the crawl's hosts
-- with a robots.txt), bodies (distinct bodies with this ruleset), template,
-- example_host (the first in sort order). Ordered by crawl, rank.
WITH rulesets AS (
    SELECT crawl, ruleset_digest, count(*) AS hosts, count(DISTINCT body_digest) AS bodies,
           min(template) AS template, min(url_host_name) AS example_host
    FROM crawl_hosts
    WHERE robots_parsed
    GROUP BY ALL
)
SELECT crawl,
       row_number() OVER (PARTITION BY crawl ORDER BY hosts DESC, ruleset_digest) AS rank,
       ruleset_digest, hosts, hosts / sum(hosts) OVER (PARTITION BY crawl) AS share, bodies,
       template, example_host
FROM rulesets
QUALIFY rank <= 20
ORDER BY crawl, rank;
