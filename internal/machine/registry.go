// Package machine knows the repositories of this machine (SPEC §20): the
// registry of every repository git-wt has run in, the repositories whose
// worktrees agent runners keep under their own folders, and the survey of
// them all that `git wt list --machine` prints. It reads other
// repositories, never writes them.
package machine

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// The registry is a text file of common dirs, one a line, appended to by
// every git-wt that opens a repository it does not list yet. Appends are
// one write(2) of one whole line on a file opened O_APPEND, shorter than
// PIPE_BUF, so concurrent git-wts interleave whole lines, never bytes; two
// that register the same new repository at once write it twice, and a
// reader takes it once. Anything can end up in the file (a crash on a full
// disk, a user's editor, another program): a reader keeps only the lines
// that are absolute, clean, printable paths.
const (
	// maxLine bounds a registry line, newline included: below PIPE_BUF
	// (4096 on Linux, the most POSIX promises an atomic append for is 512,
	// but every system git-wt runs on has 4096 or more for regular files).
	maxLine = 4000
	// maxRegistry bounds how much of the file is read: a machine with
	// 100,000 repositories is past what one list shows anyway.
	maxRegistry = 4 << 20
)

// RegistryPath is the registry file: $XDG_STATE_HOME/git-wt/repos where
// XDG_STATE_HOME is an absolute path (the XDG rule: a relative one is
// ignored), else the platform's state folder (stateDir). ok is false when
// there is no home to put it in: then nothing is registered.
func RegistryPath(getenv func(string) string) (string, bool) {
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "git-wt", "repos"), true
	}
	dir, ok := stateDir(getenv)
	if !ok {
		return "", false
	}
	return filepath.Join(dir, "git-wt", "repos"), true
}

// Register adds the repository whose common dir is commonDir to the
// registry at path, unless it is listed there already: one small read for
// every command, a write only for a repository new to the registry. It
// never fails the command that calls it: a registry that cannot be read or
// written (a read-only home, a sandbox) registers nothing, silently.
func Register(path, commonDir string) {
	line, ok := registryLine(commonDir)
	if !ok {
		return
	}
	data, err := readBounded(path)
	if err == nil && listed(data, line) || err != nil && !os.IsNotExist(err) {
		return // listed, or no registry git-wt can read: one it would not append to either
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// A torn line (a crash on a full disk) is ended first, in the
		// same write, so that it does not swallow this one. Another
		// append in between makes an empty line, which readers skip.
		line = append([]byte{'\n'}, line...)
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|registryOpen, 0o600)
	if err != nil {
		return
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close() // no longer the file read above: something swapped in since
		return
	}
	appendLine(f, line) // one write of one line
	f.Close()
}

// registryLine is commonDir as the registry holds it, newline included,
// and whether it can be held at all: an absolute, clean, printable path
// short enough for one atomic append.
func registryLine(commonDir string) ([]byte, bool) {
	if !validPath(commonDir) || len(commonDir)+1 > maxLine {
		return nil, false
	}
	return []byte(commonDir + "\n"), true
}

// listed says whether the registry data holds line (newline included) as
// one of its lines.
func listed(data, line []byte) bool {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return false // a torn last line is not the one asked for
		}
		if bytes.Equal(data[:i+1], line) {
			return true
		}
		data = data[i+1:]
	}
	return false
}

// ReadRegistry returns the common dirs listed in the registry at path
// (ParseRegistry); a registry that does not exist lists none.
func ReadRegistry(path string) ([]string, error) {
	data, err := readBounded(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return ParseRegistry(data), err
}

// ParseRegistry returns the paths the registry data lists, each once (by
// fsutil.PathKey: on Windows in any case), in the order of their first line, skipping every line that is no absolute
// clean path of printable characters (a torn append, a control character,
// a relative path, a line too long): such a line names no repository
// git-wt registered. Whether a path is still a repository is the
// survey's question.
func ParseRegistry(data []byte) []string {
	var paths []string
	seen := map[string]bool{}
	for {
		line, rest, whole := bytes.Cut(data, []byte("\n"))
		if !whole {
			return paths // what follows the last newline is a torn line, or nothing
		}
		data = rest
		p := string(line)
		if len(line)+1 > maxLine || !validPath(p) || seen[fsutil.PathKey(p)] {
			continue
		}
		seen[fsutil.PathKey(p)] = true
		paths = append(paths, p)
	}
}

// validPath says whether p may stand in the registry: absolute, clean,
// valid UTF-8 without control characters (the terminal shows these paths,
// and a newline would split the line).
func validPath(p string) bool {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || !utf8.ValidString(p) {
		return false
	}
	return !slices.ContainsFunc([]rune(p), unicode.IsControl)
}

// readBounded reads at most maxRegistry bytes of the regular file at path
// (itself no link, and never waited for: registryOpen).
func readBounded(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|registryOpen, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	// One read of the size the file has (it grows only by appends).
	buf := bytes.NewBuffer(make([]byte, 0, min(st.Size(), maxRegistry)+512))
	_, err = buf.ReadFrom(io.LimitReader(f, maxRegistry))
	return buf.Bytes(), err
}
