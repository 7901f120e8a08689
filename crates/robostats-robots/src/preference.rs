//! AI-use preference lines: Cloudflare's `Content-Signal` and the IETF
//! AIPREF working group's `Content-Usage`, read beside Google's parse
//! without changing it.
//!
//! ```text
//! Content-Usage: /ai-ok/ train-ai=y      Content-Signal: search=yes, ai-train=no
//!                ------- ----------                      ------------------------
//!                path    dictionary                      dictionary
//! ```
//!
//! Both values are RFC 9651 Structured Field dictionaries, parsed with the
//! `sfv` crate. A value that does not parse is kept as written and marked
//! [`ParseStatus::Unparseable`]; unknown labels and values are kept
//! verbatim (labels of older AIPREF drafts such as `ai`, `tdm` or
//! `train-genai` survive as they are).
//!
//! Each line is placed in two groupings ([`Statement::google_group`],
//! [`Statement::aipref_group`]): Google's parser takes both keys for
//! unknown lines that never end a run of user-agent lines, while AIPREF's
//! grammar makes `Content-Usage` a rule of its group, so that a
//! `Content-Usage` line between two user-agent lines splits them.
//!
//! What applies to one crawler and path ([`super::AgentRules::preferences`]):
//! - `Content-Usage`, by AIPREF's rules: the crawler's groups as
//!   robots.txt selects them (in AIPREF's grouping), the rules whose path
//!   matches with the longest path (Google's matching, the %-escaped
//!   path's length), combined label by label when several have that
//!   length (`n` wins, else `y`, else unknown); nothing applies where the
//!   crawler may not fetch the path.
//! - `Content-Signal`, scoped the same way: the lines of the crawler's
//!   groups (Google's grouping), else the lines before the first
//!   user-agent line (written for the whole file); combined label by label
//!   like `Content-Usage`, and `use` by its most restrictive level.

use std::borrow::Cow;
use std::collections::HashMap;

use super::pattern::{escape_pattern, matches};

labels! {
    /// Which preference directive a line is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum PreferenceDirective {
        /// Cloudflare's `Content-Signal` (values `yes` / `no`).
        ContentSignal = "content-signal",
        /// IETF AIPREF's `Content-Usage` (values `y` / `n`, an optional path).
        ContentUsage = "content-usage",
    }
}

impl PreferenceDirective {
    /// The directive a key names, ignoring ASCII case.
    pub fn of_key(key: &[u8]) -> Option<PreferenceDirective> {
        if key.eq_ignore_ascii_case(b"content-signal") {
            Some(PreferenceDirective::ContentSignal)
        } else if key.eq_ignore_ascii_case(b"content-usage") {
            Some(PreferenceDirective::ContentUsage)
        } else {
            None
        }
    }

    /// The labels the directive's current definition has.
    pub fn labels(self) -> &'static [&'static str] {
        match self {
            PreferenceDirective::ContentSignal => &["search", "ai-input", "ai-train", "use"],
            PreferenceDirective::ContentUsage => &["train-ai", "search"],
        }
    }

    /// The tokens that mean yes and no.
    pub fn yes_no(self) -> (&'static str, &'static str) {
        match self {
            PreferenceDirective::ContentSignal => ("yes", "no"),
            PreferenceDirective::ContentUsage => ("y", "n"),
        }
    }
}

labels! {
    /// A preference, normalised: `y` (allowed), `n` (not allowed) or
    /// `unknown` (absent, not a token, or a token other than the
    /// directive's yes and no).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum PreferenceValue {
        /// The use is allowed (`y`, `yes`).
        Yes = "y",
        /// The use is not allowed (`n`, `no`).
        No = "n",
        /// Nothing said (or nothing readable).
        Unknown = "unknown",
    }
}

impl PreferenceValue {
    /// AIPREF's combination of preferences for one label from several
    /// rules: any `n` wins, else any `y`, else unknown.
    pub fn combine(self, other: PreferenceValue) -> PreferenceValue {
        use PreferenceValue::{No, Unknown, Yes};
        match (self, other) {
            (No, _) | (_, No) => No,
            (Yes, _) | (_, Yes) => Yes,
            _ => Unknown,
        }
    }
}

