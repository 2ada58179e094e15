package agents

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/record"
)

func TestEachRunnersEventsGiveTheirState(t *testing.T) {
	for _, tc := range []struct{ event, notification, want string }{
		{"UserPromptSubmit", "", Working},
		{"userPromptSubmitted", "", Working},
		{"BeforeAgent", "", Working},
		{"PostToolUse", "", Working},
		{"tool.execute.before", "", Working},
		{"Notification", "permission_prompt", Waiting},
		{"Notification", "", Waiting},
		{"Notification", "idle_prompt", Idle},
		{"Notification", "auth_success", ""},
		{"PermissionRequest", "", Waiting},
		{"permission.asked", "", Waiting},
		{"Stop", "", Idle},
		{"AfterAgent", "", Idle},
		{"agentStop", "", Idle},
		{"session.idle", "", Idle},
		{"SessionStart", "", Idle},
		{"SessionEnd", "", Ended},
		{"sessionEnd", "", Ended},
		{"session.deleted", "", Ended},
		{"PreCompact", "", ""},
		{"", "", ""},
	} {
		if got := StateOf(tc.event, tc.notification); got != tc.want {
			t.Errorf("%s/%s: %q, want %q", tc.event, tc.notification, got, tc.want)
		}
	}
}

func TestReadStatusTakesSnakeAndCamelCase(t *testing.T) {
	s, err := ReadStatus("copilot", "userPromptSubmitted", strings.NewReader(`{"sessionId":"p","cwd":"/w","timestamp":1}`))
	if err != nil || s.Session != "p" || s.Cwd != "/w" || s.State != Working {
		t.Errorf("copilot: %+v %v", s, err)
	}
	s, err = ReadStatus("claude", "ignored", strings.NewReader(`{"session_id":"c","cwd":"/w","hook_event_name":"Stop"}`))
	if err != nil || s.Session != "c" || s.Event != "Stop" || s.State != Idle {
		t.Errorf("claude: %+v %v", s, err)
	}
	if _, err := ReadStatus("nobody", "", strings.NewReader(`{}`)); err == nil {
		t.Error("an unknown runner was read")
	}
}

func TestApplyWritesOnlyWhatChanged(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	rec := &record.Record{}
	st := func(session, state string) *Status {
		return &Status{Runner: "claude", Session: session, State: state}
	}
	steps := []struct {
		s       *Status
		at      time.Duration
		by      Runner
		changed bool
		state   string
		since   time.Duration
	}{
		{st("a", Working), 0, Runner{PID: 10}, true, Working, 0},
		{st("a", Working), time.Second, Runner{PID: 10}, false, Working, 0}, // a tool use a second: no write
		{st("a", Waiting), 2 * time.Second, Runner{PID: 10}, true, Waiting, 2 * time.Second},
		{st("a", ""), 2 * time.Minute, Runner{}, true, Waiting, 2 * time.Second}, // seen again after a while
		{st("b", Working), 3 * time.Minute, Runner{PID: 11}, true, Working, 3 * time.Minute},
		{st("a", Ended), 4 * time.Minute, Runner{PID: 10}, true, Working, 3 * time.Minute}, // the old session ends: seen, the new one goes on
		{st("b", Ended), 5 * time.Minute, Runner{PID: 11}, true, Ended, 5 * time.Minute},
	}
	for i, step := range steps {
		changed := Apply(rec, step.s, t0.Add(step.at), step.by)
		if changed != step.changed || rec.Agent.State != step.state || !rec.Agent.Since.Equal(t0.Add(step.since)) {
			t.Errorf("step %d: changed %v, agent %+v", i, changed, rec.Agent)
		}
	}
	if len(rec.Sessions) != 2 || rec.Sessions[0].ID != "a" || !rec.Sessions[0].LastSeen.Equal(t0.Add(4*time.Minute)) {
		t.Errorf("sessions %+v", rec.Sessions)
	}
	if last := LastSession(rec); last.ID != "b" {
		t.Errorf("last session %+v", last)
	}
	// b reported last, though a's last sight was noted later (sights
	// move once a minute at most).
	two := &record.Record{
		Sessions: []record.Session{{Runner: "claude", ID: "a", LastSeen: t0.Add(time.Minute)}, {Runner: "claude", ID: "b", LastSeen: t0}},
		Agent:    &record.Agent{Runner: "claude", Session: "b", State: Idle},
	}
	if last := LastSession(two); last.ID != "b" {
		t.Errorf("last session %+v, want the agent's", last)
	}
	for i := range 30 {
		Apply(rec, st(strings.Repeat("x", i+1), Working), t0.Add(time.Hour), Runner{})
	}
	if len(rec.Sessions) != record.MaxSessions {
		t.Errorf("%d sessions kept", len(rec.Sessions))
	}
}

