# memos-mcp-edge: `make help` lists the targets.

SHELL := /bin/bash
GO ?= go
NODE := node_modules/.bin/node
WRANGLER := $(NODE) node_modules/wrangler/bin/wrangler.js
# Memos server used by `make dev` and the end-to-end tests, built from the
# module pinned in test/memos/go.mod into a cache folder shared by clones.
MEMOS_VERSION := $(shell awk '{ for (i = 1; i < NF; i++) if ($$i == "github.com/usememos/memos") print $$(i+1) }' test/memos/go.mod)
MEMOS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/memos-mcp-edge
PINNED_BIN := $(MEMOS_CACHE)/memos-$(MEMOS_VERSION)
# MEMOS_BIN=<a Memos server> in the environment runs the tests against it.
MEMOS_BIN ?= $(PINNED_BIN)
export MEMOS_BIN

# The Memos of the next release, compiled from a source archive when one is
# beside the clone (CI has ../shared/memos; a clone of its own has not) and
# stamped with the release it became: without the stamp it reports "dev".
NEXT_SOURCE ?= $(firstword $(wildcard ../shared/memos/memos-main-*.tar.gz))
NEXT_STAMP ?= 0.31.0
NEXT_TOOLCHAIN ?= go1.27.3
NEXT_BIN := $(MEMOS_CACHE)/$(basename $(basename $(notdir $(NEXT_SOURCE))))-$(NEXT_STAMP)
# What make test runs against it (a go test -run pattern): the tour of every
# tool and the tests of what differs (tags, reactions, the local Memos'
# version), each asserting that release's answers.
NEXT_TESTS ?= TestRelease|TestTools|TestTSSDKClient|TestOneGoInstanceServesEveryRequest|TestFinder|TestResources|TestWritePathLostAnswers|TestMakeDevStartsLocalMemos|TestReadsBesideTheCheckAfterAPause
NEXT_RUN := $(if $(NEXT_SOURCE),$(NEXT_TESTS))

# Fuzz targets as package:Target; `make fuzz` runs each for FUZZTIME.
# `make test` gives a count of inputs (a few seconds each), not a duration: at a
# duration's deadline Go's fuzz coordinator can race with its own context and
# fail the target with "context deadline exceeded" when nothing was found.
FUZZ_TARGETS := ./internal/finder:FuzzCompile ./internal/finder:FuzzParseDate ./internal/finder:FuzzParseStamp \
	./internal/memos:FuzzParseHTTPDate ./internal/memos:FuzzParseDelay ./internal/rawjson:FuzzValue ./internal/rawjson:FuzzAppendString \
	./internal/uri:FuzzParse ./internal/uri:FuzzQuery ./internal/uri:FuzzParseIP ./internal/uri:FuzzParseHost \
	./internal/mcp:FuzzServe ./internal/mcp:FuzzDecodeHeaderValue \
	./internal/jsonrpc:FuzzTooDeep ./internal/jsonrpc:FuzzDecode \
	./internal/tools:FuzzPathArguments ./internal/tools:FuzzNormalize \
	./internal/schema:FuzzAgainstReference ./internal/schema:FuzzIsIntegral ./internal/writes:FuzzInstant
FUZZTIME ?= 30s

.PHONY: help generate release build dev unit test fuzz size wasmsize deploy deploycheck memos clean

help: ## list the targets
	@awk -F ':.*## ' '/^[a-z-]+:.*## / { printf "  %-10s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

# The Memos release the tools are built for: the one pinned in go.mod, unless
# memos-release.mk (written by `make release`) names another. Every build
# reads it: make build, make dev, make deploy and wrangler's own build step.
PINNED_RELEASE := $(shell awk '$$1 == "github.com/usememos/memos" { print $$2 }' go.mod)
RELEASE_FILE := memos-release.mk
RELEASE_SPEC := spec/memos-openapi.yaml
# The next release's differences from the pinned document: builds serve both.
OVERLAY := spec/memos-v0.31.json
OVERLAY_MINOR := $(shell sed -n 's/^ *"release": *"v\{0,1\}\([0-9]*\.[0-9]*\).*/\1/p' $(OVERLAY))
-include $(RELEASE_FILE)

generate: ## compile the tool registry from the Memos OpenAPI document (of the release make release chose) and spec/curation.json
	$(if $(SPEC)$(SPEC_VERSION),$(if $(filter command line environment,$(origin SPEC) $(origin SPEC_VERSION)),$(error SPEC and SPEC_VERSION \
		choose the release for every later build: run make release SPEC=$(SPEC) SPEC_VERSION=$(SPEC_VERSION))))
	$(GO) run ./internal/registry/generate -curation spec/curation.json -overlay $(OVERLAY) -o internal/registry/tools_gen.go -routes internal/memos/routes_gen.go -routes-js internal/bridge/routes_gen.mjs$(if $(SPEC), -spec $(SPEC) -memos-version $(SPEC_VERSION))

