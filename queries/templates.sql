-- Question: how many hosts serve a platform's default robots.txt, and
-- which one? Per crawl and template (NULL: a file that is no known
-- default, written or edited by hand): hosts, their share of the crawl's
-- hosts with a robots.txt, how many distinct rulesets and bodies they
-- serve, and an example host.
-- Reads: the view crawl_hosts (a host's deciding capture, counted when it
-- is a parsed 2xx body): template, platform, ruleset_digest, body_digest.
-- The templates, their versions and sources: docs/templates.md.
-- Result: crawl, platform, template, hosts, share, rulesets, bodies,
-- example_host (the first host name in sort order). Ordered by crawl,
-- then hosts (most first).
SELECT crawl, platform, template, count(*) AS hosts,
       count(*) / sum(count(*)) OVER (PARTITION BY crawl) AS share,
       count(DISTINCT ruleset_digest) AS rulesets, count(DISTINCT body_digest) AS bodies,
       min(url_host_name) AS example_host
FROM crawl_hosts
WHERE robots_parsed
GROUP BY crawl, platform, template
ORDER BY crawl, hosts DESC, template NULLS LAST;
