//! The typed findings of lint ([`LineFinding`], [`EmptyRule`],
//! [`PreferenceFinding`]) and their `Display`: the sentences `robostats
//! lint` prints.

use crate::lex::MAX_LINE_BYTES;
use crate::preference::PreferenceDirective;

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

    /// A stable name of what it is (`accepted_typo`, `unknown_key`, ...;
    /// a preference line's finding is its [`PreferenceFinding::kind`]):
    /// for programs, where the `Display` sentence is for people.
    pub fn kind(&self) -> &'static str {
        use LineFinding as F;
        match self {
            F::PastLimit => "past_limit",
            F::CrossesLimit => "crosses_limit",
            F::BomTwice { .. } => "bom_twice",
            F::HtmlBody => "html_body",
            F::HtmlLine => "html_line",
            F::TooLong => "too_long",
            F::AcceptedTypo(_) => "accepted_typo",
            F::MissingColon => "missing_colon",
            F::Empty => "empty",
            F::Comment => "comment",
            F::NotADirective => "not_a_directive",
            F::NoProductToken => "no_product_token",
            F::MatchesAs(_) => "matches_as",
            F::BeforeUserAgent => "before_user_agent",
            F::EmptyRule(EmptyRule::NoEffect) => "empty_rule_no_effect",
            F::EmptyRule(EmptyRule::OthersDecide) => "empty_rule_others_decide",
            F::EmptyRule(EmptyRule::AllowsEverything) => "empty_rule_allows_everything",
            F::EmptyRule(EmptyRule::DisallowsNothing) => "empty_rule_disallows_nothing",
            F::NeverMatches => "never_matches",
            F::NotAbsoluteUrl => "not_absolute_url",
            F::KnownElsewhere(_) => "known_elsewhere",
            F::ContentSignals => "content_signals",
            F::UnknownKey => "unknown_key",
            F::Preference(p) => p.kind(),
        }
    }
}

impl PreferenceFinding {
    /// A stable name of what it is (`preference_` and the finding:
    /// `preference_old_label`, ...).
    pub fn kind(&self) -> &'static str {
        use PreferenceFinding as F;
        match self {
            F::OutsideGroups(_) => "preference_outside_groups",
            F::NotAPath(_) => "preference_not_a_path",
            F::Empty => "preference_empty",
            F::UpperCaseLabel => "preference_upper_case_label",
            F::SpaceSeparated => "preference_space_separated",
            F::NotADictionary(_) => "preference_not_a_dictionary",
            F::OldLabel { .. } => "preference_old_label",
            F::UnknownLabel { .. } => "preference_unknown_label",
            F::NotAUseLevel(_) => "preference_not_a_use_level",
            F::NeitherYesNorNo { .. } => "preference_neither_yes_nor_no",
            F::GivenAgain(_) => "preference_given_again",
            F::NeverApplies { .. } => "preference_never_applies",
        }
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
