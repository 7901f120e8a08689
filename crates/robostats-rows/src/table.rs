//! How a table is declared: a row type whose fields are its columns.
//!
//! Every output table is one Rust struct, declared with `columns!`: each
//! field is a column, its name the column's name, its doc comment the
//! column's description, and its type the column's type and nullability
//! (`Option<_>` is nullable). Nothing else lists a table's columns: the
//! schema, the Arrow builders, `robostats schema`, the documentation and
//! the DuckDB views are all derived from the struct, and a row is pushed
//! by visiting its fields in declaration order.
//!
//! ```text
//! columns! { pub struct RuleRow<'a> { /// line number, from 1
//!                                     pub line: u32, ... } }
//!     -> RuleRow::columns()   [Column { name: "line", kind: I32, nullable: false, .. }, ..]
//!     -> row.visit(&mut v)    v.i32(Some(row.line as i32)), ..
//! ```
//!
//! A field's Rust type decides both its column's [`Kind`] and the
//! [`Visitor`] call that pushes its value, so a value cannot go to a column
//! of another type, nor to another column: there are no positions to get
//! wrong. Text columns with few distinct values are declared `as dict`
//! (dictionary-encoded); enums with a fixed set of names (`labels!`) are
//! dictionary columns whose values are known before the first row.
//!
//! This module knows nothing of Arrow: robostats' `output::batch` turns
//! visited rows into Arrow arrays.

use std::borrow::Cow;

/// A column's type.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// It may be null.
    pub nullable: bool,
    /// The values of a dictionary column that are known before any row (an
    /// enum's names), in key order; empty for other columns.
    pub labels: &'static [&'static str],
    /// The field's doc comment, one entry per line.
    doc: &'static [&'static str],
}

impl Column {
    /// What the column holds: the field's doc comment as one line.
    pub fn description(&self) -> String {
        let mut out = String::new();
        for line in self.doc.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(line);
        }
        out
    }
}

/// Receives a row's values, one call per column, in column order.
///
/// Each method is called only for columns of the matching [`Kind`]: `text`
/// for `Str` and `Dict`, `label` for `Dict` columns with labels,
/// `text_list` for `StrList`, and so on.
pub trait Visitor {
    /// Text (`Str` or `Dict`).
    fn text(&mut self, v: Option<&str>);
    /// The index of one of the column's [`Column::labels`].
    fn label(&mut self, index: Option<usize>);
    /// A 32-bit integer.
    fn i32(&mut self, v: Option<i32>);
    /// A 64-bit integer.
    fn i64(&mut self, v: Option<i64>);
    /// A boolean.
    fn bool(&mut self, v: Option<bool>);
    /// A float.
    fn f64(&mut self, v: Option<f64>);
    /// A timestamp: microseconds since the Unix epoch, UTC.
    fn timestamp_us(&mut self, v: Option<i64>);
    /// A list of text (never null).
    fn text_list(&mut self, v: &[String]);
}

/// A Rust type that is one column's value (not null).
pub trait Scalar {
    /// The column's type.
    const KIND: Kind;
    /// The values known before any row, in key order (for `labels!`
    /// enums).
    const LABELS: &'static [&'static str] = &[];
    /// Pushes the value.
    fn visit<V: Visitor>(&self, v: &mut V);
    /// Pushes a null of this type.
    fn visit_null<V: Visitor>(v: &mut V);
}

/// A field type that makes one or more columns: any [`Scalar`], its
/// `Option` (nullable), or a group of columns declared with `columns!`
/// and flattened into the table.
pub trait Columns {
    /// Appends the columns of a field named `name` with the doc comment
    /// `doc`; `dict` is the field's `as dict`.
    fn columns(name: &'static str, doc: &'static [&'static str], dict: bool, out: &mut Vec<Column>);
    /// Pushes the field's values.
    fn visit<V: Visitor>(&self, v: &mut V);
}

fn column(
    name: &'static str,
    doc: &'static [&'static str],
    dict: bool,
    kind: Kind,
    nullable: bool,
    labels: &'static [&'static str],
) -> Column {
    let kind = match (dict, kind) {
        (false, kind) => kind,
        (true, Kind::Str) => Kind::Dict,
        (true, other) => panic!("column {name}: `as dict` on a {other:?} column"),
    };
    Column {
        name,
        kind,
        nullable,
        labels,
        doc,
    }
}

