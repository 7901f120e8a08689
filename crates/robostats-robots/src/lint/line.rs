//! [`FileLint`]: the findings of each line of a file, in order (the
//! findings of its preference lines come from [`PreferenceLint`]).

use super::finding::{EmptyRule, LineFinding};
use super::preference::PreferenceLint;
use crate::lex::{Key, Line, is_global_agent, product_token};
use crate::parse::{GOOGLE_MAX_BYTES, RobotsTxt, known_elsewhere};

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
        self.push_content_findings(line, &mut d);
        d
    }

    /// What is worth saying about what a line says, by its key (after what
    /// is said of where it stands and how it is written).
    fn push_content_findings(&mut self, line: &Line<'_>, d: &mut Vec<LineFinding>) {
        use LineFinding as F;
        let robots = self.robots;
        let first_user_agent = robots.user_agents().first().map(|ua| ua.line);
        let m = &line.metadata;
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
