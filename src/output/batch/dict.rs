//! A dictionary column's builder.

use std::sync::Arc;

use ahash::RandomState;
use hashbrown::HashTable;

use arrow_array::builder::Int32Builder;
use arrow_array::types::Int32Type;
use arrow_array::{DictionaryArray, StringArray};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};

/// A dictionary column's builder.
///
/// Values known before any row (an enum's labels) are preset and pushed by
/// index, with no lookup. Other text is looked up, cheapest guess first:
/// the previous row's value (the file name, a class repeated), then the
/// value after it in the dictionary (rows that walk a list in order: the
/// agents of each capture's verdicts), and only then the hash table. A
/// profile of `ingest` once showed dictionary hashing as its largest cost
/// after decompression.
///
/// The values are kept one after the other in one buffer, as Arrow keeps
/// them, and the hash table holds only their keys: a new value costs no
/// allocation of its own, and a batch's values are handed to Arrow as two
/// copies, not one string each (`malloc` and `free` were 8 % of ingest's
/// time, a fifth of the calls from here).
pub(super) struct DictBuilder {
    keys: Int32Builder,
    /// The values' bytes, one after the other.
    bytes: Vec<u8>,
    /// Where each value starts in `bytes`, and where the last one ends.
    offsets: Vec<i32>,
    /// The keys, found by their value's hash (ahash, randomly seeded:
    /// `std`'s SipHash was most of a lookup).
    index: HashTable<i32>,
    hasher: RandomState,
    last: Option<i32>,
    /// The first `preset` values are the labels; they stay across batches.
    preset: usize,
}

impl Default for DictBuilder {
    fn default() -> DictBuilder {
        DictBuilder {
            keys: Int32Builder::new(),
            bytes: Vec::new(),
            offsets: vec![0],
            index: HashTable::new(),
            hasher: RandomState::new(),
            last: None,
            preset: 0,
        }
    }
}

/// The value of key `k`.
fn value<'v>(bytes: &'v [u8], offsets: &[i32], k: i32) -> &'v [u8] {
    let k = k as usize;
    &bytes[offsets[k] as usize..offsets[k + 1] as usize]
}

impl DictBuilder {
    /// A builder whose first values are `labels`.
    pub(super) fn with_labels(labels: &[&str]) -> DictBuilder {
        let mut b = DictBuilder::default();
        for l in labels {
            b.key_of(l);
        }
        b.preset = b.len();
        assert_eq!(b.preset, labels.len(), "labels are distinct");
        b
    }

    /// Values held.
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn key_of(&mut self, s: &str) -> i32 {
        let DictBuilder {
            bytes,
            offsets,
            index,
            hasher,
            ..
        } = self;
        let s = s.as_bytes();
        let hash = hasher.hash_one(s);
        if let Some(&k) = index.find(hash, |&k| value(bytes, offsets, k) == s) {
            return k;
        }
        let k = i32::try_from(offsets.len() - 1).expect("fewer than 2^31 values");
        bytes.extend_from_slice(s);
        offsets.push(i32::try_from(bytes.len()).expect("values under 2 GiB a batch"));
        index.insert_unique(hash, k, |&k| hasher.hash_one(value(bytes, offsets, k)));
        k
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
        let guess = |k: i32| {
            (k as usize) < self.len() && value(&self.bytes, &self.offsets, k) == s.as_bytes()
        };
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
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets.clone()));
        let values = StringArray::new(offsets, Buffer::from_slice_ref(&self.bytes), None);
        self.offsets.truncate(self.preset + 1);
        self.bytes.truncate(self.offsets[self.preset] as usize);
        let preset = self.preset as i32;
        self.index.retain(|&mut k| k < preset);
        self.last = None;
        DictionaryArray::try_new(keys, Arc::new(values)).expect("keys index the values")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_array::cast::AsArray;

    fn texts(a: &DictionaryArray<Int32Type>) -> Vec<Option<String>> {
        let values = a.values().as_string::<i32>();
        (0..a.len())
            .map(|i| {
                a.is_valid(i)
                    .then(|| values.value(a.keys().value(i) as usize).to_owned())
            })
            .collect()
    }

    #[test]
    fn values_are_kept_once_and_labels_across_batches() {
        let mut b = DictBuilder::with_labels(&["allow", "disallow"]);
        let rows = [
            Some("x"),
            Some("y"),
            None,
            Some("x"),
            Some("disallow"),
            Some(""),
            Some("é"),
            Some("y"),
        ];
        for r in rows {
            b.append_text(r);
        }
        b.append_label(Some(0));
        let a = b.finish();
        let mut want: Vec<Option<String>> = rows.iter().map(|r| r.map(str::to_owned)).collect();
        want.push(Some("allow".into()));
        assert_eq!(texts(&a), want);
        // labels, x, y, "", é: each once.
        assert_eq!(a.values().len(), 6);
        // The next batch starts with the labels only.
        b.append_text(Some("z"));
        b.append_text(Some("x"));
        b.append_label(Some(1));
        let a = b.finish();
        assert_eq!(
            texts(&a),
            [Some("z".into()), Some("x".into()), Some("disallow".into())]
        );
        assert_eq!(a.values().len(), 4);
    }
}
