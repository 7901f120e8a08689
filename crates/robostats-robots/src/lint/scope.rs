//! Lint's scope test: whether one group's rules let a crawler fetch any
//! path that starts with a given scope ([`GroupIndex::reach`]), from an
//! index of the group's rules made once.

use std::collections::{HashMap, HashSet};

use crate::parse::{RobotsTxt, RuleKind};

/// A pattern's literal start: up to its first `*` or `$`. Every path it
/// matches starts with it.
pub(super) fn literal_start(pattern: &[u8]) -> &[u8] {
    pattern
        .iter()
        .position(|&b| b == b'*' || b == b'$')
        .map_or(pattern, |end| &pattern[..end])
}

/// One group's rules as lint's scope test reads them.
pub(super) struct GroupIndex<'r> {
    /// Disallow patterns without `*` or `$`: each disallows every path it
    /// starts.
    disallows: HashSet<&'r [u8]>,
    /// Their distinct lengths, longest first.
    disallow_lengths: Vec<usize>,
    /// Allow patterns by their literal start (up to `*` or `$`): the
    /// longest pattern of each.
    allows: HashMap<&'r [u8], usize>,
    /// Their literal starts' distinct lengths.
    allow_lengths: Vec<usize>,
    /// The literal starts, sorted.
    allow_starts: Vec<&'r [u8]>,
}

impl<'r> GroupIndex<'r> {
    /// Indexes the rules of group `g`.
    pub(super) fn new(robots: &'r RobotsTxt<'_>, g: usize) -> Self {
        let mut index = GroupIndex {
            disallows: HashSet::new(),
            disallow_lengths: Vec::new(),
            allows: HashMap::new(),
            allow_lengths: Vec::new(),
            allow_starts: Vec::new(),
        };
        for rule in &robots.rules()[robots.groups()[g].rules.clone()] {
            let pattern: &'r [u8] = &rule.pattern;
            let start = literal_start(pattern);
            match rule.kind {
                RuleKind::Disallow if !pattern.is_empty() && start.len() == pattern.len() => {
                    index.disallows.insert(pattern);
                    index.disallow_lengths.push(pattern.len());
                }
                RuleKind::Disallow => {}
                RuleKind::Allow => {
                    let longest = index.allows.entry(start).or_default();
                    *longest = (*longest).max(pattern.len());
                    index.allow_lengths.push(start.len());
                    index.allow_starts.push(start);
                }
            }
        }
        index.disallow_lengths.sort_unstable_by(|a, b| b.cmp(a));
        index.disallow_lengths.dedup();
        index.allow_lengths.sort_unstable();
        index.allow_lengths.dedup();
        index.allow_starts.sort_unstable();
        index.allow_starts.dedup();
        index
    }

    /// For the paths starting with `scope`: the priority of the longest
    /// disallow that matches them all (0 when none does), and the longest
    /// priority an allow could have on one of them (`usize::MAX` when an
    /// allow reaches into the scope, whose priority is then at least the
    /// scope's length).
    pub(super) fn reach(&self, scope: &[u8]) -> (usize, usize) {
        let disallow = self
            .disallow_lengths
            .iter()
            .find(|&&n| n <= scope.len() && self.disallows.contains(&scope[..n]))
            .copied()
            .unwrap_or(0);
        let after = self.allow_starts.partition_point(|a| *a < scope);
        if self
            .allow_starts
            .get(after)
            .is_some_and(|a| a.starts_with(scope))
        {
            return (disallow, usize::MAX);
        }
        let allow = self
            .allow_lengths
            .iter()
            .take_while(|&&n| n <= scope.len())
            .filter_map(|&n| self.allows.get(&scope[..n]).copied())
            .max()
            .unwrap_or(0);
        (disallow, allow)
    }
}
