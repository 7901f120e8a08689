-- The views derived from the tables of one robostats output directory: the second of the
-- three files every query of queries/ reads, after queries/tables.sql (which makes the views
-- over the tables; see it for how to choose the directory), before queries/strata.sql.

-- Read after queries/tables.sql, or an error that says so (a SET: the DuckDB CLI prints nothing).
SET VARIABLE robostats_tables_read = (SELECT CASE WHEN count(*) > 0 THEN true ELSE error('read queries/tables.sql '
    || 'before queries/views.sql: it makes the views over the tables that this file derives from') END
    FROM duckdb_views() WHERE temporary AND view_name = 'captures');

-- Derived: the latest capture of each URL (as Common Crawl's ROW_NUMBER() OVER (PARTITION BY url
-- ORDER BY fetch_time DESC)), ties broken by file and offset: ordered by fetch_time DESC NULLS
-- LAST, warc_filename DESC, warc_record_offset DESC. No window over whole rows: the largest key
-- {has fetch_time, fetch_time, file, offset} of each URL, then its capture (only its columns read).
CREATE OR REPLACE TEMP VIEW latest_captures AS
    SELECT c.*
    FROM captures c
    SEMI JOIN (
        SELECT max({has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                    warc_filename: warc_filename, warc_record_offset: warc_record_offset}) AS k
        FROM captures
        GROUP BY url
    ) l ON c.warc_filename = l.k.warc_filename AND c.warc_record_offset = l.k.warc_record_offset;

-- Stored per crawl by robostats compact (docs/crawls.md): follow_redirects(true)'s rows in crawl_chains/, crawl_hosts' in
-- crawl_hosts/, each with its crawl's fingerprint then (crawl_fingerprints: its captures, the sum of their keys' hashes and the
-- format's, a hash of the macros and code that write and read them, kept by a test; a crawl_only row for a crawl without rows).
-- robostats_stored_or(t, computed): t's rows of the crawls whose fingerprint holds (robostats_holds(t)), the others computed
-- (robostats_stale(t)), told apart once a query (SET VARIABLE robostats_stored_crawls = false: all computed).
CREATE OR REPLACE TEMP VIEW crawl_fingerprints AS SELECT crawl, count(*) AS crawl_captures, ((sum(hash(warc_filename,
    warc_record_offset)) + hash('crawl tables 12a238bc')) % 18446744073709551616)::UBIGINT AS crawl_keys FROM captures GROUP BY crawl;
SET VARIABLE robostats_stored = (SELECT list(DISTINCT regexp_extract(file, '/(crawl_[a-z]+)/[^/]+$', 1))
    FROM glob(robostats_dir() || '/crawl_*/*.parquet') WHERE coalesce(getvariable('robostats_stored_crawls'), true));
