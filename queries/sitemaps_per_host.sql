-- Question: how many sitemaps does each host's robots.txt list (the sitemap
-- statistics of the studies; Common Crawl's sitemaps_from_robotstxt)?
-- Per robots.txt host, over the latest capture of each of its URLs.
-- Reads: sitemaps.url, is_valid, same_host; captures (latest_captures).url_host_name.
-- Result: url_host_name, robots_captures (latest captures of the host's
-- URLs), sitemap_lines, distinct_sitemaps, valid_sitemaps (absolute http(s)
-- URLs), other_host_sitemaps (valid, on another host); hosts without a
-- sitemap line are listed with 0 lines and sitemaps (valid_sitemaps and
-- other_host_sitemaps NULL). Ordered by sitemap_lines, descending.
-- Method: the latest captures are counted per host (one row per capture);
-- their sitemap lines are grouped by host and URL, then by host, and joined
-- to the hosts.
WITH l AS MATERIALIZED (
    SELECT url_host_name, warc_filename, warc_record_offset FROM latest_captures
),
hosts AS (
    SELECT url_host_name, count(*) AS robots_captures FROM l GROUP BY url_host_name
),
per_url AS (
    SELECT l.url_host_name, s.url, count(s.url) AS lines,
           count_if(s.is_valid) AS valid, count_if(s.is_valid AND NOT s.same_host) AS other_host
    FROM l JOIN sitemaps s USING (warc_filename, warc_record_offset)
    GROUP BY l.url_host_name, s.url
),
per_host AS (
    SELECT url_host_name, sum(lines) AS sitemap_lines, count(url) AS distinct_sitemaps,
           sum(valid) AS valid_sitemaps, sum(other_host) AS other_host_sitemaps
    FROM per_url GROUP BY url_host_name
)
SELECT h.url_host_name,
       h.robots_captures,
       coalesce(p.sitemap_lines, 0)::BIGINT AS sitemap_lines,
       coalesce(p.distinct_sitemaps, 0) AS distinct_sitemaps,
       p.valid_sitemaps::BIGINT AS valid_sitemaps,
       p.other_host_sitemaps::BIGINT AS other_host_sitemaps
FROM hosts h
LEFT JOIN per_host p ON h.url_host_name IS NOT DISTINCT FROM p.url_host_name
ORDER BY sitemap_lines DESC, h.url_host_name;
