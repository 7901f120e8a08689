-- Question: how large are robots.txt files, on a log scale, and how many
-- pass Google's 500 KiB limit?
-- Reads: captures.robots_parsed, payload_length.
-- Result: lower_bytes, upper_bytes (a bucket holds sizes from lower_bytes
-- to upper_bytes - 1: 0, then powers of two: 1-2, 2-4, ..., 512 KiB-1 MiB;
-- the reader caps bodies at 1 MiB), captures (of captures whose body was
-- parsed as robots.txt), share, over_500kib (of those, over 512,000
-- bytes: Google reads no further). Ordered by lower_bytes.
SELECT lower_bytes, CASE WHEN lower_bytes = 0 THEN 1 ELSE 2 * lower_bytes END AS upper_bytes,
       count(*) AS captures, count(*) / sum(count(*)) OVER () AS share,
       count(*) FILTER (payload_length > 512000) AS over_500kib
FROM (
    SELECT payload_length,
           CASE WHEN payload_length = 0 THEN 0
                ELSE (2::BIGINT ** floor(log2(payload_length)))::BIGINT END AS lower_bytes
    FROM captures
    WHERE robots_parsed
)
GROUP BY lower_bytes
ORDER BY lower_bytes;
