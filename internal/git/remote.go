package git

import (
	"context"
	"strings"
)

// The remote operations of claims (SPEC §18): the server's atomic ref
// update is the only arbiter between machines, so every write is a push
// with a lease, and every read asks the remote itself.

// RefPush is one ref a push sets on the remote.
type RefPush struct {
	Src string // what to send: an object id or a local ref; "" deletes Dst
	Dst string // the full ref name on the remote
	// Leased: the push happens only if Dst holds Lease on the remote
	// ("" means it must not exist), checked by the server's own update.
	Leased bool
	Lease  string
}

// pushArgs is the argv of PushRefs: --porcelain so that a refusal is read
// from the remote again rather than from git's words, --no-verify so that
// a user's pre-push hook cannot block git-wt's own refs.
func pushArgs(remote string, refs []RefPush, atomic bool) []string {
	args := []string{"push", "--porcelain", "--no-verify", "--quiet"}
	if atomic {
		args = append(args, "--atomic")
	}
	specs := make([]string, 0, len(refs))
	for _, p := range refs {
		if p.Leased {
			args = append(args, "--force-with-lease="+p.Dst+":"+p.Lease)
		}
		specs = append(specs, p.Src+":"+p.Dst)
	}
	return append(append(args, "--", remote), specs...)
}

// PushRefs pushes refs to remote in one push (atomic: all or none, where
// the server supports it). Any refusal is an error; the caller reads the
// remote again to learn why, never git's message.
func (r *Runner) PushRefs(ctx context.Context, dir, remote string, refs []RefPush, atomic bool) error {
	_, err := r.Exec(ctx, Cmd{Dir: dir, Args: pushArgs(remote, refs, atomic), NoRetry: true})
	return err
}

// RemoteRefs lists the refs on remote whose full names are exactly those
// given or, for a name ending in "/", lie under that folder: one
// `git ls-remote`, no objects fetched. An unreachable remote is an error;
// an absent ref is simply not listed.
func (r *Runner) RemoteRefs(ctx context.Context, dir, remote string, names ...string) ([]Ref, error) {
	args := []string{"ls-remote", "--refs", "--", remote}
	for _, n := range names {
		if strings.HasSuffix(n, "/") {
			n += "*"
		}
		args = append(args, n)
	}
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: args, NoRetry: true})
	if err != nil {
		return nil, err
	}
	return parseRemoteRefs(string(out), names), nil
}

// parseRemoteRefs reads ls-remote's "<oid>\t<ref>" lines, keeping only
// the refs asked for: ls-remote matches its patterns against the ends of
// names, so refs/x/refs/git-wt/claims/a would match too.
func parseRemoteRefs(out string, names []string) []Ref {
	var refs []Ref
	for _, line := range strings.Split(out, "\n") {
		oid, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		for _, n := range names {
			if name == n || (strings.HasSuffix(n, "/") && strings.HasPrefix(name, n)) {
				refs = append(refs, Ref{Name: name, OID: oid})
				break
			}
		}
	}
	return refs
}

// FetchRefs fetches the remote refs under folder (ending in "/") into the
// local folder into, pruning the local refs whose remote one is gone: one
// fetch, no tags, no FETCH_HEAD (which two fetches at once would fight
// over), no checkout.
func (r *Runner) FetchRefs(ctx context.Context, dir, remote, folder, into string) error {
	_, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-auto-maintenance", "--recurse-submodules=no", "--prune", "--", remote, "+" + folder + "*:" + into + "*"}})
	return err
}

// FetchRef fetches the one remote ref src into the local ref dst, forced:
// dst is a ref of git-wt's own or a remote-tracking ref, never a branch
// someone works on.
func (r *Runner) FetchRef(ctx context.Context, dir, remote, src, dst string) error {
	_, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-auto-maintenance", "--recurse-submodules=no", "--", remote, "+" + src + ":" + dst}})
	return err
}

// emptyTree is the empty tree of SHA-1 repositories, which git knows
// without having it stored (and packs for a push all the same).
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// RecordCommit writes a commit of the empty tree whose message is msg,
// with parent when not "" (else a root commit, which drags no history),
// and returns it. Author and committer are git-wt itself: the commit is a
// record, not the user's work, and needs no user.name. In a repository
// of another object format the empty tree is written first.
func (r *Runner) RecordCommit(ctx context.Context, dir, msg, parent string) (string, error) {
	oid, err := r.commitRecord(ctx, dir, emptyTree, msg, parent)
	if err == nil {
		return oid, nil
	}
	tree, terr := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"hash-object", "-w", "-t", "tree", "--stdin"}, Stdin: strings.NewReader("")})
	if terr != nil || strings.TrimSpace(string(tree)) == emptyTree {
		return "", err
	}
	return r.commitRecord(ctx, dir, strings.TrimSpace(string(tree)), msg, parent)
}

func (r *Runner) commitRecord(ctx context.Context, dir, tree, msg, parent string) (string, error) {
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: append(args, "-m", msg), Env: []string{
		"GIT_AUTHOR_NAME=git-wt", "GIT_AUTHOR_EMAIL=git-wt@localhost",
		"GIT_COMMITTER_NAME=git-wt", "GIT_COMMITTER_EMAIL=git-wt@localhost"}})
	return strings.TrimSpace(string(out)), err
}
