-- Question: how does the opt-out of a corpus move between two judgements of it: as of its own
-- crawl (robostats_judged) and as of a later point (robostats_judged_later: the retroactive
-- filter of the Apertus models, robots.txt of January 2025 applied to older data)?
-- Reads: two outputs of `robostats judge --ai-training` on the same URL file (rows line up by
-- position: judge writes one row per URL, in input order), one Parquet file each.
-- Result: then (opted out as of the first: true, false, or NULL for no verdict), later (the
-- same as of the second), urls, share (of all URLs). Ordered by then, later.
WITH a AS (SELECT file_row_number AS n, url, opted_out
           FROM read_parquet(getvariable('robostats_judged'), file_row_number = true, hive_partitioning = false)),
     b AS (SELECT file_row_number AS n, url, opted_out
           FROM read_parquet(getvariable('robostats_judged_later'), file_row_number = true, hive_partitioning = false))
SELECT a.opted_out AS "then", b.opted_out AS later, count(*) AS urls,
       count(*) / sum(count(*)) OVER () AS share
FROM a JOIN b ON a.n = b.n AND a.url IS NOT DISTINCT FROM b.url
GROUP BY ALL
ORDER BY "then" NULLS LAST, later NULLS LAST;
