# gno — developer entry points. `make run` and `make test` work on a fresh checkout.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1

PORT ?= 3000

.PHONY: run test install browser constraints generate check-generated lint unit contract soak bench clean snapshots

# Exact versions from constraints.txt; pyproject.toml holds compatible ranges. The
# office extra (markitdown) is optional for users but installed here for the tests.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,models,office]'
	touch $(STAMP)

install: $(STAMP)

# Chromium for the Web UI browser tests (Debian's package; Playwright's own download is not
# used). Installed when missing and we are root; otherwise those tests skip and say why.
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] \
		|| apt-get install -y -qq chromium >/dev/null 2>&1 \
		|| { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; } \
		|| echo "make browser: could not install chromium; the Web UI tests will skip"

# Rewrite constraints.txt from the venv after changing a dependency in pyproject.toml.
constraints: $(STAMP)
	{ sed -n '1,2p' constraints.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v '^gno=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

generate: $(STAMP)
	$(BIN)/python schemas/generate.py
	$(BIN)/python -m gno.rest.apidoc

check-generated: $(STAMP)
	$(BIN)/python schemas/generate.py --check
	$(BIN)/python -m gno.rest.apidoc --check

# Rewrite contract-tests/snapshots/ (MCP tool lists, OpenAPI, CLI --help) after a deliberate
# change of the public surface; contract-tests/test_snapshots.py compares against them.
snapshots: $(STAMP)
	$(BIN)/python contract-tests/snapshots.py --update

lint: $(STAMP)
	$(BIN)/ruff check gno schemas tests contract-tests bench
	$(BIN)/ruff format --check gno schemas tests contract-tests bench
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -n 2 --dist worksteal tests

contract: $(STAMP) browser
	$(BIN)/pytest -n 2 --dist worksteal contract-tests

# worksteal: an idle worker takes tests queued on the other, so the run does not end on one core.
test: check-generated lint browser
	$(BIN)/pytest -n 2 --dist worksteal

# The long runs `make test` leaves out (pytest marker `soak`): kill -9 of `gno update` and
# `gno serve` at random points (GNO_SOAK_KILLS, default 24), thousands of mixed requests
# against a real server (GNO_SOAK_REQUESTS, default 3000). GNO_SOAK_SEED replays a run.
soak: $(STAMP)
	GNO_SOAK=1 $(BIN)/pytest -m soak -s

# Index a demo collection (this project's spec/ and README) and search it.
run: $(STAMP)
	@export GNO_CONFIG_DIR=$(CURDIR)/.demo/config GNO_DATA_DIR=$(CURDIR)/.demo/data GNO_CACHE_DIR=$(CURDIR)/.demo/cache; \
	$(BIN)/gno init --yes >/dev/null; \
	$(BIN)/gno collection list --json | grep -q '"demo"' || $(BIN)/gno collection add $(CURDIR) --name demo --pattern '{spec/**/*.md,README.md,ARCHITECTURE.md}'; \
	$(BIN)/gno update; \
	echo; echo '$$ gno search "mirror line numbers"'; \
	$(BIN)/gno search "mirror line numbers"; \
	echo; echo 'Try more (same demo index, in another terminal):'; \
	echo '  export GNO_CONFIG_DIR=$(CURDIR)/.demo/config GNO_DATA_DIR=$(CURDIR)/.demo/data GNO_CACHE_DIR=$(CURDIR)/.demo/cache'; \
	echo '  $(BIN)/gno query "how are chunks split" --explain; $(BIN)/gno status; $(BIN)/gno --help'; \
	echo "  curl -s -X POST http://127.0.0.1:$(PORT)/api/search -d '{\"query\":\"mirror line numbers\"}'"; \
	echo; echo 'Serving the demo index (REST, /docs, MCP at /mcp) until Ctrl-C; PORT=0 picks a free port:'; \
	exec $(BIN)/gno serve --port $(PORT)

# bench/rest.py drives the load with wrk when it is on PATH (installed here only as root),
# else with its Python generator; a missing wrk never fails the bench.
# Each script prints its own table; bench/summary.py ends with every target of the run, by issue.
bench: $(STAMP)
	rm -f bench/results/verdicts.jsonl
	$(BIN)/python bench/run.py
	$(BIN)/python bench/scale.py
	@command -v wrk >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || apt-get install -y wrk >/dev/null 2>&1 \
		|| { apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1; } || true
	$(BIN)/python bench/rest.py
	$(BIN)/python bench/mcp_stdio.py
	$(MAKE) --no-print-directory browser
	$(BIN)/python bench/web.py
	$(BIN)/python bench/tokenizers.py
	$(BIN)/python bench/embed.py --windows 2
	$(BIN)/python bench/embed_reference.py
	$(BIN)/python bench/quality.py --targets
	$(BIN)/python bench/graph.py
	$(BIN)/python bench/writes.py
	$(BIN)/python bench/refactor.py
	$(BIN)/python bench/context.py
	$(BIN)/python bench/sdk.py
	$(BIN)/python bench/records.py
	$(BIN)/python bench/cli_start.py
	$(BIN)/python bench/egress.py
	$(BIN)/python bench/traces.py --corpus ../shared/corpora/opentelemetry-docs --rounds 400
	$(BIN)/python bench/audit.py
	$(BIN)/python bench/summary.py

clean:
	rm -rf .demo