labels! {
    /// Cloudflare's `use` levels (2026), from the most restrictive.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum UseLevel {
        /// Interact with the content, store nothing.
        Immediate = "immediate",
        /// Index, excerpt, link back.
        Reference = "reference",
        /// Summarise or reproduce.
        Full = "full",
        /// Not said, or not one of the levels.
        Unknown = "unknown",
    }
}

labels! {
    /// How a statement's dictionary parsed.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum ParseStatus {
        /// A dictionary with at least one member.
        Ok = "ok",
        /// A dictionary with no member (an empty value).
        Empty = "empty",
        /// Not a Structured Field dictionary: every preference of the line is
        /// unknown.
        Unparseable = "unparseable",
    }
}

labels! {
    /// Where the `Content-Signal` lines that apply to a crawler stand.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum SignalScope {
        /// In the crawler's groups (the ones naming it, else the `*` groups).
        Group = "group",
        /// Before the first user-agent line: written for every crawler.
        File = "file",
    }
}

/// One member of a statement's dictionary, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// The label (the dictionary key).
    pub label: &'a str,
    /// The value as written after `=`, parameters included; `None` for a
    /// bare key (the boolean true).
    pub value: Option<&'a str>,
    /// The value when it is a token (parameters ignored).
    pub token: Option<&'a str>,
    /// A later member has the same label: the last one wins.
    pub overridden: bool,
}

/// A `Content-Signal` or `Content-Usage` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement<'a> {
    /// Line number.
    pub line: u32,
    /// Which directive.
    pub directive: PreferenceDirective,
    /// The key as written.
    pub key: &'a [u8],
    /// The whole value as written.
    pub value: &'a [u8],
    /// `Content-Usage` only: the path as written, when the value starts
    /// with `/` (it ends at the first space or tab).
    pub path: Option<&'a [u8]>,
    /// The path %-escaped as Allow and Disallow paths are (empty when there
    /// is none: it matches every path with length 0).
    pub pattern: Cow<'a, [u8]>,
    /// The dictionary as written (the value without the path).
    pub dictionary: &'a [u8],
    /// Its group in Google's grouping, `None` before the first user-agent
    /// line.
    pub google_group: Option<usize>,
    /// Its group in AIPREF's grouping (a `Content-Usage` line ends a run
    /// of user-agent lines), `None` before the first user-agent line.
    pub aipref_group: Option<usize>,
    /// Between `# BEGIN Cloudflare Managed content` and `# END Cloudflare
    /// Managed Content`.
    pub in_cloudflare_block: bool,
    /// How the dictionary parsed.
    pub status: ParseStatus,
    /// Why it did not parse.
    pub error: Option<String>,
    /// The dictionary's members, in written order (empty unless parsed).
    pub members: Vec<Member<'a>>,
}

impl<'a> Statement<'a> {
    /// Reads a line of `directive` (key and value as Google's lexer gives
    /// them); the groups are filled in by the parse.
    pub fn new(line: u32, directive: PreferenceDirective, key: &'a [u8], value: &'a [u8]) -> Self {
        let (path, dictionary) = match directive {
            PreferenceDirective::ContentUsage => split_path(value),
            PreferenceDirective::ContentSignal => (None, value),
        };
        let (status, error, members) = match parse_dictionary(dictionary) {
            Ok(m) if m.is_empty() => (ParseStatus::Empty, None, m),
            Ok(m) => (ParseStatus::Ok, None, m),
            Err(e) => (ParseStatus::Unparseable, Some(e), Vec::new()),
        };
        Statement {
            line,
            directive,
            key,
            value,
            path,
            pattern: path.map_or(Cow::Borrowed(&[][..]), escape_pattern),
            dictionary,
            google_group: None,
            aipref_group: None,
            in_cloudflare_block: false,
            status,
            error,
            members,
        }
    }

