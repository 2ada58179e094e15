// Package git runs git. Every git subprocess that git-wt starts goes through
// Runner: argv without a shell, an explicit directory, an environment
// scrubbed of the variables that would point git at another repository, and
// a typed error carrying the exit code and stderr. Callers branch on exit
// codes and machine-readable output, never on git's (translatable) English.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/text"
)

// InternalEnv marks git processes started by git-wt. The hooks git-wt
// installs see it and stand aside: the git-wt command that started git does
// that work itself, under the lock it already holds.
const InternalEnv = "GIT_WT_INTERNAL"

// ErrNotInstalled means there is no git on PATH.
var ErrNotInstalled = errors.New("git is not installed or not on PATH")

// Error is a git command that ran and failed, or could not be started.
type Error struct {
	Args   []string
	Dir    string
	Code   int            // git's exit status; -1 when it did not exit normally
	Signal syscall.Signal // the signal that killed git, if one did
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	args := strings.Join(e.Args, " ")
	var pe *fs.PathError
	if e.Code == -1 && e.Signal == 0 && errors.As(e.Err, &pe) && pe.Op == "chdir" {
		// git never started: its folder is gone (removed meanwhile) or
		// cannot be entered.
		return fmt.Sprintf("cannot run git %s in %s: %v", args, e.Dir, pe.Err)
	}
	msg := reason(e.Stderr)
	var ee *exec.ExitError
	if msg == "" && e.Err != nil && (e.Signal != 0 || !errors.As(e.Err, &ee)) {
		msg = e.Err.Error() // but "exit status 1" says no more than the code
	}
	if os.Getenv("GIT_WT_DEBUG") != "" {
		msg = e.Stderr
	}
	if msg == "" {
		return fmt.Sprintf("git %s failed (exit %d)", args, e.Code)
	}
	return fmt.Sprintf("git %s failed (exit %d): %s", args, e.Code, msg)
}

// IsLockError reports whether err is git failing on a lock file that
// another process holds (index.lock, a ref's lock): git's retries are
// spent, and its advice about it is no use to git-wt's user.
func IsLockError(err error) bool { return transientLock(err) }

// LockFileOf is the lock file git failed on, as its message names it
// (cleaned), when err is such a failure.
func LockFileOf(err error) (string, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code <= 0 {
		return "", false
	}
	m := lockPath().FindStringSubmatch(e.Stderr)
	if m == nil {
		return "", false
	}
	return filepath.Clean(m[1]), true
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns git's exit status if err is an *Error, else -1.
func ExitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}

// maxReasonLines bounds the lines of git's output an error keeps: a
// checkout that would overwrite files lists every one of them.
const maxReasonLines = 8

// reason is what git said of its failure: its fatal: and error: lines,
// each with the lines that go on from it (up to a blank line or a hint),
// joined into one line; else, as from a git speaking another language,
// its last line. Not the last line alone: after its fatal: lines, git
// often ends with advice ("and the repository exists.").
func reason(stderr string) string {
	var parts []string
	kept, goesOn := 0, false
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "fatal:") || strings.HasPrefix(line, "error:"):
			parts = append(parts, line)
			goesOn = true
		case goesOn && line != "" && !strings.HasPrefix(line, "hint:") && !strings.HasPrefix(line, "warning:"):
			parts[len(parts)-1] += " " + line
		default:
			goesOn = false
			continue
		}
		if kept++; kept == maxReasonLines {
			break
		}
	}
	if len(parts) == 0 {
		return lastLine(stderr)
	}
	return strings.Join(parts, "; ")
}

