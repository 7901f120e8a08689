//! The SQL the report runs, compiled into the binary: the views
//! and the files of `queries/` the figures read, each declared once in
//! [`queries!`] as a [`Query`], the handle a figure reads its rows by.
//!
//! ```
//! use robostats_report::queries::Query;
//! assert_eq!(Query::PolicyTrends.name(), "policy_trends");
//! assert!(Query::PolicyTrends.sql().contains("agent"));
//! ```
//!
//! A query that is not declared is not an empty table but an error of the
//! build:
//!
//! ```compile_fail
//! let _ = robostats_report::queries::Query::PolicyTrend;
//! ```

/// `queries/tables.sql` (a view per table, generated), `queries/views.sql`
/// (the views derived from them), then `queries/strata.sql` (the
/// popularity strata and the studies' definitions): the views every query
/// reads.
pub const VIEWS: &str = concat!(
    include_str!("../../../queries/tables.sql"),
    "\n",
    include_str!("../../../queries/views.sql"),
    "\n",
    include_str!("../../../queries/strata.sql")
);

/// Declares the report's queries: each a variant of [`Query`], its file's
/// stem (`queries/<stem>.sql`, compiled in), `latest` when the report reads
/// only its rows of the report's crawl (the latest, as every figure of one
/// crawl reads it: its shares then have that crawl's denominators) and,
/// after `first`, how many of those rows are needed. A figure names a query
/// by its variant, so a name that is not here does not compile.
macro_rules! queries {
    ($($variant:ident = $name:literal $($latest:ident)? $(first $limit:literal)?),* $(,)?) => {
        /// A query of `queries/` that the report runs: `Results::get` gives
        /// its rows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Query {
            $(
                #[doc = concat!("`queries/", $name, ".sql`")]
                $variant,
            )*
        }

        impl Query {
            /// Every query the report runs, in order.
            pub const ALL: &[Query] = &[$(Query::$variant),*];

            /// The file's stem (`policy_trends` for
            /// `queries/policy_trends.sql`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Query::$variant => $name,)*
                }
            }

            /// The file's text.
            pub const fn sql(self) -> &'static str {
                match self {
                    $(Query::$variant => include_str!(concat!("../../../queries/", $name, ".sql")),)*
                }
            }

            /// Only the first rows are needed (a list of the most frequent
            /// names has a row per name of the crawl: millions).
            pub const fn limit(self) -> Option<u64> {
                match self {
                    $(Query::$variant => queries!(@limit $($limit)?),)*
                }
            }

            /// Only the rows of the report's crawl are read (the query has
            /// a `crawl` column, and a row per crawl).
            pub const fn latest_crawl(self) -> bool {
                match self {
                    $(Query::$variant => queries!(@latest $($latest)?),)*
                }
            }
        }
    };
    (@limit) => { None };
    (@limit $limit:literal) => { Some($limit) };
    (@latest) => { false };
    (@latest latest) => { true };
}

queries!(
    OutcomesPerCrawl = "outcomes_per_crawl",
    PolicyTrends = "policy_trends",
    PolicyTransitions = "policy_transitions",
    BodyChanges = "body_changes",
    CrawlerBias = "crawler_bias",
    LineCounts = "line_counts" latest,
    SizeHistogram = "size_histogram" latest,
    Templates = "templates",
    DuplicateBodies = "duplicate_bodies",
    TemplateAiBlocking = "template_ai_blocking",
    TopUserAgents = "top_user_agents" latest first 12,
    SitemapHosts = "sitemap_hosts" latest first 12,
    NonstandardDirectives = "nonstandard_directives" latest first 12,
    Typos = "typos" latest first 12,
    PreferenceAdoption = "preference_adoption" latest,
    PreferenceLabels = "preference_labels" latest,
    PreferenceContradictions = "preference_contradictions" latest,
    Definitions = "definitions",
    ByRank = "by_rank" latest,
    DataSet = "data_set",
    FailedInputs = "failed_inputs",
);

