"""Where the LLM lives and which model plays which role, read from the environment.

Why environment variables: the same code runs offline here (no endpoint: every role uses its
offline fallback), against a local vLLM/llama.cpp/Ollama server, or against OpenAI, and the operator
switches between them without touching params.yaml. `YAKSA_LLM_BASE_URL` unset means offline.

    YAKSA_LLM_BASE_URL        OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1
    YAKSA_LLM_API_KEY         bearer key (never logged; local servers ignore it)
    YAKSA_LLM_MODEL           default model for every role
    YAKSA_LLM_MODEL_<ROLE>    per-role override (ROUTER, GENERATOR, VERIFIER, CORRECTOR, JUDGE, REWRITER,
                              ANALYST, VALIDATOR, CRITIC)
    YAKSA_LLM_TIMEOUT         seconds per request (default 20)
    YAKSA_LLM_MAX_RETRIES     retries after the first try on timeouts, 5xx and 429 (default 2)
    YAKSA_LLM_BACKOFF         first backoff in seconds, doubled per retry (default 0.5)
    YAKSA_LLM_PRICE_IN        price per 1k prompt tokens (default 0)
    YAKSA_LLM_PRICE_OUT       price per 1k completion tokens (default 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from yaksa import environment

# the last three play the M&M case critique (yaksa.critique): clinical analysis, case validation, the critique
ROLES: tuple[str, ...] = ("router", "generator", "verifier", "corrector", "judge", "rewriter",
                          "analyst", "validator", "critic")
ENV_PREFIX = "YAKSA_LLM_"


@dataclass(frozen=True)
class LLMConfig:
    """Endpoint, per-role models and call policy. `configured` is False when there is no endpoint."""

    base_url: str | None = None
    api_key: str = field(default="not-needed", repr=False)
    model: str | None = None
    role_models: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 20.0
    max_retries: int = 2
    backoff_s: float = 0.5
    price_in_per_1k: float = 0.0
    price_out_per_1k: float = 0.0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.role_models) - set(ROLES))
        if unknown:
            raise ValueError(f"role_models: unknown roles {unknown}; expected some of {ROLES}")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {self.backoff_s}")
        if self.price_in_per_1k < 0 or self.price_out_per_1k < 0:
            raise ValueError("prices per 1k tokens must be >= 0")
        if self.configured:
            missing = [r for r in ROLES if not (self.role_models.get(r) or self.model)]
            if missing:
                raise ValueError(
                    f"{ENV_PREFIX}BASE_URL is set but no model is configured for roles {missing}: "
                    f"set {ENV_PREFIX}MODEL or {ENV_PREFIX}MODEL_<ROLE>"
                )

    @property
    def configured(self) -> bool:
        return bool(self.base_url)

    def model_for(self, role: str) -> str:
        """The model that plays `role` (its override, else the default model)."""
        if role not in ROLES:
            raise ValueError(f"unknown LLM role {role!r}; expected one of {ROLES}")
        model = self.role_models.get(role) or self.model
        if not model:
            raise ValueError(f"no model configured for role {role!r} (the LLM endpoint is not configured)")
        return model

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens / 1000 * self.price_in_per_1k + completion_tokens / 1000 * self.price_out_per_1k

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig:
        """Read the `YAKSA_LLM_*` variables (from `os.environ` unless `env` is given)."""
        env = environment.environ() if env is None else env

        def number(name: str, default: float, kind: type = float) -> float:
            raw = env.get(ENV_PREFIX + name, "").strip()
            if not raw:
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ValueError(f"{ENV_PREFIX}{name} must be a {kind.__name__}, got {raw!r}") from None

        roles = {r: env[f"{ENV_PREFIX}MODEL_{r.upper()}"].strip() for r in ROLES
                 if env.get(f"{ENV_PREFIX}MODEL_{r.upper()}", "").strip()}  # fmt: skip
        return cls(
            base_url=env.get(ENV_PREFIX + "BASE_URL", "").strip().rstrip("/") or None,
            api_key=env.get(ENV_PREFIX + "API_KEY", "").strip() or "not-needed",
            model=env.get(ENV_PREFIX + "MODEL", "").strip() or None,
            role_models=roles,
            timeout_s=number("TIMEOUT", 20.0),
            max_retries=int(number("MAX_RETRIES", 2, int)),
            backoff_s=number("BACKOFF", 0.5),
            price_in_per_1k=number("PRICE_IN", 0.0),
            price_out_per_1k=number("PRICE_OUT", 0.0),
        )
