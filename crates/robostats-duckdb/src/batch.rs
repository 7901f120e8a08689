//! Google's verdict for many rows at once: three columns (bodies, user
//! agents, URLs) of any storage, each distinct body parsed once, on
//! rayon's threads. The Python package's `can_fetch_many` reads Arrow
//! arrays through it; the extension (extension.rs) reads DuckDB's vectors
//! in place.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};

use rayon::prelude::*;

use robostats_rows::classify::agents::ignores_global_group;
use robostats_rows::classify::crawler::Policy;
use robostats_rows::robots::{AgentRules, GOOGLE_MAX_BYTES, GroupMatch, RobotsTxt};

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

/// The rows of a call, and how to judge them: three columns of one
/// length (or one user agent for every row), Google's 500 KiB limit or
/// none, the crawler policy, and whether to use rayon's threads (else the
/// calling thread alone: DuckDB's, which has other chunks for the other
/// cores; a call of one block, up to [`BLOCK`] rows, runs on the calling
/// thread either way).
pub struct Many<'a, C> {
    /// The robots.txt bodies.
    pub bodies: &'a C,
    /// The crawlers.
    pub agents: Agents<'a, C>,
    /// The URLs.
    pub urls: &'a C,
    /// Google's 500 KiB limit.
    pub size_limit: bool,
    /// Whose answer.
    pub policy: Policy,
    /// On rayon's threads.
    pub parallel: bool,
}

/// Google's verdict for each row (None for a NULL input).
pub fn can_fetch_many<C: Rows>(many: Many<'_, C>) -> Result<Vec<Option<bool>>, String> {
    judge_many(many, |row| row.rules.allowed(row.url))
}

/// Why each row's verdict is what it is, in words ([`explain`]; None for
/// a NULL input), as [`can_fetch_many`] judges the rows.
pub fn explain_many<C: Rows>(many: Many<'_, C>) -> Result<Vec<Option<String>>, String> {
    let policy = many.policy;
    judge_many(many, |row| explain(row, policy))
}

/// One row, ready to judge: the parsed body, the crawler's product token
/// (as the policy takes it), its groups, and the URL.
pub struct Row<'r, 'a> {
    /// The body, parsed.
    pub robots: &'r RobotsTxt<'a>,
    /// The crawler, as the policy takes it.
    pub token: &'r str,
    /// Its groups in the body.
    pub rules: &'r AgentRules<'r, 'a>,
    /// The URL.
    pub url: &'r str,
}

/// `each` for every row of `many` that has no NULL: the distinct bodies
/// parsed once, each crawler's groups found once per run of rows with one
/// body and one crawler (one site's URLs for one crawler).
fn judge_many<'a, C: Rows, T: Send>(
    many: Many<'a, C>,
    each: impl Fn(&Row<'_, '_>) -> T + Sync,
) -> Result<Vec<Option<T>>, String> {
    let Many {
        bodies,
        agents,
        urls,
        size_limit,
        policy,
        parallel,
    } = many;
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
    in_blocks(n, parallel, |rows| {
        let mut last: Option<(u32, &str, &str, AgentRules<'_, '_>)> = None;
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
                Some((b, a, _, _)) if *b == body && *a == agent => {}
                _ => {
                    let token = policy.crawler(agent).map_err(|e| format!("row {i}: {e}"))?;
                    let rules = policy.rules(&parsed[body as usize], token);
                    last = Some((body, agent, token, rules));
                }
            }
            let (body, _, token, rules) = last.as_ref().expect("just set");
            let row = Row {
                robots: &parsed[*body as usize],
                token,
                rules,
                url,
            };
            Ok(Some(each(&row)))
        })
        .collect()
    })
}

