-- Question: which versions of the IETF AIPREF vocabulary do Content-Usage
-- lines follow? Each label is mapped to the drafts of
-- draft-ietf-aipref-vocab that define it:
--   vocab-01 (2025-06-18): tdm, ai, genai, search, inference
--   vocab-02 (2025-07-20): all, train-ai, train-genai, ai-use, search
--   vocab-03 (2025-09-05): bots, train-ai, train-genai, search
--   vocab-04 (2025-10-23): bots, train-ai, ai-output, search
--   vocab-05 (2025-11-28), vocab-06 (2026-04-28), vocab-07 (2026-08-19):
--     train-ai, search
-- (dates: the drafts' tags in the working group's repository,
-- github.com/ietf-wg-aipref/drafts; the IETF datatracker dates -01, -02, -04
-- and -05 one to five days later). A label no draft defines is 'unknown'.
-- Labels are case-sensitive: an upper-case one makes the whole line
-- unparseable (no label), so it is not counted here. The vocabulary's labels
-- that no line uses are listed too, with 0 lines. To follow a later draft,
-- add a row to the VALUES list.
-- Reads: preference_statements.directive, label, line.
-- Result: label, vintage (current: the latest draft defines it;
-- earlier_draft: only earlier drafts do; unknown), first_draft, first_date,
-- last_draft, last_date (the first and last drafts defining it; null when
-- none does), lines (Content-Usage lines with a member of that label), captures.
-- Ordered by first_date (unknown labels last), then label.
WITH drafts(draft, tagged, labels) AS (
    VALUES ('vocab-01', DATE '2025-06-18', ['tdm', 'ai', 'genai', 'search', 'inference']),
           ('vocab-02', DATE '2025-07-20', ['all', 'train-ai', 'train-genai', 'ai-use', 'search']),
           ('vocab-03', DATE '2025-09-05', ['bots', 'train-ai', 'train-genai', 'search']),
           ('vocab-04', DATE '2025-10-23', ['bots', 'train-ai', 'ai-output', 'search']),
           ('vocab-05', DATE '2025-11-28', ['train-ai', 'search']),
           ('vocab-06', DATE '2026-04-28', ['train-ai', 'search']),
           ('vocab-07', DATE '2026-08-19', ['train-ai', 'search'])
),
defined AS (
    SELECT unnest(labels) AS label, draft, tagged FROM drafts
),
vocabulary AS (
    SELECT label,
           arg_min(draft, tagged) AS first_draft, min(tagged) AS first_date,
           arg_max(draft, tagged) AS last_draft, max(tagged) AS last_date
    FROM defined
    GROUP BY label
),
used AS (
    SELECT label,
           count(DISTINCT (warc_filename, warc_record_offset, line)) AS lines,
           count(DISTINCT (warc_filename, warc_record_offset)) AS captures
    FROM preference_statements
    WHERE directive = 'content-usage' AND label IS NOT NULL
    GROUP BY label
)
SELECT label,
       CASE WHEN v.label IS NULL THEN 'unknown'
            WHEN v.last_date = (SELECT max(tagged) FROM drafts) THEN 'current'
            ELSE 'earlier_draft' END AS vintage,
       v.first_draft, v.first_date, v.last_draft, v.last_date,
       coalesce(u.lines, 0) AS lines,
       coalesce(u.captures, 0) AS captures
FROM vocabulary v
FULL OUTER JOIN used u USING (label)
ORDER BY v.first_date NULLS LAST, label;
