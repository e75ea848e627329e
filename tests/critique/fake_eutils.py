"""A fake NCBI E-utilities server on 127.0.0.1 (esearch JSON, efetch XML) over real PubMedQA abstracts.

Why a real HTTP server: the production `httpx` client, its timeouts and the retry loop are what run
in tests; only the remote end is fake. The corpus is `../shared/data/pubmedqa/abstracts.jsonl` (real
PubMed abstracts: PMID, labelled sections, MeSH, year). Titles come from PubMedQA's questions, which
are the articles' titles; records without a question get their first sentence.

    with FakeEutils(records) as fake:
        fake.base_url                        # -> YAKSA_PUBMED_BASE_URL
        fake.fail(429, times=2, headers={"Retry-After": "1"})   # the next 2 requests
        fake.fail(200, body="<PubmedArticleSet><oops")          # a malformed body
        fake.fail(200, delay_s=0.5)          # answer late (client timeout)
        fake.requests                        # [{"path", "params", "t"}] in arrival order

Search is a tiny boolean evaluator: AND / OR / NOT, parentheses, implicit AND, "quoted phrases",
field tags ([MeSH Terms]/[mh] match the MeSH list; other tags search the text). A word matches a
case-insensitive word prefix in title + abstract, roughly like PubMed's truncation. `datetype=pdat`
with `mindate`/`maxdate` filters on the year. Hits are returned newest PMID first.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, urlparse

from lxml import etree

_TOKEN = re.compile(r'\(|\)|"[^"]*"(?:\[[^\]]*\])?|[^\s()"\[\]]+(?:\[[^\]]*\])?')
_MESH_TAGS = {"mesh", "mh", "mesh terms", "majr"}


@dataclass(frozen=True)
class Record:
    pmid: str
    title: str
    sections: tuple[tuple[str, str], ...]  # (label, text)
    mesh: tuple[str, ...]
    year: int | None

    @cached_property
    def text(self) -> str:
        return " ".join([self.title, *(t for _, t in self.sections)]).lower()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    # split on "\n" only: abstracts contain U+2028, which str.splitlines() would break on
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def load_records(abstracts: Path, questions: Path | None = None) -> list[Record]:
    titles: dict[str, str] = {}
    if questions is not None and questions.exists():
        for row in _jsonl(questions):
            titles[str(row["pmid"])] = row["question"]
    records = []
    for row in _jsonl(abstracts):
        pmid = str(row["pmid"])
        contexts, labels = row["contexts"], row.get("labels") or []
        title = titles.get(pmid) or contexts[0].split(". ")[0].rstrip(".") + "."
        sections = tuple((labels[i] if i < len(labels) else "", text) for i, text in enumerate(contexts))
        records.append(Record(pmid, title, sections, tuple(row.get("meshes") or ()), int(row["year"]) if row.get("year") else None))
    return records


# -- the query evaluator ---------------------------------------------------------------------------

def _term_matches(token: str, record: Record) -> bool:
    tag = ""
    if token.endswith("]") and "[" in token:
        token, tag = token[:-1].split("[", 1)
        tag = tag.strip().lower()
    phrase = token.strip('"').lower().strip()
    if not phrase:
        return True
    if tag in _MESH_TAGS:
        return any(phrase in m.lower() for m in record.mesh)
    words = phrase.split()
    if words[0] not in record.text:  # cheap rejection before the regex
        return False
    return re.search(r"\b" + r"\s+".join(map(re.escape, words)), record.text) is not None


class _Query:
    def __init__(self, term: str) -> None:
        self.tokens = _TOKEN.findall(term)
        self.pos = 0

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def matches(self, record: Record) -> bool:
        self.pos = 0
        result = self._or(record)
        if self._peek() is not None:
            raise ValueError(f"unexpected {self._peek()!r}")
        return result

    def _or(self, record: Record) -> bool:
        result = self._and(record)
        while self._peek() == "OR":
            self._take()
            result = self._and(record) or result  # evaluate both sides: the parser must consume them
        return result

    def _and(self, record: Record) -> bool:
        result = self._atom(record)
        while self._peek() not in (None, "OR", ")"):
            op = self._take() if self._peek() in ("AND", "NOT") else "AND"
            right = self._atom(record)
            result = (result and right) if op == "AND" else (result and not right)
        return result

    def _atom(self, record: Record) -> bool:
        token = self._take()
        if token == "(":
            result = self._or(record)
            if self._take() != ")":
                raise ValueError("missing )")
            return result
        return _term_matches(token, record)


# -- the server ------------------------------------------------------------------------------------

@dataclass
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # None: a normal answer for 200, "fault" for an error status
    delay_s: float = 0.0


class FakeEutils:
    def __init__(self, records: Sequence[Record], medline_date_pmids: Sequence[str] = ()) -> None:
        self.records = {r.pmid: r for r in records}
        self.medline_date_pmids = set(medline_date_pmids)  # render PubDate as <MedlineDate>
        self.requests: list[dict[str, Any]] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def fail(self, status: int, *, times: int = 1, headers: dict[str, str] | None = None,
             body: str | None = None, delay_s: float = 0.0) -> None:
        """Answer the next `times` requests with `status` (and `body`, after `delay_s`)."""
        with self._lock:
            self._faults.extend(Fault(status, dict(headers or {}), body, delay_s) for _ in range(times))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._faults.clear()

    def search(self, term: str, params: dict[str, str]) -> list[str]:
        query = _Query(term)
        hits = [r for r in self.records.values() if query.matches(r)]
        if params.get("datetype") == "pdat":
            low = int(params.get("mindate", "0")[:4])
            high = int(params.get("maxdate", "9999")[:4])
            hits = [r for r in hits if r.year is not None and low <= r.year <= high]
        return sorted((r.pmid for r in hits), key=int, reverse=True)

    # -- rendering --

    def _esearch(self, params: dict[str, str]) -> tuple[int, str, str]:
        ids = self.search(params.get("term", ""), params)
        retmax = int(params.get("retmax", "20"))
        body = {"header": {"type": "esearch", "version": "0.3"},
                "esearchresult": {"count": str(len(ids)), "retmax": str(min(retmax, len(ids))),
                                  "retstart": "0", "idlist": ids[:retmax],
                                  "querytranslation": params.get("term", "")}}
        return 200, "application/json", json.dumps(body)

    def _article_xml(self, record: Record) -> etree._Element:
        art = etree.Element("PubmedArticle")
        cit = etree.SubElement(art, "MedlineCitation", Status="MEDLINE", Owner="NLM")
        etree.SubElement(cit, "PMID", Version="1").text = record.pmid
        article = etree.SubElement(cit, "Article", PubModel="Print")
        journal = etree.SubElement(article, "Journal")
        issue = etree.SubElement(journal, "JournalIssue", CitedMedium="Print")
        pub_date = etree.SubElement(issue, "PubDate")
        if record.year is None:
            etree.SubElement(pub_date, "Season").text = "Spring"  # no year: the client reports None
        elif record.pmid in self.medline_date_pmids:
            etree.SubElement(pub_date, "MedlineDate").text = f"{record.year} Jan-Feb"
        else:
            etree.SubElement(pub_date, "Year").text = str(record.year)
            etree.SubElement(pub_date, "Month").text = "Mar"
        etree.SubElement(journal, "Title").text = "PubMedQA fixture journal"
        etree.SubElement(article, "ArticleTitle").text = record.title
        abstract = etree.SubElement(article, "Abstract")
        for label, text in record.sections:
            node = etree.SubElement(abstract, "AbstractText")
            if label:
                node.set("Label", label)
                node.set("NlmCategory", label)
            node.text = text
        mesh_list = etree.SubElement(cit, "MeshHeadingList")
        for term in record.mesh:
            heading = etree.SubElement(mesh_list, "MeshHeading")
            etree.SubElement(heading, "DescriptorName", UI="D000000", MajorTopicYN="N").text = term
        return art

    def _efetch(self, params: dict[str, str]) -> tuple[int, str, str]:
        root = etree.Element("PubmedArticleSet")
        for pmid in params.get("id", "").split(","):
            if pmid in self.records:
                root.append(self._article_xml(self.records[pmid]))
        doctype = ('<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" '
                   '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">')
        xml = etree.tostring(root, encoding="unicode")
        return 200, "text/xml", f'<?xml version="1.0" ?>\n{doctype}\n{xml}\n'

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlparse(self.path)
                params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
                with fake._lock:
                    fake.requests.append({"path": url.path, "params": params, "t": time.monotonic()})
                    fault = fake._faults.popleft() if fake._faults else None
                if fault is not None and fault.delay_s:
                    time.sleep(fault.delay_s)
                if fault is not None and (fault.status != 200 or fault.body is not None):
                    self._send(fault.status, "text/plain", fault.body or "fault", fault.headers)
                elif url.path == "/esearch.fcgi":
                    self._send(*fake._esearch(params))
                elif url.path == "/efetch.fcgi":
                    self._send(*fake._efetch(params))
                else:
                    self._send(404, "text/plain", "not found")

            def _send(self, status: int, ctype: str, body: str, headers: dict[str, str] | None = None) -> None:
                data = body.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

