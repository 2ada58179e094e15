// These tests protect how settings are read: units, git's boolean rules,
// the precedence of the layers, and .gitwt parsed as git parses it.
package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/git"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"0": 0, "": 0, "7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "2m": 2 * time.Minute,
		"1h30m": 90 * time.Minute, "1.5d": 36 * time.Hour, "2w": 14 * 24 * time.Hour, " 10m ": 10 * time.Minute,
	}
	for in, want := range good {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"7", "abc", "-1h", "d", "1e400d", "NaNd", "-2d", "5x"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1024": 1024, "1k": 1024, "500M": 500 << 20, "20G": 20 << 30, "1.5T": 3 << 39, "2GiB": 2 << 30, "3GB": 3 << 30,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1", "1Q", "1e30T"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	if FormatSize(1536<<20) != "1.5G" || FormatSize(100) != "100B" {
		t.Errorf("FormatSize: %s %s", FormatSize(1536<<20), FormatSize(100))
	}
}

func TestParseBoolAsGitDoes(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "YES": true, "on": true, "1": true, "false": false, "No": false, "off": false, "0": false, "": false} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseBool("maybe"); err == nil {
		t.Error("ParseBool(maybe) accepted")
	}
}

func TestParseConfigList(t *testing.T) {
	out := "global\x00file:/h/.gitconfig\x00wt.basedir\n../g\x00local\x00file:.git/config\x00wt.basedir\n../l\x00" +
		"local\x00file:.git/config\x00wt.flag\x00command\x00command line:\x00wt.init\nmake\nall\x00"
	kvs := configValues(git.ParseConfigList(out), "/repo")
	if len(kvs) != 4 {
		t.Fatalf("parsed %d values: %+v", len(kvs), kvs)
	}
	s := &Settings{values: layer([]keyValue{{key: "wt.basedir", Value: Value{Value: "../gitwt", Scope: ScopeGitwt}}}, kvs)}
	if v, _ := s.Get("wt.baseDir"); v.Value != "../l" || v.Scope != ScopeLocal || v.Where() != "set in "+filepath.FromSlash("/repo/.git/config")+", local config" {
		t.Errorf("local must win over global and .gitwt: %+v", v)
	}
	if v, _ := s.Get("wt.flag"); v.Value != "true" {
		t.Errorf("a key with no value is true: %+v", v)
	}
	if v, _ := s.Get("wt.init"); v.Value != "make\nall" || v.Scope != ScopeCommand {
		t.Errorf("a value with a newline: %+v", v)
	}
	if all := s.All("wt.basedir"); len(all) != 3 || all[0].Scope != ScopeGitwt {
		t.Errorf("All keeps every layer lowest first: %+v", all)
	}
}

// gitwtCases are .gitwt files whose reading must agree with
// `git config -f FILE --list`.
var gitwtCases = []string{
	"[wt]\n\tbaseDir = ../wts\n",
	"[WT]\n\tBaseDir=../x\n\tbranchPrefix = task/\n",
	"[wt]\n\tinit = make setup\n\tinit = npm ci\n\tcopy = .env\n\tcopy = node_modules\n",
	"# comment\n; another\n[wt] # trailing\n\tinit = echo \"a  b\" # comment\n",
	"[wt]\n\tinit = \"quoted ; not a comment\"\n\tcopy = a\\tb\n",
	"[wt]\n\tdeleteBranch\n\tcleanupOnMerge = false\n",
	"[wt \"Sub\"]\n\tkey = v\n[other]\n\tkey = w\n",
	"[wt]\n\tinit = echo \\\"hi\\\" \\\\ done\n",
	"[wt]\n\tinit =   spaced   out   \n",
}

func TestParseGitwtAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, content := range gitwtCases {
		path := filepath.Join(t.TempDir(), ".gitwt")
		os.WriteFile(path, []byte(content), 0o644)
		out, err := exec.Command("git", "config", "-f", path, "--list", "-z").Output()
		if err != nil {
			t.Fatalf("git config -f on %q: %v", content, err)
		}
		var want []string
		for _, kv := range configValues(git.ParseConfigList(prefixScope(string(out))), "/repo") {
			want = append(want, kv.key+"="+kv.Value.Value)
		}
		kvs, err := ParseGitwt([]byte(content))
		if err != nil {
			t.Errorf("ParseGitwt(%q): %v", content, err)
			continue
		}
		var got []string
		for _, kv := range kvs {
			got = append(got, kv.key+"="+kv.Value.Value)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("ParseGitwt(%q)\n got: %q\nwant: %q", content, got, want)
		}
	}
}

// prefixScope turns `git config --list -z` output into the --show-scope
// --show-origin form git.ParseConfigList reads.
func prefixScope(out string) string {
	var b strings.Builder
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		b.WriteString("file\x00file:.gitwt\x00" + rec + "\x00")
	}
	return b.String()
}

func FuzzParseGitwt(f *testing.F) {
	for _, c := range gitwtCases {
		f.Add(c)
	}
	f.Add("[wt]\n\tinit = \"unterminated\n")
	f.Add("[wt\n")
	f.Add("key = outside a section\n")
	f.Fuzz(func(t *testing.T, content string) {
		kvs, err := ParseGitwt([]byte(content))
		again, err2 := ParseGitwt([]byte(content))
		if (err == nil) != (err2 == nil) || len(kvs) != len(again) {
			t.Fatal("ParseGitwt is not deterministic")
		}
		for _, kv := range kvs {
			if kv.key == "" || kv.key != canonicalKey(kv.key) {
				t.Fatalf("key %q is not canonical", kv.key)
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "7d", "36h", "1h30m", "1.5w", "-1d", "1e308d", "NaNd", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDuration(s); err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative", s, d)
		}
		if n, err := ParseSize(s); err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %v: negative", s, n)
		}
	})
}

// FuzzGitwtAgreesWithGit checks ParseGitwt against git itself: whatever
// `git config -f` reads from a [wt] file, ParseGitwt must read the same.
func FuzzGitwtAgreesWithGit(f *testing.F) {
	for _, c := range gitwtCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, content string) {
		if strings.ContainsAny(content, "\x00\r") || !strings.HasPrefix(content, "[wt]\n") {
			return
		}
		path := filepath.Join(t.TempDir(), ".gitwt")
		os.WriteFile(path, []byte(content), 0o644)
		out, err := exec.Command("git", "config", "-f", path, "--list", "-z").Output()
		if err != nil {
			return
		}
		var want, got []string
		for _, kv := range configValues(git.ParseConfigList(prefixScope(string(out))), "/repo") {
			want = append(want, kv.key+"="+kv.Value.Value)
		}
		kvs, err := ParseGitwt([]byte(content))
		if err != nil {
			t.Fatalf("git accepts %q, ParseGitwt: %v (git: %q)", content, err, want)
		}
		for _, kv := range kvs {
			got = append(got, kv.key+"="+kv.Value.Value)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q\n got: %q\nwant: %q", content, got, want)
		}
	})
}

