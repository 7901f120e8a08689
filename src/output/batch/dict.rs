//! A dictionary column's builder.

use std::collections::HashMap;
use std::sync::Arc;

use ahash::RandomState;

use arrow_array::builder::Int32Builder;
use arrow_array::types::Int32Type;
use arrow_array::{DictionaryArray, StringArray};

/// A dictionary column's builder.
///
/// Values known before any row (an enum's labels) are preset and pushed by
/// index, with no lookup. Other text is looked up, cheapest guess first:
/// the previous row's value (the file name, a class repeated), then the
/// value after it in the dictionary (rows that walk a list in order: the
/// agents of each capture's verdicts), and only then the hash map. A
/// profile of `ingest` once showed dictionary hashing as its largest cost
/// after decompression.
#[derive(Default)]
pub(super) struct DictBuilder {
    keys: Int32Builder,
    values: Vec<String>,
    /// (ahash, randomly seeded: `std`'s SipHash was most of a lookup.)
    index: HashMap<String, i32, RandomState>,
    last: Option<i32>,
    /// The first `preset` values are the labels; they stay across batches.
    preset: usize,
}

impl DictBuilder {
    /// A builder whose first values are `labels`.
    pub(super) fn with_labels(labels: &[&str]) -> DictBuilder {
        let mut b = DictBuilder::default();
        for l in labels {
            b.key_of(l);
        }
        b.preset = b.values.len();
        assert_eq!(b.preset, labels.len(), "labels are distinct");
        b
    }

    fn key_of(&mut self, s: &str) -> i32 {
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

    /// Appends a label by its index.
    pub(super) fn append_label(&mut self, index: Option<usize>) {
        assert!(index.is_none_or(|i| i < self.preset), "not a label");
        self.keys.append_option(index.map(|i| i as i32));
    }

    /// Appends text.
    pub(super) fn append_text(&mut self, v: Option<&str>) {
        let Some(s) = v else {
            self.keys.append_null();
            return;
        };
        let guess = |k: i32| self.values.get(k as usize).is_some_and(|v| v == s);
        let k = match self.last {
            Some(k) if guess(k) => k,
            Some(k) if guess(k + 1) => k + 1,
            _ => self.key_of(s),
        };
        self.last = Some(k);
        self.keys.append_value(k);
    }

    pub(super) fn finish(&mut self) -> DictionaryArray<Int32Type> {
        let keys = self.keys.finish();
        let values = StringArray::from(self.values.clone());
        self.values.truncate(self.preset);
        self.index.retain(|_, k| (*k as usize) < self.preset);
        self.last = None;
        DictionaryArray::try_new(keys, Arc::new(values)).expect("keys index the values")
    }
}
