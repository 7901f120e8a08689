-- Question: how far has a run got, shard by shard: how many inputs are done
-- and failed, and what did the done ones hold?
-- Reads: the manifests, _manifest/*.jsonl (input lines), through the table
-- macro manifest_inputs() (views.sql): an input counts once, as its latest line says
-- (lines of before times were recorded: done if any run did it).
-- Result: manifest (run, or shard-00003-of-00100), inputs_done,
-- inputs_failed, records, responses, captures, errors (rows of the errors
-- table), gigabytes (compressed input read); ordered by manifest.
SELECT manifest,
       count(*) FILTER (status = 'done')::BIGINT AS inputs_done,
       count(*) FILTER (status <> 'done')::BIGINT AS inputs_failed,
       (sum(records) FILTER (status = 'done'))::BIGINT AS records,
       (sum(responses) FILTER (status = 'done'))::BIGINT AS responses,
       (sum(captures) FILTER (status = 'done'))::BIGINT AS captures,
       (sum(errors) FILTER (status = 'done'))::BIGINT AS errors,
       round(sum(bytes) FILTER (status = 'done') / 1e9, 3) AS gigabytes
FROM manifest_inputs()
GROUP BY manifest
ORDER BY manifest;
