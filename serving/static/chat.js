// The chat page: POST /v1/chat and read its SSE stream with fetch (EventSource cannot POST).
// The case-review mode (M&M) does the same with POST /v1/critique.
// Everything the server sends is inserted with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const NODE_LABELS = {
  scope: "질문 범위 확인", resolve_followup: "앞선 대화 확인",
  check_similarity: "비슷한 질문 확인", classify_intent: "질문 분류", extract_slots: "정보 추출",
  store_memory: "기록 저장", assemble_context: "문맥 구성", retrieve: "문서 검색",
  generate_answer: "답변 작성", verify: "검증", refine: "품질 평가", quality_check: "품질 확인",
  store_response: "응답 저장",
};

function userId() {
  let id = localStorage.getItem("yaksa.userId");
  if (!id) {
    const rand = crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
    id = "web-" + rand.replace(/[^A-Za-z0-9-]/g, "").slice(0, 40);
    localStorage.setItem("yaksa.userId", id);
  }
  return id;
}

function headers() {
  const h = { "Content-Type": "application/json" };
  const key = localStorage.getItem("yaksa.apiKey");
  if (key) h.Authorization = "Bearer " + key;
  return h;
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function addMessage(cls, text) {
  const msg = el("div", { class: "msg " + cls }, text);
  $("chat").append(msg);
  msg.scrollIntoView({ block: "end" });
  return msg;
}

// Answer text with every "[문서 N]" turned into a button that opens that source.
function renderAnswer(target, text, citations) {
  target.replaceChildren();
  const byN = new Map(citations.map((c) => [c.n, c]));
  let last = 0;
  for (const m of text.matchAll(/\[문서 (\d+)\]/g)) {
    target.append(document.createTextNode(text.slice(last, m.index)));
    const c = byN.get(Number(m[1]));
    if (c) {
      const btn = el("button", { class: "cite", type: "button", "data-n": m[1] }, m[0]);
      btn.addEventListener("click", () => openSource(c));
      target.append(btn);
    } else {
      target.append(document.createTextNode(m[0]));
    }
    last = m.index + m[0].length;
  }
  target.append(document.createTextNode(text.slice(last)));
}

function openSource(c) {
  $("modal-title").textContent = `[문서 ${c.n}] ${c.title}`;
  const meta = [c.section, c.collection, c.metadata && c.metadata.company, `점수 ${Number(c.score).toFixed(3)}`];
  $("modal-meta").textContent = meta.filter(Boolean).join(" · ");
  $("modal-text").textContent = c.text;
  $("modal").showModal();
}

function selectTab(name) {
  for (const t of ["sources", "web", "trace"]) {
    $("tab-" + t).setAttribute("aria-selected", String(t === name));
    $("panel-" + t).hidden = t !== name;
  }
}

function showSources(citations) {
  const panel = $("panel-sources");
  panel.replaceChildren();
  if (!citations.length) panel.append(el("p", { class: "muted" }, "인용된 문서가 없습니다."));
  for (const c of citations) {
    const row = el("div", { class: "source" });
    const btn = el("button", { type: "button" }, `[문서 ${c.n}] ${c.title} — ${c.section}`);
    btn.addEventListener("click", () => openSource(c));
    row.append(btn);
    panel.append(row);
  }
}

function showWeb(refs) {
  const panel = $("panel-web");
  panel.replaceChildren(el("p", { class: "muted" }, "웹 참고자료는 답변 생성에 쓰이지 않습니다."));
  if (!refs.results.length) panel.append(el("p", { class: "muted" }, "결과 없음: " + (refs.reason || "")));
  for (const r of refs.results) {
    const row = el("div", { class: "web" });
    const a = el("a", { href: r.url, target: "_blank", rel: "noopener noreferrer" }, r.title);
    row.append(a, el("p", { class: "muted" }, r.content));
    panel.append(row);
  }
}

function showTrace(done, statuses) {
  const panel = $("panel-trace");
  const trace = done.trace || {};
  const rows = [["번들", done.version], ["소요 시간", `${done.elapsed_ms} ms`],
    ["반복", trace.iterations], ["노드", (trace.nodes || []).join(" → ")]];
  for (const [k, v] of Object.entries(trace.scores || {})) rows.push(["점수 " + k, JSON.stringify(v)]);
  for (const [k, v] of Object.entries(trace.timings_ms || {})) rows.push(["시간 " + k, `${v} ms`]);
  rows.push(["진행 이벤트", statuses.map((s) => `${s.node}${s.state ? ":" + s.state : ""}`).join(", ")]);
  const table = el("table");
  for (const [k, v] of rows) {
    if (v === undefined || v === null || v === "") continue;
    const tr = el("tr");
    tr.append(el("th", {}, k), el("td", {}, String(v)));
    table.append(tr);
  }
  panel.replaceChildren(table);
  $("bundle").textContent = "bundle " + done.version;
}

function setProgress(text) {
  $("progress").hidden = !text;
  $("progress-text").textContent = text || "";
}

// Parse "event:/data:" blocks out of the byte stream as they arrive.
async function* sseEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield [name, JSON.parse(data.join("\n"))];
    }
  }
}

