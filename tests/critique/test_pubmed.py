"""The PubMed E-utilities client against a fake E-utilities server over real PubMedQA abstracts."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import shared_or_skip
from tests.critique.fake_eutils import FakeEutils, Record, load_records
from yaksa.critique.pubmed import (
    MM_FOCUS,
    PubMedClient,
    PubMedConfig,
    PubMedError,
    cache_key,
    mm_query,
    parse_efetch,
)
from yaksa.critique.rate_limit import (
    RATE_WITH_KEY,
    RATE_WITHOUT_KEY,
    RateLimiter,
    rate_for,
    reset_shared_limiters,
    shared_limiter,
)

MEDLINE_DATE_PMID = "19683101"  # rendered with <MedlineDate>2009 Jan-Feb</MedlineDate>


@pytest.fixture(scope="module")
def records() -> dict[str, Record]:
    abstracts = shared_or_skip("pubmedqa", "abstracts.jsonl")
    return {r.pmid: r for r in load_records(abstracts, abstracts.with_name("dev_questions.jsonl"))}


@pytest.fixture()
def fake(records: dict[str, Record]) -> Iterator[FakeEutils]:
    with FakeEutils(list(records.values()), medline_date_pmids=[MEDLINE_DATE_PMID]) as server:
        yield server


class Sleeps:
    """An injected sleep that records what it was asked for and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds


def make_client(fake: FakeEutils, tmp_path: Path | None = None, *, sleeps: Sleeps | None = None,
                limiter: RateLimiter | None = None, **config: object) -> PubMedClient:
    settings = {"base_url": fake.base_url, "max_retries": 2, "backoff_base_s": 0.01, "timeout_s": 2.0,
                "configured": True, **config}
    return PubMedClient(PubMedConfig(**settings), cache_dir=tmp_path,  # type: ignore[arg-type]
                        limiter=limiter or RateLimiter(10_000), sleep=sleeps or Sleeps())


def expected_abstract(record: Record) -> str:
    return "\n".join(f"{label}: {text}" if label else text for label, text in record.sections)


# -- search and fetch ------------------------------------------------------------------------------

def test_search_then_fetch_returns_the_real_records(fake: FakeEutils, records: dict[str, Record]) -> None:
    with make_client(fake) as client:
        pmids = client.search("appendicitis", max_results=3)
        articles = client.fetch(pmids)
    assert pmids == fake.search("appendicitis", {})[:3]
    assert pmids == ["25982163", "23860049", "19683101"]
    assert [a.pmid for a in articles] == pmids
    for article in articles:
        record = records[article.pmid]
        assert article.title == record.title
        assert article.abstract == expected_abstract(record)
        assert article.abstract.startswith(f"{record.sections[0][0]}: ")
        assert article.mesh == record.mesh
        assert article.year == record.year
        assert article.journal == "PubMedQA fixture journal"
    by_pmid = {a.pmid: a for a in articles}
    assert by_pmid["25982163"].title == "Appendectomy timing: Will delayed surgery increase the complications?"
    assert by_pmid["25982163"].year == 2015
    assert "Diagnostic Errors" in by_pmid["23860049"].mesh
    assert by_pmid["23860049"].year is None  # the record has no year
    assert by_pmid[MEDLINE_DATE_PMID].year == 2009  # from <MedlineDate>2009 Jan-Feb</MedlineDate>
    esearch, efetch = fake.requests
    assert esearch["path"] == "/esearch.fcgi" and efetch["path"] == "/efetch.fcgi"
    assert esearch["params"]["db"] == "pubmed" and esearch["params"]["term"] == "appendicitis"
    assert esearch["params"]["retmax"] == "3" and esearch["params"]["retmode"] == "json"
    assert "datetype" not in esearch["params"]
    assert efetch["params"] == {"db": "pubmed", "retmode": "xml", "id": ",".join(pmids), "tool": "yaksa"}


def test_fetch_keeps_the_requested_order_and_drops_unknown_pmids(fake: FakeEutils) -> None:
    with make_client(fake) as client:
        articles = client.fetch(["19683101", "1", "25982163", "19683101"])
    assert [a.pmid for a in articles] == ["19683101", "25982163"]
    with make_client(fake) as client, pytest.raises(ValueError, match="digits"):
        client.fetch(["12ab"])


def test_mm_query_hits_with_the_focus_when_it_can(fake: FakeEutils) -> None:
    query, broader = mm_query(["appendicitis"])
    assert query == f"appendicitis AND {MM_FOCUS}"
    assert broader == ["appendicitis"]
    with make_client(fake) as client:
        outcome = client.search_articles(query, broader, max_results=5)
    assert outcome.query_used == query and not outcome.broadened
    assert outcome.queries_tried == (query,)
    assert {a.pmid for a in outcome.articles} == {"25982163", "23860049"}  # complications / Diagnostic Errors
    assert outcome.count == 2
    assert outcome.stats["requests"] == 2 and outcome.stats["cache_hits"] == 0


