-- Popularity strata and the studies' definitions (the last of the views: read it after
-- queries/tables.sql and queries/views.sql, whose views it reads by name):
--
--   SET VARIABLE robostats_ranks = 'tranco.csv';   -- optional: a rank list
--   .read queries/strata.sql                       -- DuckDB CLI
--
-- A rank list (robostats_ranks: a file or a glob, local or s3://; unset: no host is ranked) is
--   * a list of registered domains: Tranco's CSV (rank,domain with no header line), or any CSV or
--     Parquet file with a column rank and a column domain;
--   * a list of hosts: any CSV or Parquet file with a column rank and a column host, or Common
--     Crawl's Host Index (Parquet, a column surt_host_name), whose hosts are ranked by a score,
--     hcrank by default (harmonic centrality, as Common Crawl's own rank lists), the highest
--     first; equal scores share the best rank; a host of several rows (several crawls'
--     partitions) takes its highest score.
-- robostats_rank_column names another column of ranks (1 is the most popular), or of scores
-- when it is one of the Host Index's (hcrank, hcrank10, prank, prank10). Column names compare in
-- any case. Names ending in .parquet are read as Parquet, any other as CSV (DuckDB's sniffer: a
-- first line of names is a header). Entries compare in lower case without a final dot.
-- Matching (host_ranks): a host takes its own entry (a host list's, or a domain list's that names
-- the host itself), else, from a list of domains, its registered domain's
-- (url_host_registered_domain: www. and every other subdomain take the domain's rank); a name
-- listed twice takes its best rank. Bands (robostats_rank_bands, the last rank of each, default
-- [1000, 10000, 100000, 1000000]): band_first..band_last; past the last bound an open band
-- (band_last NULL); unranked hosts band_first and band_last NULL.
-- A list that cannot be read so is an error naming the file and what is wrong: no entries, no
-- rank or name column (naming the columns found), a rank that is not a whole number from 1, a
-- score that is not a number, a row without a rank or without a name; a glob that matches no
-- file, DuckDB's error naming it.

-- (The list's reader, rank_list() and the bands' macros are at the end of queries/views.sql.)

-- Derived: every host of the captures with the rank it got from robostats_ranks and why. One row
-- per url_host_name: url_host_surt (Common Crawl's SURT form, com,example,www), url_host_registered_domain,
-- rank (NULL: unranked), matched_by (host: its own entry; registered_domain: its domain's, from a
-- list of domains; NULL), entry (the list's name that ranked it), band_first, band_last.
-- (robostats_host_ranks: the same but url_host_surt, which DuckDB 1.5 computes for every host
-- even when unread)
CREATE OR REPLACE TEMP VIEW robostats_host_ranks AS
    WITH hosts AS MATERIALIZED (
        SELECT url_host_name, any_value(url_host_registered_domain) AS url_host_registered_domain
        FROM captures
        GROUP BY url_host_name
    ),
    -- the list's entries naming a host or a registered domain of the captures, each once: its own
    -- (any entry) and as a domain (a domain list's entries)
    listed AS MATERIALIZED (
        SELECT l.entry, min(l.rank) AS rank, min(l.rank) FILTER (NOT l.is_host) AS domain_rank
        FROM rank_list() l
        -- (the names as they come, a semi join needs them no more distinct, and without NULL, which
        -- matches nothing: DuckDB 2.0 then estimates them fewer than the list's entries and builds the
        -- join's hash table on them, not on the million entries)
        SEMI JOIN (FROM (SELECT url_host_name AS name FROM hosts
                         UNION ALL SELECT url_host_registered_domain FROM hosts)
                   WHERE name IS NOT NULL) n ON n.name = l.entry
        GROUP BY l.entry
    )
    SELECT h.url_host_name, h.url_host_registered_domain,
           coalesce(o.rank, d.domain_rank) AS rank,
           CASE WHEN o.rank IS NOT NULL THEN 'host' WHEN d.domain_rank IS NOT NULL THEN 'registered_domain' END
               AS matched_by,
           CASE WHEN o.rank IS NOT NULL THEN o.entry WHEN d.domain_rank IS NOT NULL THEN d.entry END AS entry,
           rank_band_first(coalesce(o.rank, d.domain_rank)) AS band_first,
           rank_band_last(coalesce(o.rank, d.domain_rank)) AS band_last
    FROM hosts h
    LEFT JOIN listed o ON o.entry = h.url_host_name
    LEFT JOIN listed d ON d.entry = h.url_host_registered_domain;
CREATE OR REPLACE TEMP VIEW host_ranks AS
    SELECT url_host_name, robostats_surt(url_host_name) AS url_host_surt, url_host_registered_domain, rank,
           matched_by, entry, band_first, band_last
    FROM robostats_host_ranks;

-- The studies' definitions counted (definitions.sql: the questions, definitions and columns,
-- each explained there), over every host or, by_band, per band of host_ranks (by_rank.sql): a
-- capture and a host count in their host's band, a registered domain in its best host's. The
-- rows of the bands add up to the rows over every host. Columns: crawl, question, agent,
-- agent_category, definition, band_first, band_last (NULL unless by_band), numerator,
-- denominator, share, named, wildcard, study, and the keys of the order: question_ord,
-- agent_position (NULL first), definition_ord; ordered by crawl, band (unranked last), those.
CREATE OR REPLACE TEMP MACRO definition_rows(by_band) AS TABLE
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
-- each ranked host's rank and band (an unranked host is one not here); over every host none,
-- and the list not even read (query() binds host_ranks only by_band: an unreadable list fails
-- by_rank.sql alone)
ranked AS MATERIALIZED (
    FROM query(CASE WHEN by_band THEN 'SELECT url_host_name, rank, band_first, band_last FROM robostats_host_ranks '
                    -- (also what makes DuckDB build its joins' hash tables on these hosts, not on every
                    -- capture: it estimates a filtered table smaller)
                    || 'WHERE rank IS NOT NULL'
                    ELSE 'SELECT NULL::VARCHAR AS url_host_name, NULL::BIGINT AS rank, NULL::BIGINT AS band_first, '
                         || 'NULL::BIGINT AS band_last WHERE false' END)
),
-- every host of every crawl, once (crawl_hosts follows redirects)
hosts AS MATERIALIZED (
    SELECT h.crawl, h.url_host_name, h.url_host_registered_domain, b.rank, b.band_first, b.band_last, h.base_state,
           h.fetch_status,
           h.has_rules,
           h.base_state IS NULL AND h.global_group_match = 'global' AND h.global_class = 'disallow_all'
               AS global_full,
           h.warc_filename, h.warc_record_offset
    FROM crawl_hosts h
    LEFT JOIN ranked b USING (url_host_name)
),
host_counts AS (
    SELECT crawl, band_first, any_value(band_last) AS band_last, count(*) AS hosts,
           count_if(base_state IS NULL) AS hosts_2xx,
           count_if(base_state IS NULL OR fetch_status = 404) AS hosts_2xx_404,
           count_if(fetch_status = 200) AS hosts_200,
           count_if(base_state IS NULL AND has_rules) AS hosts_with_rules
    FROM hosts
    GROUP BY crawl, band_first
),
-- Common Crawl's outcome of each host in each crawl (crawl_outcomes)
cc AS MATERIALIZED (
    SELECT o.crawl, b.band_first, b.band_last, o.outcome,
           o.global_group_match = 'global' AND o.global_class = 'disallow_all' AS global_full,
           o.warc_filename, o.warc_record_offset
    FROM crawl_outcomes o
    LEFT JOIN ranked b USING (url_host_name)
),
cc_counts AS (
    SELECT crawl, band_first,
           count_if(outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules')) AS robots_txt,
           count_if(outcome = 'robots_txt_with_rules') AS with_rules
    FROM cc
    GROUP BY crawl, band_first
),
-- Full blocks of hosts without a row per host and crawler (as
-- host_state_counts counts them): a crawler no group names is blocked
-- where the * group disallows everything (unless it ignores the * group);
-- a crawler a group names, where that group does.
judged AS (
    SELECT crawl, band_first, 'hosts' AS population, base_state IS NULL AS judged, global_full,
           warc_filename, warc_record_offset
    FROM hosts
    UNION ALL
    SELECT crawl, band_first, 'cc_hosts',
           outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt'),
           outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt') AND global_full,
           warc_filename, warc_record_offset
    FROM cc
),
global_counts AS (
    SELECT crawl, band_first, population, count_if(global_full) AS global_full FROM judged GROUP BY ALL
),
-- (the crawls' semi join keeps every row: it makes DuckDB 1.5 estimate the hosts fewer than
-- named_verdicts' rows, so that it builds the join's hash table on the hosts, not on those rows)
crawls AS MATERIALIZED (SELECT DISTINCT crawl FROM hosts),
named_counts AS (
    SELECT j.crawl, j.band_first, j.population, n.agent,
           count_if(n.rules_class = 'disallow_all') AS named_full,
           count_if(j.global_full) AS named_on_global_full
    FROM (FROM judged j SEMI JOIN crawls c ON c.crawl IS NOT DISTINCT FROM j.crawl WHERE j.judged) j
    JOIN named_verdicts n USING (warc_filename, warc_record_offset)
    GROUP BY ALL
),
host_blocks AS (
    SELECT g.crawl, g.band_first, g.population, a.token AS agent, coalesce(n.named_full, 0) AS named,
           CASE WHEN a.ignores_global_group THEN 0
                ELSE g.global_full - coalesce(n.named_on_global_full, 0) END AS wildcard
    FROM global_counts g
    CROSS JOIN agents a
    LEFT JOIN named_counts n
        ON n.crawl IS NOT DISTINCT FROM g.crawl AND n.band_first IS NOT DISTINCT FROM g.band_first
           AND n.population = g.population AND n.agent = a.token
),
-- Hosts blocking several crawlers: per 2xx host, whether a group naming
-- an AI crawler (a token of Fan et al.'s) blocks it, and how many AI
-- crawlers that obey * a group names
named_per_host AS (
    SELECT h.crawl, h.band_first, h.url_host_name, h.global_full,
           coalesce(bool_or(a.category = 'ai' AND n.rules_class = 'disallow_all'), false) AS ai_named,
           count(n.agent) FILTER (a.category = 'ai' AND NOT a.ignores_global_group) AS ai_named_obeying,
           coalesce(bool_or(f.token IS NOT NULL AND n.rules_class = 'disallow_all'), false) AS fan_named
    FROM (FROM hosts h SEMI JOIN crawls c ON c.crawl IS NOT DISTINCT FROM h.crawl WHERE h.base_state IS NULL) h
    LEFT JOIN named_verdicts n USING (warc_filename, warc_record_offset)
    LEFT JOIN agents a ON a.token = n.agent
    LEFT JOIN fan_tokens f ON f.token = lower(a.token)
    GROUP BY h.crawl, h.band_first, h.url_host_name, h.global_full
),
any_ai AS (
    SELECT crawl, band_first,
           count_if(ai_named OR (global_full AND ai_named_obeying < obeying)) AS numerator,
           count_if(ai_named) AS named,
           count_if(global_full AND ai_named_obeying < obeying) AS wildcard
    FROM named_per_host,
         (SELECT count(*) AS obeying FROM agents WHERE category = 'ai' AND NOT ignores_global_group)
    GROUP BY crawl, band_first
),
-- each host's registered domain (its own, not its redirect target's)
domains AS (
    SELECT h.crawl, coalesce(h.url_host_registered_domain, h.url_host_name) AS domain, h.rank,
           coalesce(p.fan_named, false) AS fan_named, coalesce(p.global_full, false) AS global_full
    FROM hosts h
    LEFT JOIN named_per_host p
        ON p.crawl IS NOT DISTINCT FROM h.crawl AND p.url_host_name = h.url_host_name
),
-- a registered domain's band: its best-ranked host's
fan AS (
    SELECT crawl, CASE WHEN by_band THEN rank_band_first(rank) END AS band_first,
           count(*) AS denominator, count_if(fan_named OR global_full) AS numerator,
           count_if(fan_named) AS named, count_if(global_full) AS wildcard
    FROM (SELECT crawl, domain, min(rank) AS rank, bool_or(fan_named) AS fan_named,
                 bool_or(global_full) AS global_full
          FROM domains GROUP BY crawl, domain)
    GROUP BY ALL
),
-- The AI-use preferences that say no to AI training (usage_train_ai or signal_ai_train 'n'),
-- a tenth of resolved_preferences' rows: every count below asks only for an 'n', and a crawler
-- with no such preference counts as with another ('y' or 'unknown': not 'n' either)
refusing AS (
    SELECT warc_filename, warc_record_offset, agent, usage_train_ai, signal_ai_train
    FROM resolved_preferences
    WHERE usage_train_ai = 'n' OR signal_ai_train = 'n'
),
-- No to AI training, per host: the deciding 2xx captures with a preference
-- saying no (refusing), each crawler judged as agent_verdicts judges it
preference_hosts AS MATERIALIZED (
    SELECT h.crawl, h.band_first, h.warc_filename, h.warc_record_offset
    FROM hosts h
    SEMI JOIN refusing p USING (warc_filename, warc_record_offset)
    WHERE h.base_state IS NULL
),
-- (joined, not a semi join on named_verdicts: DuckDB 1.5 took that table for the small side, 89 k rows
-- for 782 k at 480,000 captures, and built its hash table on all of it)
preference_keys AS MATERIALIZED (
    SELECT DISTINCT warc_filename, warc_record_offset FROM preference_hosts
),
refusals AS (
    SELECT crawl, band_first, agent, group_match
    FROM (
        SELECT crawl, band_first, token AS agent,
               CASE WHEN v IS NOT NULL THEN 'specific' WHEN ignores_global_group THEN 'none'
                    ELSE global_group_match END AS group_match,
               CASE WHEN v IS NOT NULL THEN v WHEN ignores_global_group THEN true
                    ELSE global_root_allowed END AS root_allowed,
               preferences[CASE WHEN v IS NOT NULL OR ignores_global_group THEN token ELSE '*' END]
                   AS preference
        FROM (
            SELECT p.crawl, p.band_first, c.global_group_match, c.global_root_allowed, r.preferences,
                   a.token, a.ignores_global_group,
                   CASE WHEN n.roots IS NOT NULL THEN n.roots[a.token] END AS v
            FROM preference_hosts p
            JOIN captures c USING (warc_filename, warc_record_offset)
            JOIN (SELECT warc_filename, warc_record_offset,
                         map(list(agent), list({'usage_train_ai': usage_train_ai,
                                                'signal_ai_train': signal_ai_train})) AS preferences
                  FROM preference_keys JOIN refusing USING (warc_filename, warc_record_offset)
                  GROUP BY ALL) r USING (warc_filename, warc_record_offset)
            LEFT JOIN (SELECT warc_filename, warc_record_offset, map(list(agent), list(root_allowed)) AS roots
                       FROM preference_keys JOIN named_verdicts USING (warc_filename, warc_record_offset)
                       GROUP BY ALL) n USING (warc_filename, warc_record_offset)
            CROSS JOIN agents a
        )
    )
    WHERE root_allowed AND (preference.usage_train_ai = 'n' OR preference.signal_ai_train = 'n')
),
refusal_counts AS (
    SELECT crawl, band_first, agent, count(*) AS numerator, count_if(group_match = 'specific') AS named,
           count_if(group_match = 'global') AS wildcard
    FROM refusals
    GROUP BY ALL
),
-- per capture and band (by_band): every capture in its host's band, counted
caps AS MATERIALIZED (
    SELECT c.crawl, b.band_first, c.warc_filename, c.warc_record_offset, c.robots_parsed,
           c.google_class, c.global_group_match, c.global_class, c.global_root_allowed,
           c.fetch_status, c.looks_like_html, coalesce(c.content_mime_detected, c.content_mime_type) AS mime
    FROM captures c
    LEFT JOIN ranked b USING (url_host_name)
    WHERE by_band
),
-- every capture (by_band: caps' rows, each in its host's band)
capture_counts AS (
    SELECT crawl, band_first, count(*) AS captures, count_if(robots_parsed) AS parsed,
           count_if(fetch_status = 200 AND NOT looks_like_html
                    AND coalesce((mime LIKE 'text/%' AND mime <> 'text/html') OR mime IN ('message/rfc822', 'plain/text'),
                                 false)) AS valid
    FROM (SELECT crawl, NULL::BIGINT AS band_first, robots_parsed, fetch_status, looks_like_html,
                 coalesce(content_mime_detected, content_mime_type) AS mime
          FROM captures WHERE NOT by_band
          UNION ALL
          SELECT crawl, band_first, robots_parsed, fetch_status, looks_like_html, mime FROM caps)
    GROUP BY crawl, band_first
),
-- by_band, the band with the most captures: its crawlers' verdicts are every crawl's
-- (agent_verdict_counts, counted at ingest) less the other bands', which alone are judged capture
-- by capture (not by_band: one row, band_first NULL, and no other band)
largest AS (
    SELECT max({captures: captures, unranked: band_first IS NULL, band_first: band_first}).band_first AS band_first
    FROM (SELECT band_first, sum(captures) AS captures FROM capture_counts WHERE by_band GROUP BY band_first)
),
judged_caps AS MATERIALIZED (
    SELECT crawl, band_first, warc_filename, warc_record_offset, robots_parsed, google_class, global_group_match,
           global_class, global_root_allowed
    FROM caps
    WHERE band_first IS DISTINCT FROM (SELECT band_first FROM largest)
),
-- those captures, each crawler judged as agent_verdicts judges it, without a row per capture and
-- crawler: the captures counted by what the verdict of a crawler no group names depends on
-- (robots_parsed, google_class, the * group's match, class and verdict on /), each crawler judged
-- once per count; the pairs a group names (named_verdicts, counted alike) taken away from that
-- count and added as the group says; the captures with preferences (refusing: few) judged one by one
judged_prefs AS MATERIALIZED (
    SELECT c.*, p.preferences
    FROM judged_caps c
    LEFT JOIN (SELECT warc_filename, warc_record_offset,
                      map(list(agent), list({'usage_train_ai': usage_train_ai,
                                             'signal_ai_train': signal_ai_train})) AS preferences
               FROM refusing
               SEMI JOIN judged_caps USING (warc_filename, warc_record_offset)
               GROUP BY ALL) p USING (warc_filename, warc_record_offset)
),
-- (the keys of those with preferences joined, not a semi join on named_verdicts: as preference_keys)
judged_keys AS MATERIALIZED (
    SELECT warc_filename, warc_record_offset FROM judged_prefs WHERE preferences IS NOT NULL
),
pairs AS (
    SELECT g.*, a.token, a.ignores_global_group, NULL::STRUCT(root_allowed BOOLEAN, rules_class VARCHAR) AS n,
           g.captures AS weight
    FROM (SELECT crawl, band_first, robots_parsed, google_class, global_group_match, global_class,
                 global_root_allowed, preferences, count(*) AS captures
          FROM judged_prefs WHERE preferences IS NULL GROUP BY ALL) g
    CROSS JOIN agents a
    UNION ALL BY NAME
    SELECT v.* EXCLUDE (agent, root_allowed, rules_class, captures), a.token, a.ignores_global_group, w.n,
           w.sign * v.captures AS weight
    FROM (SELECT c.crawl, c.band_first, c.robots_parsed, c.google_class, c.global_group_match, c.global_class,
                 c.global_root_allowed, c.preferences, n.agent, n.root_allowed, n.rules_class, count(*) AS captures
          FROM judged_prefs c
          JOIN named_verdicts n USING (warc_filename, warc_record_offset)
          WHERE c.preferences IS NULL
          GROUP BY ALL) v
    JOIN agents a ON a.token = v.agent
    CROSS JOIN (VALUES (NULL, -1), ({'root_allowed': v.root_allowed, 'rules_class': v.rules_class}, 1)) w(n, sign)
    UNION ALL BY NAME
    -- (the captures alike in all of these counted first: many share a body's preferences and groups)
    SELECT g.* EXCLUDE (verdicts, captures), a.token, a.ignores_global_group,
           CASE WHEN g.verdicts IS NOT NULL THEN g.verdicts[a.token] END AS n, g.captures AS weight
    FROM (SELECT c.crawl, c.band_first, c.robots_parsed, c.google_class, c.global_group_match, c.global_class,
                 c.global_root_allowed, c.preferences, m.verdicts, count(*) AS captures
          FROM judged_prefs c
          LEFT JOIN (SELECT warc_filename, warc_record_offset,
                            map(list(agent), list({'root_allowed': root_allowed, 'rules_class': rules_class}))
                                AS verdicts
                     FROM judged_keys JOIN named_verdicts USING (warc_filename, warc_record_offset)
                     GROUP BY ALL) m USING (warc_filename, warc_record_offset)
          WHERE c.preferences IS NOT NULL
          GROUP BY ALL) g
    CROSS JOIN agents a
),
verdicts AS (
    SELECT crawl, band_first, token AS agent, robots_parsed, google_class, weight, preferences,
           n IS NOT NULL OR ignores_global_group AS own,
           CASE WHEN NOT robots_parsed THEN NULL WHEN n IS NOT NULL THEN 'specific'
                WHEN ignores_global_group THEN 'none' ELSE global_group_match END AS group_match,
           CASE WHEN NOT robots_parsed THEN NULL WHEN n IS NOT NULL THEN n.root_allowed
                WHEN ignores_global_group THEN true ELSE global_root_allowed END AS root_allowed,
           CASE WHEN NOT robots_parsed THEN NULL WHEN n IS NOT NULL THEN n.rules_class
                WHEN ignores_global_group THEN 'allow_all' ELSE global_class END AS rules_class
    FROM pairs
),
banded_verdicts AS (
    SELECT crawl, band_first, agent, robots_parsed, group_match, root_allowed, rules_class,
           CASE google_class WHEN 'conditional_allow' THEN rules_class WHEN 'redirect' THEN 'unresolved_redirect'
                WHEN 'full_allow' THEN 'allow_all' ELSE 'disallow_all' END AS effective_class,
           CASE WHEN p IS NOT NULL THEN p.usage_train_ai WHEN root_allowed THEN 'unknown' END AS usage_train_ai,
           CASE WHEN p IS NOT NULL THEN p.signal_ai_train WHEN root_allowed THEN 'unknown' END AS signal_ai_train,
           sum(weight) AS captures
    FROM (SELECT *, CASE WHEN preferences IS NOT NULL
                         THEN preferences[CASE WHEN own THEN agent ELSE '*' END] END AS p
          FROM verdicts)
    GROUP BY ALL
    HAVING sum(weight) <> 0
),
-- per capture: every capture counted, each crawler judged as agent_verdicts judges it: over
-- every host, agent_verdict_counts' sums; per band, banded_verdicts, and in the largest band
-- agent_verdict_counts' less banded_verdicts' (the bands add up to the crawl; a crawl with no
-- capture there, none left: capture_sums' HAVING)
capture_verdicts AS (
    SELECT v.crawl, l.band_first, v.agent, v.robots_parsed, v.group_match, v.root_allowed, v.rules_class,
           v.effective_class, v.usage_train_ai, v.signal_ai_train, v.captures
    FROM agent_verdict_counts v, largest l
    UNION ALL
    SELECT b.crawl, s.band_first, b.agent, b.robots_parsed, b.group_match, b.root_allowed, b.rules_class,
           b.effective_class, b.usage_train_ai, b.signal_ai_train, s.sign * b.captures
    FROM banded_verdicts b, largest l, LATERAL (VALUES (b.band_first, 1), (l.band_first, -1)) s(band_first, sign)
),
capture_sums AS (
    SELECT crawl, band_first, agent,
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
    FROM capture_verdicts
    GROUP BY crawl, band_first, agent
    HAVING sum(captures) <> 0
),
rows(crawl, band_first, question, agent, definition, numerator, denominator, named, wildcard) AS (
    SELECT crawl, band_first, 'full_block', agent, 'captures', full_named + full_wildcard, parsed, full_named,
           full_wildcard
    FROM capture_sums
    UNION ALL
    SELECT crawl, band_first, 'full_block', agent, 'captures_effective', effective, captures, effective_named,
           effective_wildcard
    FROM capture_sums
    UNION ALL
    SELECT crawl, band_first, 'full_block', agent, 'captures_named', full_named, naming, full_named, 0
    FROM capture_sums
    UNION ALL
    SELECT b.crawl, b.band_first, 'full_block', b.agent, d.definition, b.named + b.wildcard,
           CASE d.definition WHEN 'hosts' THEN c.hosts WHEN 'hosts_2xx' THEN c.hosts_2xx
                             ELSE c.hosts_2xx_404 END,
           b.named, b.wildcard
    FROM host_blocks b
    JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM b.crawl AND c.band_first IS NOT DISTINCT FROM b.band_first
    CROSS JOIN (VALUES ('hosts'), ('hosts_2xx'), ('hosts_2xx_404')) d(definition)
    WHERE b.population = 'hosts'
    UNION ALL
    SELECT b.crawl, b.band_first, 'full_block', b.agent, 'cc_hosts', b.named + b.wildcard, c.hosts, b.named,
           b.wildcard
    FROM host_blocks b
    JOIN host_counts c ON c.crawl IS NOT DISTINCT FROM b.crawl AND c.band_first IS NOT DISTINCT FROM b.band_first
    WHERE b.population = 'cc_hosts'
    UNION ALL
    SELECT c.crawl, c.band_first, 'full_block', NULL, 'hosts_2xx_any_ai', coalesce(a.numerator, 0), c.hosts_2xx,
           coalesce(a.named, 0), coalesce(a.wildcard, 0)
    FROM host_counts c
    LEFT JOIN any_ai a ON a.crawl IS NOT DISTINCT FROM c.crawl AND a.band_first IS NOT DISTINCT FROM c.band_first
    UNION ALL
    SELECT crawl, band_first, 'full_block', NULL, 'fan_domains', numerator, denominator, named, wildcard
    FROM fan
    UNION ALL
    SELECT crawl, band_first, 'has_robots_txt', NULL, 'captures', parsed, captures, NULL, NULL
    FROM capture_counts
    UNION ALL
    SELECT crawl, band_first, 'has_robots_txt', NULL, 'captures_valid', valid, captures, NULL, NULL
    FROM capture_counts
    UNION ALL
    SELECT crawl, band_first, 'has_robots_txt', NULL, unnest(['hosts', 'hosts_200', 'hosts_with_rules']),
           unnest([hosts_2xx, hosts_200, hosts_with_rules]), hosts, NULL, NULL
    FROM host_counts
    UNION ALL
    SELECT c.crawl, c.band_first, 'has_robots_txt', NULL, unnest(['cc_hosts_robots_txt', 'cc_hosts_with_rules']),
           unnest([coalesce(cc.robots_txt, 0), coalesce(cc.with_rules, 0)]), c.hosts, NULL, NULL
    FROM host_counts c
    LEFT JOIN cc_counts cc ON cc.crawl IS NOT DISTINCT FROM c.crawl AND cc.band_first IS NOT DISTINCT FROM c.band_first
    UNION ALL
    SELECT crawl, band_first, 'no_ai_training', agent, 'captures', no_training, parsed, no_training_named,
           no_training_wildcard
    FROM capture_sums
    UNION ALL
    SELECT crawl, band_first, 'no_ai_training', agent, 'captures_may_fetch', no_training, may_fetch,
           no_training_named, no_training_wildcard
    FROM capture_sums
    UNION ALL
    SELECT c.crawl, c.band_first, 'no_ai_training', a.token, d.definition, coalesce(r.numerator, 0),
           CASE d.definition WHEN 'hosts' THEN c.hosts ELSE c.hosts_2xx END,
           coalesce(r.named, 0), coalesce(r.wildcard, 0)
    FROM host_counts c
    CROSS JOIN agents a
    CROSS JOIN (VALUES ('hosts'), ('hosts_2xx')) d(definition)
    LEFT JOIN refusal_counts r ON r.crawl IS NOT DISTINCT FROM c.crawl
        AND r.band_first IS NOT DISTINCT FROM c.band_first AND r.agent = a.token
)
SELECT r.crawl, r.question, r.agent, a.category AS agent_category, r.definition,
       r.band_first, CASE WHEN r.band_first IS NOT NULL THEN rank_band_last(r.band_first) END AS band_last,
       r.numerator::BIGINT AS numerator, r.denominator::BIGINT AS denominator,
       r.numerator / nullif(r.denominator, 0) AS share,
       r.named::BIGINT AS named, r.wildcard::BIGINT AS wildcard, d.study,
       list_position(['full_block', 'has_robots_txt', 'no_ai_training'], r.question) AS question_ord,
       a.position AS agent_position, d.ord AS definition_ord
FROM rows r
JOIN definitions d USING (question, definition)
LEFT JOIN agents a ON a.token = r.agent
-- only the crawls with a robots.txt capture
SEMI JOIN (SELECT DISTINCT crawl FROM hosts) c ON c.crawl IS NOT DISTINCT FROM r.crawl
ORDER BY r.crawl NULLS FIRST, r.band_first NULLS LAST, question_ord, agent_position NULLS FIRST,
         definition_ord;
