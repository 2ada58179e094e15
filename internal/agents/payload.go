// Package agents holds what git-wt knows of agent runners (SPEC §13): the
// payloads of Claude Code's WorktreeCreate and WorktreeRemove hooks, and
// the settings file that routes them through git-wt. It runs nothing.
package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Payload is a WorktreeCreate or WorktreeRemove hook's input, in every
// shape the runner has sent across its versions; unknown fields are
// ignored.
type Payload struct {
	Name         string `json:"name"`
	WorktreeName string `json:"worktree_name"`
	BranchName   string `json:"branch_name"` // an early draft's name
	WorktreePath string `json:"worktree_path"`
	BasePath     string `json:"base_path"` // an early draft's repository folder
	SourceRef    string `json:"source_ref"`
	BaseCommit   string `json:"base_commit"`
	BaseRef      string `json:"base_ref"` // an early draft's source_ref
	Cwd          string `json:"cwd"`
}

// ErrPayload is a payload git-wt cannot act on.
var ErrPayload = errors.New("cannot read the hook's JSON")

// ReadPayload reads one JSON object from r. It returns after the object,
// without waiting for the end of input: a runner that keeps its pipe open
// must not hang the hook.
func ReadPayload(r io.Reader) (*Payload, error) {
	var p Payload
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("%w on stdin: %v", ErrPayload, err)
	}
	return &p, nil
}

// TaskID is the task the runner asks for: its name in whichever field the
// version sent, else the last element of the worktree path it proposed.
func (p *Payload) TaskID() (string, error) {
	for _, id := range []string{p.Name, p.WorktreeName, p.BranchName} {
		if id = strings.TrimSpace(id); id != "" {
			return id, nil
		}
	}
	if path := strings.TrimRight(p.WorktreePath, "/"); path != "" {
		if id := filepath.Base(path); id != "." && id != "/" {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: it names no worktree (name, worktree_name or worktree_path)", ErrPayload)
}

// Base is the ref or commit the runner asks the worktree to start from,
// or "" for git-wt's default.
func (p *Payload) Base() string {
	for _, b := range []string{p.SourceRef, p.BaseCommit, p.BaseRef} {
		if b = strings.TrimSpace(b); b != "" {
			return b
		}
	}
	return ""
}

// Dir is the folder to find the repository from: where the runner works,
// else the repository folder an early draft sent; "" for the current one.
func (p *Payload) Dir() string {
	if p.Cwd != "" {
		return p.Cwd
	}
	return p.BasePath
}