def test_zero_hits_falls_back_to_broader_queries_and_records_which_hit(fake: FakeEutils) -> None:
    query, broader = mm_query(["aspirin", "xyzzy syndrome", " ", "Aspirin"])
    assert broader == ["aspirin AND (xyzzy syndrome)", "aspirin"]
    with make_client(fake) as client:
        outcome = client.search_articles(query, broader)
    assert outcome.broadened
    assert outcome.query_used == "aspirin"
    assert outcome.queries_tried == (query, "aspirin AND (xyzzy syndrome)", "aspirin")
    assert [a.pmid for a in outcome.articles] == ["18575014", "9920954"]
    assert [r["params"].get("term") for r in fake.requests] == [*outcome.queries_tried, None]
    assert outcome.stats["requests"] == 4


def test_nothing_found_anywhere(fake: FakeEutils) -> None:
    with make_client(fake) as client:
        outcome = client.search_articles("xyzzy", ["plugh"])
    assert outcome.query_used is None and not outcome.broadened
    assert outcome.articles == () and outcome.queries_tried == ("xyzzy", "plugh")
    assert all(r["path"] == "/esearch.fcgi" for r in fake.requests)


def test_date_window_is_sent_and_applied(fake: FakeEutils) -> None:
    with make_client(fake) as client:
        pmids = client.search("appendicitis", mindate="2010/01/01", maxdate="2016")
        assert pmids == ["25982163"]
        client.search("appendicitis", mindate="2000")
        with pytest.raises(ValueError, match="mindate"):
            client.search("appendicitis", mindate="last year")
    first, second = (r["params"] for r in fake.requests)
    assert (first["datetype"], first["mindate"], first["maxdate"]) == ("pdat", "2010/01/01", "2016")
    assert (second["mindate"], second["maxdate"]) == ("2000", "3000")  # NCBI needs both ends
    assert len(fake.requests) == 2


def test_identity_params_are_sent_but_not_part_of_the_cache_key(fake: FakeEutils, tmp_path: Path) -> None:
    with make_client(fake, tmp_path, api_key="secret-key", tool="yaksa-test", email="qa@example.org") as client:
        assert client.search("warfarin") == ["12805495", "10605400"]
    params = fake.requests[0]["params"]
    assert (params["api_key"], params["tool"], params["email"]) == ("secret-key", "yaksa-test", "qa@example.org")
    files = list(tmp_path.rglob("*.txt"))
    assert len(files) == 1 and "secret-key" not in files[0].name
    base = {"db": "pubmed", "term": "warfarin"}
    assert cache_key("esearch", {**base, "api_key": "a"}) == cache_key("esearch", {**base, "api_key": "b"})
    assert cache_key("esearch", base) != cache_key("esearch", {**base, "term": "aspirin"})
    # another key, tool and email: still a cache hit, no request
    with make_client(fake, tmp_path, api_key="other-key") as client:
        assert client.search("warfarin") == ["12805495", "10605400"]
        assert client.stats.snapshot()["cache_hits"] == 1
    assert len(fake.requests) == 1


def test_cache_hit_makes_no_request_and_takes_no_rate_slot(fake: FakeEutils, tmp_path: Path) -> None:
    clock = FakeClock()
    limiter = RateLimiter(RATE_WITHOUT_KEY, clock=clock, sleep=clock.sleep)
    with make_client(fake, tmp_path, limiter=limiter) as client:
        first = client.search_articles("appendicitis", max_results=2)
        assert len(fake.requests) == 2
        waited_after_network = clock.now
        second = client.search_articles("appendicitis", max_results=2)
        stats = client.stats.snapshot()
    assert second.articles == first.articles and len(first.articles) == 2
    assert len(fake.requests) == 2
    assert clock.now == waited_after_network  # no slot taken for cached answers
    assert second.stats == {"requests": 0, "cache_hits": 2, "retries": 0, "wait_s": 0.0}
    assert stats["requests"] == 2 and stats["cache_hits"] == 2
    assert stats["wait_s"] == pytest.approx(1 / RATE_WITHOUT_KEY)  # the efetch waited for its slot


# -- retries and errors ----------------------------------------------------------------------------

