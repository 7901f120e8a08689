-- Question: how many robots.txt files state AI-use preferences, with
-- Cloudflare's Content-Signal or the IETF AIPREF drafts' Content-Usage, and
-- how well are those lines written?
-- A line is counted once whatever its number of members (preference_statements
-- has one row per member); captures are those whose body was parsed as
-- robots.txt, refetches included. The row 'any' counts the lines of both directives and the
-- captures with at least one of them (captures with both: the two directives'
-- captures less those of 'any'). A misspelt key (Content-Signals) is not a
-- preference line: nonstandard_directives.sql and typos.sql list such keys.
-- Per crawl: each share is of the crawl's captures.
-- Reads: preference_statements.crawl, directive, line, status, google_group,
-- in_cloudflare_block; captures.crawl, robots_parsed.
-- Result: per crawl, one row per directive (content-signal, content-usage),
-- then 'any': crawl, directive, lines, captures, share_of_captures (of the
-- crawl's captures whose body was parsed as robots.txt), unparseable_lines (not an RFC 9651 dictionary: every
-- preference of the line is unknown), empty_lines (no member),
-- lines_before_groups (before the first user-agent line: a Content-Usage rule
-- there applies to no crawler, a Content-Signal line is read for the whole
-- file), cloudflare_block_lines (inside a Cloudflare-managed block).
WITH lines AS (
    SELECT DISTINCT crawl, warc_filename, warc_record_offset, line, directive, status,
           google_group IS NULL AS before_groups, in_cloudflare_block
    FROM preference_statements
)
SELECT l.crawl, coalesce(directive, 'any') AS directive,
       count(*) AS lines,
       count(DISTINCT (warc_filename, warc_record_offset)) AS captures,
       count(DISTINCT (warc_filename, warc_record_offset)) / any_value(p.parsed) AS share_of_captures,
       count_if(status = 'unparseable')::BIGINT AS unparseable_lines,
       count_if(status = 'empty')::BIGINT AS empty_lines,
       count_if(before_groups)::BIGINT AS lines_before_groups,
       count_if(in_cloudflare_block)::BIGINT AS cloudflare_block_lines
FROM lines l
JOIN (SELECT crawl, count_if(robots_parsed) AS parsed FROM captures GROUP BY crawl) p
    ON p.crawl IS NOT DISTINCT FROM l.crawl
GROUP BY GROUPING SETS ((l.crawl, directive), (l.crawl))
ORDER BY l.crawl NULLS FIRST, grouping(directive), directive;
