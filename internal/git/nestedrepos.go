package git

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// A repository nested in a worktree (SPEC §19): an agent runs `git init
// sub` in its task, writes a config there that runs a program (a
// core.fsmonitor, a clean filter), and adds sub to the task's index as a
// gitlink — no .gitmodules needed. git status --ignore-submodules=none
// then runs git in sub with that config, on git-wt's behalf and outside
// the agent's sandbox. A filter is named by the config itself and cannot
// be turned off from outside, so CheckNestedRepos reads, before such a
// status, the config of every repository git would enter: the gitlinks of
// the index whose folder holds a .git (a folder, or a file naming the git
// dir: a submodule's, which an agent can point anywhere), and the
// gitlinks of their own indexes in turn. The usual worktree has no
// gitlink, and the check costs a read of its index.

// maxNesting is how deep CheckNestedRepos follows repositories nested in
// repositories; deeper is refused rather than left unread.
const maxNesting = 16

// CheckNestedRepos refuses, as CheckGitDirConfig does, the worktree at
// dir whose index (the file index; its split index's shared part in
// gitDir) holds a gitlink to a repository whose config (or that of one
// nested in it) runs a program or reaches elsewhere.
func CheckNestedRepos(dir, index, gitDir string) error {
	return checkNested(dir, index, gitDir, 0)
}

func checkNested(dir, index, gitDir string, depth int) error {
	links, err := indexGitlinks(index, gitDir)
	if err != nil {
		return &UnsafeGitDirError{Path: index, Why: fmt.Sprintf("git-wt cannot read it (%v), so cannot tell which repositories git status would enter", err)}
	}
	for _, link := range links {
		top := filepath.Join(dir, filepath.FromSlash(link))
		nested, err := nestedGitDir(top)
		if err != nil || nested == "" {
			return err
		}
		if depth == maxNesting {
			return &UnsafeGitDirError{Path: top, Why: fmt.Sprintf("repositories nested more than %d deep; git-wt does not look so far", maxNesting)}
		}
		if err := checkSubmoduleGitDir(nested); err != nil {
			return err
		}
		if err := checkOwnWorktree(nested, top); err != nil {
			return err
		}
		if err := checkNested(top, filepath.Join(nested, "index"), nested, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkOwnWorktree refuses the nested repository whose git dir gitDir
// names in its config (core.worktree) another worktree than top, where
// git finds it: the gitlinks of that other folder, which git would enter
// and which checkNested looks for under top, would go unchecked. git
// writes core.worktree into an absorbed submodule's config, naming its
// own folder.
func checkOwnWorktree(gitDir, top string) error {
	config := filepath.Join(gitDir, "config")
	data, err := os.ReadFile(config)
	if err != nil {
		return nil // checkSubmoduleGitDir read it: gone since, git finds none either
	}
	worktree, err := configFileValue(data, "core.worktree")
	switch {
	case err != nil:
		return &UnsafeGitDirError{Path: config, Key: "core.worktree", Why: err.Error() + ", so git-wt cannot tell which folder git would look into"}
	case worktree == "":
		return nil
	}
	if !filepath.IsAbs(worktree) {
		worktree = filepath.Join(gitDir, worktree)
	}
	if fsutil.SamePath(worktree, top) {
		return nil
	}
	real, err1 := filepath.EvalSymlinks(worktree)
	realTop, err2 := filepath.EvalSymlinks(top)
	if err1 == nil && err2 == nil && fsutil.SamePath(real, realTop) {
		return nil
	}
	return &UnsafeGitDirError{Path: config, Key: "core.worktree",
		Why: "a repository nested in the worktree names another folder as its worktree, whose repositories git status would enter unchecked; remove it"}
}

// configFileValue is the last value of key (lower case, as
// configFileKeys lists it) in a config file configFileKeys reads: ""
// when it has none. Only a value as git writes a path is read (plain, or
// in double quotes, with no escape and no comment); any other is an error.
func configFileValue(data []byte, key string) (string, error) {
	value, section := "", ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section, _ = configSection(line)
			continue
		}
		name, v, _ := strings.Cut(line, "=")
		if section+"."+strings.ToLower(strings.TrimSpace(name)) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if unquoted, ok := strings.CutPrefix(v, `"`); ok {
			if v, ok = strings.CutSuffix(unquoted, `"`); !ok {
				return "", errors.New("a value git-wt cannot read")
			}
		}
		if v == "" || strings.ContainsAny(v, "\\\";#") {
			return "", errors.New("a value git-wt cannot read")
		}
		value = v
	}
	return value, nil
}

// nestedGitDir is the git dir git would use for the repository at top, a
// gitlink's folder: its .git folder, or the one its .git file names; ""
// when git would not enter it (no .git, not populated).
func nestedGitDir(top string) (string, error) {
	dotGit := filepath.Join(top, ".git")
	st, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return "", nil
	case st.IsDir():
		return dotGit, nil
	case !st.Mode().IsRegular() || st.Size() > 64<<10:
		// A fifo would hold git-wt forever.
		return "", &UnsafeGitDirError{Path: dotGit, Why: "it is neither a folder nor a gitfile; remove it"}
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", &UnsafeGitDirError{Path: dotGit, Why: fmt.Sprintf("cannot read it (%v)", err)}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || target == "" {
		return "", nil // git finds no repository there either
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(top, target)
	}
	return target, nil
}

