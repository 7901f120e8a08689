-- Question: how far has a run got, shard by shard: how many inputs are done
-- and failed, and what did the done ones hold?
-- Reads: the manifests, _manifest/*.jsonl (input lines); an input counts
-- once, as its latest line says (lines of before times were recorded: done
-- if any run did it).
-- Result: manifest (run, or shard-00003-of-00100), inputs_done,
-- inputs_failed, records, responses, captures, errors (rows of the errors
-- table), gigabytes (compressed input read); ordered by manifest.
WITH lines AS (
    SELECT regexp_extract(filename, '([^/\\]+)\.jsonl$', 1) AS manifest, *
    FROM read_json(
        -- robostats_out as views.sql's robostats_dir() reads it (this query
        -- needs no view): DuckDB's glob characters match only themselves.
        regexp_replace(coalesce(getvariable('robostats_out'), 'out'), '([*?\[])', '[\1]', 'g')
            || '/_manifest/*.jsonl',
        format = 'newline_delimited', filename = true,
        columns = {type: 'VARCHAR', input: 'VARCHAR', status: 'VARCHAR',
                   records: 'BIGINT', responses: 'BIGINT', captures: 'BIGINT',
                   errors: 'BIGINT', bytes: 'BIGINT', ended_ms: 'BIGINT'})
    WHERE type = 'input'
),
latest AS (
    SELECT * FROM lines
    QUALIFY row_number() OVER (PARTITION BY input
                               ORDER BY coalesce(ended_ms, 0) DESC, status = 'done' DESC,
                                        manifest DESC) = 1
)
SELECT manifest,
       count(*) FILTER (status = 'done')::BIGINT AS inputs_done,
       count(*) FILTER (status <> 'done')::BIGINT AS inputs_failed,
       (sum(records) FILTER (status = 'done'))::BIGINT AS records,
       (sum(responses) FILTER (status = 'done'))::BIGINT AS responses,
       (sum(captures) FILTER (status = 'done'))::BIGINT AS captures,
       (sum(errors) FILTER (status = 'done'))::BIGINT AS errors,
       round(sum(bytes) FILTER (status = 'done') / 1e9, 3) AS gigabytes
FROM latest
GROUP BY manifest
ORDER BY manifest;
