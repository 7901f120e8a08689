//! The SQL the report runs, compiled into the binary: `queries/views.sql`
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

/// `queries/views.sql`: the views every query reads.
pub const VIEWS: &str = include_str!("../../../queries/views.sql");

/// Declares the report's queries: each a variant of [`Query`], its file's
/// stem (`queries/<stem>.sql`, compiled in) and, after `first`, how many of
/// its rows are needed. A figure names a query by its variant, so a name
/// that is not here does not compile.
macro_rules! queries {
    ($($variant:ident = $name:literal $(first $limit:literal)?),* $(,)?) => {
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
        }
    };
    (@limit) => { None };
    (@limit $limit:literal) => { Some($limit) };
}

queries!(
    OutcomesPerCrawl = "outcomes_per_crawl",
    PolicyTrends = "policy_trends",
    PolicyTransitions = "policy_transitions",
    BodyChanges = "body_changes",
    CrawlerBias = "crawler_bias",
    LineCounts = "line_counts",
    SizeHistogram = "size_histogram",
    Templates = "templates",
    DuplicateBodies = "duplicate_bodies",
    TemplateAiBlocking = "template_ai_blocking",
    TopUserAgents = "top_user_agents" first 12,
    SitemapHosts = "sitemap_hosts" first 12,
    NonstandardDirectives = "nonstandard_directives" first 12,
    Typos = "typos" first 12,
    PreferenceAdoption = "preference_adoption",
    PreferenceLabels = "preference_labels",
    PreferenceContradictions = "preference_contradictions",
    Definitions = "definitions",
    DataSet = "data_set",
);

impl Query {
    /// The query's place in [`Query::ALL`].
    pub const fn index(self) -> usize {
        self as usize
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
}
