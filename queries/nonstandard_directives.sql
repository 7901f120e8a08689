-- Question: which directives outside Google's set (user-agent, allow,
-- disallow, sitemap) do robots.txt files use, and how often: crawl-delay,
-- host, clean-param, content-signal, noindex, request-rate, ... (Common
-- Crawl's directive counts; Web Almanac's record_counts.by_type)?
-- Every key other crawlers are known to use (directives.known_elsewhere),
-- plus other keys that look like a directive name (letters, digits, - and _)
-- in files that do not look like HTML (an HTML page served as robots.txt
-- yields keys like '<a href="https' or 'function', which are left out).
-- Misspellings of Google's directives are in typos.sql, not here.
-- Reads: directives.name, known_elsewhere, typo_of;
-- captures.looks_like_html, robots_parsed.
-- Result: name (the key, lower case), known_elsewhere (true when other
-- crawlers use it), lines, files, share_of_files (of captures whose body was
-- parsed as robots.txt). Ordered by files, descending.
SELECT d.name,
       d.known_elsewhere IS NOT NULL AS known_elsewhere,
       count(*) AS lines,
       count(DISTINCT (d.warc_filename, d.warc_record_offset)) AS files,
       count(DISTINCT (d.warc_filename, d.warc_record_offset))
           / (SELECT count_if(robots_parsed) FROM captures) AS share_of_files
FROM directives d
JOIN captures c USING (warc_filename, warc_record_offset)
WHERE d.typo_of IS NULL
  AND (d.known_elsewhere IS NOT NULL
       OR (NOT c.looks_like_html AND regexp_full_match(d.name, '[a-z][a-z0-9_-]*')))
GROUP BY d.name, d.known_elsewhere IS NOT NULL
ORDER BY files DESC, lines DESC, d.name;
