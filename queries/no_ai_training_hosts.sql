-- Question: which hosts say no to AI training (Content-Signal ai-train=no
-- or Content-Usage train-ai=n) to a crawler that their rules let fetch /?
-- Per host, not per capture: a host counts once per crawl, by its deciding
-- capture (crawl_hosts: the latest robots.txt capture, redirects
-- followed), so a host that said no in an earlier refetch only is not
-- listed; agent_verdicts counted per capture counts every refetch
-- (docs/crawls.md, "Which hosts say no to AI training").
-- Each crawler of agents is judged as agent_verdicts judges it: the groups
-- naming it decide, else the * group (unless it ignores *); it may fetch
-- / (root_allowed) and the preference that applies there says no.
-- Reads: crawl_hosts; captures.url, global_group_match,
-- global_root_allowed, cloudflare_blocks; named_verdicts;
-- resolved_preferences; agents.
-- Result: crawl, url_host_name, url (of the deciding capture), captures
-- (the host's robots.txt captures in the crawl), agents (the crawlers told
-- no, in the agents' order), named_agents (of those, the ones a group
-- names: their own group says no), by_signal, by_usage (whether
-- Content-Signal, Content-Usage says no to one of them), cloudflare_managed
-- (the body has a Cloudflare-managed block), warc_filename,
-- warc_record_offset (the deciding capture). The hosts of a crawler:
-- list_contains(agents, 'GPTBot'); their count is definitions.sql's
-- no_ai_training hosts numerator. Ordered by crawl, url_host_name.
WITH preference_hosts AS MATERIALIZED (
    SELECT h.crawl, h.url_host_name, h.captures, h.warc_filename, h.warc_record_offset
    FROM crawl_hosts h
    SEMI JOIN resolved_preferences p USING (warc_filename, warc_record_offset)
    WHERE h.base_state IS NULL
),
judged AS (
    SELECT crawl, url_host_name, url, captures, cloudflare_blocks, warc_filename, warc_record_offset,
           token AS agent, position,
           v IS NOT NULL AS named,
           CASE WHEN v IS NOT NULL THEN v WHEN ignores_global_group THEN true
                ELSE global_root_allowed END AS root_allowed,
           preferences[CASE WHEN v IS NOT NULL OR ignores_global_group THEN token ELSE '*' END]
               AS preference
    FROM (
        SELECT p.*, c.url, c.cloudflare_blocks, c.global_root_allowed, r.preferences,
               a.token, a.position, a.ignores_global_group,
               CASE WHEN n.roots IS NOT NULL THEN n.roots[a.token] END AS v
        FROM preference_hosts p
        JOIN captures c USING (warc_filename, warc_record_offset)
        JOIN (SELECT warc_filename, warc_record_offset,
                     map(list(agent), list({'usage_train_ai': usage_train_ai,
                                            'signal_ai_train': signal_ai_train})) AS preferences
              FROM resolved_preferences
              SEMI JOIN preference_hosts USING (warc_filename, warc_record_offset)
              GROUP BY ALL) r USING (warc_filename, warc_record_offset)
        LEFT JOIN (SELECT warc_filename, warc_record_offset, map(list(agent), list(root_allowed)) AS roots
                   FROM named_verdicts
                   SEMI JOIN preference_hosts USING (warc_filename, warc_record_offset)
                   GROUP BY ALL) n USING (warc_filename, warc_record_offset)
        CROSS JOIN agents a
    )
)
SELECT crawl, url_host_name, url, captures,
       list(agent ORDER BY position) AS agents,
       coalesce(list(agent ORDER BY position) FILTER (named), []) AS named_agents,
       bool_or(preference.signal_ai_train = 'n') AS by_signal,
       bool_or(preference.usage_train_ai = 'n') AS by_usage,
       any_value(cloudflare_blocks) > 0 AS cloudflare_managed,
       warc_filename, warc_record_offset
FROM judged
WHERE root_allowed AND (preference.usage_train_ai = 'n' OR preference.signal_ai_train = 'n')
GROUP BY crawl, url_host_name, url, captures, warc_filename, warc_record_offset
ORDER BY crawl NULLS FIRST, url_host_name;
