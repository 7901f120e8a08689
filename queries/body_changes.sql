-- Question: between one crawl and the next, how many hosts changed their
-- robots.txt, and how many of those changes changed nothing for any
-- crawler (a date in a comment, a reordered group, a new sitemap)?
-- Hosts and their deciding captures come from the views crawl_hosts and
-- host_states (views.sql); crawls are compared as in
-- policy_transitions.sql. The same body (content_digest) gives every
-- crawler the same state.
-- Reads: captures (through crawl_hosts), named_verdicts, agents.
-- Result: from_crawl, to_crawl, hosts_in_both (a robots.txt capture in both
-- crawls), both_2xx (the deciding capture is a 2xx in both), same_body,
-- changed_body (of both_2xx: content_digest equal, different),
-- changed_body_same_states (of changed_body: every crawler's state is the
-- same in both crawls), changed_state (of hosts_in_both: some crawler's
-- state differs). Ordered by from_crawl.
-- Method: a host pair's states can differ for some crawler only when its
-- deciding captures differ in kind or body; crawlers are compared one by
-- one (host_states) only for pairs whose 2xx bodies differ.
WITH crawls AS MATERIALIZED (
    SELECT crawl, lead(crawl) OVER (ORDER BY crawl) AS next_crawl
    FROM (SELECT DISTINCT crawl FROM crawl_hosts WHERE crawl IS NOT NULL)
),
pairs AS MATERIALIZED (
    SELECT e.crawl AS from_crawl, c.next_crawl AS to_crawl, e.url_host_name,
           e.base_state IS NULL AND l.base_state IS NULL AS both_2xx,
           e.content_digest IS NOT DISTINCT FROM l.content_digest AS same_digest,
           e.base_state AS from_base, l.base_state AS to_base
    FROM crawl_hosts e
    JOIN crawls c USING (crawl)
    JOIN crawl_hosts l ON l.crawl = c.next_crawl AND l.url_host_name = e.url_host_name
),
compared AS (
    -- the pairs of differing 2xx bodies: does any crawler's state differ?
    SELECT p.from_crawl, p.url_host_name, bool_and(e.state = l.state) AS same_states
    FROM pairs p
    JOIN host_states e ON e.crawl = p.from_crawl AND e.url_host_name = p.url_host_name
    JOIN host_states l ON l.crawl = p.to_crawl AND l.url_host_name = p.url_host_name AND l.agent = e.agent
    WHERE p.both_2xx AND NOT p.same_digest
    GROUP BY ALL
)
SELECT from_crawl, to_crawl,
       count(*) AS hosts_in_both,
       count(*) FILTER (both_2xx) AS both_2xx,
       count(*) FILTER (both_2xx AND same_digest) AS same_body,
       count(*) FILTER (both_2xx AND NOT same_digest) AS changed_body,
       count(*) FILTER (both_2xx AND NOT same_digest AND same_states) AS changed_body_same_states,
       count(*) FILTER (CASE WHEN both_2xx THEN NOT (same_digest OR same_states)
                             ELSE from_base IS DISTINCT FROM to_base END) AS changed_state
FROM pairs
LEFT JOIN compared USING (from_crawl, url_host_name)
GROUP BY ALL
ORDER BY from_crawl;
