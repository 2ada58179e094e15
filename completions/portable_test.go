// These tests protect the shell code that runs on a user's machine from
// constructs that macOS does not have (SPEC §15 "macOS specifics"): its
// /bin/bash is 3.2, and its sed, readlink, grep, stat and date are BSD's.
// The completion scripts and shell-init run in the user's bash or zsh;
// install.sh and the hooks' shim in /bin/sh with the system's tools.
package completions

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rule is a construct to refuse: a line that matches re, unless it holds
// unless (a guard that handles its failure).
type rule struct{ what, re, unless string }

// bash4Only are what bash 3.2 lacks (compopt is allowed behind a
// fallback: see git-wt.bash).
var bash4Only = []rule{
	{"mapfile/readarray (bash 4)", `\b(mapfile|readarray)\b`, ""},
	{"associative arrays (bash 4)", `\b(declare|local|typeset)\s+-[a-zA-Z]*A`, ""},
	{"namerefs (bash 4.3)", `\b(declare|local|typeset)\s+-[a-zA-Z]*n\b`, ""},
	{"declare -g (bash 4.2)", `\bdeclare\s+-[a-zA-Z]*g`, ""},
	{"case conversion ${x,,} ${x^^} (bash 4)", `\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?(,|\^)`, ""},
	{"${x@Q} transformations (bash 4.4)", `\$\{[A-Za-z_][A-Za-z0-9_]*@[QEPAaKkUuL]\}`, ""},
	{"|& and &>> (bash 4)", `\|&|&>>`, ""},
	{";& and ;;& in case (bash 4)", `;;?&`, ""},
	{"coproc (bash 4)", `\bcoproc\b`, ""},
	{"wait -n (bash 4.3)", `\bwait\s+-n\b`, ""},
	{"globstar (bash 4)", `globstar`, ""},
	{"$EPOCHSECONDS (bash 5)", `EPOCH(SECONDS|REALTIME)`, ""},
	{"compopt without a fallback (bash 4)", `\bcompopt\b`, "2>/dev/null"},
}

// gnuOnly are options of GNU tools that BSD's (macOS's) lack or read
// otherwise.
var gnuOnly = []rule{
	{"sed -i (BSD's needs a suffix argument)", `\bsed\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*i`, ""},
	{"sed -r (BSD: -E)", `\bsed\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*r`, ""},
	{"readlink -f (macOS before 12.3)", `\breadlink\s+-[a-zA-Z]*f`, ""},
	{"realpath (macOS before 13)", `\brealpath\b`, ""},
	{"grep -P", `\bgrep\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*P`, ""},
	{"stat -c (BSD: -f)", `\bstat\s+-c`, ""},
	{"date -d (BSD: -j -f)", `\bdate\s+-d`, ""},
	{"xargs -r", `\bxargs\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*r`, ""},
	{"sort -V", `\bsort\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*V`, ""},
	{"head -n -N", `\bhead\s+-n\s*-`, ""},
	{"find -printf", `\bfind\b.*-printf`, ""},
	{"GNU long options of mktemp, cp, install", `\b(mktemp|cp|install)\s+--`, ""},
	{"sha256sum (macOS: shasum -a 256)", `\bsha256sum\b`, ""},
	{"timeout (coreutils)", `(^|[;&|(]\s*)timeout\s`, ""},
}

func TestShellCodeRunsOnMacOS(t *testing.T) {
	files := map[string][]string{
		"git-wt.bash":      {"bash"},
		"shell-init.sh":    {"bash"},
		"../install.sh":    {"bash", "gnu"},
		"../hooks/shim.sh": {"bash", "gnu"},
	}
	for file, checks := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, check := range checks {
			rules := bash4Only
			if check == "gnu" {
				rules = gnuOnly
			}
			for n, line := range strings.Split(string(data), "\n") {
				code, _, _ := strings.Cut(line, " #")
				if strings.HasPrefix(strings.TrimSpace(code), "#") {
					continue
				}
				for _, r := range rules {
					if regexp.MustCompile(r.re).MatchString(code) && (r.unless == "" || !strings.Contains(code, r.unless)) {
						t.Errorf("%s:%d: %s: %s", file, n+1, r.what, line)
					}
				}
			}
		}
	}
}

// The rules catch what they are for: each is tried on an example.
func TestShellRulesCatch(t *testing.T) {
	examples := map[string]string{
		"mapfile/readarray (bash 4)":             `mapfile -t lines < f`,
		"associative arrays (bash 4)":            `declare -A seen`,
		"case conversion ${x,,} ${x^^} (bash 4)": `x=${cur,,}`,
		"|& and &>> (bash 4)":                    `cmd |& tee log`,
		"sed -i (BSD's needs a suffix argument)": `sed -i 's/a/b/' f`,
		"readlink -f (macOS before 12.3)":        `dir=$(readlink -f "$0")`,
		"grep -P":                                `grep -qP '\d' f`,
		"compopt without a fallback (bash 4)":    `compopt -o nospace`,
		"xargs -r":                               `xargs -r rm`,
	}
	for what, example := range examples {
		found := false
		for _, r := range append(slices.Clone(bash4Only), gnuOnly...) {
			if r.what == what {
				found = regexp.MustCompile(r.re).MatchString(example)
			}
		}
		if !found {
			t.Errorf("the rule %q misses %q", what, example)
		}
	}
}
