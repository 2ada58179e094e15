// This test protects the documentation of settings: every wt.* key that
// git-wt's code names is in Keys, which the man page is made from.
package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestEveryKeyTheCodeReadsIsDocumented(t *testing.T) {
	documented := map[string]bool{}
	for _, k := range Table {
		documented[strings.ToLower(k.Name)] = true
	}
	literal := regexp.MustCompile(`"(wt\.[A-Za-z]+)"`)
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			found++
			if !documented[strings.ToLower(m[1])] {
				t.Errorf("%s reads %s, which settings.Keys does not document", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no wt.* key in the code: the scan is broken")
	}
}

// Each default is read by the same reader as a configured value: it must
// parse, and the snapshot of an empty configuration must be what the man
// page prints as the defaults.
func TestEveryDefaultParsesAndIsTheSnapshotOfNoConfig(t *testing.T) {
	s := &Settings{values: map[string][]Value{}}
	if err := s.readTable(); err != nil {
		t.Fatalf("a default does not parse: %v", err)
	}
	for name, got := range map[string]any{
		"wt.branchPrefix": s.BranchPrefix, "wt.maxWorktrees": s.MaxWorktrees, "wt.maxAge": s.MaxAge, "wt.idleAfter": s.IdleAfter,
		"wt.maxCount": s.MaxCount, "wt.maxTotalSize": s.MaxTotalSize, "wt.cleanupOnMerge": s.CleanupOnMerge,
		"wt.deleteBranch": s.DeleteBranch, "wt.containerWorkdir": s.ContainerWorkdir, "wt.lockTimeout": s.LockTimeout,
		"wt.orphanGrace": s.OrphanGrace, "wt.gcInterval": s.GCInterval, "wt.portRange": s.PortRange.String(),
		"wt.reclaim": strings.Join(s.Reclaim, " "), "wt.reclaimAfter": s.ReclaimAfter,
	} {
		if printed := printedDefault(t, name); fmt.Sprint(formatLike(got)) != printed {
			t.Errorf("%s: the man page says the default is %q, the snapshot holds %v", name, printed, got)
		}
	}
}

func printedDefault(t *testing.T, name string) string {
	t.Helper()
	for _, k := range Table {
		if k.Name == name {
			return k.Default
		}
	}
	t.Fatalf("%s is not in Table", name)
	return ""
}

// formatLike prints a typed value as the table's defaults are written.
func formatLike(v any) any {
	switch v := v.(type) {
	case time.Duration:
		if v == 0 {
			return "0"
		}
		return FormatDuration(v)
	case int64:
		if v == 0 {
			return "0"
		}
		return FormatSize(v)
	}
	return v
}

// The README's settings table lists every key of Table with its default
// and whether a committed .gitwt needs git wt trust for it (SPEC §14
// "Trust classes").
func TestTheReadmeTableListsEverySetting(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 4 && strings.HasPrefix(cells[0], "| `") {
			rows[strings.Trim(cells[0], "| `")] = cells[1:]
		}
	}
	for _, k := range Table {
		row, ok := rows[k.Name]
		switch {
		case !ok:
			t.Errorf("the README's settings table lacks %s (key | default | from .gitwt | meaning)", k.Name)
		case k.Default != "" && !strings.Contains(row[0], "`"+k.Default+"`"):
			t.Errorf("the README gives %s the default %q, want `%s`", k.Name, row[0], k.Default)
		case (k.Runs || k.Reaches || k.UntrustedOnly != "") != strings.Contains(row[1], "once trusted"):
			t.Errorf("the README says %s applies from .gitwt %q; it runs commands or pushes: %v", k.Name, row[1], k.Runs || k.Reaches)
		case k.UntrustedOnly != "" && !strings.Contains(row[1], "`"+k.UntrustedOnly+"` applies"):
			t.Errorf("the README says %s applies from .gitwt %q; only `%s` applies untrusted", k.Name, row[1], k.UntrustedOnly)
		}
	}
}

func TestParseReclaim(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  []string
		bad   bool
	}{
		{"node_modules  target\t.venv", []string{"node_modules", "target", ".venv"}, false},
		{"", []string{}, false},
		{"node_modules ../x", nil, true},
		{"a/b", nil, true},
		{".", nil, true},
		{".GIT", nil, true},
	} {
		got, err := ParseReclaim(tc.value)
		if (err != nil) != tc.bad || !tc.bad && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseReclaim(%q) = %q, %v", tc.value, got, err)
		}
	}
}
