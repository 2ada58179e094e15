package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// MinVersion is the oldest git git-wt supports: 2.31 brought
// `rev-parse --path-format=absolute`.
var MinVersion = Version{2, 31}

// Version is git's major and minor version.
type Version struct{ Major, Minor int }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// AtLeast reports whether v is o or newer.
func (v Version) AtLeast(o Version) bool {
	return v.Major > o.Major || v.Major == o.Major && v.Minor >= o.Minor
}

// ParseVersion reads the output of `git version` ("git version 2.39.5").
func ParseVersion(out string) (Version, error) {
	fields := strings.Fields(out)
	if len(fields) < 3 {
		return Version{}, fmt.Errorf("cannot read git's version from %q", strings.TrimSpace(out))
	}
	parts := strings.SplitN(fields[2], ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("cannot read git's version from %q", strings.TrimSpace(out))
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return Version{}, fmt.Errorf("cannot read git's version from %q", strings.TrimSpace(out))
	}
	return Version{major, minor}, nil
}

// Repo is where a repository's pieces are, all absolute paths.
type Repo struct {
	Toplevel  string // the worktree the command started in
	GitDir    string // that worktree's git dir
	CommonDir string // the git dir shared by all worktrees
	MainDir   string // the main worktree
	HooksDir  string // where git looks for hooks (core.hooksPath, else the common dir's hooks/)
	Version   Version
}

// Located errors: each is a one-line explanation for exit 1.
var (
	ErrNotRepository = errors.New("not a git repository (or any parent up to the root)")
	ErrBare          = errors.New("this is a bare repository: git-wt needs a main worktree to work from")
	ErrInsideGitDir  = errors.New("inside a git directory: run git-wt from a working tree")
)

// Locate finds the repository containing dir, honouring GIT_DIR and
// GIT_WORK_TREE as git would, with one `git rev-parse`, which also asks
// where hooks live, so that git-wt never guesses the hooks dir. git's
// version is checked too: with `git version` the first time a git binary
// is seen in this repository, and from a stamp in the common dir after that.
func (r *Runner) Locate(ctx context.Context, dir string) (*Repo, error) {
	out, revErr := r.Exec(ctx, Cmd{Dir: dir, KeepLocation: true, Args: []string{
		"rev-parse", "--is-bare-repository", "--is-inside-git-dir",
		"--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel",
		"--git-path", "hooks",
	}})
	if errors.Is(revErr, ErrNotInstalled) {
		return nil, ErrNotInstalled
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	commonDir := ""
	if revErr == nil && len(lines) == 6 {
		commonDir = filepath.Clean(lines[3])
	}
	if err := checkStateDir(commonDir); err != nil {
		return nil, err
	}
	if commonDir != "" {
		if err := CheckGitDirConfig(filepath.Clean(lines[2]), commonDir); err != nil {
			return nil, err
		}
	}
	// An old git fails or misreads the rev-parse above: its version
	// explains that better than anything rev-parse says.
	v, err := r.checkVersion(ctx, dir, commonDir)
	if err != nil {
		return nil, err
	}
	r.version = v
	if len(lines) >= 1 && lines[0] == "true" {
		return nil, ErrBare
	}
	if len(lines) >= 2 && lines[1] == "true" {
		return nil, ErrInsideGitDir
	}
	if revErr != nil || len(lines) < 6 {
		if ExitCode(revErr) == 128 {
			// Name where git looked: a script's cd that went wrong, or a
			// -C, shows at once.
			if gd := os.Getenv("GIT_DIR"); gd != "" {
				return nil, fmt.Errorf("%w: GIT_DIR=%s", ErrNotRepository, gd)
			}
			return nil, fmt.Errorf("%w: %s", ErrNotRepository, dir)
		}
		if revErr == nil {
			revErr = fmt.Errorf("unexpected output from git rev-parse: %q", out)
		}
		return nil, revErr
	}
	repo := &Repo{
		GitDir:    filepath.Clean(lines[2]),
		CommonDir: commonDir,
		Toplevel:  filepath.Clean(lines[4]),
		HooksDir:  filepath.Clean(lines[5]),
		Version:   v,
	}
	main, err := r.mainWorktree(ctx, repo)
	if err != nil {
		return nil, err
	}
	repo.MainDir = main
	r.SetRepository(repo.CommonDir, repo.MainDir)
	return repo, nil
}

// checkStateDir refuses a repository whose <common dir>/wt, git-wt's own
// folder, is a link or no folder: anything that can write the git dir (an
// agent whose sandbox guards only .git/config and .git/hooks) could make
// it one, and every file git-wt keeps there (its lock, its stamps) would
// then be made in the folder it names (SPEC §19). Each writer checks again
// (a folder, not a link) for a link planted after this check.
func checkStateDir(commonDir string) error {
	if commonDir == "" {
		return nil
	}
	path := filepath.Join(commonDir, "wt")
	if st, err := os.Lstat(path); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is a link or a file, where git-wt keeps its own folder: remove it (git-wt makes it again)", path)
	}
	return nil
}

