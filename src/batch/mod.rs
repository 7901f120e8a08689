//! Rows -> Arrow record batches: every output table's columns, declared in
//! one place ([`columns`]), and [`Batches`], which fills them capture by
//! capture.
//!
//! Every table starts with the capture key `(warc_filename,
//! warc_record_offset)`, so all tables join on it; column names follow
//! Common Crawl's columnar index where a column means the same thing.

pub mod columns;
mod table;

pub use table::{Column, Kind, Row, TableBuilder, schema_of};

use arrow::array::RecordBatch;

use crate::classify::agents::AgentList;
use crate::classify::{EffectiveClass, Verdict, crawl_delay};
use crate::error::Error;
use crate::http::{Capture, UrlFacts, registered_domain};
use crate::robots::{GroupMatch, RobotsTxt, RuleKind, RulesClass};

/// The tables, in the order of [`columns::TABLES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Table {
    Captures,
    UserAgents,
    Rules,
    Sitemaps,
    Directives,
    AgentVerdicts,
    Errors,
}

impl Table {
    /// Every table, in output order.
    pub const ALL: [Table; 7] = [
        Table::Captures,
        Table::UserAgents,
        Table::Rules,
        Table::Sitemaps,
        Table::Directives,
        Table::AgentVerdicts,
        Table::Errors,
    ];

    /// The table's name (its directory under the output directory).
    pub fn name(self) -> &'static str {
        columns::TABLES[self as usize].0
    }

    /// The table's columns.
    pub fn columns(self) -> &'static [Column] {
        columns::TABLES[self as usize].1
    }
}

fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

fn count(n: u32) -> Option<i32> {
    Some(i32::try_from(n).unwrap_or(i32::MAX))
}

/// Builders for every table, filled capture by capture, for the rows of
/// one input file.
pub struct Batches {
    tables: Vec<TableBuilder>,
    file: String,
    /// Per agent of the list: its keys in `agent_category` and
    /// `agent_operator`.
    agent_keys: Vec<(i32, i32)>,
}

fn unique<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

impl Batches {
    /// Empty builders for every table, for the rows of the input `file`
    /// (every row's `warc_filename`) and the crawlers of `agents`.
    pub fn new(file: &str, agents: &AgentList) -> Batches {
        let mut tables: Vec<TableBuilder> = Table::ALL
            .iter()
            .map(|t| TableBuilder::new(t.name(), t.columns()))
            .collect();
        for t in &mut tables {
            t.preset("warc_filename", [file]);
        }
        let categories = unique(
            agents
                .agents
                .iter()
                .map(|a| a.category.as_str())
                .chain(["global"]),
        );
        let operators = unique(
            agents
                .agents
                .iter()
                .map(|a| a.operator.as_str())
                .chain([""]),
        );
        let key = |list: &[&str], v: &str| list.iter().position(|x| *x == v).unwrap() as i32;
        let agent_keys = agents
            .agents
            .iter()
            .map(|a| (key(&categories, &a.category), key(&operators, &a.operator)))
            .collect();
        let verdicts = &mut tables[Table::AgentVerdicts as usize];
        verdicts.preset(
            "agent",
            agents.agents.iter().map(|a| a.token.as_str()).chain(["*"]),
        );
        verdicts.preset("agent_category", categories.iter().copied());
        verdicts.preset("agent_operator", operators.iter().copied());
        verdicts.preset("group_match", GroupMatch::ALL.map(GroupMatch::as_str));
        verdicts.preset("rules_class", RulesClass::ALL.map(RulesClass::as_str));
        verdicts.preset(
            "effective_class",
            EffectiveClass::ALL.map(EffectiveClass::as_str),
        );
        tables[Table::Rules as usize].preset("kind", RuleKind::ALL.map(RuleKind::as_str));
        Batches {
            tables,
            file: file.to_owned(),
            agent_keys,
        }
    }

    /// The key of this input's file name.
    fn file_key(&self, file: &str) -> Option<i32> {
        assert_eq!(file, self.file, "rows of one input per Batches");
        Some(0)
    }

    /// The builder of one table.
    pub fn table(&mut self, t: Table) -> &mut TableBuilder {
        &mut self.tables[t as usize]
    }

    /// Rows waiting in the builder of `t`.
    pub fn len(&self, t: Table) -> usize {
        self.tables[t as usize].len()
    }

