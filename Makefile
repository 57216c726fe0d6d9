# signpost's build, test and lint entry points. Everything a test or a check
# needs is installed from here, so a fresh machine with Go runs them as is.

GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
# A real S3 server for the publish tests, started by the tests themselves.
VERSITYGW := $(BIN)/versitygw
VERSITYGW_VERSION := v1.8.0
# s5cmd, the fastest S3 sync a user would compare publish with (bench-peers).
S5CMD := $(BIN)/s5cmd
S5CMD_VERSION := v2.3.0
# A GitHub Actions workflow linter, for the workflows signpost init writes.
# A relative name, so that `make bin/actionlint` installs it.
ACTIONLINT := bin/actionlint
ACTIONLINT_VERSION := v1.7.12
# The release tool: the tests check .goreleaser.yaml with it and make a
# snapshot release; .github/workflows/release.yml runs the same version.
GORELEASER := bin/goreleaser
GORELEASER_VERSION := v2.15.1
# The npm registry's Node.js for this platform, installed beside each npm CLI
# below (wrangler needs Node.js 22 or later, netlify-cli 22.13 or later), so
# that the tests do not depend on the machine's node, which only runs npm.
NODE_VERSION := 26.10.0
NODE_PACKAGE = node-$$(node -p 'process.platform + "-" + process.arch')@$(NODE_VERSION)
# Cloudflare's CLI, whose wrangler dev (workerd) the tests of hosts/cloudflare
# serve each built site with; the same version as cloudflare.WranglerVersion,
# which the workflow of signpost init deploys with.
WRANGLER := bin/npm-cloudflare/node_modules/wrangler/bin/wrangler.js
WRANGLER_VERSION := 4.164.0
# Netlify's CLI, for the tests that serve a Netlify build under netlify dev;
# the version the workflow of signpost init deploys with.
NETLIFY_CLI := bin/npm-netlify/node_modules/netlify-cli/bin/run.js
NETLIFY_CLI_VERSION := 27.10.2
# npm's canonicalize, an implementation of RFC 8785 (JCS) independent of
# build/jcs: the tests hold every AI catalog a build writes to its output.
CANONICALIZE := bin/npm-jcs/node_modules/canonicalize/lib/canonicalize.js
CANONICALIZE_VERSION := 5.1.0
# npm's jose, a JOSE implementation independent of signpost's: the tests
# verify every signature of a signed AI catalog with it, over HTTP
# (cmd/signpost/signing_test.go).
JOSE := bin/npm-jose/node_modules/jose/dist/webapi/index.js
JOSE_VERSION := 6.2.19
# The MCP reference server, which the tests of import mcp --url and of
# drift read over Streamable HTTP and stdio (cmd/signpost/live_test.go).
MCP_EVERYTHING := bin/npm-mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js
MCP_EVERYTHING_VERSION := 2026.8.31
# The hold-out corpus of bench-tokens: 16 public MCP servers, pinned with
# their dependencies by internal/benchtokens/npm/package-lock.json.
TOKEN_CORPUS := bin/npm-token-corpus

.PHONY: all build test test-fast test-corpus test-reference shellcheck check lint fmt vet staticcheck bench bench-peers bench-scale bench-tokens peers tools clean

all: build

## build: compile the signpost binary into bin/
build:
	$(GO) build -o $(BIN)/signpost ./cmd/signpost

## test: run every test (the README's test command). The publish tests
## publish and check a catalog of 22,000 documents against real servers: on
## a busy 2-core machine the package takes longer than go test's default
## 10 minutes, so the bound is 30. internal/testreport prints what go test
## prints, then every test that was skipped, and why.
test: $(VERSITYGW) $(ACTIONLINT) $(GORELEASER) $(WRANGLER) $(NETLIFY_CLI) $(CANONICALIZE) $(JOSE) $(MCP_EVERYTHING) shellcheck
	GO=$(GO) $(GO) run ./internal/testreport -count=1 -timeout 30m ./...

## test-fast: the tests in -short mode: no tool to install, no real host, no
## release snapshot, no large publish; each test that needs one skips, and
## the list at the end says which.
test-fast:
	GO=$(GO) $(GO) run ./internal/testreport -short -count=1 ./...

## test-corpus: the tests over the real-world data that nobody on the
## project wrote, kept beside the repository in ../shared (corpus/ and
## reference/; $SIGNPOST_SHARED names another folder): the files built with
## the build tag corpus, named *corpus*_test.go, their tests TestCorpus*.
## A clone has no such folder, and make test does not need it.
test-corpus:
	$(GO) test -count=1 -tags corpus -run '^TestCorpus' \
		$$($(GO) list -f '{{.ImportPath}} {{.IgnoredGoFiles}}' ./... | awk '/corpus[^ ]*_test\.go/ {print $$1}')

## test-reference: run every test again with every fast path stepped aside
## for the reference it shadows (the build tag signpost_reference; see
## docs/performance.md): the same tests and goldens must pass both ways.
test-reference: $(VERSITYGW) $(ACTIONLINT) $(GORELEASER) $(WRANGLER) $(NETLIFY_CLI) $(CANONICALIZE) $(JOSE) $(MCP_EVERYTHING) shellcheck
	$(GO) test -count=1 -timeout 30m -tags signpost_reference ./...

## check: gofmt, go vet, staticcheck, then the tests; must report nothing
check: lint test

## lint: formatting and static analysis only
lint: fmt vet staticcheck

# Every Go file in the tree, tracked or not, except hidden folders and bin/.
GOFILES = $(shell find . -name '*.go' -not -path './.*' -not -path './bin/*')

fmt:
	@out=$$(gofmt -l $(GOFILES)); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# vet and staticcheck read the code both ways: with the fast paths, and
