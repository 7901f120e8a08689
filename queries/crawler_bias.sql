-- Question: is a crawler shut out more often than crawlers in general:
-- how much more often do hosts disallow it everything than they disallow
-- every crawler (the * group) everything (Common Crawl's
-- robotstxt-experiments poster; Dinzinger & Granitzer)?
-- States come from the view host_state_counts (views.sql; see
-- policy_transitions.sql); the denominator is the crawl's hosts whose
-- deciding capture is a 2xx robots.txt (their rules decide).
-- Reads: captures (through crawl_hosts), named_verdicts, agents.
-- Result: crawl, agent, agent_category, robots_hosts (hosts with a 2xx),
-- full (of those, disallowing the crawler every path, by a named or the *
-- group), full_share, wildcard_full_share (the same share for *), bias
-- (log2(full_share / wildcard_full_share): 0 as often as everyone, 1 twice
-- as often; NULL when either share is 0). Ordered by crawl, bias
-- descending.
WITH shares AS (
    SELECT crawl, agent, agent_category,
           sum(hosts)::BIGINT AS robots_hosts,
           coalesce(sum(hosts) FILTER (state = 'full'), 0)::BIGINT AS full,
           coalesce(sum(hosts) FILTER (state = 'full'), 0) / sum(hosts) AS full_share
    FROM host_state_counts
    WHERE decided_by IS NOT NULL  -- a 2xx: the rules decide
    GROUP BY ALL
)
SELECT s.crawl, s.agent, s.agent_category, s.robots_hosts, s.full, s.full_share,
       w.full_share AS wildcard_full_share,
       CASE WHEN s.full_share > 0 AND w.full_share > 0 THEN log2(s.full_share / w.full_share) END AS bias
FROM shares s
JOIN shares w ON w.crawl IS NOT DISTINCT FROM s.crawl AND w.agent = '*'
ORDER BY s.crawl NULLS FIRST, bias DESC NULLS LAST, s.agent;
