package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/record"
)

// What an agent is doing, as its runner's session hooks report it (SPEC
// §16): working after a prompt or a tool use, waiting when the runner
// asks a person, idle when its turn ended, ended with its session.
const (
	Working = "working"
	Waiting = "waiting"
	Idle    = "idle"
	Ended   = "ended"
)

// Runners are the agent runners whose session hooks git-wt reads, with
// the command that resumes one of their sessions, as each documents it
// (read November 2026): `claude --resume ID`, `codex resume ID`, `gemini
// --resume ID` (a session's UUID), `copilot --resume=ID`, `opencode
// --session ID`. The id is bound to its option as --opt=ID wherever the
// runner's option parser takes that form (Claude Code's commander,
// Gemini CLI's and OpenCode's yargs, Copilot CLI), so that it can never
// be read as an option of its own; Codex takes it as a positional
// argument, which ValidSessionID keeps from starting with "-".
var Runners = map[string]func(id string) []string{
	"claude":   func(id string) []string { return []string{"claude", "--resume=" + id} },
	"codex":    func(id string) []string { return []string{"codex", "resume", id} },
	"gemini":   func(id string) []string { return []string{"gemini", "--resume=" + id} },
	"copilot":  func(id string) []string { return []string{"copilot", "--resume=" + id} },
	"opencode": func(id string) []string { return []string{"opencode", "--session=" + id} },
}

// sessionIDForm is the form of every runner's own session ids (UUIDs,
// and OpenCode's ses_… ids): letters, digits, dots, underscores and
// dashes, at most 128 of them.
var sessionIDForm = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// ValidSessionID reports whether id has the form of a runner's session
// id. An id is what the agent's payload says (SPEC §19): one that starts
// with "-" would be an option of the runner that resume starts, and one
// with spaces or quotes a trap for whoever pastes resume --print.
func ValidSessionID(id string) bool {
	return sessionIDForm.MatchString(id) && !strings.HasPrefix(id, "-")
}

// Status is one report of a runner's session hook.
type Status struct {
	Runner  string
	Session string
	Cwd     string
	Event   string
	// State is what the event says the agent does now; "" for an event
	// that says nothing of it (the session is still seen).
	State string
}

// statusPayload is every field git-wt reads of the runners' payloads:
// snake case (Claude Code, Codex, Gemini CLI, git-wt's OpenCode plugin)
// and Copilot CLI's camel case.
type statusPayload struct {
	SessionID        string `json:"session_id"`
	SessionIDCamel   string `json:"sessionId"`
	Cwd              string `json:"cwd"`
	Event            string `json:"hook_event_name"`
	NotificationType string `json:"notification_type"`
	NotificationCase string `json:"notificationType"`
}

// ReadStatus reads one status payload of runner from r. event is the
// event the hook's command named (Copilot's payloads carry none); the
// payload's own name wins when it has one.
func ReadStatus(runner, event string, r io.Reader) (*Status, error) {
	if _, ok := Runners[runner]; !ok {
		return nil, fmt.Errorf("unknown agent runner %q", runner)
	}
	var p statusPayload
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return nil, fmt.Errorf("%w on stdin: %v", ErrPayload, err)
	}
	s := &Status{Runner: runner, Session: first(p.SessionID, p.SessionIDCamel), Cwd: p.Cwd, Event: first(p.Event, event)}
	if !ValidSessionID(s.Session) {
		s.Session = "" // the state is still worth recording; the id is not an id
	}
	s.State = StateOf(s.Event, first(p.NotificationType, p.NotificationCase))
	return s, nil
}

