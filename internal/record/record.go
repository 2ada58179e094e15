// Package record holds what git-wt knows of one task, and stores it as a
// JSON blob behind the ref refs/git-wt/tasks/<slug> (SPEC §4).
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/git-wt/git-wt/internal/slug"
)

// State is where a task is in its life.
type State string

// The states of SPEC §4 and §14: creating → initializing → active |
// failed; active → merging | syncing | removing → removed. Removed is no
// stored state: it is the deletion of the record, named so that the
// lifecycle (state.go) can say who may delete it. Adopted marks a worktree
// git-wt did not make; pooled a warm pool entry.
const (
	Creating     State = "creating"
	Initializing State = "initializing"
	Active       State = "active"
	Failed       State = "failed"
	Merging      State = "merging"
	Syncing      State = "syncing"
	Removing     State = "removing"
	Removed      State = "removed"
	Adopted      State = "adopted"
	Pooled       State = "pooled"
)

// InitStatus is how the init command went.
type InitStatus string

// Init statuses.
const (
	InitRunning   InitStatus = "running"
	InitSuccess   InitStatus = "success"
	InitFailed    InitStatus = "failed"
	InitSkipped   InitStatus = "skipped"
	InitUntrusted InitStatus = "skipped-untrusted"
)

// Init tracks the init command of SPEC §6.
type Init struct {
	Ran        bool       `json:"ran"`
	Status     InitStatus `json:"status,omitempty"`
	Error      string     `json:"error,omitempty"`
	Log        string     `json:"log,omitempty"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	// Rerun marks the setup of a task that existed before (git wt init):
	// if its process dies, the task is marked failed, never rolled back.
	Rerun bool `json:"rerun,omitempty"`
	// PGID is the process group of the init command that runs, and
	// PGIDStart its leader's start time (pids are reused): a repair ends
	// a group that outlived its git-wt.
	PGID      int    `json:"pgid,omitempty"`
	PGIDStart string `json:"pgid_start,omitempty"`
	// PGIDNS is the PID namespace the group's id is counted in: another
	// namespace's group is never ended from here (SPEC §15).
	PGIDNS string `json:"pgid_pidns,omitempty"`
}

// PR is the pull request recorded for a task.
type PR struct {
	Number    int        `json:"number,omitempty"`
	URL       string     `json:"url,omitempty"`
	Title     string     `json:"title,omitempty"`
	State     string     `json:"state,omitempty"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	// HeadOID is the pull request's head commit (gh's headRefOid, a full
	// commit id) when it was recorded: a MERGED pull request merged the
	// branch up to there, not the commits made after it (SPEC §19).
	HeadOID string `json:"head_oid,omitempty"`
}

// Issue is the issue a task was started from (new --issue).
type Issue struct {
	Number int    `json:"number"`
	URL    string `json:"url,omitempty"`
	Title  string `json:"title,omitempty"`
}

// Record is one task.
type Record struct {
	Task         string    `json:"task"`
	Slug         string    `json:"slug"`
	Branch       string    `json:"branch"`
	Path         string    `json:"path"`
	Base         string    `json:"base"`
	BaseSHA      string    `json:"base_sha"`
	State        State     `json:"state"`
	CreatedAt    time.Time `json:"created_at"`
	LastAccessAt time.Time `json:"last_access_at"`
	Init         Init      `json:"init"`
	PR           *PR       `json:"pr,omitempty"`
	Issue        *Issue    `json:"issue,omitempty"`
	Locked       bool      `json:"locked"`
	LockReason   string    `json:"lock_reason,omitempty"`
	// The owner: the process driving the task's present state change.
	Signature

	// BranchCreated says whether git-wt created the branch (SPEC §4
	// "Branch ownership"); nil in records written before the field
	// existed (see CreatedBranch).
	BranchCreated *bool `json:"branch_created,omitempty"`

	// Ports are the task's TCP ports by variable name (SPEC §10), held
	// for its life.
	Ports map[string]int `json:"ports,omitempty"`

	// MergeTip is the commit of the task's branch that a merge under way
	// merges: a repair of a killed merge tells the files it wrote into the
	// base's worktree by its blobs, even after the branch moved on.
	MergeTip string `json:"merge_tip,omitempty"`

	// MergeInto is the branch (full ref) a merge under way merges into
	// when that is not the task's base (git wt merge --into): the repair of
	// a killed merge takes its files back from, and asks whether it landed
	// in, that branch (MergeTarget).
	MergeInto string `json:"merge_into,omitempty"`

	// PoolCommit is the commit of the warm pool entry the task was made
	// from (SPEC §11): a repair of a claim killed while its files moved
	// from that commit to the base tells them from someone's work.
	PoolCommit string `json:"pool_commit,omitempty"`

	// Sparse are the directories of a sparse checkout (SPEC §11); none
	// for a full one.
	Sparse []string `json:"sparse,omitempty"`

	// Sync is the sync under way while the task is syncing (SPEC §12):
	// what doctor needs to finish it or put it back if its process dies.
	Sync *SyncStep `json:"sync,omitempty"`

	// Reclaimed says that gc deleted the task's ignored build output
	// (SPEC §20), when and how much; the setup that makes it again (git
	// wt init, or the task's next new) clears it.
	Reclaimed *Reclaimed `json:"reclaimed,omitempty"`

	// Agent is what the agent runner working in the task last reported
	// (SPEC §16), and Sessions the runners' sessions seen in it, oldest
	// first.
	Agent    *Agent    `json:"agent,omitempty"`
	Sessions []Session `json:"sessions,omitempty"`
}

