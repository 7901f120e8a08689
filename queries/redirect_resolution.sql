-- Question: how many robots.txt URLs redirect, how many hops do their chains
-- take, and how do they end (Common Crawl's top-2M sample: captures per hop
-- count)?
-- Reads: robots_txt_chains (views.sql; from captures.url, url_path,
-- fetch_status, fetch_redirect, google_class, fetch_time).
-- Result: resolution (direct, resolved, target_not_captured,
-- missing_location, loop, too_many_hops), hops, urls, share (of all
-- robots.txt URLs; sums to 1). Ordered by resolution, hops.
SELECT resolution, hops, count(*) AS urls,
       count(*) / sum(count(*)) OVER () AS share
FROM robots_txt_chains
GROUP BY resolution, hops
ORDER BY resolution, hops;
