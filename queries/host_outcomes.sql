-- Question: what does each host's robots.txt say in the end, after
-- redirects: with rules, no rules, not a robots.txt (HTML, non-text MIME),
-- allow-all by HTTP status, forbidden, defer visits, redirect not resolved
-- (Nagel & Vaughan's per-site classes)?
-- The outcome per host is computed by the view host_outcomes (views.sql):
-- every robots.txt URL of the host followed up to 5 redirect hops, the best
-- by Common Crawl's precedence success > allow_all > forbidden >
-- defer_visits > redirect_unresolved.
-- Reads: captures.url, url_path, url_host_name, fetch_status, fetch_redirect,
-- google_class, cc_class, fetch_time, looks_like_html, content_mime_detected,
-- content_mime_type, has_rules (through host_outcomes).
-- Result: url_host_name, urls, outcome, start_url, final_url, final_status,
-- final_google_class, hops. Ordered by url_host_name.
SELECT url_host_name, urls, outcome, start_url, final_url, final_status,
       final_google_class, hops
FROM host_outcomes
ORDER BY url_host_name;
