//! Rows -> Arrow record batches, and nothing else.
//!
//! A table's columns and their values come from its row type (declared in
//! `classify` with robostats-rows' `table::columns!`); [`TableBuilder`] keeps one
//! Arrow builder per column and appends a row by visiting its fields, in
//! declaration order. [`Batches`] holds the builders of every table for
//! the rows of one input and is where `classify` sends its rows.

mod dict;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::classify::{Row, Rows, Table};
use crate::table::{Column, Kind, Visitor};
use dict::DictBuilder;

use crate::output::sink::VALUES_KEY;

fn data_type(kind: Kind) -> DataType {
    match kind {
        Kind::Str => DataType::Utf8,
        Kind::Dict => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        Kind::I64 => DataType::Int64,
        Kind::I32 => DataType::Int32,
        Kind::Bool => DataType::Boolean,
        Kind::F64 => DataType::Float64,
        Kind::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        Kind::StrList => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
    }
}

/// The Arrow schema of a column list, descriptions as field metadata.
pub fn schema_of(columns: &[Column]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| {
            let mut metadata = HashMap::from([("description".to_owned(), c.description())]);
            if c.kind == Kind::Dict && !c.labels.is_empty() {
                metadata.insert(VALUES_KEY.to_owned(), c.labels.join(","));
            }
            Field::new(c.name, data_type(c.kind), c.nullable).with_metadata(metadata)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// One column's Arrow builder.
enum Builder {
    Str(StringBuilder),
    Dict(DictBuilder),
    I64(Int64Builder),
    I32(Int32Builder),
    Bool(BooleanBuilder),
    F64(Float64Builder),
    Timestamp(TimestampMicrosecondBuilder),
    StrList(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(column: &Column) -> Builder {
        match column.kind {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Dict => Builder::Dict(DictBuilder::with_labels(column.labels)),
            Kind::I64 => Builder::I64(Int64Builder::new()),
            Kind::I32 => Builder::I32(Int32Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            Kind::F64 => Builder::F64(Float64Builder::new()),
            Kind::Timestamp => {
                Builder::Timestamp(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
            }
            Kind::StrList => Builder::StrList(ListBuilder::new(StringBuilder::new())),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Dict(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::StrList(b) => Arc::new(b.finish()),
        }
    }

    /// An empty builder again, with room for `room`'s rows and bytes of
    /// text (the builders of numbers, flags and text: the others are few
    /// in the hot tables).
    fn make_room(&mut self, room: Room) {
        match self {
            Builder::Str(b) => *b = StringBuilder::with_capacity(room.rows, room.bytes),
            Builder::I64(b) => *b = Int64Builder::with_capacity(room.rows),
            Builder::I32(b) => *b = Int32Builder::with_capacity(room.rows),
            Builder::Bool(b) => *b = BooleanBuilder::with_capacity(room.rows),
            _ => {}
        }
    }
}

/// The size of a column's last batch: rows, and bytes of text.
#[derive(Clone, Copy, Debug, Default)]
struct Room {
    rows: usize,
    bytes: usize,
}

impl Room {
    fn of(array: &ArrayRef) -> Room {
        let bytes = array
            .as_any()
            .downcast_ref::<StringArray>()
            .map_or(0, |a| a.value_data().len());
        Room {
            rows: array.len(),
            bytes,
        }
    }
}

/// The rows of one table being built.
pub struct TableBuilder {
    table: Table,
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
    /// Each column's last batch's size, until the next batch's first row
    /// makes room for as much. Arrow's builders hand their buffers over
    /// when finished, and new ones grown from nothing copied each batch's
    /// data about twice over (`realloc`: 5 % of ingest's CPU). The room is
    /// made at the next row, not at once, so that the batch just finished,
    /// written meanwhile, and the room are never held together.
    room: Vec<Room>,
}

impl TableBuilder {
    /// An empty builder for a table.
    pub fn new(table: Table) -> TableBuilder {
        let columns = table.columns();
        TableBuilder {
            table,
            schema: schema_of(columns),
            builders: columns.iter().map(Builder::new).collect(),
            rows: 0,
            room: Vec::new(),
        }
    }

    /// Its schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows pushed since the last [`TableBuilder::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No rows pushed.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends a row of this table.
    pub fn push<R: Row>(&mut self, row: &R) {
        assert_eq!(R::TABLE, self.table, "a row of another table");
        if self.rows == 0 && !self.room.is_empty() {
            for (b, room) in self.builders.iter_mut().zip(self.room.drain(..)) {
                b.make_room(room);
            }
        }
        let mut appender = Appender {
            builders: &mut self.builders,
            at: 0,
        };
        row.visit(&mut appender);
        assert_eq!(appender.at, self.builders.len(), "{:?}", self.table);
        self.rows += 1;
    }

    /// The rows so far as a batch; the builder starts empty again.
    pub fn finish(&mut self) -> RecordBatch {
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        self.room = arrays.iter().map(Room::of).collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
            .unwrap_or_else(|e| panic!("table {}: {e}", self.table.name()))
    }
}

/// Appends a row's values to the builders, one column after the other. A
/// row type visits exactly its declared columns, with values of their
/// kinds (`crate::table`), so the builder at `at` is always of the value's
/// kind.
struct Appender<'t> {
    builders: &'t mut [Builder],
    at: usize,
}

impl Appender<'_> {
    fn next(&mut self) -> &mut Builder {
        let b = &mut self.builders[self.at];
        self.at += 1;
        b
    }
}

fn mismatch(what: &str) -> ! {
    unreachable!(
        "a {what} value for a column of another kind: the row type and its columns disagree"
    )
}

impl Visitor for Appender<'_> {
    #[inline]
    fn text(&mut self, v: Option<&str>) {
        match self.next() {
            Builder::Str(b) => b.append_option(v),
            Builder::Dict(b) => b.append_text(v),
            _ => mismatch("text"),
        }
    }

    #[inline]
    fn label(&mut self, index: Option<usize>) {
        match self.next() {
            Builder::Dict(b) => b.append_label(index),
            _ => mismatch("label"),
        }
    }

    #[inline]
    fn i32(&mut self, v: Option<i32>) {
        match self.next() {
            Builder::I32(b) => b.append_option(v),
            _ => mismatch("i32"),
        }
    }

    #[inline]
    fn i64(&mut self, v: Option<i64>) {
        match self.next() {
            Builder::I64(b) => b.append_option(v),
            _ => mismatch("i64"),
        }
    }

    #[inline]
    fn bool(&mut self, v: Option<bool>) {
        match self.next() {
            Builder::Bool(b) => b.append_option(v),
            _ => mismatch("bool"),
        }
    }

    #[inline]
    fn f64(&mut self, v: Option<f64>) {
        match self.next() {
            Builder::F64(b) => b.append_option(v),
            _ => mismatch("f64"),
        }
    }

    #[inline]
    fn timestamp_us(&mut self, v: Option<i64>) {
        match self.next() {
            Builder::Timestamp(b) => b.append_option(v),
            _ => mismatch("timestamp"),
        }
    }

    #[inline]
    fn text_list(&mut self, v: &[String]) {
        match self.next() {
            Builder::StrList(b) => {
                for s in v {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            _ => mismatch("list"),
        }
    }
}

/// Builders for every table, filled with the rows of one input.
pub struct Batches {
    tables: Vec<TableBuilder>,
}

impl Default for Batches {
    fn default() -> Batches {
        Batches::new()
    }
}

impl Batches {
    /// Empty builders for every table.
    pub fn new() -> Batches {
        Batches {
            tables: Table::ALL.iter().map(|&t| TableBuilder::new(t)).collect(),
        }
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
}

impl Rows for Batches {
    fn push<R: Row>(&mut self, row: &R) {
        self.tables[R::TABLE as usize].push(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::ErrorRow;
    use crate::classify::{BodyKey, CaptureKey, UserAgentRow};
    use crate::warc::{Error, ErrorKind, Stage};
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;

    #[test]
    fn rows_become_a_batch_with_the_declared_schema() {
        let mut batches = Batches::new();
        let at = BodyKey {
            body_digest: "99aa06d3014798d86001c324468d497f",
            writer: 7,
        };
        for line in [1, 2] {
            batches.push(&UserAgentRow {
                at,
                group: 0,
                aipref_group: 0,
                line,
                key: "User-agent".into(),
                value: "*".into(),
                product_token: "".into(),
                is_global: true,
                is_typo: false,
            });
        }
        let e = Error::new(Stage::Http, ErrorKind::NotHttp, "f.warc.gz", None, "bad");
        batches.push(&ErrorRow::of(&e));
        assert_eq!(batches.len(Table::UserAgents), 2);
        let taken = batches.take(1);
        assert!(batches.is_empty());
        assert_eq!(taken.len(), 2);
        let (table, batch) = &taken[0];
        assert_eq!(*table, Table::UserAgents);
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(batch.schema(), schema_of(Table::UserAgents.columns()));
        let (_, errors) = &taken[1];
        // Labels are preset: the kind's key is its index among every kind.
        let kind = errors.column(3).as_dictionary::<Int32Type>();
        assert_eq!(kind.keys().value(0) as usize, ErrorKind::NotHttp as usize);
        assert!(errors.column(1).is_null(0));
        // A fixed set of values is named in the field's metadata; open text
        // (the file name) is not.
        let schema = errors.schema();
        let values = schema
            .field(3)
            .metadata()
            .get(VALUES_KEY)
            .expect("a label column");
        assert!(values.split(',').any(|v| v == "not_http"), "{values}");
        assert!(!schema.field(0).metadata().contains_key(VALUES_KEY));
    }

    #[test]
    /// (`classify::verdict`'s rows, read back from their batch.)
    fn named_rows_are_the_crawlers_a_group_names() {
        use crate::classify::agents::AgentList;
        use crate::classify::verdict::push_agent_rows;
        use crate::robots::RobotsTxt;
        let body =
            b"User-agent: *\nUser-agent: GPTBot\nDisallow: /x\n\nUser-agent: ccbot\nDisallow: /\n";
        let robots = RobotsTxt::parse(body);
        let agents = AgentList::default_list();
        let at = CaptureKey {
            warc_filename: "f",
            warc_record_offset: 7,
        };
        let mut out = Batches::new();
        push_agent_rows(at, &robots, &agents, &mut out);
        let batches = out.take(1);
        assert_eq!(batches.len(), 1);
        let (table, batch) = &batches[0];
        assert_eq!(*table, crate::classify::Table::NamedVerdicts);
        let agent = batch.column(2).as_dictionary::<Int32Type>();
        let labels = agent.values().as_string::<i32>();
        let names: Vec<&str> = (agent.keys().values().iter())
            .map(|&k| labels.value(k as usize))
            .collect();
        // In the list's order, with the list's spelling.
        assert_eq!(names, ["CCBot", "GPTBot"]);
        let root = batch.column(3).as_boolean();
        assert!(!root.value(0) && root.value(1));
        // A file naming no crawler of the list stores nothing.
        let mut out = Batches::new();
        let star_only = RobotsTxt::parse(b"User-agent: *\nUser-agent: FooBot\nDisallow: /\n");
        push_agent_rows(at, &star_only, &agents, &mut out);
        assert!(out.is_empty());
    }
}
