//! Judged rows -> the output's Arrow batches and its Parquet file, written
//! whole or not at all (a temporary name beside it, renamed at the end).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::builder::{
    BooleanBuilder, Int32Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;

use super::Judged;
use super::captures::Decision;
use super::scope::Scope;

/// The output's columns after the kept ones.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The agents, as given: one BOOLEAN column each.
    pub agents: Vec<String>,
    /// Add `opted_out`.
    pub opted_out: bool,
    /// Add each agent's deciding line and rule.
    pub explain: bool,
}

impl Layout {
    /// The output's schema: `kept`'s columns, then the verdicts' (a kept
    /// column of the same name as one of them is refused).
    pub fn schema(&self, kept: &Schema) -> anyhow::Result<SchemaRef> {
        let text = |name: &str| Field::new(name, DataType::Utf8, true);
        let mut fields: Vec<Field> = kept.fields().iter().map(|f| f.as_ref().clone()).collect();
        for agent in &self.agents {
            fields.push(Field::new(agent, DataType::Boolean, true));
        }
        if self.opted_out {
            fields.push(Field::new("opted_out", DataType::Boolean, true));
        }
        fields.push(text("url_host_name"));
        fields.push(text("url_host_registered_domain"));
        fields.push(text("robots_url"));
        fields.push(text("crawl"));
        let utc = Some(Arc::from("UTC"));
        fields.push(Field::new(
            "fetch_time",
            DataType::Timestamp(TimeUnit::Microsecond, utc),
            true,
        ));
        fields.push(Field::new("outcome", DataType::Utf8, false));
        fields.push(text("usage_train_ai"));
        fields.push(text("signal_ai_train"));
        if self.explain {
            for agent in &self.agents {
                fields.push(Field::new(format!("{agent}_line"), DataType::Int32, true));
                fields.push(text(&format!("{agent}_rule")));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, f) in fields.iter().enumerate() {
            if !seen.insert(f.name().to_ascii_lowercase()) {
                let whose = if i < kept.fields().len() {
                    "a column of the URLs"
                } else {
                    "a verdict column"
                };
                bail!(
                    "the output would have two columns named {} ({whose}): leave the URLs' \
                     column out with --keep, or name the agents otherwise",
                    f.name()
                );
            }
        }
        Ok(Arc::new(Schema::new(fields)))
    }

    /// The output batch of `kept` and its rows' verdicts.
    pub fn batch(
        &self,
        schema: &SchemaRef,
        kept: &RecordBatch,
        rows: &[Judged],
        scopes: &[Scope],
        decisions: &[Option<Decision>],
    ) -> anyhow::Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = kept.columns().to_vec();
        for i in 0..self.agents.len() {
            let mut b = BooleanBuilder::with_capacity(rows.len());
            rows.iter().for_each(|r| b.append_option(r.allowed(i)));
            columns.push(Arc::new(b.finish()));
        }
        if self.opted_out {
            let mut b = BooleanBuilder::with_capacity(rows.len());
            rows.iter().for_each(|r| b.append_option(r.opted_out));
            columns.push(Arc::new(b.finish()));
        }
        let (mut host, mut domain) = (StringBuilder::new(), StringBuilder::new());
        for r in rows {
            let scope = r.scope.map(|s| &scopes[s as usize]);
            host.append_option(scope.map(|s| &s.host));
            domain.append_option(scope.and_then(|s| s.registered_domain.as_ref()));
        }
        columns.push(Arc::new(host.finish()));
        columns.push(Arc::new(domain.finish()));
        let decision = |r: &Judged| r.scope.and_then(|s| decisions[s as usize].as_ref());
        let (mut url, mut crawl) = (StringBuilder::new(), StringBuilder::new());
        let mut time = TimestampMicrosecondBuilder::new().with_timezone("UTC");
        for r in rows {
            let d = decision(r);
            url.append_option(d.map(|d| &d.robots_url));
            crawl.append_option(d.and_then(|d| d.crawl.as_ref()));
            time.append_option(d.and_then(|d| d.fetch_time));
        }
        columns.push(Arc::new(url.finish()));
        columns.push(Arc::new(crawl.finish()));
        columns.push(Arc::new(time.finish()));
        let mut outcome = StringBuilder::new();
        let (mut usage, mut signal) = (StringBuilder::new(), StringBuilder::new());
        for r in rows {
            outcome.append_value(r.outcome().as_str());
            usage.append_option(r.verdict.usage_train_ai.map(|v| v.as_str()));
            signal.append_option(r.verdict.signal_ai_train.map(|v| v.as_str()));
        }
        columns.push(Arc::new(outcome.finish()));
        columns.push(Arc::new(usage.finish()));
        columns.push(Arc::new(signal.finish()));
        if self.explain {
            for i in 0..self.agents.len() {
                let (mut line, mut rule) = (Int32Builder::new(), StringBuilder::new());
                for r in rows {
                    let found = r.verdict.rules.get(i).and_then(Option::as_ref);
                    line.append_option(found.map(|(l, _)| i32::try_from(*l).unwrap_or(i32::MAX)));
                    rule.append_option(found.map(|(_, t)| t));
                }
                columns.push(Arc::new(line.finish()));
                columns.push(Arc::new(rule.finish()));
            }
        }
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }
}

/// The output file, under a temporary name until [`Output::finish`]; an
/// output dropped unfinished (a failed run) removes it.
pub struct Output {
    writer: Option<ArrowWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl Output {
    /// Starts writing `path` (its directory must exist); the temporary file
    /// is new (a link planted under its name is not followed).
    pub fn create(path: &Path, schema: SchemaRef) -> anyhow::Result<Output> {
        let tmp = path.with_file_name(crate::replace::temp_name(path)?);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        let mut out = Output {
            writer: None,
            tmp,
            path: path.to_owned(),
        };
        // The tables' settings, column by column (zstd for text, no Parquet
        // dictionary for text Arrow does not encode: see `writer_properties`).
        let props = crate::output::sink::writer_properties(&schema);
        out.writer = Some(ArrowWriter::try_new(file, schema, Some(props))?);
        Ok(out)
    }

    /// Writes a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> anyhow::Result<()> {
        let writer = self.writer.as_mut().expect("open until finished");
        writer
            .write(batch)
            .with_context(|| format!("cannot write {}", self.tmp.display()))
    }

    /// Ends the file and gives it its name.
    pub fn finish(mut self) -> anyhow::Result<()> {
        let writer = self.writer.take().expect("open until finished");
        writer
            .close()
            .map_err(anyhow::Error::from)
            .and_then(|_| std::fs::rename(&self.tmp, &self.path).map_err(anyhow::Error::from))
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        // Renamed already when finished; else what was written goes.
        let _ = std::fs::remove_file(&self.tmp);
    }
}
