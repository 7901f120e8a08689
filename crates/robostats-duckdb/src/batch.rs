//! Google's verdict for many rows at once: three columns (bodies, user
//! agents, URLs) of any storage, each distinct body parsed once, on
//! rayon's threads. The Python package's `can_fetch_many` reads Arrow
//! arrays through it; the extension (extension.rs) reads DuckDB's vectors
//! in place.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};

use rayon::prelude::*;

use robostats_rows::classify::crawler::Policy;
use robostats_rows::robots::{AgentRules, GOOGLE_MAX_BYTES, RobotsTxt};

/// The bytes parsed for rules: all of them, or Google's crawler's 500 KiB.
pub fn limit(size_limit: bool) -> usize {
    if size_limit {
        GOOGLE_MAX_BYTES
    } else {
        usize::MAX
    }
}

/// Each row's value as an index into the distinct values (None: NULL),
/// and those values.
pub type Distinct<'a> = (Vec<Option<u32>>, Vec<&'a [u8]>);

/// A column of bytes as the verdicts read it: an Arrow array, a DuckDB
/// vector, ...
pub trait Rows: Sync {
    /// The value of row `i`, or None for a NULL.
    fn get(&self, i: usize) -> Option<&[u8]>;
    /// How many rows.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each row's value as an index into the distinct values, and those
    /// values, where the column knows them without reading every row (a
    /// dictionary); None: found by [`can_fetch_many`] from the rows.
    fn distinct(&self) -> Option<Distinct<'_>> {
        None
    }
}

/// The distinct ones of `values` (None: NULL), told apart by their bytes
/// (a SipHash with a random key finds them: values made to collide cost
/// no more than others): each value's index into the distinct ones, and
/// those.
pub fn distinct_values<'a>(values: impl Iterator<Item = Option<&'a [u8]>>) -> Distinct<'a> {
    let mut index: HashMap<&[u8], u32> = HashMap::new();
    let mut distinct = Vec::new();
    let which = values
        .map(|v| {
            let v = v?;
            Some(*index.entry(v).or_insert_with(|| {
                distinct.push(v);
                (distinct.len() - 1) as u32
            }))
        })
        .collect();
    (which, distinct)
}

/// The user agents of [`can_fetch_many`]: one for every row, or a column.
pub enum Agents<'a, C> {
    /// One user agent for every row.
    One(&'a str),
    /// A user agent per row.
    Each(&'a C),
}

/// A body and its hash, computed beforehand (in parallel): the map finds a
/// body by the hash and compares the bytes.
struct Key<'a> {
    hash: u64,
    bytes: &'a [u8],
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.bytes == other.bytes
    }
}

impl Eq for Key<'_> {}

/// Hands a [`Key`]'s hash to the map as it is.
#[derive(Default)]
struct Precomputed(u64);

impl Hasher for Precomputed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Rows per block of work: a call with fewer (a DuckDB chunk has 2,048)
/// runs on the calling thread, where handing blocks to other threads
/// would cost more than it saves (DuckDB calls from several threads).
const BLOCK: usize = 4096;

/// `f` over the rows in blocks of [`BLOCK`], on rayon's threads when there
/// is more than one block and `parallel`; the results in row order.
fn in_blocks<T: Send>(
    n: usize,
    parallel: bool,
    f: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>, String> + Sync,
) -> Result<Vec<T>, String> {
    if n <= BLOCK || !parallel {
        return f(0..n);
    }
    let blocks: Vec<std::ops::Range<usize>> = (0..n)
        .step_by(BLOCK)
        .map(|s| s..(s + BLOCK).min(n))
        .collect();
    let done: Vec<Vec<T>> = blocks
        .into_par_iter()
        .map(&f)
        .collect::<Result<_, String>>()?;
    Ok(done.into_iter().flatten().collect())
}

/// What a row's body is, found in parallel before the bodies are indexed.
#[derive(Clone, Copy)]
enum Seen {
    Null,
    /// The bytes of the row before (rows of one site often follow each
    /// other): a comparison instead of a hash.
    AsBefore,
    Hashed(u64),
}

/// Each row's body as an index into the distinct bodies, and those bodies.
/// Bodies are told apart by their bytes; the hashes that find them are
/// keyed per call (SipHash with a random key), so bodies made to collide
/// cost no more than others.
fn distinct_bodies<C: Rows>(bodies: &C, parallel: bool) -> Distinct<'_> {
    let n = bodies.len();
    let state = RandomState::new();
    let seen = in_blocks(n, parallel, |rows| {
        Ok(rows
            .map(|i| match bodies.get(i) {
                None => Seen::Null,
                Some(b) if i > 0 && bodies.get(i - 1) == Some(b) => Seen::AsBefore,
                Some(b) => Seen::Hashed(state.hash_one(b)),
            })
            .collect())
    })
    .expect("no error");
    let mut index: HashMap<Key<'_>, u32, BuildHasherDefault<Precomputed>> = HashMap::default();
    let mut distinct: Vec<&[u8]> = Vec::new();
    let mut which: Vec<Option<u32>> = Vec::with_capacity(n);
    for (i, seen) in seen.into_iter().enumerate() {
        let body = match seen {
            Seen::Null => None,
            Seen::AsBefore => which[i - 1],
            Seen::Hashed(hash) => {
                let bytes = bodies.get(i).expect("not null");
                Some(*index.entry(Key { hash, bytes }).or_insert_with(|| {
                    distinct.push(bytes);
                    (distinct.len() - 1) as u32
                }))
            }
        };
        which.push(body);
    }
    (which, distinct)
}

