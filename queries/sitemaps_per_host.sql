-- Question: how many sitemaps does each host's robots.txt list (the sitemap
-- statistics of the studies; Common Crawl's sitemaps_from_robotstxt)?
-- Per robots.txt host, over the latest capture of each of its URLs.
-- Reads: sitemaps.url, is_valid, same_host; captures (latest_captures).url_host_name.
-- Result: url_host_name, robots_captures (latest captures of the host's
-- URLs), sitemap_lines, distinct_sitemaps, valid_sitemaps (absolute http(s)
-- URLs), other_host_sitemaps (valid, on another host); hosts without a
-- sitemap line are listed with 0. Ordered by sitemap_lines, descending.
SELECT l.url_host_name,
       count(DISTINCT (l.warc_filename, l.warc_record_offset)) AS robots_captures,
       count(s.url) AS sitemap_lines,
       count(DISTINCT s.url) AS distinct_sitemaps,
       count_if(s.is_valid)::BIGINT AS valid_sitemaps,
       count_if(s.is_valid AND NOT s.same_host)::BIGINT AS other_host_sitemaps
FROM latest_captures l
LEFT JOIN sitemaps s USING (warc_filename, warc_record_offset)
GROUP BY l.url_host_name
ORDER BY sitemap_lines DESC, l.url_host_name;