impl<T: Scalar> Columns for T {
    fn columns(
        name: &'static str,
        doc: &'static [&'static str],
        dict: bool,
        out: &mut Vec<Column>,
    ) {
        out.push(column(name, doc, dict, T::KIND, false, T::LABELS));
    }

    fn visit<V: Visitor>(&self, v: &mut V) {
        Scalar::visit(self, v)
    }
}

impl<T: Scalar> Columns for Option<T> {
    fn columns(
        name: &'static str,
        doc: &'static [&'static str],
        dict: bool,
        out: &mut Vec<Column>,
    ) {
        out.push(column(name, doc, dict, T::KIND, true, T::LABELS));
    }

    fn visit<V: Visitor>(&self, v: &mut V) {
        match self {
            Some(x) => x.visit(v),
            None => T::visit_null(v),
        }
    }
}

macro_rules! text_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const KIND: Kind = Kind::Str;
            fn visit<V: Visitor>(&self, v: &mut V) {
                v.text(Some(self))
            }
            fn visit_null<V: Visitor>(v: &mut V) {
                v.text(None)
            }
        }
    )*};
}
text_scalar!(&str, String, Cow<'_, str>);

/// Integers of the row types go to signed columns, the type DuckDB and
/// Common Crawl's index use; values too large saturate (no count or offset
/// of a real input comes near).
macro_rules! int_scalar {
    ($kind:ident, $method:ident, $target:ty: $($t:ty),*) => {$(
        impl Scalar for $t {
            const KIND: Kind = Kind::$kind;
            fn visit<V: Visitor>(&self, v: &mut V) {
                v.$method(Some(<$target>::try_from(*self).unwrap_or(<$target>::MAX)))
            }
            fn visit_null<V: Visitor>(v: &mut V) {
                v.$method(None)
            }
        }
    )*};
}
int_scalar!(I32, i32, i32: u16, u32, usize, i32);
int_scalar!(I64, i64, i64: u64, i64);

impl Scalar for bool {
    const KIND: Kind = Kind::Bool;
    fn visit<V: Visitor>(&self, v: &mut V) {
        v.bool(Some(*self))
    }
    fn visit_null<V: Visitor>(v: &mut V) {
        v.bool(None)
    }
}

impl Scalar for f64 {
    const KIND: Kind = Kind::F64;
    fn visit<V: Visitor>(&self, v: &mut V) {
        v.f64(Some(*self))
    }
    fn visit_null<V: Visitor>(v: &mut V) {
        v.f64(None)
    }
}

/// A point in time: whole seconds since the Unix epoch, UTC (a
/// `TIMESTAMP WITH TIME ZONE` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixTime(pub i64);

impl Scalar for UnixTime {
    const KIND: Kind = Kind::Timestamp;
    fn visit<V: Visitor>(&self, v: &mut V) {
        v.timestamp_us(Some(self.0.saturating_mul(1_000_000)))
    }
    fn visit_null<V: Visitor>(v: &mut V) {
        v.timestamp_us(None)
    }
}

/// A list of text: never null (an empty list instead).
impl Columns for Vec<String> {
    fn columns(
        name: &'static str,
        doc: &'static [&'static str],
        dict: bool,
        out: &mut Vec<Column>,
    ) {
        out.push(column(name, doc, dict, Kind::StrList, false, &[]));
    }

    fn visit<V: Visitor>(&self, v: &mut V) {
        v.text_list(self)
    }
}

/// Declares a field-less enum whose variants have stable names: the enum,
/// `ALL` (every value, in declaration order), `LABELS` (their names),
/// `as_str` (the engine's `robostats_robots::labels!`), and its [`Scalar`]
/// implementation: a column of this type is a dictionary column whose
/// values (its names, in declaration order) are known before any row, and
/// a value is pushed as its index.
///
/// ```ignore
/// labels! {
///     /// Allow or disallow.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
///     pub enum RuleKind {
///         /// An `allow` line.
///         Allow = "allow",
///         /// A `disallow` line.
///         Disallow = "disallow",
///     }
/// }
/// ```
macro_rules! labels {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        robostats_robots::labels! {
            $(#[$meta])*
            $vis enum $name { $($body)* }
        }
        $crate::table::label_columns!($name);
    };
}
pub(crate) use labels;

