//! `robostats_cc.RobotsTxt`: one parsed robots.txt, and what it says to a
//! crawler (the verdict, why, its AI-use preferences, lint's findings).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use robostats_duckdb::batch::limit;
use robostats_robots::{AgentRules, FileLint, GroupMatch, LineFinding, RobotsTxt as Parsed};
use robostats_rows::classify::PreferenceColumns;
use robostats_rows::classify::agents::{ignores_global_group, policy_rules};
use robostats_rows::classify::copies::Copies;
use robostats_rows::classify::crawler::Policy;
use robostats_rows::http::content::looks_like_html;
use self_cell::self_cell;

self_cell!(
    /// A body and its parse, which borrows from it.
    pub struct Cell {
        owner: Vec<u8>,
        #[covariant]
        dependent: Parsed,
    }
);

/// The bytes of a body argument: `bytes` or `bytearray` as they are,
/// `str` as UTF-8.
pub fn body_bytes(body: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = body.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = body.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = body.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "a robots.txt body is bytes or str, not {}",
        body.get_type().name()?
    )))
}

/// A crawler and a policy as a caller names them: the policy (`google`
/// or `library`) and the crawler as it takes one (under `google` a
/// product token, a User-Agent header or anything else refused with the
/// token to pass: `ValueError`).
pub fn crawler<'a>(agent: &'a str, policy: &str) -> PyResult<(&'a str, Policy)> {
    let policy = Policy::parse(policy).map_err(PyValueError::new_err)?;
    let token = policy.crawler(agent).map_err(PyValueError::new_err)?;
    Ok((token, policy))
}

/// A robots.txt file, parsed exactly as Google's reference library parses
/// it.
#[pyclass(frozen, module = "robostats_cc")]
pub struct RobotsTxt {
    cell: Cell,
    size_limit: bool,
}

#[pymethods]
impl RobotsTxt {
    #[new]
    #[pyo3(signature = (body, *, size_limit = true))]
    fn new(py: Python<'_>, body: &Bound<'_, PyAny>, size_limit: bool) -> PyResult<RobotsTxt> {
        let bytes = body_bytes(body)?;
        let max = limit(size_limit);
        // A 500 KiB body takes a millisecond: other threads may run.
        let cell = py.detach(|| Cell::new(bytes, |b| Parsed::parse_with_limit(b, max)));
        Ok(RobotsTxt { cell, size_limit })
    }

    /// Google's verdict: may the crawler `user_agent` (a product token)
    /// fetch `url`?
    #[pyo3(signature = (url, user_agent, *, policy = "google"))]
    fn can_fetch(&self, url: &str, user_agent: &str, policy: &str) -> PyResult<bool> {
        let (token, policy) = crawler(user_agent, policy)?;
        Ok(policy.rules(self.parsed(), token).allowed(url))
    }

    /// The verdict and why: the group and rule that decided, and the AI-use
    /// preferences that apply to the crawler at `url`.
    #[pyo3(signature = (url, user_agent, *, policy = "google"))]
    fn explain(&self, url: &str, user_agent: &str, policy: &str) -> PyResult<Explanation> {
        let (user_agent, policy) = crawler(user_agent, policy)?;
        let robots = self.parsed();
        let rules = policy.rules(robots, user_agent);
        let decision = rules.decide(url);
        let rule = decision.rule.map(|i| &robots.rules()[i]);
        let own = policy_rules(robots, user_agent);
        let at_url = own.as_ref().unwrap_or(&rules).preferences(url);
        Ok(Explanation {
            allowed: decision.allowed,
            group: decision.group.as_str(),
            group_lines: group_lines(robots, &rules),
            line: rule.map(|r| r.line),
            rule: rule.map(|r| r.kind.as_str()),
            pattern: rule.map(|r| String::from_utf8_lossy(&r.pattern).into_owned()),
            via_index_htm: decision.via_index_htm,
            ignores_global_group: decision.group == GroupMatch::Global
                && ignores_global_group(user_agent),
            preferences: Preferences::from_columns(PreferenceColumns::of(at_url)),
        })
    }