// indexGitlinks lists the paths (with '/') of the gitlinks in the index
// file at path: none when there is no file.
func indexGitlinks(path, gitDir string) ([]string, error) {
	scan, err := scanIndexFiles(path, gitDir)
	return scan.links, err
}

// indexScan is what one streamed read of an index finds.
type indexScan struct {
	links  []string // the paths of its gitlinks
	shared string   // the shared index a split index names
	// Entries (not gitlinks) marked assume-unchanged, and skip-worktree.
	assumed, skipped bool
}

// scanIndexFiles scans the index file at path: nothing when there is no
// file. A split index's entries are in two files, this one and the
// shared one in gitDir it names; both are read (an entry the first one
// deletes is still counted: a repository checked needlessly, never one
// left unchecked).
func scanIndexFiles(path, gitDir string) (indexScan, error) {
	scan, err := readIndex(path)
	if errors.Is(err, os.ErrNotExist) {
		return indexScan{}, nil
	}
	if err != nil || scan.shared == "" {
		return scan, err
	}
	more, err := readIndex(filepath.Join(gitDir, "sharedindex."+scan.shared))
	scan.links = append(scan.links, more.links...)
	scan.assumed = scan.assumed || more.assumed
	scan.skipped = scan.skipped || more.skipped
	return scan, err
}

// readIndex is scanIndex of the file at path, read as a stream: an index
// can be tens of megabytes, and list reads one per task at once.
func readIndex(path string) (indexScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return indexScan{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return indexScan{}, err
	}
	if !st.Mode().IsRegular() {
		return indexScan{}, errors.New("it is no file")
	}
	return scanIndex(f, st.Size())
}

// scanIndex reads the size bytes of git's index format
// (gitformat-index(5), versions 2 to 4) for its gitlinks, its hidden
// entries, and the shared index a split index names. The file does not
// say its hash's length: SHA-1's is tried, then SHA-256's; only a length
// that makes the entries and the extensions end exactly at the file's
// checksum is taken.
func scanIndex(r io.ReaderAt, size int64) (scan indexScan, err error) {
	for _, hashLen := range []int{20, 32} {
		if size < int64(12+hashLen) {
			return indexScan{}, errIndexFormat
		}
		in := bufio.NewReaderSize(io.NewSectionReader(r, 0, size-int64(hashLen)), int(min(size, 64<<10)))
		if scan, err = parseIndex(in, hashLen); err == nil {
			return scan, nil
		}
	}
	return indexScan{}, err
}

const gitlinkMode = 0o160000

// The bits of an index entry's flags, and of its extended flags, that
// hide its file from git status (gitformat-index(5)).
const (
	flagAssumeValid  = 0x8000 // git update-index --assume-unchanged
	flagExtended     = 0x4000 // extended flags follow
	flagSkipWorktree = 0x4000 // of the extended flags: --skip-worktree, or a sparse checkout's
)

var errIndexFormat = errors.New("not an index git-wt can read")

