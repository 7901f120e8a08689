-- Question: what share of robots.txt files fully disallow each crawler, AI
-- crawlers first (Dinzinger & Granitzer; Liu et al.; Nagel & Vaughan)?
-- Three readings, from agent_verdicts (one row per capture and crawler of
-- interest; agent '*' is a crawler no group names):
--   * named: files with a group naming the agent (group_match = 'specific'),
--     and of those the ones whose group disallows everything: "the rules
--     alone", Dinzinger's "disallow-all among files naming the agent";
--   * with the * fallback: rules_class = 'disallow_all' whichever group
--     applies (the agent's own, else *), among captures whose body was parsed
--     as robots.txt (2xx: a robots.txt a crawler obeys): Liu et al.'s "fully
--     disallowed, share of sites with robots.txt";
--   * effective: effective_class = 'disallow_all' (2xx: the rules; 5xx and
--     unreadable fetches disallow everything; 4xx allow everything; 3xx
--     unresolved), among all captures.
-- Reads: agent_verdicts.agent, agent_category, group_match, rules_class,
-- effective_class; captures.robots_parsed.
-- Result: agent, agent_category, captures, robots_txt (parsed 2xx captures),
-- named, named_disallow_all, named_disallow_all_share (of named),
-- disallow_all (with fallback), disallow_all_share (of robots_txt),
-- effective_disallow_all, effective_disallow_all_share (of captures).
-- Ordered: AI crawlers first, then by disallow_all_share.
SELECT v.agent,
       v.agent_category,
       count(*) AS captures,
       count_if(c.robots_parsed)::BIGINT AS robots_txt,
       count_if(v.group_match = 'specific')::BIGINT AS named,
       count_if(v.group_match = 'specific' AND v.rules_class = 'disallow_all')::BIGINT AS named_disallow_all,
       count_if(v.group_match = 'specific' AND v.rules_class = 'disallow_all')
           / nullif(count_if(v.group_match = 'specific'), 0) AS named_disallow_all_share,
       count_if(c.robots_parsed AND v.rules_class = 'disallow_all')::BIGINT AS disallow_all,
       count_if(c.robots_parsed AND v.rules_class = 'disallow_all')
           / nullif(count_if(c.robots_parsed), 0) AS disallow_all_share,
       count_if(v.effective_class = 'disallow_all')::BIGINT AS effective_disallow_all,
       count_if(v.effective_class = 'disallow_all') / count(*) AS effective_disallow_all_share
FROM agent_verdicts v
JOIN captures c USING (warc_filename, warc_record_offset)
GROUP BY v.agent, v.agent_category
ORDER BY v.agent_category <> 'ai', disallow_all_share DESC, v.agent;