    /// Every line of the parsed bytes as Google's parser reads it.
    fn lines(&self) -> Vec<Line> {
        self.parsed().lines().map(|l| Line::of(&l)).collect()
    }

    /// The sitemap URLs, in file order.
    #[getter]
    fn sitemaps(&self) -> Vec<String> {
        self.parsed()
            .sitemaps()
            .iter()
            .map(|s| String::from_utf8_lossy(s.url).into_owned())
            .collect()
    }

    /// The AI-use preferences (Content-Usage, Content-Signal) that apply to
    /// `user_agent` at `/`, as the `resolved_preferences` table and the
    /// `agent_verdicts` view give them.
    fn preferences(&self, user_agent: &str) -> PyResult<Preferences> {
        let (user_agent, _) = crawler(user_agent, "google")?;
        let robots = self.parsed();
        let rules = policy_rules(robots, user_agent).unwrap_or_else(|| robots.agent(user_agent));
        Ok(Preferences::from_columns(PreferenceColumns::at_root(
            &rules,
        )))
    }

    /// What `robostats lint` finds in the file (the whole file, with lines
    /// past 500 KiB marked as such): one finding per line and problem.
    fn lint(&self, py: Python<'_>) -> Vec<Finding> {
        let body = self.cell.borrow_owner();
        py.detach(|| lint(body))
    }

    /// The BLAKE3 digest of the parsed bytes (64 hex digits): the
    /// `body_digest` column.
    #[getter]
    fn body_digest(&self) -> String {
        robostats_rows::classify::copies::body_digest(self.parsed().body())
    }

    /// The XXH3-128 digest of the canonical ruleset (32 hex digits): the
    /// `ruleset_digest` column.
    #[getter]
    fn ruleset_digest(&self) -> String {
        Copies::of(self.parsed()).ruleset_digest
    }

    /// The platform default the file is, or starts with (`wordpress-5.5`),
    /// or None: the `template` column.
    #[getter]
    fn template(&self) -> Option<&'static str> {
        Copies::of(self.parsed()).template.map(|t| t.id)
    }

    /// The body as given.
    #[getter]
    fn body<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.cell.borrow_owner())
    }

    fn __repr__(&self) -> String {
        let robots = self.parsed();
        format!(
            "<robostats_cc.RobotsTxt: {} bytes, {} groups, {} rules{}>",
            self.cell.borrow_owner().len(),
            robots.groups().len(),
            robots.rules().len(),
            if self.size_limit && robots.body().len() < self.cell.borrow_owner().len() {
                ", parsed to 500 KiB"
            } else {
                ""
            }
        )
    }
}

impl RobotsTxt {
    fn parsed(&self) -> &Parsed<'_> {
        self.cell.borrow_dependent()
    }
}

/// The first user-agent line of each group that applies.
fn group_lines(robots: &Parsed<'_>, rules: &AgentRules<'_, '_>) -> Vec<u32> {
    rules
        .groups()
        .iter()
        .filter_map(|&g| {
            robots
                .user_agents()
                .get(robots.groups()[g].user_agents.start)
        })
        .map(|ua| ua.line)
        .collect()
}

/// Lint's findings, as `robostats lint` makes them.
fn lint(body: &[u8]) -> Vec<Finding> {
    // Lint reads the whole file, as `robostats lint` does.
    let robots = Parsed::parse(body);
    let mut lint = FileLint::new(&robots, looks_like_html(body));
    let mut out = Vec::new();
    for line in robots.lines() {
        for finding in lint.line(&line) {
            if finding.is_finding() {
                out.push(Finding::of(line.number, &finding));
            }
        }
    }
    out
}