// parseIndex reads the entries and extensions of an index whose hashes
// are hashLen long, up to (and not including) its checksum.
func parseIndex(in *bufio.Reader, hashLen int) (indexScan, error) {
	head := make([]byte, 12)
	if _, err := io.ReadFull(in, head); err != nil || string(head[:4]) != "DIRC" {
		return indexScan{}, errIndexFormat
	}
	version := binary.BigEndian.Uint32(head[4:])
	if version < 2 || version > 4 {
		return indexScan{}, fmt.Errorf("index version %d", version)
	}
	var scan indexScan
	var name []byte // version 4 names an entry by what it keeps of the one before
	// ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4
	// each), the object's hash, the flags (2), and the extended flags (2)
	// when the flags say so.
	fixed := make([]byte, 40+hashLen+4)
	for range binary.BigEndian.Uint32(head[8:]) {
		n := 40 + hashLen + 2
		if _, err := io.ReadFull(in, fixed[:n]); err != nil {
			return indexScan{}, errIndexFormat
		}
		flags, extended := binary.BigEndian.Uint16(fixed[40+hashLen:]), uint16(0)
		if flags&flagExtended != 0 {
			if version < 3 {
				return indexScan{}, errIndexFormat
			}
			if _, err := io.ReadFull(in, fixed[n:n+2]); err != nil {
				return indexScan{}, errIndexFormat
			}
			extended = binary.BigEndian.Uint16(fixed[n:])
			n += 2
		}
		var err error
		if version == 4 {
			name, err = prefixedName(in, name)
		} else {
			name, err = paddedName(in, n)
		}
		if err != nil {
			return indexScan{}, errIndexFormat
		}
		if binary.BigEndian.Uint32(fixed[24:]) == gitlinkMode {
			scan.links = append(scan.links, string(name))
			continue
		}
		scan.assumed = scan.assumed || flags&flagAssumeValid != 0
		scan.skipped = scan.skipped || extended&flagSkipWorktree != 0
	}
	var err error
	scan.shared, err = indexExtensions(in, hashLen)
	return scan, err
}

// paddedName reads a version 2 or 3 entry's name, NUL-padded so that the
// entry, fixed bytes long before it, fills a multiple of 8 bytes.
func paddedName(in *bufio.Reader, fixed int) ([]byte, error) {
	name, err := in.ReadSlice(0)
	if err != nil {
		return nil, err
	}
	name = name[:len(name)-1]
	pad := (fixed+len(name)+8)&^7 - (fixed + len(name) + 1)
	if _, err := in.Discard(pad); err != nil {
		return nil, err
	}
	return name, nil
}

// prefixedName reads a version 4 entry's name: how many bytes of the name
// before (prev, whose memory it reuses) to drop, as git's offset varint,
// then the rest, NUL-terminated.
func prefixedName(in *bufio.Reader, prev []byte) ([]byte, error) {
	var drop uint64
	for i := 0; ; i++ {
		c, err := in.ReadByte()
		if err != nil || i == 10 {
			return nil, errIndexFormat
		}
		drop = drop<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			break
		}
		drop++
	}
	if drop > uint64(len(prev)) {
		return nil, errIndexFormat
	}
	rest, err := in.ReadSlice(0)
	if err != nil {
		return nil, err
	}
	return append(prev[:len(prev)-int(drop)], rest[:len(rest)-1]...), nil
}

// indexExtensions reads the extensions after the entries (a signature
// and a length each), which must end where the input does, and returns
// the shared index a split index's "link" extension names.
func indexExtensions(in *bufio.Reader, hashLen int) (string, error) {
	shared := ""
	head := make([]byte, 8)
	for {
		switch _, err := io.ReadFull(in, head); {
		case err == io.EOF:
			return shared, nil
		case err != nil:
			return "", errIndexFormat
		}
		size := int(binary.BigEndian.Uint32(head[4:]))
		if string(head[:4]) == "link" {
			if size < hashLen {
				return "", errIndexFormat
			}
			oid := make([]byte, hashLen)
			if _, err := io.ReadFull(in, oid); err != nil {
				return "", errIndexFormat
			}
			if !bytes.Equal(oid, make([]byte, hashLen)) {
				shared = hex.EncodeToString(oid)
			}
			size -= hashLen
		}
		if n, err := in.Discard(size); err != nil || n != size {
			return "", errIndexFormat
		}
	}
}

// indexFile is the index a git with env added to its environment reads in
// the worktree whose git dir is gitDir: GIT_INDEX_FILE's, else its own.
func indexFile(env []string, gitDir string) string {
	index := filepath.Join(gitDir, "index")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_INDEX_FILE="); ok {
			index = v
		}
	}
	return index
}
