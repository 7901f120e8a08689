-- Question: which HTTP status codes do robots.txt fetches get (the Web
-- Almanac's status table)?
-- Reads: captures.fetch_status, captures.http_error.
-- Result: fetch_status (null when the HTTP head could not be read),
-- http_error, captures, share (of all captures; sums to 1).
SELECT fetch_status, http_error, count(*) AS captures,
       count(*) / sum(count(*)) OVER () AS share
FROM captures
GROUP BY fetch_status, http_error
ORDER BY fetch_status NULLS LAST, http_error;