release: ## choose the Memos release every build is for: SPEC=<that release's openapi.yaml> SPEC_VERSION=v0.31.0; SPEC_VERSION=<go.mod's> goes back; alone, says which
ifeq ($(origin SPEC_VERSION),command line)
ifeq ($(SPEC_VERSION),$(PINNED_RELEASE))
	rm -f $(RELEASE_FILE) $(RELEASE_SPEC)
	$(GO) run ./internal/registry/generate -curation spec/curation.json -overlay $(OVERLAY) -o internal/registry/tools_gen.go -routes internal/memos/routes_gen.go -routes-js internal/bridge/routes_gen.mjs
else
	@test -n "$(SPEC)" || { echo "make release: SPEC names the OpenAPI document of Memos $(SPEC_VERSION) (proto/gen/openapi.yaml of that release)"; exit 1; }
ifeq ($(patsubst v%,%,$(basename $(SPEC_VERSION))),$(OVERLAY_MINOR))
	$(GO) run ./internal/registry/generate -curation spec/curation.json -overlay $(OVERLAY) -o internal/registry/tools_gen.go -routes internal/memos/routes_gen.go -routes-js internal/bridge/routes_gen.mjs -spec $(SPEC) -memos-version $(SPEC_VERSION)
	@echo "Memos $(SPEC_VERSION) is built in: $(OVERLAY) states every difference of $(SPEC) that the tools meet. Builds serve v0.30 and v0.31 alike."
else
	$(GO) run ./internal/registry/generate -curation spec/curation.json -overlay $(OVERLAY) -o internal/registry/tools_gen.go -routes internal/memos/routes_gen.go -routes-js internal/bridge/routes_gen.mjs -spec $(SPEC) -memos-version $(SPEC_VERSION)
	$(if $(filter $(abspath $(SPEC)),$(abspath $(RELEASE_SPEC))),,cp $(SPEC) $(RELEASE_SPEC))
	printf '# The Memos release every build is for, written by make release.\nSPEC := $(RELEASE_SPEC)\nSPEC_VERSION := $(SPEC_VERSION)\n' > $(RELEASE_FILE)
endif
endif
endif
	@if [ -f $(RELEASE_FILE) ]; then echo "Builds are for Memos $$(awk '$$1 == "SPEC_VERSION" { print $$3 }' $(RELEASE_FILE)) (chosen in $(RELEASE_FILE))."; \
		else echo "Builds are for Memos $(PINNED_RELEASE) (pinned in go.mod)."; fi

# The packages no generated tool's call runs through (the OAuth endpoints,
# the configuration read once, prompts, resources, the finding tools, the
# sealing, the grant store, the registry's start, the write path and the
# memo locks) are compiled without inlining: 42 KB less wasm gzipped, and
# no slower cold start (measured in docs/design.md). A call of
# memo_get_memo runs none of their code.
COLD_PACKAGES := oauth config prompts resources finder seal grants registry writes lease
COLD_GCFLAGS := $(foreach p,$(COLD_PACKAGES),-gcflags=github.com/memos-mcp-edge/memos-mcp-edge/internal/$(p)=-l)

build: generate ## build the Worker into build/ (runtime assets, entry module, and the wasm with its data packed)
	$(GO) tool workers-assets-gen -mode=go -o build
	cp internal/bridge/worker.mjs internal/bridge/driver.mjs internal/bridge/routes_gen.mjs internal/cards/card.html build/
	cp internal/grants/store.mjs build/grants.mjs
	cp internal/lease/lock.mjs build/lease.mjs
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' $(COLD_GCFLAGS) -o build/app.wasm .
	$(GO) run ./internal/bridge/pack build/app.wasm

# .npmrc keeps npm's engine warnings out (Node 22 comes from the lock file).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci
	@touch $@

memos: $(MEMOS_BIN) ## build the pinned Memos server into the cache folder (once: about 10 minutes on 2 cores)

$(PINNED_BIN):
	@echo "Compiling Memos $(MEMOS_VERSION) into $(MEMOS_CACHE), once for every clone to share: about 10 minutes on 2 cores."
	mkdir -p $(MEMOS_CACHE)
	cd test/memos && $(GO) build -o $(PINNED_BIN).tmp github.com/usememos/memos/cmd/memos
	mv $(PINNED_BIN).tmp $(PINNED_BIN)

# The archive holds no web app: its frontend folder keeps a placeholder page
# for the go:embed, and the API needs nothing more. Its go.mod asks for a
# newer Go, which the go command fetches (NEXT_TOOLCHAIN).
$(NEXT_BIN):
	@echo "Compiling Memos $(NEXT_STAMP) from $(NEXT_SOURCE) into $(MEMOS_CACHE), once: about 10 minutes on 2 cores."
	rm -rf $(NEXT_BIN).src && mkdir -p $(NEXT_BIN).src
	tar -xzf $(NEXT_SOURCE) -C $(NEXT_BIN).src --strip-components=1
	cd $(NEXT_BIN).src && GOTOOLCHAIN=$(NEXT_TOOLCHAIN) $(GO) build -trimpath \
		-ldflags "-X github.com/usememos/memos/internal/version.Version=$(NEXT_STAMP)" -o $(NEXT_BIN).tmp ./cmd/memos
	rm -rf $(NEXT_BIN).src
	mv $(NEXT_BIN).tmp $(NEXT_BIN)

