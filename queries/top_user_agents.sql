-- Question: which user-agents do robots.txt files name most often (the
-- studies' "agent mentioned in share of files")?
-- An agent is counted by the product token Google matches on, lower-cased
-- ('*' for the global group; the value itself when it has no token, e.g.
-- starts with a digit). A capture naming an agent twice counts once.
-- Per crawl: each share is of the crawl's captures.
-- Reads: user_agents.crawl, product_token, is_global, value;
-- captures.crawl, robots_parsed.
-- Result (top 50 of each crawl): crawl, agent_token, captures, lines,
-- share_of_captures (of the crawl's captures whose body was parsed as
-- robots.txt), example_value (one spelling as written: the first in sort
-- order). Ordered by crawl, then captures, descending.
WITH ua AS (
    SELECT crawl, warc_filename, warc_record_offset, value,
           CASE WHEN is_global THEN '*'
                WHEN product_token = '' THEN lower(value)
                ELSE lower(product_token) END AS agent_token
    FROM user_agents
)
SELECT ua.crawl, agent_token,
       count(DISTINCT (warc_filename, warc_record_offset)) AS captures,
       count(*) AS lines,
       count(DISTINCT (warc_filename, warc_record_offset)) / any_value(p.parsed) AS share_of_captures,
       min(value) AS example_value
FROM ua
JOIN (SELECT crawl, count_if(robots_parsed) AS parsed FROM captures GROUP BY crawl) p
    ON p.crawl IS NOT DISTINCT FROM ua.crawl
GROUP BY ua.crawl, agent_token
QUALIFY row_number() OVER (PARTITION BY ua.crawl ORDER BY captures DESC, lines DESC, agent_token) <= 50
ORDER BY ua.crawl NULLS FIRST, captures DESC, lines DESC, agent_token;
