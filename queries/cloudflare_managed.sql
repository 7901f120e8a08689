-- Question: how many robots.txt files carry a Cloudflare-managed block (the
-- content Cloudflare puts in front of a site's own robots.txt: a `*` group
-- with Cloudflare's Content-Signal line, then groups shutting out AI
-- crawlers), and where do the Content-Signal lines of those files stand,
-- inside the block or outside it (written by the site)?
-- A managed file is a capture whose body was parsed as robots.txt and has a
-- `# BEGIN Cloudflare Managed content` line (captures.cloudflare_blocks > 0;
-- the block runs to `# END Cloudflare Managed Content`). Hosts: the hosts
-- with a parsed capture, managed when one of their parsed captures is.
-- Reads: captures.robots_parsed, cloudflare_blocks, url_host_name;
-- preference_statements.directive, line, in_cloudflare_block.
-- Result: one row: robots_txt (captures whose body was parsed as robots.txt),
-- managed, managed_share (of robots_txt), hosts, managed_hosts,
-- managed_hosts_share (of hosts), blocks (BEGIN lines in the managed files),
-- managed_signal_lines_in_block, managed_signal_lines_outside_block (the
-- Content-Signal lines of the managed files, inside and outside the block),
-- managed_without_signal_in_block (managed files whose block has no
-- Content-Signal line), other_signal_captures, other_signal_lines (captures
-- without a managed block that have Content-Signal lines, and their lines).
-- Method: the Content-Signal lines are counted per capture first and joined
-- to captures (one row per capture: its key is unique), so no grouping on
-- the capture key over all captures; hosts are grouped once.
WITH signal_lines AS (
    SELECT DISTINCT warc_filename, warc_record_offset, line, in_cloudflare_block
    FROM preference_statements
    WHERE directive = 'content-signal'
),
signals AS (
    SELECT warc_filename, warc_record_offset,
           count(line) FILTER (WHERE in_cloudflare_block) AS in_block,
           count(line) FILTER (WHERE NOT in_cloudflare_block) AS outside_block
    FROM signal_lines
    GROUP BY warc_filename, warc_record_offset
),
per_capture AS (
    SELECT c.url_host_name,
           c.cloudflare_blocks > 0 AS managed,
           c.cloudflare_blocks AS blocks,
           coalesce(s.in_block, 0) AS in_block,
           coalesce(s.outside_block, 0) AS outside_block
    FROM captures c
    LEFT JOIN signals s USING (warc_filename, warc_record_offset)
    WHERE c.robots_parsed
),
files AS (
    SELECT count(*) AS robots_txt,
           count_if(managed)::BIGINT AS managed,
           count_if(managed) / count(*) AS managed_share,
           coalesce(sum(blocks) FILTER (WHERE managed), 0)::BIGINT AS blocks,
           coalesce(sum(in_block) FILTER (WHERE managed), 0)::BIGINT AS managed_signal_lines_in_block,
           coalesce(sum(outside_block) FILTER (WHERE managed), 0)::BIGINT AS managed_signal_lines_outside_block,
           count_if(managed AND in_block = 0)::BIGINT AS managed_without_signal_in_block,
           count_if(NOT managed AND outside_block > 0)::BIGINT AS other_signal_captures,
           coalesce(sum(outside_block) FILTER (WHERE NOT managed), 0)::BIGINT AS other_signal_lines
    FROM per_capture
),
hosts AS (
    SELECT count(*) AS hosts, count_if(managed)::BIGINT AS managed_hosts
    FROM (SELECT url_host_name, bool_or(managed) AS managed
          FROM per_capture WHERE url_host_name IS NOT NULL GROUP BY url_host_name)
)
SELECT f.robots_txt, f.managed, f.managed_share,
       h.hosts, h.managed_hosts, h.managed_hosts / h.hosts AS managed_hosts_share,
       f.blocks, f.managed_signal_lines_in_block, f.managed_signal_lines_outside_block,
       f.managed_without_signal_in_block, f.other_signal_captures, f.other_signal_lines
FROM files f, hosts h;