/// Why a crawler may or may not fetch a URL.
#[pyclass(frozen, get_all, module = "robostats_cc")]
pub struct Explanation {
    /// Google's verdict.
    allowed: bool,
    /// Which groups applied: `specific` (groups name the crawler), `global`
    /// (the `*` groups) or `none`.
    group: &'static str,
    /// The first user-agent line of each group that applied.
    group_lines: Vec<u32>,
    /// The deciding rule's line, or None (no rule matched).
    line: Option<u32>,
    /// The deciding rule's kind: `allow` or `disallow`, or None.
    rule: Option<&'static str>,
    /// The deciding rule's pattern, %-escaped as Google matches it.
    pattern: Option<String>,
    /// The rule allowed only through Google's `index.htm` rule.
    via_index_htm: bool,
    /// The `*` group decided for a crawler that, by its own documented
    /// policy, ignores it (Google's special-case crawlers).
    ignores_global_group: bool,
    /// The AI-use preferences that apply to the crawler at the URL.
    preferences: Preferences,
}

#[pymethods]
impl Explanation {
    fn __repr__(&self) -> String {
        let rule = match (self.rule, &self.pattern, self.line) {
            (Some(kind), Some(pattern), Some(line)) => {
                format!("line={line}, rule={:?}", format!("{kind}: {pattern}"))
            }
            _ => "line=None, rule=None".to_owned(),
        };
        format!(
            "Explanation(allowed={}, group='{}', {rule}, preferences={})",
            if self.allowed { "True" } else { "False" },
            self.group,
            self.preferences.__repr__()
        )
    }
}

/// A crawler's AI-use preferences: each `y`, `n` or `unknown` (nothing
/// said), or None where the crawler may not fetch (preferences apply only
/// where crawling is allowed) — the columns of `resolved_preferences`.
#[pyclass(frozen, get_all, module = "robostats_cc")]
#[derive(Clone)]
pub struct Preferences {
    usage_train_ai: Option<&'static str>,
    usage_search: Option<&'static str>,
    usage_line: Option<u32>,
    signal_search: Option<&'static str>,
    signal_ai_train: Option<&'static str>,
    signal_ai_input: Option<&'static str>,
    signal_use: Option<&'static str>,
    signal_line: Option<u32>,
    signal_scope: Option<&'static str>,
}

impl Preferences {
    fn from_columns(c: PreferenceColumns) -> Preferences {
        Preferences {
            usage_train_ai: c.usage_train_ai.map(|v| v.as_str()),
            usage_search: c.usage_search.map(|v| v.as_str()),
            usage_line: c.usage_line,
            signal_search: c.signal_search.map(|v| v.as_str()),
            signal_ai_train: c.signal_ai_train.map(|v| v.as_str()),
            signal_ai_input: c.signal_ai_input.map(|v| v.as_str()),
            signal_use: c.signal_use.map(|v| v.as_str()),
            signal_line: c.signal_line,
            signal_scope: c.signal_scope.map(|v| v.as_str()),
        }
    }
}

/// The field names of [`Preferences`], in column order.
const PREFERENCE_FIELDS: [&str; 9] = [
    "usage_train_ai",
    "usage_search",
    "usage_line",
    "signal_search",
    "signal_ai_train",
    "signal_ai_input",
    "signal_use",
    "signal_line",
    "signal_scope",
];

#[pymethods]
impl Preferences {
    /// The preferences as a dict of column name to value.
    fn as_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let dict = pyo3::types::PyDict::new(slf.py());
        for name in PREFERENCE_FIELDS {
            dict.set_item(name, slf.getattr(name)?)?;
        }
        Ok(dict)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Preferences>()
            .is_ok_and(|o| self.values() == o.get().values())
    }

    fn __repr__(&self) -> String {
        let v = self.values();
        let fields: Vec<String> = PREFERENCE_FIELDS
            .iter()
            .zip(v)
            .map(|(name, value)| match value {
                Some(value) => format!("{name}={value}"),
                None => format!("{name}=None"),
            })
            .collect();
        format!("Preferences({})", fields.join(", "))
    }
}

