-- Question: for each crawler, how are captures distributed over the effective
-- classes (what the crawler may do after the HTTP outcome): disallow_all,
-- allow_all, allow_part, unresolved_redirect?
-- Reads: agent_verdict_counts (agent_verdicts counted).agent, agent_category,
-- effective_class, captures.
-- Result: agent, agent_category, effective_class, captures, share (of the
-- agent's captures; sums to 1 per agent).
SELECT agent, agent_category, effective_class, sum(captures)::BIGINT AS captures,
       sum(captures)::BIGINT / sum(sum(captures)::BIGINT) OVER (PARTITION BY agent) AS share
FROM agent_verdict_counts
GROUP BY agent, agent_category, effective_class
ORDER BY agent_category <> 'ai', agent, effective_class;
