-- Question: which user-agents do robots.txt files name most often (the
-- studies' "agent mentioned in share of files")?
-- An agent is counted by the product token Google matches on, lower-cased
-- ('*' for the global group; the value itself when it has no token, e.g.
-- starts with a digit). A capture naming an agent twice counts once.
-- Reads: user_agents.product_token, is_global, value; captures.robots_parsed.
-- Result (top 50): agent_token, captures, lines, share_of_captures (of captures
-- whose body was parsed as robots.txt), example_value (one
-- spelling as written: the first in sort order).
WITH ua AS (
    SELECT warc_filename, warc_record_offset, value,
           CASE WHEN is_global THEN '*'
                WHEN product_token = '' THEN lower(value)
                ELSE lower(product_token) END AS agent_token
    FROM user_agents
)
SELECT agent_token,
       count(DISTINCT (warc_filename, warc_record_offset)) AS captures,
       count(*) AS lines,
       count(DISTINCT (warc_filename, warc_record_offset))
           / (SELECT count_if(robots_parsed) FROM captures) AS share_of_captures,
       min(value) AS example_value
FROM ua
GROUP BY agent_token
ORDER BY captures DESC, lines DESC, agent_token
LIMIT 50;
