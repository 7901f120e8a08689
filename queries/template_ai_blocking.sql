-- Question: do sites block AI crawlers because their owner decided or
-- because their platform's default does? Per crawl, template (NULL: no
-- known default) and AI crawler: hosts, and how many of them shut it
-- out of everything (state full, as in host_states), in a group naming
-- it or in the * group.
-- Reads: the views crawl_hosts (the host's deciding capture, counted when
-- it is a parsed 2xx body; its template and * group), agents (category
-- ai), named_verdicts (the groups naming a crawler). Counted as
-- host_state_counts counts: every crawler as if no group named it, then
-- the named pairs as their group says (no row per host and crawler).
-- Result: crawl, platform, template, agent, hosts, blocked, blocked_share.
-- Ordered by crawl, template hosts (most first), agent.
WITH hosts AS MATERIALIZED (
    SELECT crawl, template, platform, global_class, global_group_match, warc_filename, warc_record_offset
    FROM crawl_hosts
    WHERE robots_parsed
),
ai AS (
    SELECT token, ignores_global_group FROM agents WHERE category = 'ai'
),
named AS (
    SELECT h.crawl, h.template, h.platform, n.agent, n.rules_class, h.global_class, h.global_group_match
    FROM hosts h
    JOIN named_verdicts n USING (warc_filename, warc_record_offset)
    SEMI JOIN ai ON ai.token = n.agent
),
rows AS (
    SELECT g.crawl, g.template, g.platform, a.token AS agent, g.global_class, g.global_group_match,
           a.ignores_global_group, NULL AS named_class, g.hosts, g.hosts AS all_hosts
    FROM (SELECT crawl, template, platform, global_class, global_group_match, count(*) AS hosts
          FROM hosts GROUP BY ALL) g
    CROSS JOIN ai a
    UNION ALL
    SELECT n.crawl, n.template, n.platform, n.agent, n.global_class, n.global_group_match,
           a.ignores_global_group, NULL, -1, 0
    FROM named n JOIN ai a ON a.token = n.agent
    UNION ALL
    SELECT n.crawl, n.template, n.platform, n.agent, n.global_class, n.global_group_match,
           a.ignores_global_group, n.rules_class, 1, 0
    FROM named n JOIN ai a ON a.token = n.agent
),
counted AS (
    SELECT crawl, platform, template, agent, sum(all_hosts)::BIGINT AS hosts,
           sum(hosts) FILTER (WHERE host_state(NULL, named_class, ignores_global_group,
                                               global_group_match, global_class) = 'full')::BIGINT AS blocked
    FROM rows
    GROUP BY ALL
)
SELECT crawl, platform, template, agent, hosts, coalesce(blocked, 0) AS blocked,
       coalesce(blocked, 0) / hosts AS blocked_share
FROM counted
ORDER BY crawl, sum(hosts) OVER (PARTITION BY crawl, template) DESC, template NULLS LAST, agent;
