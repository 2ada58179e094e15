package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the session at the first line it cannot
// decode (not JSON, not a JSON-RPC message, or longer than its limit), and
// the end of a session cancels every call in flight: one client's bad line
// would roll back another agent's new. So the lines are read here first,
// one at a time: a bad one is answered as JSON-RPC says (-32700 for what
// is not JSON or too long, -32600 for JSON that is no message) and
// dropped, and only good lines reach the SDK.

// maxLine is the longest line read: the SDK's own limit.
const maxLine = mcp.DefaultMaxLineLength

// JSON-RPC's error codes for a message that cannot be read.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// lineFilter is the client's stream as the SDK reads it: its good lines,
// each ending in a newline. Bad lines are answered through reply.
type lineFilter struct {
	in      *bufio.Reader
	reply   io.Writer
	pending []byte
}

func newLineFilter(r io.Reader, reply io.Writer) *lineFilter {
	return &lineFilter{in: bufio.NewReaderSize(r, 64<<10), reply: reply}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if tooLong {
			f.answer(codeParseError, nil, fmt.Sprintf("Parse error: a line longer than %d bytes", maxLine))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			f.pending = f.check(line)
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads up to the next newline (or the end of the stream), and
// keeps no more than maxLine bytes of it: a longer line is read to its end
// and reported too long.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+2 { // a line ending may be \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// check is line with a newline when it is a JSON-RPC message (or a batch
// of them) the SDK can decode; otherwise it answers the line and is nil.
func (f *lineFilter) check(line []byte) []byte {
	if !json.Valid(line) {
		f.answer(codeParseError, nil, "Parse error: the line is not JSON")
		return nil
	}
	if err := decodable(line); err != nil {
		f.answer(codeInvalidRequest, idOf(line), "Invalid Request: "+err.Error())
		return nil
	}
	return append(line, '\n')
}

// decodable says why line, valid JSON, is no message the SDK reads.
func decodable(line []byte) error {
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		_, err := jsonrpc.DecodeMessage(line)
		return err
	}
	if len(batch) == 0 {
		return errors.New("an empty batch")
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// idOf is the id of a request that could not be decoded, when it has one
// JSON-RPC allows (a string or a number), so that its sender can tell
// which call failed; else null.
func idOf(line []byte) json.RawMessage {
	var m struct{ ID json.RawMessage }
	if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && (m.ID[0] == '"' || m.ID[0] == '-' || m.ID[0] >= '0' && m.ID[0] <= '9') {
		return m.ID
	}
	return nil
}

// answer writes JSON-RPC's error reply to a line that could not be read.
func (f *lineFilter) answer(code int, id json.RawMessage, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	doc, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, message}})
	f.reply.Write(append(doc, '\n'))
}

// lockedWriter writes each message whole: the SDK's replies and the
// filter's, from different goroutines, share one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }
