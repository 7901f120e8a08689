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
WITH hosts AS MATERIALIZED (
    SELECT h.crawl, c.license_lines, warc_filename, warc_record_offset
    FROM crawl_hosts h
    JOIN captures c USING (warc_filename, warc_record_offset)
    WHERE h.robots_parsed
),
lines AS (
    SELECT h.crawl,
           count(*) FILTER (WHERE regexp_matches(d.value, '^https?://[^/\s]+', 'i')) AS absolute_url_lines,
           count(DISTINCT d.value) AS distinct_licenses
    FROM hosts h
    JOIN directives d USING (warc_filename, warc_record_offset)
    WHERE d.name = 'license'
    GROUP BY h.crawl
),
per_crawl AS (
    SELECT crawl, count(*) AS hosts,
           count(*) FILTER (WHERE license_lines > 0) AS license_hosts,
           count(*) FILTER (WHERE license_lines > 0) / count(*) AS license_share,
           sum(license_lines)::BIGINT AS license_lines
    FROM hosts
    GROUP BY crawl
)
SELECT p.crawl, p.hosts, p.license_hosts, p.license_share, p.license_lines,
       coalesce(l.absolute_url_lines, 0) AS absolute_url_lines,
       coalesce(l.distinct_licenses, 0) AS distinct_licenses
FROM per_crawl p
LEFT JOIN lines l ON l.crawl IS NOT DISTINCT FROM p.crawl
ORDER BY p.crawl;
