-- Question: per crawl, what did the hosts' robots.txt fetches end in: a
-- robots.txt with rules, one without, an empty file, a redirect that does
-- not resolve, 4xx, 5xx or 429, a failed fetch (Common Crawl's
-- robotstxt-experiments poster; the Web Almanac)?
-- One host counts once per crawl, by its deciding capture: the latest
-- robots.txt capture of the host in the crawl, redirects followed (the view
-- crawl_hosts, views.sql, whose outcome this counts). The same hosts and
-- deciding captures as host_states (figures 2 and 3): base_state is the
-- state every crawler has there on those hosts (NULL: a 2xx, whose rules
-- decide), so the hosts of each base_state here are host_states' hosts in
-- that state for any crawler. host_outcome_shares.sql counts a host
-- otherwise: across crawls, the best of its robots.txt URLs by Common
-- Crawl's precedence (docs/crawls.md, "A host's outcome").
-- Reads: captures (through crawl_hosts).
-- Result: crawl, outcome, base_state, hosts, share (of the crawl's hosts).
-- outcome:
--   rules          2xx, a group has a non-empty allow or disallow rule
--   no_rules       2xx, a non-empty body without rules
--   empty          2xx, an empty body
--   4xx            4xx other than 429                  (no_robots)
--   too_many_hops  3xx, a loop or more than 5 hops     (no_robots: Google
--                  and Common Crawl give up and allow everything)
--   redirect       3xx not resolved in the crawl: no capture of the target,
--                  no Location                          (redirect)
--   5xx_429        5xx and 429                          (unreachable)
--   failed         no complete response (unreadable, cut by time or a lost
--                  connection)                          (unreachable)
-- Ordered by crawl, then outcome in the order above.
SELECT crawl, outcome, base_state, count(*) AS hosts,
       count(*) / sum(count(*)) OVER (PARTITION BY crawl) AS share
FROM crawl_hosts
GROUP BY crawl, outcome, base_state
ORDER BY crawl NULLS FIRST,
         list_position(['rules', 'no_rules', 'empty', '4xx', 'too_many_hops', 'redirect', '5xx_429', 'failed'],
                       outcome);
