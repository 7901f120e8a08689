-- Question: what share of hosts ends in each outcome (Nagel & Vaughan's
-- poster figures: with rules, allow-all by HTTP status, 403, 5xx/429,
-- redirect unresolved, no rules, MIME not a robots.txt)?
-- The per-host outcomes of the view host_outcomes (views.sql; see
-- host_outcomes.sql), counted.
-- Reads: host_outcomes.outcome (from captures: see host_outcomes.sql).
-- Result: outcome, hosts, share (of all hosts with a robots.txt capture;
-- sums to 1). Every outcome is listed, absent ones with 0.
-- host_outcomes is computed once (a materialized CTE), not once per use.
WITH h AS MATERIALIZED (SELECT url_host_name, outcome FROM host_outcomes)
SELECT o.outcome, count(h.url_host_name) AS hosts,
       count(h.url_host_name) / (SELECT count(*) FROM h) AS share
FROM (VALUES ('robots_txt_with_rules', 1), ('robots_txt_no_rules', 2), ('not_robots_txt', 3),
             ('allow_all', 4), ('forbidden', 5), ('defer_visits', 6), ('redirect_unresolved', 7))
     AS o(outcome, ord)
LEFT JOIN h USING (outcome)
GROUP BY o.outcome, o.ord
ORDER BY o.ord;
