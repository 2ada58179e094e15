// These tests protect how hooks are put in place and taken out: someone
// else's hook (a file or a symlink) is kept aside and put back exactly,
// installing twice changes nothing, and a conflict is refused, not guessed.
package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func actions(cs []Change) (out []string) {
	for _, c := range cs {
		out = append(out, c.Name+":"+c.Action)
	}
	return out
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks") // missing: made by Install
	cs, err := Install(dir)
	if err != nil || actions(cs)[0] != "post-checkout:installed" {
		t.Fatalf("Install into a missing dir: %v %v", actions(cs), err)
	}
	// Windows has no executable bit: Git for Windows runs a hook by its name.
	if st, _ := os.Stat(filepath.Join(dir, "post-merge")); runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		t.Fatalf("hook mode %v", st.Mode())
	}
	if cs, _ := Install(dir); actions(cs)[1] != "post-merge:unchanged" {
		t.Fatalf("second Install: %v", actions(cs))
	}
	// An older git-wt hook is updated in place, its chained hook kept.
	old := []byte("#!/bin/sh\n# git-wt-hook post-merge v0\n")
	os.WriteFile(filepath.Join(dir, "post-merge"), old, 0o755)
	if cs, _ := Install(dir); actions(cs)[1] != "post-merge:updated" {
		t.Fatalf("Install over an old git-wt hook: %v", actions(cs))
	}
	cs, err = Uninstall(dir)
	if err != nil || actions(cs)[0] != "post-checkout:removed" || actions(cs)[1] != "post-merge:removed" {
		t.Fatalf("Uninstall: %v %v", actions(cs), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Uninstall left %v", entries)
	}
}

func TestASymlinkedUserHookIsChainedAndRestored(t *testing.T) {
	platform.RequireSymlinks(t)
	dir := t.TempDir()
	hook := filepath.Join(dir, "post-checkout")
	os.Symlink("../shared/post-checkout", hook)
	if cs, err := Install(dir); err != nil || actions(cs)[0] != "post-checkout:chained" {
		t.Fatalf("Install over a symlink: %v %v", actions(cs), err)
	}
	if target, _ := os.Readlink(hook + ChainedSuffix); target != "../shared/post-checkout" {
		t.Fatalf("the chained hook is not the user's symlink: %q", target)
	}
	if cs, _ := Uninstall(dir); actions(cs)[0] != "post-checkout:restored" {
		t.Fatalf("Uninstall: %v", actions(cs))
	}
	if target, err := os.Readlink(hook); err != nil || target != "../shared/post-checkout" {
		t.Fatalf("the symlink is not back: %q %v", target, err)
	}
}

func TestConflictsAreRefusedAndHalfStatesRepaired(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "post-checkout")
	mine := []byte("#!/bin/sh\necho mine\n")
	os.WriteFile(hook, mine, 0o700)
	os.WriteFile(hook+ChainedSuffix, []byte("#!/bin/sh\necho older\n"), 0o700)
	_, err := Install(dir)
	if exitcode.Of(err) != exitcode.Refused {
		t.Fatalf("a foreign hook with a chained one beside it: %v", err)
	}
	if got, _ := os.ReadFile(hook); !bytes.Equal(got, mine) {
		t.Fatal("a refused Install changed the hook")
	}
	// git-wt's hook deleted by hand: Uninstall still puts the original back.
	os.Remove(hook)
	if cs, _ := Uninstall(dir); actions(cs)[0] != "post-checkout:restored" {
		t.Fatalf("Uninstall with only the chained hook left: %v", actions(cs))
	}
	os.WriteFile(hook, mine, 0o700)
	if cs, _ := Uninstall(dir); actions(cs)[0] != "post-checkout:not-git-wt" {
		t.Fatalf("Uninstall of someone else's hook: %v", actions(cs))
	}
}

func TestRunsUnderGitWt(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "post-checkout")
	if RunsUnderGitWt(hook) {
		t.Error("no hook runs nothing")
	}
	Install(dir)
	if RunsUnderGitWt(hook) {
		t.Error("git-wt's hook alone does nothing under git-wt")
	}
	os.WriteFile(hook+ChainedSuffix, []byte("#!/bin/sh\n"), 0o755)
	if !RunsUnderGitWt(hook) {
		t.Error("git-wt's hook runs the hook it chains")
	}
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	if !RunsUnderGitWt(hook) {
		t.Error("someone else's hook runs")
	}
}
