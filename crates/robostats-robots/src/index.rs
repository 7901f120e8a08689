//! An agent's rules indexed by their head, for judging many paths against
//! one file ([`AgentRules::index`]).
//!
//! Google's matcher tries every rule of the agent's groups on each path. A
//! rule can only match a path that starts with its *head*, the pattern's
//! bytes before its first `*` (for an allow, Google's `index.htm` retry
//! matches the directory alone: the head is the shorter of the two). So
//! the index files each rule under the first [`KEY`] bytes of its head and
//! tries, for a path, the rules filed under the path's first bytes and
//! those whose head is shorter. Many rules start with a wildcard
//! (`/*?sort=`, `/*.pdf$`): each rule also keeps the set of the bytes it
//! needs (every byte of its pattern but `*` and the end anchor must be in
//! a path it matches), and a rule needing a byte the path has not is not
//! tried. The verdict and the deciding rule are
//! [`AgentRules::decide_path`]'s (a test and the fuzz target check it).

use super::agent::{AgentRules, Decision, GroupMatch, decide_among};
use super::parse::{Rule, RuleKind};

/// How many bytes of a rule's head file it.
const KEY: usize = 3;

/// An agent's rules, indexed (see the module's documentation).
#[derive(Clone, Debug)]
pub struct IndexedRules<'r, 'a> {
    rules: &'r [Rule<'a>],
    group: GroupMatch,
    /// The rules whose head is shorter than [`KEY`] bytes, with the bytes
    /// they need ([`Bytes`]): tried on every path.
    short: Vec<(Bytes, u32)>,
    /// Every other rule, by its head's first [`KEY`] bytes (sorted).
    keyed: Vec<([u8; KEY], u32, Bytes)>,
}

impl<'r, 'a> AgentRules<'r, 'a> {
    /// These rules indexed, to decide many paths with
    /// [`IndexedRules::decide_path`]: the same verdicts as
    /// [`AgentRules::decide_path`], found by trying only the rules that can
    /// match.
    ///
    /// ```
    /// use robostats_robots::RobotsTxt;
    /// let robots = RobotsTxt::parse(b"User-agent: *\nDisallow: /private/\nAllow: /private/ok\n");
    /// let rules = robots.agent("FooBot");
    /// let index = rules.index();
    /// for path in [&b"/private/x"[..], b"/private/ok", b"/"] {
    ///     assert_eq!(index.decide_path(path), rules.decide_path(path));
    /// }
    /// ```
    pub fn index(&self) -> IndexedRules<'r, 'a> {
        let mut short = Vec::new();
        let mut keyed = Vec::new();
        for (index, rule) in self.rules() {
            // (u32: a file holds far fewer rules; a set of them is kept for
            // every file a run judges with)
            let index = u32::try_from(index).expect("fewer than 2^32 rules");
            let needs = needs(rule);
            match head(rule).first_chunk::<KEY>() {
                Some(key) => keyed.push((*key, index, needs)),
                None => short.push((needs, index)),
            }
        }
        keyed.sort_unstable();
        IndexedRules {
            rules: self.robots().rules(),
            group: self.group_match(),
            short,
            keyed,
        }
    }
}

impl IndexedRules<'_, '_> {
    /// [`AgentRules::decide_path`]: the verdict for a path as Google's
    /// `GetPathParamsQuery` returns it (starting with `/`).
    pub fn decide_path(&self, path: &[u8]) -> Decision {
        let filed = match path.first_chunk::<KEY>() {
            Some(key) => {
                let from = self.keyed.partition_point(|(k, ..)| k < key);
                let to = from + self.keyed[from..].partition_point(|(k, ..)| k == key);
                &self.keyed[from..to]
            }
            None => &[],
        };
        let has = bytes_of(path.iter().copied());
        let candidates = (self.short.iter().copied())
            .chain(filed.iter().map(|&(_, i, n)| (n, i)))
            .filter(|&(needs, _)| needs & !has == 0)
            .map(|(_, i)| (i as usize, &self.rules[i as usize]));
        decide_among(candidates, path, self.group)
    }