impl Preferences {
    /// Each field as Python would print it (strings quoted).
    fn values(&self) -> [Option<String>; 9] {
        let s = |v: Option<&str>| v.map(|v| format!("'{v}'"));
        let n = |v: Option<u32>| v.map(|v| v.to_string());
        [
            s(self.usage_train_ai),
            s(self.usage_search),
            n(self.usage_line),
            s(self.signal_search),
            s(self.signal_ai_train),
            s(self.signal_ai_input),
            s(self.signal_use),
            n(self.signal_line),
            s(self.signal_scope),
        ]
    }
}

/// A line as Google's parser reads it.
#[pyclass(frozen, get_all, module = "robostats_cc")]
pub struct Line {
    /// The line number (1-based; `\r\n` counts once).
    number: u32,
    /// The directive: `user-agent`, `allow`, `disallow`, `sitemap` or
    /// `unknown`, or None (blank, comment, text without a key).
    directive: Option<&'static str>,
    /// The key as written (`Dissalow`).
    key: String,
    /// The value as written.
    value: String,
    /// The value %-escaped as Google matches it (allow, disallow and
    /// unknown keys), else None.
    pattern: Option<String>,
    /// For an unknown key other crawlers use, its name (`crawl-delay`).
    known_elsewhere: Option<&'static str>,
    /// Google's line flags: `is_empty`, `has_comment`, `is_comment`,
    /// `has_directive`, `is_acceptable_typo`, `is_line_too_long`,
    /// `is_missing_colon_separator`.
    flags: std::collections::BTreeMap<&'static str, bool>,
}

impl Line {
    fn of(line: &robostats_robots::Line<'_>) -> Line {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        Line {
            number: line.number,
            directive: line.key.map(|k| k.as_str()),
            key: text(line.key_text),
            value: text(line.value),
            pattern: line
                .key
                .filter(|k| k.value_is_escaped())
                .map(|_| text(&robostats_robots::escape_pattern(line.value))),
            known_elsewhere: line
                .key
                .filter(|k| *k == robostats_robots::Key::Unknown)
                .and_then(|_| robostats_robots::known_elsewhere(line.key_text)),
            flags: line.metadata.flags().into_iter().collect(),
        }
    }
}

#[pymethods]
impl Line {
    fn __repr__(&self) -> String {
        format!(
            "Line(number={}, directive={}, key={:?}, value={:?})",
            self.number,
            self.directive
                .map_or("None".to_owned(), |d| format!("'{d}'")),
            self.key,
            self.value
        )
    }
}

/// Google's `MaybeEscapePattern`: a rule's value as it is matched
/// (non-ASCII bytes and `%xx` escapes upper-cased, as %XX).
#[pyfunction]
pub fn escape_pattern(pattern: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = body_bytes(pattern)?;
    Ok(String::from_utf8_lossy(&robostats_robots::escape_pattern(&bytes)).into_owned())
}

/// Google's `GetPathParamsQuery`: the part of a URL that rules are matched
/// against (path, params and query; `/` when empty).
#[pyfunction]
pub fn path_params_query(url: &str) -> String {
    let path = robostats_robots::path_params_query(url.as_bytes());
    String::from_utf8_lossy(&path.to_bytes()).into_owned()
}

/// Google's `IsValidUserAgentToObey`: whether `user_agent` is a product
/// token (`[A-Za-z_-]+`) that a named group can apply to.
#[pyfunction]
pub fn is_valid_user_agent_to_obey(user_agent: &str) -> bool {
    robostats_robots::is_valid_user_agent_to_obey(user_agent.as_bytes())
}

/// One of lint's findings.
#[pyclass(frozen, get_all, module = "robostats_cc")]
pub struct Finding {
    /// The line (1-based).
    line: u32,
    /// What it is, a stable name (`accepted_typo`, `unknown_key`, ...).
    kind: &'static str,
    /// The sentence `robostats lint` prints.
    text: String,
}

impl Finding {
    fn of(line: u32, finding: &LineFinding) -> Finding {
        Finding {
            line,
            kind: finding.kind(),
            text: finding.to_string(),
        }
    }
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        format!(
            "Finding(line={}, kind='{}', text={:?})",
            self.line, self.kind, self.text
        )
    }
}