/// Why `row`'s verdict is what it is, in words: the verdict, then the
/// deciding line and rule (its pattern as Google matches it) and whose
/// groups it is in, or why no rule decides.
pub fn explain(row: &Row<'_, '_>, policy: Policy) -> String {
    let decision = row.rules.decide(row.url);
    let verdict = if decision.allowed {
        "allowed"
    } else {
        "disallowed"
    };
    let groups = match decision.group {
        GroupMatch::Specific => "the groups naming the crawler",
        GroupMatch::Global => "the * groups",
        GroupMatch::None => "no group",
    };
    if let Some(rule) = decision.rule.map(|i| &row.robots.rules()[i]) {
        let index_htm = if decision.via_index_htm {
            ", through Google's index.htm rule"
        } else {
            ""
        };
        return format!(
            "{verdict}: line {}, {}: {}{index_htm} (in {groups})",
            rule.line,
            rule.kind.as_str(),
            String::from_utf8_lossy(&rule.pattern)
        );
    }
    let ignored_global = decision.group == GroupMatch::None
        && policy == Policy::Google
        && ignores_global_group(row.token)
        && row.robots.agent(row.token).group_match() == GroupMatch::Global;
    match decision.group {
        _ if ignored_global => format!(
            "{verdict}: no group names {}, which ignores the * group (Google's special-case \
             crawlers)",
            row.token
        ),
        GroupMatch::None => {
            format!("{verdict}: no group names the crawler and there is no * group")
        }
        _ => format!("{verdict}: no rule matches (in {groups})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Col(Vec<Option<&'static str>>);

    /// Rows with Google's 500 KiB limit, on the calling thread.
    fn many<'a>(
        bodies: &'a Col,
        agents: Agents<'a, Col>,
        urls: &'a Col,
        policy: Policy,
    ) -> Many<'a, Col> {
        Many {
            bodies,
            agents,
            urls,
            size_limit: true,
            policy,
            parallel: false,
        }
    }

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
            let got = can_fetch_many(Many {
                bodies: &bodies,
                agents: Agents::One("FooBot"),
                urls: &urls,
                size_limit: true,
                policy: Policy::Google,
                parallel,
            })
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
    fn explanations_name_the_deciding_line_or_why_none_decides() {
        let body = "user-agent: *\ndisallow: /private\nuser-agent: GPTBot\ndisallow: /\n\
                    allow: /public\n";
        let cases = [
            (
                "GPTBot",
                "/public/x",
                "allowed: line 5, allow: /public (in the groups naming the crawler)",
            ),
            (
                "GPTBot",
                "/x",
                "disallowed: line 4, disallow: / (in the groups naming the crawler)",
            ),
            (
                "CCBot",
                "/private/1",
                "disallowed: line 2, disallow: /private (in the * groups)",
            ),
            ("CCBot", "/ok", "allowed: no rule matches (in the * groups)"),
            (
                "AdsBot-Google",
                "/private",
                "allowed: no group names AdsBot-Google, which ignores the * group (Google's \
                 special-case crawlers)",
            ),
        ];
        let n = cases.len();
        let bodies = Col(vec![Some(body); n]);
        let agents = Col(cases.iter().map(|c| Some(c.0)).collect());
        let urls = Col(cases.iter().map(|c| Some(c.1)).collect());
        let got =
            explain_many(many(&bodies, Agents::Each(&agents), &urls, Policy::Google)).unwrap();
        for (got, case) in got.iter().zip(&cases) {
            assert_eq!(got.as_deref(), Some(case.2));
        }
        let one = |body: &'static str, agent: &'static str, url: &'static str, policy| {
            let (b, u) = (Col(vec![Some(body)]), Col(vec![Some(url)]));
            explain_many(many(&b, Agents::One(agent), &u, policy)).unwrap()[0]
                .clone()
                .unwrap()
        };
        assert_eq!(
            one(
                "user-agent: GPTBot\ndisallow: /\n",
                "CCBot",
                "/x",
                Policy::Google
            ),
            "allowed: no group names the crawler and there is no * group"
        );
        assert_eq!(
            one(
                "user-agent: *\ndisallow: /\n",
                "AdsBot-Google",
                "/x",
                Policy::Library
            ),
            "disallowed: line 2, disallow: / (in the * groups)"
        );
        assert!(
            one(
                "user-agent: *\nallow: /d/index.html\ndisallow: /d/\n",
                "x",
                "/d/",
                Policy::Google
            )
            .contains("line 2, allow: /d/index.html, through Google's index.htm rule")
        );
    }

    #[test]
    fn a_whole_user_agent_header_is_refused_under_google_s_policy() {
        let one = Col(vec![Some("user-agent: *\ndisallow: /\n")]);
        let url = Col(vec![Some("/")]);
        let agent = "Mozilla/5.0 (compatible; GPTBot/1.2)";
        assert!(
            can_fetch_many(Many {
                bodies: &one,
                agents: Agents::One(agent),
                urls: &url,
                size_limit: true,
                policy: Policy::Google,
                parallel: false
            })
            .is_err()
        );
        let lengths = Col(vec![]);
        assert!(can_fetch_many(many(&one, Agents::One("a"), &lengths, Policy::Google)).is_err());
        assert_eq!(limit(false), usize::MAX);
    }
}
