//! [`PreferenceLint`]: the findings of a file's AI-use preference lines
//! (`Content-Signal`, `Content-Usage`), read against its groups and rules.

use std::collections::HashMap;

use super::finding::PreferenceFinding;
use super::scope::{GroupIndex, literal_start};
use crate::parse::RobotsTxt;
use crate::preference::{
    Member, OLD_AIPREF_LABELS, ParseStatus, PreferenceDirective, PreferenceValue, Statement,
    parse_dictionary,
};

/// The diagnoses of a file's preference lines (`robostats lint`). It
/// indexes the file's crawler names once, each group's rules on first
/// use, and keeps each group's answer for each scope, so that a line
/// costs about the number of groups its crawlers obey (not their rules),
/// even in files of thousands of crawlers, rules and preference lines.
pub struct PreferenceLint<'r, 'a> {
    robots: &'r RobotsTxt<'a>,
    /// Google's groups naming each product token (lower case), ascending.
    naming: HashMap<Vec<u8>, Vec<usize>>,
    /// The `*` groups.
    global: Vec<usize>,
    /// The user-agent lines of each group of AIPREF's grouping.
    aipref_members: Vec<Vec<usize>>,
    /// Per group a line stands in (`true` for AIPREF's grouping): the
    /// distinct sets of groups its crawlers obey.
    obeyed: HashMap<(bool, usize), Vec<Vec<usize>>>,
    /// Whether every crawler of a group may fetch no path of a scope.
    blocked: HashMap<((bool, usize), Vec<u8>), bool>,
    /// Each Google group's rules, indexed on first use.
    groups: Vec<Option<GroupIndex<'r>>>,
}

/// The group a preference line is read in, `None` outside every group:
/// its AIPREF group for `Content-Usage` (`(true, g)`), its Google group
/// for `Content-Signal` (`(false, g)`).
pub(super) fn line_group(s: &Statement<'_>) -> Option<(bool, usize)> {
    match s.directive {
        PreferenceDirective::ContentUsage => Some((true, s.aipref_group?)),
        PreferenceDirective::ContentSignal => Some((false, s.google_group?)),
    }
}

/// [`PreferenceFinding::NotAPath`] for a `Content-Usage` line without a
/// path whose first word (up to a space or tab, with more after it)
/// starts with `*` or holds a `/`.
fn not_a_path(s: &Statement<'_>) -> Option<PreferenceFinding> {
    if s.directive != PreferenceDirective::ContentUsage || s.path.is_some() {
        return None;
    }
    let first = s.dictionary.split(|&b| b == b' ' || b == b'\t').next();
    let w = first.filter(|w| w.len() < s.dictionary.len())?;
    (w.first() == Some(&b'*') || w.contains(&b'/'))
        .then(|| PreferenceFinding::NotAPath(String::from_utf8_lossy(w).into_owned()))
}