    /// The effective member for `label`: the last one (AIPREF: duplicate
    /// keys, last wins).
    pub fn member(&self, label: &str) -> Option<&Member<'a>> {
        self.members.iter().rev().find(|m| m.label == label)
    }

    /// The normalised value of a member of this statement.
    pub fn normalise(&self, member: &Member<'_>) -> PreferenceValue {
        let (yes, no) = self.directive.yes_no();
        match member.token {
            Some(t) if t == yes => PreferenceValue::Yes,
            Some(t) if t == no => PreferenceValue::No,
            _ => PreferenceValue::Unknown,
        }
    }

    /// What the line says for `label`: unknown when the label is absent or
    /// the dictionary does not parse.
    pub fn preference(&self, label: &str) -> PreferenceValue {
        self.member(label)
            .map_or(PreferenceValue::Unknown, |m| self.normalise(m))
    }

    /// Cloudflare's `use` level the line gives, if it has a `use` member.
    pub fn use_level(&self) -> Option<UseLevel> {
        let m = self.member("use")?;
        Some(match m.token {
            Some("immediate") => UseLevel::Immediate,
            Some("reference") => UseLevel::Reference,
            Some("full") => UseLevel::Full,
            _ => UseLevel::Unknown,
        })
    }

    /// Whether the rule's path matches `path` (a URL path from `/`, as
    /// Google's matcher takes it); a rule without a path matches all.
    pub fn matches(&self, path: &[u8]) -> bool {
        matches(path, &self.pattern)
    }
}

/// AIPREF's split of a `Content-Usage` value: a value starting with `/`
/// has a path up to the first space or tab, and the rest (its leading
/// whitespace skipped) is the dictionary; any other value is all
/// dictionary.
pub fn split_path(value: &[u8]) -> (Option<&[u8]>, &[u8]) {
    if value.first() != Some(&b'/') {
        return (None, value);
    }
    let end = value
        .iter()
        .position(|&b| b == b' ' || b == b'\t')
        .unwrap_or(value.len());
    let rest = &value[end..];
    let skip = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    (Some(&value[..end]), &rest[skip..])
}

/// The members of an RFC 9651 dictionary, or why it is not one. Linear in
/// the input: the `sfv` parser validates it and visits each member once,
/// and `split_members` finds each member's text.
pub fn parse_dictionary(input: &[u8]) -> Result<Vec<Member<'_>>, String> {
    let parsed = sfv::Parser::new(input)
        .parse_dictionary_with_visitor(Entries::default())
        .map_err(|e| e.to_string())?;
    let texts = split_members(input);
    let mut members: Vec<Member<'_>> = Vec::with_capacity(parsed.len());
    for (i, (label, token)) in parsed.into_iter().enumerate() {
        // A valid dictionary is ASCII, so its members are text.
        let value = texts
            .get(i)
            .and_then(|t| std::str::from_utf8(t).ok())
            .and_then(|t| member_value(t, label));
        members.push(Member {
            label,
            value,
            token,
            overridden: false,
        });
    }
    let mut last: HashMap<&str, usize> = HashMap::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        last.insert(m.label, i);
    }
    for (i, m) in members.iter_mut().enumerate() {
        m.overridden = last[m.label] != i;
    }
    Ok(members)
}

/// The value of a member as written: what follows `label=` (parameters
/// included), `None` for a bare label (`train-ai`, `train-ai;src=x`: the
/// boolean true, whose parameters may hold a `=` of their own).
fn member_value<'t>(text: &'t str, label: &str) -> Option<&'t str> {
    text.strip_prefix(label)?.strip_prefix('=')
}

/// The text of each top-level member of a valid dictionary: split at the
/// commas outside strings, surrounding whitespace removed.
fn split_members(input: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in input.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            out.push(trim(&input[start..i]));
            start = i + 1;
        }
    }
    let last = trim(&input[start..]);
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

