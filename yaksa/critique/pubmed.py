"""A small PubMed E-utilities client (esearch + efetch) for the M&M case critique.

Why its own client: the critique cites literature on what went wrong in a case (diagnostic error,
complications, prevention), and NCBI's rules must hold however many critiques run at once: at most
3 requests/s without an API key and 10 with one, shared by every client in the process
(`rate_limit.shared_limiter`), a `tool` and contact `email` on every request, and polite retries.

What it does:
- `search(query)` runs esearch (`db=pubmed`, JSON) and returns PMIDs; `mindate`/`maxdate` add a
  publication-date window (`datetype=pdat`; NCBI needs both ends, so a missing end is filled with
  `DATE_FLOOR` / `DATE_CEILING`).
- `fetch(pmids)` runs efetch (XML) and parses each record to an `Article` (PMID, title, abstract with
  "LABEL: text" sections, year from PubDate/Year or MedlineDate, MeSH descriptors, journal).
- `search_articles(query, broader)` searches, and on zero hits tries each broader query in order,
  recording which one hit, then fetches. `mm_query(terms)` builds the M&M-focused query and its
  broader fallbacks.
- Retries: HTTP 429, 5xx, timeouts and dropped connections are retried up to `max_retries` times
  with exponential backoff (`backoff_base_s * 2**attempt`), or after the server's `Retry-After`
  (capped at `MAX_RETRY_AFTER_S`). Any other 4xx, malformed JSON/XML, or an E-utilities error
  message raises `PubMedError` at once. Every attempt waits for the shared rate limiter.
- Disk cache (optional): raw response text under `cache_dir`, keyed by sha256 of the endpoint and the
  sorted parameters minus the caller's identity (`api_key`, `tool`, `email`: they do not change the
  answer, and the key must never end up in a file name). Only responses that parsed are cached; a
  cached response sends no request and takes no rate-limit slot. Entries never expire, so a rerun
  of a critique sees the same literature (delete the directory to refresh).
- `client.stats` counts requests sent, cache hits, retries and seconds waited (rate limit and
  backoff), thread-safely; `SearchOutcome.stats` holds the same counts for one `search_articles`.

Configuration (environment, read by `PubMedConfig.from_env`): `YAKSA_PUBMED_BASE_URL` (default
NCBI's), `NCBI_API_KEY`, `NCBI_TOOL` (default "yaksa"), `NCBI_EMAIL`, `YAKSA_PUBMED_CACHE` (cache
directory), `YAKSA_PUBMED_TIMEOUT_S`, `YAKSA_PUBMED_MAX_RETRIES`, `YAKSA_PUBMED_BACKOFF_S`.
`config.configured` is true when `YAKSA_PUBMED_BASE_URL` or `NCBI_EMAIL` is set: only then should
callers use this live client (NCBI asks every client for a contact email; an explicit base URL is a
proxy or a test server). Otherwise callers fall back to the offline literature collection; an API
key alone does not switch the live client on.

Privacy: only the search query and PMIDs leave the process; callers must build queries from clinical
concepts, never from patient identifiers. The API key is sent as a parameter but kept out of error
messages and cache keys.

    client = PubMedClient(PubMedConfig.from_env(), cache_dir=Path("cache/pubmed"))
    query, broader = mm_query(["warfarin", "gastrointestinal hemorrhage"])
    outcome = client.search_articles(query, broader, max_results=5, mindate="2010")
    outcome.query_used, outcome.articles[0].title, client.stats.snapshot()
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlencode

import httpx
from lxml import etree

from yaksa import environment
from yaksa.atomicio import atomic_write_text
from yaksa.critique.rate_limit import RateLimiter, rate_for, shared_limiter

DEFAULT_BASE_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
DEFAULT_TOOL = "yaksa"
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_RETRIES = 3
DEFAULT_BACKOFF_S = 0.5
MAX_RETRY_AFTER_S = 30.0  # never sleep longer than this on a server's say-so
EFETCH_BATCH = 200  # NCBI suggests POST beyond ~200 ids; batching keeps GET URLs short
DATE_FLOOR = "1800"  # fills a missing mindate: NCBI needs both ends of a date window
DATE_CEILING = "3000"  # fills a missing maxdate
IDENTITY_PARAMS = frozenset({"api_key", "tool", "email"})  # left out of cache keys
MM_FOCUS = '("diagnostic errors"[MeSH Terms] OR complications OR "missed diagnosis" OR prevention)'

_DATE_RE = re.compile(r"^\d{4}(/\d{2}(/\d{2})?)?$")
_YEAR_RE = re.compile(r"\b(1[89]\d{2}|2\d{3})\b")
_RETRYABLE_TRANSPORT = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


class PubMedError(RuntimeError):
    """E-utilities failed: a non-retryable HTTP status, retries exhausted, or an unreadable response."""


@dataclass(frozen=True)
class PubMedConfig:
    base_url: str = DEFAULT_BASE_URL
    api_key: str | None = None
    tool: str = DEFAULT_TOOL
    email: str | None = None
    cache_dir: Path | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_base_s: float = DEFAULT_BACKOFF_S
    configured: bool = False  # live PubMed explicitly asked for (base URL or contact email set)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """Read the configuration from `env` (default `os.environ`); empty values count as unset."""
        env = environment.environ() if env is None else env

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def number(name: str, default: float, kind: Callable[[str], Any]) -> Any:
            raw = get(name)
            if raw is None:
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{name} must be a {kind.__name__}, got {raw!r}") from None
            if value < 0:
                raise ValueError(f"{name} must be >= 0, got {raw!r}")
            return value

        base_url = get("YAKSA_PUBMED_BASE_URL")
        email_addr = get("NCBI_EMAIL")
        cache = get("YAKSA_PUBMED_CACHE")
        return cls(
            base_url=(base_url or DEFAULT_BASE_URL).rstrip("/"),
            api_key=get("NCBI_API_KEY"),
            tool=get("NCBI_TOOL") or DEFAULT_TOOL,
            email=email_addr,
            cache_dir=Path(cache) if cache else None,
            timeout_s=number("YAKSA_PUBMED_TIMEOUT_S", DEFAULT_TIMEOUT_S, float),
            max_retries=number("YAKSA_PUBMED_MAX_RETRIES", DEFAULT_MAX_RETRIES, int),
            backoff_base_s=number("YAKSA_PUBMED_BACKOFF_S", DEFAULT_BACKOFF_S, float),
            configured=bool(base_url or email_addr),
        )

    @property
    def rate_per_s(self) -> float:
        return rate_for(self.api_key)

    def __repr__(self) -> str:  # never print the key
        key = "set" if self.api_key else None
        return (f"PubMedConfig(base_url={self.base_url!r}, api_key={key!r}, tool={self.tool!r}, "
                f"email={self.email!r}, configured={self.configured})")


@dataclass(frozen=True)
class Article:
    pmid: str
    title: str
    abstract: str
    year: int | None
    mesh: tuple[str, ...]
    journal: str


class PubMedStats:
    """Thread-safe counters: HTTP requests sent, cache hits, retries, seconds waited."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.cache_hits = 0
        self.retries = 0
        self.wait_s = 0.0

    def add(self, *, requests: int = 0, cache_hits: int = 0, retries: int = 0, wait_s: float = 0.0) -> None:
        with self._lock:
            self.requests += requests
            self.cache_hits += cache_hits
            self.retries += retries
            self.wait_s += wait_s

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            return {"requests": self.requests, "cache_hits": self.cache_hits,
                    "retries": self.retries, "wait_s": round(self.wait_s, 6)}


