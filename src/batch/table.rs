//! A table's columns, declared once, and the builders that fill them row by
//! row.
//!
//! Each table is a list of [`Column`]s (name, kind, nullability and the
//! description `robostats schema` and the README show). Rows are pushed
//! column by column, in declaration order, through [`Row`]; pushing a value
//! of the wrong kind or too few values is a bug and panics at once, and
//! the tests push every table's rows, so such a bug cannot ship.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanBuilder, DictionaryArray, Float64Builder, Int32Builder, Int64Builder,
    ListBuilder, RecordBatch, StringArray, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef, TimeUnit};

/// A column's kind: its Arrow type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Str,
    /// UTF-8 text from a small set of values (classes, file names):
    /// dictionary-encoded.
    Dict,
    /// 64-bit integer.
    I64,
    /// 32-bit integer.
    I32,
    /// Boolean.
    Bool,
    /// 64-bit float.
    F64,
    /// Timestamp, microseconds, UTC.
    Timestamp,
    /// List of UTF-8 text.
    StrList,
}

impl Kind {
    fn data_type(self) -> DataType {
        match self {
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

    /// The type as `robostats schema` prints it (DuckDB's names).
    pub fn sql_name(self) -> &'static str {
        match self {
            Kind::Str | Kind::Dict => "VARCHAR",
            Kind::I64 => "BIGINT",
            Kind::I32 => "INTEGER",
            Kind::Bool => "BOOLEAN",
            Kind::F64 => "DOUBLE",
            Kind::Timestamp => "TIMESTAMP WITH TIME ZONE",
            Kind::StrList => "VARCHAR[]",
        }
    }
}

/// One column of a table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// It may be null.
    pub nullable: bool,
    /// What it holds.
    pub description: &'static str,
}

/// Shorthand for declaring columns.
pub(crate) const fn col(
    name: &'static str,
    kind: Kind,
    nullable: bool,
    description: &'static str,
) -> Column {
    Column {
        name,
        kind,
        nullable,
        description,
    }
}

/// The Arrow schema of a column list, descriptions as field metadata.
pub fn schema_of(columns: &[Column]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| {
            Field::new(c.name, c.kind.data_type(), c.nullable).with_metadata(HashMap::from([(
                "description".to_owned(),
                c.description.to_owned(),
            )]))
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// A dictionary column's builder. Consecutive rows often repeat a value
/// (the file name in every row, a class), so the last key is tried before
/// the hash map: a profile of `ingest` showed dictionary hashing as its
/// largest cost after decompression.
///
/// Values known in advance (an enum's names, the agent list, the lane's
/// file name) can be preset: [`Row::key`] then pushes their index with no
/// lookup at all.
#[derive(Default)]
struct DictBuilder {
    keys: Int32Builder,
    values: Vec<String>,
    index: HashMap<String, i32>,
    last: Option<i32>,
    /// The first `preset` values stay across batches.
    preset: usize,
}

impl DictBuilder {
    fn append_value_index(&mut self, s: &str) -> i32 {
        match self.index.get(s) {
            Some(&k) => k,
            None => {
                let k = i32::try_from(self.values.len()).expect("fewer than 2^31 values");
                self.values.push(s.to_owned());
                self.index.insert(s.to_owned(), k);
                k
            }
        }
    }

    fn append_option(&mut self, v: Option<&str>) {
        let Some(s) = v else {
            self.keys.append_null();
            return;
        };
        if let Some(k) = self.last.filter(|&k| self.values[k as usize] == s) {
            self.keys.append_value(k);
            return;
        }
        let k = self.append_value_index(s);
        self.last = Some(k);
        self.keys.append_value(k);
    }

    fn finish(&mut self) -> DictionaryArray<Int32Type> {
        let keys = self.keys.finish();
        let values = StringArray::from(self.values.clone());
        if self.preset == 0 {
            self.values.clear();
            self.index.clear();
        } else {
            self.values.truncate(self.preset);
            self.index.retain(|_, k| (*k as usize) < self.preset);
        }
        self.last = None;
        DictionaryArray::try_new(keys, Arc::new(values)).expect("keys index the values")
    }
}

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
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Dict => Builder::Dict(DictBuilder::default()),
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
}

/// Rows of one table being built.
pub struct TableBuilder {
    name: &'static str,
    columns: &'static [Column],
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
}

impl TableBuilder {
    /// An empty builder for a table.
    pub fn new(name: &'static str, columns: &'static [Column]) -> TableBuilder {
        TableBuilder {
            name,
            columns,
            schema: schema_of(columns),
            builders: columns.iter().map(|c| Builder::new(c.kind)).collect(),
            rows: 0,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Presets the values of the dictionary column `column`: value `i` of
    /// `values` is then pushed with [`Row::key`]`(Some(i))`. Only before
    /// the first row.
    pub fn preset<'s>(&mut self, column: &str, values: impl IntoIterator<Item = &'s str>) {
        assert_eq!(self.rows, 0, "preset before the first row");
        let i = self
            .columns
            .iter()
            .position(|c| c.name == column)
            .unwrap_or_else(|| panic!("{}: no column {column}", self.name));
        let Builder::Dict(b) = &mut self.builders[i] else {
            panic!("{}.{column}: not a dictionary column", self.name);
        };
        for v in values {
            b.append_value_index(v);
        }
        b.preset = b.values.len();
    }

    /// The key of a preset value.
    pub fn preset_key(&self, column: &str, value: &str) -> i32 {
        let i = self
            .columns
            .iter()
            .position(|c| c.name == column)
            .expect("a column");
        match &self.builders[i] {
            Builder::Dict(b) => b.values[..b.preset]
                .iter()
                .position(|v| v == value)
                .expect("a preset value") as i32,
            _ => panic!("{}.{column}: not a dictionary column", self.name),
        }
    }

    /// Rows pushed since the last [`TableBuilder::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No rows pushed.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Starts a row; push every column, in order, then [`Row::end`].
    pub fn row(&mut self) -> Row<'_> {
        Row { table: self, at: 0 }
    }

    /// The rows so far as a batch; the builder starts empty again.
    pub fn finish(&mut self) -> RecordBatch {
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
            .unwrap_or_else(|e| panic!("table {}: {e}", self.name))
    }
}

/// One row being pushed, column by column.
pub struct Row<'t> {
    table: &'t mut TableBuilder,
    at: usize,
}

