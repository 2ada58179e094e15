package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/machine"
	"github.com/git-wt/git-wt/internal/progress"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// env is what every command shares: its streams, the global flags, and the
// repository, located once and only when a command needs it.
type env struct {
	// jsonErrors: the command was asked for --json, so a failure also
	// prints an error document on stdout.
	jsonErrors     bool
	stdin          io.Reader
	stdout, stderr io.Writer
	quiet, verbose bool
	noColor        bool

	git      *git.Runner
	repo     *git.Repo
	settings *settings.Settings
	config   *settings.Pending // git config, read early for the settings
	records  *record.Pending   // every record, read early for the manager's store
	// found is the repository git.Discover found from the current
	// directory (nil: none, or not looked for yet: discovered).
	found      *git.Discovered
	discovered bool
	registered bool           // in this machine's registry of repositories (register)
	prefetch   *task.Prefetch // one task's records, read early for the manager's Find
	// wantStatuses and wantObjects are what the command declared it needs
	// started once the repository is found (early.go): every worktree's
	// status, from the cached records (early); a cat-file (objects).
	wantStatuses bool
	early        *inspect.EarlyStatuses
	wantObjects  bool
	objects      *git.ObjectReader
	// wantRefUpdate: an update-ref for the command's first write, started
	// once the repository is found (refUpdate).
	wantRefUpdate bool
	refUpdate     *git.RefUpdate
	// harmless: the command acts on no setting that runs commands, grants
	// trust or reaches beyond the worktree (early.go)
	harmless bool
	out, err *painter // colour for stdout and for stderr, decided apart
}

// newEnv returns the env of one run of git-wt.
func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, git: &git.Runner{}}
	e.out = e.newPainter(stdout)
	e.err = e.newPainter(stderr)
	return e
}

// setup applies the global flags before any command runs.
func (e *env) setup(c *cli.Context) error {
	if dir := c.String("C"); dir != "" {
		if err := os.Chdir(dir); err != nil {
			return exitcode.Usagef("cannot change to %s: %v", dir, err)
		}
	}
	e.quiet = c.Bool("quiet")
	e.verbose = c.Bool("verbose")
	e.noColor = c.Bool("no-color")
	if e.quiet && e.verbose {
		return exitcode.Usagef("--quiet and --verbose cannot be used together")
	}
	if e.verbose {
		e.git.Trace = e.stderr
	}
	return nil
}

// locate finds the repository git-wt was started in.
func (e *env) locate(ctx context.Context) (*git.Repo, error) {
	if e.repo != nil {
		e.register()
		return e.repo, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, exitcode.Failedf("cannot read the current directory (%v): it was removed, perhaps with its worktree; cd into the repository, or use git wt -C DIR", fsutil.UnwrapPathErr(err))
	}
	repo, err := e.git.Locate(ctx, cwd)
	if err != nil {
		return nil, unsafeGitDir(err)
	}
	e.repo = repo
	e.register()
	return repo, nil
}

// manager locates the repository and reads its settings, for a command
// that acts on tasks.
func (e *env) manager(ctx context.Context, command string) (*task.Manager, error) {
	if e.settings != nil {
		repo, err := e.locate(ctx)
		if err != nil {
			return nil, err
		}
		return e.newManager(repo, e.settings, command), nil
	}
	// git config runs from the current directory at once, and may save
	// rev-parse; when the caller points git elsewhere (GIT_DIR), rev-parse
	// locates the repository and config waits to be read from the
	// worktree found.
	var pending *settings.Pending
	if cwd, ok := e.earlyDir(); ok {
		pending = e.config // started early (early.go), or now
		if pending == nil {
			pending = e.startSettings(ctx, cwd, e.discover(cwd))
		}
		if err := e.locateFromFiles(ctx, cwd, pending); err != nil {
			return nil, err
		}
	}
	repo, err := e.locate(ctx)
	if err != nil {
		return nil, err
	}
	if pending == nil {
		pending = settings.Start(ctx, e.git, repo.Toplevel, nil)
	}
	s, err := pending.Finish(repo.MainDir)
	if err != nil {
		return nil, err
	}
	e.settings = s
	return e.newManager(repo, s, command), nil
}

// locateFromFiles finds the repository from the files at cwd and, when
// the origins in git config's listing confirm it, takes it as located,
// without rev-parse (git.Discover). Meanwhile the record cache it names is
// read, list's statuses started from it, and new's cat-file started.
func (e *env) locateFromFiles(ctx context.Context, cwd string, config *settings.Pending) error {
	found := e.discover(cwd)
	if found == nil {
		return nil
	}
	// Before the first git that runs in the repository found (the early
	// statuses below).
	if err := git.CheckGitDirConfig(found.GitDir(), found.CommonDir()); err != nil {
		return unsafeGitDir(err)
	}
	if e.records != nil {
		e.records.Warm(record.CacheFile(found.CommonDir()))
		if e.wantStatuses {
			e.git.SetRepository(found.CommonDir(), "")
			e.early = inspect.StartStatuses(ctx, e.git, e.records.Cached)
		}
	}
	if e.wantObjects {
		// In the common dir: there, as in the main worktree where the
		// store reads, HEAD is the main worktree's.
		e.objects = e.git.StartObjects(ctx, found.CommonDir())
	}
	if e.wantRefUpdate {
		e.refUpdate = e.git.StartRefUpdate(ctx, found.CommonDir(), true)
	}
	repo := found.Confirm(config.Entries())
	if repo == nil {
		return nil
	}
	repo, err := e.git.Complete(ctx, repo)
	if err != nil {
		return err
	}
	e.repo = repo
	return nil
}

