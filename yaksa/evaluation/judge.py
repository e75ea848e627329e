"""LLM-judged answer metrics for the nightly regression run: ragas faithfulness and answer relevancy.

Why ragas's *collections* metrics scored one item at a time: `ragas.evaluate()` is deprecated in
0.4.3 and only runs legacy metrics, while `metric.ascore(...)` scores one item, so a failure stays
with its item and is counted instead of aborting the run.

Why K scores per item: an LLM judge is noisy even near temperature 0 (the statement split varies),
so every item is scored K times per metric and the mean kept, NaN scores left out (all K NaN: the
item stays NaN). A failed score (malformed JSON after instructor's re-ask, HTTP 5xx after the SDK's
retries, a timeout) is NaN, never an exception. `nan_rate` is the NaN share of the raw scores (all
K of them, so an endpoint failing a third of its calls shows even when averaging hides it); the run
is `ok` while that share is at most MAX_NAN_SHARE, since a judge failing more often than that tells
more about the endpoint than about the answers. Items without an answer or contexts (out-of-scope
refusals) are `skipped`, neither scored nor NaN.

Why the LLM client is always built here: left alone, ragas would build its own OpenAI client from
OPENAI_API_KEY. The judge uses our endpoint (see yaksa.llm.config):
    YAKSA_LLM_BASE_URL, YAKSA_LLM_API_KEY, YAKSA_LLM_MAX_RETRIES (SDK retries)
    YAKSA_LLM_TIMEOUT          per request, raised to at least JUDGE_MIN_TIMEOUT_S for the judge
    YAKSA_LLM_MODEL_EVALUATOR  the judge model, read here because "evaluator" is not one of the
                               serving roles; unset: YAKSA_LLM_MODEL (else the "judge" role's model)
No YAKSA_LLM_BASE_URL: `judge_from_env()` returns None and the caller records NOT_RUN_MESSAGE.
A fresh AsyncOpenAI client is opened per `judge_items` run and closed after it, because an async
client's connection pool belongs to the event loop that first used it (a second `asyncio.run`
would fail every call).

Structured output: ragas's `llm_factory` patches the OpenAI client with instructor in Mode.JSON
(`response_format={"type": "json_object"}` plus the JSON schema in a system message), not tool
calls; vLLM, llama.cpp server, Ollama and OpenAI support it, and so does tests/fake_openai.py.

Korean prompts: the ragas prompts keep their English instructions (ragas's default
`adapt_instruction=False`: the instructions define the verdict/noncommittal semantics and sit next
to an English JSON schema, and translating them only risks drift) while their few-shot examples are
Korean, so the judge writes Korean statements and Korean questions for Korean answers (answer
relevancy compares those questions with the user's Korean question by embedding). They are
generated once with `adapt_prompts` and committed as prompts_ko.json (PROMPTS_PATH).

Importing this module imports ragas (seconds, langchain included): import it lazily.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

from yaksa.host import configure_offline_env

configure_offline_env()  # before ragas is imported: no telemetry

import numpy as np
import openai
from pydantic import ValidationError
from ragas import __version__ as RAGAS_VERSION
from ragas.embeddings.base import BaseRagasEmbedding
from ragas.llms import llm_factory
from ragas.llms.base import InstructorBaseRagasLLM
from ragas.metrics.collections import AnswerRelevancy, Faithfulness
from ragas.metrics.collections.answer_relevancy.util import AnswerRelevancePrompt
from ragas.metrics.collections.faithfulness.util import (
    NLIStatementPrompt,
    StatementGeneratorPrompt,
)
from ragas.prompt.metrics.base_prompt import BasePrompt

from yaksa import environment
from yaksa.atomicio import write_json
from yaksa.llm.config import ENV_PREFIX, LLMConfig

log = logging.getLogger(__name__)

EVALUATOR_MODEL_ENV = f"{ENV_PREFIX}MODEL_EVALUATOR"
FALLBACK_ROLE = "judge"  # whose model judges when neither the evaluator nor a default model is set
NOT_RUN_MESSAGE = f"LLM-judged metrics not run (no {ENV_PREFIX}BASE_URL)"

FAITHFULNESS = "faithfulness"
ANSWER_RELEVANCY = "answer_relevancy"
METRICS: tuple[str, ...] = (FAITHFULNESS, ANSWER_RELEVANCY)
DEFAULT_K = 3
DEFAULT_CONCURRENCY = 4
MAX_NAN_SHARE = 0.02
MAX_ERROR_EXAMPLES = 5
ANSWER_RELEVANCY_STRICTNESS = 3  # questions generated per answer-relevancy score (ragas default)
PARSE_REASKS = 1  # instructor re-asks after a reply that does not parse (its default is 3)
JUDGE_MAX_TOKENS = 2048  # ragas's 1024 can cut off NLI verdicts over many Korean statements
JUDGE_MIN_TIMEOUT_S = 120.0  # judge_from_env: a nightly judge waits longer than a served turn may

TARGET_LANGUAGE = "korean"
ADAPT_INSTRUCTION = False
PROMPTS_PATH = Path(__file__).with_name("prompts_ko.json")
# Every ragas prompt the two metrics use, by the metric attribute that holds it.
PROMPT_CLASSES: dict[str, dict[str, type[BasePrompt]]] = {
    FAITHFULNESS: {
        "statement_generator_prompt": StatementGeneratorPrompt,
        "nli_statement_prompt": NLIStatementPrompt,
    },
    ANSWER_RELEVANCY: {"prompt": AnswerRelevancePrompt},
}

# {metric: {prompt_attr: {"language": ..., "instruction": ..., "examples": [[input, output], ...]}}}
PromptData = dict[str, dict[str, dict[str, Any]]]


# --------------------------------------------------------------------------------------------- #
# Embeddings for answer relevancy
# --------------------------------------------------------------------------------------------- #


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


class QueryEmbeddings(BaseRagasEmbedding):
    """ragas's modern embedding interface over any `embed_query(text) -> vector` (a yaksa embedder).

    Answer relevancy embeds only questions (the user's and the generated ones), so the query side
    of an asymmetric model such as e5 is the right one for every text.
    """

    def __init__(self, embedder: QueryEmbedder) -> None:
        super().__init__(cache=None)
        self.embedder = embedder

    def embed_text(self, text: str, **kwargs: Any) -> list[float]:
        return np.asarray(self.embedder.embed_query(text), dtype=np.float64).reshape(-1).tolist()

    async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
        return await asyncio.to_thread(self.embed_text, text)


# --------------------------------------------------------------------------------------------- #
# Korean prompts: adapt once, commit, apply
# --------------------------------------------------------------------------------------------- #


def prompt_to_dict(prompt: BasePrompt) -> dict[str, Any]:
    return {
        "language": prompt.language,
        "instruction": prompt.instruction,
        "examples": [[inp.model_dump(), out.model_dump()] for inp, out in prompt.examples],
    }


async def adapt_prompts(
    llm: InstructorBaseRagasLLM, adapt_instruction: bool = ADAPT_INSTRUCTION
) -> PromptData:
    """Translate the examples of every prompt of both metrics to Korean with ragas's `adapt`."""
    data: PromptData = {}
    for metric, prompts in PROMPT_CLASSES.items():
        data[metric] = {}
        for attr, cls in prompts.items():
            adapted = await cls().adapt(TARGET_LANGUAGE, llm, adapt_instruction=adapt_instruction)
            data[metric][attr] = prompt_to_dict(adapted)
    return data


def save_prompts(
    path: Path, data: PromptData, generated_by: str, adapt_instruction: bool = ADAPT_INSTRUCTION
) -> None:
    """Validate `data` and write it with its provenance (who made it, with which ragas)."""
    validate_prompts(data)
    write_json(Path(path), {
        "generated_by": generated_by, "ragas_version": RAGAS_VERSION, "target_language": TARGET_LANGUAGE,
        "adapt_instruction": adapt_instruction, "metrics": data,
    })  # fmt: skip


def load_prompts(path: Path = PROMPTS_PATH) -> PromptData:
    """The committed prompts (`metrics` part), validated against the installed ragas prompt models."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("metrics"), dict):
        raise TypeError(f"{path}: expected an object with a 'metrics' object")
    if doc.get("ragas_version") != RAGAS_VERSION:
        log.warning("%s was made for ragas %s, ragas %s is installed: regenerate it (yaksa regress "
                    "adapt-prompts)", path, doc.get("ragas_version"), RAGAS_VERSION)  # fmt: skip
    data: PromptData = doc["metrics"]
    validate_prompts(data)
    return data


def apply_prompts(metric: Any, data: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
    """Set the language, instruction and examples of `data[metric.name]` on the metric's prompts.

    All prompts are validated (each example round-trips through the prompt's input/output pydantic
    models unchanged) before any is changed, so a bad file leaves the metric as it was.
    """
    name = metric.name
    if name not in data:
        raise KeyError(f"no prompts for metric {name!r} (have {sorted(data)})")
    entry = data[name]
    expected = set(PROMPT_CLASSES.get(name, {}))
    if set(entry) != expected:
        raise ValueError(
            f"{name}: prompts {sorted(entry)} do not match ragas's {sorted(expected)}; regenerate them"
        )
    updates = {
        attr: _validated(f"{name}.{attr}", getattr(metric, attr), spec) for attr, spec in entry.items()
    }
    for attr, (language, instruction, examples) in updates.items():
        prompt = getattr(metric, attr)
        prompt.language, prompt.instruction, prompt.examples = language, instruction, examples


def validate_prompts(data: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
    """Raise ValueError unless `data` covers every prompt of METRICS and fits their models."""
    if set(data) != set(METRICS):
        raise ValueError(f"prompts cover metrics {sorted(data)}, expected {sorted(METRICS)}")
    for metric, prompts in PROMPT_CLASSES.items():
        apply_prompts(SimpleNamespace(name=metric, **{attr: cls() for attr, cls in prompts.items()}), data)


def _validated(
    where: str, prompt: BasePrompt, spec: Mapping[str, Any]
) -> tuple[str, str, list[tuple[Any, Any]]]:
    try:
        language, instruction, raw = spec["language"], spec["instruction"], spec["examples"]
    except (KeyError, TypeError):
        raise ValueError(f"{where}: needs 'language', 'instruction' and 'examples'") from None
    if not (isinstance(language, str) and isinstance(instruction, str) and instruction.strip()):
        raise ValueError(f"{where}: 'language' and 'instruction' must be strings")
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{where}: 'examples' must be a non-empty list of [input, output] pairs")
    examples = []
    for i, pair in enumerate(raw):
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise ValueError(f"{where}: example {i} must be an [input, output] pair")
        try:
            inp, out = prompt.input_model.model_validate(pair[0]), prompt.output_model.model_validate(pair[1])
        except ValidationError as exc:
            raise ValueError(f"{where}: example {i} does not fit the prompt's models: {exc}") from None
        if inp.model_dump() != pair[0] or out.model_dump() != pair[1]:
            raise ValueError(f"{where}: example {i} has fields or types the prompt's models do not have")
        examples.append((inp, out))
    return language, instruction, examples


# --------------------------------------------------------------------------------------------- #
# The judge
# --------------------------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Judge:
    """Everything needed to build the two metrics inside a run's own event loop."""

    config: LLMConfig
    model: str
    embeddings: BaseRagasEmbedding
    prompts: PromptData | None = None  # None: ragas's English prompts
    strictness: int = ANSWER_RELEVANCY_STRICTNESS


def evaluator_model(config: LLMConfig, env: Mapping[str, str]) -> str:
    """YAKSA_LLM_MODEL_EVALUATOR, else YAKSA_LLM_MODEL, else the "judge" role's model."""
    return env.get(EVALUATOR_MODEL_ENV, "").strip() or config.model or config.model_for(FALLBACK_ROLE)


def make_judge(
    config: LLMConfig,
    embedder: QueryEmbedder | BaseRagasEmbedding,
    model: str | None = None,
    prompts_path: Path | None = PROMPTS_PATH,
    strictness: int = ANSWER_RELEVANCY_STRICTNESS,
) -> Judge:
    """A judge on `config`'s endpoint; `prompts_path=None` keeps ragas's English prompts."""
    if not config.configured:
        raise ValueError(f"the LLM endpoint is not configured ({ENV_PREFIX}BASE_URL)")
    if strictness < 1:
        raise ValueError(f"strictness must be >= 1, got {strictness}")
    embeddings = embedder if isinstance(embedder, BaseRagasEmbedding) else QueryEmbeddings(embedder)
    prompts = None if prompts_path is None else load_prompts(prompts_path)
    return Judge(config, model or evaluator_model(config, {}), embeddings, prompts, strictness)


def judge_from_env(
    embedder: QueryEmbedder | BaseRagasEmbedding,
    env: Mapping[str, str] | None = None,
    prompts_path: Path | None = PROMPTS_PATH,
) -> Judge | None:
    """The judge configured by the YAKSA_LLM_* variables, or None without YAKSA_LLM_BASE_URL.

    YAKSA_LLM_TIMEOUT is raised to at least JUDGE_MIN_TIMEOUT_S: it is tuned for interactive turns,
    while a judge call writes up to JUDGE_MAX_TOKENS tokens and nobody is waiting for it.
    """
    env = environment.environ() if env is None else env
    config = LLMConfig.from_env(env)
    if not config.configured:
        return None
    config = replace(config, timeout_s=max(config.timeout_s, JUDGE_MIN_TIMEOUT_S))
    return make_judge(config, embedder, evaluator_model(config, env), prompts_path)


def async_client(config: LLMConfig) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client on our endpoint (the SDK retries timeouts, 5xx and 429 itself)."""
    return openai.AsyncOpenAI(base_url=config.base_url, api_key=config.api_key,
                              timeout=config.timeout_s, max_retries=config.max_retries)  # fmt: skip


def ragas_llm(client: openai.AsyncOpenAI, model: str) -> InstructorBaseRagasLLM:
    """ragas's instructor LLM over `client` (Mode.JSON, PARSE_REASKS re-asks)."""
    return llm_factory(
        model, provider="openai", client=client, max_retries=PARSE_REASKS, max_tokens=JUDGE_MAX_TOKENS
    )


def build_metrics(llm: InstructorBaseRagasLLM, judge: Judge) -> dict[str, Any]:
    metrics: dict[str, Any] = {
        FAITHFULNESS: Faithfulness(llm=llm),
        ANSWER_RELEVANCY: AnswerRelevancy(llm=llm, embeddings=judge.embeddings, strictness=judge.strictness),
    }
    if judge.prompts is not None:
        for metric in metrics.values():
            apply_prompts(metric, judge.prompts)
    return metrics


# --------------------------------------------------------------------------------------------- #
# Scoring
# --------------------------------------------------------------------------------------------- #


@dataclass(frozen=True)
class JudgeInput:
    """One answered question; `contexts` is exactly the text the generator saw."""

    item_id: str
    question: str
    answer: str
    contexts: list[str] = field(default_factory=list)

    @property
    def judgeable(self) -> bool:
        return bool(self.answer.strip()) and any(c.strip() for c in self.contexts)


@dataclass(frozen=True)
class JudgeOutcome:
    """Per-item means and raw scores, NaN shares and example errors of one judged run."""

    model: str
    k: int
    scores: dict[str, dict[str, float]]  # item_id -> metric -> mean of its K scores (NaN: all K failed)
    raw: dict[str, dict[str, list[float]]]  # item_id -> metric -> the K scores
    nan_rate: dict[str, float]  # metric -> NaN share of its raw scores
    nan_rate_overall: float
    skipped: list[str]  # no answer or no contexts: not judged
    errors: list[str]  # up to MAX_ERROR_EXAMPLES messages
    error_count: int

    @property
    def ok(self) -> bool:
        return self.nan_rate_overall <= MAX_NAN_SHARE

    def means(self) -> dict[str, float]:
        """Per metric, the mean of the item means (NaN items left out; NaN if none is left)."""
        return {m: _nanmean([s[m] for s in self.scores.values()]) for m in METRICS}

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (NaN becomes null)."""
        return _json_safe({
            "model": self.model, "k": self.k, "ok": self.ok, "max_nan_share": MAX_NAN_SHARE,
            "nan_rate": self.nan_rate, "nan_rate_overall": self.nan_rate_overall, "means": self.means(),
            "scores": self.scores, "raw": self.raw, "skipped": self.skipped,
            "errors": self.errors, "error_count": self.error_count,
        })  # fmt: skip


def _nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float):
        return None if math.isnan(obj) else obj
    if isinstance(obj, Mapping):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_json_safe(v) for v in obj]
    return obj


def _metric_kwargs(metric: str, item: JudgeInput) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"user_input": item.question, "response": item.answer}
    if metric == FAITHFULNESS:
        kwargs["retrieved_contexts"] = [c for c in item.contexts if c.strip()]
    return kwargs


def _describe(exc: BaseException) -> str:
    """One line; for a wrapped error (instructor's retry exception) its cause's message."""
    root = exc.__cause__ or exc
    name = type(exc).__name__ if root is exc else f"{type(exc).__name__} <- {type(root).__name__}"
    text = re.sub(r"\s+", " ", str(root)).strip()
    return f"{name}: {text[:200]}"


async def _score_once(
    metric: Any, kwargs: dict[str, Any], gate: asyncio.Semaphore
) -> tuple[float, str | None]:
    async with gate:
        try:
            result = await metric.ascore(**kwargs)
            value = result.value
            return (math.nan if value is None else float(value)), None
        except Exception as exc:  # noqa: BLE001 - any ragas / instructor / HTTP failure is one NaN score
            return math.nan, _describe(exc)


async def judge_items(
    items: Sequence[JudgeInput],
    judge: Judge,
    k: int = DEFAULT_K,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> JudgeOutcome:
    """Score every judgeable item K times per metric (at most `concurrency` scores at a time)."""
    if k < 1 or concurrency < 1:
        raise ValueError(f"k and concurrency must be >= 1, got k={k}, concurrency={concurrency}")
    ids = [item.item_id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("item ids must be unique")
    todo = [item for item in items if item.judgeable]
    skipped = [item.item_id for item in items if not item.judgeable]

    client = async_client(judge.config)
    try:
        metrics = build_metrics(ragas_llm(client, judge.model), judge)
        gate = asyncio.Semaphore(concurrency)
        jobs = [(item, name) for item in todo for name in METRICS for _ in range(k)]
        results = await asyncio.gather(
            *(_score_once(metrics[name], _metric_kwargs(name, item), gate) for item, name in jobs)
        )
    finally:
        await client.close()

    raw: dict[str, dict[str, list[float]]] = {item.item_id: {m: [] for m in METRICS} for item in todo}
    errors: list[str] = []
    for (item, name), (value, error) in zip(jobs, results, strict=True):
        raw[item.item_id][name].append(value)
        if error is not None:
            errors.append(f"{item.item_id}/{name}: {error}")
    if errors:
        log.warning("judge: %d of %d scores failed, e.g. %s", len(errors), len(jobs), errors[0])

    def nan_share(values: list[float]) -> float:
        return sum(math.isnan(v) for v in values) / len(values) if values else 0.0

    per_metric = {m: [v for scores in raw.values() for v in scores[m]] for m in METRICS}
    return JudgeOutcome(
        model=judge.model,
        k=k,
        scores={i: {m: _nanmean(v) for m, v in scores.items()} for i, scores in raw.items()},
        raw=raw,
        nan_rate={m: nan_share(v) for m, v in per_metric.items()},
        nan_rate_overall=nan_share([v for values in per_metric.values() for v in values]),
        skipped=skipped,
        errors=errors[:MAX_ERROR_EXAMPLES],
        error_count=len(errors),
    )


def judge_items_sync(
    items: Sequence[JudgeInput],
    judge: Judge,
    k: int = DEFAULT_K,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> JudgeOutcome:
    """`judge_items` for synchronous callers (the CLI); not from inside a running event loop."""
    return asyncio.run(judge_items(items, judge, k, concurrency))


def adapt_prompts_sync(
    config: LLMConfig, model: str, adapt_instruction: bool = ADAPT_INSTRUCTION
) -> PromptData:
    """`adapt_prompts` against `config`'s endpoint for synchronous callers (the CLI)."""

    async def run() -> PromptData:
        client = async_client(config)
        try:
            return await adapt_prompts(ragas_llm(client, model), adapt_instruction)
        finally:
            await client.close()

    return asyncio.run(run())
