-- Question: how many lines do robots.txt files have, and which counts
-- stand out (platform defaults: Dinzinger & Granitzer's 18-line
-- WordPress/Wix spike), and which platform default makes each peak?
-- Reads: captures.robots_parsed, lines, template.
-- Result: lines (as Google counts them), captures (of captures whose body
-- was parsed as robots.txt), share, template (the template most of the
-- captures with that many lines are, NULL when none is one; ties: the
-- first name), template_captures (how many of them are) and
-- template_share (their share of the captures with that many lines; 0
-- without a template). Ordered by lines.
WITH per AS (
    SELECT lines, template, count(*) AS n
    FROM captures
    WHERE robots_parsed
    GROUP BY lines, template
)
SELECT lines, sum(n)::BIGINT AS captures, sum(n) / sum(sum(n)) OVER () AS share,
       first(template ORDER BY n DESC, template) FILTER (WHERE template IS NOT NULL) AS template,
       coalesce(max(n) FILTER (WHERE template IS NOT NULL), 0)::BIGINT AS template_captures,
       coalesce(max(n) FILTER (WHERE template IS NOT NULL), 0) / sum(n) AS template_share
FROM per
GROUP BY lines
ORDER BY lines;
