-- Question: how much of the web's robots.txt is copies? Per crawl with a
-- robots.txt capture: robots.txt captures and their distinct bodies and
-- rulesets; hosts and theirs; the share of hosts whose ruleset at least 1,
-- 10 and 1,000 other hosts serve too; and the share of hosts the 10 most
-- common rulesets cover.
-- Reads: captures (robots_parsed, body_digest, ruleset_digest); the view
-- crawl_hosts (a host's robots.txt in a crawl is its deciding capture:
-- the latest, redirects followed; counted when it is a parsed 2xx body).
-- A ruleset is what a file says to crawlers, without comments, blank
-- lines, key spelling or sitemap hosts (docs/templates.md).
-- Result: crawl, captures, bodies, rulesets (over captures), hosts,
-- host_bodies, host_rulesets (over hosts), shared_1_share,
-- shared_10_share, shared_1000_share, top10_share. Ordered by crawl.
WITH host_rows AS MATERIALIZED (
    -- crawl_hosts follows every redirect chain: read once
    SELECT crawl, robots_parsed, body_digest, ruleset_digest
    FROM crawl_hosts
),
per_capture AS (
    SELECT crawl, count(*) AS captures, count(DISTINCT body_digest) AS bodies,
           count(DISTINCT ruleset_digest) AS rulesets
    FROM captures
    -- a crawl of robots.txt: one with a host in crawl_hosts (not a crawl
    -- of web pages only)
    SEMI JOIN (SELECT DISTINCT crawl FROM host_rows) r ON r.crawl IS NOT DISTINCT FROM captures.crawl
    WHERE robots_parsed
    GROUP BY crawl
),
hosts AS (
    SELECT crawl, body_digest, ruleset_digest
    FROM host_rows
    WHERE robots_parsed
),
rulesets AS (
    SELECT crawl, ruleset_digest, count(*) AS hosts,
           row_number() OVER (PARTITION BY crawl ORDER BY count(*) DESC, ruleset_digest) AS rank
    FROM hosts
    GROUP BY crawl, ruleset_digest
),
per_host AS (
    SELECT crawl, sum(hosts) AS hosts, count(*) AS host_rulesets,
           sum(hosts) FILTER (WHERE hosts - 1 >= 1) / sum(hosts) AS shared_1_share,
           coalesce(sum(hosts) FILTER (WHERE hosts - 1 >= 10), 0) / sum(hosts) AS shared_10_share,
           coalesce(sum(hosts) FILTER (WHERE hosts - 1 >= 1000), 0) / sum(hosts) AS shared_1000_share,
           sum(hosts) FILTER (WHERE rank <= 10) / sum(hosts) AS top10_share
    FROM rulesets
    GROUP BY crawl
),
host_bodies AS (
    SELECT crawl, count(DISTINCT body_digest) AS host_bodies FROM hosts GROUP BY crawl
)
SELECT c.crawl, c.captures, c.bodies, c.rulesets, coalesce(h.hosts, 0)::BIGINT AS hosts,
       coalesce(b.host_bodies, 0) AS host_bodies,
       coalesce(h.host_rulesets, 0) AS host_rulesets, coalesce(h.shared_1_share, 0) AS shared_1_share,
       h.shared_10_share, h.shared_1000_share, h.top10_share
FROM per_capture c
LEFT JOIN per_host h ON h.crawl IS NOT DISTINCT FROM c.crawl
LEFT JOIN host_bodies b ON b.crawl IS NOT DISTINCT FROM c.crawl
ORDER BY c.crawl;
