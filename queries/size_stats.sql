-- Question: the size distribution of robots.txt files in figures: mean,
-- percentiles, maximum, and the share over Google's 500 KiB limit
-- (Dinzinger: mean size; Web Almanac: share over 500 KiB).
-- Over captures whose body was parsed as robots.txt (2xx).
-- Reads: captures.payload_length, over_500kib, content_truncated, robots_parsed.
-- Result: one row: captures, mean_bytes, p25, p50, p75, p90, p99 (bytes,
-- discrete percentiles: values that occur), max_bytes, over_500kib,
-- over_500kib_share, truncated (the crawler cut the body: WARC-Truncated).
SELECT count(*) AS captures,
       avg(payload_length) AS mean_bytes,
       quantile_disc(payload_length, 0.25) AS p25,
       quantile_disc(payload_length, 0.50) AS p50,
       quantile_disc(payload_length, 0.75) AS p75,
       quantile_disc(payload_length, 0.90) AS p90,
       quantile_disc(payload_length, 0.99) AS p99,
       max(payload_length) AS max_bytes,
       count_if(over_500kib)::BIGINT AS over_500kib,
       count_if(over_500kib) / count(*) AS over_500kib_share,
       count_if(content_truncated IS NOT NULL)::BIGINT AS truncated
FROM captures
WHERE robots_parsed;
