# git-wt — build, test, install.
#   make            build bin/git-wt
#   make test       every test (unit, end-to-end, fuzz seed corpora)
#   make install    install into $(prefix) (default ~/.local, /usr/local as root)
#   make lint       gofmt and go vet

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/git-wt/git-wt/internal/cli.Version=$(VERSION)

ifeq ($(shell id -u),0)
prefix  ?= /usr/local
else
prefix  ?= $(HOME)/.local
endif
bindir  ?= $(prefix)/bin
mandir  ?= $(prefix)/share/man
DESTDIR ?=

# go test: a bound on the whole run, and as many packages at once as cores.
TESTFLAGS ?= -timeout 15m

# make fuzz: each fuzz target for FUZZTIME (make test runs their seed
# corpora under testdata/fuzz as ordinary tests).
FUZZTIME ?= 30s
FUZZ_TARGETS := ./internal/slug:FuzzMake ./internal/record:FuzzDecode \
	./internal/settings:FuzzParseGitwt ./internal/settings:FuzzGitwtAgreesWithGit \
	./internal/settings:FuzzParseDuration

.PHONY: all build test lint install uninstall clean fuzz bench

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/git-wt ./cmd/git-wt

test: lint
	$(GO) test $(TESTFLAGS) ./...

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzzing $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

install:
	./install.sh --prefix '$(prefix)' --bindir '$(bindir)' --mandir '$(mandir)' --destdir '$(DESTDIR)'

uninstall:
	./install.sh --uninstall --prefix '$(prefix)' --bindir '$(bindir)' --mandir '$(mandir)' --destdir '$(DESTDIR)'

clean:
	rm -rf bin

# The performance bars of SPEC §9 that the hooks add to git.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./internal/e2e
