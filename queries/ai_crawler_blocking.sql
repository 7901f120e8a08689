-- Question: what share of robots.txt captures (refetches included: per
-- host, and every other definition, see definitions.sql) fully disallow
-- each crawler, AI crawlers first (Dinzinger & Granitzer; Liu et al.)?
-- Three readings, from agent_verdict_counts (agent_verdicts counted: one row
-- per capture and crawler of interest, agent '*' being a crawler no group
-- names; counting them through the counts view reads no row per capture and
-- crawler):
--   * named: captures with a group naming the agent (group_match =
--     'specific'), and of those the ones whose group disallows everything:
--     "the rules alone", Dinzinger's "disallow-all among files naming the
--     agent";
--   * with the * fallback: rules_class = 'disallow_all' whichever group
--     applies (the agent's own, else *), among captures whose body was parsed
--     as robots.txt (2xx: a robots.txt a crawler obeys): Liu et al.'s "fully
--     disallowed, share of sites with robots.txt";
--   * effective: effective_class = 'disallow_all' (2xx: the rules; 5xx and
--     unreadable fetches disallow everything; 4xx allow everything; 3xx
--     unresolved), among all captures.
-- Reads: agent_verdict_counts.agent, agent_category, robots_parsed,
-- group_match, rules_class, effective_class, captures.
-- Result: agent, agent_category, captures, robots_txt (parsed 2xx captures),
-- named, named_disallow_all, named_disallow_all_share (of named),
-- disallow_all (with fallback), disallow_all_share (of robots_txt),
-- effective_disallow_all, effective_disallow_all_share (of captures).
-- Ordered: AI crawlers first, then by disallow_all_share.
SELECT agent,
       agent_category,
       sum(captures)::BIGINT AS captures,
       coalesce(sum(captures) FILTER (robots_parsed), 0)::BIGINT AS robots_txt,
       coalesce(sum(captures) FILTER (group_match = 'specific'), 0)::BIGINT AS named,
       coalesce(sum(captures) FILTER (group_match = 'specific' AND rules_class = 'disallow_all'), 0)::BIGINT
           AS named_disallow_all,
       named_disallow_all / nullif(named, 0) AS named_disallow_all_share,
       coalesce(sum(captures) FILTER (robots_parsed AND rules_class = 'disallow_all'), 0)::BIGINT
           AS disallow_all,
       disallow_all / nullif(robots_txt, 0) AS disallow_all_share,
       coalesce(sum(captures) FILTER (effective_class = 'disallow_all'), 0)::BIGINT
           AS effective_disallow_all,
       effective_disallow_all / sum(captures)::BIGINT AS effective_disallow_all_share
FROM agent_verdict_counts
GROUP BY agent, agent_category
ORDER BY agent_category <> 'ai', disallow_all_share DESC, agent;