async function ask(question) {
  addMessage("user", question);
  const answer = addMessage("bot", "");
  const started = Date.now();
  const statuses = [];
  let citations = [];
  let streamed = "";
  let step = "요청 보내는 중";
  const tick = setInterval(() => setProgress(`${step}… ${Math.round((Date.now() - started) / 1000)}초`), 500);
  setProgress(step + "…");
  $("send").disabled = true;
  try {
    const response = await fetch("/v1/chat", {
      method: "POST", headers: headers(),
      body: JSON.stringify({ question, user_id: userId(), stream: true, web: $("use-web").checked }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(`${response.status}: ${body.detail || response.statusText}`);
    }
    for await (const [name, data] of sseEvents(response)) {
      if (name === "status") {
        statuses.push(data);
        step = NODE_LABELS[data.node] || data.node;
      } else if (name === "token") {
        streamed += data.text;
        answer.textContent = streamed;
      } else if (name === "answer") {
        streamed = data.text;
        answer.textContent = streamed;
      } else if (name === "citations") {
        citations = data.citations;
        renderAnswer(answer, streamed, citations);
        showSources(citations);
      } else if (name === "web_refs") {
        showWeb(data);
      } else if (name === "done") {
        showTrace(data, statuses);
      } else if (name === "error") {
        throw new Error(data.detail);
      }
    }
  } catch (err) {
    answer.classList.add("error");
    answer.textContent = (streamed ? streamed + "\n\n" : "") + "오류: " + err.message;
  } finally {
    clearInterval(tick);
    setProgress("");
    $("send").disabled = false;
  }
}

// ---- case review (M&M): POST /v1/critique ------------------------------------------------------
const CASE_PARTS = ["summary", "timeline", "findings", "diagnoses", "management", "outcome"];
const STEP_LABELS = {
  analysis: "임상 분석", internal_search: "내부 증례 검색", validation: "내부 증례 검증",
  external_search: "외부 문헌 검색", critique: "검토 의견 작성",
};
const RETRIEVAL_MODES = {
  external_only: "외부 문헌만 — 유사도 임계값을 넘은 내부 증례가 없음",
  hybrid: "하이브리드 — 검증된 내부 증례 + 외부 문헌",
  external_only_after_validation: "외부 문헌만 — 내부 증례 후보가 검증에서 모두 제외됨",
};
const SECTIONS = {
  diagnostic_errors: "진단 오류", treatment_errors: "치료 오류", what_went_well: "잘된 점", prevention: "예방",
};
const PMID = /^PMID:(\d+)$/;

function selectMode(mode) {
  const review = mode === "review";
  $("mode-chat").setAttribute("aria-selected", String(!review));
  $("mode-review").setAttribute("aria-selected", String(review));
  $("chat-mode").hidden = review;
  $("chat-footer").hidden = review;
  $("review-mode").hidden = !review;
  history.replaceState(null, "", review ? "#review" : location.pathname + location.search);
}

// A citation: PMID:N links to PubMed, anything else (case:…, doc:…) is shown as text.
function refNode(ref) {
  const m = PMID.exec(ref);
  if (m) {
    return el("a", { class: "ref", href: `https://pubmed.ncbi.nlm.nih.gov/${m[1]}/`, target: "_blank",
      rel: "noopener noreferrer" }, ref);
  }
  return el("span", { class: "ref" }, ref);
}

function stepSummary(name, data) {
  if (name === "analysis") {
    const consider = data.should_consider || [];
    return consider.length ? "고려했어야 할 진단: " + consider.join(", ")
      : `진단 ${(data.diagnoses || []).length}개, 고위험 패턴 ${(data.risk_patterns || []).length}개`;
  }
  if (name === "internal_search") {
    return `후보 ${(data.candidates || []).length}건, 임계값 ${data.threshold} 이상 ${data.above_threshold}건`;
  }
  if (name === "validation") return `${data.passed ? "통과" : "불통과"}, 사용 ${(data.kept || []).length}건`;
  if (name === "external_search") return `문헌 ${(data.articles || []).length}건 (${data.source || ""})`;
  if (name === "critique") return `${data.retrieval_mode}, 검증 ${data.verdict}`;
  return "";
}

function showStep(name, data) {
  const li = el("li", { "data-step": name }, `${STEP_LABELS[name] || name}: ${stepSummary(name, data)}`);
  $("review-running").before(li);
}

function makeTable(headers, rows) {
  const t = el("table");
  const head = el("tr");
  for (const h of headers) head.append(el("th", {}, h));
  t.append(head);
  for (const cells of rows) {
    const tr = el("tr");
    for (const c of cells) {
      const td = el("td");
      if (c instanceof Node) td.append(c); else td.textContent = String(c);
      tr.append(td);
    }
    t.append(tr);
  }
  return t;
}

function showCritique(result, done) {
  const out = $("review-result");
  out.replaceChildren();
  const mode = el("p");
  mode.append(el("span", { class: "mode", "data-mode": result.retrieval_mode }, result.retrieval_mode), " ",
    document.createTextNode(RETRIEVAL_MODES[result.retrieval_mode] || ""));
  out.append(el("h3", {}, "검색 모드"), mode);

  out.append(el("h3", {}, "내부 증례"));
  const internal = result.internal || [];
  if (!internal.length) out.append(el("p", { class: "muted" }, "내부 증례 후보가 없습니다."));
  else {
    out.append(makeTable(["증례", "유사도", "사용", "사유"], internal.map((c) => [
      `${c.title || ""} (${c.doc_id})`, Number(c.score).toFixed(3),
      el("span", { class: c.kept ? "kept" : "dropped" }, c.kept ? "사용" : "제외"), c.reason || "",
    ])));
  }

  out.append(el("h3", {}, "외부 문헌"));
  const external = result.external || [];
  if (!external.length) out.append(el("p", { class: "muted" }, "찾은 문헌이 없습니다."));
  const list = el("ul", { id: "review-external" });
  for (const e of external) {
    const li = el("li");
    li.append(refNode(e.ref), document.createTextNode(" " + (e.title || "")),
      el("span", { class: "muted" }, ` · ${e.source}`));
    list.append(li);
  }
  if (external.length) out.append(list);

  for (const [key, label] of Object.entries(SECTIONS)) {
    const claims = (result.critique || {})[key] || [];
    out.append(el("h3", {}, label));
    if (!claims.length) { out.append(el("p", { class: "muted" }, "해당 없음")); continue; }
    const ul = el("ul", { class: "claims", "data-section": key });
    for (const c of claims) {
      const li = el("li", {}, c.text);
      for (const r of c.refs || []) li.append(refNode(r));
      ul.append(li);
    }
    out.append(ul);
  }
  const v = result.verification || {};
  out.append(el("h3", {}, "인용 검증"), el("p", {}, `${v.verdict || ""} ${(v.problems || []).join("; ")}`.trim()));
  if (done) {
    out.append(el("p", { class: "muted" }, `bundle ${done.version} · ${done.elapsed_ms} ms`));
    $("bundle").textContent = "bundle " + done.version;
  }
}

async function review() {
  const kase = {};
  for (const part of CASE_PARTS) {
    const value = $("case-" + part).value.trim();
    if (value) kase[part] = value;
  }
  if (!kase.summary || $("case-submit").disabled) return;
  $("case-submit").disabled = true;
  $("review-steps").replaceChildren(el("li", { id: "review-running", class: "running" }, "검토 진행 중"));
  const out = $("review-result");
  out.replaceChildren(el("p", { class: "muted" }, "검토 중…"));
  let result = null;
  try {
    const response = await fetch("/v1/critique", {
      method: "POST", headers: headers(), body: JSON.stringify({ case: kase, stream: true }),
    });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(`${response.status}: ${body.detail || response.statusText}`);
    }
    for await (const [name, data] of sseEvents(response)) {
      if (name === "step") showStep(data.name, data);
      else if (name === "result") { result = data; showCritique(result, null); }
      else if (name === "done") { if (result) showCritique(result, data); }
      else if (name === "error") throw new Error(data.detail);
    }
    if (!result) throw new Error("the stream ended without a result");
  } catch (err) {
    out.replaceChildren(el("p", { class: "review-error" }, "오류: " + err.message));
  } finally {
    $("review-running").remove();
    $("case-submit").disabled = false;
  }
}

function init() {
  $("user-id").textContent = userId();
  $("api-key").value = localStorage.getItem("yaksa.apiKey") || "";
  $("api-key").addEventListener("change", (e) => localStorage.setItem("yaksa.apiKey", e.target.value.trim()));
  for (const t of ["sources", "web", "trace"]) $("tab-" + t).addEventListener("click", () => selectTab(t));
  $("mode-chat").addEventListener("click", () => selectMode("chat"));
  $("mode-review").addEventListener("click", () => selectMode("review"));
  if (location.hash === "#review") selectMode("review");
  $("case-form").addEventListener("submit", (e) => {
    e.preventDefault();
    review();
  });
  $("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (!q || $("send").disabled) return;
    $("question").value = "";
    ask(q);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("forget").addEventListener("click", async () => {
    const r = await fetch("/v1/profile/" + encodeURIComponent(userId()), { method: "DELETE", headers: headers() });
    const body = await r.json().catch(() => ({}));
    addMessage(r.ok ? "bot" : "bot error", r.ok ? (body.forgotten ? "기록을 삭제했습니다." : "저장된 기록이 없습니다.")
      : "삭제 실패: " + (body.detail || r.status));
  });
}

init();