    /// No rows wait in any builder.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(TableBuilder::is_empty)
    }

    /// The batches of the tables holding at least `min_rows` rows (all
    /// non-empty ones for `min_rows` 1); those builders start empty again.
    pub fn take(&mut self, min_rows: usize) -> Vec<(Table, RecordBatch)> {
        Table::ALL
            .iter()
            .zip(&mut self.tables)
            .filter(|(_, b)| b.len() >= min_rows.max(1))
            .map(|(t, b)| (*t, b.finish()))
            .collect()
    }

    /// One capture: its `captures` row, and the rows of its parse and its
    /// agents' verdicts.
    pub fn push_capture(
        &mut self,
        c: &Capture,
        robots: Option<&RobotsTxt<'_>>,
        verdicts: &[Verdict],
        agents: &AgentList,
    ) {
        let file = self.file_key(&c.warc_filename);
        let offset = Some(c.warc_record_offset as i64);
        let url = c.url_facts.as_ref();
        let stats = robots.map(|r| r.stats());
        let global = verdicts.last().filter(|v| v.agent.is_none());
        let mut row = self.table(Table::Captures).row();
        row.key(file)
            .i64(offset)
            .i64(c.warc_record_length.map(|l| l as i64))
            .i64(Some(c.warc_record_offset_in_member as i64))
            .str(c.warc_record_id.as_deref())
            .dict(c.crawl.as_deref())
            .str(Some(&c.url))
            .dict(url.map(|u| u.url_protocol.as_str()))
            .str(url.and_then(|u| u.url_host_name.as_deref()))
            .str(url.and_then(|u| u.url_host_registered_domain.as_deref()))
            .i32(url.and_then(|u| u.url_port).map(i32::from))
            .str(url.map(|u| u.url_path.as_str()))
            .str(url.and_then(|u| u.url_query.as_deref()))
            .timestamp_us(c.fetch_time_unix.map(|s| s.saturating_mul(1_000_000)))
            .str(c.ip_address.as_deref())
            .str_list(c.warc_protocols.iter().map(String::as_str))
            .i32(c.fetch_status.map(i32::from))
            .dict(c.http_error.map(|k| k.as_str()))
            .dict(Some(c.google_class.as_str()))
            .dict(Some(c.google_current_class.as_str()))
            .dict(Some(c.cc_class.as_str()))
            .str(c.fetch_redirect.as_deref())
            .dict(c.redirect_kind.map(|k| k.as_str()))
            .str(c.content_type.as_deref())
            .dict(c.content_mime_type.as_deref())
            .dict(c.content_mime_detected.as_deref())
            .dict(c.content_encoding.as_deref())
            .dict(c.transfer_encoding.as_deref())
            .bool(Some(c.payload_encoded))
            .str(c.content_digest.as_deref())
            .dict(c.content_truncated.as_deref())
            .bool(Some(c.record_incomplete))
            .bool(Some(c.body_capped))
            .i64(Some(c.payload_length as i64))
            .dict(c.bom.map(|b| b.as_str()))
            .bool(Some(c.valid_utf8))
            .bool(Some(c.looks_like_html))
            .bool(Some(c.over_500kib))
            .i64(
                c.cache_max_age
                    .map(|a| i64::try_from(a).unwrap_or(i64::MAX)),
            )
            .bool(Some(robots.is_some()))
            .bool(robots.map(|r| {
                r.rules()
                    .iter()
                    .any(|rule| rule.group.is_some() && !rule.is_empty())
            }))
            .i32(stats.and_then(|s| count(s.lines)))
            .i32(stats.and_then(|s| count(s.empty_lines)))
            .i32(stats.and_then(|s| count(s.comment_lines)))
            .i32(stats.and_then(|s| count(s.invalid_lines)))
            .i32(robots.and_then(|r| count(r.groups().len() as u32)))
            .i32(stats.and_then(|s| count(s.user_agents)))
            .i32(stats.and_then(|s| count(s.allows)))
            .i32(stats.and_then(|s| count(s.disallows)))
            .i32(stats.and_then(|s| count(s.empty_rules)))
            .i32(stats.and_then(|s| count(s.rules_outside_group)))
            .i32(stats.and_then(|s| count(s.sitemaps)))
            .i32(stats.and_then(|s| count(s.unknown)))
            .i32(stats.and_then(|s| count(s.known_elsewhere)))
            .i32(stats.and_then(|s| count(s.typos)))
            .i32(stats.and_then(|s| count(s.missing_colon)))
            .i32(stats.and_then(|s| count(s.too_long)))
            .i64(stats.map(|s| s.bytes_ignored as i64))
            .f64(robots.and_then(crawl_delay))
            .dict(global.and_then(|v| v.class).map(|c| c.as_str()))
            .bool(global.and_then(|v| v.root_allowed))
            .end();

        if let Some(robots) = robots {
            self.push_parse(c, robots);
        }
        for v in verdicts {
            let (agent, (category, operator)) = match v.agent {
                Some(i) => (i as i32, self.agent_keys[i]),
                None => (agents.agents.len() as i32, self.global_agent_keys()),
            };
            self.table(Table::AgentVerdicts)
                .row()
                .key(file)
                .i64(offset)
                .key(Some(agent))
                .key(Some(category))
                .key(v.group.map(|g| g as i32))
                .bool(v.root_allowed)
                .key(v.class.map(|c| c as i32))
                .key(Some(v.effective as i32))
                .bool(v.effective_root_allowed)
                .key(Some(operator))
                .end();
        }
    }

    /// The keys of `*`'s category (`global`) and operator (none).
    fn global_agent_keys(&self) -> (i32, i32) {
        let t = &self.tables[Table::AgentVerdicts as usize];
        (
            t.preset_key("agent_category", "global"),
            t.preset_key("agent_operator", ""),
        )
    }

    fn push_parse(&mut self, c: &Capture, robots: &RobotsTxt<'_>) {
        let file = self.file_key(&c.warc_filename);
        let offset = Some(c.warc_record_offset as i64);
        let line = |n: u32| count(n);
        let group = |g: Option<usize>| g.map(|g| i32::try_from(g).unwrap_or(i32::MAX));
        for ua in robots.user_agents() {
            self.table(Table::UserAgents)
                .row()
                .key(file)
                .i64(offset)
                .i32(group(Some(ua.group)))
                .i32(line(ua.line))
                .str(Some(&lossy(ua.key)))
                .str(Some(&lossy(ua.value)))
                .str(Some(&lossy(ua.product)))
                .bool(Some(ua.global))
                .bool(Some(ua.typo))
                .end();
        }
        for rule in robots.rules() {
            self.table(Table::Rules)
                .row()
                .key(file)
                .i64(offset)
                .i32(group(rule.group))
                .i32(line(rule.line))
                .key(Some(rule.kind as i32))
                .str(Some(&lossy(rule.key)))
                .str(Some(&lossy(rule.value)))
                .str(Some(&lossy(&rule.pattern)))
                .i32(Some(i32::try_from(rule.priority()).unwrap_or(i32::MAX)))
                .bool(Some(rule.has_wildcard()))
                .bool(Some(rule.has_end_anchor()))
                .bool(Some(rule.is_empty()))
                .bool(Some(rule.typo))
                .bool(Some(rule.group.is_some_and(|g| robots.groups()[g].global)))
                .end();
        }
        let host = c
            .url_facts
            .as_ref()
            .and_then(|u| u.url_host_name.as_deref());
        let domain = c
            .url_facts
            .as_ref()
            .and_then(|u| u.url_host_registered_domain.as_deref());
        for sitemap in robots.sitemaps() {
            let text = lossy(sitemap.url);
            let parsed = UrlFacts::parse(&text).ok().filter(|(u, f)| {
                matches!(u.scheme(), "http" | "https") && f.url_host_name.is_some()
            });
            let sm_host = parsed.as_ref().and_then(|(_, f)| f.url_host_name.clone());
            let sm_domain = sm_host.as_deref().and_then(registered_domain);
            self.table(Table::Sitemaps)
                .row()
                .key(file)
                .i64(offset)
                .i32(line(sitemap.line))
                .str(Some(&lossy(sitemap.key)))
                .str(Some(&text))
                .bool(Some(parsed.is_some()))
                .str(sm_host.as_deref())
                .bool(sm_host.as_deref().zip(host).map(|(a, b)| a == b))
                .bool(sm_domain.as_deref().zip(domain).map(|(a, b)| a == b))
                .bool(Some(sitemap.typo))
                .end();
        }
        for d in robots.directives() {
            let key = lossy(d.key);
            let name = if key.bytes().any(|b| b.is_ascii_uppercase()) {
                std::borrow::Cow::Owned(key.to_ascii_lowercase())
            } else {
                key.clone()
            };
            self.table(Table::Directives)
                .row()
                .key(file)
                .i64(offset)
                .i32(line(d.line))
                .i32(group(d.group))
                .str(Some(&key))
                .dict(Some(&name))
                .str(Some(&lossy(d.value)))
                .dict(d.known)
                .dict(
                    d.known
                        .is_none()
                        .then(|| crate::classify::typo::typo_of(d.key))
                        .flatten(),
                )
                .end();
        }
    }

    /// One error.
    pub fn push_error(&mut self, e: &Error) {
        let file = self.file_key(e.file());
        self.table(Table::Errors)
            .row()
            .key(file)
            .i64(e.offset().map(|o| o as i64))
            .dict(Some(e.stage().as_str()))
            .dict(Some(e.kind().as_str()))
            .str(Some(e.message()))
            .end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use columns::*;

    #[test]
    fn every_table_starts_with_the_capture_key_and_names_are_unique() {
        for (name, columns) in TABLES {
            assert_eq!(columns[0].name, "warc_filename", "{name}");
            assert_eq!(columns[1].name, "warc_record_offset", "{name}");
            let mut names: Vec<_> = columns.iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), columns.len(), "{name}");
        }
    }

    #[test]
    fn rows_become_a_batch() {
        let mut t = TableBuilder::new("user_agents", &USER_AGENTS);
        t.row()
            .dict(Some("f.warc.gz"))
            .i64(Some(0))
            .i32(Some(0))
            .i32(Some(1))
            .str(Some("User-agent"))
            .str(Some("*"))
            .str(Some(""))
            .bool(Some(true))
            .bool(Some(false))
            .end();
        let batch = t.finish();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.num_columns(), USER_AGENTS.len());
        assert!(t.is_empty());
    }

    #[test]
    #[should_panic(expected = "row ended after")]
    fn a_short_row_is_a_bug() {
        let mut t = TableBuilder::new("user_agents", &USER_AGENTS);
        t.row().dict(Some("f")).end();
    }
}
