# Two entry points work on a fresh machine with only python3 and cargo:
#   make demo   set everything up, run GFC1 with ERICA, then reproduce seed 003's benchmarks, under out/
#   make reproduce   every paper reproduction (full length) into out/reproduce/<paper>/
#   make test   set everything up, run every Rust and Python test
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.ccsim-built
# Everything the extension or the installed package depends on: a change rebuilds it.
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml

.PHONY: venv build demo reproduce test test-rust test-python loom bench bless clean wheel check-wheel fuzz docs
# Never two cargo builds at once (each already uses every core).
.NOTPARALLEL:

$(VENV)/bin/maturin:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet "maturin>=1.5,<2"

venv: $(VENV)/bin/maturin

# The extension is compiled with profile-guided optimisation (scripts/pgo.sh trains an instrumented
# build on every kind of world; docs/benchmarks.md, "Profile-guided build"): the same results, an
# engine up to ~14 % faster on worlds run from one queue, a minute and a half more to build.
# `make build PGO=0` skips it; so does a toolchain without rustup's llvm-tools (said when it does).
PGO ?= 1
PROFILE := target/pgo/ccsim.profdata
# The environment of a profile-guided cargo build (its own target directory), or nothing.
PGO_ENV = $(shell [ "$(PGO)" = 1 ] && [ -f $(PROFILE) ] && \
	echo RUSTFLAGS=-Cprofile-use=$(CURDIR)/$(PROFILE) CARGO_TARGET_DIR=$(CURDIR)/target/pgo/use)

$(PROFILE): $(RUST_SOURCES) scripts/pgo.sh
	@if [ "$(PGO)" = 1 ]; then scripts/pgo.sh || [ $$? = 3 ] || echo "pgo: building without PGO" >&2; fi

# Builds the extension in release mode and installs ccsim (editable) with its dependencies. The
# profile is order-only: it changes only with the sources, and a machine that cannot make one
# does not rebuild on every call.
$(STAMP): $(VENV)/bin/maturin $(RUST_SOURCES) | $(PROFILE)
	VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PGO_ENV) \
		$(VENV)/bin/maturin develop --release --extras dev --quiet
	touch $(STAMP)

# The stamp alone is not trusted: if the extension went missing (git clean, a failed build),
# build again. The package's bytecode is compiled as a wheel's install would (only what changed):
# an editable install under PYTHONDONTWRITEBYTECODE would otherwise compile every module on
# every start, a third of `ccsim run --json`'s time outside the engine (docs/benchmarks.md).
build: $(STAMP)
	@$(PY) -c 'import ccsim._core' 2>/dev/null || { rm -f $(STAMP); $(MAKE) --no-print-directory $(STAMP); }
	@$(PY) -m compileall -q python/ccsim >/dev/null

# The Rust suite runs in the `checked` profile: optimised, with debug assertions and overflow checks.
RUST_TESTS = cargo test --profile checked --workspace --exclude ccsim-py

test: build
	$(RUST_TESTS)
	$(LOOM_TESTS)
	$(PY) -m pytest -q tests

test-rust:
	$(RUST_TESTS)
	$(LOOM_TESTS)

# The loom model checks of what a threaded run's threads share (crates/ccsim-model/tests/loom.rs):
# the model crate built with `--cfg loom` in a target directory of its own.
LOOM_TESTS = RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=$(CURDIR)/target/loom cargo test -q -p ccsim-model --test loom --release
loom:
	$(LOOM_TESTS)

test-python: build
	$(PY) -m pytest -q tests

demo: build
	$(VENV)/bin/ccsim run abr-benchmarks/gfc1 --scheme erica --out out/gfc1-erica
	@echo
	@echo "Each source's rate beside its max-min fair rate (out/gfc1-erica/rates.md):"
	@cat out/gfc1-erica/rates.md
	@echo
	@echo "Plots: out/gfc1-erica/acr.png, out/gfc1-erica/queue.png, out/gfc1-erica/overview.png; summary: out/gfc1-erica/summary.json"
	@echo
	@echo "Reproducing seed 003's benchmark suite (14 scenarios x 5 schemes, 21 s on 2 cores as measured 2026-11-28):"
	$(VENV)/bin/ccsim reproduce abr-benchmarks --out out/reproduce/abr-benchmarks
	@echo "Report: out/reproduce/abr-benchmarks/index.html; every compared number: out/reproduce/abr-benchmarks/compared.json"

# Every paper reproduction at full length (docs/reproductions/ describes the results).
reproduce: build
	$(VENV)/bin/ccsim reproduce all --out out/reproduce

# Re-record the golden results (fingerprints and summary tables) after an intended change.
bless:
	CCSIM_BLESS=1 cargo test --release -p ccsim-scenario --test golden
	git diff --stat -- crates/ccsim-scenario/tests/golden

bench: build
	$(PY) scripts/bench.py

# A longer fuzz than the test suite's: 50,000 scenario mutations, `--set` items, standard inputs and
# sweep plans each (Hypothesis), and 100,000 cases of each Rust property test (the loader, overrides
# and the unit parsers on arbitrary text).
fuzz: build
	CCSIM_FUZZ_EXAMPLES=50000 $(PY) -m pytest -q tests/test_fuzz_scenarios.py tests/test_fuzz_inputs.py tests/test_fuzz_plans.py
	PROPTEST_CASES=100000 cargo test --profile checked -p ccsim-scenario -- never_panic

# The documentation site the wheel ships and `ccsim docs` opens (docs/ through Sphinx and MyST into
# python/ccsim/_docs_site/; scripts/build_docs.sh). The generator is a build tool only (the `docs`
# extra), installed here from the package registry like maturin and zig.
docs: venv
	$(VENV)/bin/pip install --quiet "sphinx>=8,<10" "myst-parser>=4,<6"
	PY=$(PY) scripts/build_docs.sh

# A wheel for other machines: release build, stripped, tagged manylinux2014 (glibc 2.17 and later;
# zig links against that glibc, so no container is needed), into target/wheels/; with the
# documentation site (`make docs`).
# The wheel records the commit it is built from (`ccsim --version`, results' metadata; _version.py):
# python/ccsim/_build_commit exists only during the build (a file git ignores would not be packed).
BUILD_COMMIT := python/ccsim/_build_commit
wheel: venv docs | $(PROFILE)
	$(VENV)/bin/pip install --quiet "ziglang>=0.11"
	git rev-parse HEAD | cut -c1-12 > $(BUILD_COMMIT) || rm -f $(BUILD_COMMIT); \
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PGO_ENV) $(VENV)/bin/maturin build --release --compatibility manylinux2014 \
		--zig --out target/wheels --quiet; \
	status=$$?; rm -f $(BUILD_COMMIT); exit $$status

# The wheel in a fresh environment runs the README's examples (CI runs this after the tests).
check-wheel: wheel
	scripts/check_wheel.sh

clean:
	rm -rf $(VENV) out target python/ccsim/_docs_site
	rm -f python/ccsim/_core*.so python/ccsim/_core*.pyd
