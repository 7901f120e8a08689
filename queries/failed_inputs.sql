-- Question: which inputs are failed now, and why? (Nothing of a failed
-- input is in the tables: the manifest keeps why it failed, and a re-run
-- tries it again.)
-- Reads: the manifests, _manifest/*.jsonl (input lines), through the table
-- macro manifest_inputs() (views.sql): an input counts once, as its latest
-- line says.
-- Result: input (its warc_filename), manifest (run, or shard-00003-of-00100),
-- reason (its first problem, in words), records, gigabytes (compressed input
-- read before it failed); ordered by input.
SELECT input, manifest, reason, records, round(bytes / 1e9, 6) AS gigabytes
FROM manifest_inputs()
WHERE status <> 'done'
ORDER BY input;
