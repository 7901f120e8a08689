//! Lint: what is worth saying about each line of a robots.txt file, as
//! typed findings whose `Display` is for people (`robostats lint` prints
//! them). [`FileLint`] goes through a file's lines ([`LineFinding`]);
//! [`PreferenceLint`] reads its AI-use preference lines against its
//! groups and rules ([`PreferenceFinding`]; the lines' model and reading
//! are in [`crate::preference`]).

use std::collections::{HashMap, HashSet};

use super::lex::{Key, Line, MAX_LINE_BYTES, is_global_agent, product_token};
use super::parse::{GOOGLE_MAX_BYTES, RobotsTxt, RuleKind, UserAgent, known_elsewhere};
use super::preference::{
    OLD_AIPREF_LABELS, ParseStatus, PreferenceDirective, PreferenceValue, Statement,
    parse_dictionary,
};

impl<'a> RobotsTxt<'a> {
    /// The user-agent lines of the group a preference line stands in:
    /// its AIPREF group for `Content-Usage`, its Google group for
    /// `Content-Signal` (none before the first user-agent line).
    pub fn statement_agents(&self, s: &Statement<'_>) -> Vec<&UserAgent<'a>> {
        match line_group(s) {
            Some((true, g)) => self
                .user_agents()
                .iter()
                .zip(&self.aipref_groups.of_user_agent)
                .filter(|(_, of)| **of == g)
                .map(|(ua, _)| ua)
                .collect(),
            Some((false, g)) => self.user_agents()[self.groups()[g].user_agents.clone()]
                .iter()
                .collect(),
            None => Vec::new(),
        }
    }

    /// What is wrong with a preference line, for people: see
    /// [`PreferenceLint::findings`]. To diagnose every line of a file, keep
    /// one [`PreferenceLint`] instead: it finds each group's crawlers once.
    pub fn preference_findings(&self, s: &Statement<'_>) -> Vec<PreferenceFinding> {
        PreferenceLint::new(self).findings(s)
    }
}

/// What lint says of one line; its `Display` is the sentence
/// `robostats lint` prints. Most are findings; a few only describe the
/// line ([`LineFinding::is_finding`]).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineFinding {
    /// The line starts past 500 KiB: Google's crawler does not read it.
    PastLimit,
    /// The line crosses 500 KiB: Google's crawler reads only its start.
    CrossesLimit,
    /// The file starts with a UTF-8 byte order mark encoded twice (the
    /// UTF-8 of 'ï»¿'); `key_unknown`: the first line's key is read as
    /// unknown because of it.
    BomTwice {
        /// Google reads the first line's key as unknown.
        key_unknown: bool,
    },
    /// The body is HTML (said on its first unread line).
    HtmlBody,
    /// Another line of an HTML body (a description, not a finding).
    HtmlLine,
    /// Longer than Google reads.
    TooLong,
    /// A typo of the key Google accepts (the key it stands for).
    AcceptedTypo(&'static str),
    /// Key and value separated by whitespace, which Google accepts.
    MissingColon,
    /// A blank line (a description).
    Empty,
    /// A comment (a description).
    Comment,
    /// Text without a directive.
    NotADirective,
    /// A user-agent value without a product token: it matches no crawler.
    NoProductToken,
    /// A user-agent value that matches as its product token (given).
    MatchesAs(String),
    /// An allow or disallow line before any user-agent line.
    BeforeUserAgent,
    /// An allow or disallow line without a value: what it does.
    EmptyRule(EmptyRule),
    /// A pattern that starts with neither `/` nor `*`.
    NeverMatches,
    /// A sitemap that is not an absolute http(s) URL.
    NotAbsoluteUrl,
    /// A key Google does not use but other crawlers do (its name).
    KnownElsewhere(&'static str),
    /// `Content-Signals`, which Cloudflare spells without the s.
    ContentSignals,
    /// A key nobody uses.
    UnknownKey,
    /// What is wrong with a preference line.
    Preference(PreferenceFinding),
}

/// What an allow or disallow line without a value does. It matches no
/// path, yet its group still names its crawlers, who then follow this
/// group rather than the `*` group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyRule {
    /// Outside every group: nothing.
    NoEffect,
    /// The group's other rules decide.
    OthersDecide,
    /// The group names crawlers and has no other rule: they may fetch
    /// everything, and no longer follow the `*` group.
    AllowsEverything,
    /// A `*` group's only rule: it disallows nothing.
    DisallowsNothing,
}

impl LineFinding {
    /// Whether it is a finding (`--strict` fails on one), not a
    /// description of the line (blank, comment, a further line of HTML).
    pub fn is_finding(&self) -> bool {
        !matches!(
            self,
            LineFinding::Empty | LineFinding::Comment | LineFinding::HtmlLine
        )
    }
}

impl std::fmt::Display for LineFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use LineFinding as F;
        match self {
            F::PastLimit => f.write_str("past 500 KiB: ignored by Google's crawler"),
            F::CrossesLimit => {
                f.write_str("crosses 500 KiB: Google's crawler reads only its start")
            }
            F::BomTwice { key_unknown: true } => f.write_str(
                "starts with a BOM encoded twice (UTF-8 of 'ï»¿'): Google reads the first \
                 line's key as unknown",
            ),
            F::BomTwice { key_unknown: false } => f.write_str(
                "starts with a BOM encoded twice (UTF-8 of 'ï»¿'), which Google reads as text",
            ),
            F::HtmlBody => f.write_str(
                "HTML served as robots.txt: Google reads its lines as unknown keys and \
                 ignores them",
            ),
            F::HtmlLine => f.write_str("html"),
            F::TooLong => write!(f, "too long: Google keeps the first {MAX_LINE_BYTES} bytes"),
            F::AcceptedTypo(key) => write!(f, "typo of '{key}', accepted by Google"),
            F::MissingColon => f.write_str("missing colon, accepted by Google"),
            F::Empty => f.write_str("empty"),
            F::Comment => f.write_str("comment"),
            F::NotADirective => f.write_str("not a directive: ignored"),
            F::NoProductToken => f.write_str("no product token ([A-Za-z_-]+): matches no crawler"),
            F::MatchesAs(token) => write!(f, "matches as '{token}'"),
            F::BeforeUserAgent => f.write_str("before any user-agent: ignored"),
            F::EmptyRule(EmptyRule::NoEffect) => f.write_str("empty value: no effect"),
            F::EmptyRule(EmptyRule::OthersDecide) => {
                f.write_str("empty value: no effect (the group's other rules decide)")
            }
            F::EmptyRule(EmptyRule::AllowsEverything) => {
                f.write_str("allows everything: this group's crawlers no longer follow the * group")
            }
            F::EmptyRule(EmptyRule::DisallowsNothing) => {
                f.write_str("empty value: disallows nothing")
            }
            F::NeverMatches => f.write_str("never matches: a pattern starts with / or *"),
            F::NotAbsoluteUrl => f.write_str("not an absolute http(s) URL"),
            F::KnownElsewhere(name) => write!(f, "'{name}': not used by Google, used by others"),
            F::ContentSignals => f.write_str(
                "unknown key: ignored; Cloudflare defines Content-Signal, without the s \
                 (crawler-commons reads both), so robostats reads no preference here",
            ),
            F::UnknownKey => f.write_str("unknown key: ignored"),
            F::Preference(p) => p.fmt(f),
        }
    }
}