// lastLine is the last line git printed.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// Cmd describes one git invocation.
type Cmd struct {
	Dir  string   // working directory; always set by callers
	Args []string // arguments after "git"
	// Stdin, when set, is fed to git.
	Stdin io.Reader
	// Env adds variables (KEY=VALUE) to the scrubbed environment.
	Env []string
	// Config gives git settings for this command alone, as -c would, but
	// through GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n> and
	// GIT_CONFIG_VALUE_<n>: git reads each key and value whole, where it
	// splits -c's "key=value" at the first "=" (a key that holds one, a
	// submodule's name, say, would set another key).
	Config []ConfigPair
	// Stdout and Stderr, when set, receive git's output as it comes
	// instead of it being captured.
	Stdout io.Writer
	Stderr io.Writer
	// KeepLocation keeps GIT_DIR, GIT_WORK_TREE and friends: only for
	// locating the repository at start, as git itself would.
	KeepLocation bool
	// NoRetry turns off the retry on git's transient lock errors.
	NoRetry bool
	// InWorktree runs git in the worktree Dir of the repository Locate
	// found: its main worktree, or a linked one (a task's), proven so
	// first (ProveLinked). git is then told where its git dir, common dir
	// and worktree are (GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE) instead of
	// finding them through the worktree's .git file and its entry's
	// commondir file, which an agent can write (SPEC §19). A folder that
	// fails the proof is an error (*NotLinkedError) and no git runs.
	InWorktree bool
	// InSubmodule runs git in a submodule's folder inside a task
	// worktree and stops git from looking above Dir for a repository: if
	// the submodule's .git is missing, git must fail rather than act on
	// the worktree around it.
	InSubmodule bool
	// entersNested, with InWorktree, says git looks into the repositories
	// nested in the worktree (status --ignore-submodules=none), running
	// git there with their config: CheckNestedRepos checks those first.
	entersNested bool
}

// Runner starts git processes.
type Runner struct {
	// Trace, when set, receives one line per git command (for --verbose).
	Trace io.Writer

	// Fake, when set, answers every Exec (and Run, RunIn, Lines) in
	// place of a git process: tests set it (through gittest) to check
	// argv and feed canned output. Start does not consult it.
	Fake func(ctx context.Context, c Cmd) ([]byte, error)

	version Version // known once Locate ran
	// located is the repository whose worktrees Cmd.InWorktree runs git
	// in: set by Locate and Complete, or earlier by SetRepository, while
	// git may already run.
	located atomic.Pointer[located]

	envOnce sync.Once
	env     []string
	// aside is added to every git's environment once ReadOnly was
	// called: objects written aside, no optional locks; and readOnly,
	// the settings that keep that repository's config from running a
	// program (readOnlyConfig).
	aside    []string
	readOnly []ConfigPair

	shellOnce sync.Once // Shell: found once
	shell     string
	shellErr  error
}

// ReadOnly makes every git this runner starts leave the repository whose
// common dir is commonDir as it was: the objects git writes (a merge-tree
// of SPEC §7's merged check) go into scratch, an empty folder of the
// caller's (GIT_OBJECT_DIRECTORY), while the repository's own are read
// as alternates; and no git takes an optional lock (GIT_OPTIONAL_LOCKS=0:
// a status does not write the index back). For reading another
// repository than the one git-wt runs in (list --machine, SPEC §20),
// whose config is not the user's word: every git also runs with
// readOnlyConfig. Call it before the runner starts any git, after
// CheckReadOnlyRepo.
func (r *Runner) ReadOnly(commonDir, scratch string) {
	r.aside = []string{"GIT_OBJECT_DIRECTORY=" + scratch,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(commonDir, "objects"), "GIT_OPTIONAL_LOCKS=0"}
	r.readOnly = readOnlyConfig
}

// readOnlyConfig turns off what another repository's config (or that of
// a repository nested in one of its worktrees, which git status looks
// into: git passes these settings on to the gits it starts there) could
// make a reading git run: core.fsmonitor names a program git status runs
// (or starts a daemon), and log.showSignature makes git log run
// gpg.program. The settings that name a program by a name of the
// config's own choosing (filter and merge drivers) cannot be turned off
// so: CheckReadOnlyRepo refuses them in the repository's own config, and
// Status does not look into a submodule's changes, for which git would
// run git in it with its own config.
var readOnlyConfig = []ConfigPair{{"core.fsmonitor", "false"}, {"log.showSignature", "false"}}

