//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// A committed .gitwt is git-wt's settings file: only its wt.* keys apply
// (SPEC §4, §19). One that sets remote.pushDefault does not send push to
// another remote, and push says the key was ignored.
func TestGitwtCannotRedirectPush(t *testing.T) {
	t.Parallel()
	s, origin, _, head := pushSetup(t)
	upstream := filepath.Join(filepath.Dir(s.Repo), "public.git")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "--bare", upstream)
	s.Git(s.Repo, "remote", "add", "upstream", upstream)
	s.Write(".gitwt", "[remote]\n\tpushDefault = upstream\n[merge]\n\tff = only\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "team defaults")
	r := s.WT("push", "T")
	if r.Code != 0 {
		t.Fatalf("push: %s", r)
	}
	if s.GitOK(upstream, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatalf("the .gitwt's remote.pushDefault sent the branch to upstream: %s", r)
	}
	if got := s.Git(origin, "rev-parse", "refs/heads/wt/T"); got != head {
		t.Fatalf("origin has wt/T at %s, want %s", got, head)
	}
	if strings.Count(strings.ToLower(r.Stderr), "ignored remote.pushdefault") != 1 {
		t.Errorf("want one warning naming the ignored key: %s", r)
	}
}