@dataclass(frozen=True)
class SearchOutcome:
    query_used: str | None  # the query that hit; None when every query found nothing
    queries_tried: tuple[str, ...]
    count: int  # total hits reported by esearch for `query_used`
    articles: tuple[Article, ...]
    stats: dict[str, float] = field(default_factory=dict)

    @property
    def broadened(self) -> bool:
        """True when the first query found nothing and a broader one was used."""
        return self.query_used is not None and self.query_used != self.queries_tried[0]


def _clause(term: str) -> str:
    return f"({term})" if " " in term else term


def mm_query(terms: Sequence[str]) -> tuple[str, list[str]]:
    """The M&M-focused query for a case's key concepts, and broader fallbacks to try in order.

    The concepts (most important first: the drug, condition or procedure at the centre of the case)
    are AND'ed, multi-word concepts in parentheses so PubMed's automatic term mapping still applies,
    then AND'ed with `MM_FOCUS`. Fallbacks: the same concepts without the focus, then the first
    concept alone. Duplicates and blanks are dropped.

        mm_query(["warfarin", "gastrointestinal hemorrhage"])
        -> ('warfarin AND (gastrointestinal hemorrhage) AND (... OR prevention)',
            ['warfarin AND (gastrointestinal hemorrhage)', 'warfarin'])
    """
    seen: list[str] = []
    for term in terms:
        cleaned = " ".join(term.replace('"', " ").split())
        if cleaned and cleaned.lower() not in (s.lower() for s in seen):
            seen.append(cleaned)
    if not seen:
        raise ValueError("mm_query needs at least one non-empty term")
    core = " AND ".join(_clause(t) for t in seen)
    broader = [core]
    if len(seen) > 1:
        broader.append(_clause(seen[0]))
    return f"{core} AND {MM_FOCUS}", broader