// Agent is the agent runner's last report: its state (working, waiting,
// idle, ended) since when, and its process where the hook could see it.
type Agent struct {
	Runner  string    `json:"runner"`
	Session string    `json:"session_id,omitempty"`
	State   string    `json:"state"`
	Since   time.Time `json:"since"`
	PID     int       `json:"pid,omitempty"`
	// PIDStart, PIDHost, PIDBoot and PIDNS place the pid (SPEC §15): only
	// a process that matches them can prove the runner gone.
	PIDStart string `json:"pid_start,omitempty"`
	PIDHost  string `json:"pid_host,omitempty"`
	PIDBoot  string `json:"pid_boot,omitempty"`
	PIDNS    string `json:"pid_pidns,omitempty"`
}

// Session is one runner session seen in the task.
type Session struct {
	Runner    string    `json:"runner"`
	ID        string    `json:"id"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// MaxSessions is how many sessions a record keeps: the most recent.
const MaxSessions = 20

// Reclaimed is what gc --reclaim deleted from a task: its build output,
// at At, Bytes on disk in all (over every reclaim since the last setup).
type Reclaimed struct {
	At    time.Time `json:"at"`
	Bytes int64     `json:"bytes"`
}

// SyncStep is one sync of a task's branch: the branch moves from From to
// To, then the files; Base and BaseSHA are what the record says once it
// is done, and Was the state it goes back to.
type SyncStep struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Base    string `json:"base"`
	BaseSHA string `json:"base_sha"`
	Was     State  `json:"was"`
}

// Encode returns the record as the JSON stored in its blob.
func (r *Record) Encode() []byte {
	data, err := json.Marshal(r)
	if err != nil {
		panic(err) // a Record always marshals
	}
	return append(data, '\n')
}

// ErrCorrupt marks a record blob git-wt cannot read.
var ErrCorrupt = errors.New("corrupt record")

// ErrFolded marks a record read under a name that is not its own but
// folds together with it (Fix read as fix, café decomposed as café
// composed): on a file system that ignores case or Unicode form (APFS's
// default) the two slugs share one loose ref file. The name is taken by
// another task, and the record is not corrupt.
var ErrFolded = errors.New("taken by another slug")

// Decode reads a record blob; slug is the one its ref is named for.
func Decode(slug string, data []byte) (*Record, error) {
	return decodeAt(slug, Ref(slug), data)
}

// decodeAt is Decode of the blob that ref (of slug) points at; errors name
// the ref.
func decodeAt(slug, ref string, data []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrCorrupt, ref, err)
	}
	return checked(&r, slug, ref)
}

// checked returns r, or an error for a record that lacks what every
// command relies on or names another slug than its ref's.
func checked(r *Record, name, ref string) (*Record, error) {
	if r.Task != "" && r.Path != "" && slug.Folds(r.Slug, name) {
		return nil, fmt.Errorf("%s: %w %s (a file system that ignores case or Unicode form)", ref, ErrFolded, r.Slug)
	}
	if r.Task == "" || r.Slug != name || r.Path == "" {
		return nil, fmt.Errorf("%w %s: missing task, slug or path", ErrCorrupt, ref)
	}
	return r, nil
}

// MergeTarget is the branch a merge under way merges into: MergeInto, or
// the task's base.
func (r *Record) MergeTarget() string {
	if r.MergeInto != "" {
		return r.MergeInto
	}
	return r.Base
}
