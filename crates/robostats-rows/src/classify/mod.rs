//! Response and parse -> the rows of every table: what the tables say
//! about one response record. Pure functions, safe to call from any worker
//! thread.
//!
//! ```text
//! Record + Response --capture--> Capture (the captures row)
//!                   --parse----> RobotsTxt (2xx only)
//!                                  --lines---> bodies, body_user_agents, body_rules, body_sitemaps,
//!                                              body_directives, body_preference_statements rows
//!                                              (once per distinct body: Rows::body_writer)
//!                                  --verdict-> the * verdict (on the capture),
//!                                              named_verdicts rows (crawlers a group names),
//!                                              resolved_preferences rows (files with
//!                                              Content-Signal or Content-Usage lines)
//! Error -----------------------> errors row
//! ```
//!
//! Each table is declared here, once, as the struct of its row
//! (`crate::table::columns!`): the field types give the column types,
//! the doc comments the descriptions, and [`Table`] lists the tables in
//! output order. Rows go to the caller's [`Rows`] sink (robostats turns
//! them into Arrow arrays in `output::batch`); nothing after this module
//! computes a value.

pub mod agents;
pub mod capture;
pub mod copies;
pub mod crawler;
pub mod key;
pub mod lines;
pub mod tally;
pub mod typo;
pub mod verdict;
pub mod views;

use std::sync::OnceLock;

pub use agents::AgentRow;
pub use capture::{Capture, RobotsColumns};
pub use key::{BodyKey, BodyRow, CaptureKey};
pub use lines::{DirectiveRow, PreferenceStatementRow, RuleRow, SitemapRow, UserAgentRow};
pub use tally::{VerdictTally, VerdictTallyRow};
pub use verdict::{
    EffectiveClass, Judged, NamedVerdictRow, PreferenceColumns, ResolvedPreferenceRow, Verdict,
    crawl_delay, verdicts,
};
pub use views::{
    RulePatternColumns, SURT_MACRO, SitemapHostColumns, VerdictCountRow, VerdictRow, body_view_sql,
    capture_view_columns, capture_view_sql, table_view_columns, table_view_sql,
};

use crate::http::{GoogleClass, Response};
use crate::robots::{GOOGLE_MAX_BYTES, RobotsTxt};
use crate::table::{Column, Columns, columns, columns_of};
use crate::warc::Record;
use crate::warc::{Error, ErrorKind, Stage};
use agents::AgentList;

/// How captures are analysed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes of a body that are parsed for rules: [`GOOGLE_MAX_BYTES`] by
    /// default (Google's crawler policy), `usize::MAX` for the whole body.
    pub size_limit: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            size_limit: GOOGLE_MAX_BYTES,
        }
    }
}

/// The robots.txt parse of a capture: only 2xx responses have rules (for
/// every other status Google ignores the body).
pub fn parse_robots<'a>(
    capture: &Capture<'_>,
    body: &'a [u8],
    opts: &Options,
) -> Option<RobotsTxt<'a>> {
    (capture.google_class == GoogleClass::ConditionalAllow)
        .then(|| RobotsTxt::parse_with_limit(body, opts.size_limit))
}

columns! {
    /// `errors`: one row per record or file that could not be read.
    #[derive(Clone, Debug, PartialEq)]
    pub struct ErrorRow<'a> {
        /// the WARC file
        pub warc_filename: &'a str as dict,
        /// where in the file (the gzip member's or record's offset); null for a
        /// whole file
        pub warc_record_offset: Option<u64>,
        /// open, gzip, warc or http
        pub stage: Stage,
        /// what went wrong (the list: docs/warc.md)
        pub kind: ErrorKind,
        /// the error, for people
        pub message: &'a str,
    }
}

impl<'a> ErrorRow<'a> {
    /// The row of an error.
    pub fn of(e: &'a Error) -> ErrorRow<'a> {
        ErrorRow {
            warc_filename: e.file(),
            warc_record_offset: e.offset(),
            stage: e.stage(),
            kind: e.kind(),
            message: e.message(),
        }
    }
}

/// A table's row type.
pub trait Row: Columns {
    /// Its table.
    const TABLE: Table;
}

/// Where rows go (robostats' `output::batch` builders, or a test's list).
pub trait Rows {
    /// Takes one row.
    fn push<R: Row>(&mut self, row: &R);

