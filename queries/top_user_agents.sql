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
-- Method: each distinct body's agents counted once (body_user_agents), then
-- weighted by the body's captures in each crawl, not every line joined to
-- every capture first (the same rows as counting user_agents: a test
-- checks it).
WITH per_body AS (
    SELECT body_digest, agent_token, count(*) AS lines, min(value) AS example_value
    FROM (
        SELECT body_digest, value,
               CASE WHEN is_global THEN '*'
                    WHEN product_token = '' THEN lower(value)
                    ELSE lower(product_token) END AS agent_token
        FROM body_user_agents
    )
    GROUP BY body_digest, agent_token
),
bodies_per_crawl AS (
    SELECT crawl, body_digest, count(*) AS n
    FROM captures
    WHERE body_digest IS NOT NULL
    GROUP BY crawl, body_digest
),
counted AS (
    SELECT b.crawl, u.agent_token,
           sum(b.n)::BIGINT AS captures,
           sum(b.n * u.lines)::BIGINT AS lines,
           sum(b.n) / any_value(p.parsed) AS share_of_captures,
           min(u.example_value) AS example_value
    FROM per_body u
    JOIN bodies_per_crawl b USING (body_digest)
    JOIN (SELECT crawl, count_if(robots_parsed) AS parsed FROM captures GROUP BY crawl) p
        ON p.crawl IS NOT DISTINCT FROM b.crawl
    GROUP BY b.crawl, u.agent_token
)
SELECT crawl, agent_token, captures, lines, share_of_captures, example_value
FROM counted
QUALIFY row_number() OVER (PARTITION BY crawl ORDER BY captures DESC, lines DESC, agent_token) <= 50
ORDER BY crawl NULLS FIRST, captures DESC, lines DESC, agent_token;