// TestResumeTakesOnlyTheRunnersIdForm: a session id comes from the
// agent; one that could be an option, or more than an id, is refused, and
// a good one is bound to its option wherever the runner takes --opt=ID.
func TestResumeTakesOnlyTheRunnersIdForm(t *testing.T) {
	for _, tc := range []struct {
		runner, id string
		want       []string // nil: refused
	}{
		{"claude", "0b6e9d8a-3c1f-4f7e-9a51-2d4c8e7f1a20", []string{"claude", "--resume=0b6e9d8a-3c1f-4f7e-9a51-2d4c8e7f1a20"}},
		{"codex", "019a_b.c-d", []string{"codex", "resume", "019a_b.c-d"}},
		{"gemini", "g", []string{"gemini", "--resume=g"}},
		{"copilot", "p-1", []string{"copilot", "--resume=p-1"}},
		{"opencode", "ses_1", []string{"opencode", "--session=ses_1"}},
		{"opencode", strings.Repeat("a", 128), []string{"opencode", "--session=" + strings.Repeat("a", 128)}},
		{"claude", "--dangerously-skip-permissions", nil},
		{"codex", "-c", nil},
		{"claude", "", nil},
		{"claude", "a b", nil},
		{"claude", "a;b", nil},
		{"claude", "a\nb", nil},
		{"claude", "é", nil},
		{"claude", strings.Repeat("a", 129), nil},
	} {
		got, err := ResumeCommand(&record.Session{Runner: tc.runner, ID: tc.id})
		if tc.want == nil && !errors.Is(err, ErrSessionID) || tc.want != nil && (err != nil || !slices.Equal(got, tc.want)) {
			t.Errorf("%s %q: %q %v, want %q", tc.runner, tc.id, got, err, tc.want)
		}
	}
	s, err := ReadStatus("claude", "", strings.NewReader(`{"session_id":"--help","hook_event_name":"Stop"}`))
	if err != nil || s.Session != "" || s.State != Idle {
		t.Errorf("a payload with the id --help: %+v %v", s, err)
	}
}

// FuzzReadStatus: any input gives a report or an error, never a panic,
// and a state is always one of the four.
func FuzzReadStatus(f *testing.F) {
	f.Add("claude", "", `{"session_id":"a","cwd":"/","hook_event_name":"Stop"}`)
	f.Add("copilot", "sessionStart", `{"sessionId":"a","timestamp":1,"cwd":"/"}`)
	f.Add("gemini", "", `{"hook_event_name":"Notification","notification_type":"ToolPermission"}`)
	f.Fuzz(func(t *testing.T, runner, event, in string) {
		s, err := ReadStatus(runner, event, strings.NewReader(in))
		if err != nil {
			return
		}
		switch s.State {
		case "", Working, Waiting, Idle, Ended:
		default:
			t.Errorf("%q: state %q", in, s.State)
		}
		if s.Session != "" && !ValidSessionID(s.Session) {
			t.Errorf("%q: session id %q kept", in, s.Session)
		}
		Apply(&record.Record{}, s, time.Now(), Runner{})
	})
}
