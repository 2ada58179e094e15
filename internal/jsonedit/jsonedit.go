// Package jsonedit edits a JSON document the way a person would: it
// inserts or removes one member of an object or one element of an array
// and leaves every other byte of the file as it was (its indentation, its
// key order, its escapes, its line endings), so that a runner's settings
// file that git-wt touches differs only by git-wt's own entries (SPEC §16
// "Editing a runner's files"). Inserted text follows the indentation of
// the container it goes into.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Node is one JSON value of a document, with where it lies in the bytes.
type Node struct {
	Start, End int // the value's bytes: src[Start:End]
	// Kind is '{' for an object, '[' for an array, 0 for any other value.
	Kind    byte
	Members []Member // an object's, in the file's order
	Elems   []*Node  // an array's
}

// Member is one key and value of an object.
type Member struct {
	Key      string
	KeyStart int // where the key's opening quote is
	Value    *Node
}

// Parse reads a document that is one JSON value (with whitespace around
// it) into its tree.
func Parse(src []byte) (*Node, error) {
	if !json.Valid(src) {
		return nil, errors.New("not valid JSON")
	}
	p := &parser{src: src}
	p.space()
	n := p.value()
	return n, p.err
}

// Member is the value of key in the object n, or nil (also when n is
// nil: a lookup in a missing object finds nothing).
func (n *Node) Member(key string) *Node {
	if n == nil {
		return nil
	}
	if i := n.memberIndex(key); i >= 0 {
		return n.Members[i].Value
	}
	return nil
}

// Duplicated reports whether the object n has key more than once. A
// runner keeps one of them (JavaScript's JSON.parse, the last): an entry
// added to the other would never be read, so an edit there is refused.
func (n *Node) Duplicated(key string) bool {
	if n == nil {
		return false
	}
	count := 0
	for _, m := range n.Members {
		if m.Key == key {
			count++
		}
	}
	return count > 1
}

func (n *Node) memberIndex(key string) int {
	for i, m := range n.Members {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// items are the starts and ends of a container's members or elements, a
// member starting at its key.
func (n *Node) items() (starts, ends []int) {
	for _, m := range n.Members {
		starts, ends = append(starts, m.KeyStart), append(ends, m.Value.End)
	}
	for _, e := range n.Elems {
		starts, ends = append(starts, e.Start), append(ends, e.End)
	}
	return starts, ends
}

// InsertMember adds key with the JSON value at the end of the object obj
// of src, and returns the new document. The value is indented as the
// object's members are.
func InsertMember(src []byte, obj *Node, key string, value []byte) ([]byte, error) {
	if obj.Kind != '{' {
		return nil, errors.New("not an object")
	}
	k, _ := Marshal(key)
	return insert(src, obj, func(indent, unit string) []byte {
		colon := ": "
		if unit == "" && !bytes.Contains(src, []byte(`": `)) {
			colon = ":" // a compact document
		}
		return append(append(k, colon...), reindent(src, value, indent, unit)...)
	}), nil
}

// AppendElement adds the JSON value at the end of the array arr of src.
func AppendElement(src []byte, arr *Node, value []byte) ([]byte, error) {
	if arr.Kind != '[' {
		return nil, errors.New("not an array")
	}
	return insert(src, arr, func(indent, unit string) []byte { return reindent(src, value, indent, unit) }), nil
}

// insert puts the item made by item(indent, unit) after the container's
// last item, separated as that one is from the one before it (or from the
// opening bracket): the only bytes that change are the inserted ones, so
// that removing the item gives src back. Into an empty container the item
// goes on a line of its own when the container spans lines, else right
// after its opening bracket.
func insert(src []byte, c *Node, item func(indent, unit string) []byte) []byte {
	starts, ends := c.items()
	unit := indentUnit(src)
	var at int
	var text []byte
	if len(starts) == 0 {
		at = c.Start + 1
		indent := lineIndent(src, c.Start)
		if bytes.ContainsRune(src[at:c.End-1], '\n') {
			indent += unit
			text = []byte(newline(src) + indent)
		}
		text = append(text, item(indent, unit)...)
	} else {
		last := len(starts) - 1
		from := c.Start + 1
		if last > 0 {
			from = bytes.LastIndexByte(src[:starts[last]], ',') + 1
		}
		sep := src[from:starts[last]]
		if last == 0 && len(sep) == 0 && unit != "" {
			sep = []byte{' '} // {"a": 1} gets {"a": 1, "b": 2}
		}
		indent := lineIndent(src, starts[last])
		if !bytes.ContainsRune(sep, '\n') {
			indent = lineIndent(src, c.Start)
		}
		at = ends[last]
		text = append(append([]byte{','}, sep...), item(indent, unit)...)
	}
	out := make([]byte, 0, len(src)+len(text))
	out = append(append(append(out, src[:at]...), text...), src[at:]...)
	return out
}

// RemoveMember takes key out of the object obj of src: the member and the
// separator before it (after it, for the first of several; from the
// opening bracket, for the only one).
func RemoveMember(src []byte, obj *Node, key string) ([]byte, error) {
	i := obj.memberIndex(key)
	if obj.Kind != '{' || i < 0 {
		return nil, fmt.Errorf("no member %q", key)
	}
	return remove(src, obj, i), nil
}

// RemoveElement takes the i-th element out of the array arr of src, as
// RemoveMember does a member.
func RemoveElement(src []byte, arr *Node, i int) ([]byte, error) {
	if arr.Kind != '[' || i < 0 || i >= len(arr.Elems) {
		return nil, fmt.Errorf("no element %d", i)
	}
	return remove(src, arr, i), nil
}

// remove is insert undone: the i-th item goes with the separator before
// it, or with the one after it when it is the first of several.
func remove(src []byte, c *Node, i int) []byte {
	starts, ends := c.items()
	var from, to int
	switch {
	case len(starts) == 1:
		from, to = c.Start+1, ends[0]
	case i > 0:
		from, to = ends[i-1], ends[i]
	default:
		from, to = starts[0], starts[1]
	}
	out := make([]byte, 0, len(src)-(to-from))
	return append(append(out, src[:from]...), src[to:]...)
}

// indentUnit is the document's indentation step: the indentation of the
// first line that has one; "" (one line, compact) for a document written
// on one line that holds anything; two spaces for an empty one.
func indentUnit(src []byte) string {
	for _, line := range strings.Split(string(src), "\n")[1:] {
		if t := strings.TrimLeft(line, " \t"); t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	if t := bytes.TrimSpace(src); !bytes.ContainsRune(t, '\n') && len(t) > 2 {
		return ""
	}
	return "  "
}

// lineIndent is the indentation of the line that holds offset.
func lineIndent(src []byte, offset int) string {
	start := bytes.LastIndexByte(src[:offset], '\n') + 1
	end := start
	for end < offset && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// newline is the document's line ending.
func newline(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// reindent is value laid out at indent with step unit (on one line when
// unit is ""), its lines ending as src's do.
func reindent(src, value []byte, indent, unit string) []byte {
	var b bytes.Buffer
	if unit == "" {
		json.Compact(&b, value)
		return b.Bytes()
	}
	json.Indent(&b, value, indent, unit)
	if nl := newline(src); nl != "\n" {
		return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(nl))
	}
	return b.Bytes()
}

// Marshal is v as JSON on one line, with no HTML escapes (a command's
// "&&" stays readable): a value to insert.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
