// These tests protect the session from a client's bad line: it is
// answered and dropped, and the good lines around it reach the SDK whole.
package mcpserver

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestLineFilter(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []struct {
		name, in, passed, replies string
	}{
		{"good lines pass, trimmed", good + "  \r\n\n" + good, good + "\n" + good + "\n", ""},
		{"not JSON", "nope\n" + good + "\n", good + "\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n"},
		{"two values on a line", good + good + "\n", "", `"code":-32700`},
		{"JSON but no message, its id kept", `{"id":7,"method":3}` + "\n", "", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600`},
		{"an empty batch", "[]\n", "", `"id":null,"error":{"code":-32600`},
		{"a batch", "[" + good + "]\n", "[" + good + "]\n", ""},
		{"too long", `"` + strings.Repeat("a", maxLine) + `"` + "\n" + good, good + "\n", `"code":-32700,"message":"Parse error: a line longer than`},
	}
	for _, c := range cases {
		var replies bytes.Buffer
		passed, err := io.ReadAll(newLineFilter(strings.NewReader(c.in), &replies))
		if err != nil || string(passed) != c.passed || !strings.Contains(replies.String(), c.replies) || (c.replies == "") != (replies.Len() == 0) {
			t.Errorf("%s: passed %.80q (%v), replied %.200q", c.name, passed, err, replies.String())
		}
	}
}