/// Declares every ready query of `queries/` (but the views, which they
/// read): [`FILES`], each file's stem and text, compiled in, for
/// `robostats query` and the Python package (a test checks that the list
/// is the directory's).
macro_rules! files {
    ($($name:literal),* $(,)?) => {
        /// Every ready query of `queries/`: its file's stem and its text.
        pub const FILES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../queries/", $name, ".sql"))),)*
        ];
    };
}

files!(
    "ai_crawler_blocking",
    "body_changes",
    "by_rank",
    "cloudflare_managed",
    "content_usage_headers",
    "crawler_bias",
    "data_set",
    "definitions",
    "duplicate_bodies",
    "effective_classes",
    "failed_inputs",
    "host_outcome_shares",
    "host_outcomes",
    "ingest_progress",
    "latest_capture_per_host",
    "latest_capture_per_url",
    "line_counts",
    "no_ai_training_hosts",
    "nonstandard_directives",
    "outcomes_per_crawl",
    "policy_transitions",
    "policy_trends",
    "preference_adoption",
    "preference_contradictions",
    "preference_labels",
    "preference_vintage",
    "redirect_chains",
    "redirect_resolution",
    "rsl_licenses",
    "sitemap_hosts",
    "sitemaps_per_host",
    "size_buckets",
    "size_histogram",
    "size_stats",
    "status_classes",
    "status_codes",
    "template_ai_blocking",
    "templates",
    "top_rulesets",
    "top_user_agents",
    "typos",
    "valid_robotstxt",
);

/// The text of the ready query `name` (a file's stem), if there is one.
pub fn file(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, sql)| *sql)
}

impl Query {
    /// The query's place in [`Query::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The query reads a rank list (the DuckDB variable `robostats_ranks`,
    /// `--ranks`): the report runs it only when given one.
    pub const fn reads_ranks(self) -> bool {
        matches!(self, Query::ByRank)
    }

    /// The queries a report runs, in the order of [`Query::ALL`]: every
    /// one, but those that read a rank list only when `ranked`.
    pub fn of_report(ranked: bool) -> Vec<Query> {
        Query::ALL
            .iter()
            .copied()
            .filter(|q| ranked || !q.reads_ranks())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_query_is_named_once_and_indexed_in_order() {
        for (i, q) in Query::ALL.iter().enumerate() {
            assert_eq!(q.index(), i);
            // The variant is the file's stem in camel case.
            let camel: String = q
                .name()
                .split('_')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            assert_eq!(format!("{q:?}"), camel);
            assert!(!q.sql().trim().is_empty(), "{}", q.name());
        }
        let mut names: Vec<&str> = Query::ALL.iter().map(|q| q.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Query::ALL.len());
    }

    #[test]
    fn the_rank_list_s_query_runs_only_with_a_rank_list() {
        assert_eq!(Query::of_report(true), Query::ALL);
        let plain = Query::of_report(false);
        assert_eq!(plain.len(), Query::ALL.len() - 1);
        assert!(!plain.contains(&Query::ByRank));
        assert!(Query::ByRank.reads_ranks() && Query::ByRank.latest_crawl());
    }

    #[test]
    fn every_file_of_queries_is_a_ready_query_and_the_report_s_are_among_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../queries");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".sql").map(str::to_owned))
            .filter(|n| !["tables", "views", "strata"].contains(&n.as_str()))
            .collect();
        on_disk.sort();
        let listed: Vec<String> = FILES.iter().map(|(n, _)| (*n).to_owned()).collect();
        assert_eq!(
            listed, on_disk,
            "files! in queries.rs lists queries/*.sql, sorted"
        );
        for q in Query::ALL {
            assert_eq!(file(q.name()), Some(q.sql()), "{}", q.name());
        }
        assert_eq!(file("views"), None);
        assert_eq!(file("strata"), None);
        assert_eq!(file("tables"), None);
    }
}
