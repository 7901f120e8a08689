-- Question: what share fully blocks each crawler, has a robots.txt, or says
-- no to AI training where the crawler may fetch, by every definition the
-- published studies use? Their figures disagree two to three times
-- ("has a robots.txt": 37 %, 78 % or 94 %) mostly because each counts
-- another population in another unit; here every definition comes from
-- the same data set, side by side (docs/crawls.md, "Which number do I
-- cite").
-- One row per crawl, question, crawler and definition. Crawls: those with
-- a robots.txt capture (the crawls of crawl_hosts). Crawlers: every row of
-- agents (* being a crawler no group names); agent is NULL where the row
-- is not about one crawler. numerator / denominator = share; named and
-- wildcard split the numerator by what decided: a group naming the
-- crawler, or the * group (on the rows about several crawlers a host may
-- count in both).
-- question full_block: the rules disallow every path to the crawler
-- (rules_class disallow_all, host_states' state full).
--   captures            of the captures whose body was parsed (2xx,
--                       whole: robots_parsed), refetches included
--   captures_effective  of all captures, effective_class disallow_all: 5xx,
--                       429 and failed fetches count as blocks
--   captures_named      of the parsed captures with a group naming the
--                       crawler (Dinzinger & Granitzer)
--   hosts               of every host of crawl_hosts, each judged by its
--                       deciding capture (Longpre et al.)
--   hosts_2xx           of the hosts whose deciding capture is a parsed 2xx
--                       (Liu et al.: sites with a robots.txt)
--   hosts_2xx_404       of those and the hosts whose deciding capture is a
--                       404 (Liu et al.'s figure of named and * blocks)
--   cc_hosts            of every host, each judged by its best robots.txt
--                       URL in Common Crawl's precedence, as host_outcomes
--                       but per crawl (Nagel & Vaughan)
--   hosts_2xx_any_ai    (agent NULL) hosts_2xx fully blocking at least one
--                       crawler of category ai (the 2026 trackers)
--   fan_domains         (agent NULL) of the registered domains with a
--                       robots.txt capture, those where a host fully
--                       blocks one of Fan et al.'s AI-training tokens that
--                       the agents table holds, or its * group disallows
--                       everything (Fan et al.)
-- question has_robots_txt (agent, named, wildcard NULL):
--   captures            parsed captures, of all captures
--   captures_valid      valid robots.txt (status 200, a text MIME type that
--                       is not HTML, no HTML body: valid_robotstxt.sql), of
--                       all captures (Dinzinger & Granitzer's adoption)
--   hosts               hosts whose deciding capture is a parsed 2xx, of
--                       all hosts
--   hosts_200           hosts whose deciding capture has status 200 (the
--                       Web Almanac)
--   hosts_with_rules    hosts whose deciding capture is a 2xx with a rule
--   cc_hosts_robots_txt hosts whose Common Crawl outcome is a robots.txt,
--                       with rules or not (host_outcomes, per crawl)
--   cc_hosts_with_rules the same, with rules (Nagel & Vaughan)
-- question no_ai_training: the crawler may fetch / and the AI-use
-- preference that applies to it there says no AI training (Content-Usage
-- train-ai=n or Content-Signal ai-train=no, as agent_verdicts resolves
-- them):
--   captures            of the parsed captures
--   captures_may_fetch  of the parsed captures letting the crawler fetch /
--   hosts               of every host, by its deciding capture (the hosts of
--                       no_ai_training_hosts.sql)
--   hosts_2xx           of the hosts whose deciding capture is a parsed 2xx
-- Reads: agent_verdict_counts; crawl_hosts; follow_redirects(true) and
-- captures (Common Crawl's outcome); named_verdicts; resolved_preferences;
-- agents.
-- Result: crawl, question, agent, agent_category, definition, numerator,
-- denominator, share (NULL when the denominator is 0), named, wildcard,
-- study (whose definition it is, told apart where one study gives two figures
-- for one question; robostats: none of the studies').
-- Ordered by crawl, question and agent (as above, agents in list order,
-- NULL first), definition (as above).
WITH definitions(question, definition, ord, study) AS (
    VALUES ('full_block', 'captures', 1, 'robostats'),
           ('full_block', 'captures_effective', 2, 'robostats'),
           ('full_block', 'captures_named', 3, 'Dinzinger & Granitzer 2024'),
           ('full_block', 'hosts', 4, 'Longpre et al. 2024'),
           ('full_block', 'hosts_2xx', 5, 'Liu et al. 2025, of sites with a robots.txt'),
           ('full_block', 'hosts_2xx_404', 6, 'Liu et al. 2025, of sites with a 200 or 404'),
           ('full_block', 'cc_hosts', 7, 'Nagel & Vaughan 2025'),
           ('full_block', 'hosts_2xx_any_ai', 8, 'Thunderbit 2026; Humphrey 2026'),
           ('full_block', 'fan_domains', 9, 'Fan et al. 2025'),
           ('has_robots_txt', 'captures', 1, 'robostats'),
           ('has_robots_txt', 'captures_valid', 2, 'Dinzinger & Granitzer 2024'),
           ('has_robots_txt', 'hosts', 3, 'robostats'),
           ('has_robots_txt', 'hosts_200', 4, 'Web Almanac 2025'),
           ('has_robots_txt', 'hosts_with_rules', 5, 'robostats'),
           ('has_robots_txt', 'cc_hosts_robots_txt', 6, 'Nagel & Vaughan 2025, any robots.txt'),
           ('has_robots_txt', 'cc_hosts_with_rules', 7, 'Nagel & Vaughan 2025, with rules'),
           ('no_ai_training', 'captures', 1, 'robostats'),
           ('no_ai_training', 'captures_may_fetch', 2, 'robostats'),
           ('no_ai_training', 'hosts', 3, 'robostats'),
           ('no_ai_training', 'hosts_2xx', 4, 'robostats')
),
-- Fan et al.'s 13 tokens (CCBot/1.0 and CCBot/2.0 are CCBot to Google)
fan_tokens AS (
    SELECT lower(unnest(['AI2Bot', 'Applebot-Extended', 'Bytespider', 'CCBot', 'ClaudeBot',
                         'cohere-training-data-crawler', 'Diffbot', 'meta-externalagent',
                         'Google-Extended', 'GPTBot', 'PanguBot'])) AS token
),
-- every host of every crawl, once (crawl_hosts follows redirects)
hosts AS MATERIALIZED (
    SELECT crawl, url_host_name, base_state, fetch_status, has_rules,
           base_state IS NULL AND global_group_match = 'global' AND global_class = 'disallow_all'
               AS global_full,
           warc_filename, warc_record_offset
    FROM crawl_hosts
),
host_counts AS (
    SELECT crawl, count(*) AS hosts,
           count_if(base_state IS NULL) AS hosts_2xx,
           count_if(base_state IS NULL OR fetch_status = 404) AS hosts_2xx_404,
           count_if(fetch_status = 200) AS hosts_200,
           count_if(base_state IS NULL AND has_rules) AS hosts_with_rules
    FROM hosts
    GROUP BY crawl
),
-- Common Crawl's outcome of each host in each crawl: of its robots.txt
-- URLs, followed as crawl_hosts follows them, the best by Common Crawl's
-- precedence (host_outcomes' classes, cc_outcome, and ties, cc_precedence)
cc_urls AS (
    SELECT r.crawl, r.url_host_name, r.start_url, f.fetch_time, r.warc_filename, r.warc_record_offset,
           f.global_group_match = 'global' AND f.global_class = 'disallow_all' AS global_full,
           cc_outcome(r.final_cc_class, r.resolution, f.looks_like_html,
                      coalesce(f.content_mime_detected, f.content_mime_type), f.has_rules) AS outcome
    FROM follow_redirects(true) r
    JOIN captures f USING (warc_filename, warc_record_offset)
),
cc AS MATERIALIZED (
    SELECT crawl, url_host_name, b.outcome, b.global_full, b.warc_filename, b.warc_record_offset
    FROM (
        SELECT crawl, url_host_name,
               min({precedence: cc_precedence(outcome),
                    no_time: fetch_time IS NULL, newest_first: -epoch_us(fetch_time),
                    start_url: start_url, outcome: outcome, global_full: global_full,
                    warc_filename: warc_filename, warc_record_offset: warc_record_offset}) AS b
        FROM cc_urls
        GROUP BY crawl, url_host_name
    )
),
cc_counts AS (
    SELECT crawl,
           count_if(outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules')) AS robots_txt,
           count_if(outcome = 'robots_txt_with_rules') AS with_rules
    FROM cc
    GROUP BY crawl
),
-- Full blocks of hosts without a row per host and crawler (as
-- host_state_counts counts them): a crawler no group names is blocked
-- where the * group disallows everything (unless it ignores the * group);
-- a crawler a group names, where that group does.
judged AS (
    SELECT crawl, 'hosts' AS population, base_state IS NULL AS judged, global_full,
           warc_filename, warc_record_offset
    FROM hosts
    UNION ALL
    SELECT crawl, 'cc_hosts', outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt'),
           outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt') AND global_full,
           warc_filename, warc_record_offset
    FROM cc
),
global_counts AS (
    SELECT crawl, population, count_if(global_full) AS global_full FROM judged GROUP BY ALL
),
named_counts AS (
    SELECT j.crawl, j.population, n.agent,
           count_if(n.rules_class = 'disallow_all') AS named_full,
           count_if(j.global_full) AS named_on_global_full
    FROM judged j
    JOIN named_verdicts n USING (warc_filename, warc_record_offset)
    WHERE j.judged
    GROUP BY ALL
),
host_blocks AS (
    SELECT g.crawl, g.population, a.token AS agent, coalesce(n.named_full, 0) AS named,
           CASE WHEN a.ignores_global_group THEN 0
                ELSE g.global_full - coalesce(n.named_on_global_full, 0) END AS wildcard
    FROM global_counts g
    CROSS JOIN agents a
    LEFT JOIN named_counts n
        ON n.crawl IS NOT DISTINCT FROM g.crawl AND n.population = g.population AND n.agent = a.token
),
-- Hosts blocking several crawlers: per 2xx host, whether a group naming
-- an AI crawler (a token of Fan et al.'s) blocks it, and how many AI
-- crawlers that obey * a group names
named_per_host AS (
    SELECT h.crawl, h.url_host_name, h.global_full,
           coalesce(bool_or(a.category = 'ai' AND n.rules_class = 'disallow_all'), false) AS ai_named,
           count(n.agent) FILTER (a.category = 'ai' AND NOT a.ignores_global_group) AS ai_named_obeying,
           coalesce(bool_or(f.token IS NOT NULL AND n.rules_class = 'disallow_all'), false) AS fan_named
    FROM hosts h
    LEFT JOIN named_verdicts n USING (warc_filename, warc_record_offset)
    LEFT JOIN agents a ON a.token = n.agent
    LEFT JOIN fan_tokens f ON f.token = lower(a.token)
    WHERE h.base_state IS NULL
    GROUP BY h.crawl, h.url_host_name, h.global_full
),
any_ai AS (
    SELECT crawl,
           count_if(ai_named OR (global_full AND ai_named_obeying < obeying)) AS numerator,
           count_if(ai_named) AS named,
           count_if(global_full AND ai_named_obeying < obeying) AS wildcard
    FROM named_per_host,
         (SELECT count(*) AS obeying FROM agents WHERE category = 'ai' AND NOT ignores_global_group)
    GROUP BY crawl
),
-- each host's registered domain (its own, not its redirect target's)
domains AS (
    SELECT h.crawl, coalesce(d.domain, h.url_host_name) AS domain,
           coalesce(p.fan_named, false) AS fan_named, coalesce(p.global_full, false) AS global_full
    FROM hosts h
    LEFT JOIN (SELECT crawl, url_host_name, any_value(url_host_registered_domain) AS domain
               FROM captures WHERE url_path = '/robots.txt' GROUP BY ALL) d
        ON d.crawl IS NOT DISTINCT FROM h.crawl AND d.url_host_name = h.url_host_name
    LEFT JOIN named_per_host p
        ON p.crawl IS NOT DISTINCT FROM h.crawl AND p.url_host_name = h.url_host_name
),
fan AS (
    SELECT crawl, count(*) AS denominator, count_if(fan_named OR global_full) AS numerator,
           count_if(fan_named) AS named, count_if(global_full) AS wildcard
    FROM (SELECT crawl, domain, bool_or(fan_named) AS fan_named, bool_or(global_full) AS global_full
          FROM domains GROUP BY ALL)
    GROUP BY crawl
),
-- No to AI training, per host: the deciding 2xx captures with AI-use
-- preferences, each crawler judged as agent_verdicts judges it
preference_hosts AS (
    SELECT h.crawl, h.warc_filename, h.warc_record_offset
    FROM hosts h
    SEMI JOIN resolved_preferences p USING (warc_filename, warc_record_offset)
    WHERE h.base_state IS NULL
),
refusals AS (
    SELECT crawl, agent, group_match
    FROM (
        SELECT crawl, token AS agent,
               CASE WHEN v IS NOT NULL THEN 'specific' WHEN ignores_global_group THEN 'none'
                    ELSE global_group_match END AS group_match,
               CASE WHEN v IS NOT NULL THEN v WHEN ignores_global_group THEN true
                    ELSE global_root_allowed END AS root_allowed,
               preferences[CASE WHEN v IS NOT NULL OR ignores_global_group THEN token ELSE '*' END]
                   AS preference
        FROM (
            SELECT p.crawl, c.global_group_match, c.global_root_allowed, r.preferences,
                   a.token, a.ignores_global_group,
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
    WHERE root_allowed AND (preference.usage_train_ai = 'n' OR preference.signal_ai_train = 'n')
),
refusal_counts AS (
    SELECT crawl, agent, count(*) AS numerator, count_if(group_match = 'specific') AS named,
           count_if(group_match = 'global') AS wildcard
    FROM refusals
    GROUP BY ALL
),
-- per capture: agent_verdict_counts, every capture counted
capture_verdicts AS (
    SELECT crawl, agent,
           sum(captures) AS captures,
           coalesce(sum(captures) FILTER (robots_parsed), 0) AS parsed,
           coalesce(sum(captures) FILTER (robots_parsed AND rules_class = 'disallow_all'
                                          AND group_match = 'specific'), 0) AS full_named,
           coalesce(sum(captures) FILTER (robots_parsed AND rules_class = 'disallow_all'
                                          AND group_match = 'global'), 0) AS full_wildcard,
           coalesce(sum(captures) FILTER (effective_class = 'disallow_all'), 0) AS effective,
           coalesce(sum(captures) FILTER (effective_class = 'disallow_all'
                                          AND group_match = 'specific'), 0) AS effective_named,
           coalesce(sum(captures) FILTER (effective_class = 'disallow_all'
                                          AND group_match = 'global'), 0) AS effective_wildcard,
           coalesce(sum(captures) FILTER (robots_parsed AND group_match = 'specific'), 0) AS naming,
           coalesce(sum(captures) FILTER (robots_parsed AND root_allowed), 0) AS may_fetch,
           coalesce(sum(captures) FILTER (robots_parsed AND root_allowed AND group_match = 'specific'
                                          AND (usage_train_ai = 'n' OR signal_ai_train = 'n')), 0)
               AS no_training_named,
           coalesce(sum(captures) FILTER (robots_parsed AND root_allowed AND group_match = 'global'
                                          AND (usage_train_ai = 'n' OR signal_ai_train = 'n')), 0)
               AS no_training_wildcard,
           coalesce(sum(captures) FILTER (robots_parsed AND root_allowed
                                          AND (usage_train_ai = 'n' OR signal_ai_train = 'n')), 0)
               AS no_training
    FROM agent_verdict_counts
    GROUP BY crawl, agent
),
capture_counts AS (
    SELECT crawl, count(*) AS captures, count_if(robots_parsed) AS parsed,
           count_if(fetch_status = 200
                    AND NOT looks_like_html
                    AND coalesce(
                          (coalesce(content_mime_detected, content_mime_type) LIKE 'text/%'
                           AND coalesce(content_mime_detected, content_mime_type) <> 'text/html')
                          OR coalesce(content_mime_detected, content_mime_type) IN ('message/rfc822', 'plain/text'),
                          false)) AS valid
    FROM captures
    GROUP BY crawl
),
rows(crawl, question, agent, definition, numerator, denominator, named, wildcard) AS (
    SELECT crawl, 'full_block', agent, 'captures', full_named + full_wildcard, parsed, full_named, full_wildcard
    FROM capture_verdicts
    UNION ALL
    SELECT crawl, 'full_block', agent, 'captures_effective', effective, captures, effective_named,
           effective_wildcard
    FROM capture_verdicts
    UNION ALL
    SELECT crawl, 'full_block', agent, 'captures_named', full_named, naming, full_named, 0
    FROM capture_verdicts
    UNION ALL
    SELECT b.crawl, 'full_block', b.agent, d.definition, b.named + b.wildcard,
           CASE d.definition WHEN 'hosts' THEN c.hosts WHEN 'hosts_2xx' THEN c.hosts_2xx
                             ELSE c.hosts_2xx_404 END,
           b.named, b.wildcard
    FROM host_blocks b
    JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM b.crawl
    CROSS JOIN (VALUES ('hosts'), ('hosts_2xx'), ('hosts_2xx_404')) d(definition)
    WHERE b.population = 'hosts'
    UNION ALL
    SELECT b.crawl, 'full_block', b.agent, 'cc_hosts', b.named + b.wildcard, c.hosts, b.named, b.wildcard
    FROM host_blocks b
    JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM b.crawl
    WHERE b.population = 'cc_hosts'
    UNION ALL
    SELECT a.crawl, 'full_block', NULL, 'hosts_2xx_any_ai', a.numerator, c.hosts_2xx, a.named, a.wildcard
    FROM any_ai a
    JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM a.crawl
    UNION ALL
    SELECT crawl, 'full_block', NULL, 'fan_domains', numerator, denominator, named, wildcard
    FROM fan
    UNION ALL
    SELECT crawl, 'has_robots_txt', NULL, 'captures', parsed, captures, NULL, NULL FROM capture_counts
    UNION ALL
    SELECT crawl, 'has_robots_txt', NULL, 'captures_valid', valid, captures, NULL, NULL FROM capture_counts
    UNION ALL
    SELECT crawl, 'has_robots_txt', NULL, unnest(['hosts', 'hosts_200', 'hosts_with_rules']),
           unnest([hosts_2xx, hosts_200, hosts_with_rules]), hosts, NULL, NULL
    FROM host_counts
    UNION ALL
    SELECT c.crawl, 'has_robots_txt', NULL, unnest(['cc_hosts_robots_txt', 'cc_hosts_with_rules']),
           unnest([c.robots_txt, c.with_rules]), h.hosts, NULL, NULL
    FROM cc_counts c
    JOIN host_counts h ON h.crawl IS NOT DISTINCT FROM c.crawl
    UNION ALL
    SELECT crawl, 'no_ai_training', agent, 'captures', no_training, parsed, no_training_named,
           no_training_wildcard
    FROM capture_verdicts
    UNION ALL
    SELECT crawl, 'no_ai_training', agent, 'captures_may_fetch', no_training, may_fetch,
           no_training_named, no_training_wildcard
    FROM capture_verdicts
    UNION ALL
    SELECT c.crawl, 'no_ai_training', a.token, d.definition, coalesce(r.numerator, 0),
           CASE d.definition WHEN 'hosts' THEN c.hosts ELSE c.hosts_2xx END,
           coalesce(r.named, 0), coalesce(r.wildcard, 0)
    FROM host_counts c
    CROSS JOIN agents a
    CROSS JOIN (VALUES ('hosts'), ('hosts_2xx')) d(definition)
    LEFT JOIN refusal_counts r ON r.crawl IS NOT DISTINCT FROM c.crawl AND r.agent = a.token
)
SELECT r.crawl, r.question, r.agent, a.category AS agent_category, r.definition,
       r.numerator::BIGINT AS numerator, r.denominator::BIGINT AS denominator,
       r.numerator / nullif(r.denominator, 0) AS share,
       r.named::BIGINT AS named, r.wildcard::BIGINT AS wildcard, d.study
FROM rows r
JOIN definitions d USING (question, definition)
LEFT JOIN agents a ON a.token = r.agent
-- only the crawls with a robots.txt capture
SEMI JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM r.crawl
ORDER BY r.crawl NULLS FIRST, list_position(['full_block', 'has_robots_txt', 'no_ai_training'], r.question),
         a.position NULLS FIRST, d.ord;
