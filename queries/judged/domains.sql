-- Question: which registered domains lose most URLs of a corpus judged by
-- `robostats judge --ai-training` (opted out: an AI-training crawler may not fetch the URL, or
-- the file says no to AI training there)?
-- Reads: the judge output named by the DuckDB variable robostats_judged (with opted_out).
-- Result: domain, urls (with a verdict), opted_out, share (of the domain's URLs), corpus_share
-- (of all URLs opted out); the 50 domains with most URLs opted out, then by name.
WITH judged AS (FROM read_parquet(getvariable('robostats_judged'), hive_partitioning = false))
SELECT url_host_registered_domain AS domain, count(opted_out) AS urls,
       count(*) FILTER (opted_out) AS opted_out,
       count(*) FILTER (opted_out) / count(opted_out) AS share,
       count(*) FILTER (opted_out) / sum(count(*) FILTER (opted_out)) OVER () AS corpus_share
FROM judged
WHERE url_host_registered_domain IS NOT NULL AND opted_out IS NOT NULL
GROUP BY domain
HAVING count(*) FILTER (opted_out) > 0
ORDER BY opted_out DESC, domain
LIMIT 50;
