-- Question: how many lines do robots.txt files have, and which counts
-- stand out (platform defaults: Dinzinger & Granitzer's 18-line
-- WordPress/Wix spike), and which platform default makes each peak?
-- Per crawl: each share is of the crawl's captures.
-- Reads: captures.crawl, robots_parsed, lines, template.
-- Result: crawl, lines (as Google counts them), captures (of the crawl's
-- captures whose body was parsed as robots.txt), share, template (the template most of the
-- captures with that many lines are, NULL when none is one; ties: the
-- first name), template_captures (how many of them are) and
-- template_share (their share of the captures with that many lines; 0
-- without a template). Ordered by crawl, then lines.
WITH per AS (
    SELECT crawl, lines, template, count(*) AS n
    FROM captures
    WHERE robots_parsed
    GROUP BY crawl, lines, template
)
SELECT crawl, lines, sum(n)::BIGINT AS captures, sum(n) / sum(sum(n)) OVER (PARTITION BY crawl) AS share,
       first(template ORDER BY n DESC, template) FILTER (WHERE template IS NOT NULL) AS template,
       coalesce(max(n) FILTER (WHERE template IS NOT NULL), 0)::BIGINT AS template_captures,
       coalesce(max(n) FILTER (WHERE template IS NOT NULL), 0) / sum(n) AS template_share
FROM per
GROUP BY crawl, lines
ORDER BY crawl NULLS FIRST, lines;