/// A UTF-8 byte order mark encoded in UTF-8 a second time (read as
/// Latin-1 or Windows-1252 on the way): the UTF-8 of 'ï»¿'.
const BOM_TWICE: &[u8] = b"\xC3\xAF\xC2\xBB\xC2\xBF";

/// The lint of one file, line by line ([`FileLint::line`], in order).
pub struct FileLint<'r, 'a> {
    robots: &'r RobotsTxt<'a>,
    preferences: PreferenceLint<'r, 'a>,
    /// The body starts like an HTML page.
    html: bool,
    /// [`LineFinding::HtmlBody`] has been said.
    html_said: bool,
}

impl<'r, 'a> FileLint<'r, 'a> {
    /// The lint of `robots`, whose body starts like an HTML page when
    /// `html` (whoever decides that: robostats looks at its first bytes).
    pub fn new(robots: &'r RobotsTxt<'a>, html: bool) -> Self {
        FileLint {
            robots,
            preferences: PreferenceLint::new(robots),
            html,
            html_said: false,
        }
    }

    /// Everything worth saying about one line of the file; empty means
    /// fine. Lines are given in order (an HTML body is said once).
    pub fn line(&mut self, line: &Line<'_>) -> Vec<LineFinding> {
        use LineFinding as F;
        let robots = self.robots;
        let first_user_agent = robots.user_agents().first().map(|ua| ua.line);
        let mut d = Vec::new();
        let m = &line.metadata;
        let end = line.offset + line.raw.len();
        if line.offset >= GOOGLE_MAX_BYTES {
            d.push(F::PastLimit);
        } else if end > GOOGLE_MAX_BYTES {
            d.push(F::CrossesLimit);
        }
        if line.number == 1 && line.raw.starts_with(BOM_TWICE) {
            d.push(F::BomTwice {
                key_unknown: line.key == Some(Key::Unknown),
            });
        }
        let unread =
            line.key == Some(Key::Unknown) || (line.key.is_none() && !m.is_empty && !m.is_comment);
        if self.html && unread {
            let said = std::mem::replace(&mut self.html_said, true);
            d.push(if said { F::HtmlLine } else { F::HtmlBody });
            return d;
        }
        if m.is_line_too_long {
            d.push(F::TooLong);
        }
        if m.is_acceptable_typo {
            d.push(F::AcceptedTypo(line.key.map_or("-", Key::as_str)));
        }
        if m.is_missing_colon_separator {
            d.push(F::MissingColon);
        }
        let value = line.value;
        match line.key {
            None if m.is_empty => d.push(F::Empty),
            None if m.is_comment => d.push(F::Comment),
            None => d.push(F::NotADirective),
            Some(Key::UserAgent) => {
                let token = product_token(value);
                if is_global_agent(value) {
                } else if token.is_empty() {
                    d.push(F::NoProductToken);
                } else if token.len() != value.len() {
                    d.push(F::MatchesAs(String::from_utf8_lossy(token).into_owned()));
                }
            }
            Some(Key::Allow | Key::Disallow) => {
                if first_user_agent.is_none_or(|ua| line.number < ua) {
                    d.push(F::BeforeUserAgent);
                }
                match value.first() {
                    None => d.push(F::EmptyRule(self.empty_rule(line))),
                    Some(b'/' | b'*') => {}
                    Some(_) => d.push(F::NeverMatches),
                }
            }
            Some(Key::Sitemap) => {
                let lower = value.to_ascii_lowercase();
                if !(lower.starts_with(b"http://") || lower.starts_with(b"https://")) {
                    d.push(F::NotAbsoluteUrl);
                }
            }
            Some(Key::Unknown) => {
                d.push(match known_elsewhere(line.key_text) {
                    Some(name) => F::KnownElsewhere(name),
                    None if line.key_text.eq_ignore_ascii_case(b"content-signals") => {
                        F::ContentSignals
                    }
                    None => F::UnknownKey,
                });
                let statements = robots.preferences();
                if let Ok(i) = statements.binary_search_by_key(&line.number, |s| s.line) {
                    let found = self.preferences.findings(&statements[i]);
                    d.extend(found.into_iter().map(F::Preference));
                }
            }
        }
        d
    }

