-- Question: where do robots.txt redirects lead, resolved across captures up
-- to 5 hops (Common Crawl's robotstxt-experiments: redirects_to_follow)?
-- The chains are built by the view robots_txt_chains (views.sql): each
-- 3xx capture's fetch_redirect is joined to the latest capture of the
-- target URL, one join per hop (the table macro follow_redirects).
-- Reads: captures.url, url_path, url_host_name, fetch_status, fetch_redirect,
-- google_class, cc_class, fetch_time (through robots_txt_chains).
-- Result: one row per robots.txt URL that redirects (hops > 0 or a 3xx
-- start): start_url, url_host_name, hops, final_url, final_status,
-- final_google_class, final_cc_class, resolution (resolved,
-- target_not_captured, missing_location, loop, too_many_hops), chain.
-- Ordered by start_url.
SELECT start_url, url_host_name, hops, final_url, final_status,
       final_google_class, final_cc_class, resolution, chain
FROM robots_txt_chains
WHERE resolution <> 'direct'
ORDER BY start_url;