macro_rules! push {
    ($self:ident, $variant:ident, $value:expr) => {{
        let column = &$self.table.columns[$self.at];
        match &mut $self.table.builders[$self.at] {
            Builder::$variant(b) => {
                let v = $value;
                assert!(
                    column.nullable || v.is_some(),
                    "{}.{}: null in a non-null column",
                    $self.table.name,
                    column.name
                );
                b.append_option(v);
            }
            _ => panic!("{}.{}: wrong kind pushed", $self.table.name, column.name),
        }
        $self.at += 1;
        $self
    }};
}

impl Row<'_> {
    /// Pushes text.
    pub fn str(&mut self, v: Option<&str>) -> &mut Self {
        push!(self, Str, v)
    }

    /// Pushes dictionary-encoded text.
    pub fn dict(&mut self, v: Option<&str>) -> &mut Self {
        let column = &self.table.columns[self.at];
        match &mut self.table.builders[self.at] {
            Builder::Dict(b) => {
                assert!(
                    column.nullable || v.is_some(),
                    "{}.{}: null in a non-null column",
                    self.table.name,
                    column.name
                );
                b.append_option(v);
            }
            _ => panic!("{}.{}: wrong kind pushed", self.table.name, column.name),
        }
        self.at += 1;
        self
    }

    /// Pushes the index of a preset dictionary value
    /// ([`TableBuilder::preset`]).
    pub fn key(&mut self, k: Option<i32>) -> &mut Self {
        let column = &self.table.columns[self.at];
        match &mut self.table.builders[self.at] {
            Builder::Dict(b) => {
                assert!(
                    k.is_none_or(|k| (k as usize) < b.preset),
                    "{}.{}: key not preset",
                    self.table.name,
                    column.name
                );
                assert!(
                    column.nullable || k.is_some(),
                    "{}.{}: null",
                    self.table.name,
                    column.name
                );
                b.keys.append_option(k);
            }
            _ => panic!("{}.{}: wrong kind pushed", self.table.name, column.name),
        }
        self.at += 1;
        self
    }

    /// Pushes a 64-bit integer.
    pub fn i64(&mut self, v: Option<i64>) -> &mut Self {
        push!(self, I64, v)
    }

    /// Pushes a 32-bit integer.
    pub fn i32(&mut self, v: Option<i32>) -> &mut Self {
        push!(self, I32, v)
    }

    /// Pushes a boolean.
    pub fn bool(&mut self, v: Option<bool>) -> &mut Self {
        push!(self, Bool, v)
    }

    /// Pushes a float.
    pub fn f64(&mut self, v: Option<f64>) -> &mut Self {
        push!(self, F64, v)
    }

    /// Pushes a timestamp (microseconds since the Unix epoch, UTC).
    pub fn timestamp_us(&mut self, v: Option<i64>) -> &mut Self {
        push!(self, Timestamp, v)
    }

    /// Pushes a list of text.
    pub fn str_list<'s>(&mut self, v: impl IntoIterator<Item = &'s str>) -> &mut Self {
        let column = &self.table.columns[self.at];
        match &mut self.table.builders[self.at] {
            Builder::StrList(b) => {
                for s in v {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            _ => panic!("{}.{}: wrong kind pushed", self.table.name, column.name),
        }
        self.at += 1;
        self
    }

    /// Ends the row; every column must have been pushed.
    pub fn end(&mut self) {
        assert_eq!(
            self.at,
            self.table.columns.len(),
            "table {}: row ended after {} of {} columns",
            self.table.name,
            self.at,
            self.table.columns.len()
        );
        self.table.rows += 1;
    }
}
