# One command each: `make run` creates .venv and installs what the agent runs with, `make test` adds the test and docs tools.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
SUM     = $(shell cat pyproject.toml Makefile | cksum | cut -d' ' -f1)
STAMP   = $(VENV)/.installed-$(SUM)
DEVSTAMP = $(VENV)/.devtools-$(SUM)

export HF_HUB_OFFLINE = 1
export TRANSFORMERS_OFFLINE = 1
export TOKENIZERS_PARALLELISM = false

# llama-cpp-python compiles llama.cpp from its sdist; build only what its Python bindings load
# (libllama and ggml, tuned for this CPU): no multimodal library (mtmd), no tests, examples,
# tools or server binaries (the server is llama_cpp.server, in Python), and not llama.cpp's
# `common` library, which the bindings never load (cmake/llama_cpp_minimal.cmake turns it off
# where llama-cpp-python forces it on).  docs/performance.md has the times.
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DGGML_NATIVE=ON \
	-DCMAKE_PROJECT_INCLUDE=$(CURDIR)/cmake/llama_cpp_minimal.cmake
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: install devtools run test lint docs bench doctor clean minedojo-env mineflayer

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# llama-cpp-python as pyproject.toml's `local` extra names it (declared there once)
LLAMA_REQ = $(shell sed -n 's/.*"\(llama-cpp-python[^"]*\)".*/\1/p' pyproject.toml)
WHEELS    = $(VENV)/wheels

$(STAMP): $(BIN)/python pyproject.toml Makefile
	# llama-cpp-python compiles llama.cpp (CMAKE_ARGS above), about 3 minutes on 2 cores and most of
	# the install: its wheel builds in the background while the rest, mostly downloads, installs;
	# torch pinned first: 2.13.0 is the CPU build (a plain `torch` can pull a multi-GB CUDA build)
	@echo "building llama.cpp for llama-cpp-python in the background (log: $(VENV)/llama-build.log)"
	@rm -rf $(WHEELS); mkdir -p $(WHEELS); \
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir $(WHEELS) '$(LLAMA_REQ)' >$(VENV)/llama-build.log 2>&1 & build=$$!; \
	trap 'kill $$build 2>/dev/null' EXIT; \
	$(BIN)/pip install --quiet torch==2.13.0 && $(BIN)/pip install --quiet -e . || exit 1; \
	echo "waiting for llama.cpp's build"; \
	wait $$build || { tail -20 $(VENV)/llama-build.log; echo "building $(LLAMA_REQ) failed: $(VENV)/llama-build.log has the whole log"; exit 1; }
	$(BIN)/pip install --quiet --find-links $(WHEELS) -e '.[local]'
	# evaluate the DEPS planner's fixed prompt part once and save its state, so that the first
	# `deps run` prefills only its task (agent/llm/prompt_state.py); a failure here only costs time
	-$(BIN)/python -m agent.llm.save_prompt_state
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# what the agent runs with (make run): the runtime and the local model, and the mineflayer sidecar
install: $(STAMP) mineflayer

# the tools of make test, lint, docs and bench: pyproject.toml's test and docs extras, on top
$(DEVSTAMP): $(STAMP)
	$(BIN)/pip install --quiet --find-links $(WHEELS) -e '.[local,test,docs]'
	rm -f $(VENV)/.devtools-*
	touch $(DEVSTAMP)

devtools: install $(DEVSTAMP)

# the mineflayer world's Node sidecar (worlds/mineflayer/sidecar): npm ci from its lockfile, about 20 s;
# without npm the rest installs and --world mineflayer says Node is missing
SIDECAR = worlds/mineflayer/sidecar
$(SIDECAR)/node_modules/.package-lock.json: $(SIDECAR)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then cd $(SIDECAR) && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: skipping the mineflayer world's sidecar (install Node.js 18+, then make mineflayer)"; fi

mineflayer: $(SIDECAR)/node_modules/.package-lock.json

run: install
	$(BIN)/deps run "obtain a wooden pickaxe"

CODE = agent nodes skills worlds training evaluation experiments prompts tests

lint: devtools
	$(BIN)/ruff format --check $(CODE)
	$(BIN)/ruff check $(CODE)
	$(BIN)/mypy

# the documentation site (mkdocs.yml, docs/), warnings as errors
docs: devtools
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/docs-site

test: devtools lint docs
	$(BIN)/python -m pytest -q

bench: devtools
	$(BIN)/deps bench

doctor: install
	$(BIN)/deps doctor

# MineDojo's own package, in its own virtualenv (optional, not part of `make test`): its pinned gym 0.21
# builds only with old setuptools and wheel and without build isolation.  tests/test_minedojo.py uses it
# when present.  The real simulator's reset() further needs Java 8 and a Gradle build (docs/worlds-minedojo.md).
MINEDOJO_VENV ?= .venv-minedojo

minedojo-env: $(MINEDOJO_VENV)/.installed

$(MINEDOJO_VENV)/.installed:
	$(PYTHON) -m venv $(MINEDOJO_VENV)
	$(MINEDOJO_VENV)/bin/pip install --quiet setuptools==65.5.0 wheel==0.38.4
	$(MINEDOJO_VENV)/bin/pip install --quiet --no-build-isolation gym==0.21.0
	$(MINEDOJO_VENV)/bin/pip install --quiet minedojo "numpy<2" "opencv-python<4.11"
	# the project's world code runs there too (tests/test_minedojo.py): its two game-data packages
	$(MINEDOJO_VENV)/bin/pip install --quiet "minecraft-data>=3.20,<4" "pyyaml>=6"
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info $(SIDECAR)/node_modules
