package git

import (
	"strings"
	"testing"
)

func TestErrorKeepsGitsReason(t *testing.T) {
	for _, c := range []struct{ name, stderr, want string }{
		{"a repository that is not there",
			"fatal: '/r/shared.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
			"fatal: '/r/shared.git' does not appear to be a git repository; fatal: Could not read from remote repository."},
		{"a daemon that is down: the reason goes on on the next line",
			"fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n\n",
			"fatal: unable to connect to 127.0.0.1: 127.0.0.1[0: 127.0.0.1]: errno=Connection refused"},
		{"a refused push, with hints after",
			"To file:///r/shared.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'file:///r/shared.git'\nhint: Updates were rejected because the remote contains work\nhint: that you do not have locally.\n",
			"error: failed to push some refs to 'file:///r/shared.git'"},
		{"a lock another git holds, with git's advice after",
			"fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nan editor opened by 'git commit'. Please make sure all processes\nare terminated then try again. If it still fails, a git process\nmay have crashed in this repository earlier:\nremove the file manually to continue.\n",
			"fatal: Unable to create '/r/.git/index.lock': File exists."},
		{"one fatal line", "fatal: invalid reference: x\n", "fatal: invalid reference: x"},
		{"a warning before the fatal line", "warning: refname 'x' is ambiguous.\nfatal: bad revision\n", "fatal: bad revision"},
		{"no fatal line: the last line", "Schwerwiegend: kein Git-Repository\n", "Schwerwiegend: kein Git-Repository"},
		{"nothing", "", ""},
		{"a long list is bounded",
			"error: The following untracked working tree files would be overwritten by checkout:\n\ta\n\tb\n\tc\n\td\n\te\n\tf\n\tg\n\th\n\ti\nPlease move or remove them before you switch branches.\nAborting\n",
			"error: The following untracked working tree files would be overwritten by checkout: a b c d e f g"},
	} {
		if got := reason(c.stderr); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestErrorMessageIsOneLineWithGitsReason(t *testing.T) {
	e := &Error{Args: []string{"ls-remote", "origin"}, Code: 128,
		Stderr: "fatal: 'origin' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n"}
	msg := e.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "does not appear to be a git repository") || strings.Contains(msg, "and the repository exists") {
		t.Errorf("git's reason, on one line, without its advice: %q", msg)
	}
}
