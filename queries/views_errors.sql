-- The view over the errors table of one robostats output directory: one row
-- per record or file that could not be read (columns: warc_filename,
-- warc_record_offset, stage, kind, message).
--
-- Separate from views.sql because robostats writes OUT/errors/ only when an
-- input had an error, and DuckDB cannot create a view over no files. Read it
-- after views.sql, with the same variable:
--
--   SET VARIABLE robostats_out = 'path/to/out';   -- default: 'out'
--   .read queries/views_errors.sql

CREATE OR REPLACE VIEW errors AS
    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/errors/*.parquet');