// Run runs git with args in dir and returns its stdout.
func (r *Runner) Run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: args})
	return string(out), err
}

// RunIn runs git with args inside the task worktree dir (see
// Cmd.InWorktree) and returns its stdout.
func (r *Runner) RunIn(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: args, InWorktree: true})
	return string(out), err
}

// Lines runs git and splits its stdout into lines, dropping the empty ones.
func (r *Runner) Lines(ctx context.Context, dir string, args ...string) ([]string, error) {
	out, err := r.Run(ctx, dir, args...)
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(out, func(c rune) bool { return c == '\n' }), nil
}

// Exec runs c and returns git's stdout (nil when c.Stdout is set). Git's
// transient lock errors (another git holds index.lock or a ref lock for a
// moment) are retried briefly unless c.NoRetry; with input, only when it
// can be read again from its start (a strings or bytes Reader: an
// update-ref --stdin transaction, which a failed lock leaves undone).
func (r *Runner) Exec(ctx context.Context, c Cmd) ([]byte, error) {
	delay := 20 * time.Millisecond
	rewind, rewinds := c.Stdin.(io.Seeker)
	for attempt := 0; ; attempt++ {
		out, err := r.execOnce(ctx, c)
		if err == nil || c.NoRetry || c.Stdin != nil && !rewinds || attempt >= 5 || !transientLock(err) {
			return out, err
		}
		if rewinds {
			if _, serr := rewind.Seek(0, io.SeekStart); serr != nil {
				return out, err
			}
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(delay):
		}
		delay *= 2
	}
}

func (r *Runner) execOnce(ctx context.Context, c Cmd) ([]byte, error) {
	if r.Fake != nil {
		return r.Fake(ctx, c)
	}
	cmd, out, err := r.command(ctx, c)
	if err != nil {
		return nil, err
	}
	return out.result(ctx, c, cmd.Run())
}

// output is what a git process wrote, and what makes its error.
type output struct{ stdout, stderr bytes.Buffer }

// command prepares git for c: its environment, directory and output. It
// fails, starting nothing, for a c.InWorktree whose folder is neither the
// main worktree nor proven a linked worktree of the repository.
func (r *Runner) command(ctx context.Context, c Cmd) (*exec.Cmd, *output, error) {
	var pinned []string
	if c.InWorktree {
		gitDir, commonDir, err := r.worktreeGitDir(ctx, c.Dir)
		if err != nil {
			return nil, nil, err
		}
		pinned = []string{"GIT_DIR=" + gitDir, "GIT_COMMON_DIR=" + commonDir, "GIT_WORK_TREE=" + c.Dir}
		if c.entersNested {
			if err := CheckNestedRepos(c.Dir, indexFile(c.Env, gitDir), gitDir); err != nil {
				return nil, nil, err
			}
		}
	}
	cmd := exec.CommandContext(ctx, "git", c.Args...)
	cmd.Dir = c.Dir
	if c.KeepLocation {
		cmd.Env = append(os.Environ(), InternalEnv+"=1")
	} else {
		cmd.Env = r.baseEnv()
	}
	cmd.Env = append(cmd.Env, r.aside...)
	cmd.Env = append(cmd.Env, c.Env...)
	cmd.Env = withConfig(cmd.Env, append(slices.Concat(platformConfig, r.readOnly), c.Config...))
	cmd.Env = append(cmd.Env, pinned...)
	if c.InSubmodule {
		cmd.Env = append(cmd.Env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(c.Dir))
	}
	cmd.Stdin = c.Stdin
	out := &output{}
	cmd.Stdout = &out.stdout
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = &out.stderr
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.Stderr, &out.stderr)
	}
	if r.Trace != nil {
		// The arguments hold task ids, branches and paths: escaped, as
		// on every line git-wt shows.
		fmt.Fprintf(r.Trace, "git-wt: [%s] git %s\n", text.TerminalLine(c.Dir), text.TerminalLine(strings.Join(c.Args, " ")))
	}
	return cmd, out, nil
}

