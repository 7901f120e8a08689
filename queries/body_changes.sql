-- Question: between one crawl and the next, how many hosts changed their
-- robots.txt, and how many of those changes changed nothing for any
-- crawler (a date in a comment, a reordered group, a new sitemap)?
-- Hosts and their deciding captures come from the views crawl_hosts and
-- host_states (views.sql); crawls are compared as in
-- policy_transitions.sql.
-- Reads: captures (through crawl_hosts), named_verdicts, agents.
-- Result: from_crawl, to_crawl, hosts_in_both (a robots.txt capture in both
-- crawls), both_2xx (the deciding capture is a 2xx in both), same_body,
-- changed_body (of both_2xx: content_digest equal, different),
-- changed_body_same_states (of changed_body: every crawler's state is the
-- same in both crawls), changed_state (of hosts_in_both: some crawler's
-- state differs). Ordered by from_crawl.
-- Method: the same body (content_digest) gives every crawler the same
-- state, and a 2xx and a non-2xx always differ; for a pair of differing
-- 2xx bodies, the crawlers no group names differ when the * group's
-- verdict does (for crawlers that obey it, or ignore it), and those a
-- group names on either side are compared one by one.
WITH hosts AS MATERIALIZED (
    SELECT crawl, url_host_name, base_state, global_class, global_group_match, content_digest,
           warc_filename, warc_record_offset
    FROM crawl_hosts
    WHERE crawl IS NOT NULL
),
crawls AS MATERIALIZED (
    SELECT crawl, lead(crawl) OVER (ORDER BY crawl) AS next_crawl
    FROM (SELECT DISTINCT crawl FROM hosts)
),
pairs AS MATERIALIZED (
    SELECT e.crawl AS from_crawl, c.next_crawl AS to_crawl, e.url_host_name,
           e.base_state IS NULL AND l.base_state IS NULL AS both_2xx,
           e.content_digest IS NOT DISTINCT FROM l.content_digest AS same_digest,
           e.base_state AS from_base, l.base_state AS to_base,
           e.global_class AS from_class, e.global_group_match AS from_match,
           l.global_class AS to_class, l.global_group_match AS to_match,
           e.warc_filename AS from_file, e.warc_record_offset AS from_offset,
           l.warc_filename AS to_file, l.warc_record_offset AS to_offset
    FROM hosts e
    JOIN crawls c USING (crawl)
    JOIN hosts l ON l.crawl = c.next_crawl AND l.url_host_name = e.url_host_name
),
changed AS MATERIALIZED (
    SELECT * FROM pairs WHERE both_2xx AND NOT same_digest
),
named AS (
    -- (pair, crawler) a group names on either side
    SELECT coalesce(f.from_crawl, t.from_crawl) AS from_crawl,
           coalesce(f.url_host_name, t.url_host_name) AS url_host_name,
           coalesce(f.agent, t.agent) AS agent,
           f.rules_class AS from_named, t.rules_class AS to_named
    FROM (
        SELECT p.from_crawl, p.url_host_name, n.agent, n.rules_class
        FROM changed p JOIN named_verdicts n ON n.warc_filename = p.from_file AND n.warc_record_offset = p.from_offset
    ) f
    FULL JOIN (
        SELECT p.from_crawl, p.url_host_name, n.agent, n.rules_class
        FROM changed p JOIN named_verdicts n ON n.warc_filename = p.to_file AND n.warc_record_offset = p.to_offset
    ) t ON t.from_crawl = f.from_crawl AND t.url_host_name = f.url_host_name AND t.agent = f.agent
),
named_compared AS (
    SELECT n.from_crawl, n.url_host_name, a.ignores_global_group AS ignores, count(*) AS named,
           bool_and(host_state(NULL, n.from_named, a.ignores_global_group, p.from_match, p.from_class)
                    = host_state(NULL, n.to_named, a.ignores_global_group, p.to_match, p.to_class)) AS same
    FROM named n
    JOIN changed p USING (from_crawl, url_host_name)
    JOIN agents a ON a.token = n.agent
    GROUP BY ALL
),
compared AS (
    -- per pair of differing 2xx bodies: is every crawler's state the same?
    SELECT p.from_crawl, p.url_host_name,
           bool_and(coalesce(c.same, true)
                    AND (coalesce(c.named, 0) = k.agents
                         OR host_state(NULL, NULL, k.ignores, p.from_match, p.from_class)
                            = host_state(NULL, NULL, k.ignores, p.to_match, p.to_class))) AS same_states
    FROM changed p
    CROSS JOIN (SELECT ignores_global_group AS ignores, count(*) AS agents FROM agents GROUP BY ALL) k
    LEFT JOIN named_compared c
      ON c.from_crawl = p.from_crawl AND c.url_host_name = p.url_host_name AND c.ignores = k.ignores
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
