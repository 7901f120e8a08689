-- Question: between one crawl and the next, how did each crawler's access
-- to each host change: who started blocking it, who stopped, who appeared
-- or vanished (Longpre et al., "Consent in Crisis"; Liu et al., IMC 2025)?
-- States per host, crawl and crawler come from the view host_states
-- (views.sql): full, partial, none, no_robots, unreachable, redirect, from
-- the host's latest robots.txt capture in the crawl, redirects followed.
-- Crawls are ordered by crawl id (CC-MAIN-YYYY-WW sorts by time); each
-- crawl present is compared with the next one present.
-- Reads: captures (through crawl_hosts), named_verdicts, agents.
-- Result: agent, agent_category, from_crawl, to_crawl, from_state (NULL:
-- the host has no capture in from_crawl), to_state (NULL: none in to_crawl),
-- hosts, body_changed (of those hosts, how many have a 2xx in both crawls
-- with a different content_digest). Ordered by agent, crawls, states.
-- Both views of the studies come from it: all hosts (every row), and the
-- balanced panel of hosts present in both crawls (from_state and to_state
-- NOT NULL). "Newly blocked": to_state = 'full' and from_state <> 'full'.
WITH hs AS MATERIALIZED (
    SELECT crawl, url_host_name, agent, agent_category, state,
           google_class = 'conditional_allow' AS ok, content_digest
    FROM host_states
    WHERE crawl IS NOT NULL
),
crawls AS MATERIALIZED (
    SELECT crawl, lag(crawl) OVER (ORDER BY crawl) AS prev_crawl,
           lead(crawl) OVER (ORDER BY crawl) AS next_crawl
    FROM (SELECT DISTINCT crawl FROM hs)
),
earlier AS (
    SELECT hs.*, c.next_crawl FROM hs JOIN crawls c USING (crawl) WHERE c.next_crawl IS NOT NULL
),
later AS (
    SELECT hs.*, c.prev_crawl FROM hs JOIN crawls c USING (crawl) WHERE c.prev_crawl IS NOT NULL
)
SELECT coalesce(e.agent, l.agent) AS agent,
       coalesce(e.agent_category, l.agent_category) AS agent_category,
       coalesce(e.crawl, l.prev_crawl) AS from_crawl,
       coalesce(e.next_crawl, l.crawl) AS to_crawl,
       e.state AS from_state, l.state AS to_state,
       count(*) AS hosts,
       count(*) FILTER (e.ok AND l.ok AND e.content_digest IS DISTINCT FROM l.content_digest) AS body_changed
FROM earlier e
FULL JOIN later l
  ON l.crawl = e.next_crawl AND l.url_host_name = e.url_host_name AND l.agent = e.agent
GROUP BY ALL
ORDER BY agent, from_crawl, to_crawl, from_state NULLS FIRST, to_state NULLS FIRST;
