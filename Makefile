# git-wt — build, test, install.
#   make            build bin/git-wt and bin/git-wt-mcp (git wt mcp's server)
#   make test       every test (unit, end-to-end, fuzz seed corpora, and
#                   make test-windows)
#   make test-windows  the tests as Windows programs under Wine (SPEC §21)
#   make install    install into $(prefix) (default ~/.local, /usr/local as root):
#                   the binary, the man page and the completion files
#                   (completions/);
#                   prefix, bindir, mandir and DESTDIR as usual
#   make uninstall  remove exactly what make install installed
#   make dist       release archives, SHA256SUMS, Homebrew, Scoop and winget manifests in dist/
#   make lint       gofmt and go vet

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/git-wt/git-wt/internal/cli.Version=$(VERSION)
# urfave_cli_no_docs leaves urfave/cli's markdown and man page writers (and
# blackfriday, whose start-up every command would pay) out of git-wt; the
# man page comes from cmd/git-wt-man. install.sh and the tests build with it
# too.
TAGS    := urfave_cli_no_docs

ifdef PREFIX
prefix  ?= $(PREFIX)
endif
ifeq ($(shell id -u),0)
prefix  ?= /usr/local
else
prefix  ?= $(HOME)/.local
endif
bindir  ?= $(prefix)/bin
mandir  ?= $(prefix)/share/man
DESTDIR ?=

# go test: a bound on the whole run, and as many packages at once as cores.
# -count=1: the end-to-end tests build and run the binary in a subprocess,
# so go's test cache does not see the code they test (a change to
# internal/cli or install.sh would still report a cached "ok").
TESTFLAGS ?= -timeout 15m -count=1

# make fuzz: each fuzz target for FUZZTIME (make test runs their seed
# corpora under testdata/fuzz as ordinary tests).
FUZZTIME ?= 30s
FUZZ_TARGETS := ./internal/slug:FuzzMake ./internal/record:FuzzDecode \
	./internal/settings:FuzzParseGitwt ./internal/settings:FuzzGitwtAgreesWithGit \
	./internal/settings:FuzzParseDuration ./hooks:FuzzDecide \
	./internal/agents:FuzzReadPayload ./internal/agents:FuzzSettingsRoundTrip \
	./internal/text:FuzzTerminal \
	./internal/claim:FuzzParse

.PHONY: all build test test-deps test-windows lint cross dist install uninstall clean fuzz bench stress

all: build

build:
	$(GO) build -trimpath -tags $(TAGS) -ldflags '$(LDFLAGS)' -o bin/ ./cmd/git-wt ./cmd/git-wt-mcp

# The process fallback of SPEC §15 (-tags gitwt_noprocfs) is tested on its
# own too: its unit tests here, its binary by internal/e2e's blind tests.
test: lint cross test-deps
	$(GO) test $(TESTFLAGS) ./...
	$(GO) test $(TESTFLAGS) -tags gitwt_noprocfs ./internal/proc ./internal/leftover
	$(MAKE) test-windows

# The packages' tests built for Windows and run under Wine, and a smoke of
# git-wt.exe driving the git.exe of test/windows/ (test/windows/run.sh;
# docs/WINDOWS.md says what it runs and what Wine cannot show). Without
# Wine it says so and succeeds.
test-windows:
	test/windows/run.sh '$(GO)'

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzzing $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# What the shell tests run besides bash and git: zsh, fish, bash-completion
# (bash's on-demand loading of completion files) and man; and Node.js and
# npm, which install and run the official MCP client of the mcp tests.
# Installed when missing if we are root with apt-get (CI on a fresh Debian
# machine); else the tests that need them are skipped. Wine (make
# test-windows) too, without its recommends (fonts, sound, graphics).
test-deps:
	@missing=; \
	for p in zsh:zsh fish:fish man:man-db node:nodejs npm:npm; do \
		command -v $${p%%:*} >/dev/null 2>&1 || missing="$$missing $${p#*:}"; \
	done; \
	[ -f /usr/share/bash-completion/bash_completion ] || missing="$$missing bash-completion"; \
	[ -n "$$missing" ] || exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing$$missing for the shell tests"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } || \
			echo "note: could not install$$missing: the tests that need them are skipped"; \
	else \
		echo "note:$$missing not installed: the tests that need them are skipped"; \
	fi
	@command -v wine >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && { \
		echo "installing wine for make test-windows"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine wine64 >/dev/null; } || \
			echo "note: could not install wine: make test-windows is skipped"; }; } || true

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The platforms of SPEC §15 and §21 that CI cannot run (macOS, FreeBSD,
# Windows): each must build and pass go vet, test files included (vet
# compiles them), so a Linux-only call in shared code fails here, not on a
# user's Mac. With the build cache this takes seconds.
CROSS := darwin/arm64 darwin/amd64 freebsd/amd64 windows/amd64 windows/arm64
cross:
	@for p in $(CROSS); do \
		echo "go build and vet for $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -tags $(TAGS) ./... || exit 1; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet -tags $(TAGS) ./... || exit 1; \
	done

# make dist: release archives in dist/ (release/dist.sh): linux and darwin
# × amd64 and arm64, freebsd amd64, each with the binary, the man page,
# the completions and install.sh; windows amd64 and arm64 zips with
# git-wt.exe and the completions; SHA256SUMS; a Homebrew formula
# (dist/git-wt.rb), a Scoop manifest (dist/git-wt.json) and a winget
# manifest (dist/winget/) for them, at DIST_URL (default: the GitHub
# release). The same bytes from the same commit (SOURCE_DATE_EPOCH).
DIST_PLATFORMS ?=
dist:
	GO='$(GO)' release/dist.sh '$(VERSION)' dist $(DIST_PLATFORMS)

install:
	VERSION='$(VERSION)' ./install.sh --prefix '$(prefix)' --bindir '$(bindir)' --mandir '$(mandir)' --destdir '$(DESTDIR)'

uninstall:
	./install.sh --uninstall --prefix '$(prefix)' --bindir '$(bindir)' --mandir '$(mandir)' --destdir '$(DESTDIR)'

clean:
	rm -rf bin dist

# The performance bars of SPEC §9 that the hooks add to git.
# make bench: Go benchmarks of the hot paths, then git-wt against plain git
# in one run, interleaved, with SPEC §9's bars (bench/compare; BENCHFLAGS
# passes options, e.g. BENCHFLAGS='-rounds 25'; BENCH_REPO=/path/to/a/clone
# adds the rows on that real repository, nothing downloaded), then a burst of 30 new at
# once against 30 one after another (bench/burst.sh).
BENCHFLAGS ?=
export BENCH_REPO
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 20x ./internal/slug ./internal/record ./internal/git ./internal/e2e
	$(GO) run ./bench/compare -bin bin/git-wt $(BENCHFLAGS)
	bench/burst.sh bin/git-wt
	POOL=30 bench/burst.sh bin/git-wt

# make stress: the randomized stress test (internal/stress) for STRESS_TIME,
# failing on any violation; STRESS_SEED=N replays a run's choices (its seed
# is printed at the start and with every failure).
STRESS_TIME ?= 10m
stress:
	STRESS_TIME='$(STRESS_TIME)' $(GO) test -count=1 -timeout 0 -v -run '^TestStress$$' ./internal/stress
