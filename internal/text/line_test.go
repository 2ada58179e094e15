package text

import "testing"

func TestOneLineJoinsLines(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                  "plain",
		"fatal: a\n\nadvice b\n": "fatal: a; advice b",
		"x\r\n  y  \n":           "x; y",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
