-- Question: every number of definitions.sql by popularity: does the head of the web block a
-- crawler more than its tail? Needs a rank list: SET VARIABLE robostats_ranks = 'FILE' (Tranco's
-- CSV, a CSV or Parquet file of ranks and hosts or domains, or Common Crawl's Host Index; how a
-- host gets its rank: strata.sql, host_ranks, and docs/crawls.md, "By popularity").
-- One row per crawl, band, question, crawler and definition, as definitions.sql's rows, counted
-- over the hosts of the band (a capture in its host's band; a registered domain in its
-- best-ranked host's). Bands: band_first..band_last (robostats_rank_bands, default 1-1,000,
-- 1,001-10,000, 10,001-100,000, 100,001-1,000,000), an open band past the last (band_last NULL)
-- when a host ranks there, the unranked hosts (band_first and band_last NULL); then the top-k cuts
-- the studies report, band_first 1 and band_last k for every bound past the first (the sum of the
-- bands up to k: Nagel & Vaughan's strata, Thunderbit's top 10k, the Web Almanac's CrUX buckets):
-- a row is a cut when band_first = 1 and band_last > rank_bounds()[1] (the first band's last
-- rank). Where a study reports a definition at the top k, the row ending at k (a cut, or the
-- first band) says so after its study ("; the top 10000, ...").
-- Reads: definition_rows(true) and host_ranks (strata.sql); rank_bounds().
-- Result: crawl, question, agent, agent_category, definition, band_first, band_last, numerator,
-- denominator, share (NULL when the denominator is 0), named, wildcard, study.
-- Ordered by crawl, bands (in rank order, unranked after them), then the cuts, question, agent,
-- definition.
WITH bands AS (
    FROM definition_rows(true)
),
-- the studies' own cuts: which study reports which definition at which top k
cuts(definition, k, label) AS (
    SELECT definition, unnest(ks), label
    FROM (VALUES ('cc_hosts', [1000, 10000, 50000, 100000, 1000000, 2000000], 'Nagel & Vaughan''s stratum'),
                 ('cc_hosts_robots_txt', [1000, 10000, 50000, 100000, 1000000, 2000000], 'Nagel & Vaughan''s stratum'),
                 ('cc_hosts_with_rules', [1000, 10000, 50000, 100000, 1000000, 2000000], 'Nagel & Vaughan''s stratum'),
                 ('hosts_2xx_any_ai', [10000], 'the trackers'' top 10,000 (Thunderbit: Tranco; Humphrey: Majestic)'),
                 ('hosts_200', [1000, 10000, 100000, 1000000], 'a CrUX rank bucket (the Web Almanac)'),
                 ('fan_domains', [1000000], 'Fan et al.''s top 1 M (their own ranking)')) v(definition, ks, label)
),
tops AS (
    SELECT b.crawl, b.question, b.agent, any_value(b.agent_category) AS agent_category, b.definition,
           1::BIGINT AS band_first, k.k AS band_last,
           sum(b.numerator)::BIGINT AS numerator, sum(b.denominator)::BIGINT AS denominator,
           sum(b.named)::BIGINT AS named, sum(b.wildcard)::BIGINT AS wildcard, any_value(b.study) AS study,
           any_value(b.question_ord) AS question_ord, any_value(b.agent_position) AS agent_position,
           any_value(b.definition_ord) AS definition_ord
    FROM bands b
    JOIN (SELECT unnest(rank_bounds()[2:]) AS k) k ON b.band_last <= k.k
    GROUP BY b.crawl, b.question, b.agent, b.definition, k.k
)
SELECT r.crawl, r.question, r.agent, r.agent_category, r.definition, r.band_first, r.band_last, r.numerator,
       r.denominator, r.share, r.named, r.wildcard,
       r.study || coalesce('; the top ' || c.k::VARCHAR || ', ' || c.label, '') AS study
FROM (
    SELECT * FROM bands
    UNION ALL BY NAME
    SELECT *, numerator / nullif(denominator, 0) AS share FROM tops
) r
LEFT JOIN cuts c ON c.definition = r.definition AND r.band_first = 1 AND c.k = r.band_last
ORDER BY r.crawl NULLS FIRST, coalesce(r.band_first = 1 AND r.band_last > rank_bounds()[1], false),
         r.band_first NULLS LAST, r.band_last, r.question_ord, r.agent_position NULLS FIRST, r.definition_ord;
