-- Question: which directives outside Google's set (user-agent, allow,
-- disallow, sitemap) do robots.txt files use, and how often: crawl-delay,
-- host, clean-param, content-signal, noindex, request-rate, ... (Common
-- Crawl's directive counts; Web Almanac's record_counts.by_type)?
-- Every key other crawlers are known to use (directives.known_elsewhere),
-- plus other keys that look like a directive name (letters, digits, - and _)
-- in files that do not look like HTML (an HTML page served as robots.txt
-- yields keys like '<a href="https' or 'function', which are left out).
-- Misspellings of Google's directives are in typos.sql, not here.
-- Per crawl: each share is of the crawl's captures.
-- Reads: directives.crawl, name, known_elsewhere, typo_of;
-- captures.crawl, looks_like_html, robots_parsed.
-- Result: crawl, name (the key, lower case), known_elsewhere (true when other
-- crawlers use it), lines, captures, share_of_captures (of the crawl's
-- captures whose body was parsed as robots.txt). Ordered by crawl, then
-- captures, descending.
-- Method: every directives row belongs to a capture, so only the keys that
-- need the HTML test are looked up, against the (fewer) HTML captures; captures
-- are counted by grouping on the capture first.
WITH d AS (
    SELECT crawl, warc_filename, warc_record_offset, name, known_elsewhere IS NOT NULL AS known_elsewhere
    FROM directives
    WHERE typo_of IS NULL
      AND (known_elsewhere IS NOT NULL OR regexp_full_match(name, '[a-z][a-z0-9_-]*'))
),
html AS (
    SELECT warc_filename, warc_record_offset FROM captures WHERE looks_like_html IS NOT false
),
kept AS (
    SELECT * FROM d WHERE known_elsewhere
    UNION ALL
    SELECT * FROM d ANTI JOIN html USING (warc_filename, warc_record_offset)
    WHERE NOT d.known_elsewhere
),
per_file AS (
    SELECT crawl, name, known_elsewhere, count(*) AS lines
    FROM kept
    GROUP BY crawl, name, known_elsewhere, warc_filename, warc_record_offset
)
SELECT f.crawl,
       name,
       known_elsewhere,
       sum(lines)::BIGINT AS lines,
       count(*) AS captures,
       count(*) / any_value(p.parsed) AS share_of_captures
FROM per_file f
JOIN (SELECT crawl, count_if(robots_parsed) AS parsed FROM captures GROUP BY crawl) p
    ON p.crawl IS NOT DISTINCT FROM f.crawl
GROUP BY f.crawl, name, known_elsewhere
ORDER BY f.crawl NULLS FIRST, captures DESC, lines DESC, name;
