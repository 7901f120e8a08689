-- Question: how often do robots.txt files misspell a directive?
-- Two kinds:
--   * accepted by Google: misspellings Google's parser reads as the
--     directive (useragent / user agent, dissallow / disalow / ..., site-map):
--     the is_typo flag of user_agents, rules and sitemaps, with the key as
--     written;
--   * not accepted: other keys within edit distance 2 of a directive
--     (directives.typo_of); Google ignores those lines.
-- Reads: user_agents.is_typo/key, rules.is_typo/key/kind,
-- sitemaps.is_typo/key, directives.name, directives.typo_of (each with its
-- crawl).
-- Result: crawl, accepted_by_google, directive (what the key stands for),
-- spelling (the key, lower case), lines, captures. Ordered by crawl, then
-- accepted_by_google (true first), then lines, descending.
-- Method: captures are counted by grouping each spelling's lines by capture
-- first, then counting the groups.
WITH typo_lines AS (
    SELECT crawl, true AS accepted_by_google, 'user-agent' AS directive, lower(key) AS spelling,
           warc_filename, warc_record_offset
    FROM user_agents WHERE is_typo
    UNION ALL
    SELECT crawl, true, kind, lower(key), warc_filename, warc_record_offset FROM rules WHERE is_typo
    UNION ALL
    SELECT crawl, true, 'sitemap', lower(key), warc_filename, warc_record_offset
    FROM sitemaps WHERE is_typo
    UNION ALL
    SELECT crawl, false, typo_of, name, warc_filename, warc_record_offset
    FROM directives WHERE typo_of IS NOT NULL
),
per_file AS (
    SELECT crawl, accepted_by_google, directive, spelling, count(*) AS lines
    FROM typo_lines
    GROUP BY crawl, accepted_by_google, directive, spelling, warc_filename, warc_record_offset
)
SELECT crawl, accepted_by_google, directive, spelling,
       sum(lines)::BIGINT AS lines,
       count(*) AS captures
FROM per_file
GROUP BY crawl, accepted_by_google, directive, spelling
ORDER BY crawl NULLS FIRST, accepted_by_google DESC, lines DESC, directive, spelling;