    /// What an allow or disallow line without a value does.
    fn empty_rule(&self, line: &Line<'_>) -> EmptyRule {
        let robots = self.robots;
        let rules = robots.rules();
        let group = rules
            .binary_search_by_key(&line.number, |r| r.line)
            .ok()
            .and_then(|i| rules[i].group)
            .map(|g| &robots.groups()[g]);
        let Some(group) = group else {
            return EmptyRule::NoEffect;
        };
        if rules[group.rules.clone()]
            .iter()
            .any(|r| !r.value.is_empty())
        {
            return EmptyRule::OthersDecide;
        }
        let named = robots.user_agents()[group.user_agents.clone()]
            .iter()
            .any(|ua| !ua.global);
        if named {
            EmptyRule::AllowsEverything
        } else {
            EmptyRule::DisallowsNothing
        }
    }
}

/// What lint says of a preference line; its `Display` is the sentence
/// `robostats lint` prints.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreferenceFinding {
    /// The line stands before any user-agent line, outside every group.
    OutsideGroups(PreferenceDirective),
    /// A `Content-Usage` value whose first word (given) looks like a path
    /// but does not start with `/`: the whole value is read as the
    /// dictionary.
    NotAPath(String),
    /// The dictionary is empty.
    Empty,
    /// The dictionary does not parse, but would in lower case.
    UpperCaseLabel,
    /// The dictionary does not parse, but would with commas between its
    /// members.
    SpaceSeparated,
    /// The dictionary does not parse (the parser's reason).
    NotADictionary(String),
    /// A `Content-Usage` label of an earlier AIPREF draft (the drafts).
    OldLabel {
        /// The label.
        label: String,
        /// The drafts that defined it.
        drafts: &'static str,
    },
    /// A label the directive does not define.
    UnknownLabel {
        /// The line's directive.
        directive: PreferenceDirective,
        /// The label.
        label: String,
    },
    /// `use=` with a value other than Cloudflare's levels (as written).
    NotAUseLevel(String),
    /// A value other than the directive's yes and no (as written).
    NeitherYesNorNo {
        /// The line's directive.
        directive: PreferenceDirective,
        /// The label.
        label: String,
        /// The value.
        value: String,
    },
    /// A label given again later in the line: the last one wins.
    GivenAgain(String),
    /// The line's crawlers may fetch no path of its scope, so its
    /// preferences never apply.
    NeverApplies {
        /// The crawlers, for people.
        crawlers: String,
        /// The scope: the rule's path, or `/`.
        scope: String,
    },
}