/// What is wrong with a line's dictionary as a whole: it is empty, or it
/// does not parse, and then why: an upper-case label, members separated
/// by spaces (not said of a line whose first word looks like a path,
/// `path_like`), else the parser's reason.
fn dictionary_finding(s: &Statement<'_>, path_like: bool) -> Option<PreferenceFinding> {
    use PreferenceFinding as F;
    match s.status {
        ParseStatus::Empty => Some(F::Empty),
        ParseStatus::Unparseable => {
            let lower = s.dictionary.to_ascii_lowercase();
            let commas = s
                .dictionary
                .split(|&b| b == b' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(&b", "[..]);
            Some(
                if lower != s.dictionary && parse_dictionary(&lower).is_ok() {
                    F::UpperCaseLabel
                } else if !path_like && parse_dictionary(&commas).is_ok() {
                    F::SpaceSeparated
                } else {
                    F::NotADictionary(s.error.clone().unwrap_or_default())
                },
            )
        }
        ParseStatus::Ok => None,
    }
}

/// What is wrong with one member's label or value: a label the directive
/// does not define (one of an earlier AIPREF draft, named), a `use` level
/// other than Cloudflare's, a value other than the directive's yes and no.
fn label_finding(s: &Statement<'_>, m: &Member<'_>) -> Option<PreferenceFinding> {
    use PreferenceFinding as F;
    let known = s.directive.labels().contains(&m.label);
    if !known {
        let old = OLD_AIPREF_LABELS.iter().find(|(l, _)| *l == m.label);
        Some(match (s.directive, old) {
            (PreferenceDirective::ContentUsage, Some((_, drafts))) => F::OldLabel {
                label: m.label.to_owned(),
                drafts,
            },
            _ => F::UnknownLabel {
                directive: s.directive,
                label: m.label.to_owned(),
            },
        })
    } else if m.label == "use" {
        (!matches!(m.token, Some("immediate" | "reference" | "full")))
            .then(|| F::NotAUseLevel(m.value.unwrap_or("?1").to_owned()))
    } else if s.normalise(m) == PreferenceValue::Unknown {
        Some(F::NeitherYesNorNo {
            directive: s.directive,
            label: m.label.to_owned(),
            value: m.value.unwrap_or("?1").to_owned(),
        })
    } else {
        None
    }
}

impl<'r, 'a> PreferenceLint<'r, 'a> {
    /// Indexes `robots`' user-agent lines.
    pub fn new(robots: &'r RobotsTxt<'a>) -> Self {
        let mut naming: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        for ua in robots.user_agents().iter().filter(|ua| !ua.global) {
            let groups = naming.entry(ua.product.to_ascii_lowercase()).or_default();
            if groups.last() != Some(&ua.group) {
                groups.push(ua.group);
            }
        }
        let global = (0..robots.groups().len())
            .filter(|&g| robots.groups()[g].global)
            .collect();
        let mut aipref_members: Vec<Vec<usize>> = Vec::new();
        for (i, &g) in robots.aipref_groups.of_user_agent.iter().enumerate() {
            if aipref_members.len() <= g {
                aipref_members.resize_with(g + 1, Vec::new);
            }
            aipref_members[g].push(i);
        }
        PreferenceLint {
            robots,
            naming,
            global,
            aipref_members,
            obeyed: HashMap::new(),
            blocked: HashMap::new(),
            groups: Vec::new(),
        }
    }

    /// What is wrong with a preference line ([`PreferenceFinding`]s, whose
    /// `Display` is for people, as `robostats lint` prints them): a
    /// dictionary that does not parse (an upper-case label, pairs
    /// without commas), unknown labels (older AIPREF drafts named), values
    /// other than the directive's yes and no, a label given twice, a
    /// first word that looks like a path but is not one, a line outside
    /// every group, and preferences for a path that the line's crawlers
    /// may not fetch anyway.
    pub fn findings(&mut self, s: &Statement<'_>) -> Vec<PreferenceFinding> {
        let mut d = Vec::new();
        if s.google_group.is_none() {
            d.push(PreferenceFinding::OutsideGroups(s.directive));
        }
        let not_a_path = not_a_path(s);
        let path_like = not_a_path.is_some();
        d.extend(not_a_path);
        d.extend(dictionary_finding(s, path_like));
        for m in &s.members {
            d.extend(label_finding(s, m));
            if m.overridden {
                d.push(PreferenceFinding::GivenAgain(m.label.to_owned()));
            }
        }
        if let Some(scope) = self.disallowed_anyway(s) {
            d.push(PreferenceFinding::NeverApplies {
                crawlers: self.crawler_names(s),
                scope: String::from_utf8_lossy(&scope).into_owned(),
            });
        }
        d
    }

    /// The user-agent values of a line's group, for people: all of them up
    /// to four, else the first three and how many more (never "and 1
    /// more", which would hide a name in the place of saying it).
    fn crawler_names(&self, s: &Statement<'_>) -> String {
        let user_agents = self.robots.user_agents();
        let members = line_group(s).map_or(Vec::new(), |key| self.members(key));
        let shown = if members.len() <= 4 { members.len() } else { 3 };
        let mut names: Vec<String> = members
            .iter()
            .take(shown)
            .map(|&i| String::from_utf8_lossy(user_agents[i].value).into_owned())
            .collect();
        if members.len() > shown {
            names.push(format!("and {} more", members.len() - shown));
        }
        names.join(", ")
    }

    /// The scope of a preference line (the literal start of its path, up
    /// to a `*` or `$`; `/` for a line without a path) when every crawler
    /// of its group may fetch no path of that scope.
    fn disallowed_anyway(&mut self, s: &Statement<'_>) -> Option<Vec<u8>> {
        let key = line_group(s)?;
        let scope = match literal_start(&s.pattern) {
            b"" => b"/".to_vec(),
            literal => literal.to_vec(),
        };
        if let Some(&blocked) = self.blocked.get(&(key, scope.clone())) {
            return blocked.then_some(scope);
        }
        if !self.obeyed.contains_key(&key) {
            let sets = self.obeyed_groups(key);
            self.obeyed.insert(key, sets);
        }
        // Each group's longest disallow covering the scope and longest
        // allow that could match in it, then each crawler's groups.
        let mut involved: Vec<usize> = self.obeyed[&key].iter().flatten().copied().collect();
        involved.sort_unstable();
        involved.dedup();
        let reach: HashMap<usize, (usize, usize)> = involved
            .into_iter()
            .map(|g| (g, self.group_index(g).reach(&scope)))
            .collect();
        let sets = &self.obeyed[&key];
        let blocked = !sets.is_empty()
            && sets.iter().all(|groups| {
                let (disallow, allow) = groups.iter().fold((0, 0), |(d, a), g| {
                    let (gd, ga) = reach[g];
                    (d.max(gd), a.max(ga))
                });
                // A tie goes to allow.
                disallow > 0 && disallow > allow
            });
        self.blocked.insert((key, scope.clone()), blocked);
        blocked.then_some(scope)
    }

    /// The user-agent lines (indices) of a group: of AIPREF's grouping
    /// when `key.0`, else of Google's.
    fn members(&self, (aipref, group): (bool, usize)) -> Vec<usize> {
        if aipref {
            self.aipref_members.get(group).cloned().unwrap_or_default()
        } else {
            self.robots.groups()[group].user_agents.clone().collect()
        }
    }

    /// The index of a group's rules, made on first use.
    fn group_index(&mut self, g: usize) -> &GroupIndex<'r> {
        if self.groups.len() <= g {
            self.groups.resize_with(g + 1, || None);
        }
        let robots = self.robots;
        self.groups[g].get_or_insert_with(|| GroupIndex::new(robots, g))
    }

    /// The distinct sets of groups that the crawlers of a group obey (each
    /// named crawler the groups naming it, `*` the `*` groups).
    fn obeyed_groups(&self, key: (bool, usize)) -> Vec<Vec<usize>> {
        let user_agents = self.robots.user_agents();
        let mut sets: Vec<&Vec<usize>> = self
            .members(key)
            .iter()
            .map(|&i| {
                let ua = &user_agents[i];
                if ua.global {
                    &self.global
                } else {
                    &self.naming[&ua.product.to_ascii_lowercase()]
                }
            })
            .collect();
        sets.sort();
        sets.dedup();
        sets.into_iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crawler name of letters only (a product token keeps only
    /// letters, `-` and `_`, so `Bot7` would be `Bot`).
    fn crawler(i: usize) -> String {
        let letters: String = (0..3)
            .map(|k| char::from(b'a' + (i / 26usize.pow(k) % 26) as u8))
            .collect();
        format!("Bot{letters}")
    }

    fn flagged(body: &str) -> Vec<bool> {
        let robots = RobotsTxt::parse(body.as_bytes());
        let mut lint = PreferenceLint::new(&robots);
        robots
            .preferences()
            .iter()
            .map(|s| {
                lint.findings(s)
                    .iter()
                    .any(|f| matches!(f, PreferenceFinding::NeverApplies { .. }))
            })
            .collect()
    }

    #[test]
    fn lint_flags_a_scope_only_when_no_path_of_it_may_be_fetched() {
        // An allow inside the scope: the line applies there.
        let body = "User-agent: *\nDisallow: /\nAllow: /docs/\n\
                    Content-Signal: ai-train=no\nContent-Usage: train-ai=n\n";
        assert_eq!(flagged(body), [false, false]);
        let body = "User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\
                    Content-Usage: /private/ train-ai=n\nContent-Usage: /private/x/ train-ai=n\n\
                    Content-Usage: /private/press/x train-ai=n\n";
        assert_eq!(flagged(body), [false, true, false]);
        // A tie goes to allow; an allow with a wildcard may match anywhere
        // after its literal start.
        let body = "User-agent: *\nDisallow: /a/\nAllow: /a/\nContent-Usage: /a/ train-ai=n\n";
        assert_eq!(flagged(body), [false]);
        let body = "User-agent: *\nDisallow: /\nAllow: /*.html\nContent-Signal: ai-train=no\n";
        assert_eq!(flagged(body), [false]);
        // A disallow with a wildcard or an anchor is not taken to cover a
        // scope (lint says nothing rather than something wrong).
        let body = "User-agent: *\nDisallow: /*\nContent-Signal: ai-train=no\n";
        assert_eq!(flagged(body), [false]);
        let body = "User-agent: *\nDisallow: /\nContent-Signal: ai-train=no\n\
                    Content-Usage: /x/*.pdf$ train-ai=n\n";
        assert_eq!(flagged(body), [true, true]);
    }

    #[test]
    fn lint_reads_each_group_of_crawlers_once() {
        // 300 crawlers shut out of everything, each also named in a group
        // of its own, and 300 Content-Usage rules for them: every rule is
        // for a path they may not fetch anyway, but for one crawler's.
        let mut body = String::new();
        for i in 0..300 {
            body += &format!("User-agent: {}\n", crawler(i));
        }
        body += "Disallow: /\n";
        for i in 0..300 {
            body += &format!("Content-Usage: /p{}/ train-ai=n\n", crawler(i));
        }
        for i in 0..300 {
            body += &format!(
                "User-agent: {}\nDisallow: /x{i}\n",
                crawler(i).to_lowercase()
            );
        }
        body += &format!("User-agent: {}\nAllow: /p{}/\n", crawler(7), crawler(7));
        let flags = flagged(&body);
        assert_eq!(flags.iter().filter(|f| !**f).count(), 1);
        assert!(!flags[7]);
        // The same answers, line by line, as one-off diagnoses give.
        let robots = RobotsTxt::parse(body.as_bytes());
        for (s, f) in robots.preferences().iter().zip(&flags).step_by(37) {
            let once = robots.preference_findings(s);
            let never = |f: &PreferenceFinding| matches!(f, PreferenceFinding::NeverApplies { .. });
            assert_eq!(once.iter().any(never), *f);
        }
    }

    /// Each finding, from the line that gives it, with the sentence lint
    /// prints.
    #[test]
    fn each_finding_and_its_sentence() {
        use PreferenceFinding as F;
        /// A body, the finding its first preference line gives, and words
        /// of its sentence.
        type Case = (&'static str, fn(&PreferenceFinding) -> bool, &'static str);
        let cases: [Case; 11] = [
            (
                "Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n",
                |f| matches!(f, F::OutsideGroups(_)),
                "so no crawler reads this rule",
            ),
            (
                "User-agent: *\nContent-Usage: *.pdf train-ai=n\n",
                |f| matches!(f, F::NotAPath(w) if w == "*.pdf"),
                "'*.pdf' is not a path",
            ),
            (
                "User-agent: *\nContent-Usage: \n",
                |f| *f == F::Empty,
                "the dictionary is empty",
            ),
            (
                "User-agent: *\nContent-Usage: Train-AI=n\n",
                |f| *f == F::UpperCaseLabel,
                "upper-case label (labels are lower case): every",
            ),
            (
                "User-agent: *\nContent-Signal: search=yes ai-train=no\n",
                |f| *f == F::SpaceSeparated,
                "members separated by spaces",
            ),
            (
                "User-agent: *\nContent-Usage: train-ai=n;;\n",
                |f| matches!(f, F::NotADictionary(_)),
                "not a Structured Fields dictionary: ",
            ),
            (
                "User-agent: *\nContent-Usage: tdm=n\n",
                |f| {
                    matches!(
                        f,
                        F::OldLabel {
                            drafts: "vocab-01",
                            ..
                        }
                    )
                },
                "label 'tdm' is from an earlier AIPREF draft (vocab-01)",
            ),
            (
                "User-agent: *\nContent-Signal: foo=yes\n",
                |f| matches!(f, F::UnknownLabel { .. }),
                "unknown label 'foo' for Content-Signal (search, ai-input, ai-train, use): ignored",
            ),
            (
                "User-agent: *\nContent-Signal: use=all\n",
                |f| matches!(f, F::NotAUseLevel(v) if v == "all"),
                "use=all: use takes",
            ),
            (
                "User-agent: *\nContent-Usage: train-ai=yes\n",
                |f| matches!(f, F::NeitherYesNorNo { .. }),
                "train-ai=yes: Content-Usage takes y or n, so this is unknown",
            ),
            (
                "User-agent: *\nContent-Usage: train-ai=n, train-ai=y\n",
                |f| matches!(f, F::GivenAgain(l) if l == "train-ai"),
                "given again later",
            ),
        ];
        for (body, is, text) in cases {
            let robots = RobotsTxt::parse(body.as_bytes());
            let findings = robots.preference_findings(&robots.preferences()[0]);
            let found = findings.iter().find(|f| is(f));
            let found = found.unwrap_or_else(|| panic!("{body}: {findings:?}"));
            assert!(found.to_string().contains(text), "{body}: {found}");
        }
    }
}