// located is where the repository's common dir and main worktree are.
type located struct{ commonDir, mainDir string }

// worktreeGitDir is the git dir of the worktree at dir, which git is told
// (with the common dir and the worktree: GIT_DIR, GIT_COMMON_DIR,
// GIT_WORK_TREE): the main worktree's is the common dir; a linked
// worktree is proven one first (ProveLinked; registered where MovedAside
// says, else at dir), and its git dir is its entry.
func (r *Runner) worktreeGitDir(ctx context.Context, dir string) (gitDir, commonDir string, err error) {
	repo := r.located.Load()
	if repo == nil {
		return "", "", errors.New("git-wt runs git in a worktree only once it located the repository")
	}
	if fsutil.SamePath(dir, repo.mainDir) {
		return repo.commonDir, repo.commonDir, nil
	}
	registered := dir
	if m, ok := ctx.Value(movedAsideKey{}).(movedAside); ok && fsutil.SamePath(m.dir, dir) {
		registered = m.registered
	}
	gitDir, err = ProveLinked(repo.commonDir, dir, registered)
	return gitDir, repo.commonDir, err
}

// SetRepository names the common dir and the main worktree ("" when not
// known yet) of the repository whose worktrees git runs in
// (Cmd.InWorktree), for work started before Locate or Complete (which
// set them) has run: the common dir git.Discover found.
func (r *Runner) SetRepository(commonDir, mainDir string) {
	if mainDir != "" {
		mainDir = filepath.Clean(mainDir)
	}
	r.located.Store(&located{filepath.Clean(commonDir), mainDir})
}

type movedAsideKey struct{}

type movedAside struct{ dir, registered string }

// MovedAside is ctx for git run in the task worktree that git registered
// at registered and that now lies at dir, moved aside (rm's second look):
// its admin entry still points at registered, and the proof of
// Cmd.InWorktree checks that instead of dir.
func MovedAside(ctx context.Context, dir, registered string) context.Context {
	return context.WithValue(ctx, movedAsideKey{}, movedAside{dir, registered})
}

// ConfigPair is one setting of Cmd.Config.
type ConfigPair struct{ Key, Value string }

// withConfig adds pairs to env after the GIT_CONFIG_KEY_<n> settings env
// already holds (the user's own, numbered from 0), which stay in force.
func withConfig(env []string, pairs []ConfigPair) []string {
	if len(pairs) == 0 {
		return env
	}
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v) // the last one is git's (and Go's exec's)
		}
	}
	for i, p := range pairs {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, p.Key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, p.Value))
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(pairs)))
}

// result is git's stdout, or the error for how it ended (err, from Run
// or Wait).
func (o *output) result(ctx context.Context, c Cmd, err error) ([]byte, error) {
	if err == nil {
		return o.stdout.Bytes(), nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNotInstalled
	}
	e := &Error{Args: c.Args, Dir: c.Dir, Code: -1, Stderr: o.stderr.String(), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		e.Code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		}
	}
	if Interrupted(ctx, e) {
		e.Err = ctx.Err()
	}
	return o.stdout.Bytes(), e
}

// Started is a git process started before its input is known: starting
// git (exec, linking, reading config) takes a millisecond or two, which
// then passes beside other work instead of after it. Only commands that
// do nothing on an empty input are started so (update-ref --stdin,
// cat-file --batch): one never fed ends, harmlessly, when git-wt does.
type Started struct {
	ctx   context.Context
	c     Cmd
	cmd   *exec.Cmd
	out   *output
	stdin io.WriteCloser
	err   error // from starting it
}

// Start starts git for c, waiting for its input (c.Stdin is ignored).
func (r *Runner) Start(ctx context.Context, c Cmd) *Started {
	c.Stdin = nil
	cmd, out, err := r.command(ctx, c)
	s := &Started{ctx: ctx, c: c, cmd: cmd, out: out, err: err}
	if err != nil {
		s.out = &output{}
		return s
	}
	if s.stdin, s.err = cmd.StdinPipe(); s.err == nil {
		s.err = cmd.Start()
	}
	return s
}

