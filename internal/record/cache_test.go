// These tests protect the record blob cache: it returns a blob only under
// the id git gives that blob, so that a torn, edited or foreign entry is a
// miss and never a wrong record, and it stays small.
package record

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitBlobID is the id git itself gives data.
func gitBlobID(t testing.TB, data []byte, format string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--object-format="+format, dir).CombinedOutput(); err != nil {
		t.Skipf("git init --object-format=%s: %v %s", format, err, out)
	}
	cmd := exec.Command("git", "-C", dir, "hash-object", "--stdin")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestBlobIDAgreesWithGit(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, data := range [][]byte{nil, []byte("{}\n"), []byte("a\x00b\nc")} {
			oid := gitBlobID(t, data, format)
			if !blobID(oid, data) {
				t.Errorf("%s: %q is not the id of %q", format, oid, data)
			}
			if blobID(oid, append(data, 'x')) {
				t.Errorf("%s: %q taken as the id of other bytes", format, oid)
			}
		}
	}
}

func TestCacheKeepsOnlyBlobsThatMatchTheirIDs(t *testing.T) {
	c := blobCache{filepath.Join(t.TempDir(), "wt", "records.cache")}
	good := []byte(`{"task":"a"}` + "\n")
	oid := gitBlobID(t, good, "sha1")
	c.add(map[string][]byte{oid: good})
	c.add(map[string][]byte{strings.Repeat("0", 40): []byte("not what that id names")})
	blobs, total, ok := c.load(nil)
	if !ok || len(blobs) != 1 || total != 2 || !bytes.Equal(blobs[oid], good) {
		t.Fatalf("load: %v %d %q", ok, total, blobs)
	}
	// Asked for some ids, it keeps only those, and still counts them all.
	if blobs, total, ok := c.load(map[string]bool{"other": true}); !ok || len(blobs) != 0 || total != 2 {
		t.Fatalf("load of other ids: %v %d %q", ok, total, blobs)
	}
	// A torn append (a process killed mid-write) loses what follows it,
	// not what came before, and says the file needs a rewrite.
	f, _ := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND, 0)
	fmt.Fprintf(f, "%s 99\n{\"tru", strings.Repeat("1", 40))
	f.Close()
	if blobs, _, ok := c.load(nil); ok || len(blobs) != 1 {
		t.Fatalf("load of a torn file: %v %q", ok, blobs)
	}
	c.replace(map[string][]byte{oid: good})
	if blobs, _, ok := c.load(nil); !ok || len(blobs) != 1 || !bytes.Equal(blobs[oid], good) {
		t.Fatalf("load after replace: %v %q", ok, blobs)
	}
}

func TestCacheMissingOrUnwritableIsNoError(t *testing.T) {
	c := blobCache{filepath.Join(t.TempDir(), "no", "such", "dir", "records.cache")}
	if blobs, _, ok := c.load(nil); !ok || len(blobs) != 0 {
		t.Fatalf("load of no file: %v %v", ok, blobs)
	}
	c = blobCache{"/proc/no-such-place/records.cache"}
	c.add(map[string][]byte{"x": nil})
	c.replace(map[string][]byte{"x": nil})
}

// BenchmarkCacheLoad reads 200 records' blobs from the cache, as list of
// 200 tasks does.
func BenchmarkCacheLoad(b *testing.B) {
	c := blobCache{filepath.Join(b.TempDir(), "records.cache")}
	blobs := map[string][]byte{}
	for i := 0; i < 200; i++ {
		r := &Record{Task: fmt.Sprintf("t%d", i), Slug: fmt.Sprintf("t%d", i), Path: fmt.Sprintf("/w/t%d", i), State: Active}
		data := r.Encode()
		blobs[gitBlobID(b, data, "sha1")] = data
	}
	c.replace(blobs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, _, ok := c.load(nil); !ok || len(got) != 200 {
			b.Fatal(len(got))
		}
	}
}
