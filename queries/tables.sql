-- The tables of one robostats output directory (the --out of `robostats ingest`) as DuckDB
-- views: the first of the three files every query of queries/ reads, in this order, after
-- choosing the directory (it fails, naming robostats_out, if no data set is there):
--
--   SET VARIABLE robostats_out = 'path/to/out';   -- default: 'out'
--   .read queries/tables.sql                       -- a view per table (this file)
--   .read queries/views.sql                        -- the views derived from them
--   .read queries/strata.sql                       -- popularity strata, the studies' definitions
--
-- The directory is read each time a view is queried (SET VARIABLE again, then read the three
-- files again, to point the views elsewhere); its name may hold glob characters (robostats_dir()
-- escapes them), not a backslash (queries/README.md). Tables (columns: `robostats schema`): a
-- view each over OUT/<table>/*.parquet (at least a schema-only ~empty.parquet); the tables
-- stored once per body (bodies, body_rules, ...) with one writer's rows per body, their line
-- tables joined to every capture of the body (rules, ...), and the crawlers' verdicts.
-- Generated: between BEGIN and END is `robostats schema --views` (a test checks that it is up
-- to date); edit the code that writes it (src/cli/schema.rs, the tables' row types), not this.

-- BEGIN robostats schema --views
-- The output directory (robostats_out, default 'out') as a glob pattern
-- matching only itself: DuckDB reads * ? [ in any path as a pattern. Every
-- view and macro is TEMP: it lasts as long as the variables it reads.
CREATE OR REPLACE TEMP MACRO robostats_dir() AS
    regexp_replace(coalesce(getvariable('robostats_out'), 'out'), '([*?\[])', '[\1]', 'g');

-- No data set there: an error naming robostats_out, not a glob pattern.
SET VARIABLE robostats_data_set = (
    SELECT CASE WHEN count(*) > 0 THEN coalesce(getvariable('robostats_out'), 'out') ELSE error(
        'robostats_out is ' || coalesce('''' || getvariable('robostats_out') || '''', 'not set (so ''out'')')
        || ', which holds no robostats data set (no captures/*.parquet): before reading queries/tables.sql, '
        || 'SET VARIABLE robostats_out = ''DIR'', DIR being the --out of robostats ingest (relative: '
        || 'to the working directory)') END
    FROM glob(robostats_dir() || '/captures/*.parquet'));

-- A data set of an earlier format, whose body_rules stores each rule's pattern, priority and flags
-- (told by its schema-only file): an error saying so, not DuckDB's about a missing column.
-- (the names glob() gives escaped again: parquet_schema reads them as patterns too)
SET VARIABLE robostats_format = (SELECT list(regexp_replace(file, '([*?\[])', '[\1]', 'g'))
    FROM glob(robostats_dir() || '/body_rules/[~_]empty.parquet'));
SET VARIABLE robostats_format = (FROM query(CASE WHEN len(getvariable('robostats_format')) = 0 THEN 'SELECT NULL'
    ELSE 'SELECT CASE WHEN count(*) > 0 THEN error(''robostats_out is '''''' || getvariable(''robostats_data_set'')
        || '''''', which an earlier robostats wrote: its body_rules stores every rule''''s pattern, priority and '
        || 'flags, which the views now compute; ingest its inputs again into a new directory'') END '
        || 'FROM parquet_schema(getvariable(''robostats_format'')) WHERE name = ''priority''' END));

-- Compacted on S3: the newest generations (_manifest/generation-N.json: compactions read, files
-- retired), numbered 0, 1, 2... as numbers, each after 0 naming the id of the one before. A file
-- out of that sequence or chain is not compact's: an error, and nothing read on its word.
CREATE OR REPLACE TEMP MACRO robostats_generations(data_set) AS TABLE
    SELECT regexp_replace(file, '([*?\[])', '[\1]', 'g') AS file, n,
        coalesce(n < count(*) OVER () AND count(*) OVER (PARTITION BY n) = 1, false) AS ok
    FROM (SELECT file, TRY_CAST(regexp_extract(file, '/generation-([0-9]{8,18})\.json$', 1) AS BIGINT) AS n
          FROM glob(data_set || '/_manifest/generation-*.json'));
CREATE OR REPLACE TEMP MACRO robostats_newest_generations(data_set) AS (SELECT CASE WHEN count(*) = 0 THEN
    NULL WHEN bool_and(ok) THEN list(file ORDER BY n DESC)[1:2] ELSE error(data_set || '/_manifest/ holds '
    || 'generations robostats compact did not write (' || string_agg(regexp_extract(file, '[^/]+$'), ', ')
    FILTER (NOT ok) || '): nothing is read on their word; remove them if no compaction of yours wrote them')
    END FROM robostats_generations(data_set));
CREATE OR REPLACE TEMP MACRO robostats_generation_read(files) AS TABLE
    SELECT CASE WHEN g.generation = n AND (n = 0 OR coalesce(g.previous, '') = coalesce(prior_id, ''))
        THEN {compactions: g.compactions, retired: g.retired} ELSE error(file || ' is not the generation '
        || 'robostats compact wrote after ' || prior || ': nothing is read on its word') END AS kept
    FROM (SELECT max(n) AS n, arg_max(filename, n) AS file, arg_max({generation: generation, previous:
        previous, compactions: compactions, retired: retired}, n) AS g, arg_min(id, n) AS prior_id,
        arg_min(filename, n) AS prior
        FROM (SELECT *, regexp_extract(filename, '([0-9]+)\.json$', 1)::BIGINT AS n FROM read_json(files,
            filename = true, hive_partitioning = false, columns = {generation: 'BIGINT', id: 'VARCHAR',
            previous: 'VARCHAR', compactions: 'VARCHAR[]', retired: 'VARCHAR[]'})));
SET VARIABLE robostats_generation = robostats_newest_generations(robostats_dir());
SET VARIABLE robostats_kept = (FROM query(CASE WHEN getvariable('robostats_generation') IS NULL
    THEN 'SELECT NULL::STRUCT(compactions VARCHAR[], retired VARCHAR[])'
    ELSE 'FROM robostats_generation_read(getvariable(''robostats_generation''))' END));
CREATE OR REPLACE TEMP MACRO robostats_visible(f) AS
    NOT list_contains(getvariable('robostats_kept').retired, regexp_extract(f, '[^/]+/[^/]+$'))
    AND list_contains(getvariable('robostats_kept').compactions || [''],
        regexp_extract(f, '/compacted-([0-9a-f]+)-[0-9]+\.parquet$', 1))
    AND ((SELECT arg_max(file, n) FROM robostats_generations(robostats_dir()))
        = getvariable('robostats_generation')[1] OR error('robostats_out was compacted since '
        || 'queries/tables.sql was read: read the views again'));
CREATE OR REPLACE TEMP MACRO robostats_table(t) AS TABLE FROM query(CASE WHEN getvariable('robostats_kept') IS NULL
    THEN 'FROM read_parquet(robostats_dir() || ''/' || t || '/*.parquet'', hive_partitioning = false)'
    ELSE 'SELECT * EXCLUDE (filename) FROM read_parquet(robostats_dir() || ''/' || t
        || '/*.parquet'', filename = true, hive_partitioning = false) WHERE robostats_visible(filename)' END);

-- A host in Common Crawl's SURT form (com,example,www), its Host Index's key; an IP as it is.
CREATE OR REPLACE TEMP MACRO robostats_surt(host) AS CASE WHEN regexp_matches(host, '^[0-9.]*$|:') THEN host ELSE array_to_string(list_reverse(string_split(host, '.')), ',') END;
CREATE OR REPLACE TEMP VIEW captures AS SELECT *, robostats_surt(url_host_name) AS url_host_surt FROM robostats_table('captures');
CREATE OR REPLACE TEMP VIEW bodies AS
    SELECT body_digest, min(writer) AS writer, arg_min(bytes, writer) AS bytes
    FROM robostats_table('bodies')
    GROUP BY body_digest;
CREATE OR REPLACE TEMP VIEW body_user_agents AS
    SELECT t.* FROM robostats_table('body_user_agents') t SEMI JOIN bodies b USING (body_digest, writer);
CREATE OR REPLACE TEMP VIEW body_rules AS
    SELECT t."body_digest", t."writer", t."group", t."line", t."kind", t."key", t."value", coalesce(t.escaped_pattern, t.value) AS pattern, strlen(coalesce(t.escaped_pattern, t.value))::INTEGER AS priority, contains(coalesce(t.escaped_pattern, t.value), '*') AS has_wildcard, ends_with(coalesce(t.escaped_pattern, t.value), '$') AS has_end_anchor, t.value = '' AS is_empty, t."is_typo", t."in_global_group" FROM robostats_table('body_rules') t SEMI JOIN bodies b USING (body_digest, writer);
CREATE OR REPLACE TEMP VIEW body_sitemaps AS
    SELECT t.* FROM robostats_table('body_sitemaps') t SEMI JOIN bodies b USING (body_digest, writer);
CREATE OR REPLACE TEMP VIEW body_directives AS
    SELECT t.* FROM robostats_table('body_directives') t SEMI JOIN bodies b USING (body_digest, writer);
CREATE OR REPLACE TEMP VIEW body_preference_statements AS
    SELECT t.* FROM robostats_table('body_preference_statements') t SEMI JOIN bodies b USING (body_digest, writer);
CREATE OR REPLACE TEMP VIEW named_verdicts AS SELECT * FROM robostats_table('named_verdicts');
CREATE OR REPLACE TEMP VIEW resolved_preferences AS SELECT * FROM robostats_table('resolved_preferences');
CREATE OR REPLACE TEMP VIEW verdict_counts AS SELECT * FROM robostats_table('verdict_counts');
CREATE OR REPLACE TEMP VIEW errors AS SELECT * FROM robostats_table('errors');
CREATE OR REPLACE TEMP VIEW agents AS SELECT * FROM robostats_table('agents');

-- user_agents: body_user_agents joined to every capture of the body
CREATE OR REPLACE TEMP VIEW user_agents AS
    SELECT c.warc_filename, c.warc_record_offset, c.crawl, t."group", t."aipref_group", t."line", t."key", t."value", t."product_token", t."is_global", t."is_typo"
    FROM captures c
    JOIN body_user_agents t ON t.body_digest = c.body_digest;

-- rules: body_rules joined to every capture of the body
CREATE OR REPLACE TEMP VIEW rules AS
    SELECT c.warc_filename, c.warc_record_offset, c.crawl, t."group", t."line", t."kind", t."key", t."value", t."pattern", t."priority", t."has_wildcard", t."has_end_anchor", t."is_empty", t."is_typo", t."in_global_group"
    FROM captures c
    JOIN body_rules t ON t.body_digest = c.body_digest;

-- sitemaps: body_sitemaps joined to every capture of the body
CREATE OR REPLACE TEMP VIEW sitemaps AS
    SELECT c.warc_filename, c.warc_record_offset, c.crawl, t."line", t."key", t."url", t."is_valid", t."url_host_name", t.url_host_name = c.url_host_name AS same_host, t.url_host_registered_domain = c.url_host_registered_domain AS same_registered_domain, t."is_typo"
    FROM captures c
    JOIN body_sitemaps t ON t.body_digest = c.body_digest;

-- directives: body_directives joined to every capture of the body
CREATE OR REPLACE TEMP VIEW directives AS
    SELECT c.warc_filename, c.warc_record_offset, c.crawl, t."line", t."group", t."key", t."name", t."value", t."known_elsewhere", t."typo_of"
    FROM captures c
    JOIN body_directives t ON t.body_digest = c.body_digest;

-- preference_statements: body_preference_statements joined to every capture of the body
CREATE OR REPLACE TEMP VIEW preference_statements AS
    SELECT c.warc_filename, c.warc_record_offset, c.crawl, t."line", t."directive", t."key", t."google_group", t."aipref_group", t."in_cloudflare_block", t."path", t."dictionary", t."label", t."value", t."preference", t."is_overridden", t."status", t."parse_error"
    FROM captures c
    JOIN body_preference_statements t ON t.body_digest = c.body_digest;

-- Derived (agent_verdicts): warc_filename, warc_record_offset, agent, agent_category, group_match, root_allowed, rules_class, effective_class, effective_root_allowed, agent_operator, usage_train_ai, usage_search, usage_line, signal_search, signal_ai_train, signal_ai_input, signal_use, signal_line, signal_scope
CREATE OR REPLACE TEMP VIEW agent_verdicts AS
    WITH named AS (
        -- Each capture's named verdicts and resolved preferences as maps
        -- keyed by crawler, looked up after the expansion: no join has the
        -- captures x crawlers product on a side (DuckDB 2.0 builds hash
        -- tables on it when it may: docs/queries.md).
        SELECT warc_filename, warc_record_offset,
               map(list(agent), list({'root_allowed': root_allowed,
                                      'rules_class': rules_class})) AS verdicts
        FROM named_verdicts
        GROUP BY ALL
    ),
    preferences AS (
        SELECT warc_filename, warc_record_offset,
               map(list(agent), list({'usage_train_ai': usage_train_ai,
                   'usage_search': usage_search, 'usage_line': usage_line,
                   'signal_search': signal_search, 'signal_ai_train': signal_ai_train,
                   'signal_ai_input': signal_ai_input, 'signal_use': signal_use,
                   'signal_line': signal_line, 'signal_scope': signal_scope})) AS preferences
        FROM resolved_preferences
        GROUP BY ALL
    ),
    expanded AS (
        SELECT c.warc_filename, c.warc_record_offset, c.google_class, c.robots_parsed,
               c.global_group_match, c.global_root_allowed, c.global_class,
               a.token, a.category, a.operator, a.ignores_global_group,
               CASE WHEN n.verdicts IS NOT NULL THEN n.verdicts[a.token] END AS n,
               p.preferences
        FROM captures c
        LEFT JOIN named n USING (warc_filename, warc_record_offset)
        LEFT JOIN preferences p USING (warc_filename, warc_record_offset)
        CROSS JOIN agents a
    )
    SELECT warc_filename, warc_record_offset, agent, agent_category,
           group_match, root_allowed, rules_class,
           CASE google_class
               WHEN 'conditional_allow' THEN rules_class
               WHEN 'redirect' THEN 'unresolved_redirect'
               WHEN 'full_allow' THEN 'allow_all'
               ELSE 'disallow_all'
           END AS effective_class,
           CASE google_class
               WHEN 'conditional_allow' THEN root_allowed
               WHEN 'redirect' THEN NULL
               WHEN 'full_allow' THEN true
               ELSE false
           END AS effective_root_allowed,
           agent_operator,
           CASE WHEN stated THEN p.usage_train_ai WHEN root_allowed THEN 'unknown' END AS usage_train_ai,
           CASE WHEN stated THEN p.usage_search WHEN root_allowed THEN 'unknown' END AS usage_search,
           p.usage_line AS usage_line,
           CASE WHEN stated THEN p.signal_search WHEN root_allowed THEN 'unknown' END AS signal_search,
           CASE WHEN stated THEN p.signal_ai_train WHEN root_allowed THEN 'unknown' END AS signal_ai_train,
           CASE WHEN stated THEN p.signal_ai_input WHEN root_allowed THEN 'unknown' END AS signal_ai_input,
           CASE WHEN stated THEN p.signal_use WHEN root_allowed THEN 'unknown' END AS signal_use,
           p.signal_line AS signal_line,
           p.signal_scope AS signal_scope
    FROM (
        SELECT warc_filename, warc_record_offset, google_class, p, p IS NOT NULL AS stated,
               agent, agent_category, agent_operator,
               CASE WHEN NOT robots_parsed THEN NULL
                    WHEN n IS NOT NULL THEN 'specific'
                    WHEN ignores_global_group THEN 'none'
                    ELSE global_group_match END AS group_match,
               CASE WHEN NOT robots_parsed THEN NULL
                    WHEN n IS NOT NULL THEN n.root_allowed
                    WHEN ignores_global_group THEN true
                    ELSE global_root_allowed END AS root_allowed,
               CASE WHEN NOT robots_parsed THEN NULL
                    WHEN n IS NOT NULL THEN n.rules_class
                    WHEN ignores_global_group THEN 'allow_all'
                    ELSE global_class END AS rules_class
        FROM (
            SELECT *, token AS agent, category AS agent_category, operator AS agent_operator,
                   -- (looked up only where there is a map: most captures
                   -- have none, and a lookup costs even then)
                   CASE WHEN preferences IS NOT NULL
                        THEN preferences[CASE WHEN n IS NOT NULL OR ignores_global_group
                                              THEN token ELSE '*' END] END AS p
            FROM expanded
        )
    );

-- Derived (agent_verdict_counts): crawl, google_class, robots_parsed, agent, agent_category, group_match, root_allowed, rules_class, effective_class, effective_root_allowed, agent_operator, usage_train_ai, usage_search, usage_line, signal_search, signal_ai_train, signal_ai_input, signal_use, signal_line, signal_scope, captures
CREATE OR REPLACE TEMP VIEW agent_verdict_counts AS
    WITH summed AS (
        -- The inputs' rows summed first: the same crawler lists recur.
        SELECT * EXCLUDE (warc_filename, captures), sum(captures) AS captures
        FROM verdict_counts
        GROUP BY ALL
    ),
    per_agent AS (
        SELECT * EXCLUDE (agents), unnest(agents) AS agent
        FROM summed
    )
    SELECT v.crawl, v.google_class, v.robots_parsed, v.agent,
           a.category AS agent_category,
           v.group_match, v.root_allowed, v.rules_class, v.effective_class,
           v.effective_root_allowed, a.operator AS agent_operator,
           v.usage_train_ai, v.usage_search, v.usage_line, v.signal_search,
           v.signal_ai_train, v.signal_ai_input, v.signal_use, v.signal_line,
           v.signal_scope,
           sum(v.captures)::BIGINT AS captures
    FROM per_agent v
    JOIN agents a ON a.token = v.agent
    GROUP BY ALL;

-- END robostats schema --views