// unsafeGitDir makes a config in the git dir that git-wt will not let git
// read (SPEC §19) an exit 3 of kind unsafe_input.
func unsafeGitDir(err error) error {
	var unsafe *git.UnsafeGitDirError
	if errors.As(err, &unsafe) {
		return exitcode.RefusedAs(exitcode.KindUnsafeInput, "%v", unsafe)
	}
	return err
}

// discover is git.Discover(cwd), looked for once: the early reads and
// locateFromFiles both start from it.
func (e *env) discover(cwd string) *git.Discovered {
	if !e.discovered {
		e.found, e.discovered = git.Discover(cwd), true
	}
	return e.found
}

// earlyDir is where a read may start before the repository is located,
// to run beside rev-parse: the current directory, unless the repository is
// located already or the caller points git elsewhere (GIT_DIR,
// GIT_WORK_TREE), where only rev-parse may look.
func (e *env) earlyDir() (string, bool) {
	if e.repo != nil || os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return "", false
	}
	cwd, err := os.Getwd()
	return cwd, err == nil
}

// finder is a manager for commands that only find a task (path): it reads
// no settings, which saves a git process on the hottest path.
func (e *env) finder(ctx context.Context, command string) (*task.Manager, error) {
	repo, err := e.locate(ctx)
	if err != nil {
		return nil, err
	}
	return e.newManager(repo, nil, command), nil
}

func (e *env) newManager(repo *git.Repo, s *settings.Settings, command string) *task.Manager {
	m := task.New(e.git, repo, s, command)
	if e.records != nil {
		m.Store.Use(e.records)
	}
	if e.prefetch != nil {
		m.UsePrefetch(e.prefetch)
	}
	if e.objects != nil && e.objects.Dir() == repo.CommonDir {
		m.Store.UseObjects(e.objects)
	}
	if e.refUpdate != nil && e.refUpdate.Dir() == repo.CommonDir {
		m.Store.UseRefUpdate(e.refUpdate) // once: it writes one transaction
		e.refUpdate = nil
	}
	m.Warn = e.warnf
	if s != nil { // a finder (path) reads no settings, so knows no base dir: the next command says it
		removal.ReportFailedDeletions(m)
	}
	m.HookOutput = e.stderr
	// Long operations show how far they have got on stderr, when it is a
	// terminal and --quiet was not given; an init's output on the same
	// terminal goes through the progress line, which it then never mixes
	// with.
	p := progress.NewPrinter(e.stderr, !e.quiet && e.isTerminal(e.stderr), settings.FormatSize)
	if p != nil {
		m.Progress = meters{p}
	}
	if e.isTerminal(e.stderr) || e.verbose {
		m.InitOutput = e.stderr
		if p != nil {
			m.InitOutput = p.Output()
		}
	}
	return m
}

// register adds the repository located to this machine's registry (list
// --machine, SPEC §20), once per run, whichever way it was located (every
// command that opens a repository asks locate): a small read, and a write
// only the first time; a registry that cannot be written is left alone,
// silently.
func (e *env) register() {
	if e.registered {
		return
	}
	e.registered = true
	if path, ok := machine.RegistryPath(os.Getenv); ok {
		machine.Register(path, e.repo.CommonDir)
	}
}

// meters gives the domain's task.Progress the terminal's progress line.
type meters struct{ p *progress.Printer }

func (m meters) Start(title string, total int64, bytes bool) task.Meter {
	unit := progress.Count
	if bytes {
		unit = progress.Bytes
	}
	return m.p.Start(text.TerminalLine(title), total, unit) // titles name paths
}

// errorf prints an error message: one "git-wt: ..." line on stderr, even
// when it carries another program's multi-line output. Messages carry
// text from outside (paths, branch names, git's own messages), so each
// passes text.TerminalLine.
func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "%s %s\n", e.err.red("git-wt:"), text.TerminalLine(text.OneLine(fmt.Sprintf(format, args...))))
}

// warnf prints a warning on stderr, one line; --quiet does not hide
// warnings, which say that something was kept or skipped.
func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "%s %s\n", e.err.yellow("git-wt: warning:"), text.TerminalLine(text.OneLine(fmt.Sprintf(format, args...))))
}

// infof prints progress or a note on stderr, unless --quiet.
func (e *env) infof(format string, args ...any) {
	if !e.quiet {
		fmt.Fprintf(e.stderr, "git-wt: %s\n", text.TerminalLine(fmt.Sprintf(format, args...)))
	}
}

// task finds the task named by a command's one TASK argument.
func (e *env) task(c *cli.Context, command string) (*task.Manager, *record.Entry, error) {
	arg, err := oneArg(c, "TASK")
	if err != nil {
		return nil, nil, err
	}
	return e.findTask(c.Context, command, arg)
}
