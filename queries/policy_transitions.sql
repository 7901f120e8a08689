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
-- Method: without a row per host and crawler (as host_state_counts): the
-- pairs of a host's deciding captures in two crawls are counted once for
-- every crawler as if no group named it; the (pair, crawler) that a group
-- names on either side are then taken away from that count and added as
-- they are.
WITH hosts AS MATERIALIZED (
    -- crawl_hosts once (each reference to a view computes it again)
    SELECT crawl, url_host_name, base_state, global_class, global_group_match, google_class,
           content_digest, warc_filename, warc_record_offset
    FROM crawl_hosts
    WHERE crawl IS NOT NULL
),
crawls AS MATERIALIZED (
    SELECT crawl, lag(crawl) OVER (ORDER BY crawl) AS prev_crawl,
           lead(crawl) OVER (ORDER BY crawl) AS next_crawl
    FROM (SELECT DISTINCT crawl FROM hosts)
),
earlier AS (
    SELECT h.*, c.next_crawl FROM hosts h JOIN crawls c USING (crawl) WHERE c.next_crawl IS NOT NULL
),
later AS (
    SELECT h.*, c.prev_crawl FROM hosts h JOIN crawls c USING (crawl) WHERE c.prev_crawl IS NOT NULL
),
pairs AS MATERIALIZED (
    SELECT coalesce(e.crawl, l.prev_crawl) AS from_crawl, coalesce(e.next_crawl, l.crawl) AS to_crawl,
           coalesce(e.url_host_name, l.url_host_name) AS url_host_name,
           e.crawl IS NOT NULL AS in_from, e.base_state AS from_base, e.global_class AS from_class,
           e.global_group_match AS from_match, e.warc_filename AS from_file, e.warc_record_offset AS from_offset,
           l.crawl IS NOT NULL AS in_to, l.base_state AS to_base, l.global_class AS to_class,
           l.global_group_match AS to_match, l.warc_filename AS to_file, l.warc_record_offset AS to_offset,
           coalesce(e.google_class = 'conditional_allow' AND l.google_class = 'conditional_allow'
                    AND e.content_digest IS DISTINCT FROM l.content_digest, false) AS body_changed
    FROM earlier e
    FULL JOIN later l ON l.crawl = e.next_crawl AND l.url_host_name = e.url_host_name
),
named AS (
    -- the crawlers a group names, on either side of a pair
    SELECT coalesce(f.from_crawl, t.from_crawl) AS from_crawl,
           coalesce(f.url_host_name, t.url_host_name) AS url_host_name,
           coalesce(f.agent, t.agent) AS agent,
           f.rules_class AS from_named, t.rules_class AS to_named
    FROM (
        SELECT p.from_crawl, p.url_host_name, n.agent, n.rules_class
        FROM pairs p JOIN named_verdicts n ON n.warc_filename = p.from_file AND n.warc_record_offset = p.from_offset
        WHERE p.from_base IS NULL
    ) f
    FULL JOIN (
        SELECT p.from_crawl, p.url_host_name, n.agent, n.rules_class
        FROM pairs p JOIN named_verdicts n ON n.warc_filename = p.to_file AND n.warc_record_offset = p.to_offset
        WHERE p.to_base IS NULL
    ) t ON t.from_crawl = f.from_crawl AND t.url_host_name = f.url_host_name AND t.agent = f.agent
),
rows AS (
    -- every pair, every crawler, as if no group named it
    SELECT g.*, a.token AS agent, a.category AS agent_category, a.ignores_global_group,
           NULL AS from_named, NULL AS to_named
    FROM (
        SELECT from_crawl, to_crawl, in_from, from_base, from_class, from_match,
               in_to, to_base, to_class, to_match,
               count(*) AS hosts, count(*) FILTER (body_changed) AS body_changed
        FROM pairs
        GROUP BY ALL
    ) g
    CROSS JOIN agents a
    UNION ALL
    -- the named (pair, crawler): not as counted above ...
    SELECT p.from_crawl, p.to_crawl, p.in_from, p.from_base, p.from_class, p.from_match,
           p.in_to, p.to_base, p.to_class, p.to_match, -1, -p.body_changed::INT,
           a.token, a.category, a.ignores_global_group, NULL, NULL
    FROM named n JOIN pairs p USING (from_crawl, url_host_name) JOIN agents a ON a.token = n.agent
    UNION ALL
    -- ... but as the groups naming the crawler say
    SELECT p.from_crawl, p.to_crawl, p.in_from, p.from_base, p.from_class, p.from_match,
           p.in_to, p.to_base, p.to_class, p.to_match, 1, p.body_changed::INT,
           a.token, a.category, a.ignores_global_group, n.from_named, n.to_named
    FROM named n JOIN pairs p USING (from_crawl, url_host_name) JOIN agents a ON a.token = n.agent
)
SELECT agent, agent_category, from_crawl, to_crawl,
       CASE WHEN in_from THEN host_state(from_base, from_named, ignores_global_group, from_match, from_class) END
           AS from_state,
       CASE WHEN in_to THEN host_state(to_base, to_named, ignores_global_group, to_match, to_class) END
           AS to_state,
       sum(hosts)::BIGINT AS hosts, sum(body_changed)::BIGINT AS body_changed
FROM rows
GROUP BY ALL
HAVING sum(hosts) <> 0
ORDER BY agent, from_crawl, to_crawl, from_state NULLS FIRST, to_state NULLS FIRST;