def test_429_honours_retry_after_then_succeeds(fake: FakeEutils) -> None:
    sleeps = Sleeps()
    fake.fail(429, times=2, headers={"Retry-After": "1"})
    with make_client(fake, sleeps=sleeps) as client:
        assert client.search("warfarin") == ["12805495", "10605400"]
        stats = client.stats.snapshot()
    assert sleeps.calls == [1.0, 1.0]
    assert len(fake.requests) == 3
    assert stats["requests"] == 3 and stats["retries"] == 2 and stats["wait_s"] >= 2.0


def test_retry_after_is_capped(fake: FakeEutils) -> None:
    sleeps = Sleeps()
    fake.fail(429, headers={"Retry-After": "3600"})
    with make_client(fake, sleeps=sleeps) as client:
        client.search("warfarin")
    assert sleeps.calls == [30.0]


def test_5xx_is_retried_with_exponential_backoff(fake: FakeEutils) -> None:
    sleeps = Sleeps()
    fake.fail(500)
    fake.fail(503)
    with make_client(fake, sleeps=sleeps, backoff_base_s=0.01) as client:
        assert [a.pmid for a in client.fetch(["25982163"])] == ["25982163"]
    assert sleeps.calls == pytest.approx([0.01, 0.02])
    assert len(fake.requests) == 3


def test_retries_exhausted_raise(fake: FakeEutils) -> None:
    fake.fail(503, times=3)
    with make_client(fake, max_retries=2) as client, pytest.raises(PubMedError, match="3 attempts.*HTTP 503"):
        client.search("warfarin")
    assert len(fake.requests) == 3


def test_404_raises_at_once_without_the_api_key_in_the_message(fake: FakeEutils) -> None:
    sleeps = Sleeps()
    fake.fail(404, body="no such endpoint")
    with (make_client(fake, sleeps=sleeps, api_key="secret-key") as client,
          pytest.raises(PubMedError, match="HTTP 404: no such endpoint") as err):
        client.search("warfarin")
    assert "secret-key" not in str(err.value)
    assert len(fake.requests) == 1 and sleeps.calls == []


def test_timeout_is_retried(fake: FakeEutils) -> None:
    fake.fail(200, delay_s=0.6)
    with make_client(fake, timeout_s=0.2) as client:
        assert client.search("warfarin") == ["12805495", "10605400"]
        assert client.stats.snapshot()["retries"] == 1


def test_malformed_responses_raise_and_are_not_cached(fake: FakeEutils, tmp_path: Path) -> None:
    fake.fail(200, body="<PubmedArticleSet><PubmedArticle>")
    with make_client(fake, tmp_path) as client:
        with pytest.raises(PubMedError, match="malformed XML"):
            client.fetch(["25982163"])
        assert list(tmp_path.rglob("*.txt")) == []
        assert [a.pmid for a in client.fetch(["25982163"])] == ["25982163"]  # fetched again, now fine
        fake.fail(200, body="{not json")
        with pytest.raises(PubMedError, match="malformed JSON"):
            client.search("warfarin")
    assert len(fake.requests) == 3


def test_esearch_error_message_raises(fake: FakeEutils) -> None:
    fake.fail(200, body='{"esearchresult": {"ERROR": "Invalid query syntax"}}')
    with make_client(fake) as client, pytest.raises(PubMedError, match="Invalid query syntax"):
        client.search("warfarin")


def test_parse_efetch_joins_unlabelled_sections_and_reads_inline_markup() -> None:
    xml = """<?xml version="1.0"?><PubmedArticleSet><PubmedArticle><MedlineCitation>
      <PMID Version="1">123</PMID><Article><Journal><ISOAbbreviation>BMJ</ISOAbbreviation>
      <JournalIssue><PubDate><MedlineDate>Winter 1998-1999</MedlineDate></PubDate></JournalIssue></Journal>
      <ArticleTitle>Effect of <i>H. pylori</i> on ulcers.</ArticleTitle>
      <Abstract><AbstractText>One paragraph.</AbstractText></Abstract></Article></MedlineCitation>
      </PubmedArticle></PubmedArticleSet>"""
    (article,) = parse_efetch(xml)
    assert article.title == "Effect of H. pylori on ulcers."
    assert article.abstract == "One paragraph." and article.year == 1998
    assert article.journal == "BMJ" and article.mesh == ()
    with pytest.raises(PubMedError, match="no PubmedArticleSet"):
        parse_efetch("<eFetchResult><ERROR>bad id</ERROR></eFetchResult>")


