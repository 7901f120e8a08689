//! `robostats schema`: the tables and their columns, as text, as the
//! Markdown of `docs/tables.md`, or as the DuckDB views of
//! `queries/tables.sql`. All three come from the tables' row types.

use crate::cli::ExitCode;
use std::io::{self, BufWriter, Write};

use crate::classify::{
    SURT_MACRO, Table, View, capture_view_columns, capture_view_sql, table_view_columns,
    table_view_sql,
};
use crate::table::Column;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print Markdown tables (the column reference in docs/tables.md).
    #[arg(long, conflicts_with = "views")]
    markdown: bool,
    /// Print a DuckDB view per table over an output directory (what
    /// queries/tables.sql holds).
    #[arg(long)]
    views: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(io::stdout().lock());
    if args.views {
        views(&mut out)?;
    } else {
        columns(&mut out, args.markdown)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn columns(out: &mut impl Write, markdown: bool) -> io::Result<()> {
    let tables = Table::ALL
        .iter()
        .map(|t| (t.name(), "", t.columns().to_vec()));
    // A table's view of the same name, where its columns are not the
    // table's (body_rules computes its pattern's columns).
    let own = Table::ALL.iter().filter_map(|&t| {
        let columns = table_view_columns(t);
        (columns != t.columns()).then(|| (t.name(), " (view)", columns))
    });
    let lines = Table::ALL.iter().filter_map(|&t| {
        let view = t.capture_view()?;
        Some((view, " (view)", capture_view_columns(t)))
    });
    let views = View::ALL
        .iter()
        .map(|v| (v.name(), " (view)", v.columns().to_vec()));
    for (name, what, columns) in tables.chain(own).chain(lines).chain(views) {
        if markdown {
            writeln!(out, "#### `{name}`{what}\n")?;
            writeln!(out, "| column | type | description |")?;
            writeln!(out, "|---|---|---|")?;
        } else {
            writeln!(out, "{name}{what}")?;
        }
        for c in &columns {
            let null = if c.nullable { "" } else { " NOT NULL" };
            if markdown {
                writeln!(
                    out,
                    "| `{}` | {}{} | {} |",
                    c.name,
                    c.kind.sql_name(),
                    null,
                    c.description()
                )?;
            } else {
                writeln!(
                    out,
                    "  {:<28} {:<26} {}",
                    c.name,
                    format!("{}{}", c.kind.sql_name(), null),
                    c.description()
                )?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The macro `robostats_dir()`: the output directory, the DuckDB variable
/// `robostats_out` (default `out`), as a glob pattern that matches only
/// itself. DuckDB reads every path it is given as a pattern (`*`, `?` and
/// `[...]` match other names, in DuckDB 2.0 and 1.5), and `[*]`, `[?]` and
/// `[[]` match the character alone; `{`, `}` and `]` are plain.
///
/// Then the check that the directory holds a data set (every table
/// directory holds at least a schema-only part file), failing with a
/// message that names `robostats_out`: DuckDB's own error, a glob pattern
/// matching no file, does not say which variable to set.
///
/// Then a data set of an earlier format, told by a table's schema-only
/// file, which the run that made the directory wrote and none rewrites (a
/// `body_rules` that stores every rule's pattern and flags): an error that
/// says so, where the views would fail on a missing column.
///
/// Then, for a data set compacted on S3, its newest generation (which
/// compactions are read, which files are not): generations are numbered
/// 0, 1, 2... and compared as numbers, and each after 0 names the random
/// id of the one before (`compact` writes them so, and checks the whole
/// chain): a file out of that sequence, or a newest generation that does
/// not name the one before, is an error, and nothing is read on its word.
/// (Generation files are read as JSON with Hive partitioning off, never
/// with `read_text`, which has no such switch.)
///
/// Every part file is read with Hive partitioning off: DuckDB would
/// otherwise take a `name=value` directory of the path
/// (`s3://b/crawl=CC-MAIN-2025-05/`) for a column, replacing the table's
/// own `crawl` (or emptying a join on `body_digest`). Everything is TEMP:
/// the views and macros last as long as the session's variables they read,
/// so that a database file never keeps views that would read another
/// directory when opened again.
const DIR_MACRO: &str = r#"-- The output directory (robostats_out, default 'out') as a glob pattern
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
"#;

/// One view per table over `OUT/<table>/*.parquet`, `OUT` being
/// [`DIR_MACRO`]'s `robostats_dir()` (through its `robostats_table`, which
/// hides what a compaction on S3 retired), then the views derived from
/// them.
///
/// The tables stored once per body read one writer's rows per body
/// ([`table_view_sql`]), and each of their line tables makes a view joined
/// to the captures ([`capture_view_sql`]: `rules` for `body_rules`).
fn views(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{DIR_MACRO}")?;
    writeln!(out, "{SURT_MACRO}")?;
    for &table in Table::ALL {
        let source = format!("robostats_table('{}')", table.name());
        // One line where the query is short, and no blank line between
        // them (tables.sql stays short).
        let query = table_view_sql(table, &source).replace("\n    SEMI JOIN", " SEMI JOIN");
        match query.trim_start() {
            short if !short.contains('\n') && !short.contains(" JOIN ") => writeln!(
                out,
                "CREATE OR REPLACE TEMP VIEW {} AS {short};",
                table.name()
            )?,
            _ => writeln!(
                out,
                "CREATE OR REPLACE TEMP VIEW {} AS\n{query};",
                table.name()
            )?,
        }
    }
    writeln!(out)?;
    for &table in Table::ALL {
        if let Some(view) = table.capture_view() {
            writeln!(
                out,
                "-- {view}: {} joined to every capture of the body",
                table.name()
            )?;
            writeln!(out, "CREATE OR REPLACE TEMP VIEW {view} AS")?;
            writeln!(out, "{};\n", capture_view_sql(table))?;
        }
    }
    for &view in View::ALL {
        writeln!(
            out,
            "-- Derived ({}): {}",
            view.name(),
            names(view.columns())
        )?;
        writeln!(out, "CREATE OR REPLACE TEMP VIEW {} AS", view.name())?;
        writeln!(out, "{};\n", view.sql())?;
    }
    Ok(())
}

fn names(columns: &[Column]) -> String {
    columns
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}
