-- Question: do servers state AI-use preferences in the HTTP response that
-- carries robots.txt (AIPREF's Content-Usage header, an RFC 9651
-- dictionary), and do they say the same as the file's Content-Usage lines?
-- Per header value: captures, hosts, and how many of those captures'
-- robots.txt bodies also have Content-Usage lines.
-- Reads: captures (content_usage_header, robots_parsed, url_host_name),
-- preference_statements (directive content-usage).
-- Result: content_usage_header, captures, hosts, parsed_captures,
-- with_usage_lines. Ordered by captures (most first), then the value.
SELECT c.content_usage_header, count(*) AS captures, count(DISTINCT c.url_host_name) AS hosts,
       count(*) FILTER (WHERE c.robots_parsed) AS parsed_captures,
       count(*) FILTER (WHERE EXISTS (
           SELECT 1 FROM preference_statements p
           WHERE p.warc_filename = c.warc_filename AND p.warc_record_offset = c.warc_record_offset
             AND p.directive = 'content-usage')) AS with_usage_lines
FROM captures c
WHERE c.content_usage_header IS NOT NULL
GROUP BY c.content_usage_header
ORDER BY captures DESC, c.content_usage_header;
