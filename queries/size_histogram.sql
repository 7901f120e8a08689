-- Question: how large are robots.txt files, on a log scale, and how many
-- pass Google's 500 KiB limit?
-- Per crawl: each share is of the crawl's captures.
-- Reads: captures.crawl, robots_parsed, payload_length.
-- Result: crawl, lower_bytes, upper_bytes (a bucket holds sizes from lower_bytes
-- to upper_bytes - 1: 0, then powers of two: 1-2, 2-4, ..., 512 KiB-1 MiB;
-- the reader caps bodies at 1 MiB), captures (of captures whose body was
-- parsed as robots.txt), share, over_500kib (of those, over 512,000
-- bytes: Google reads no further). Ordered by crawl, then lower_bytes.
SELECT crawl, lower_bytes, CASE WHEN lower_bytes = 0 THEN 1 ELSE 2 * lower_bytes END AS upper_bytes,
       count(*) AS captures, count(*) / sum(count(*)) OVER (PARTITION BY crawl) AS share,
       count(*) FILTER (payload_length > 512000) AS over_500kib
FROM (
    SELECT crawl, payload_length,
           CASE WHEN payload_length = 0 THEN 0
                ELSE (2::BIGINT ** floor(log2(payload_length)))::BIGINT END AS lower_bytes
    FROM captures
    WHERE robots_parsed
)
GROUP BY crawl, lower_bytes
ORDER BY crawl NULLS FIRST, lower_bytes;
