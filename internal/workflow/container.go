package workflow

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// DockerArgs returns the `docker run` flags, one argument each, that make
// git work in a container on the task's worktree (SPEC §8): the worktree
// mounted at wt.containerWorkdir, the repository's common dir mounted where
// the worktree's .git file leads git in the container, the working
// directory, and the uid:gid
// of the worktree's owner (git refuses a repository another user owns).
func (m *Flow) DockerArgs(rec *record.Record) ([]string, error) {
	if err := task.RequireWorktree(rec); err != nil {
		return nil, err
	}
	workdir := m.Settings.ContainerWorkdir
	if !path.IsAbs(workdir) {
		return nil, exitcode.Failedf("%v", m.Settings.Bad("wt.containerWorkdir", fmt.Errorf("%q is not an absolute path", workdir)))
	}
	st, err := os.Stat(rec.Path)
	if err != nil {
		return nil, exitcode.Failedf("cannot read the worktree %s: %v", rec.Path, fsutil.UnwrapPathErr(err))
	}
	uid, gid, ok := fsutil.Owner(st)
	if !ok {
		return nil, exitcode.Failedf("cannot tell who owns the worktree %s", rec.Path)
	}
	inContainer, err := commonDirIn(m.Repo.CommonDir, rec.Path, workdir)
	if err != nil {
		return nil, err
	}
	args := []string{
		"--mount=" + bindMount(rec.Path, workdir),
		"--mount=" + bindMount(m.Repo.CommonDir, inContainer),
		"--workdir=" + workdir,
		fmt.Sprintf("--user=%d:%d", uid, gid),
	}
	return append(args, portArgs(rec)...), nil
}

// portArgs publish the task's ports on this host's loopback only, each at
// its own number, and name them in the container's environment (SPEC
// §10), WT_PORTS included.
func portArgs(rec *record.Record) []string {
	var args []string
	for _, kv := range task.PortEnv(rec) {
		name, port, _ := strings.Cut(kv, "=")
		if name != "WT_PORTS" {
			args = append(args, "--publish=127.0.0.1:"+port+":"+port)
		}
		args = append(args, "--env="+kv)
	}
	return args
}

// commonDirIn is where git inside the container will look for the common
// dir of the worktree at dir (mounted at workdir there): where the
// worktree's .git file ("gitdir: <admin dir>") and the admin dir's
// commondir file lead, the same path as on this machine unless the .git
// file holds a relative one. Both files are the agent's to write (SPEC
// §19), so they must first prove the worktree a linked worktree of this
// repository, whose common dir is common: whatever they lead to, only
// common is mounted.
func commonDirIn(common, dir, workdir string) (string, error) {
	admin, err := git.ProveLinked(common, dir, dir)
	if err != nil {
		return "", exitcode.Failedf("%v", err)
	}
	written, _, err := git.AdminDir(dir)
	commondir, ok := git.CommonDirWritten(admin)
	if err != nil || !ok {
		return "", exitcode.Failedf("%s changed while it was read: run git wt docker-args again", dir)
	}
	return git.Resolve(git.Resolve(workdir, written), commondir), nil
}

// bindMount is docker's --mount value for a bind mount, written as docker
// reads it (CSV): a path with a comma or a quote is quoted.
func bindMount(source, target string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"type=bind", "source=" + source, "target=" + target})
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}
