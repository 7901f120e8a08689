-- Question: what does the data set hold, per crawl?
-- Reads: captures.crawl, warc_filename, url_host_name, url_path,
-- fetch_time.
-- Result: crawl, files (WARC files with a capture), captures,
-- robots_txt_captures (of those, of a /robots.txt URL: a crawl without one
-- holds only web pages, such as those of Common Crawl's main crawl that a
-- WARC file of pages brings), robots_hosts (hosts with a robots.txt
-- capture: the hosts of crawl_hosts), first_fetch, last_fetch (fetch_time,
-- UTC, as text). Ordered by crawl.
SELECT crawl, count(DISTINCT warc_filename) AS files, count(*) AS captures,
       count(*) FILTER (url_path = '/robots.txt') AS robots_txt_captures,
       count(DISTINCT url_host_name) FILTER (url_path = '/robots.txt') AS robots_hosts,
       strftime(min(fetch_time) AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') AS first_fetch,
       strftime(max(fetch_time) AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') AS last_fetch
FROM captures
GROUP BY crawl
ORDER BY crawl NULLS FIRST;
