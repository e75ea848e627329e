"""The LLM-judged metrics run the real ragas metrics and instructor/openai client against the fake
OpenAI server: scripted statement, verdict and question replies give known scores."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ragas")

from ragas import __version__ as RAGAS_VERSION
from ragas.metrics.collections.answer_relevancy.util import AnswerRelevanceOutput
from ragas.metrics.collections.faithfulness.util import NLIStatementOutput, StatementGeneratorOutput
from ragas.prompt.metrics.base_prompt import BasePrompt

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.evaluation import judge as J
from yaksa.evaluation.judge import JudgeInput, JudgeOutcome
from yaksa.llm.config import LLMConfig

# instructor's JSON mode puts the output schema (with the model's docstring) in the system message
STATEMENTS = StatementGeneratorOutput.model_json_schema()["description"]
VERDICTS = NLIStatementOutput.model_json_schema()["description"]
QUESTIONS = AnswerRelevanceOutput.model_json_schema()["description"]
TRANSLATION = "Response model for translation"

QUESTION = "타이레놀 하루 최대 용량"
ANSWER = "타이레놀은 하루 최대 4그램까지 복용할 수 있습니다. 술과 함께 먹지 마세요. 두통에 효과가 있습니다."
CONTEXTS = ["1일 최대 4그램(8정)을 초과하여 복용하지 마십시오.", "이 약은 두통, 치통, 발열에 사용합니다."]
HANGUL = re.compile(r"[가-힣]")


class VocabEmbedder:
    """A deterministic bag-of-words query embedder over a fixed vocabulary (no hash collisions)."""

    VOCAB = ("타이레놀", "하루", "최대", "용량", "복용", "횟수", "이부프로펜", "부작용")

    def embed_query(self, text: str) -> np.ndarray:
        tokens = re.findall(r"\w+", text)
        return np.array([tokens.count(word) for word in self.VOCAB], dtype=np.float32)


def statements(*texts: str) -> Reply:
    return Reply.json({"statements": list(texts)})


def verdicts(*marks: int) -> Reply:
    return Reply.json(
        {"statements": [{"statement": f"s{i}", "reason": "r", "verdict": v} for i, v in enumerate(marks)]}
    )


def question(text: str, noncommittal: int = 0) -> Reply:
    return Reply.json({"question": text, "noncommittal": noncommittal})


def item(item_id: str = "q1", **overrides: Any) -> JudgeInput:
    fields = {"item_id": item_id, "question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS}
    return JudgeInput(**{**fields, **overrides})


def make(fake: FakeOpenAI, **kwargs: Any) -> J.Judge:
    config = LLMConfig(base_url=fake.base_url, model="evaluator", max_retries=0, timeout_s=10)
    return J.make_judge(config, VocabEmbedder(), **kwargs)


def script_good(fake: FakeOpenAI) -> None:
    """Faithfulness 2/3; answer relevancy: the same question every time (cosine 1)."""
    fake.on(STATEMENTS, statements("a", "b", "c"))
    fake.on(VERDICTS, verdicts(1, 1, 0))
    fake.on(QUESTIONS, question(QUESTION))


def responder(
    rules: dict[str, Callable[[dict[str, Any]], Reply]],
) -> Callable[[dict[str, Any]], Reply | None]:
    """Dispatch on which prompt a request carries (by its schema marker in the system message)."""

    def choose(body: dict[str, Any]) -> Reply | None:
        system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
        for marker, reply in rules.items():
            if marker in system:
                return reply(body)
        return None

    return choose


def cycle(*replies: Reply) -> Callable[[dict[str, Any]], Reply]:
    it: Iterator[Reply] = itertools.cycle(replies)
    return lambda body: next(it)


def user_texts(fake: FakeOpenAI, marker: str) -> list[str]:
    found = []
    for body in fake.requests:
        system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
        if marker in system:
            found.extend(m["content"] for m in body["messages"] if m["role"] == "user")
    return found


@pytest.fixture()
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


# --- scores from scripted replies -----------------------------------------------------------------


def test_faithfulness_is_the_share_of_supported_statements(fake: FakeOpenAI) -> None:
    script_good(fake)
    out = J.judge_items_sync([item()], make(fake), k=3)
    assert out.raw["q1"]["faithfulness"] == [2 / 3] * 3
    assert out.scores["q1"]["faithfulness"] == pytest.approx(0.6666667)
    assert out.scores["q1"]["answer_relevancy"] == pytest.approx(1.0)
    assert out.nan_rate == {"faithfulness": 0.0, "answer_relevancy": 0.0}
    assert out.ok and out.errors == [] and out.skipped == []
    # the verdict prompt carries the contexts the generator saw
    nli = user_texts(fake, VERDICTS)
    assert len(nli) == 3 and all(c in nli[0] for c in CONTEXTS)
    assert len(fake.requests) == 3 * (2 + J.ANSWER_RELEVANCY_STRICTNESS)


def test_answer_relevancy_is_the_mean_cosine_of_generated_questions() -> None:
    # question "타이레놀 하루 최대 용량": cosines 1 (same words), 0.5 (2 of 4 shared), 0 (none shared)
    gen = cycle(
        question("타이레놀 하루 최대 용량?"),
        question("타이레놀 하루 복용 횟수?"),
        question("이부프로펜 부작용?"),
    )
    rules = {QUESTIONS: gen, STATEMENTS: lambda b: statements("a"), VERDICTS: lambda b: verdicts(1)}
    with FakeOpenAI(responder=responder(rules)) as fake:
        out = J.judge_items_sync([item()], make(fake), k=1, concurrency=1)
    assert out.raw["q1"]["answer_relevancy"] == [pytest.approx(0.5)]
    assert out.scores["q1"]["faithfulness"] == 1.0


def test_noncommittal_answers_score_zero_relevancy() -> None:
    rules = {QUESTIONS: lambda b: question(QUESTION, noncommittal=1), STATEMENTS: lambda b: statements("a"),
             VERDICTS: lambda b: verdicts(0)}  # fmt: skip
    with FakeOpenAI(responder=responder(rules)) as fake:
        out = J.judge_items_sync([item()], make(fake), k=1)
    assert out.scores["q1"] == {"faithfulness": 0.0, "answer_relevancy": 0.0}


def test_k_scores_are_averaged(fake: FakeOpenAI) -> None:
    fake.on(STATEMENTS, statements("a", "b", "c"))
    fake.on(VERDICTS, verdicts(1, 1, 1), verdicts(1, 0, 0), verdicts(0, 0, 0))
    fake.on(QUESTIONS, question(QUESTION))
    out = J.judge_items_sync([item()], make(fake), k=3, concurrency=1)
    assert sorted(out.raw["q1"]["faithfulness"]) == pytest.approx([0.0, 1 / 3, 1.0])
    assert out.scores["q1"]["faithfulness"] == pytest.approx(4 / 9)
    assert out.means() == pytest.approx({"faithfulness": 4 / 9, "answer_relevancy": 1.0})


def test_one_judge_serves_several_sync_runs(fake: FakeOpenAI) -> None:
    # an async client is bound to the event loop that first used it: each run must open its own
    script_good(fake)
    judge = make(fake)
    first = J.judge_items_sync([item()], judge, k=1)
    second = J.judge_items_sync([item()], judge, k=1)
    assert first.scores == second.scores and second.error_count == 0


# --- failures are NaN, never a crash --------------------------------------------------------------


def test_malformed_json_is_nan_and_fails_the_run(fake: FakeOpenAI) -> None:
    fake.on(STATEMENTS, statements("a", "b"))
    fake.on(VERDICTS, Reply("{not json"))
    fake.on(QUESTIONS, question(QUESTION))
    out = J.judge_items_sync([item("a"), item("b")], make(fake), k=2)
    assert all(math.isnan(v) for i in "ab" for v in out.raw[i]["faithfulness"])
    assert math.isnan(out.scores["a"]["faithfulness"]) and out.scores["a"][
        "answer_relevancy"
    ] == pytest.approx(1.0)
    assert out.nan_rate == {"faithfulness": 1.0, "answer_relevancy": 0.0}
    assert out.nan_rate_overall == 0.5 and not out.ok
    assert out.error_count == 4 and len(out.errors) == 4 and out.errors[0].startswith("a/faithfulness: ")
    # one re-ask per unparseable reply, then NaN
    assert sum(VERDICTS in b["messages"][0]["content"] for b in fake.requests) == 4 * (1 + J.PARSE_REASKS)
    assert (
        "InstructorRetryException <- ValidationError: 1 validation error for NLIStatementOutput"
        in out.errors[0]
    )
    assert out.to_dict()["scores"]["a"]["faithfulness"] is None
    json.dumps(out.to_dict(), allow_nan=False)


def test_http_500_is_nan_and_some_failures_are_averaged_away(fake: FakeOpenAI) -> None:
    fake.on(STATEMENTS, statements("a"))
    fake.on(VERDICTS, verdicts(1))
    fake.on(QUESTIONS, Reply.error(500), question(QUESTION))  # only the very first call fails
    items = [item(f"q{i}") for i in range(9)]
    out = J.judge_items_sync(items, make(fake, strictness=1), k=3, concurrency=8)
    failed = [(i, v) for i, s in out.raw.items() for v in s["answer_relevancy"] if math.isnan(v)]
    assert len(failed) == 1
    item_id = failed[0][0]
    assert out.scores[item_id]["answer_relevancy"] == pytest.approx(1.0)  # the 2 good scores of 3
    assert out.nan_rate_overall == pytest.approx(1 / 54) and out.ok  # 1 of 54 scores <= 2 %
    assert "500" in out.errors[0] and "InternalServerError" in out.errors[0]


def test_an_item_whose_k_scores_all_fail_stays_nan(fake: FakeOpenAI) -> None:
    fake.on(STATEMENTS, statements("a"))
    fake.on(VERDICTS, verdicts(1))
    fake.on(QUESTIONS, Reply.error(500))
    out = J.judge_items_sync([item()], make(fake), k=3)
    assert math.isnan(out.scores["q1"]["answer_relevancy"]) and out.scores["q1"]["faithfulness"] == 1.0
    assert math.isnan(out.means()["answer_relevancy"]) and out.error_count == 3


def test_a_timeout_is_nan(fake: FakeOpenAI) -> None:
    fake.on(STATEMENTS, statements("a"))
    fake.on(VERDICTS, verdicts(1))
    fake.on(QUESTIONS, Reply.hang(30))
    config = LLMConfig(base_url=fake.base_url, model="evaluator", max_retries=0, timeout_s=0.5)
    out = J.judge_items_sync([item()], J.make_judge(config, VocabEmbedder(), strictness=1), k=1)
    assert math.isnan(out.scores["q1"]["answer_relevancy"]) and out.scores["q1"]["faithfulness"] == 1.0
    assert "APITimeoutError" in out.errors[0]


def test_ok_allows_at_most_two_percent_nan() -> None:
    def outcome(share: float) -> JudgeOutcome:
        return JudgeOutcome("m", 3, {}, {}, {}, share, [], [], 0)

    assert J.MAX_NAN_SHARE == 0.02
    assert outcome(0.0).ok and outcome(0.02).ok and not outcome(0.0201).ok


# --- what is (not) judged -------------------------------------------------------------------------


def test_items_without_answer_or_contexts_are_skipped_not_nan(fake: FakeOpenAI) -> None:
    script_good(fake)
    items = [
        item("ok"),
        item("refusal", answer="  "),
        item("no-ctx", contexts=[]),
        item("blank-ctx", contexts=[" "]),
    ]
    out = J.judge_items_sync(items, make(fake), k=1)
    assert out.skipped == ["refusal", "no-ctx", "blank-ctx"]
    assert list(out.scores) == ["ok"] and out.nan_rate_overall == 0.0
    assert len(fake.requests) == 2 + J.ANSWER_RELEVANCY_STRICTNESS


def test_duplicate_item_ids_are_rejected(fake: FakeOpenAI) -> None:
    with pytest.raises(ValueError, match="unique"):
        J.judge_items_sync([item("x"), item("x")], make(fake), k=1)


def test_judge_from_env() -> None:
    embedder = VocabEmbedder()
    assert J.judge_from_env(embedder, env={}) is None
    assert "YAKSA_LLM_BASE_URL" in J.NOT_RUN_MESSAGE
    env = {"YAKSA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "YAKSA_LLM_MODEL": "small"}
    judge = J.judge_from_env(embedder, env=env)
    assert judge is not None and judge.model == "small" and judge.prompts is not None
    assert judge.config.timeout_s == J.JUDGE_MIN_TIMEOUT_S and judge.config.max_retries == 2
    judge = J.judge_from_env(embedder, env={**env, "YAKSA_LLM_MODEL_EVALUATOR": "big"}, prompts_path=None)
    assert judge is not None and judge.model == "big" and judge.prompts is None
    assert isinstance(judge.embeddings, J.QueryEmbeddings)
    assert judge.embeddings.embed_texts(["타이레놀 하루"]) == [[1.0, 1.0, 0, 0, 0, 0, 0, 0]]


# --- Korean prompts -------------------------------------------------------------------------------


def test_committed_korean_prompts_are_sent(fake: FakeOpenAI) -> None:
    script_good(fake)
    J.judge_items_sync([item()], make(fake), k=1)
    assert "알베르트 아인슈타인은 독일 태생의 이론물리학자였습니다." in user_texts(fake, STATEMENTS)[0]
    assert "존은 생물학을 전공하고 있습니다." in user_texts(fake, VERDICTS)[0]
    assert "프랑스의 수도는 어디입니까?" in user_texts(fake, QUESTIONS)[0]
    assert "Albert Einstein" not in "".join(m["content"] for b in fake.requests for m in b["messages"])


def test_english_prompts_when_asked(fake: FakeOpenAI) -> None:
    script_good(fake)
    J.judge_items_sync([item()], make(fake, prompts_path=None), k=1)
    assert "Albert Einstein was a German-born theoretical physicist." in user_texts(fake, STATEMENTS)[0]
    assert not HANGUL.search(user_texts(fake, STATEMENTS)[0].split("-----------------------------")[0])


def _leaves(obj: Any) -> list[Any]:
    if isinstance(obj, dict):  # in key order: the committed file is written with sorted keys
        return [x for _, v in sorted(obj.items()) for x in _leaves(v)]
    if isinstance(obj, list | tuple):
        return [x for v in obj for x in _leaves(v)]
    return [obj]


def test_committed_prompts_validate_and_translate_ragas_examples_faithfully() -> None:
    doc = json.loads(J.PROMPTS_PATH.read_text("utf-8"))
    assert doc["ragas_version"] == RAGAS_VERSION, "ragas changed: regenerate prompts_ko.json"
    assert "hand translation" in doc["generated_by"] and doc["adapt_instruction"] is False
    data = J.load_prompts()
    for metric, prompts in J.PROMPT_CLASSES.items():
        for attr, cls in prompts.items():
            english, korean = cls(), data[metric][attr]
            assert korean["language"] == "korean" and korean["instruction"] == english.instruction
            assert len(korean["examples"]) == len(english.examples)
            for (inp, out), pair in zip(english.examples, korean["examples"], strict=True):
                en, ko = _leaves([inp.model_dump(), out.model_dump()]), _leaves(pair)
                assert len(en) == len(ko)
                for e, k in zip(en, ko, strict=True):  # every string translated, verdicts/flags kept
                    assert (
                        (isinstance(k, str) and HANGUL.search(k) and k != e) if isinstance(e, str) else k == e
                    )
    nli_in, nli_out = data["faithfulness"]["nli_statement_prompt"]["examples"][0]
    assert [s["statement"] for s in nli_out["statements"]] == nli_in["statements"]  # word-by-word


def metrics_on(fake: FakeOpenAI, **kwargs: Any) -> dict[str, Any]:
    judge = make(fake, **kwargs)
    return J.build_metrics(J.ragas_llm(J.async_client(judge.config), judge.model), judge)


def test_prompt_registry_matches_the_metrics(fake: FakeOpenAI) -> None:
    for name, metric in metrics_on(fake).items():
        found = {a for a, v in vars(metric).items() if isinstance(v, BasePrompt)}
        assert found == set(J.PROMPT_CLASSES[name]), name


def test_apply_prompts_rejects_bad_data_and_leaves_the_metric_alone(fake: FakeOpenAI) -> None:
    metric = metrics_on(fake, prompts_path=None)["answer_relevancy"]
    data = J.load_prompts()
    bad = json.loads(json.dumps(data))
    bad["answer_relevancy"]["prompt"]["examples"][0][1]["noncomittal"] = 0  # typo: not a field of the model
    with pytest.raises(ValueError, match="fields or types"):
        J.apply_prompts(metric, bad)
    del bad["answer_relevancy"]["prompt"]["examples"][0][1]["noncommittal"]
    with pytest.raises(ValueError, match="does not fit"):
        J.apply_prompts(metric, bad)
    with pytest.raises(ValueError, match="do not match"):
        J.apply_prompts(metric, {"answer_relevancy": {"other_prompt": {}}})
    assert metric.prompt.language == "english" and "Albert" in metric.prompt.examples[0][0].response
    J.apply_prompts(metric, data)
    assert metric.prompt.language == "korean" and HANGUL.search(metric.prompt.examples[0][0].response)


def test_adapt_prompts_translates_every_example_string_through_the_llm(tmp_path: Path) -> None:
    def translate(body: dict[str, Any]) -> Reply:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        strings = json.loads(user.split("Statements to translate:\n", 1)[1])
        return Reply.json({"statements": [f"번역: {s}" for s in strings]})

    with FakeOpenAI(responder=responder({TRANSLATION: translate})) as fake:
        config = LLMConfig(base_url=fake.base_url, model="translator", max_retries=0)
        data = J.adapt_prompts_sync(config, "translator")
    assert len(fake.requests) == 3  # one batch per prompt
    ar = data["answer_relevancy"]["prompt"]
    assert ar["language"] == "korean" and ar["examples"][0][1] == {
        "question": "번역: Where was Albert Einstein born?", "noncommittal": 0}  # fmt: skip
    assert ar["instruction"].startswith("Generate a question")  # instructions stay English
    path = tmp_path / "prompts.json"
    J.save_prompts(path, data, generated_by="test")
    assert J.load_prompts(path) == data
    assert json.loads(path.read_text("utf-8"))["ragas_version"] == RAGAS_VERSION