def _retry_after_s(value: str | None) -> float | None:
    """`Retry-After` in seconds (delta-seconds or HTTP-date form), capped; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)


def _text(node: etree._Element | None) -> str:
    """All text under `node` (titles and abstracts carry inline markup such as <i>), whitespace-collapsed."""
    return "" if node is None else " ".join("".join(node.itertext()).split())


def _year(article: etree._Element) -> int | None:
    for path in ("Journal/JournalIssue/PubDate/Year", "Journal/JournalIssue/PubDate/MedlineDate",
                 "ArticleDate/Year"):
        match = _YEAR_RE.search(_text(article.find(path)))
        if match:
            return int(match.group(1))
    return None


def _abstract(article: etree._Element) -> str:
    parts = []
    for section in article.findall("Abstract/AbstractText"):
        text = _text(section)
        if not text:
            continue
        label = (section.get("Label") or "").strip()
        parts.append(f"{label}: {text}" if label else text)
    return "\n".join(parts)


def parse_efetch(xml_text: str) -> list[Article]:
    """Parse an efetch `PubmedArticleSet` into `Article`s (book records are skipped)."""
    try:
        root = etree.fromstring(xml_text.encode("utf-8"), parser=_XML_PARSER)
    except etree.XMLSyntaxError as exc:
        raise PubMedError(f"efetch returned malformed XML: {exc}") from None
    if root.tag != "PubmedArticleSet":
        message = _text(root.find("ERROR")) or root.tag
        raise PubMedError(f"efetch returned no PubmedArticleSet: {message[:200]}")
    articles = []
    for record in root.iter("PubmedArticle"):
        citation = record.find("MedlineCitation")
        article = None if citation is None else citation.find("Article")
        pmid = _text(None if citation is None else citation.find("PMID"))
        if article is None or not pmid:
            continue
        journal = _text(article.find("Journal/Title")) or _text(article.find("Journal/ISOAbbreviation"))
        mesh = tuple(_text(d) for d in citation.findall("MeshHeadingList/MeshHeading/DescriptorName"))
        articles.append(Article(pmid=pmid, title=_text(article.find("ArticleTitle")),
                                abstract=_abstract(article), year=_year(article),
                                mesh=tuple(m for m in mesh if m), journal=journal))
    return articles


def parse_esearch(json_text: str) -> tuple[int, list[str]]:
    """(total hit count, PMIDs) from an esearch JSON response."""
    try:
        data = json.loads(json_text)
    except json.JSONDecodeError as exc:
        raise PubMedError(f"esearch returned malformed JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PubMedError("esearch returned JSON that is not an object")
    if data.get("error"):
        raise PubMedError(f"esearch error: {str(data['error'])[:200]}")
    result = data.get("esearchresult")
    if not isinstance(result, dict):
        raise PubMedError("esearch response has no esearchresult")
    if result.get("ERROR"):
        raise PubMedError(f"esearch error: {str(result['ERROR'])[:200]}")
    ids = result.get("idlist")
    if not isinstance(ids, list):
        raise PubMedError("esearch response has no idlist")
    try:
        count = int(result.get("count", len(ids)))
    except (TypeError, ValueError):
        raise PubMedError(f"esearch count is not a number: {result.get('count')!r}") from None
    return count, [str(i) for i in ids]


def _check_date(name: str, value: str) -> str:
    if not _DATE_RE.match(value):
        raise ValueError(f"{name} must be YYYY, YYYY/MM or YYYY/MM/DD, got {value!r}")
    return value


class PubMedClient:
    """esearch/efetch with shared rate limiting, retries and an optional disk cache. Thread-safe."""

    def __init__(
        self,
        config: PubMedConfig,
        cache_dir: Path | None = None,
        *,
        limiter: RateLimiter | None = None,
        sleep: Callable[[float], None] = time.sleep,
        http: httpx.Client | None = None,
    ) -> None:
        self.config = config
        self.cache_dir = Path(cache_dir) if cache_dir is not None else config.cache_dir
        self.limiter = limiter or shared_limiter(config.base_url, config.rate_per_s)
        self.stats = PubMedStats()
        self._sleep = sleep
        self._own_http = http is None
        self._http = http or httpx.Client(timeout=httpx.Timeout(config.timeout_s),
                                          headers={"User-Agent": f"{config.tool} (yaksa critique)"})

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public API -------------------------------------------------------------------------------

    def search(self, query: str, *, max_results: int = 5, mindate: str | None = None,
               maxdate: str | None = None) -> list[str]:
        """PMIDs matching `query` (at most `max_results`), optionally within a publication-date window."""
        return self._search(query, max_results, mindate, maxdate, None)[1]

    def fetch(self, pmids: Sequence[str]) -> list[Article]:
        """Parsed records for `pmids`, in the order asked for (PMIDs PubMed does not return are left out)."""
        return self._fetch(pmids, None)

    def search_articles(self, query: str, broader: Sequence[str] = (), *, max_results: int = 5,
                        mindate: str | None = None, maxdate: str | None = None) -> SearchOutcome:
        """Search `query`, then each of `broader` in order while nothing is found; fetch the hits."""
        call = PubMedStats()
        tried: list[str] = []
        for candidate in (query, *broader):
            if candidate in tried:
                continue
            tried.append(candidate)
            count, pmids = self._search(candidate, max_results, mindate, maxdate, call)
            if pmids:
                articles = self._fetch(pmids, call)
                return SearchOutcome(candidate, tuple(tried), count, tuple(articles), call.snapshot())
        return SearchOutcome(None, tuple(tried), 0, (), call.snapshot())

    # -- internals --------------------------------------------------------------------------------

    def _search(self, query: str, max_results: int, mindate: str | None, maxdate: str | None,
                call: PubMedStats | None) -> tuple[int, list[str]]:
        if not query.strip():
            raise ValueError("empty PubMed query")
        if max_results < 1:
            raise ValueError(f"max_results must be >= 1, got {max_results}")
        params: dict[str, str] = {"db": "pubmed", "term": query, "retmode": "json",
                                  "retmax": str(max_results)}
        if mindate or maxdate:
            params["datetype"] = "pdat"
            params["mindate"] = _check_date("mindate", mindate or DATE_FLOOR)
            params["maxdate"] = _check_date("maxdate", maxdate or DATE_CEILING)
        count, pmids = self._get("esearch", params, parse_esearch, call)
        return count, pmids[:max_results]

    def _fetch(self, pmids: Sequence[str], call: PubMedStats | None) -> list[Article]:
        wanted = list(dict.fromkeys(str(p).strip() for p in pmids if str(p).strip()))
        bad = [p for p in wanted if not p.isdigit()]
        if bad:
            raise ValueError(f"PMIDs must be digits: {bad[:5]}")
        found: dict[str, Article] = {}
        for start in range(0, len(wanted), EFETCH_BATCH):
            batch = wanted[start:start + EFETCH_BATCH]
            params = {"db": "pubmed", "retmode": "xml", "id": ",".join(batch)}
            for article in self._get("efetch", params, parse_efetch, call):
                found.setdefault(article.pmid, article)
        return [found[p] for p in wanted if p in found]

    def _identity(self) -> dict[str, str]:
        params = {"tool": self.config.tool}
        if self.config.email:
            params["email"] = self.config.email
        if self.config.api_key:
            params["api_key"] = self.config.api_key
        return params

    def _cache_path(self, endpoint: str, params: Mapping[str, str]) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / endpoint / f"{cache_key(endpoint, params)}.txt"

    def _count(self, call: PubMedStats | None, **counts: Any) -> None:
        self.stats.add(**counts)
        if call is not None:
            call.add(**counts)

    def _get(self, endpoint: str, params: dict[str, str], parse: Callable[[str], Any],
             call: PubMedStats | None) -> Any:
        """GET `endpoint` (cache first), parse it, cache the raw text once it parsed; returns the parse."""
        path = self._cache_path(endpoint, params)
        if path is not None and path.is_file():
            text = path.read_text(encoding="utf-8")
            try:
                parsed = parse(text)
            except PubMedError:
                path.unlink(missing_ok=True)  # a damaged entry: fetch again
            else:
                self._count(call, cache_hits=1)
                return parsed
        text = self._request(endpoint, {**params, **self._identity()}, call)
        parsed = parse(text)
        if path is not None:
            atomic_write_text(path, text)
        return parsed

    def _request(self, endpoint: str, params: dict[str, str], call: PubMedStats | None) -> str:
        url = f"{self.config.base_url}/{endpoint}.fcgi"
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            self._count(call, requests=1, wait_s=self.limiter.acquire())
            retry_after: float | None = None
            try:
                response = self._http.get(url, params=params)
            except _RETRYABLE_TRANSPORT as exc:
                problem = f"{type(exc).__name__}"
            else:
                if response.status_code == 200:
                    return response.text
                problem = f"HTTP {response.status_code}"
                if response.status_code != 429 and response.status_code < 500:
                    raise PubMedError(f"{endpoint} failed with {problem}: {response.text[:200].strip()}")
                retry_after = _retry_after_s(response.headers.get("Retry-After"))
            if attempt == attempts - 1:
                raise PubMedError(f"{endpoint} failed after {attempts} attempts; last: {problem}")
            delay = retry_after if retry_after is not None else self.config.backoff_base_s * 2 ** attempt
            self._count(call, retries=1, wait_s=delay)
            if delay > 0:
                self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover


def cache_key(endpoint: str, params: Mapping[str, str]) -> str:
    """sha256 of the endpoint and its sorted parameters, minus the caller's identity (api_key, tool, email)."""
    kept = sorted((k, str(v)) for k, v in params.items() if k not in IDENTITY_PARAMS)
    return hashlib.sha256(f"{endpoint}?{urlencode(kept)}".encode()).hexdigest()
