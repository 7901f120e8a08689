-- Question: per crawl, what did the hosts' robots.txt fetches end in: a
-- robots.txt with rules, one without, an empty file, a redirect that does
-- not resolve, 4xx, 5xx or 429, a failed fetch (Common Crawl's
-- robotstxt-experiments poster; the Web Almanac)?
-- One host counts once per crawl, by its deciding capture: the latest
-- robots.txt capture of the host in the crawl, redirects followed (the view
-- crawl_hosts, views.sql).
-- Reads: captures (through crawl_hosts).
-- Result: crawl, outcome, hosts, share (of the crawl's hosts). outcome:
--   rules       2xx, a group has a non-empty allow or disallow rule
--   no_rules    2xx, a non-empty body without rules
--   empty       2xx, an empty body
--   redirect    3xx not resolved in the crawl (no capture of the target,
--               no Location, a loop or more than 5 hops)
--   4xx         4xx other than 429
--   5xx_429     5xx and 429
--   failed      no complete response (unreadable, cut by time or a lost
--               connection)
-- Ordered by crawl, then outcome in the order above.
SELECT crawl, outcome, count(*) AS hosts,
       count(*) / sum(count(*)) OVER (PARTITION BY crawl) AS share
FROM (
    SELECT crawl,
           CASE
               WHEN google_class = 'conditional_allow' AND has_rules THEN 'rules'
               WHEN google_class = 'conditional_allow' AND payload_length > 0 THEN 'no_rules'
               WHEN google_class = 'conditional_allow' THEN 'empty'
               WHEN google_class = 'redirect' THEN 'redirect'
               WHEN google_class = 'failed' THEN 'failed'
               WHEN google_current_class = 'full_allow' THEN '4xx'
               ELSE '5xx_429'
           END AS outcome
    FROM crawl_hosts
)
GROUP BY crawl, outcome
ORDER BY crawl NULLS FIRST,
         list_position(['rules', 'no_rules', 'empty', 'redirect', '4xx', '5xx_429', 'failed'], outcome);
