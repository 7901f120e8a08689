-- Question: how large are robots.txt files (Web Almanac: share <= 100 KB,
-- share over Google's 500 KiB limit)?
-- Over captures whose body was parsed as robots.txt (2xx); sizes are the
-- stored payload (decoded, possibly truncated by the crawler).
-- Reads: captures.payload_length, robots_parsed.
-- Result: bucket ('0 B', '1 B-1 KiB', '1-10 KiB', '10-100 KiB',
-- '100-500 KiB', 'over 500 KiB'; bounds in bytes: 1,024, 10,240, 102,400,
-- 512,000, each bucket including its upper bound), lower_bytes,
-- upper_bytes, captures, share (sums to 1), cumulative_share. Every bucket
-- is listed, empty ones with 0.
WITH buckets(ord, bucket, lower_bytes, upper_bytes) AS (
    VALUES (1, '0 B', 0, 0),
           (2, '1 B-1 KiB', 1, 1024),
           (3, '1-10 KiB', 1025, 10240),
           (4, '10-100 KiB', 10241, 102400),
           (5, '100-500 KiB', 102401, 512000),
           (6, 'over 500 KiB', 512001, NULL)
),
sized AS (
    SELECT payload_length FROM captures WHERE robots_parsed
),
counted AS (
    SELECT b.ord, b.bucket, b.lower_bytes, b.upper_bytes, count(s.payload_length) AS captures
    FROM buckets b
    LEFT JOIN sized s
      ON s.payload_length >= b.lower_bytes
     AND (b.upper_bytes IS NULL OR s.payload_length <= b.upper_bytes)
    GROUP BY ALL
)
SELECT bucket, lower_bytes, upper_bytes, captures,
       captures / sum(captures) OVER () AS share,
       sum(captures) OVER (ORDER BY ord) / sum(captures) OVER () AS cumulative_share
FROM counted
ORDER BY ord;