// Feed gives git its input and waits for it: Exec's result for c with
// that input (without Exec's retries).
func (s *Started) Feed(input []byte) ([]byte, error) {
	if s.err != nil {
		return s.out.result(s.ctx, s.c, s.err)
	}
	if err := s.ctx.Err(); err != nil {
		// Interrupted before its input: git is being killed, and fed
		// now it may still act first (a record written as a rollback
		// begins); it ends with none.
		s.stdin.Close()
		s.cmd.Wait()
		return nil, err
	}
	_, werr := s.stdin.Write(input)
	s.stdin.Close()
	err := s.cmd.Wait()
	if err == nil && werr != nil {
		err = werr
	}
	return s.out.result(s.ctx, s.c, err)
}

// interruptWait bounds how long Interrupted waits for a signal that
// killed git to reach git-wt as well.
const interruptWait = 2 * time.Second

// Interrupted reports whether ctx was cancelled by the user. Ctrl-C
// signals the whole process group at once, and git can die of it before
// Go has delivered the signal and cancelled ctx; so when err is a git
// killed by SIGINT or SIGTERM, it waits (briefly) for ctx to follow, and
// the caller sees an interrupt rather than a git that failed.
func Interrupted(ctx context.Context, err error) bool {
	var e *Error
	if ctx.Err() == nil && ctx.Done() != nil && errors.As(err, &e) && (e.Signal == syscall.SIGINT || e.Signal == syscall.SIGTERM) {
		select {
		case <-ctx.Done():
		case <-time.After(interruptWait):
		}
	}
	return ctx.Err() != nil
}

// locationVars are the variables `git rev-parse --local-env-vars` lists,
// less the ones that carry the user's `-c` settings, which we keep.
var locationVars = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_CONFIG":                       true,
	"GIT_OBJECT_DIRECTORY":             true,
	"GIT_DIR":                          true,
	"GIT_WORK_TREE":                    true,
	"GIT_IMPLICIT_WORK_TREE":           true,
	"GIT_GRAFT_FILE":                   true,
	"GIT_INDEX_FILE":                   true,
	"GIT_NO_REPLACE_OBJECTS":           true,
	"GIT_REPLACE_REF_BASE":             true,
	"GIT_PREFIX":                       true,
	"GIT_INTERNAL_SUPER_PREFIX":        true,
	"GIT_SHALLOW_FILE":                 true,
	"GIT_COMMON_DIR":                   true,
}

// ScrubbedEnv returns environ without the repository-location variables.
func ScrubbedEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !locationVars[name] {
			env = append(env, kv)
		}
	}
	return env
}

func (r *Runner) baseEnv() []string {
	r.envOnce.Do(func() {
		r.env = append(ScrubbedEnv(os.Environ()), InternalEnv+"=1")
	})
	// Copy so that callers appending to it never share a backing array.
	return append([]string(nil), r.env...)
}

// lockPath finds a quoted path to a *.lock file in git's stderr: git names
// the lock it could not take ("Unable to create '/r/.git/index.lock'") in
// every language, so the path, not the sentence, tells us what happened:
// /…, or from Git for Windows C:/….
var lockPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'((?:/|[A-Za-z]:[/\\])[^']*\.lock)'`) })

// transientLock reports whether err is git failing on a lock file that
// another process holds: worth a brief retry.
func transientLock(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Code <= 0 {
		return false
	}
	return lockPath().MatchString(e.Stderr)
}

// Config reads and writes git config (config.go).
type Config struct{ git *Runner }

// History asks about commits, trees and what reaches what (history.go).
type History struct{ git *Runner }

// Index works on a worktree's index and files: staging, commits, merges
// and their abort, the ignore rules (index.go).
type Index struct{ git *Runner }

// Config is r's config operations.
func (r *Runner) Config() Config { return Config{r} }

// History is r's history operations.
func (r *Runner) History() History { return History{r} }

// Index is r's index operations.
func (r *Runner) Index() Index { return Index{r} }
