-- Question: how many sites state a content licence in robots.txt (RSL 1.0,
-- December 2025: `License: <absolute URL>` lines, file-wide, repeatable)?
-- Per crawl: hosts with a robots.txt, hosts with License lines and their
-- share, the lines, how many are absolute http(s) URLs, and the distinct
-- licence URLs.
-- Reads: the view crawl_hosts (a host's deciding capture, counted when it
-- is a parsed 2xx body), captures.license_lines, directives (name
-- 'license').
-- Result: crawl, hosts, license_hosts, license_share, license_lines,
-- absolute_url_lines, distinct_licenses. Ordered by crawl.
WITH hosts AS (
    SELECT h.crawl, c.license_lines, warc_filename, warc_record_offset
    FROM crawl_hosts h
    JOIN captures c USING (warc_filename, warc_record_offset)
    WHERE h.robots_parsed
),
lines AS (
    SELECT h.crawl, d.value
    FROM hosts h
    JOIN directives d USING (warc_filename, warc_record_offset)
    WHERE d.name = 'license'
)
SELECT h.crawl, count(*) AS hosts,
       count(*) FILTER (WHERE license_lines > 0) AS license_hosts,
       count(*) FILTER (WHERE license_lines > 0) / count(*) AS license_share,
       sum(license_lines)::BIGINT AS license_lines,
       (SELECT count(*) FROM lines l WHERE l.crawl IS NOT DISTINCT FROM h.crawl
          AND regexp_matches(l.value, '^https?://[^/\s]+', 'i')) AS absolute_url_lines,
       (SELECT count(DISTINCT value) FROM lines l WHERE l.crawl IS NOT DISTINCT FROM h.crawl) AS distinct_licenses
FROM hosts h
GROUP BY h.crawl
ORDER BY h.crawl;
