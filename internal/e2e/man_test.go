//go:build unix

// This test protects the man page that `git help wt` and `git wt --help`
// show: section 1, made (by cmd/git-wt-man) from the command definitions (every command, its
// options, every setting), with the sections a git man page has, and
// rendered by man without a warning.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/cli"
	"github.com/git-wt/git-wt/internal/manpage"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/testutil"
)

func TestManPage(t *testing.T) {
	needCommands(t, "man")
	s := testutil.NewSandbox(t)
	page, err := manpage.Render(cli.DocApp())
	if err != nil {
		t.Fatal(err)
	}
	roff := string(page)
	if !strings.Contains(roff, "\n.TH GIT-WT 1 ") {
		t.Fatalf("not a section 1 page:\n%.300s", roff)
	}
	file := filepath.Join(s.Home, "git-wt.1")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "--warnings", "-l", file)
	cmd.Env = append(s.Env, "MANWIDTH=80")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("man: %v\n%s", err, stderr.String())
	}
	text := string(out)
	for _, section := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "GLOBAL OPTIONS", "COMMANDS",
		"CONFIGURATION", "EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES", "SEE ALSO"} {
		if !regexp.MustCompile(`(?m)^` + section + `$`).MatchString(text) {
			t.Errorf("no %s section", section)
		}
	}
	// Every command completion offers has its own subsection, and the
	// hidden ones none.
	for _, c := range candidates(s.MustWT("__complete", "").Stdout) {
		if !regexp.MustCompile(`(?m)^   ` + c + `( \(also .*\))?$`).MatchString(text) {
			t.Errorf("no subsection for the command %s", c)
		}
	}
	for _, hidden := range []string{"__complete", "hook"} {
		if regexp.MustCompile(`(?m)^   ` + hidden + `( \(also .*\))?$`).MatchString(text) {
			t.Errorf("the page has a subsection for the hidden command %s", hidden)
		}
	}

	for _, want := range []string{"--keep-branch", "--main", "--name F", "git wt shell-init [--name F] bash|zsh|fish"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, k := range settings.Table {
		if !strings.Contains(text, k.Name) {
			t.Errorf("CONFIGURATION lacks %s", k.Name)
		}
	}
	if !regexp.MustCompile(`(?m)^       5\s+not found`).MatchString(text) {
		t.Errorf("EXIT STATUS lacks code 5:\n%s", text)
	}
}