// checkVersion returns git's version, refusing one older than MinVersion.
// The answer is kept in <common dir>/wt/git-version, keyed by the git
// binary's path, size, time and inode, so that asking costs a process only
// when git changes (or outside a repository).
func (r *Runner) checkVersion(ctx context.Context, dir, commonDir string) (Version, error) {
	key := binaryKey()
	stamp := ""
	if commonDir != "" && key != "" {
		stamp = filepath.Join(commonDir, "wt", "git-version")
		if data, err := os.ReadFile(stamp); err == nil {
			if k, ver, ok := strings.Cut(string(data), "\n"); ok && k == key {
				if v, err := ParseVersion(ver); err == nil && v.AtLeast(MinVersion) {
					return v, nil
				}
			}
		}
	}
	out, err := r.Run(ctx, dir, "version")
	if err != nil {
		return Version{}, err
	}
	v, err := ParseVersion(out)
	if err != nil {
		return Version{}, err
	}
	if !v.AtLeast(MinVersion) {
		return Version{}, fmt.Errorf("git %s is too old: git-wt needs git %s or newer", v, MinVersion)
	}
	if stamp != "" {
		writeStamp(stamp, key+"\n"+strings.TrimSpace(out)+"\n")
	}
	return v, nil
}

// AskVersion asks git its version (git version, run in the temporary
// folder), refusing one older than MinVersion, and keeps it for this
// runner's commands. Unlike Locate it keeps no stamp in any repository:
// for a command that runs git in repositories it must not write in (list
// --machine, SPEC §20).
func (r *Runner) AskVersion(ctx context.Context) (Version, error) {
	v, err := r.checkVersion(ctx, os.TempDir(), "")
	if err == nil {
		r.version = v
	}
	return v, err
}

// SetVersion tells the runner git's version, as AskVersion gave it to
// another runner: each repository list --machine reads has a runner of
// its own.
func (r *Runner) SetVersion(v Version) { r.version = v }

// binaryKey names the git binary on PATH by path, size, time and inode.
func binaryKey() string {
	path, err := exec.LookPath("git")
	if err != nil {
		return ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%s %d %d", path, st.Size(), st.ModTime().UnixNano())
	if _, ino, ok := fileIDs(st); ok {
		key += fmt.Sprintf(" %d", ino)
	}
	return key
}

// writeStamp writes a small file atomically, best effort.
func writeStamp(path, content string) { writeAtomic(path, []byte(content), 0o644) }

// writeAtomic writes a file with mode perm atomically, best effort: a
// temporary file made new (never one a link planted at a name it could
// guess leads elsewhere), then renamed over path (which replaces a link
// there, never writes through it).
func writeAtomic(path string, data []byte, perm os.FileMode) {
	if os.MkdirAll(filepath.Dir(path), 0o777) != nil {
		return
	}
	if st, err := os.Lstat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return // a link to a folder elsewhere (checkStateDir)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err != nil || cerr != nil || os.Chmod(f.Name(), perm) != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// mainWorktree works out the main worktree without another process in the
// usual layouts, and asks `git worktree list` otherwise.
func (r *Runner) mainWorktree(ctx context.Context, repo *Repo) (string, error) {
	if repo.GitDir == repo.CommonDir {
		return repo.Toplevel, nil
	}
	if filepath.Base(repo.CommonDir) == ".git" {
		return filepath.Dir(repo.CommonDir), nil
	}
	wts, err := r.Worktrees(ctx, repo.Toplevel)
	if err != nil {
		return "", err
	}
	if len(wts) == 0 || wts[0].Bare {
		return "", ErrBare
	}
	return wts[0].Path, nil
}
