-- Question: per crawler of interest, how often do the rules and the AI-use
-- preferences of a file pull apart: the crawler may fetch / yet the
-- preference that applies to it says no AI training (Content-Usage
-- train-ai=n, or Content-Signal ai-train=no); and, the other way round, the
-- rules shut it out (/ disallowed) while the file states no preference at
-- all for it?
-- Only captures whose body was parsed as robots.txt: there root_allowed is
-- effective_root_allowed. Where the crawler may fetch /, agent_verdicts
-- gives the preferences that apply at / (usage_train_ai, signal_ai_train:
-- y, n or unknown; see docs/robots-txt.md, "AI-use preferences"). Where it
-- may not, no preference applies (AIPREF: none is implied for what cannot be
-- crawled), so what the file states for it is read from
-- preference_statements: a Content-Usage rule (any path) in one of its
-- groups under AIPREF's grouping, a Content-Signal line in one of its groups
-- under Google's grouping, or a Content-Signal line before the first
-- user-agent line. Its groups are the groups naming it when one does (its
-- product token, compared as Google does), else the `*` groups
-- (user_agents."group" and aipref_group number the groups of both groupings
-- as preference_statements does).
-- The counts come from agent_verdict_counts (agent_verdicts counted); the
-- blocked crawlers of the files with preference lines, a small part of the
-- data, are found capture by capture with agent_verdicts' rules: a group
-- naming the crawler decides (named_verdicts), else the * verdict, unless
-- the crawler ignores the * group (then nothing blocks it).
-- Reads: agent_verdict_counts.agent, agent_category, robots_parsed,
-- root_allowed, usage_train_ai, signal_ai_train, captures; captures.robots_parsed,
-- preference_lines, global_group_match, global_root_allowed; named_verdicts;
-- agents;
-- preference_statements.directive, line, google_group, aipref_group;
-- user_agents."group", aipref_group, is_global, product_token.
-- Per crawl: each share is of the crawl's captures.
-- Result: crawl, agent, agent_category, robots_txt (the crawl's captures
-- whose body was parsed as robots.txt), allowed (may fetch /), allowed_no_ai_training (of those,
-- train-ai=n or ai-train=no applies), allowed_usage_train_ai_n,
-- allowed_signal_ai_train_n (each directive alone),
-- allowed_no_ai_training_share (of allowed), blocked (may not fetch /),
-- blocked_no_preference (of those, no preference line is written for it),
-- blocked_no_preference_share (of blocked),
-- blocked_no_preference_in_preference_captures (of blocked_no_preference, captures
-- that do have preference lines, for other crawlers). By crawl; AI crawlers
-- first, then by allowed_no_ai_training, descending.
WITH preference_files AS (
    SELECT DISTINCT warc_filename, warc_record_offset FROM preference_statements
),
usage_lines AS (
    SELECT DISTINCT warc_filename, warc_record_offset, line, aipref_group
    FROM preference_statements
    WHERE directive = 'content-usage'
),
signal_lines AS (
    SELECT DISTINCT warc_filename, warc_record_offset, line, google_group
    FROM preference_statements
    WHERE directive = 'content-signal'
),
-- the parsed captures with preference statements or lines
candidates AS (
    SELECT c.crawl, c.warc_filename, c.warc_record_offset, c.global_group_match, c.global_root_allowed,
           c.preference_lines > 0 AS has_lines, f.warc_filename IS NOT NULL AS in_files
    FROM captures c
    LEFT JOIN preference_files f USING (warc_filename, warc_record_offset)
    WHERE c.robots_parsed AND (c.preference_lines > 0 OR f.warc_filename IS NOT NULL)
),
named AS (
    SELECT warc_filename, warc_record_offset,
           map(list(agent), list({'root_allowed': root_allowed})) AS verdicts
    FROM named_verdicts
    SEMI JOIN candidates USING (warc_filename, warc_record_offset)
    GROUP BY ALL
),
-- their crawlers that may not fetch / (agent_verdicts.root_allowed false)
blocked_anywhere AS (
    SELECT crawl, warc_filename, warc_record_offset, agent, group_match, has_lines, in_files
    FROM (
        SELECT crawl, warc_filename, warc_record_offset, has_lines, in_files, agent,
               CASE WHEN v IS NOT NULL THEN 'specific'
                    WHEN ignores_global_group THEN 'none'
                    ELSE global_group_match END AS group_match,
               CASE WHEN v IS NOT NULL THEN v.root_allowed
                    WHEN ignores_global_group THEN true
                    ELSE global_root_allowed END AS root_allowed
        FROM (
            SELECT c.*, a.token AS agent, a.ignores_global_group, n.verdicts[a.token] AS v
            FROM candidates c
            LEFT JOIN named n USING (warc_filename, warc_record_offset)
            CROSS JOIN agents a
        )
    )
    WHERE NOT root_allowed
),
blocked AS (
    SELECT warc_filename, warc_record_offset, agent, group_match
    FROM blocked_anywhere
    WHERE in_files
),
-- (user_agents' join written out: the blocked captures' bodies first, then their lines, not
-- every capture's lines)
blocked_bodies AS MATERIALIZED (
    SELECT b.*, c.body_digest
    FROM blocked b
    JOIN captures c USING (warc_filename, warc_record_offset)
),
own_user_agents AS (
    SELECT b.warc_filename, b.warc_record_offset, b.agent, g."group" AS google_group, g.aipref_group
    FROM blocked_bodies b
    JOIN body_user_agents g ON g.body_digest = b.body_digest
    WHERE CASE WHEN b.group_match = 'specific'
               THEN NOT g.is_global AND lower(g.product_token) = lower(b.agent)
               ELSE g.is_global END
),
stated AS (
    SELECT o.warc_filename, o.warc_record_offset, o.agent
    FROM own_user_agents o
    JOIN usage_lines l USING (warc_filename, warc_record_offset, aipref_group)
    UNION
    SELECT o.warc_filename, o.warc_record_offset, o.agent
    FROM own_user_agents o
    JOIN signal_lines l USING (warc_filename, warc_record_offset, google_group)
    UNION
    SELECT b.warc_filename, b.warc_record_offset, b.agent
    FROM blocked b
    JOIN signal_lines l USING (warc_filename, warc_record_offset)
    WHERE l.google_group IS NULL
),
stated_counts AS (
    SELECT b.crawl, agent, count(*) AS stated, count_if(b.has_lines) AS stated_with_lines
    FROM stated s
    JOIN blocked_anywhere b USING (warc_filename, warc_record_offset, agent)
    GROUP BY b.crawl, agent
),
blocked_with_lines AS (
    SELECT crawl, agent, count(*) AS blocked_with_lines
    FROM blocked_anywhere
    WHERE has_lines
    GROUP BY crawl, agent
),
counts AS (
    SELECT crawl,
           agent,
           agent_category,
           sum(captures)::BIGINT AS robots_txt,
           coalesce(sum(captures) FILTER (root_allowed), 0)::BIGINT AS allowed,
           coalesce(sum(captures) FILTER (root_allowed AND (usage_train_ai = 'n' OR signal_ai_train = 'n')), 0)::BIGINT
               AS allowed_no_ai_training,
           coalesce(sum(captures) FILTER (root_allowed AND usage_train_ai = 'n'), 0)::BIGINT
               AS allowed_usage_train_ai_n,
           coalesce(sum(captures) FILTER (root_allowed AND signal_ai_train = 'n'), 0)::BIGINT
               AS allowed_signal_ai_train_n,
           coalesce(sum(captures) FILTER (NOT root_allowed), 0)::BIGINT AS blocked
    FROM agent_verdict_counts
    WHERE robots_parsed
    GROUP BY crawl, agent, agent_category
)
SELECT crawl,
       agent,
       agent_category,
       robots_txt,
       allowed,
       allowed_no_ai_training,
       allowed_usage_train_ai_n,
       allowed_signal_ai_train_n,
       allowed_no_ai_training / nullif(allowed, 0) AS allowed_no_ai_training_share,
       blocked,
       (blocked - coalesce(s.stated, 0))::BIGINT AS blocked_no_preference,
       (blocked - coalesce(s.stated, 0)) / nullif(blocked, 0) AS blocked_no_preference_share,
       (coalesce(w.blocked_with_lines, 0) - coalesce(s.stated_with_lines, 0))::BIGINT
           AS blocked_no_preference_in_preference_captures
FROM counts
LEFT JOIN stated_counts s USING (crawl, agent)
LEFT JOIN blocked_with_lines w USING (crawl, agent)
ORDER BY crawl NULLS FIRST, agent_category <> 'ai', allowed_no_ai_training DESC, agent;
