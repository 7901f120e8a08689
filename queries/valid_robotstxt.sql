-- Question: what share of captures, and of hosts, have a valid robots.txt?
-- "Valid" as in the studies (Common Crawl's robotstxt-experiments, Dinzinger &
-- Granitzer): HTTP status 200 and a text body that is not HTML, i.e.
--   * fetch_status = 200,
--   * the detected MIME type (WARC-Identified-Payload-Type, else the server's
--     Content-Type) starts with text/ and is not text/html, or is
--     message/rfc822 or plain/text (Common Crawl's MIME test),
--   * and the body does not start like an HTML page (looks_like_html).
-- Units: all captures; robots.txt URLs (url_path = '/robots.txt', by their
-- latest capture); hosts with such a URL (valid when the latest capture of
-- one of its robots.txt URLs is valid). Redirects are not followed here (a
-- redirect is not a valid robots.txt): host_outcomes.sql follows them.
-- Reads: captures.fetch_status, content_mime_detected, content_mime_type,
-- looks_like_html, url, url_path, url_host_name, fetch_time.
-- Result: one row per unit ('captures', 'urls', 'hosts'): unit, total,
-- valid, share.
WITH flagged AS (
    SELECT url, url_path, url_host_name, fetch_time, warc_filename, warc_record_offset,
           fetch_status = 200
           AND NOT looks_like_html
           AND coalesce(
                 (coalesce(content_mime_detected, content_mime_type) LIKE 'text/%'
                  AND coalesce(content_mime_detected, content_mime_type) <> 'text/html')
                 OR coalesce(content_mime_detected, content_mime_type) IN ('message/rfc822', 'plain/text'),
                 false) AS valid
    FROM captures
),
-- the latest capture of each robots.txt URL, as latest_captures chooses it
-- (one aggregation here: every capture of a URL has its path)
latest AS (
    SELECT v.url_host_name, v.valid
    FROM (
        SELECT arg_max({url_host_name: url_host_name, valid: valid},
                       {has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                        warc_filename: warc_filename, warc_record_offset: warc_record_offset}) AS v
        FROM flagged
        WHERE url_path = '/robots.txt'
        GROUP BY url
    )
),
hosts AS (
    SELECT url_host_name, bool_or(valid) AS valid FROM latest GROUP BY url_host_name
)
SELECT 'captures' AS unit, count(*) AS total, count_if(valid)::BIGINT AS valid,
       count_if(valid) / count(*) AS share FROM flagged
UNION ALL
SELECT 'urls', count(*), count_if(valid)::BIGINT, count_if(valid) / count(*) FROM latest
UNION ALL
SELECT 'hosts', count(*), count_if(valid)::BIGINT, count_if(valid) / count(*) FROM hosts
ORDER BY total DESC, unit;