    /// Whether the rows of the body `digest` (its `bodies` row and line
    /// rows) are wanted, and with which `writer`: `None` when they are
    /// stored already. By default every body's rows are, with writer 0.
    fn body_writer(&mut self, _digest: &str) -> Option<i64> {
        Some(0)
    }
}

/// Declares [`Table`]: every table, its name and its row type.
macro_rules! tables {
    ($( $variant:ident = $name:literal => $row:ident, )+) => {
        /// The tables, in output order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Table {
            $( #[doc = concat!("`", $name, "`: see [`", stringify!($row), "`].")] $variant, )+
        }

        impl Table {
            /// Every table, in output order.
            pub const ALL: &'static [Table] = &[$(Table::$variant),+];

            /// The table's name: its directory under the output directory.
            pub fn name(self) -> &'static str {
                match self {
                    $( Table::$variant => $name, )+
                }
            }

            /// Its rows lead back to inputs: it starts with the input's
            /// name (`warc_filename`), and an input's rows are in its part
            /// files. Not `agents`, written once per data set, nor the
            /// tables stored once per body ([`Table::per_body`]).
            pub fn per_input(self) -> bool {
                self != Table::Agents && !self.per_body()
            }

            /// Its rows lead back to input records: it starts with the
            /// capture key (`warc_filename`, `warc_record_offset`). All
            /// per-input tables but `verdict_counts` (counts per input).
            pub fn per_record(self) -> bool {
                self.per_input() && self != Table::VerdictCounts
            }

            /// It is stored once per distinct body: it starts with the
            /// body key (`body_digest`, `writer`), and its part files
            /// outlive the input that wrote them (other inputs' captures
            /// of the body lead to them).
            pub fn per_body(self) -> bool {
                matches!(
                    self,
                    Table::Bodies
                        | Table::UserAgents
                        | Table::Rules
                        | Table::Sitemaps
                        | Table::Directives
                        | Table::PreferenceStatements
                )
            }

            /// The view `queries/tables.sql` makes of a line table stored
            /// once per body: its rows joined to every capture of the
            /// body (`rules` for `body_rules`).
            pub fn capture_view(self) -> Option<&'static str> {
                (self.per_body() && self != Table::Bodies)
                    .then(|| self.name().trim_start_matches("body_"))
            }

            /// The table's columns, from its row type.
            pub fn columns(self) -> &'static [Column] {
                match self {
                    $( Table::$variant => {
                        static COLUMNS: OnceLock<Vec<Column>> = OnceLock::new();
                        COLUMNS.get_or_init(columns_of::<$row<'static>>)
                    } )+
                }
            }
        }

        $( impl Row for $row<'_> {
            const TABLE: Table = Table::$variant;
        } )+
    };
}

tables! {
    Captures = "captures" => Capture,
    Bodies = "bodies" => BodyRow,
    UserAgents = "body_user_agents" => UserAgentRow,
    Rules = "body_rules" => RuleRow,
    Sitemaps = "body_sitemaps" => SitemapRow,
    Directives = "body_directives" => DirectiveRow,
    PreferenceStatements = "body_preference_statements" => PreferenceStatementRow,
    NamedVerdicts = "named_verdicts" => NamedVerdictRow,
    ResolvedPreferences = "resolved_preferences" => ResolvedPreferenceRow,
    VerdictCounts = "verdict_counts" => VerdictTallyRow,
    Errors = "errors" => ErrorRow,
    Agents = "agents" => AgentRow,
}

/// A view derived from the tables by `queries/tables.sql`, with its columns
/// declared by a row type like a table's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// `agent_verdicts`: see [`VerdictRow`] and [`views::agent_verdicts_sql`].
    AgentVerdicts,
    /// `agent_verdict_counts`: see [`VerdictCountRow`] and
    /// [`views::agent_verdict_counts_sql`].
    AgentVerdictCounts,
}

impl View {
    /// Every view, in output order.
    pub const ALL: &'static [View] = &[View::AgentVerdicts, View::AgentVerdictCounts];

    /// The view's name.
    pub fn name(self) -> &'static str {
        match self {
            View::AgentVerdicts => "agent_verdicts",
            View::AgentVerdictCounts => "agent_verdict_counts",
        }
    }

    /// Its query over the table views.
    pub fn sql(self) -> String {
        match self {
            View::AgentVerdicts => views::agent_verdicts_sql(),
            View::AgentVerdictCounts => views::agent_verdict_counts_sql(),
        }
    }

    /// Its columns, from its row type.
    pub fn columns(self) -> &'static [Column] {
        match self {
            View::AgentVerdicts => {
                static COLUMNS: OnceLock<Vec<Column>> = OnceLock::new();
                COLUMNS.get_or_init(columns_of::<VerdictRow<'static>>)
            }
            View::AgentVerdictCounts => {
                static COLUMNS: OnceLock<Vec<Column>> = OnceLock::new();
                COLUMNS.get_or_init(columns_of::<VerdictCountRow<'static>>)
            }
        }
    }
}