// StateOf is the state an event leaves the agent in, "" when it says
// nothing; notification is the kind of a notification event. Events are
// matched without case, dots or underscores, so that each runner's
// spelling (UserPromptSubmit, userPromptSubmitted, session.idle) is one.
func StateOf(event, notification string) string {
	switch strings.NewReplacer(".", "", "_", "").Replace(strings.ToLower(event)) {
	case "userpromptsubmit", "userpromptsubmitted", "beforeagent", "posttooluse", "aftertool", "chatmessage", "toolexecutebefore", "toolexecuteafter":
		return Working
	case "permissionrequest", "permissionasked", "permissionupdated":
		return Waiting
	case "notification":
		switch n := strings.ToLower(notification); {
		case n == "idle_prompt":
			return Idle // the turn ended a while ago and the runner says so again
		case n == "" || strings.Contains(n, "permission") || strings.Contains(n, "elicitation"):
			return Waiting
		}
		return ""
	case "stop", "afteragent", "agentstop", "sessionidle", "sessionstart", "sessioncreated":
		return Idle
	case "sessionend", "sessiondeleted":
		return Ended
	}
	return ""
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Runner is where a runner's process was seen: its pid, and what places
// the pid (SPEC §15); zero when the hook could not see it.
type Runner struct {
	PID                      int
	Start, Host, Boot, PIDNS string
}

// Apply records the report s on the task's record at now, and tells
// whether anything worth a write changed: a new session or state, a
// runner's pid seen anew, or a session last seen more than a minute ago
// (so that a tool use per second does not write a record per second).
func Apply(rec *record.Record, s *Status, now time.Time, by Runner) bool {
	changed := seen(rec, s, now)
	a := rec.Agent
	switch {
	case s.State == "":
	case a != nil && s.State == Ended && a.Runner == s.Runner && a.Session != s.Session && a.State != Ended:
		// The end of an older session: the newer one goes on.
	case a != nil && a.Runner == s.Runner && a.Session == s.Session && a.State == s.State:
		if by.PID != 0 && (by.PID != a.PID || by.Start != a.PIDStart) {
			a.PID, a.PIDStart, a.PIDHost, a.PIDBoot, a.PIDNS = by.PID, by.Start, by.Host, by.Boot, by.PIDNS
			changed = true
		}
	default:
		rec.Agent = &record.Agent{Runner: s.Runner, Session: s.Session, State: s.State, Since: now,
			PID: by.PID, PIDStart: by.Start, PIDHost: by.Host, PIDBoot: by.Boot, PIDNS: by.PIDNS}
		changed = true
	}
	return changed
}

// seen notes the session of s on the record; true when that is worth a
// write.
func seen(rec *record.Record, s *Status, now time.Time) bool {
	if s.Session == "" {
		return false
	}
	for i := range rec.Sessions {
		if x := &rec.Sessions[i]; x.Runner == s.Runner && x.ID == s.Session {
			stale := now.Sub(x.LastSeen) > time.Minute
			if stale {
				x.LastSeen = now
			}
			return stale
		}
	}
	rec.Sessions = append(rec.Sessions, record.Session{Runner: s.Runner, ID: s.Session, FirstSeen: now, LastSeen: now})
	if n := len(rec.Sessions); n > record.MaxSessions {
		rec.Sessions = slices.Delete(rec.Sessions, 0, n-record.MaxSessions)
	}
	return true
}

// LastSession is the session a resume takes up: the agent's, which
// reported last, else the one seen last (last seen moves once a minute at
// most, so the agent's says better which came last).
func LastSession(rec *record.Record) *record.Session {
	var last *record.Session
	for i := range rec.Sessions {
		s := &rec.Sessions[i]
		if a := rec.Agent; a != nil && a.Runner == s.Runner && a.Session == s.ID {
			return s
		}
		if last == nil || !s.LastSeen.Before(last.LastSeen) {
			last = s
		}
	}
	return last
}

// ErrSessionID is ResumeCommand's error for a session id that is not in
// its runner's id form.
var ErrSessionID = errors.New("not a session id")

// ResumeCommand is the runner's own command that resumes the session.
func ResumeCommand(s *record.Session) ([]string, error) {
	resume, ok := Runners[s.Runner]
	if !ok {
		return nil, fmt.Errorf("git-wt knows no resume command of runner %q", s.Runner)
	}
	if !ValidSessionID(s.ID) {
		return nil, fmt.Errorf("the %s session id %q is %w", s.Runner, s.ID, ErrSessionID)
	}
	return resume(s.ID), nil
}
