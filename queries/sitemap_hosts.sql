-- Question: which hosts serve the sitemaps that robots.txt files list, and
-- how many robots.txt hosts point at each (shared sitemap hosts, sitemap
-- spam)?
-- Reads: sitemaps.url_host_name, url, is_valid, same_host;
-- captures.url_host_name.
-- Result (valid sitemap URLs only): sitemap_host, sitemap_lines,
-- distinct_sitemaps, robots_hosts (distinct hosts whose robots.txt lists it),
-- other_host_lines (lines from a robots.txt on another host). Ordered by
-- robots_hosts, then sitemap_lines, descending.
SELECT s.url_host_name AS sitemap_host,
       count(*) AS sitemap_lines,
       count(DISTINCT s.url) AS distinct_sitemaps,
       count(DISTINCT c.url_host_name) AS robots_hosts,
       count_if(NOT s.same_host)::BIGINT AS other_host_lines
FROM sitemaps s
JOIN captures c USING (warc_filename, warc_record_offset)
WHERE s.is_valid
GROUP BY s.url_host_name
ORDER BY robots_hosts DESC, sitemap_lines DESC, sitemap_host;
