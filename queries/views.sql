-- Views over one robostats output directory (the --out of `robostats ingest`).
--
-- Every other file in queries/ reads these views, so run this file first, after
-- choosing the directory:
--
--   SET VARIABLE robostats_out = 'path/to/out';   -- default: 'out'
--   .read queries/views.sql                        -- DuckDB CLI
--
-- The directory is read each time a view is queried: SET VARIABLE again to
-- point the same views at another output directory.
--
-- Tables (columns: `robostats schema`): captures, user_agents, rules, sitemaps,
-- directives, agent_verdicts, errors. Each view reads OUT/<table>/*.parquet
-- (every table directory holds at least a schema-only _empty.parquet, so an
-- empty table reads as empty).

CREATE OR REPLACE VIEW captures AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/captures/*.parquet');

CREATE OR REPLACE VIEW agent_verdicts AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/agent_verdicts/*.parquet');

CREATE OR REPLACE VIEW user_agents AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/user_agents/*.parquet');

CREATE OR REPLACE VIEW rules AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/rules/*.parquet');

CREATE OR REPLACE VIEW sitemaps AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/sitemaps/*.parquet');

CREATE OR REPLACE VIEW directives AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/directives/*.parquet');

CREATE OR REPLACE VIEW errors AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/errors/*.parquet');

-- Derived: the latest capture of each URL (Common Crawl's own analyses keep
-- only it: ROW_NUMBER() OVER (PARTITION BY url ORDER BY fetch_time DESC)).
-- Ties on fetch_time are broken by file and offset, so the choice is stable.
CREATE OR REPLACE VIEW latest_captures AS
    SELECT * EXCLUDE (rn) FROM (
        SELECT *, row_number() OVER (
            PARTITION BY url
            ORDER BY fetch_time DESC NULLS LAST, warc_filename DESC, warc_record_offset DESC
        ) AS rn
        FROM captures
    )
    WHERE rn = 1;

-- Derived: the redirect chain of every robots.txt URL, followed across
-- captures up to 5 hops (RFC 9309; Common Crawl follows 5 since
-- CC-MAIN-2023-50). A 3xx capture's fetch_redirect is looked up as the URL of
-- another capture, always the latest capture of that URL; hops are separate
-- records, often in other files, so ingest all files of a crawl together to
-- resolve them. Starts: the latest capture of every robots.txt URL
-- (url_path = '/robots.txt'), redirected or not. One row per start:
--   start_url, url_host_name (of the start), hops (redirects followed),
--   final_url, final_status, final_google_class, final_cc_class, resolution,
--   chain (the URLs from start to final), and the final capture's key
--   (warc_filename, warc_record_offset).
-- resolution:
--   direct               the start is not a redirect
--   resolved             a redirect chain ending on a non-3xx capture
--   target_not_captured  the last redirect's target has no capture
--   missing_location     the last 3xx has no (usable) Location
--   loop                 the last redirect's target is already in the chain
--   too_many_hops        still a redirect after 5 hops (Google and Common
--                        Crawl then allow everything)
CREATE OR REPLACE VIEW robots_txt_chains AS
    WITH RECURSIVE chain(start_url, url_host_name, hop, url, fetch_status, fetch_redirect,
                         google_class, cc_class, urls, warc_filename, warc_record_offset) AS (
        SELECT url, url_host_name, 0, url, fetch_status, fetch_redirect, google_class, cc_class,
               [url], warc_filename, warc_record_offset
        FROM latest_captures
        WHERE url_path = '/robots.txt'
        UNION ALL
        SELECT c.start_url, c.url_host_name, c.hop + 1, t.url, t.fetch_status, t.fetch_redirect,
               t.google_class, t.cc_class, list_append(c.urls, t.url),
               t.warc_filename, t.warc_record_offset
        FROM chain c
        JOIN latest_captures t ON t.url = c.fetch_redirect
        WHERE c.google_class = 'redirect'
          AND c.hop < 5
          AND NOT list_contains(c.urls, t.url)
    ),
    last_hop AS (
        SELECT * FROM chain
        QUALIFY row_number() OVER (PARTITION BY start_url ORDER BY hop DESC) = 1
    )
    SELECT start_url, url_host_name, hop AS hops,
           url AS final_url, fetch_status AS final_status,
           google_class AS final_google_class, cc_class AS final_cc_class,
           CASE
               WHEN google_class <> 'redirect' AND hop = 0 THEN 'direct'
               WHEN google_class <> 'redirect' THEN 'resolved'
               WHEN fetch_redirect IS NULL THEN 'missing_location'
               WHEN list_contains(urls, fetch_redirect) THEN 'loop'
               WHEN hop >= 5 THEN 'too_many_hops'
               ELSE 'target_not_captured'
           END AS resolution,
           urls AS chain,
           warc_filename, warc_record_offset
    FROM last_hop;

-- Derived: each host's outcome after redirects (Nagel & Vaughan's per-site
-- classes). Every robots.txt URL of the host (http/https, ports) is followed
-- as in robots_txt_chains; the host's outcome is its best URL's, by Common
-- Crawl's precedence
--   success > allow_all (notfound, unauthorized, other; or too_many_hops)
--   > forbidden > defer_visits > redirect_unresolved,
-- and a success is split like the studies: robots_txt_with_rules (a group has
-- a non-empty rule), robots_txt_no_rules, not_robots_txt (HTML body or a MIME
-- type that is not text: the test of valid_robotstxt.sql). Ties: the latest
-- final capture, then the start URL. One row per host: url_host_name, urls
-- (robots.txt URLs of the host), outcome, start_url, final_url, final_status,
-- final_google_class, hops.
CREATE OR REPLACE VIEW host_outcomes AS
    WITH classified AS (
        SELECT h.url_host_name, h.start_url, h.hops, h.final_url, h.final_status,
               h.final_google_class, f.fetch_time,
               CASE
                   WHEN h.final_cc_class = 'success' THEN
                       CASE
                           WHEN f.looks_like_html
                                OR NOT coalesce(
                                    (coalesce(f.content_mime_detected, f.content_mime_type) LIKE 'text/%'
                                     AND coalesce(f.content_mime_detected, f.content_mime_type) <> 'text/html')
                                    OR coalesce(f.content_mime_detected, f.content_mime_type) IN ('message/rfc822', 'plain/text'),
                                    false)
                               THEN 'not_robots_txt'
                           WHEN f.has_rules THEN 'robots_txt_with_rules'
                           ELSE 'robots_txt_no_rules'
                       END
                   WHEN h.final_cc_class IN ('notfound', 'unauthorized', 'other') THEN 'allow_all'
                   WHEN h.resolution = 'too_many_hops' THEN 'allow_all'
                   WHEN h.final_cc_class = 'forbidden' THEN 'forbidden'
                   WHEN h.final_cc_class = 'defer_visits' THEN 'defer_visits'
                   ELSE 'redirect_unresolved'
               END AS outcome
        FROM robots_txt_chains h
        JOIN captures f USING (warc_filename, warc_record_offset)
    )
    SELECT url_host_name,
           count(*) OVER (PARTITION BY url_host_name) AS urls,
           outcome, start_url, final_url, final_status, final_google_class, hops
    FROM classified
    QUALIFY row_number() OVER (
        PARTITION BY url_host_name
        ORDER BY CASE WHEN outcome IN ('robots_txt_with_rules', 'robots_txt_no_rules', 'not_robots_txt') THEN 1
                      WHEN outcome = 'allow_all' THEN 2
                      WHEN outcome = 'forbidden' THEN 3
                      WHEN outcome = 'defer_visits' THEN 4
                      ELSE 5 END,
                 fetch_time DESC NULLS LAST, start_url) = 1;
