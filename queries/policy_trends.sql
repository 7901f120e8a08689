-- Question: per crawl, how many hosts does each crawler find fully blocked,
-- partly blocked, open, without a robots.txt, unreachable, or behind an
-- unresolved redirect, and did a group name the crawler or did the * group
-- decide (Liu et al., IMC 2025: wildcard full blocks flat at ~1.5 % while
-- named blocks of GPTBot rose from 0 to 8.3 %)?
-- States come from the view host_states (views.sql; see
-- policy_transitions.sql).
-- Counted by the view host_state_counts (host_states counted, without a
-- row per host and crawler).
-- Reads: captures (through crawl_hosts), named_verdicts, agents.
-- Result: crawl, agent, agent_category, state, decided_by (named, wildcard,
-- no_group for a 2xx; NULL otherwise), hosts, share (of the crawl's hosts:
-- every host with a robots.txt capture in the crawl; the shares of one
-- crawl and crawler sum to 1), state_share (the share of the crawl's hosts
-- in that state for the crawler, whoever decided: the same on each row of
-- the state; on the full rows, the crawler's full blocks, named or by *).
-- Ordered by crawl, the agents' list order, state, decided_by.
SELECT s.crawl, s.agent, s.agent_category, s.state, s.decided_by, s.hosts,
       s.hosts / sum(s.hosts) OVER (PARTITION BY s.crawl, s.agent) AS share,
       sum(s.hosts) OVER (PARTITION BY s.crawl, s.agent, s.state)
           / sum(s.hosts) OVER (PARTITION BY s.crawl, s.agent) AS state_share
FROM host_state_counts s
JOIN agents a ON a.token = s.agent
ORDER BY s.crawl NULLS FIRST, a.position, s.state, s.decided_by NULLS FIRST;