    /// Which kind of group applies to this agent.
    pub fn group_match(&self) -> GroupMatch {
        self.group
    }
}

/// A set of bytes, 64 bits: a bit for each lower-case letter (an
/// upper-case one shares it), digit and byte common in paths
/// (`/?=&.-_%`), the others sharing the rest. A set may so hold more than
/// its bytes, never less.
type Bytes = u64;

/// Each byte's bit in [`Bytes`].
const BIT: [u8; 256] = {
    let mut bit = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = (b as u8).to_ascii_lowercase();
        bit[b] = match c {
            b'a'..=b'z' => c - b'a',
            b'0'..=b'9' => 26 + c - b'0',
            b'/' => 36,
            b'?' => 37,
            b'=' => 38,
            b'&' => 39,
            b'.' => 40,
            b'-' => 41,
            b'_' => 42,
            b'%' => 43,
            _ => 44 + c % 20,
        };
        b += 1;
    }
    bit
};

/// The bytes of `text`.
fn bytes_of(text: impl IntoIterator<Item = u8>) -> Bytes {
    text.into_iter()
        .fold(0, |set, b| set | 1 << BIT[b as usize])
}

/// What of `rule`'s pattern a path must hold for it to match: the pattern
/// without its end anchor, and for an allow with Google's `index.htm`
/// retry, only its directory (the retry matches that alone).
fn matched<'p>(rule: &'p Rule<'_>) -> &'p [u8] {
    let pattern: &[u8] = &rule.pattern;
    let pattern = pattern.strip_suffix(b"$").unwrap_or(pattern);
    match rule.index_dir_len {
        Some(dir) if rule.kind == RuleKind::Allow => &pattern[..dir.min(pattern.len())],
        _ => pattern,
    }
}

/// The bytes every path `rule` matches holds: those of [`matched`] but
/// `*`, which needs nothing.
fn needs(rule: &Rule<'_>) -> Bytes {
    bytes_of(matched(rule).iter().copied().filter(|&b| b != b'*'))
}

/// The bytes a path must start with for `rule` to match it: [`matched`]
/// before its first `*`.
fn head<'p>(rule: &'p Rule<'_>) -> &'p [u8] {
    let matched = matched(rule);
    &matched[..memchr::memchr(b'*', matched).unwrap_or(matched.len())]
}

#[cfg(test)]
mod tests {
    use crate::RobotsTxt;

    /// Every agent's verdict for every path, both ways.
    fn same(body: &[u8], paths: &[&[u8]]) {
        let robots = RobotsTxt::parse(body);
        for agent in ["FooBot", "BarBot", "*"] {
            let rules = robots.agent(agent);
            let index = rules.index();
            for path in paths {
                assert_eq!(
                    index.decide_path(path),
                    rules.decide_path(path),
                    "{agent} {:?}",
                    String::from_utf8_lossy(path)
                );
            }
        }
    }

    #[test]
    fn short_heads_wildcards_anchors_and_index_htm() {
        same(
            b"User-agent: *\nDisallow: /\nAllow: /a\nAllow: /ab*\nDisallow: /abc$\n\
              Disallow: *.php\nAllow: /d/index.html\nAllow: /index.htm\nDisallow: /$x\n\
              User-agent: FooBot\nDisallow: /abc\nAllow: /abc\nDisallow: /abd\nDisallow: /ab\n",
            &[
                b"/",
                b"/a",
                b"/ab",
                b"/abc",
                b"/abcd",
                b"/abd",
                b"/x.php",
                b"/d/",
                b"/d/x",
                b"/d/index.html",
                b"/$x",
                b"/$xy",
                b"/index.htm",
                b"",
            ],
        );
    }

    #[test]
    fn ties_keep_the_first_line() {
        // Two allows of one length match: the first decides, though the
        // index files it after the short one.
        let robots = RobotsTxt::parse(b"User-agent: *\nAllow: /abc\nAllow: /a*c\nDisallow: /\n");
        let rules = robots.agent("FooBot");
        let decision = rules.index().decide_path(b"/abc");
        assert_eq!(decision, rules.decide_path(b"/abc"));
        assert_eq!(decision.rule, Some(0));
    }
}
