-- Question: how many lines do robots.txt files have, and which counts
-- stand out (platform defaults: Dinzinger & Granitzer's 18-line
-- WordPress/Wix spike)?
-- Reads: captures.robots_parsed, lines.
-- Result: lines (as Google counts them), captures (of captures whose body
-- was parsed as robots.txt), share. Ordered by lines.
SELECT lines, count(*) AS captures, count(*) / sum(count(*)) OVER () AS share
FROM captures
WHERE robots_parsed
GROUP BY lines
ORDER BY lines;
