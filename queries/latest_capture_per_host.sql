-- Question: what is the latest robots.txt capture of each host, over all its
-- robots.txt URLs (http/https, ports), and how many captures and URLs did the
-- host have?
-- Only captures of a robots.txt URL (url_path = '/robots.txt') count: a
-- redirect's target page is not the host's robots.txt.
-- Reads: captures.url_host_name, url_path, url, fetch_time, fetch_status,
-- google_class, cc_class, warc_filename, warc_record_offset.
-- Result: url_host_name, captures, urls, url (of the latest capture),
-- fetch_time, fetch_status, google_class, cc_class, warc_filename,
-- warc_record_offset. Ordered by url_host_name.
SELECT url_host_name,
       count(*) OVER (PARTITION BY url_host_name) AS captures,
       count(DISTINCT url) OVER (PARTITION BY url_host_name) AS urls,
       url, fetch_time, fetch_status, google_class, cc_class, warc_filename, warc_record_offset
FROM captures
WHERE url_path = '/robots.txt'
QUALIFY row_number() OVER (
    PARTITION BY url_host_name
    ORDER BY fetch_time DESC NULLS LAST, warc_filename DESC, warc_record_offset DESC) = 1
ORDER BY url_host_name;
