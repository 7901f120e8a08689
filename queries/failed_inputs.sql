-- Question: which inputs are failed now, and why? (Nothing of a failed
-- input is in the tables: the manifest keeps why it failed, and a re-run
-- tries it again.)
-- Reads: the manifests, _manifest/*.jsonl (input lines); an input counts
-- once, as its latest line says.
-- Result: input (its warc_filename), manifest (run, or shard-00003-of-00100),
-- reason (its first problem, in words), records, gigabytes (compressed input
-- read before it failed); ordered by input.
WITH lines AS (
    SELECT regexp_extract(filename, '([^/\\]+)\.jsonl$', 1) AS manifest, *
    FROM read_json(
        -- robostats_out as views.sql's robostats_dir() reads it (this query
        -- needs no view): DuckDB's glob characters match only themselves.
        regexp_replace(coalesce(getvariable('robostats_out'), 'out'), '([*?\[])', '[\1]', 'g')
            || '/_manifest/*.jsonl',
        format = 'newline_delimited', filename = true,
        columns = {type: 'VARCHAR', input: 'VARCHAR', status: 'VARCHAR',
                   reason: 'VARCHAR', records: 'BIGINT', bytes: 'BIGINT',
                   ended_ms: 'BIGINT'})
    WHERE type = 'input'
),
latest AS (
    SELECT * FROM lines
    QUALIFY row_number() OVER (PARTITION BY input
                               ORDER BY coalesce(ended_ms, 0) DESC, status = 'done' DESC,
                                        manifest DESC) = 1
)
SELECT input, manifest, reason, records, round(bytes / 1e9, 6) AS gigabytes
FROM latest
WHERE status <> 'done'
ORDER BY input;