fn trim(b: &[u8]) -> &[u8] {
    let is_ws = |c: &u8| *c == b' ' || *c == b'\t';
    let start = b.iter().position(|c| !is_ws(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !is_ws(c)).map_or(start, |e| e + 1);
    &b[start..end]
}

/// The members the `sfv` visitor saw: each label and its token value.
#[derive(Default)]
struct Entries<'de>(Vec<(&'de str, Option<&'de str>)>);

impl<'de> sfv::visitor::DictionaryVisitor<'de> for Entries<'de> {
    type Out = Vec<(&'de str, Option<&'de str>)>;
    type Error = std::convert::Infallible;

    fn entry(
        &mut self,
        key: &'de sfv::KeyRef,
    ) -> Result<impl sfv::visitor::EntryVisitor<'de>, Self::Error> {
        self.0.push((key.as_str(), None));
        Ok(Entry(&mut self.0.last_mut().expect("just pushed").1))
    }

    fn finish(self) -> Result<Self::Out, Self::Error> {
        Ok(self.0)
    }
}

/// One member's value: a token is kept; anything else (a boolean, a
/// string, a number, an inner list) is not a preference.
struct Entry<'v, 'de>(&'v mut Option<&'de str>);

impl<'de> sfv::visitor::EntryVisitor<'de> for Entry<'_, 'de> {
    type Error = std::convert::Infallible;

    fn item(self) -> Result<impl sfv::visitor::ItemVisitor<'de>, Self::Error> {
        Ok(move |item: sfv::BareItemFromInput<'de>| {
            if let sfv::BareItemFromInput::Token(t) = item {
                *self.0 = Some(t.as_str());
            }
            Ok::<_, std::convert::Infallible>(sfv::visitor::Ignored)
        })
    }

    fn inner_list(self) -> Result<impl sfv::visitor::InnerListVisitor<'de>, Self::Error> {
        Ok(sfv::visitor::Ignored)
    }
}

/// The preference lines that apply to one crawler at one path
/// ([`super::AgentRules::preferences`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preferences<'r, 'a> {
    /// The `Content-Usage` rules that apply: those with the longest
    /// matching path in the crawler's groups (several when their paths are
    /// equally long).
    pub usage: Vec<&'r Statement<'a>>,
    /// The `Content-Signal` lines that apply.
    pub signal: Vec<&'r Statement<'a>>,
    /// Where the `Content-Signal` lines stand (`None` when none apply).
    pub signal_scope: Option<SignalScope>,
}

impl Preferences<'_, '_> {
    /// The `Content-Usage` preference for `label` (`train-ai`, `search`,
    /// or any other label), combined over the rules that apply.
    pub fn usage(&self, label: &str) -> PreferenceValue {
        combine(&self.usage, label)
    }

    /// The `Content-Signal` preference for `label` (`search`, `ai-train`,
    /// `ai-input`, or any other label), combined over the lines that apply.
    pub fn signal(&self, label: &str) -> PreferenceValue {
        combine(&self.signal, label)
    }

    /// Cloudflare's `use` level: the most restrictive level the lines
    /// give; unknown when none gives one.
    pub fn signal_use(&self) -> UseLevel {
        self.signal
            .iter()
            .filter_map(|s| s.use_level())
            .filter(|l| *l != UseLevel::Unknown)
            .min()
            .unwrap_or(UseLevel::Unknown)
    }

    /// The first line of the `Content-Usage` rules that apply.
    pub fn usage_line(&self) -> Option<u32> {
        self.usage.iter().map(|s| s.line).min()
    }

    /// The first line of the `Content-Signal` lines that apply.
    pub fn signal_line(&self) -> Option<u32> {
        self.signal.iter().map(|s| s.line).min()
    }
}