dev: node_modules/.package-lock.json build memos ## run the Worker under wrangler on 127.0.0.1 (starts a local Memos unless MEMOS_URL is set; OAUTH=1 turns OAuth on)
	$(GO) run ./test/devstack

# The tests run a Memos of the pinned release, and expect its tools: they
# build for it whatever make release chose (a deploy builds again).
test unit: SPEC :=
test unit: SPEC_VERSION :=
unit: node_modules/.package-lock.json generate ## the quick checks alone, about a minute: formatting, go vet (native and js/wasm) and the unit tests, with no Memos or wrangler
	@unformatted=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "not gofmt-formatted: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet . ./internal/...
	$(GO) test ./...

# The end-to-end tests take 5 to 11 minutes on 2 quiet cores; E2E_TIMEOUT
# leaves room for a machine three times slower, and still ends a hung test
# well inside a CI job's 90 minutes (go test's own default, 10 minutes,
# failed a loaded machine for no fault in the code). A timeout names the
# tests still running, with how long each has run.
E2E_TIMEOUT ?= 40m
test: unit build memos $(if $(NEXT_RUN),$(NEXT_BIN)) ## run every test, about 13 minutes on 2 cores: make unit, every fuzz target, then end to end against real Memos and wrangler (the pinned release, and the next one's differences when its source is beside the clone)
	$(MAKE) --no-print-directory fuzz FUZZTIME=50000x SPEC= SPEC_VERSION=
	$(GO) test -tags e2e -count=1 -timeout $(E2E_TIMEOUT) -v ./test/e2e/
ifneq ($(NEXT_RUN),)
	MEMOS_BIN=$(NEXT_BIN) MEMOS_RELEASE=v$(NEXT_STAMP) $(GO) test -tags e2e -count=1 -timeout $(E2E_TIMEOUT) -v -run '$(NEXT_TESTS)' ./test/e2e/
else
	@echo "make test: $(if $(NEXT_SOURCE),no NEXT_TESTS chosen,no Memos source of the next release beside the clone (../shared/memos)), so only the pinned release was tested"
endif

.PHONY: soak
SOAK_REQUESTS ?= 20000
SOAK_CLIENTS ?= 32
soak: node_modules/.package-lock.json build memos ## send SOAK_REQUESTS (20,000) mixed requests from SOAK_CLIENTS (32) clients through one Worker isolate: no errors, no restart, bounded memory
	SOAK_REQUESTS=$(SOAK_REQUESTS) SOAK_CLIENTS=$(SOAK_CLIENTS) $(GO) test -tags e2e -count=1 -run '^TestSoak$$' -v ./test/e2e/

fuzz: generate ## run every fuzz target for FUZZTIME each (default 30s); failures land in testdata/fuzz
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "fuzz $$name for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# BASELINE=<commit> also measures the throughput of that commit's build in the
# same run, built from `git archive` into build/baseline.
BASELINE ?=
.PHONY: bench
bench: node_modules/.package-lock.json build memos ## measure the Worker against its baselines (loopback only, about 15 minutes on 2 cores) and print the table; BASELINE=<commit> compares throughput with that commit
	$(if $(BASELINE),rm -rf build/baseline && mkdir -p build/baseline && git archive $(BASELINE) | tar -x -C build/baseline && $(MAKE) -C build/baseline build GO=$(GO))
	GO=$(GO) $(if $(BASELINE),BASELINE=$$(git rev-parse --short $(BASELINE)) BASELINE_BUILD=build/baseline/build) $(GO) run ./test/bench

size: node_modules/.package-lock.json ## report the upload size from wrangler deploy --dry-run (which runs make build)
	$(WRANGLER) deploy --dry-run --outdir build/dry-run

wasmsize: generate ## build the wasm with its function names and list what each Go package adds to it
	GOOS=js GOARCH=wasm $(GO) build -trimpath $(COLD_GCFLAGS) -o build/app.named.wasm .
	$(GO) run ./test/wasmsize build/app.named.wasm

deploy: node_modules/.package-lock.json ## deploy with wrangler (runs make build itself)
	$(WRANGLER) deploy

# The last step of the build wrangler runs before a deploy (wrangler.toml's
# [build]): warn when wrangler.toml would deploy a Worker that refuses
# every request.
deploycheck: generate
	@$(GO) run ./internal/config/deploycheck wrangler.toml

clean: ## remove build outputs
	rm -rf build internal/registry/tools_gen.go