impl std::fmt::Display for PreferenceFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use PreferenceFinding as F;
        let name = |d: &PreferenceDirective| match d {
            PreferenceDirective::ContentSignal => "Content-Signal",
            PreferenceDirective::ContentUsage => "Content-Usage",
        };
        match self {
            F::OutsideGroups(PreferenceDirective::ContentUsage) => f.write_str(
                "before any user-agent: outside every group, so no crawler reads this rule",
            ),
            F::OutsideGroups(PreferenceDirective::ContentSignal) => f.write_str(
                "before any user-agent: outside every group (read as written for every \
                 crawler; readers that scope Content-Signal by group ignore it)",
            ),
            F::NotAPath(word) => write!(
                f,
                "'{word}' is not a path (a path starts with /), so it never matches: the \
                 whole value is read as the preference"
            ),
            F::Empty => f.write_str("no preference: the dictionary is empty"),
            F::UpperCaseLabel => f.write_str(
                "upper-case label (labels are lower case): every preference of the line is \
                 unknown",
            ),
            F::SpaceSeparated => f.write_str(
                "members separated by spaces (separate them with commas): every preference \
                 of the line is unknown",
            ),
            F::NotADictionary(why) => write!(
                f,
                "not a Structured Fields dictionary: {why}: every preference of the line is \
                 unknown"
            ),
            F::OldLabel { label, drafts } => write!(
                f,
                "label '{label}' is from an earlier AIPREF draft ({drafts}): the current \
                 labels are train-ai and search"
            ),
            F::UnknownLabel { directive, label } => write!(
                f,
                "unknown label '{label}' for {} ({}): ignored",
                name(directive),
                directive.labels().join(", ")
            ),
            F::NotAUseLevel(value) => {
                write!(f, "use={value}: use takes immediate, reference or full")
            }
            F::NeitherYesNorNo {
                directive,
                label,
                value,
            } => {
                let (yes, no) = directive.yes_no();
                write!(
                    f,
                    "{label}={value}: {} takes {yes} or {no}, so this is unknown",
                    name(directive)
                )
            }
            F::GivenAgain(label) => write!(f, "'{label}' given again later: the last one wins"),
            F::NeverApplies { crawlers, scope } => write!(
                f,
                "its crawlers ({crawlers}) may fetch no path under {scope}: these preferences \
                 never apply"
            ),
        }
    }
}

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

