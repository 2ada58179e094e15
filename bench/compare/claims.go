//go:build unix

package main

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// benchClaims measures what a claim (SPEC §18) adds to new against a git
// daemon on 127.0.0.1, beside what it should cost: one git push of one
// ref to the same remote (SPEC §9: new with a claim within new plus one
// push).
func benchClaims(env []string, root string) []row {
	base := filepath.Join(root, "claims")
	repo, bare := filepath.Join(base, "repo"), filepath.Join(base, "shared.git")
	makeRepo(env, repo, 100, 10)
	git(env, base, "clone", "-q", "--bare", repo, bare)
	stop, url := startDaemon(env, base)
	defer stop()
	git(env, repo, "remote", "add", "origin", url)
	without := filepath.Join(base, "without")
	git(env, base, "clone", "-q", repo, without)
	git(env, repo, "config", "wt.claimRemote", "origin")
	tree := output(env, repo, "rev-parse", "HEAD^{tree}")
	withD, withoutD := interleave(*rounds, newAndRm(env, repo), newAndRm(env, without))
	var pushes []time.Duration
	for i := 0; i < *rounds; i++ {
		// A commit of its own each time, as each claim is: the push
		// sends an object, not only a ref.
		commit := output(env, repo, "commit-tree", "-m", "bench "+strconv.Itoa(i), tree)
		pushes = append(pushes, git(env, repo, "push", "-q", "origin", commit+":refs/bench/"+strconv.Itoa(i)))
	}
	push := median(pushes)
	r := ratioRow("claims: what a claim adds to new, vs one push", 1.0, withD-withoutD, push)
	r.note = fmt.Sprintf("new %s with, %s without", withD.Round(10*time.Microsecond), withoutD.Round(10*time.Microsecond))
	return []row{r}
}

// startDaemon serves the repositories in dir with git daemon on a free
// port of 127.0.0.1, pushes allowed, and returns how to stop it and the
// URL of shared.git.
func startDaemon(env []string, dir string) (stop func(), url string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--base-path="+dir, "--listen=127.0.0.1", "--port="+strconv.Itoa(port), dir)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // git runs git-daemon as its child
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	stop = func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			fail(fmt.Errorf("git daemon does not listen on %d", port))
		}
	}
	return stop, fmt.Sprintf("git://127.0.0.1:%d/shared.git", port)
}