/// What became of a response record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// A `captures` row, and the rows of its parse and verdicts.
    Captured,
    /// A `captures` row of class `failed` (its HTTP head cannot be read)
    /// and an `errors` row saying why.
    CapturedWithError,
    /// No capture (no `WARC-Target-URI`): an `errors` row only.
    Lost,
}

/// Every row a response record of the input `file` makes (`crawl` is the
/// crawl its reader found): its capture (with the `*` verdict), the rows
/// of its robots.txt parse and of the crawlers a group names, and an
/// `errors` row where something could not be read. Every crawler's verdict
/// on the capture is counted in `tally` (the `verdict_counts` rows, made
/// once the input is read).
pub fn response(
    file: &str,
    crawl: Option<&str>,
    record: &Record,
    opts: &Options,
    agents: &AgentList,
    out: &mut impl Rows,
    tally: &mut VerdictTally,
) -> Fate {
    let response = Response::parse(record, file);
    let mut capture = match Capture::new(file, crawl, record, response.as_ref()) {
        Ok(c) => c,
        Err(e) => {
            out.push(&ErrorRow::of(&e));
            return Fate::Lost;
        }
    };
    let fate = match &response {
        Ok(_) => Fate::Captured,
        Err(e) => {
            // The capture says `failed`; the errors table says why.
            out.push(&ErrorRow::of(e));
            Fate::CapturedWithError
        }
    };
    let body = response.as_ref().map_or(&[][..], |r| r.body(record));
    let robots = parse_robots(&capture, body, opts);
    let unnamed = robots.as_ref().map(verdict::global_rules);
    if let Some(robots) = &robots {
        let global = Verdict::of(capture.google_class, unnamed);
        capture.robots = RobotsColumns::of(robots, &global);
    }
    out.push(&capture);
    let judged = robots.as_ref().map(|robots| {
        if let Some(digest) = capture.robots.body_digest.as_deref()
            && let Some(writer) = out.body_writer(digest)
        {
            let at = BodyKey {
                body_digest: digest,
                writer,
            };
            lines::push_lines(at, robots, out);
        }
        verdict::push_agent_rows(capture.at, robots, agents, out)
    });
    tally.add(
        crawl,
        capture.google_class,
        unnamed.zip(judged.as_ref()),
        agents,
    );
    fate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::KindRecorder;
    use crate::warc::WarcReader;

    /// Every row, recorded as its table and whether it matches its
    /// declared columns.
    #[derive(Default)]
    struct Checked(Vec<(Table, Result<(), String>)>);

    impl Rows for Checked {
        fn push<R: Row>(&mut self, row: &R) {
            self.0.push((R::TABLE, KindRecorder::check(row)));
        }
    }

    #[test]
    fn every_table_starts_with_the_capture_key_and_names_are_unique() {
        for &table in Table::ALL {
            let columns = table.columns();
            if table.per_input() {
                assert_eq!(columns[0].name, "warc_filename", "{table:?}");
            }
            if table.per_record() {
                assert_eq!(columns[1].name, "warc_record_offset", "{table:?}");
            }
            if table.per_body() {
                assert_eq!(columns[0].name, "body_digest", "{table:?}");
                assert_eq!(columns[1].name, "writer", "{table:?}");
            }
            let mut names: Vec<_> = columns.iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), columns.len(), "{table:?}");
            for c in columns {
                assert!(!c.description().is_empty(), "{table:?}.{}", c.name);
            }
        }
    }

    #[test]
    fn rows_of_a_sample_match_their_declared_columns() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"
        );
        let mut reader = WarcReader::open(path).unwrap();
        let agents = AgentList::default_list();
        let mut rows = Checked::default();
        let mut tally = VerdictTally::new();
        let mut record = Record::new();
        while reader.read_record(&mut record).unwrap() {
            if record.record_type() == crate::warc::RecordType::Response {
                response(
                    "f",
                    reader.crawl(),
                    &record,
                    &Options::default(),
                    &agents,
                    &mut rows,
                    &mut tally,
                );
            }
        }
        for row in tally.rows("f", &agents) {
            rows.push(&row);
        }
        for &table in Table::ALL
            .iter()
            .filter(|t| (t.per_input() || t.per_body()) && **t != Table::Errors)
        {
            assert!(rows.0.iter().any(|(t, _)| *t == table), "{table:?}");
        }
        for (table, checked) in rows.0 {
            assert_eq!(checked, Ok(()), "{table:?}");
        }
        let e = Error::new(Stage::Open, ErrorKind::Io, "f", None, "x");
        assert_eq!(KindRecorder::check(&ErrorRow::of(&e)), Ok(()));
        for row in agents.rows() {
            assert_eq!(KindRecorder::check(&row), Ok(()));
        }
    }
}