/// Google's verdict for each row (None for a NULL input), on rayon's
/// threads where `parallel`, else on the calling thread alone (DuckDB's,
/// which has other chunks for the other cores). A call of one block (up
/// to [`BLOCK`] rows) runs on the calling thread either way.
pub fn can_fetch_many<'a, C: Rows>(
    bodies: &'a C,
    agents: Agents<'a, C>,
    urls: &'a C,
    size_limit: bool,
    policy: Policy,
    parallel: bool,
) -> Result<Vec<Option<bool>>, String> {
    if let Agents::One(agent) = &agents {
        policy.crawler(agent)?;
    }
    let n = bodies.len();
    let agents_len = match &agents {
        Agents::Each(col) => col.len(),
        Agents::One(_) => n,
    };
    if agents_len != n || urls.len() != n {
        return Err(format!(
            "bodies, user_agents and urls differ in length ({n}, {agents_len}, {})",
            urls.len()
        ));
    }
    let (which, distinct) = bodies
        .distinct()
        .unwrap_or_else(|| distinct_bodies(bodies, parallel));
    let max = limit(size_limit);
    let parse = |b: &&'a [u8]| RobotsTxt::parse_with_limit(b, max);
    let parsed: Vec<RobotsTxt<'_>> = if n <= BLOCK || !parallel {
        distinct.iter().map(parse).collect()
    } else {
        distinct.par_iter().map(parse).collect()
    };
    let text = |col: &'a C, i: usize, what: &str| -> Result<Option<&'a str>, String> {
        col.get(i)
            .map(|b| std::str::from_utf8(b).map_err(|_| format!("{what} of row {i} is not UTF-8")))
            .transpose()
    };
    // The groups of one agent in one body are found once for the rows that
    // follow each other with both (one site's URLs for one crawler).
    in_blocks(n, parallel, |rows| {
        let mut last: Option<(u32, &str, AgentRules<'_, '_>)> = None;
        rows.map(|i| {
            let Some(body) = which[i] else {
                return Ok(None);
            };
            let agent = match &agents {
                Agents::One(agent) => Some(*agent),
                Agents::Each(col) => text(col, i, "user_agent")?,
            };
            let (Some(agent), Some(url)) = (agent, text(urls, i, "url")?) else {
                return Ok(None);
            };
            match &last {
                Some((b, a, _)) if *b == body && *a == agent => {}
                _ => {
                    let token = policy.crawler(agent).map_err(|e| format!("row {i}: {e}"))?;
                    last = Some((body, agent, policy.rules(&parsed[body as usize], token)));
                }
            }
            let (_, _, rules) = last.as_ref().expect("just set");
            Ok(Some(rules.allowed(url)))
        })
        .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Col(Vec<Option<&'static str>>);

    impl Rows for Col {
        fn get(&self, i: usize) -> Option<&[u8]> {
            self.0[i].map(str::as_bytes)
        }
        fn len(&self) -> usize {
            self.0.len()
        }
    }

    #[test]
    fn bodies_are_told_apart_by_their_bytes_and_nulls_give_none() {
        let a = "user-agent: *\ndisallow: /a\n";
        let b = "user-agent: *\ndisallow: /b\n";
        let n = 3 * BLOCK;
        let bodies = Col((0..n)
            .map(|i| [Some(a), Some(a), Some(b), None][i % 4])
            .collect());
        let urls = Col((0..n).map(|i| Some(["/a", "/b"][i % 2])).collect());
        for parallel in [false, true] {
            let got = can_fetch_many(
                &bodies,
                Agents::One("FooBot"),
                &urls,
                true,
                Policy::Google,
                parallel,
            )
            .unwrap();
            let want: Vec<Option<bool>> = (0..n)
                .map(|i| match (i % 4, i % 2) {
                    (3, _) => None,
                    (0 | 1, 0) => Some(false),
                    (2, 1) => Some(false),
                    _ => Some(true),
                })
                .collect();
            assert_eq!(got, want);
            let (which, distinct) = distinct_bodies(&bodies, parallel);
            assert_eq!(distinct.len(), 2);
            assert_eq!(which[3], None);
        }
    }

    #[test]
    fn a_whole_user_agent_header_is_refused_under_google_s_policy() {
        let one = Col(vec![Some("user-agent: *\ndisallow: /\n")]);
        let url = Col(vec![Some("/")]);
        let agent = "Mozilla/5.0 (compatible; GPTBot/1.2)";
        assert!(
            can_fetch_many(&one, Agents::One(agent), &url, true, Policy::Google, false).is_err()
        );
        let lengths = Col(vec![]);
        assert!(
            can_fetch_many(
                &one,
                Agents::One("a"),
                &lengths,
                true,
                Policy::Google,
                false
            )
            .is_err()
        );
        assert_eq!(limit(false), usize::MAX);
    }
}
