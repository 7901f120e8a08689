-- Question: how are the robots.txt fetches distributed over outcome classes?
-- Three classifications side by side: google_class (RFC 9309 / Google's
-- specification), google_current_class (Google's current documentation: 429
-- is a server error) and cc_class (Common Crawl's fetch_status_classify:
-- success, forbidden, defer_visits, redirect, notfound, unauthorized, other).
-- Reads: captures.google_class, captures.google_current_class, captures.cc_class.
-- Result: classification, class, captures, share (of all captures; the shares
-- of one classification sum to 1), ordered by classification, then captures.
SELECT classification, class, count(*) AS captures,
       count(*) / sum(count(*)) OVER (PARTITION BY classification) AS share
FROM (
    SELECT 'google_class' AS classification, google_class AS class FROM captures
    UNION ALL
    SELECT 'google_current_class', google_current_class FROM captures
    UNION ALL
    SELECT 'cc_class', cc_class FROM captures
)
GROUP BY classification, class
ORDER BY classification, captures DESC, class;