fn combine(statements: &[&Statement<'_>], label: &str) -> PreferenceValue {
    statements
        .iter()
        .map(|s| s.preference(label))
        .fold(PreferenceValue::Unknown, PreferenceValue::combine)
}

/// The `Content-Usage` rules among `candidates` that apply at `path`: the
/// matching ones with the longest pattern.
pub(crate) fn longest_match<'r, 'a>(
    candidates: impl Iterator<Item = &'r Statement<'a>>,
    path: &[u8],
) -> Vec<&'r Statement<'a>> {
    let mut best: Vec<&'r Statement<'a>> = Vec::new();
    for s in candidates.filter(|s| s.matches(path)) {
        match best.first().map(|b| b.pattern.len()) {
            Some(len) if len > s.pattern.len() => {}
            Some(len) if len == s.pattern.len() => best.push(s),
            _ => best = vec![s],
        }
    }
    best
}

/// The labels of earlier AIPREF vocabulary drafts that the current one
/// (vocab-05 and later: `train-ai`, `search`) no longer has, with the
/// drafts that defined them.
pub const OLD_AIPREF_LABELS: [(&str, &str); 9] = [
    ("tdm", "vocab-01"),
    ("ai", "vocab-01"),
    ("genai", "vocab-01"),
    ("inference", "vocab-01"),
    ("all", "vocab-02"),
    ("ai-use", "vocab-02"),
    ("train-genai", "vocab-02 and vocab-03"),
    ("bots", "vocab-03 and vocab-04"),
    ("ai-output", "vocab-04"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use PreferenceValue::{No, Unknown, Yes};

    fn usage(value: &str) -> Statement<'_> {
        Statement::new(
            1,
            PreferenceDirective::ContentUsage,
            b"Content-Usage",
            value.as_bytes(),
        )
    }

    fn signal(value: &str) -> Statement<'_> {
        Statement::new(
            1,
            PreferenceDirective::ContentSignal,
            b"Content-Signal",
            value.as_bytes(),
        )
    }

    #[test]
    fn paths_end_at_the_first_space_or_tab() {
        let s = usage("/ai-ok/ train-ai=y");
        assert_eq!(s.path, Some(&b"/ai-ok/"[..]));
        assert_eq!(s.dictionary, b"train-ai=y");
        assert_eq!(s.preference("train-ai"), Yes);
        let s = usage("/a%20b/\t \ttrain-ai=n");
        assert_eq!(s.path, Some(&b"/a%20b/"[..]));
        assert_eq!(s.preference("train-ai"), No);
        // Only a value starting with / has a path.
        let s = usage("*.pdf train-ai=n");
        assert_eq!((s.path, s.status), (None, ParseStatus::Unparseable));
        // A path alone: an empty dictionary.
        let s = usage("/only/");
        assert_eq!(s.status, ParseStatus::Empty);
        assert!(s.matches(b"/only/x") && !s.matches(b"/other"));
        assert!(usage("train-ai=n").matches(b"/anything"));
    }

    #[test]
    fn values_are_tokens_y_and_n_or_yes_and_no() {
        let s = usage("train-ai=n, search=y");
        assert_eq!(
            (s.preference("train-ai"), s.preference("search")),
            (No, Yes)
        );
        // Not a token, another token, a boolean: unknown (vocab §6).
        for v in [
            "train-ai=\"n\"",
            "train-ai=no",
            "train-ai",
            "train-ai=?0",
            "train-ai=1",
        ] {
            let s = usage(v);
            assert_eq!(s.status, ParseStatus::Ok, "{v}");
            assert_eq!(s.preference("train-ai"), Unknown, "{v}");
        }
        let s = signal("search=yes, ai-train=no");
        assert_eq!(
            (s.preference("search"), s.preference("ai-train")),
            (Yes, No)
        );
        assert_eq!(signal("ai-train=n").preference("ai-train"), Unknown);
        // Parameters are ignored.
        assert_eq!(usage("train-ai=n;src=site").preference("train-ai"), No);
        assert_eq!(
            usage("train-ai=n;src=site").members[0].value,
            Some("n;src=site")
        );
        // A bare label is the boolean true: no value, whatever its
        // parameters hold.
        let s = usage("train-ai;src=x, search=y");
        assert_eq!((s.members[0].value, s.members[1].value), (None, Some("y")));
        assert_eq!(s.preference("train-ai"), Unknown);
    }

    #[test]
    fn duplicate_labels_last_wins_and_both_are_kept() {
        let s = usage("train-ai=y, train-ai=n");
        assert_eq!(s.preference("train-ai"), No);
        assert_eq!(s.members.len(), 2);
        assert!(s.members[0].overridden && !s.members[1].overridden);
        // vocab: `train-ai=y, train-ai` -> unknown
        assert_eq!(
            usage("train-ai=y, train-ai").preference("train-ai"),
            Unknown
        );
    }

    #[test]
    fn unparseable_dictionaries_are_kept_and_say_nothing() {
        for v in [
            "/restricted/ ai=n train-ai=n",
            "Train-AI=N",
            "train ai = n",
            "train-ai=n;;",
            "=n",
            "train-ai=n,",
            "a=(b (c))",
        ] {
            let s = usage(v);
            assert_eq!(s.status, ParseStatus::Unparseable, "{v}");
            assert!(s.error.is_some() && s.members.is_empty(), "{v}");
            assert_eq!(s.preference("train-ai"), Unknown, "{v}");
        }
        // The space-separated pairs of a deployed module, after its path.
        let s = usage("/restricted/ ai=n train-ai=n");
        assert_eq!(s.path, Some(&b"/restricted/"[..]));
        assert_eq!(s.dictionary, b"ai=n train-ai=n");
    }

    #[test]
    fn old_labels_and_unknown_values_survive_verbatim() {
        let s = usage(
            "tdm=n, ai=y, genai=n, train-genai=n, ai-use=y, bots=n, ai-output=n, all=n, inference=y",
        );
        let labels: Vec<&str> = s.members.iter().map(|m| m.label).collect();
        assert_eq!(
            labels,
            [
                "tdm",
                "ai",
                "genai",
                "train-genai",
                "ai-use",
                "bots",
                "ai-output",
                "all",
                "inference"
            ]
        );
        assert_eq!(s.preference("train-ai"), Unknown);
        let s = signal("search=yes,ai-train=no,use=reference");
        assert_eq!(s.use_level(), Some(UseLevel::Reference));
        assert_eq!(s.members[2].value, Some("reference"));
        assert_eq!(signal("use=maybe").use_level(), Some(UseLevel::Unknown));
    }

    #[test]
    fn members_are_split_outside_strings() {
        let s = usage("a=\"x, \\\"y\", b=n , c");
        let texts: Vec<_> = s.members.iter().map(|m| (m.label, m.value)).collect();
        assert_eq!(
            texts,
            [("a", Some("\"x, \\\"y\"")), ("b", Some("n")), ("c", None)]
        );
    }

    #[test]
    fn combining_n_wins_then_y() {
        assert_eq!(Yes.combine(No), No);
        assert_eq!(Unknown.combine(Yes), Yes);
        assert_eq!(Unknown.combine(Unknown), Unknown);
    }

    #[test]
    fn adversarial_values_are_linear() {
        // 100,000 keys.
        let many: String = (0..100_000).map(|i| format!("k{i}=n,")).collect();
        let s = usage(many.trim_end_matches(','));
        assert_eq!(s.members.len(), 100_000);
        // The same key 100,000 times.
        let same = "a=y, ".repeat(100_000);
        let s = usage(same.trim_end_matches([',', ' ']));
        assert_eq!(s.members.iter().filter(|m| !m.overridden).count(), 1);
        // 500 KiB in one string, and deeply nested inner lists.
        let big = format!("a=\"{}\"", "x".repeat(500 * 1024));
        assert_eq!(usage(&big).status, ParseStatus::Ok);
        let nested = format!("a={}", "(".repeat(500 * 1024));
        assert_eq!(usage(&nested).status, ParseStatus::Unparseable);
        let inner = format!("a=({})", "b ".repeat(200_000));
        assert_eq!(usage(&inner).status, ParseStatus::Ok);
    }
}
