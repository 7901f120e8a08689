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
-- Reads: agent_verdicts.agent, agent_category, group_match, root_allowed,
-- usage_train_ai, signal_ai_train; captures.robots_parsed, preference_lines;
-- preference_statements.directive, line, google_group, aipref_group;
-- user_agents."group", aipref_group, is_global, product_token.
-- Result: agent, agent_category, robots_txt (captures whose body was parsed
-- as robots.txt), allowed (may fetch /), allowed_no_ai_training (of those,
-- train-ai=n or ai-train=no applies), allowed_usage_train_ai_n,
-- allowed_signal_ai_train_n (each directive alone),
-- allowed_no_ai_training_share (of allowed), blocked (may not fetch /),
-- blocked_no_preference (of those, no preference line is written for it),
-- blocked_no_preference_share (of blocked),
-- blocked_no_preference_in_preference_files (of blocked_no_preference, files
-- that do have preference lines, for other crawlers). AI crawlers first,
-- then by allowed_no_ai_training, descending.
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
blocked AS (
    SELECT warc_filename, warc_record_offset, agent, group_match
    FROM agent_verdicts
    SEMI JOIN preference_files USING (warc_filename, warc_record_offset)
    WHERE NOT root_allowed
),
-- the user-agent lines by which each blocked crawler finds its groups
own_user_agents AS (
    SELECT b.warc_filename, b.warc_record_offset, b.agent, g."group" AS google_group, g.aipref_group
    FROM blocked b
    JOIN user_agents g USING (warc_filename, warc_record_offset)
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
)
SELECT v.agent,
       v.agent_category,
       count_if(c.robots_parsed)::BIGINT AS robots_txt,
       count_if(v.root_allowed)::BIGINT AS allowed,
       count_if(v.root_allowed AND (v.usage_train_ai = 'n' OR v.signal_ai_train = 'n'))::BIGINT AS allowed_no_ai_training,
       count_if(v.root_allowed AND v.usage_train_ai = 'n')::BIGINT AS allowed_usage_train_ai_n,
       count_if(v.root_allowed AND v.signal_ai_train = 'n')::BIGINT AS allowed_signal_ai_train_n,
       count_if(v.root_allowed AND (v.usage_train_ai = 'n' OR v.signal_ai_train = 'n'))
           / nullif(count_if(v.root_allowed), 0) AS allowed_no_ai_training_share,
       count_if(NOT v.root_allowed)::BIGINT AS blocked,
       count_if(NOT v.root_allowed AND s.agent IS NULL)::BIGINT AS blocked_no_preference,
       count_if(NOT v.root_allowed AND s.agent IS NULL) / nullif(count_if(NOT v.root_allowed), 0)
           AS blocked_no_preference_share,
       count_if(NOT v.root_allowed AND s.agent IS NULL AND c.preference_lines > 0)::BIGINT
           AS blocked_no_preference_in_preference_files
FROM agent_verdicts v
JOIN captures c USING (warc_filename, warc_record_offset)
LEFT JOIN stated s USING (warc_filename, warc_record_offset, agent)
WHERE c.robots_parsed
GROUP BY v.agent, v.agent_category
ORDER BY v.agent_category <> 'ai', allowed_no_ai_training DESC, v.agent;