def test_client_is_safe_to_share_across_threads(fake: FakeEutils, tmp_path: Path) -> None:
    terms = ["appendicitis", "warfarin", "aspirin", "appendicitis"] * 3
    results: dict[int, list[str]] = {}

    def work(i: int) -> None:
        results[i] = [a.pmid for a in client.search_articles(terms[i], max_results=2).articles]

    with make_client(fake, tmp_path) as client:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(terms))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stats = client.stats.snapshot()
    for i, term in enumerate(terms):
        assert results[i] == fake.search(term, {})[:2]
    assert stats["requests"] + stats["cache_hits"] == 2 * len(terms)
    assert stats["requests"] == len(fake.requests)


# -- configuration ---------------------------------------------------------------------------------

def test_config_from_env() -> None:
    default = PubMedConfig.from_env({})
    assert default.base_url == "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    assert (default.tool, default.api_key, default.email, default.cache_dir) == ("yaksa", None, None, None)
    assert not default.configured and default.rate_per_s == RATE_WITHOUT_KEY
    assert not PubMedConfig.from_env({"NCBI_API_KEY": "k"}).configured  # a key alone: still offline
    assert PubMedConfig.from_env({"NCBI_EMAIL": "qa@example.org"}).configured
    config = PubMedConfig.from_env({
        "YAKSA_PUBMED_BASE_URL": "http://127.0.0.1:9/eutils/", "NCBI_API_KEY": "secret-key",
        "NCBI_TOOL": "t", "YAKSA_PUBMED_CACHE": "cache/pubmed", "YAKSA_PUBMED_TIMEOUT_S": "2.5",
        "YAKSA_PUBMED_MAX_RETRIES": "5", "YAKSA_PUBMED_BACKOFF_S": "0.1", "NCBI_EMAIL": " "})
    assert config.configured and config.base_url == "http://127.0.0.1:9/eutils"
    assert (config.tool, config.email, config.cache_dir) == ("t", None, Path("cache/pubmed"))
    assert (config.timeout_s, config.max_retries, config.backoff_base_s) == (2.5, 5, 0.1)
    assert config.rate_per_s == RATE_WITH_KEY
    assert "secret-key" not in repr(config)
    with pytest.raises(ValueError, match="YAKSA_PUBMED_MAX_RETRIES"):
        PubMedConfig.from_env({"YAKSA_PUBMED_MAX_RETRIES": "many"})


def test_clients_for_one_service_share_one_limiter() -> None:
    reset_shared_limiters()
    base = PubMedConfig(base_url="http://127.0.0.1:9")
    keyed = PubMedConfig(base_url="http://127.0.0.1:9/", api_key="k")
    with PubMedClient(base) as a, PubMedClient(base) as b, PubMedClient(keyed) as c:
        assert a.limiter is b.limiter and a.limiter.rate_per_s == RATE_WITHOUT_KEY
        assert c.limiter is not a.limiter and c.limiter.rate_per_s == RATE_WITH_KEY
        assert shared_limiter("http://127.0.0.1:9", RATE_WITH_KEY) is c.limiter
    reset_shared_limiters()


# -- the rate limiter ------------------------------------------------------------------------------

@pytest.mark.parametrize("api_key", [None, "k"])
def test_rate_limiter_spaces_calls_on_a_fake_clock(api_key: str | None) -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_for(api_key), clock=clock, sleep=clock.sleep)
    stamps = []
    for _ in range(10):
        limiter.acquire()
        stamps.append(clock())
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    interval = 1 / (RATE_WITH_KEY if api_key else RATE_WITHOUT_KEY)
    assert min(gaps) >= interval - 1e-9
    assert stamps[-1] - stamps[0] == pytest.approx(9 * interval)


def test_rate_limiter_does_not_wait_after_an_idle_spell() -> None:
    clock = FakeClock()
    limiter = RateLimiter(2, clock=clock, sleep=clock.sleep)
    assert limiter.acquire() == 0.0
    assert limiter.acquire() == pytest.approx(0.5)
    clock.sleep(10)
    assert limiter.acquire() == 0.0
    with pytest.raises(ValueError):
        RateLimiter(0)


def test_threads_sharing_a_limiter_never_exceed_the_rate() -> None:
    limiter = RateLimiter(50)
    calls, per_thread = 20, 5
    start = time.monotonic()

    def work() -> None:
        for _ in range(per_thread):
            limiter.acquire()

    threads = [threading.Thread(target=work) for _ in range(calls // per_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.monotonic() - start >= (calls - 1) / 50


def test_threads_get_distinct_spaced_slots_on_a_fake_clock() -> None:
    clock = FakeClock()
    limiter = RateLimiter(3, clock=clock, sleep=lambda s: None)  # the clock stands still: slots pile up
    waits: list[float] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(5):
            w = limiter.reserve()
            with lock:
                waits.append(w)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(waits) == pytest.approx([i / 3 for i in range(20)])
