-- Question: what is the latest capture of each robots.txt URL (Common Crawl's
-- analyses keep only it), and how many captures did the URL have?
-- http:// and https:// (and ports) are separate URLs, as for Common Crawl.
-- The latest is chosen as in the latest_captures view (fetch_time DESC NULLS
-- LAST, warc_filename DESC, warc_record_offset DESC), here in the same
-- aggregation that counts the URL's captures: the largest struct
-- {has fetch_time, fetch_time, file, offset, ...} of the URL.
-- Reads: captures.url, url_host_name, fetch_time, fetch_status, google_class,
-- cc_class, fetch_redirect, warc_filename, warc_record_offset.
-- Result: url, url_host_name, captures (of this URL), fetch_time,
-- fetch_status, google_class, cc_class, fetch_redirect, warc_filename,
-- warc_record_offset (of the latest capture). Ordered by url.
SELECT url, l.url_host_name, captures, l.fetch_time, l.fetch_status, l.google_class,
       l.cc_class, l.fetch_redirect, l.warc_filename, l.warc_record_offset
FROM (
    SELECT url, count(*) AS captures,
           max({has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                warc_filename: warc_filename, warc_record_offset: warc_record_offset,
                url_host_name: url_host_name, fetch_status: fetch_status,
                google_class: google_class, cc_class: cc_class,
                fetch_redirect: fetch_redirect}) AS l
    FROM captures
    GROUP BY url
)
ORDER BY url;