CREATE OR REPLACE TEMP MACRO robostats_holds(t) AS TABLE FROM query(CASE WHEN list_contains(getvariable('robostats_stored'), t)
    THEN 'SELECT * FROM robostats_f f SEMI JOIN (SELECT DISTINCT crawl, crawl_captures, crawl_keys FROM robostats_table('''
    || t || ''')) s ON f.crawl IS NOT DISTINCT FROM s.crawl AND f.crawl_captures = s.crawl_captures AND f.crawl_keys = s.crawl_keys'
    ELSE 'SELECT * FROM robostats_f WHERE false' END);
CREATE OR REPLACE TEMP MACRO robostats_stale(t) AS TABLE WITH robostats_f AS MATERIALIZED (FROM crawl_fingerprints) SELECT crawl
    FROM robostats_f f ANTI JOIN robostats_holds(t) h ON f.crawl IS NOT DISTINCT FROM h.crawl;
CREATE OR REPLACE TEMP MACRO robostats_captures(t) AS TABLE FROM query(CASE WHEN t = 'captures' THEN 'FROM captures' ELSE
    'SELECT c.* FROM captures c SEMI JOIN ' || t || ' s ON c.crawl IS NOT DISTINCT FROM s.crawl' END);
CREATE OR REPLACE TEMP MACRO robostats_stored_or(t, computed) AS TABLE FROM query(CASE WHEN list_contains(getvariable('robostats_stored'), t)
    THEN 'WITH robostats_f AS MATERIALIZED (FROM crawl_fingerprints), robostats_held AS MATERIALIZED (FROM robostats_holds('''
    || t || ''')), robostats_todo AS MATERIALIZED (SELECT f.* FROM robostats_f f ANTI JOIN robostats_held h ON f.crawl IS NOT '
    || 'DISTINCT FROM h.crawl) SELECT s.* EXCLUDE '
    || '(crawl_captures, crawl_keys, crawl_only) FROM robostats_table(''' || t || ''') s SEMI JOIN robostats_held h ON s.crawl IS '
    || 'NOT DISTINCT FROM h.crawl AND s.crawl_captures = h.crawl_captures AND s.crawl_keys = h.crawl_keys WHERE NOT '
    || 's.crawl_only UNION ALL BY NAME FROM ' || computed || '(''robostats_todo'')' ELSE 'FROM ' || computed || '(''captures'')' END);

-- Derived (a table macro, follow_redirects(per_crawl), for robots_txt_chains and crawl_hosts): the
-- redirect chain of every robots.txt URL (url_path = '/robots.txt'), over all crawls, or per_crawl in each
-- crawl (captures with no crawl form a crawl of their own), followed across captures up to 5 hops (RFC
-- 9309; Common Crawl follows 5 since CC-MAIN-2023-50). The latest capture of a URL (the largest key {has
-- fetch_time, fetch_time, file, offset}, as in latest_captures) starts; a 3xx capture's fetch_redirect is
-- looked up as the URL of another capture, always the latest capture of that URL (in the same crawl,
-- per_crawl); hops are separate records, often in other files: ingest a crawl's files together. One row
-- per robots.txt URL (per crawl): crawl (NULL unless per_crawl), url_host_name, captures (the URL's),
-- start_url, start (the start's key), hops (redirects followed), resolution, chain (start to final),
-- final_url, final_status, final_google_class, final_cc_class, the final capture's key (warc_filename,
-- warc_record_offset). resolution: direct (the start is not a redirect), resolved (a chain ending on a
-- non-3xx capture), target_not_captured (the last redirect's target has no capture), missing_location (the
-- last 3xx has no usable Location), loop (the last target is already in the chain), too_many_hops (still a
-- redirect after 5 hops: Google and Common Crawl then allow everything, as after a loop). Read per crawl
-- where stored (crawl_chains); robostats_follow(per_crawl, t) computes it: the latest captures once (a
-- struct max per URL), then 5 joins.
CREATE OR REPLACE TEMP MACRO follow_redirects(per_crawl) AS TABLE FROM query(CASE WHEN per_crawl
    THEN 'FROM robostats_stored_or(''crawl_chains'', ''robostats_chains'')' ELSE 'FROM robostats_follow(false, ''captures'')' END);
CREATE OR REPLACE TEMP MACRO robostats_follow(per_crawl, t) AS TABLE
    WITH latest AS MATERIALIZED (
        SELECT CASE WHEN per_crawl THEN crawl END AS crawl, url, url_host_name, url_path, fetch_time,
               fetch_status, fetch_redirect, google_class, cc_class, warc_filename, warc_record_offset,
               l.captures
        FROM robostats_captures(t) c
        JOIN (
            SELECT k.warc_filename, k.warc_record_offset, captures
            FROM (SELECT max({has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                              warc_filename: warc_filename, warc_record_offset: warc_record_offset}) AS k,
                         count(*) AS captures
                  FROM robostats_captures(t)
                  GROUP BY CASE WHEN per_crawl THEN crawl END, url
                  -- always true: without it DuckDB 1.5 estimates fewer URLs than captures
                  -- and builds host_outcomes' join with captures on the chains (BENCHMARKS.md)
                  HAVING per_crawl OR count(*) > 0)
        ) l USING (warc_filename, warc_record_offset)
    ),
    targets AS MATERIALIZED (
        -- a hop's capture: these columns, in this order, end every hop's row
        SELECT crawl, url, fetch_status, fetch_redirect, google_class, cc_class,
               warc_filename, warc_record_offset
        FROM latest l
        SEMI JOIN (SELECT crawl, fetch_redirect FROM latest WHERE google_class = 'redirect') r
            ON r.crawl IS NOT DISTINCT FROM l.crawl AND r.fetch_redirect = l.url
    ),
    hop0 AS (
        SELECT crawl, url AS start_url, url_host_name, captures,
               {has_time: fetch_time IS NOT NULL, fetch_time: fetch_time, warc_filename: warc_filename,
                warc_record_offset: warc_record_offset} AS start, 0 AS hop, [url] AS urls,
               url, fetch_status, fetch_redirect, google_class, cc_class, warc_filename, warc_record_offset
        FROM latest
        WHERE url_path = '/robots.txt'
    ),
    hop1 AS (SELECT c.crawl, c.start_url, c.url_host_name, c.captures, c.start, c.hop + 1 AS hop,
                    list_append(c.urls, t.url) AS urls, t.* EXCLUDE (crawl)
             FROM hop0 c JOIN targets t ON t.crawl IS NOT DISTINCT FROM c.crawl AND t.url = c.fetch_redirect
             WHERE c.google_class = 'redirect' AND NOT list_contains(c.urls, t.url)),
    hop2 AS (SELECT c.crawl, c.start_url, c.url_host_name, c.captures, c.start, c.hop + 1 AS hop,
                    list_append(c.urls, t.url) AS urls, t.* EXCLUDE (crawl)
             FROM hop1 c JOIN targets t ON t.crawl IS NOT DISTINCT FROM c.crawl AND t.url = c.fetch_redirect
             WHERE c.google_class = 'redirect' AND NOT list_contains(c.urls, t.url)),
    hop3 AS (SELECT c.crawl, c.start_url, c.url_host_name, c.captures, c.start, c.hop + 1 AS hop,
                    list_append(c.urls, t.url) AS urls, t.* EXCLUDE (crawl)
             FROM hop2 c JOIN targets t ON t.crawl IS NOT DISTINCT FROM c.crawl AND t.url = c.fetch_redirect
             WHERE c.google_class = 'redirect' AND NOT list_contains(c.urls, t.url)),
    hop4 AS (SELECT c.crawl, c.start_url, c.url_host_name, c.captures, c.start, c.hop + 1 AS hop,
                    list_append(c.urls, t.url) AS urls, t.* EXCLUDE (crawl)
             FROM hop3 c JOIN targets t ON t.crawl IS NOT DISTINCT FROM c.crawl AND t.url = c.fetch_redirect
             WHERE c.google_class = 'redirect' AND NOT list_contains(c.urls, t.url)),
    hop5 AS (SELECT c.crawl, c.start_url, c.url_host_name, c.captures, c.start, c.hop + 1 AS hop,
                    list_append(c.urls, t.url) AS urls, t.* EXCLUDE (crawl)
             FROM hop4 c JOIN targets t ON t.crawl IS NOT DISTINCT FROM c.crawl AND t.url = c.fetch_redirect
             WHERE c.google_class = 'redirect' AND NOT list_contains(c.urls, t.url)),
    last_hop AS (
        -- a start that is not a redirect is its own last hop; else the highest
        SELECT * FROM hop0 WHERE google_class <> 'redirect'
        UNION ALL
        SELECT * FROM (
            SELECT * FROM hop0 WHERE google_class = 'redirect'
            UNION ALL SELECT * FROM hop1
            UNION ALL SELECT * FROM hop2
            UNION ALL SELECT * FROM hop3
            UNION ALL SELECT * FROM hop4
            UNION ALL SELECT * FROM hop5
        )
        QUALIFY row_number() OVER (PARTITION BY crawl, start_url ORDER BY hop DESC) = 1
    )
    SELECT crawl, url_host_name, captures, start_url, start, hop AS hops,
           CASE
               WHEN google_class <> 'redirect' AND hop = 0 THEN 'direct'
               WHEN google_class <> 'redirect' THEN 'resolved'
               WHEN fetch_redirect IS NULL THEN 'missing_location'
               WHEN list_contains(urls, fetch_redirect) THEN 'loop'
               WHEN hop >= 5 THEN 'too_many_hops'
               ELSE 'target_not_captured'
           END AS resolution,
           urls AS chain, url AS final_url, fetch_status AS final_status,
           google_class AS final_google_class, cc_class AS final_cc_class,
           warc_filename, warc_record_offset
    FROM last_hop;
CREATE OR REPLACE TEMP MACRO robostats_chains(t) AS TABLE FROM robostats_follow(true, t);

-- Derived: the redirect chain of every robots.txt URL across crawls, one
-- row per URL: follow_redirects(false)'s columns but crawl, captures, start.
CREATE OR REPLACE TEMP VIEW robots_txt_chains AS
    SELECT start_url, url_host_name, hops, final_url, final_status, final_google_class,
           final_cc_class, resolution, chain, warc_filename, warc_record_offset
    FROM follow_redirects(false);

-- Derived: each host's outcome after redirects (Nagel & Vaughan's per-site classes). Every robots.txt URL of the host
-- (http/https, ports) is followed as in robots_txt_chains; the host's outcome is its best URL's, by Common Crawl's
-- precedence
--   success > allow_all (notfound, unauthorized, other; a loop, too_many_hops)
--   > forbidden > defer_visits > redirect_unresolved,
-- and a success is split like the studies: robots_txt_with_rules (a group has a non-empty rule), robots_txt_no_rules,
-- not_robots_txt (HTML body or a MIME type that is not text: the test of valid_robotstxt.sql). Ties: the latest final
-- capture, then the start URL. One row per host: url_host_name, urls (robots.txt URLs of the host), outcome,
-- start_url, final_url, final_status, final_google_class, hops. The best URL is the smallest struct {precedence, no
-- fetch_time, -fetch_time in microseconds, start_url, ...} of the host (a struct min: the order above; start URLs
-- differ, so it is one URL's). cc_outcome(...): a followed URL's outcome, from its chain's final class and resolution
-- (robots_txt_chains, follow_redirects) and its final capture's columns; cc_precedence(outcome): its rank in the
-- order above.
CREATE OR REPLACE TEMP MACRO cc_outcome(cc_class, resolution, looks_like_html, mime, has_rules) AS
    CASE WHEN cc_class = 'success' THEN
             CASE WHEN looks_like_html
                       OR NOT coalesce((mime LIKE 'text/%' AND mime <> 'text/html')
                                       OR mime IN ('message/rfc822', 'plain/text'), false) THEN 'not_robots_txt'
                  WHEN has_rules THEN 'robots_txt_with_rules'
                  ELSE 'robots_txt_no_rules' END
         WHEN cc_class IN ('notfound', 'unauthorized', 'other') OR resolution IN ('loop', 'too_many_hops') THEN 'allow_all'
         WHEN cc_class IN ('forbidden', 'defer_visits') THEN cc_class
         ELSE 'redirect_unresolved' END;
CREATE OR REPLACE TEMP MACRO cc_precedence(outcome) AS
    CASE WHEN outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt') THEN 1
         ELSE coalesce(list_position(['allow_all', 'forbidden', 'defer_visits'], outcome), 4) + 1 END;
-- robostats_outcomes(per_crawl, t): these rows (per crawl or not) and the best URL's final capture's key, global_class, global_group_match.
CREATE OR REPLACE TEMP MACRO robostats_outcomes(per_crawl, t) AS TABLE
    SELECT crawl, url_host_name, urls, b.outcome, b.start_url, b.final_url, b.final_status, b.final_google_class, b.hops,
           b.final.warc_filename, b.final.warc_record_offset, b.final.global_class, b.final.global_group_match
    FROM (SELECT crawl, url_host_name, count(*) AS urls,
                 min({precedence: cc_precedence(outcome), no_time: fetch_time IS NULL, newest_first: -epoch_us(fetch_time),
                      start_url: start_url, outcome: outcome, final_url: final_url, final_status: final_status,
                      final_google_class: final_google_class, hops: hops, final: CASE WHEN per_crawl THEN
                      {warc_filename: warc_filename, warc_record_offset: warc_record_offset, global_class: global_class,
                       global_group_match: global_group_match} END}) AS b
          FROM (SELECT r.crawl, r.url_host_name, r.start_url, r.final_url, r.final_status, r.final_google_class, r.hops, r.warc_filename,
                       r.warc_record_offset, f.fetch_time, f.global_class, f.global_group_match, cc_outcome(r.final_cc_class,
                       r.resolution, f.looks_like_html, coalesce(f.content_mime_detected, f.content_mime_type), f.has_rules) AS outcome
                -- (through query(): called directly, DuckDB 1.5 reads every column of captures f)
                FROM query('FROM robostats_follow(' || per_crawl || ', ''' || t || ''')') r JOIN captures f USING (warc_filename, warc_record_offset))
          GROUP BY crawl, url_host_name);
CREATE OR REPLACE TEMP VIEW host_outcomes AS SELECT url_host_name, urls, outcome, start_url, final_url, final_status,
    final_google_class, hops FROM robostats_outcomes(false, 'captures');
-- Derived: host_outcomes per crawl (Nagel & Vaughan's unit in each crawl): a row per crawl_hosts row, robostats_outcomes' columns.
CREATE OR REPLACE TEMP MACRO robostats_crawl_outcomes(t) AS TABLE FROM robostats_outcomes(true, t);
CREATE OR REPLACE TEMP VIEW crawl_outcomes AS FROM robostats_stored_or('crawl_outcomes', 'robostats_crawl_outcomes');

-- Derived: what each host's robots.txt was in each crawl, the unit of the crawl-over-crawl queries
-- (docs/crawls.md). One row per (crawl, url_host_name) with a robots.txt capture (url_path
-- '/robots.txt', http or https, any port) in that crawl: the host's latest such capture starts (of
-- its URLs' chains in follow_redirects(true), the latest start's), and the capture reached decides.
-- Columns: crawl, url_host_name, url_host_registered_domain, captures (the host's robots.txt captures in the crawl), start_url,
-- hops, resolution, final_url, warc_filename, warc_record_offset (the deciding capture), and from it
-- fetch_status, google_class, google_current_class, robots_parsed, has_rules, payload_length,
-- content_digest, global_class, global_group_match, body_digest, ruleset_digest, template, platform;
-- outcome (figure 1's) and base_state (every crawler's state where the rules do not decide):
--   rules, no_rules, empty   2xx: a group has a non-empty rule; a non-empty   base_state NULL
--                            body without one; an empty body
--   4xx, too_many_hops       4xx other than 429; 3xx, a loop or > 5 hops       no_robots (Google crawls all)
--   redirect                 3xx, no capture of its target in the crawl,       redirect
--                            or no usable Location
--   5xx_429, failed          5xx or 429; no complete response                 unreachable (crawls nothing)
-- Captures with no crawl form a crawl. Read where stored (crawl_hosts/); robostats_crawl_hosts(t) computes.
CREATE OR REPLACE TEMP MACRO robostats_crawl_hosts(t) AS TABLE
    SELECT h.crawl, h.url_host_name, d.url_host_registered_domain, h.captures, h.s.start_url, h.s.hops, h.s.resolution,
           h.s.final_url, h.s.warc_filename, h.s.warc_record_offset,
           c.fetch_status, c.google_class, c.google_current_class, c.robots_parsed,
           c.has_rules, c.payload_length, c.content_digest, c.global_class, c.global_group_match,
           c.body_digest, c.ruleset_digest, c.template, c.platform,
           CASE
               WHEN c.google_class = 'conditional_allow' THEN
                   CASE WHEN c.has_rules THEN 'rules' WHEN c.payload_length > 0 THEN 'no_rules' ELSE 'empty' END
               WHEN c.google_class = 'redirect' THEN
                   CASE WHEN h.s.resolution IN ('loop', 'too_many_hops') THEN 'too_many_hops' ELSE 'redirect' END
               WHEN c.google_class = 'failed' THEN 'failed'
               WHEN c.google_current_class = 'full_allow' THEN '4xx'
               ELSE '5xx_429'
           END AS outcome,
           CASE WHEN outcome IN ('4xx', 'too_many_hops') THEN 'no_robots'
                WHEN outcome IN ('5xx_429', 'failed') THEN 'unreachable'
                WHEN outcome = 'redirect' THEN 'redirect' END AS base_state
    FROM (
        -- each host's chains in the crawl, one per robots.txt URL: the latest start's
        SELECT crawl, url_host_name, sum(captures)::BIGINT AS captures,
               max({start: start, start_url: start_url, hops: hops, resolution: resolution,
                    final_url: final_url, warc_filename: warc_filename,
                    warc_record_offset: warc_record_offset}) AS s
        FROM robostats_follow(true, t)
        GROUP BY crawl, url_host_name
    ) h
    JOIN captures c ON c.warc_filename = h.s.warc_filename AND c.warc_record_offset = h.s.warc_record_offset
    -- (the host's own registered domain: its start capture's)
    LEFT JOIN captures d ON d.warc_filename = h.s.start.warc_filename AND d.warc_record_offset = h.s.start.warc_record_offset;
CREATE OR REPLACE TEMP VIEW crawl_hosts AS FROM robostats_stored_or('crawl_hosts', 'robostats_crawl_hosts');

-- The state of a crawler on a host (host_states.state) from the host's base_state (crawl_hosts),
-- the rules class of the groups naming the crawler (named_verdicts.rules_class, NULL when none
-- does), whether the crawler ignores the * group, and the * group's match and class
-- (captures.global_group_match, global_class); and who decided (host_states.decided_by). Written
-- once, for host_states and host_state_counts.
CREATE OR REPLACE TEMP MACRO host_state(base_state, named_class, ignores_global_group, global_group_match, global_class) AS
    CASE
        WHEN base_state IS NOT NULL THEN base_state
        WHEN named_class IS NOT NULL THEN
            CASE named_class WHEN 'disallow_all' THEN 'full' WHEN 'allow_part' THEN 'partial' ELSE 'none' END
        WHEN ignores_global_group OR global_group_match IS DISTINCT FROM 'global' THEN 'none'
        ELSE CASE global_class WHEN 'disallow_all' THEN 'full' WHEN 'allow_part' THEN 'partial' ELSE 'none' END
    END;

CREATE OR REPLACE TEMP MACRO host_decided_by(base_state, named_class, ignores_global_group, global_group_match) AS
    CASE
        WHEN base_state IS NOT NULL THEN NULL
        WHEN named_class IS NOT NULL THEN 'named'
        WHEN ignores_global_group OR global_group_match IS DISTINCT FROM 'global' THEN 'no_group'
        ELSE 'wildcard'
    END;

-- Derived: each crawler's state on each host in each crawl (crawl_hosts x agents), the states of
-- the crawl-over-crawl queries. One row per (crawl, url_host_name, agent): crawl, url_host_name,
-- agent, agent_category, state, decided_by, google_class, content_digest, warc_filename,
-- warc_record_offset (the deciding capture, see crawl_hosts).
--   state       full (a 2xx whose rules disallow every path for the crawler:
--               rules_class disallow_all), partial (allow_part), none
--               (allow_all), or the host's base_state (no_robots,
--               unreachable, redirect)
--   decided_by  for a 2xx: named (a group names the crawler), wildcard (the
--               * group decided), no_group (no group applies: an empty or
--               rule-less file, or a crawler that ignores the * group);
--               NULL otherwise
CREATE OR REPLACE TEMP VIEW host_states AS
    WITH named AS (
        SELECT warc_filename, warc_record_offset,
               map(list(agent), list(rules_class)) AS classes
        FROM named_verdicts
        GROUP BY ALL
    ),
    expanded AS (
        SELECT h.crawl, h.url_host_name, a.token AS agent, a.category AS agent_category,
               h.base_state, h.google_class, h.content_digest, h.global_class, h.global_group_match,
               a.ignores_global_group, h.warc_filename, h.warc_record_offset,
               CASE WHEN n.classes IS NOT NULL THEN n.classes[a.token] END AS named_class
        FROM crawl_hosts h
        LEFT JOIN named n USING (warc_filename, warc_record_offset)
        CROSS JOIN agents a
    )
    SELECT crawl, url_host_name, agent, agent_category,
           host_state(base_state, named_class, ignores_global_group, global_group_match, global_class) AS state,
           host_decided_by(base_state, named_class, ignores_global_group, global_group_match) AS decided_by,
           google_class, content_digest, warc_filename, warc_record_offset
    FROM expanded;

-- Derived: host_states counted, without a row per host and crawler: one row per (crawl, agent,
-- agent_category, state, decided_by) with hosts. Every crawler is first counted as if no group
-- named it (its state then depends only on the host's base_state, the * group's class and whether
-- the crawler ignores the * group), over the hosts grouped by those; the pairs a group names
-- (named_verdicts rows of deciding 2xx captures) are then taken away from that count and added as
-- they are. The same rows as `SELECT crawl, agent, agent_category, state, decided_by, count(*) AS
-- hosts FROM host_states GROUP BY ALL` (a test checks it), in a fraction of the time.
CREATE OR REPLACE TEMP VIEW host_state_counts AS
    WITH hosts AS MATERIALIZED (
        SELECT crawl, base_state, global_class, global_group_match, warc_filename, warc_record_offset
        FROM crawl_hosts
    ),
    named AS (
        SELECT h.crawl, n.agent, n.rules_class, h.base_state, h.global_class, h.global_group_match
        FROM hosts h
        JOIN named_verdicts n USING (warc_filename, warc_record_offset)
        WHERE h.base_state IS NULL
    ),
    rows AS (
        -- every host, every crawler, as if no group named it
        SELECT g.crawl, a.token AS agent, a.category AS agent_category,
               g.base_state, g.global_class, g.global_group_match, a.ignores_global_group,
               NULL AS named_class, g.hosts
        FROM (SELECT crawl, base_state, global_class, global_group_match, count(*) AS hosts
              FROM hosts GROUP BY ALL) g
        CROSS JOIN agents a
        UNION ALL
        -- the named pairs: not as counted above ...
        SELECT n.crawl, n.agent, a.category, n.base_state, n.global_class, n.global_group_match,
               a.ignores_global_group, NULL, -1
        FROM named n JOIN agents a ON a.token = n.agent
        UNION ALL
        -- ... but as the group naming the crawler says
        SELECT n.crawl, n.agent, a.category, n.base_state, n.global_class, n.global_group_match,
               a.ignores_global_group, n.rules_class, 1
        FROM named n JOIN agents a ON a.token = n.agent
    )
    SELECT crawl, agent, agent_category, state, decided_by, sum(hosts)::BIGINT AS hosts
    FROM (
        SELECT crawl, agent, agent_category, hosts,
               host_state(base_state, named_class, ignores_global_group, global_group_match, global_class) AS state,
               host_decided_by(base_state, named_class, ignores_global_group, global_group_match) AS decided_by
        FROM rows
    )
    GROUP BY ALL
    HAVING sum(hosts) <> 0;

-- Derived: every input of a data set as its manifests last say (_manifest/*.jsonl, the input
-- lines), the table macro manifest_inputs([data_set]): data_set is the directory as a glob pattern,
-- robostats_dir() by default (a macro, not a view: read when queried, not when views.sql is, so
-- that a data set without manifests reads). The latest line of each input counts (latest ended_ms;
-- lines of before times were recorded: done if any run did it; then the last manifest name). One
-- row per input: manifest (run, or shard-00003-of-00100), input (its warc_filename), status (done,
-- failed), reason (why it failed, in words), records, responses, captures, errors (rows of the
-- errors table), bytes (compressed input read), ended_ms.
CREATE OR REPLACE TEMP MACRO manifest_inputs(data_set := robostats_dir()) AS TABLE
    SELECT * EXCLUDE (type, filename)
    FROM (
        SELECT regexp_extract(filename, '([^/\\]+)\.jsonl$', 1) AS manifest, *
        FROM read_json(data_set || '/_manifest/*.jsonl', format = 'newline_delimited', filename = true,
                       hive_partitioning = false, columns = {type: 'VARCHAR', input: 'VARCHAR', status: 'VARCHAR', reason: 'VARCHAR',
                                  records: 'BIGINT', responses: 'BIGINT', captures: 'BIGINT',
                                  errors: 'BIGINT', bytes: 'BIGINT', ended_ms: 'BIGINT'})
        WHERE type = 'input'
    )
    QUALIFY row_number() OVER (PARTITION BY input ORDER BY coalesce(ended_ms, 0) DESC,
                                                       status = 'done' DESC, manifest DESC) = 1;

-- The rank list of queries/strata.sql (robostats_ranks: its formats, matching and errors are
-- described there): its reader, rank_list() and the bands.
-- The rank list's file or glob as a SQL string literal.
CREATE OR REPLACE TEMP MACRO robostats_rank_path() AS
    '''' || replace(getvariable('robostats_ranks'), '''', '''''') || '''';
-- The reader of the list: DuckDB's, by the name's ending (CSV values as text: a rank that is
-- not a number is this file's to report, anywhere in the file).
-- (union_by_name only for a glob: DuckDB 1.5 then estimates a CSV at 42 rows and builds host_ranks'
-- join on its million entries)
CREATE OR REPLACE TEMP MACRO robostats_rank_union() AS
    CASE WHEN regexp_matches(getvariable('robostats_ranks'), '[*?\[{]') THEN 'true' ELSE 'false' END;
CREATE OR REPLACE TEMP MACRO robostats_rank_reader() AS
    CASE WHEN regexp_matches(lower(getvariable('robostats_ranks')), '\.parquet$')
         THEN 'read_parquet(' || robostats_rank_path() || ', union_by_name = ' || robostats_rank_union()
              || ', hive_partitioning = false)'
         ELSE 'read_csv(' || robostats_rank_path() || ', union_by_name = ' || robostats_rank_union()
              || ', hive_partitioning = false, all_varchar = true)' END;
-- The Host Index's score columns, and whether robostats_rank_column names one.
CREATE OR REPLACE TEMP MACRO robostats_rank_scores() AS ['hcrank', 'hcrank10', 'prank', 'prank10'];
CREATE OR REPLACE TEMP MACRO robostats_rank_scored() AS
    list_contains(robostats_rank_scores(), lower(getvariable('robostats_rank_column')));
-- The column named (in any case) as one of `names` (a SQL list of lower-case literals) as text,
-- or NULL: `*COLUMNS` binds to no column at all when the list has none, so each read adds
-- robostats_absent, which is NULL.
CREATE OR REPLACE TEMP MACRO robostats_rank_column(names) AS
    'coalesce(*COLUMNS(lambda c: lower(c) IN (' || names || ', ''robostats_absent'')))::VARCHAR';
-- robostats_rank_column as a SQL literal, lower case.
CREATE OR REPLACE TEMP MACRO robostats_rank_named() AS
    '''' || replace(lower(getvariable('robostats_rank_column')), '''', '''''') || '''';
-- The list's rows as read: rank (a rank column's value, as text), score (a score column's), host,
-- domain, surt; with `first`, the first row's column names alone (for messages).
CREATE OR REPLACE TEMP MACRO robostats_rank_rows(first) AS TABLE FROM query(CASE
    WHEN getvariable('robostats_ranks') IS NULL THEN
        'SELECT NULL::VARCHAR AS rank, NULL::VARCHAR AS score, NULL::VARCHAR AS host, NULL::VARCHAR AS domain, '
        || 'NULL::VARCHAR AS surt, NULL::VARCHAR[] AS columns WHERE false'
    WHEN first THEN 'SELECT NULL AS rank, NULL AS score, NULL AS host, NULL AS domain, NULL AS surt, '
        || 'json_keys(to_json(t)) AS columns FROM ' || robostats_rank_reader() || ' t LIMIT 1'
    ELSE 'SELECT ' || robostats_rank_column(CASE WHEN getvariable('robostats_rank_column') IS NULL
                THEN '''rank'', ''column0''' WHEN robostats_rank_scored() THEN '''robostats_absent'''
                ELSE robostats_rank_named() END) || ' AS rank, '
        || robostats_rank_column(CASE WHEN getvariable('robostats_rank_column') IS NULL THEN '''hcrank'''
                WHEN robostats_rank_scored() THEN robostats_rank_named() ELSE '''robostats_absent''' END)
        || ' AS score, ' || robostats_rank_column('''host''') || ' AS host, '
        || robostats_rank_column('''domain'', ''column1''') || ' AS domain, '
        || robostats_rank_column('''surt_host_name''') || ' AS surt, NULL::VARCHAR[] AS columns '
        || 'FROM (SELECT *, NULL AS robostats_absent FROM ' || robostats_rank_reader() || ')'
    END);
-- What is wrong with the list, in words (NULL: nothing).
CREATE OR REPLACE TEMP MACRO robostats_rank_problem(entries, columns, has_rank, has_name, bad_rank, no_rank,
                                                   no_name) AS
    CASE WHEN entries = 0 THEN 'holds no entries'
         WHEN NOT has_rank AND TRY_CAST(columns[1] AS DOUBLE) IS NOT NULL THEN 'has a rank that is not a '
             || 'number below its first line (' || array_to_string(columns, ',') || ', which DuckDB then '
             || 'reads as a header of column names)'
         WHEN NOT has_rank THEN 'has no rank column (' || coalesce(getvariable('robostats_rank_column'),
             'rank, or hcrank in a Host Index') || '); its columns: ' || array_to_string(columns, ', ')
             || CASE WHEN NOT regexp_matches(lower(getvariable('robostats_ranks')), '\.parquet$')
                     THEN ' (a CSV''s first line is read as column names when its first rank is not a number)'
                     ELSE '' END
         WHEN NOT has_name THEN 'has no host, domain or surt_host_name column; its columns: '
             || array_to_string(columns, ', ')
         WHEN bad_rank IS NOT NULL THEN bad_rank
         WHEN no_rank IS NOT NULL THEN 'has a row without a rank (its name: ' || no_rank || ')'
         WHEN no_name IS NOT NULL THEN 'has a row without a name (its rank: ' || no_name || ')' END;
-- Every entry of the list: entry (a host or registered domain, lower case), rank, and whether it
-- names a host (a list of hosts) or a registered domain (a name listed twice is two entries:
-- host_ranks takes the best). An unreadable list stops the query with robostats_rank_problem's
-- words.
CREATE OR REPLACE TEMP MACRO rank_list() AS TABLE
    -- read twice (checked, ranked): cheaper than keeping a million names
    WITH raw AS NOT MATERIALIZED (
        SELECT CASE WHEN suffix(name, '.') OR prefix(name, ' ') OR suffix(name, ' ')
                    THEN rtrim(trim(lower(name)), '.') ELSE lower(name) END AS entry,
               is_host, coalesce(rank, score) AS text, rank IS NULL AND score IS NOT NULL AS scored,
               CASE WHEN rank IS NULL THEN TRY_CAST(score AS DOUBLE)
                    ELSE TRY_CAST(TRY_CAST(rank AS DOUBLE) AS BIGINT) END AS value
        FROM (SELECT *, coalesce(host, CASE WHEN surt IS NOT NULL
                  THEN array_to_string(list_reverse(string_split(surt, ',')), '.') END, domain) AS name,
                     host IS NOT NULL OR surt IS NOT NULL AS is_host
              FROM robostats_rank_rows(false))
    ),
    -- the first row's column names, for the checks and their words
    head AS (SELECT any_value(columns) AS columns FROM robostats_rank_rows(true)),
    checked AS (
        SELECT robostats_rank_problem(
                   count(*), any_value(head.columns),
                   count(text) > 0 OR len(list_intersect(
                       list_transform(any_value(head.columns), lambda c: lower(c)),
                       coalesce([lower(getvariable('robostats_rank_column'))], ['rank', 'column0', 'hcrank']))) > 0,
                   count(entry) > 0,
                   -- (the words added to the least bad value, not to every row's)
                   coalesce('has a rank that is not a whole number from 1: ' || min(text)
                                FILTER (text IS NOT NULL AND NOT scored AND (value IS NULL OR value < 1
                                        OR TRY_CAST(text AS DOUBLE) <> value)),
                            'has a score that is not a number: ' || min(text)
                                FILTER (text IS NOT NULL AND scored AND value IS NULL)),
                   min(entry) FILTER (text IS NULL), min(text) FILTER (entry IS NULL OR entry = '')) AS problem
        FROM raw, head
    ),
    ranked AS (
        SELECT entry, value::BIGINT AS rank, is_host FROM raw WHERE NOT scored
        UNION ALL
        -- a Host Index: each host's highest score, ranked
        SELECT entry, rank() OVER (ORDER BY max(value) DESC), true FROM raw WHERE scored GROUP BY entry
    )
    SELECT entry, rank, is_host
    FROM ranked, checked
    WHERE getvariable('robostats_ranks') IS NOT NULL
      AND CASE WHEN problem IS NULL THEN true
               ELSE error('robostats_ranks: ' || getvariable('robostats_ranks') || ' ' || problem) END;

-- The bands' last ranks (robostats_rank_bands: a list, or its text, '[1000, 5000]' or
-- '1000,5000', as a command line gives it), checked: whole numbers from 1, increasing.
CREATE OR REPLACE TEMP MACRO robostats_rank_bands_given() AS
    list_transform(string_split(trim(getvariable('robostats_rank_bands')::VARCHAR, '[] '), ','),
                   lambda v: TRY_CAST(trim(v) AS BIGINT));
CREATE OR REPLACE TEMP MACRO rank_bounds() AS
    CASE WHEN getvariable('robostats_rank_bands') IS NULL THEN [1000, 10000, 100000, 1000000]::BIGINT[]
         WHEN len(list_filter(robostats_rank_bands_given(), lambda b: b IS NOT NULL AND b >= 1))
                  = len(robostats_rank_bands_given())
              AND len(list_distinct(robostats_rank_bands_given())) = len(robostats_rank_bands_given())
              AND list_sort(robostats_rank_bands_given()) = robostats_rank_bands_given()
         THEN robostats_rank_bands_given()
         ELSE error('robostats_rank_bands must be a list of increasing whole numbers from 1, the last rank '
                    || 'of each band (default [1000, 10000, 100000, 1000000]), not '
                    || getvariable('robostats_rank_bands')::VARCHAR) END;
-- A rank's band: its first and last rank (last NULL past the last bound); NULL unranked.
CREATE OR REPLACE TEMP MACRO rank_band_first(rank) AS
    CASE WHEN rank IS NOT NULL THEN coalesce(list_max(list_filter(rank_bounds(), lambda b: b < rank)), 0) + 1 END;
CREATE OR REPLACE TEMP MACRO rank_band_last(rank) AS list_min(list_filter(rank_bounds(), lambda b: b >= rank));
