-- Question: of a corpus judged by `robostats judge`, what share of its URLs, and of its
-- registered domains, may each crawler not fetch?
-- Reads: the judge output named by the DuckDB variable robostats_judged (a Parquet file or glob),
-- its crawler columns named by robostats_agents (a list; unset: the crawlers of
-- `--ai-training`, Googlebot and *, those present). A URL without a verdict (no capture of its
-- robots.txt, not a URL) counts nowhere.
-- Result: agent, urls (with a verdict), urls_disallowed, url_share; domains (registered domains
-- with a verdict), domains_all_disallowed (the crawler may fetch none of the domain's URLs),
-- domains_any_disallowed (some URL of the domain is disallowed: the published filters' "blocked
-- domain"), domain_share (all disallowed, of domains). Ordered by url_share descending.
WITH judged AS (FROM read_parquet(getvariable('robostats_judged'), hive_partitioning = false)),
long AS (
    UNPIVOT (
        SELECT url_host_registered_domain AS domain,
               COLUMNS(lambda c: list_contains(coalesce(getvariable('robostats_agents'),
                   ['Applebot-Extended', 'Bytespider', 'CCBot', 'ClaudeBot', 'cohere-training-data-crawler',
                    'Diffbot', 'FacebookBot', 'meta-externalagent', 'Google-Extended', 'GPTBot', 'PanguBot',
                    'Googlebot', '*']), c))
        FROM judged
    ) ON COLUMNS(* EXCLUDE (domain)) INTO NAME agent VALUE allowed
),
domains AS (
    SELECT agent, domain, bool_and(NOT allowed) AS all_disallowed, bool_or(NOT allowed) AS any_disallowed
    FROM long WHERE domain IS NOT NULL
    GROUP BY agent, domain
)
SELECT u.agent, u.urls, u.urls_disallowed, u.urls_disallowed / u.urls AS url_share,
       d.domains, d.domains_all_disallowed, d.domains_any_disallowed,
       d.domains_all_disallowed / d.domains AS domain_share
FROM (SELECT agent, count(*) AS urls, count(*) FILTER (NOT allowed) AS urls_disallowed
      FROM long GROUP BY agent) u
LEFT JOIN (SELECT agent, count(*) AS domains, count(*) FILTER (all_disallowed) AS domains_all_disallowed,
                  count(*) FILTER (any_disallowed) AS domains_any_disallowed
           FROM domains GROUP BY agent) d USING (agent)
ORDER BY url_share DESC, agent;
