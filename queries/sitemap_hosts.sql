-- Question: which hosts serve the sitemaps that robots.txt files list most
-- (sitemap spam), and how many robots.txt hosts point at each (shared
-- sitemap hosts)?
-- Reads: sitemaps.crawl, url_host_name, url, is_valid, same_host;
-- captures.url_host_name.
-- Result (valid sitemap URLs only, per crawl): crawl, sitemap_host, sitemap_lines,
-- distinct_sitemaps, robots_hosts (distinct hosts whose robots.txt lists it),
-- other_host_lines (lines from a robots.txt on another host). Ordered by
-- crawl, then sitemap_lines (refetches counted, as every list of figure 7 of the
-- report counts captures), then robots_hosts, descending.
-- Method: every sitemaps row belongs to a capture; the lines are counted
-- per capture and sitemap host before the join with captures, and
-- distinct_sitemaps is counted on sitemaps alone.
WITH valid AS (
    SELECT crawl, warc_filename, warc_record_offset, url_host_name, url, same_host
    FROM sitemaps
    WHERE is_valid
),
per_capture AS (
    SELECT crawl, warc_filename, warc_record_offset, url_host_name AS sitemap_host,
           count(*) AS lines, count_if(NOT same_host) AS other_host_lines
    FROM valid
    GROUP BY crawl, warc_filename, warc_record_offset, url_host_name
),
hosts AS (
    SELECT p.crawl, p.sitemap_host, sum(p.lines) AS lines,
           count(DISTINCT c.url_host_name) AS robots_hosts,
           sum(p.other_host_lines) AS other_host_lines
    FROM per_capture p
    JOIN captures c USING (warc_filename, warc_record_offset)
    GROUP BY p.crawl, p.sitemap_host
),
urls AS (
    SELECT crawl, url_host_name AS sitemap_host, count(DISTINCT url) AS distinct_sitemaps
    FROM valid
    GROUP BY crawl, url_host_name
)
SELECT h.crawl, h.sitemap_host,
       h.lines::BIGINT AS sitemap_lines,
       u.distinct_sitemaps,
       h.robots_hosts,
       h.other_host_lines::BIGINT AS other_host_lines
FROM hosts h
JOIN urls u ON h.crawl IS NOT DISTINCT FROM u.crawl AND h.sitemap_host IS NOT DISTINCT FROM u.sitemap_host
ORDER BY h.crawl NULLS FIRST, sitemap_lines DESC, robots_hosts DESC, sitemap_host;