# with the references that replace them under signpost_reference.
vet:
	$(GO) vet ./...
	$(GO) vet -tags corpus ./...
	$(GO) vet -tags signpost_reference ./...

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags corpus ./...
	$(STATICCHECK) -tags signpost_reference ./...

## bench: run the benchmarks (build, serve and publish speed; see the README)
bench: $(VERSITYGW)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

## bench-peers: signpost side by side with the programs users compare it
## with (cp -r, nginx, rclone, aws s3 sync, s5cmd sync) and the floor of a
## publish, on generated catalogs of 10,000 tools, every server on
## 127.0.0.1; prints each ratio and its goal
bench-peers: build $(VERSITYGW) peers
	$(GO) run ./internal/benchpeers -signpost $(BIN)/signpost -versitygw $(VERSITYGW) -s5cmd $(S5CMD)

## bench-scale: how build and publish grow, at 1,000, 10,000 and 100,000
## tools and at 1, 100 and 1,000 tenants: build wall time, peak RSS, bytes
## and files written, PUTs of a first publish to versitygw on 127.0.0.1,
## each with its growth factor (1.00 is linear); fails when one grows
## faster than linear or the peak RSS reaches 500 MB. Prints the table as
## Markdown (docs/performance.md holds the latest) and draws its plot.
bench-scale: build $(VERSITYGW)
	$(GO) run ./internal/benchscale -signpost $(BIN)/signpost -versitygw $(VERSITYGW) -svg docs/performance-scale.svg

## bench-tokens: the tokens a model reads to choose and call a tool, on the
## tools of 16 public MCP servers, each started from its pinned npm package
## over stdio and read live (never kept in the repository): the standard
## and compact lists per server and in total, and the walks from the AI
## catalog to a callable tool; fails when a compact descriptor loses a
## toolId, a required argument or an enum, or the compact list costs more
## than 50% of the standard list's tokens, with or without its digests
## (docs/performance.md)
bench-tokens: $(TOKEN_CORPUS)/.installed
	$(GO) run ./internal/benchtokens -modules $(TOKEN_CORPUS)/node_modules

# The servers and their dependencies as the lockfile beside the benchmark
# pins them (the figures depend on the versions of the libraries that
# write the servers' schemas), installed without the packages' scripts:
# none is needed to list tools, and some download a browser. Node.js in a
# folder of its own, the package of this platform.
$(TOKEN_CORPUS)/.installed: internal/benchtokens/npm/package.json internal/benchtokens/npm/package-lock.json
	mkdir -p $(TOKEN_CORPUS)
	cp internal/benchtokens/npm/package.json internal/benchtokens/npm/package-lock.json $(TOKEN_CORPUS)/
	npm ci --prefix $(TOKEN_CORPUS) --no-audit --no-fund --ignore-scripts
	npm install --prefix $(TOKEN_CORPUS)/node --no-audit --no-fund --save-exact $(NODE_PACKAGE)
	touch $@

# The peers come from Debian's packages; aws is Debian's awscli, whatever
# else is first on PATH. s5cmd, which Debian does not package, is installed
# pinned with go install; where it cannot be, bench-peers reports it as not
# measured.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
peers:
	@$(MAKE) --no-print-directory $(S5CMD) || echo "s5cmd $(S5CMD_VERSION) could not be installed: bench-peers reports it as not measured"
	@missing=""; \
	for p in nginx wrk rclone; do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	[ -x /usr/bin/aws ] || missing="$$missing awscli"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing from Debian's packages"; \
		$(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

# shellcheck, which the tests run on scripts/install.sh, from Debian's
# packages (the package lists are read first when they are not yet).
shellcheck:
	@command -v shellcheck >/dev/null 2>&1 || { \
		echo "installing shellcheck from Debian's packages"; \
		$(SUDO) apt-get install -y -q --no-install-recommends shellcheck >/dev/null 2>&1 || \
		{ $(SUDO) apt-get update -q >/dev/null && $(SUDO) apt-get install -y -q --no-install-recommends shellcheck; }; }

tools: $(STATICCHECK) $(VERSITYGW) $(ACTIONLINT) $(GORELEASER) $(WRANGLER) $(NETLIFY_CLI) $(CANONICALIZE) $(JOSE) $(MCP_EVERYTHING) shellcheck

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(VERSITYGW):
	GOBIN=$(BIN) $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

$(S5CMD):
	GOBIN=$(BIN) $(GO) install github.com/peak/s5cmd/v2@$(S5CMD_VERSION)

$(ACTIONLINT):
	GOBIN=$(BIN) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

$(GORELEASER):
	GOBIN=$(BIN) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

$(WRANGLER):
	npm install --prefix bin/npm-cloudflare --no-audit --no-fund --save-exact \
		wrangler@$(WRANGLER_VERSION) $(NODE_PACKAGE)

$(NETLIFY_CLI):
	npm install --prefix bin/npm-netlify --no-audit --no-fund --save-exact \
		netlify-cli@$(NETLIFY_CLI_VERSION) $(NODE_PACKAGE)

$(CANONICALIZE):
	npm install --prefix bin/npm-jcs --no-audit --no-fund --save-exact \
		canonicalize@$(CANONICALIZE_VERSION) $(NODE_PACKAGE)

$(JOSE):
	npm install --prefix bin/npm-jose --no-audit --no-fund --save-exact \
		jose@$(JOSE_VERSION) $(NODE_PACKAGE)

$(MCP_EVERYTHING):
	npm install --prefix bin/npm-mcp-everything --no-audit --no-fund --save-exact \
		@modelcontextprotocol/server-everything@$(MCP_EVERYTHING_VERSION) $(NODE_PACKAGE)

clean:
	rm -rf $(BIN) site dist
