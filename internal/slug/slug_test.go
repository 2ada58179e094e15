// These tests protect the slug rules of SPEC §3: the required examples, and
// that every slug is a safe single path element and a valid ref component.
package slug

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMakeRequiredExamples(t *testing.T) {
	cases := map[string]string{
		"feature/auth-login": "feature-auth-login",
		"fix: bug #123":      "fix-_bug_-123",
		"user/john/task":     "user-john-task",
		"CON":                "_CON",
		"...test":            "test",
	}
	for id, want := range cases {
		if got := Make(id); got != want {
			t.Errorf("Make(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestMakeRules(t *testing.T) {
	cases := []struct{ id, want string }{
		{"TASK-123", "TASK-123"},
		{"a  b\tc", "a_b_c"},
		{"a--b", "a-b"},
		{"a..b", "a.b"},
		{"-a-", "a"},
		{"x.lock", "x"},
		{"x.lock.lock", "x"},
		{"a/.lock", "a"},
		{"", "_branch"},
		{"///", "_branch"},
		{"...", "_branch"},
		{"@", "_branch"},
		{"con", "_con"},
		{"Lpt9", "_Lpt9"},
		{"COM0", "COM0"},
		{"nul.txt", "_nul.txt"},
		{"CONSOLE", "CONSOLE"},
		{"../../x", "x"},
		{"café-ü", "café-ü"},
		{"a\x00b", "a-b"},
		{"a\nb", "a_b"},
		{"\xff\xfe", "_branch"},
		{"résumé 2", "résumé_2"},
		{"a@{1}", "a-1"},
		{"a~1^2:3?*[", "a-1-2-3"},
	}
	for _, c := range cases {
		if got := Make(c.id); got != c.want {
			t.Errorf("Make(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

func TestMakeCutsLongIDsOnACharacter(t *testing.T) {
	id := strings.Repeat("é", 150) // 300 bytes
	s := Make(id)
	if len(s) > MaxBytes || !utf8.ValidString(s) {
		t.Fatalf("Make(long) = %d bytes, valid %v", len(s), utf8.ValidString(s))
	}
	if s != strings.Repeat("é", 100) {
		t.Fatalf("Make(long) = %q", s)
	}
	if got := Make(strings.Repeat("a", 199) + "-----b"); got != strings.Repeat("a", 199) {
		t.Fatalf("cut then strip: %q", got)
	}
}

func TestWithSuffix(t *testing.T) {
	// sha1("fix-_bug_-123") starts with these six hex digits.
	got := WithSuffix("fix-_bug_-123", "fix-_bug_-123")
	if !strings.HasPrefix(got, "fix-_bug_-123-") || len(got) != len("fix-_bug_-123")+7 {
		t.Fatalf("WithSuffix = %q", got)
	}
	if WithSuffix("a", "x") == WithSuffix("a", "y") {
		t.Fatal("different ids must get different suffixes")
	}
	c := Candidates("fix: bug #123")
	if c[0] != "fix-_bug_-123" || c[1] != WithSuffix(c[0], "fix: bug #123") {
		t.Fatalf("Candidates = %q", c)
	}
}

// checkSlug asserts the properties every slug has.
func checkSlug(t *testing.T, id, s string) {
	t.Helper()
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") {
		t.Fatalf("Make(%q) = %q: not a single path element", id, s)
	}
	if len(s) > MaxBytes+1 || !utf8.ValidString(s) {
		t.Fatalf("Make(%q) = %q: too long or not UTF-8", id, s)
	}
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "-") || strings.HasSuffix(s, ".") ||
		strings.HasSuffix(s, ".lock") || strings.Contains(s, "..") || strings.Contains(s, "@{") {
		t.Fatalf("Make(%q) = %q: not a valid ref component", id, s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[", r) {
			t.Fatalf("Make(%q) = %q: character %q not allowed in a ref", id, s, r)
		}
	}
	if again := Make(s); again != s {
		t.Fatalf("Make(Make(%q)) = %q, want %q: a slug must be its own slug", id, again, s)
	}
	if Make(id) != s {
		t.Fatalf("Make(%q) is not deterministic", id)
	}
}

func FuzzMake(f *testing.F) {
	for _, seed := range []string{"feature/auth-login", "fix: bug #123", "user/john/task", "CON", "...test",
		"", "a.lock", "x/../../y", "\x00\x01", "é", strings.Repeat("ab.", 80), "-rf", "--base=x", "@{-1}"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		checkSlug(t, id, Make(id))
	})
}

// TestSlugsAreValidRefs asks git itself about a sample of slugs.
func TestSlugsAreValidRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, id := range []string{"fix: bug #123", "CON", "a.lock.lock", "é/ü", "x..y", "a@{b}", "-x", strings.Repeat("z", 300)} {
		s := Make(id)
		checkSlug(t, id, s)
		if out, err := exec.Command("git", "check-ref-format", "refs/git-wt/tasks/"+s).CombinedOutput(); err != nil {
			t.Errorf("git check-ref-format refs/git-wt/tasks/%s: %v %s", s, err, out)
		}
		if out, err := exec.Command("git", "check-ref-format", "--branch", "wt/"+s).CombinedOutput(); err != nil {
			t.Errorf("git check-ref-format --branch wt/%s: %v %s", s, err, out)
		}
	}
}

func BenchmarkMake(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Make("fix: bug #123 in the auth/login flow")
	}
}

// An id typed composed (NFC) or decomposed (NFD, as macOS's file names
// are) is one slug, in the composed form; Hangul syllables too, whose
// decomposed jamo are letters that would otherwise make another slug.
func TestMakeIsNFC(t *testing.T) {
	cases := []struct{ name, nfc, nfd string }{
		{"café", "caf\u00e9", "cafe\u0301"},
		{"Ünïcödé", "\u00dcn\u00efc\u00f6d\u00e9", "U\u0308ni\u0308co\u0308de\u0301"},
		{"Hangul 한국어", "\ud55c\uad6d\uc5b4", "\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.nfc == c.nfd {
				t.Fatal("the fixture's two forms are the same bytes")
			}
			if got, want := Make(c.nfd), Make(c.nfc); got != want || got != c.nfc {
				t.Fatalf("Make(NFD) = %q, Make(NFC) = %q, want both %q", got, want, c.nfc)
			}
			if !SameID(c.nfc, c.nfd) {
				t.Fatal("SameID: the two forms are two ids")
			}
		})
	}
}

func TestFolds(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"Fix", "fix", true},
		{"fix", "fix", false}, // the same slug is no other slug
		{"CAFÉ", "cafe\u0301", true},
		{"caf\u00e9", "cafe\u0301", true},
		{"fix", "fix-1a2b3c", false},
		{"straße", "strasse", false}, // APFS folds simply, not ß to ss
		{"\ud55c", "\u1112\u1161\u11ab", true},
	}
	for _, c := range cases {
		if got := Folds(c.a, c.b); got != c.want {
			t.Errorf("Folds(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if SameID("Fix", "fix") {
		t.Error("SameID ignores case: two tasks")
	}
}
