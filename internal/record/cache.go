package record

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strconv"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// blobCache keeps record blobs by object id in one file beside the
// records (<common dir>/wt/records.cache), so that reading every record
// asks git only for the refs and their ids (one for-each-ref, which opens
// no object) and not for the blobs: records are loose objects, and git
// opening, mapping and inflating 50 of them costs as much again as listing
// them. It is a cache and only that. An entry is "<id> <length>\n<bytes>\n",
// and it is used only if its bytes hash to its id as git hashes a blob, so
// a torn, stale or tampered entry is a miss, never a wrong record; a miss
// costs one `git cat-file --batch`. Entries are appended with one write
// (O_APPEND); the file is rewritten with only the live entries when the
// dead ones outnumber them, and a write that fails is ignored.
type blobCache struct{ path string }

// cacheSlack is how many dead entries the file may hold beyond as many as
// there are live ones before it is rewritten.
const cacheSlack = 32

// load reads the entries whose ids want holds (every entry, when want is
// nil) and whose bytes match their ids; total counts every entry in the
// file, live or dead. ok is false when the file ends in an entry that
// cannot be read (a torn write), which the next save repairs.
func (c blobCache) load(want map[string]bool) (blobs map[string][]byte, total int, ok bool) {
	data, err := os.ReadFile(c.path)
	blobs = map[string][]byte{}
	if err != nil {
		return blobs, 0, true
	}
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return blobs, total, false
		}
		oid, length, _ := bytes.Cut(data[:nl], []byte(" "))
		n, err := strconv.Atoi(string(length))
		end := nl + 1 + n
		if err != nil || n < 0 || end >= len(data) || data[end] != '\n' {
			return blobs, total, false
		}
		total++
		if blob := data[nl+1 : end : end]; (want == nil || want[string(oid)]) && blobID(string(oid), blob) {
			blobs[string(oid)] = blob
		}
		data = data[end+1:]
	}
	return blobs, total, true
}

// add appends blobs, by id.
func (c blobCache) add(blobs map[string][]byte) {
	if len(blobs) == 0 {
		return
	}
	f, err := fsutil.OpenUnder(filepath.Dir(c.path), c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666) // never through a planted link
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(encodeEntries(blobs))
}

// replace rewrites the file with only blobs, atomically: a reader sees the
// old file or the new one. An append racing with the rename may be lost,
// which costs a miss later.
func (c blobCache) replace(blobs map[string][]byte) {
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".records.cache-")
	if err != nil {
		return
	}
	_, err = tmp.Write(encodeEntries(blobs))
	if cerr := tmp.Close(); err == nil && cerr == nil {
		os.Chmod(tmp.Name(), 0o644)
		if os.Rename(tmp.Name(), c.path) == nil {
			return
		}
	}
	os.Remove(tmp.Name())
}

func encodeEntries(blobs map[string][]byte) []byte {
	var b bytes.Buffer
	for oid, blob := range blobs {
		fmt.Fprintf(&b, "%s %d\n", oid, len(blob))
		b.Write(blob)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// blobID says whether oid is the id git gives blob: the SHA-1 or (in a
// SHA-256 repository) the SHA-256 of "blob <length>\0<bytes>".
func blobID(oid string, blob []byte) bool {
	var h hash.Hash
	switch len(oid) {
	case 2 * sha1.Size:
		h = sha1.New()
	case 2 * sha256.Size:
		h = sha256.New()
	default:
		return false
	}
	fmt.Fprintf(h, "blob %d\x00", len(blob))
	h.Write(blob)
	return hex.EncodeToString(h.Sum(nil)) == oid
}
