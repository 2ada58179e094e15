//go:build unix

// This test protects the JSON contract callers in other languages build
// on (SPEC §2): every --json output of every command, and the error
// document, matches its JSON Schema in docs/schema, checked by a
// maintained validator (santhosh-tekuri/jsonschema) rather than by hand.
// The schemas forbid fields they do not name, so a field added to an
// output without its schema fails here.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/git-wt/git-wt/internal/testutil"
)

// schemaBase is the $id prefix of the schemas in docs/schema.
const schemaBase = "https://github.com/git-wt/git-wt/docs/schema/"

// loadSchemas compiles every schema in docs/schema, by file name.
func loadSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	dir := filepath.Join(testutil.Root(), "docs", "schema")
	files, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil || len(files) < 15 {
		t.Fatalf("schemas in %s: %v %v", dir, files, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := c.AddResource(schemaBase+filepath.Base(f), doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if schemas[name], err = c.Compile(schemaBase + filepath.Base(f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return schemas
}

func TestEveryJSONOutputMatchesItsSchema(t *testing.T) {
	schemas := loadSchemas(t)
	checked := map[string]bool{}
	check := func(schema string, want int, r testutil.Result) {
		t.Helper()
		if r.Code != want {
			t.Fatalf("want exit %d: %s", want, r)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.Stdout))
		if err != nil {
			t.Fatalf("not one JSON document (%v):\n%s", err, r.Stdout)
		}
		if err := schemas[schema].Validate(inst); err != nil {
			t.Errorf("output does not match %s.schema.json: %v\n%s", schema, err, r.Stdout)
		}
		checked[schema] = true
	}
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s.Git(root, "init", "-q", "--bare", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(root, "origin.git"))
	s.Git(s.Repo, "config", "--add", "wt.port", "PORT")
	s.Git(s.Repo, "config", "wt.init", "true")
	s.Git(s.Repo, "config", "wt.trusted", "1") // trust comes from git config, not .gitwt

	check("record", 0, s.WT("new", "--json", "T"))
	check("record", 0, s.WT("new", "--json", "T")) // it exists
	path := s.MustWT("path", "T").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	check("commit", 0, s.WT("commit", "--json", "T", "-m", "work"))
	statusHook(t, s, path, `{"session_id":"s1","cwd":"`+path+`","hook_event_name":"UserPromptSubmit"}`, "claude-status")
	check("list", 0, s.WT("list", "--json"))
	check("list", 0, s.WT("list", "--json", "--all", "--size"))
	check("list", 0, s.WT("list", "--json", "--no-status"))
	check("task", 0, s.WT("show", "--json", "T"))
	check("env", 0, s.WT("env", "--json", "T"))
	check("count", 0, s.WT("count", "--json"))
	check("path", 0, s.WT("path", "--json", "T"))
	check("path", 0, s.WT("path", "--json", "--main"))
	check("lock", 0, s.WT("lock", "--json", "T", "--reason", "reviewing"))
	check("lock", 0, s.WT("unlock", "--json", "T"))
	check("record", 0, s.WT("init", "--json", "T"))
	check("push", 0, s.WT("push", "--json", "T"))
	s.Git(s.Repo, "config", "wt.claimRemote", "origin")
	check("push", 0, s.WT("push", "--json", "T")) // with its claim
	check("claim", 0, s.WT("claim", "--json", "T"))
	check("claim", 0, s.WT("claim", "--json", "T", "--refresh"))
	check("list-remote", 0, s.WT("list", "--remote", "--json"))
	check("list-machine", 0, s.WT("list", "--machine", "--json", "--size"))
	check("error", 4, withVars(s, "GIT_CONFIG_PARAMETERS='wt.machineId'='other'").WT("new", "--json", "T"))
	check("claim", 0, s.WT("claim", "--json", "T", "--release"))
	s.Git(s.Repo, "config", "--unset", "wt.claimRemote")
	check("pr", 0, s.WT("pr", "--json", "T", "--set-url", "https://github.com/o/r/pull/7", "--number", "7", "--title", "T", "--state", "OPEN"))
	check("docker-args", 0, s.WT("docker-args", "--json", "T"))

	// gc --reclaim, and a record that notes it (wt.reclaimAfter 0: idle at once).
	s.Write(filepath.Join(s.Repo, ".git", "info", "exclude"), "node_modules\n")
	s.Write(filepath.Join(path, "node_modules", "x.js"), "x\n")
	s.Git(s.Repo, "config", "wt.reclaimAfter", "0")
	check("gc", 0, s.WT("gc", "--json", "--reclaim", "--dry-run"))
	check("gc", 0, s.WT("gc", "--json", "--reclaim"))
	check("task", 0, s.WT("show", "--json", "T"))
	check("list", 0, s.WT("list", "--json", "--size"))
	s.Git(s.Repo, "config", "--unset", "wt.reclaimAfter")

	// sync: a task to rebase, a dirty one to skip.
	newTaskWithCommit(s, "U")
	dirty := newTaskWithCommit(s, "D")
	s.Write(filepath.Join(dirty, "wip.txt"), "wip\n")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	check("sync", 3, s.WT("sync", "--json", "--dry-run", "--all"))
	check("sync", 3, s.WT("sync", "--json", "--all"))
	check("sync", 5, s.WT("sync", "--json", "U", "no-such-task"))
	check("merge", 0, s.WT("merge", "--json", "U"))
	check("rm", 3, s.WT("rm", "--json", "D", "no-such-task"))
	// A forced removal saves the dirty task (SPEC §20); trash lists it,
	// restore makes it again, and refuses once it exists.
	check("rm", 0, s.WT("rm", "--json", "--force", "D"))
	check("trash", 0, s.WT("trash", "--json"))
	check("restore", 0, s.WT("restore", "--json", "D"))
	check("error", 3, s.WT("restore", "--json", "D"))

	// doctor and gc with a problem to report: a task whose folder is gone.
	gone := newTaskWithCommit(s, "G")
	os.RemoveAll(gone)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s") // the orphan goes at once
	check("doctor", 1, s.WT("doctor", "--json"))
	check("gc", 0, s.WT("gc", "--json", "--dry-run"))
	check("doctor", 0, s.WT("doctor", "--json", "--fix"))
	check("log", 0, s.WT("log", "--json", "-n", "50"))
	s.Git(s.Repo, "worktree", "add", "-q", "--detach", filepath.Join(root, "plain")) // made by plain git
	check("gc-foreign", 0, s.WT("gc", "--foreign", "--json", "--dry-run"))

	// The warm pool: its status, a fill, a drain.
	s.Git(s.Repo, "config", "wt.pool", "1")
	t.Cleanup(func() { waitForFills(t, s) })
	check("pool-fill", 0, s.WT("pool", "--fill", "--json"))
	check("pool", 0, s.WT("pool", "--json"))
	check("gc", 0, s.WT("gc", "--json"))
	waitForFills(t, s)
	s.Git(s.Repo, "config", "wt.poolMaxBehind", "1") // a stale entry for the dry run to name
	commitFile(s, s.Repo, "x.txt", "1\n", "one")
	commitFile(s, s.Repo, "x.txt", "2\n", "two")
	check("gc", 0, s.WT("gc", "--json", "--dry-run"))
	check("pool-drain", 0, s.WT("pool", "--drain", "--json"))

	// The error document, in each of the ways a command fails.
	check("error", 5, s.WT("path", "--json", "no-such-task"))
	check("error", 5, s.WT("new", "--json", "X", "--base", "no-such-ref"))
	check("error", 2, s.WT("sync", "--json", "--rebase", "--merge", "T"))
	check("error", 2, s.WT("rm", "--json", "--bogus", "T"))
	check("error", 1, s.WTIn(t.TempDir(), "count", "--json"))

	for name := range schemas {
		if !checked[name] && name != "defs" {
			t.Errorf("no output was checked against %s.schema.json", name)
		}
	}
}