/// Makes enums declared with the engine's `labels!` (theirs, or the
/// `robostats-robots` crate's own, which knows nothing of tables)
/// dictionary columns whose values are their names, pushed as indices.
macro_rules! label_columns {
    ($($t:ty),+ $(,)?) => {
        $( impl $crate::table::Scalar for $t {
            const KIND: $crate::table::Kind = $crate::table::Kind::Dict;
            const LABELS: &'static [&'static str] = <$t>::LABELS;
            fn visit<V: $crate::table::Visitor>(&self, v: &mut V) {
                v.label(Some(*self as usize))
            }
            fn visit_null<V: $crate::table::Visitor>(v: &mut V) {
                v.label(None)
            }
        } )+
    };
}
pub(crate) use label_columns;

label_columns!(
    crate::warc::Stage,
    crate::warc::ErrorKind,
    crate::robots::GroupMatch,
    crate::robots::RulesClass,
    crate::robots::RuleKind,
    crate::robots::PreferenceDirective,
    crate::robots::PreferenceValue,
    crate::robots::UseLevel,
    crate::robots::ParseStatus,
    crate::robots::SignalScope,
);

/// Declares a struct whose fields are columns: a table's row, or a group
/// of columns that several tables share (flattened where a field of that
/// type appears).
///
/// Each field is a column named after it and described by its doc
/// comment; its type gives the column's type ([`Columns`]); `as dict`
/// after the type dictionary-encodes a text column.
///
/// ```ignore
/// columns! {
///     /// `sitemaps`: one row per sitemap line.
///     #[derive(Clone, Debug)]
///     pub struct SitemapRow<'a> {
///         /// The capture the line comes from.
///         pub at: CaptureKey<'a>,
///         /// line number, from 1
///         pub line: u32,
///         /// the sitemap's host, lower case, punycode
///         pub url_host_name: Option<String>,
///         /// which crawl
///         pub crawl: Option<&'a str> as dict,
///     }
/// }
/// ```
macro_rules! columns {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? {
            $(
                $(#[doc = $doc:expr])*
                $fvis:vis $field:ident : $ty:ty $(as $dict:ident)?
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name $(<$lt>)? {
            $( $(#[doc = $doc])* $fvis $field: $ty, )+
        }

        impl $(<$lt>)? $crate::table::Columns for $name $(<$lt>)? {
            fn columns(
                _name: &'static str,
                _doc: &'static [&'static str],
                dict: bool,
                out: &mut Vec<$crate::table::Column>,
            ) {
                assert!(!dict, concat!(stringify!($name), ": `as dict` on a group of columns"));
                $(
                    <$ty as $crate::table::Columns>::columns(
                        stringify!($field),
                        &[$($doc),*],
                        $crate::table::dict_flag!($($dict)?),
                        out,
                    );
                )+
            }

            #[inline]
            fn visit<V: $crate::table::Visitor>(&self, v: &mut V) {
                $( $crate::table::Columns::visit(&self.$field, v); )+
            }
        }
    };
}
pub(crate) use columns;

/// `as dict` -> true; nothing -> false.
macro_rules! dict_flag {
    () => {
        false
    };
    (dict) => {
        true
    };
}
pub(crate) use dict_flag;

/// The columns of a row type, in order.
pub fn columns_of<T: Columns>() -> Vec<Column> {
    let mut out = Vec::new();
    T::columns("", &[], false, &mut out);
    out
}

/// A visitor that records the kind of every value pushed: with it, a test
/// checks that a row type visits exactly its declared columns.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct KindRecorder {
    /// The kinds pushed, with whether the value was null.
    pub pushed: Vec<(Kind, bool)>,
}

#[cfg(test)]
impl KindRecorder {
    /// Checks a row against its declared columns: one value per column, of
    /// the column's kind, null only where the column is nullable. Returns
    /// what is wrong.
    pub fn check<T: Columns>(row: &T) -> Result<(), String> {
        let columns = columns_of::<T>();
        let mut rec = KindRecorder::default();
        row.visit(&mut rec);
        if rec.pushed.len() != columns.len() {
            return Err(format!(
                "{} values pushed for {} columns",
                rec.pushed.len(),
                columns.len()
            ));
        }
        for (c, (kind, null)) in columns.iter().zip(&rec.pushed) {
            let same = match (c.kind, kind) {
                (Kind::Dict, Kind::Str) => true,
                (a, b) => a == *b,
            };
            if !same {
                return Err(format!(
                    "{}: {:?} pushed to a {:?} column",
                    c.name, kind, c.kind
                ));
            }
            if *null && !c.nullable {
                return Err(format!("{}: null in a non-null column", c.name));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
impl Visitor for KindRecorder {
    fn text(&mut self, v: Option<&str>) {
        self.pushed.push((Kind::Str, v.is_none()));
    }
    fn label(&mut self, index: Option<usize>) {
        self.pushed.push((Kind::Dict, index.is_none()));
    }
    fn i32(&mut self, v: Option<i32>) {
        self.pushed.push((Kind::I32, v.is_none()));
    }
    fn i64(&mut self, v: Option<i64>) {
        self.pushed.push((Kind::I64, v.is_none()));
    }
    fn bool(&mut self, v: Option<bool>) {
        self.pushed.push((Kind::Bool, v.is_none()));
    }
    fn f64(&mut self, v: Option<f64>) {
        self.pushed.push((Kind::F64, v.is_none()));
    }
    fn timestamp_us(&mut self, v: Option<i64>) {
        self.pushed.push((Kind::Timestamp, v.is_none()));
    }
    fn text_list(&mut self, _: &[String]) {
        self.pushed.push((Kind::StrList, false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    labels! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Colour {
            /// Red.
            Red = "red",
            /// Blue.
            Blue = "blue",
        }
    }

    columns! {
        #[derive(Default)]
        struct Key<'a> {
            /// the file
            file: &'a str as dict,
            /// where
            offset: u64,
        }
    }

    columns! {
        struct Row<'a> {
            /// The capture.
            at: Key<'a>,
            /// line number,
            ///   from 1
            line: u32,
            /// a colour
            colour: Option<Colour>,
            /// names
            names: Vec<String>,
            /// when
            when: Option<UnixTime>,
        }
    }

    #[test]
    fn a_row_declares_its_columns_and_visits_them_in_order() {
        let columns = columns_of::<Row<'_>>();
        let names: Vec<_> = columns.iter().map(|c| c.name).collect();
        assert_eq!(names, ["file", "offset", "line", "colour", "names", "when"]);
        let kinds: Vec<_> = columns.iter().map(|c| (c.kind, c.nullable)).collect();
        assert_eq!(
            kinds,
            [
                (Kind::Dict, false),
                (Kind::I64, false),
                (Kind::I32, false),
                (Kind::Dict, true),
                (Kind::StrList, false),
                (Kind::Timestamp, true)
            ]
        );
        assert_eq!(columns[2].description(), "line number, from 1");
        assert_eq!(columns[3].labels, ["red", "blue"]);
        assert_eq!(Colour::Blue.as_str(), "blue");
        assert_eq!(Colour::ALL, [Colour::Red, Colour::Blue]);
        let row = Row {
            at: Key {
                file: "f",
                offset: u64::MAX,
            },
            line: 3,
            colour: None,
            names: vec![],
            when: Some(UnixTime(1)),
        };
        assert_eq!(KindRecorder::check(&row), Ok(()));
    }

    #[test]
    #[should_panic(expected = "`as dict` on a I32 column")]
    fn dict_on_a_number_is_refused() {
        columns! {
            struct Bad {
                /// n
                n: u32 as dict,
            }
        }
        let _ = Bad { n: 0 }.n;
        columns_of::<Bad>();
    }
}
