// These tests protect record decoding: a corrupted or hand-edited record
// is an error, never a panic, and a good one round-trips.
package record

import (
	"errors"
	"testing"
	"time"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	r := &Record{Task: "fix: bug #123", Slug: "fix-_bug_-123", Branch: "wt/fix-_bug_-123", Path: "/w/fix-_bug_-123",
		Base: "refs/heads/main", BaseSHA: "abc", State: Active, CreatedAt: time.Unix(1, 0).UTC(), Locked: true}
	got, err := Decode(r.Slug, r.Encode())
	if err != nil || got.Task != r.Task || got.State != Active || !got.Locked || !got.CreatedAt.Equal(r.CreatedAt) {
		t.Fatalf("Decode(Encode(r)) = %+v, %v", got, err)
	}
}

func TestDecodeRejectsBadRecords(t *testing.T) {
	for _, data := range []string{"", "null", "[]", "{", `{"task":"t"}`, `{"task":"t","slug":"other","path":"/p"}`, "\x00\xff", `{"task":1}`} {
		if _, err := Decode("s", []byte(data)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%q) = %v, want ErrCorrupt", data, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("s", []byte(`{"task":"t","slug":"s","path":"/p","branch":"wt/s","state":"active"}`))
	f.Add("s", []byte(`{"task":"t","slug":"s","path":"/p","init":{"ran":true,"status":"failed"},"pr":{"number":3}}`))
	f.Add("x", []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"))
	f.Fuzz(func(t *testing.T, slug string, data []byte) {
		r, err := Decode(slug, data)
		if err == nil && (r.Task == "" || r.Slug != slug || r.Path == "") {
			t.Fatalf("Decode accepted a record without task, slug or path: %+v", r)
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode error is not ErrCorrupt: %v", err)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	r := &Record{Task: "fix: bug #123", Slug: "fix-_bug_-123", Branch: "wt/fix-_bug_-123", Path: "/w/fix-_bug_-123",
		Base: "refs/heads/main", BaseSHA: "abc", State: Active, CreatedAt: time.Unix(1, 0).UTC()}
	data := r.Encode()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(r.Slug, data); err != nil {
			b.Fatal(err)
		}
	}
}

// On a file system that ignores case and Unicode form, the ref of slug
// "fix" may be the file of "Fix": its record is another task's, not a
// corrupt one. A record of an unrelated slug stays corrupt.
func TestDecodeUnderAFoldedName(t *testing.T) {
	for _, c := range []struct{ own, readAs string }{{"Fix", "fix"}, {"CAF\u00c9", "caf\u00e9"}, {"caf\u00e9", "cafe\u0301"}} {
		r := &Record{Task: c.own, Slug: c.own, Path: "/w/" + c.own}
		_, err := Decode(c.readAs, r.Encode())
		if !errors.Is(err, ErrFolded) || errors.Is(err, ErrCorrupt) {
			t.Errorf("record of %q read as %q: %v, want ErrFolded", c.own, c.readAs, err)
		}
	}
	r := &Record{Task: "other", Slug: "other", Path: "/w/other"}
	if _, err := Decode("fix", r.Encode()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("record of another slug: %v, want ErrCorrupt", err)
	}
}
