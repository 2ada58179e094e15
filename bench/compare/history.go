//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// benchListHistory measures list with its status after history has
// built up (SPEC §9): 30 tasks that each added 50·S files at the root, and
// a base that added 1000·S files there since they forked, for S = 1 … 16.
// The merged check once asked git about every path every task changed,
// each look-up reading the base's big root tree again: 49 s at S = 16.
// The bars: 1.5 s at S = 16, and at most ×2.5 from S = 8 to S = 16 (the
// cost grows with what changed, not with its product).
func benchListHistory(env []string, root string) []row {
	const tasks = 30
	runs := min(*rounds, 5)
	var rows []row
	var prev time.Duration
	for _, scale := range []int{1, 2, 4, 8, 16} {
		repo := filepath.Join(root, fmt.Sprintf("history-%d", scale), "repo")
		makeRepo(env, repo, 100, 10)
		base := filepath.Join(filepath.Dir(repo), "repo-worktrees")
		for i := 0; i < tasks; i++ {
			id := fmt.Sprintf("t%02d", i)
			wt(env, repo, "new", "--no-init", "--quiet", id)
			writeFiles(filepath.Join(base, id), fmt.Sprintf("task%02d-", i), 50*scale)
			git(env, filepath.Join(base, id), "add", ".")
			git(env, filepath.Join(base, id), "commit", "-q", "-m", "task's work")
		}
		writeFiles(repo, "base-", 1000*scale)
		git(env, repo, "add", ".")
		git(env, repo, "commit", "-q", "-m", "the base's work")
		var ds []time.Duration
		for i := 0; i < runs; i++ {
			ds = append(ds, wt(env, repo, "list"))
		}
		d := median(ds)
		r := row{op: fmt.Sprintf("list, 30 tasks, history S = %d", scale), bar: measured, wt: d}
		if scale == 16 {
			r = absRow(r.op, 1500*time.Millisecond, d, 0)
		}
		rows = append(rows, r)
		if scale == 16 && prev > 0 {
			growth := float64(d) / float64(prev)
			rows = append(rows, row{op: "list, history S = 8 → 16: growth", bar: "≤ 2.50×",
				wtRaw: fmt.Sprintf("%.2f×", growth), gRaw: "-", pass: growth <= 2.5})
		}
		prev = d
		os.RemoveAll(filepath.Dir(repo))
	}
	return rows
}

// writeFiles writes n small files named prefix<i>.txt in dir's root.
func writeFiles(dir, prefix string, n int) {
	for i := 0; i < n; i++ {
		name := filepath.Join(dir, fmt.Sprintf("%s%05d.txt", prefix, i))
		if err := os.WriteFile(name, []byte(strings.Repeat(name+"\n", 3)), 0o644); err != nil {
			fail(err)
		}
	}
}