func TestInitCommandsTrustOnlyTheUsersOwnConfig(t *testing.T) {
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	gitwt := []keyValue{
		{key: "wt.init", Value: Value{Value: "team-setup", Scope: ScopeGitwt}},
		{key: "wt.trusted", Value: Value{Value: sum, Scope: ScopeGitwt}}, // a .gitwt vouching for itself
	}
	mine := []keyValue{{key: "wt.init", Value: Value{Value: "my-setup", Scope: ScopeLocal}}}
	s := &Settings{values: layer(gitwt, mine), GitwtSHA256: sum}
	if err := s.resolve(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	run, untrusted := s.InitCommands()
	if strings.Join(run, ",") != "my-setup" || strings.Join(untrusted, ",") != "team-setup" {
		t.Fatalf("untrusted .gitwt: run %q, skipped %q", run, untrusted)
	}
	trusted := append(mine, keyValue{key: "wt.trusted", Value: Value{Value: sum, Scope: ScopeLocal}})
	s = &Settings{values: layer(gitwt[:1], trusted), GitwtSHA256: sum}
	if err := s.resolve(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if run, untrusted := s.InitCommands(); strings.Join(run, ",") != "team-setup,my-setup" || len(untrusted) != 0 {
		t.Fatalf("trusted .gitwt: run %q, skipped %q", run, untrusted)
	}
}

func TestClaimSettingsThatPushWaitForTrust(t *testing.T) {
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	gitwt := []keyValue{
		{key: "wt.claimremote", Value: Value{Value: "origin", Scope: ScopeGitwt}},
		{key: "wt.claimref", Value: Value{Value: "refs/heads/claims", Scope: ScopeGitwt}},
		{key: "wt.machineid", Value: Value{Value: "team", Scope: ScopeGitwt}},
		{key: "wt.claimttl", Value: Value{Value: "2h", Scope: ScopeGitwt}},
		{key: "wt.claimheartbeat", Value: Value{Value: "1m", Scope: ScopeGitwt}},
	}
	for _, tc := range []struct {
		trusted             bool
		remote, ref, mineID string
	}{
		{false, "", "refs/git-wt/claims/", ""},
		{true, "origin", "refs/heads/claims/", "team"},
	} {
		var mine []keyValue
		if tc.trusted {
			mine = append(mine, keyValue{key: "wt.trusted", Value: Value{Value: sum, Scope: ScopeLocal}})
		}
		s := &Settings{values: layer(gitwt, mine), GitwtSHA256: sum}
		if err := s.resolve(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		if s.ClaimRemote != tc.remote || s.ClaimRef != tc.ref || s.MachineID != tc.mineID {
			t.Errorf("trusted %v: remote %q ref %q machine %q", tc.trusted, s.ClaimRemote, s.ClaimRef, s.MachineID)
		}
		if s.ClaimTTL != 2*time.Hour || s.ClaimHeartbeat != time.Minute {
			t.Errorf("trusted %v: the TTL and heartbeat push nothing and apply: %v %v", tc.trusted, s.ClaimTTL, s.ClaimHeartbeat)
		}
		if !tc.trusted && !strings.Contains(strings.Join(s.Warnings, "\n"), "wt.claimRemote") {
			t.Errorf("an ignored wt.claimRemote is said: %q", s.Warnings)
		}
	}
}

// wt.submodules clones: from an untrusted .gitwt only false applies (SPEC
// §14); auto and true there wait for trust, with a warning, and the
// default applies meanwhile.
func TestSubmodulesFromAnUntrustedGitwtOnlyTurnThemOff(t *testing.T) {
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		gitwt   string
		trusted bool
		want    string
		warned  bool
	}{
		{"true", false, "auto", true},
		{"1", false, "auto", true},
		{"auto", false, "auto", true},
		{"false", false, "false", false},
		{"off", false, "false", false},
		{"true", true, "true", false},
		{"auto", true, "auto", false},
	} {
		gitwt := []keyValue{{key: "wt.submodules", Value: Value{Value: tc.gitwt, Scope: ScopeGitwt}}}
		var mine []keyValue
		if tc.trusted {
			mine = append(mine, keyValue{key: "wt.trusted", Value: Value{Value: sum, Scope: ScopeLocal}})
		}
		s := &Settings{values: layer(gitwt, mine), GitwtSHA256: sum}
		if err := s.resolve(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(s.Warnings, "\n"), "wt.submodules")
		if s.Submodules != tc.want || warned != tc.warned {
			t.Errorf(".gitwt %s, trusted %v: %s (want %s), warnings %q", tc.gitwt, tc.trusted, s.Submodules, tc.want, s.Warnings)
		}
	}
}

func TestClaimRefIsARefFolder(t *testing.T) {
	for in, want := range map[string]string{"refs/heads/git-wt-claims": "refs/heads/git-wt-claims/", "refs/x/": "refs/x/", "heads/x": "", "refs/a b": "", "refs/a..b": ""} {
		s := &Settings{}
		err := s.parseClaimRef(in)
		if (err == nil) != (want != "") || s.ClaimRef != want {
			t.Errorf("%q: %q, %v", in, s.ClaimRef, err)
		}
	}
}

// A .gitwt is git-wt's settings file (SPEC §4): its wt.* keys apply, and
// every other key is ignored, said once however often it is set.
func TestGitwtSetsOnlyWtKeys(t *testing.T) {
	repo := hermeticRepo(t)
	gitIn(t, repo, "config", "core.ignoreCase", "false") // git init sets it true on a file system that folds case
	os.WriteFile(filepath.Join(repo, GitwtFile), []byte("[wt]\n\tbranchPrefix = team/\n[remote]\n\tpushDefault = upstream\n"+
		"[branch \"wt/x\"]\n\tpushRemote = upstream\n[merge]\n\tff = only\n\tff = false\n[core]\n\tignoreCase = true\n"+
		"[extensions]\n\tworktreeConfig = true\n[color]\n\twt = always\n"), 0o644)
	s := read(t, repo, Start)
	if s.BranchPrefix != "team/" {
		t.Errorf("the .gitwt's wt.branchPrefix: %q", s.BranchPrefix)
	}
	for _, key := range []string{"remote.pushDefault", "branch.wt/x.pushRemote", "merge.ff", "core.ignoreCase", "extensions.worktreeConfig", "color.wt"} {
		if v, ok := s.Get(key); ok && v.Scope == ScopeGitwt {
			t.Errorf("%s from the .gitwt applies: %+v", key, v)
		}
		if n := strings.Count(strings.Join(s.Warnings, "\n"), "ignored "+canonicalKey(key)+" = "); n != 1 {
			t.Errorf("%s is said %d times: %q", key, n, s.Warnings)
		}
	}
	if s.IgnoreCase || s.HasSection("branch.wt/x") {
		t.Errorf("the .gitwt's git settings act: ignoreCase %v, branch section %v", s.IgnoreCase, s.HasSection("branch.wt/x"))
	}
	var said []string
	for range 2 {
		s.SayWarnings(func(format string, args ...any) { said = append(said, args[0].(string)) })
	}
	if len(said) != len(s.Warnings) {
		t.Errorf("SayWarnings twice said %d of %d warnings", len(said), len(s.Warnings))
	}
}

// A worktree's config.worktree is the agent's to write (SPEC §19): git's
// sparse settings come from it, git-wt's own never do.
func TestAWorktreeConfigSetsOnlyGitsSparseSettings(t *testing.T) {
	repo := hermeticRepo(t)
	gitIn(t, repo, "config", "extensions.worktreeConfig", "true")
	os.WriteFile(filepath.Join(repo, ".git", "config.worktree"), []byte("[wt]\n\ttrusted = true\n\tbranchPrefix = agent/\n[core]\n\tsparseCheckout = true\n"), 0o644)
	s := read(t, repo, Start)
	if v, ok := s.Get("wt.trusted"); ok {
		t.Errorf("wt.trusted from config.worktree applies: %+v", v)
	}
	if s.BranchPrefix == "agent/" {
		t.Error("wt.branchPrefix from config.worktree applies")
	}
	if v, ok := s.Get("core.sparseCheckout"); !ok || v.Value != "true" {
		t.Errorf("core.sparseCheckout from config.worktree: %+v, %v", v, ok)
	}
}

// hermeticRepo is a new repository whose git reads no config but its own:
// HOME and XDG_CONFIG_HOME in a temporary folder, no system file.
func hermeticRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(root, "repo")
	gitIn(t, root, "init", "-q", repo)
	return repo
}
