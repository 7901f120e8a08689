"""Types of robostats' compiled module (crates/robostats-python)."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final

__all__ = [
    "Explanation",
    "Finding",
    "Line",
    "Preferences",
    "RobotsTxt",
    "__version__",
    "_can_fetch_many",
    "duckdb_extension_file",
    "escape_pattern",
    "is_valid_user_agent_to_obey",
    "judge",
    "main",
    "open_data_set",
    "path_params_query",
    "query_files",
    "s3_file_secret",
    "views_sql",
]
__version__: str

@final
class RobotsTxt:
    """A robots.txt file, parsed exactly as Google's reference library
    (google/robotstxt) parses it.

    ``body`` is ``bytes`` (read as Google reads them: any encoding, a BOM,
    invalid UTF-8, NUL bytes) or ``str`` (taken as UTF-8). As Google's
    crawler does, content past 500 KiB is ignored unless ``size_limit`` is
    False.

    >>> robots = RobotsTxt(b"User-agent: GPTBot\\nDisallow: /\\n")
    >>> robots.can_fetch("https://example.com/", "GPTBot")
    False
    """

    def __new__(cls, body: Union[bytes, bytearray, str], *, size_limit: bool = True) -> "RobotsTxt": ...
    def can_fetch(self, url: str, user_agent: str, *, policy: str = "google") -> bool:
        """Google's verdict: may ``user_agent`` (a product token such as
        ``GPTBot``, compared whole and case-insensitively) fetch ``url``
        (%-encoded as requested: Google does not normalise it)?

        A whole User-Agent header (``Mozilla/5.0 (compatible; GPTBot/1.2;
        ...)``), or anything else that is not a product token, raises
        ValueError naming the token to pass: Google compares the agent
        whole, so no named group could apply to it. ``policy`` is
        ``"google"`` (Google's crawlers as Google documents them:
        AdsBot-Google and the other special-case crawlers ignore the ``*``
        group, as the tables judge them) or ``"library"`` (Google's C++
        library's ``AllowedByRobots``, which has no such exception)."""
    def explain(self, url: str, user_agent: str, *, policy: str = "google") -> Explanation:
        """The verdict and why: the groups and the rule that decided, and the
        AI-use preferences that apply to the crawler at ``url`` (the
        crawler and the policy as for ``can_fetch``)."""
    def lines(self) -> List[Line]:
        """Every line of the parsed bytes, as Google's parser reads it."""
    @property
    def sitemaps(self) -> List[str]:
        """The URLs of the file's sitemap lines, in file order."""
    def preferences(self, user_agent: str) -> Preferences:
        """The AI-use preferences (Content-Usage, Content-Signal) that apply to
        ``user_agent`` at ``/``, as the ``resolved_preferences`` table and the
        ``agent_verdicts`` view give them (a product token, as for
        ``can_fetch``)."""
    def lint(self) -> List[Finding]:
        """What ``robostats lint`` finds in the whole file, one finding per
        line and problem (blank lines and comments are not findings)."""
    @property
    def body_digest(self) -> str:
        """The BLAKE3 hash of the parsed bytes, 64 hex digits (what ``b3sum``
        prints): the tables' ``body_digest`` column."""
    @property
    def ruleset_digest(self) -> str:
        """The XXH3-128 hash of the file's canonical ruleset, 32 hex digits:
        the tables' ``ruleset_digest`` column (files that say the same to
        crawlers share it)."""
    @property
    def template(self) -> Optional[str]:
        """The platform default the file is or starts with
        (``wordpress-5.5``, ``cloudflare-managed``, ...), or None: the tables'
        ``template`` column."""
    @property
    def body(self) -> bytes:
        """The body as given (``str`` bodies as their UTF-8)."""

@final
class Explanation:
    """Why a crawler may or may not fetch a URL."""

    @property
    def allowed(self) -> bool:
        """Google's verdict."""
    @property
    def group(self) -> str:
        """Which groups applied: ``specific`` (groups name the crawler; the
        ``*`` groups are then ignored), ``global`` (the ``*`` groups) or
        ``none`` (nothing applies: allowed)."""
    @property
    def group_lines(self) -> List[int]:
        """The first user-agent line of each group that applied."""
    @property
    def line(self) -> Optional[int]:
        """The deciding rule's line, or None when no rule matched."""
    @property
    def rule(self) -> Optional[str]:
        """The deciding rule's kind, ``allow`` or ``disallow``, or None."""
    @property
    def pattern(self) -> Optional[str]:
        """The deciding rule's pattern, %-escaped as Google matches it."""
    @property
    def via_index_htm(self) -> bool:
        """The rule allowed only through Google's ``index.htm`` rule
        (``Allow: /d/index.html`` allows ``/d/``)."""
    @property
    def ignores_global_group(self) -> bool:
        """The ``*`` group decided (``policy="library"``) for a crawler
        that, by its documented policy, ignores it (Google's special-case
        crawlers such as AdsBot-Google): the tables, and the default
        policy, judge it by its policy instead."""
    @property
    def preferences(self) -> Preferences:
        """The AI-use preferences that apply to the crawler at the URL."""

@final
class Preferences:
    """A crawler's AI-use preferences, as the columns of the
    ``resolved_preferences`` table: each value ``y``, ``n`` or ``unknown``
    (nothing said), and None where the crawler may not fetch (preferences
    apply only where crawling is allowed)."""

    @property
    def usage_train_ai(self) -> Optional[str]:
        """Content-Usage ``train-ai``: the crawler's groups in AIPREF's
        grouping, the rules with the longest matching path, ``n`` winning."""
    @property
    def usage_search(self) -> Optional[str]:
        """Content-Usage ``search``, chosen the same way."""
    @property
    def usage_line(self) -> Optional[int]:
        """The line of the Content-Usage rule that applies."""
    @property
    def signal_search(self) -> Optional[str]:
        """Content-Signal ``search``: the lines of the crawler's groups, else
        those before the first user-agent line; ``n`` wins."""
    @property
    def signal_ai_train(self) -> Optional[str]:
        """Content-Signal ``ai-train``, chosen the same way."""
    @property
    def signal_ai_input(self) -> Optional[str]:
        """Content-Signal ``ai-input``, chosen the same way."""
    @property
    def signal_use(self) -> Optional[str]:
        """Content-Signal ``use`` (Cloudflare, 2026): ``immediate``,
        ``reference`` or ``full`` (the most restrictive given), else
        ``unknown``."""
    @property
    def signal_line(self) -> Optional[int]:
        """The first line of the Content-Signal lines that apply."""
    @property
    def signal_scope(self) -> Optional[str]:
        """Where the Content-Signal lines that apply stand: ``group`` or
        ``file`` (before the first user-agent line)."""
    def as_dict(self) -> Dict[str, Union[str, int, None]]:
        """The preferences as a dict of column name to value."""

@final
class Line:
    """A line as Google's parser reads it."""

    @property
    def number(self) -> int:
        """The line number, 1-based (``\\r\\n`` counts once)."""
    @property
    def directive(self) -> Optional[str]:
        """``user-agent``, ``allow``, ``disallow``, ``sitemap`` or ``unknown``;
        None for a blank line, a comment or text without a key."""
    @property
    def key(self) -> str:
        """The key as written (``Dissalow``)."""
    @property
    def value(self) -> str:
        """The value as written."""
    @property
    def pattern(self) -> Optional[str]:
        """The value %-escaped as Google matches it (allow, disallow and
        unknown keys), else None."""
    @property
    def known_elsewhere(self) -> Optional[str]:
        """For an unknown key that other crawlers use, its name
        (``crawl-delay``)."""
    @property
    def flags(self) -> Dict[str, bool]:
        """Google's line flags: ``is_empty``, ``has_comment``, ``is_comment``,
        ``has_directive``, ``is_acceptable_typo``, ``is_line_too_long``,
        ``is_missing_colon_separator``."""

@final
class Finding:
    """One of lint's findings."""

    @property
    def line(self) -> int:
        """The line, 1-based."""
    @property
    def kind(self) -> str:
        """What it is, a stable name: ``accepted_typo``, ``missing_colon``,
        ``unknown_key``, ``known_elsewhere``, ``preference_old_label``, ..."""
    @property
    def text(self) -> str:
        """The sentence ``robostats lint`` prints."""

def escape_pattern(pattern: Union[str, bytes]) -> str:
    """Google's ``MaybeEscapePattern``: a rule's value as it is matched."""
def path_params_query(url: str) -> str:
    """Google's ``GetPathParamsQuery``: the part of a URL rules are matched
    against (path, params and query; ``/`` when empty)."""
def is_valid_user_agent_to_obey(user_agent: str) -> bool:
    """Google's ``IsValidUserAgentToObey``: whether ``user_agent`` is a
    product token (``[A-Za-z_-]+``) that a named group can apply to."""
def _can_fetch_many(
    bodies: Any,
    agent: Optional[str],
    agents: Optional[Any],
    urls: Any,
    size_limit: bool,
    policy: str,
) -> Tuple[bytes, bytes, int]:
    """Google's verdict per row of three Arrow arrays of bytes or text
    (objects with ``__arrow_c_array__``): the boolean array's values and
    validity bitmaps and its null count."""
def main(argv: Sequence[str]) -> int:
    """Runs the ``robostats`` command with ``argv`` (the program's name
    first); returns its exit status."""
def judge(argv: Sequence[str]) -> Tuple[int, int, int]:
    """Runs ``robostats judge`` with ``argv``: (URLs, scopes, scopes captured)."""

def views_sql() -> str:
    """``queries/tables.sql``, ``views.sql`` and ``strata.sql``: the views over a data set."""
def query_files() -> List[Tuple[str, str]]:
    """The ready queries of ``queries/``: each file's stem and text."""
def open_data_set(out: Union[str, "PathLike[str]"]) -> Tuple[str, Optional[List[Tuple[str, str]]]]:
    """Opens the data set ``out`` (a directory or ``s3://bucket/prefix/``)
    for reading as ``robostats report`` does; returns the name DuckDB reads
    it by and, on S3, its DuckDB S3 secret's parameters (credentials).
    Raises ValueError with the command's message."""
def s3_file_secret(url: str) -> Tuple[str, List[Tuple[str, str]]]:
    """The DuckDB S3 secret for a file or glob on S3 read beside a data set
    (a rank list), with the credentials ``open_data_set`` finds: its
    scope (``s3://bucket/``) and its parameters. Raises ValueError when
    ``url`` is not an ``s3://`` URL of a bucket."""
def duckdb_extension_file(data: bytes, platform: str) -> bytes:
    """The DuckDB extension file ``robostats`` for DuckDB's ``platform``
    (``PRAGMA platform``): ``data`` (the file shipped beside this module,
    or its library) with that platform's 512-byte metadata footer (C API
    v1.2.0, ABI ``C_STRUCT``, no signature). Its entry point registers the
    native ``robots_can_fetch`` and ``robots_explain``;
    ``robostats_cc.register(con, native=True)`` and ``robostats_cc.connect``
    load it. Raises ValueError for bytes that are not the extension."""
