-- Question: what is the latest robots.txt capture of each host, over all its
-- robots.txt URLs (http/https, ports), and how many captures and URLs did the
-- host have?
-- Only captures of a robots.txt URL (url_path = '/robots.txt') count: a
-- redirect's target page is not the host's robots.txt.
-- The latest is the capture ordered first by fetch_time DESC NULLS LAST,
-- warc_filename DESC, warc_record_offset DESC: the largest struct
-- {has fetch_time, fetch_time, file, offset, ...} of the host (one
-- aggregation, no window: the key fields come first, in that order).
-- Reads: captures.url_host_name, url_path, url, fetch_time, fetch_status,
-- google_class, cc_class, warc_filename, warc_record_offset.
-- Result: url_host_name, captures, urls, url (of the latest capture),
-- fetch_time, fetch_status, google_class, cc_class, warc_filename,
-- warc_record_offset. Ordered by url_host_name.
SELECT url_host_name, captures, urls, l.url, l.fetch_time, l.fetch_status, l.google_class,
       l.cc_class, l.warc_filename, l.warc_record_offset
FROM (
    SELECT url_host_name, count(*) AS captures, count(DISTINCT url) AS urls,
           max({has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                warc_filename: warc_filename, warc_record_offset: warc_record_offset,
                url: url, fetch_status: fetch_status, google_class: google_class,
                cc_class: cc_class}) AS l
    FROM captures
    WHERE url_path = '/robots.txt'
    GROUP BY url_host_name
)
ORDER BY url_host_name;
