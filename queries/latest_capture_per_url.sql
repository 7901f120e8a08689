-- Question: what is the latest capture of each robots.txt URL (Common Crawl's
-- analyses keep only it), and how many captures did the URL have?
-- http:// and https:// (and ports) are separate URLs, as for Common Crawl.
-- Reads: captures.url, url_host_name, fetch_time, fetch_status, google_class,
-- cc_class, fetch_redirect, warc_filename, warc_record_offset (through the
-- latest_captures view).
-- Result: url, url_host_name, captures (of this URL), fetch_time,
-- fetch_status, google_class, cc_class, fetch_redirect, warc_filename,
-- warc_record_offset (of the latest capture). Ordered by url.
SELECT l.url, l.url_host_name, n.captures, l.fetch_time, l.fetch_status,
       l.google_class, l.cc_class, l.fetch_redirect, l.warc_filename, l.warc_record_offset
FROM latest_captures l
JOIN (SELECT url, count(*) AS captures FROM captures GROUP BY url) n USING (url)
ORDER BY l.url;