/// A pattern's literal start: up to its first `*` or `$`. Every path it
/// matches starts with it.
fn literal_start(pattern: &[u8]) -> &[u8] {
    pattern
        .iter()
        .position(|&b| b == b'*' || b == b'$')
        .map_or(pattern, |end| &pattern[..end])
}

/// The group a preference line is read in, `None` outside every group:
/// its AIPREF group for `Content-Usage` (`(true, g)`), its Google group
/// for `Content-Signal` (`(false, g)`).
fn line_group(s: &Statement<'_>) -> Option<(bool, usize)> {
    match s.directive {
        PreferenceDirective::ContentUsage => Some((true, s.aipref_group?)),
        PreferenceDirective::ContentSignal => Some((false, s.google_group?)),
    }
}

/// One group's rules as lint's scope test reads them.
struct GroupIndex<'r> {
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
    fn new(robots: &'r RobotsTxt<'_>, g: usize) -> Self {
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
    fn reach(&self, scope: &[u8]) -> (usize, usize) {
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
        use PreferenceFinding as F;
        let mut d = Vec::new();
        if s.google_group.is_none() {
            d.push(F::OutsideGroups(s.directive));
        }
        let mut not_a_path = false;
        if s.directive == PreferenceDirective::ContentUsage && s.path.is_none() {
            let first = s.dictionary.split(|&b| b == b' ' || b == b'\t').next();
            if let Some(w) = first.filter(|w| w.len() < s.dictionary.len())
                && (w.first() == Some(&b'*') || w.contains(&b'/'))
            {
                not_a_path = true;
                d.push(F::NotAPath(String::from_utf8_lossy(w).into_owned()));
            }
        }
        match s.status {
            ParseStatus::Empty => d.push(F::Empty),
            ParseStatus::Unparseable => {
                let lower = s.dictionary.to_ascii_lowercase();
                let commas = s
                    .dictionary
                    .split(|&b| b == b' ')
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join(&b", "[..]);
                d.push(
                    if lower != s.dictionary && parse_dictionary(&lower).is_ok() {
                        F::UpperCaseLabel
                    } else if !not_a_path && parse_dictionary(&commas).is_ok() {
                        F::SpaceSeparated
                    } else {
                        F::NotADictionary(s.error.clone().unwrap_or_default())
                    },
                );
            }
            ParseStatus::Ok => {}
        }
        for m in &s.members {
            let known = s.directive.labels().contains(&m.label);
            if !known {
                let old = OLD_AIPREF_LABELS.iter().find(|(l, _)| *l == m.label);
                d.push(match (s.directive, old) {
                    (PreferenceDirective::ContentUsage, Some((_, drafts))) => F::OldLabel {
                        label: m.label.to_owned(),
                        drafts,
                    },
                    _ => F::UnknownLabel {
                        directive: s.directive,
                        label: m.label.to_owned(),
                    },
                });
            } else if m.label == "use" {
                if !matches!(m.token, Some("immediate" | "reference" | "full")) {
                    d.push(F::NotAUseLevel(m.value.unwrap_or("?1").to_owned()));
                }
            } else if s.normalise(m) == PreferenceValue::Unknown {
                d.push(F::NeitherYesNorNo {
                    directive: s.directive,
                    label: m.label.to_owned(),
                    value: m.value.unwrap_or("?1").to_owned(),
                });
            }
            if m.overridden {
                d.push(F::GivenAgain(m.label.to_owned()));
            }
        }
        if let Some(scope) = self.disallowed_anyway(s) {
            d.push(F::NeverApplies {
                crawlers: self.crawler_names(s),
                scope: String::from_utf8_lossy(&scope).into_owned(),
            });
        }
        d
    }

    /// The user-agent values of a line's group, for people: the first
    /// three, and how many more.
    fn crawler_names(&self, s: &Statement<'_>) -> String {
        let user_agents = self.robots.user_agents();
        let members = line_group(s).map_or(Vec::new(), |key| self.members(key));
        let mut names: Vec<String> = members
            .iter()
            .take(3)
            .map(|&i| String::from_utf8_lossy(user_agents[i].value).into_owned())
            .collect();
        if members.len() > 3 {
            names.push(format!("and {} more", members.len() - 3));
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
