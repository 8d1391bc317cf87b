# SkillHub: every target installs what it needs (Bun included) on a machine with Node and npm.
BUN_VERSION := 1.3.14
VERSION ?= $(shell node -p "require('./package.json').version")
export BUN_VERSION

BUN = $(shell BUN_VERSION=$(BUN_VERSION) ./scripts/ensure-bun.sh)

.PHONY: all run serve test check typecheck build bench eval clean

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

## make test (= make check): type-check, then every test (unit, in-memory client, binary end-to-end).
test: typecheck build
	$(BUN) test

check: test

build: dist/skillhub

dist/skillhub: node_modules/.installed $(shell find src -name '*.ts') package.json
	$(BUN) scripts/build.ts --version $(VERSION)

## make bench: start-up, tools/list size, latency, RSS, freshness at 0/1k/10k skills, beside a floor.
bench: build
	$(BUN) bench/run.ts

clean:
	rm -rf dist .tools node_modules
