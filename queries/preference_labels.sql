-- Question: which labels and values do the Content-Signal and Content-Usage
-- lines use (search=yes, ai-train=no, train-ai=n, the labels of older AIPREF
-- drafts, values written in the other directive's spelling, ...), and how
-- often?
-- One row per directive, label, value as written and its reading
-- (preference): Content-Signal reads the tokens yes and no, Content-Usage y
-- and n; any other value (another token such as n for Content-Signal or no
-- for Content-Usage, a string, a bare label) is unknown, and so is
-- Cloudflare's use=immediate|reference|full (a level, not a yes or no: its
-- value says which). Lines whose dictionary is empty or does not parse have
-- a null label (status empty or unparseable). A label given twice on one
-- line counts once per member; overridden counts the members a later one of
-- the same label replaces (the last one wins).
-- Per crawl: each share is of the crawl's captures.
-- Reads: preference_statements.crawl, directive, label, value, preference,
-- status, is_overridden, line.
-- Result: crawl, directive, label, value, preference (y, n, unknown), status (ok,
-- empty, unparseable), members, lines, captures, overridden,
-- share_of_directive_captures (of the captures with a line of that directive).
-- Ordered by crawl, directive, then captures and lines, descending.
WITH directive_files AS (
    SELECT crawl, directive, count(DISTINCT (warc_filename, warc_record_offset)) AS n
    FROM preference_statements
    GROUP BY crawl, directive
)
SELECT s.crawl, s.directive, s.label, s.value, s.preference, s.status,
       count(*) AS members,
       count(DISTINCT (s.warc_filename, s.warc_record_offset, s.line)) AS lines,
       count(DISTINCT (s.warc_filename, s.warc_record_offset)) AS captures,
       count_if(s.is_overridden)::BIGINT AS overridden,
       count(DISTINCT (s.warc_filename, s.warc_record_offset)) / any_value(d.n) AS share_of_directive_captures
FROM preference_statements s
JOIN directive_files d ON d.crawl IS NOT DISTINCT FROM s.crawl AND d.directive = s.directive
GROUP BY s.crawl, s.directive, s.label, s.value, s.preference, s.status
ORDER BY s.crawl NULLS FIRST, s.directive, captures DESC, lines DESC, s.label NULLS LAST, s.value NULLS LAST, s.preference;
