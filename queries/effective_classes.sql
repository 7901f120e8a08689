-- Question: for each crawler, how are captures distributed over the effective
-- classes (what the crawler may do after the HTTP outcome): disallow_all,
-- allow_all, allow_part, unresolved_redirect?
-- Reads: agent_verdicts.agent, agent_category, effective_class.
-- Result: agent, agent_category, effective_class, captures, share (of the
-- agent's captures; sums to 1 per agent).
SELECT agent, agent_category, effective_class, count(*) AS captures,
       count(*) / sum(count(*)) OVER (PARTITION BY agent) AS share
FROM agent_verdicts
GROUP BY agent, agent_category, effective_class
ORDER BY agent_category <> 'ai', agent, effective_class;
