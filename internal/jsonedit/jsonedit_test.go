// These tests protect the bytes around an edit: an insert adds only its
// own text, laid out as its neighbours are, and removing what was inserted
// gives the document back byte for byte.
package jsonedit

import (
	"encoding/json"
	"testing"
)

func TestInsertLaysOutAsTheNeighboursAndRemoveUndoesIt(t *testing.T) {
	cases := []struct{ doc, path, want string }{
		{"{\n  \"a\": 1\n}\n", "", "{\n  \"a\": 1,\n  \"k\": [\n    1\n  ]\n}\n"},
		{"{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}", "a", "{\n\t\"a\": {\n\t\t\"b\": 1,\n\t\t\"k\": [\n\t\t\t1\n\t\t]\n\t}\n}"},
		{`{"a":1}`, "", `{"a":1,"k":[1]}`},
		{`{"a": 1, "b": 2}`, "", `{"a": 1, "b": 2, "k": [1]}`},
		{"{\n  \"a\": {}\n}", "a", "{\n  \"a\": {\"k\": [\n    1\n  ]}\n}"},
		{"{\r\n  \"a\": {\r\n  }\r\n}", "a", "{\r\n  \"a\": {\r\n    \"k\": [\r\n      1\r\n    ]\r\n  }\r\n}"},
		{"{}", "", "{\"k\": [\n  1\n]}"},
	}
	for _, c := range cases {
		root, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		obj := root
		if c.path != "" {
			obj = root.Member(c.path)
		}
		out, err := InsertMember([]byte(c.doc), obj, "k", []byte("[1]"))
		if err != nil || string(out) != c.want {
			t.Errorf("%q: insert gave %q (%v), want %q", c.doc, out, err, c.want)
			continue
		}
		if back := removeAgain(t, out, c.path, "k"); back != c.doc {
			t.Errorf("%q: remove gave %q", c.doc, back)
		}
	}
}

func removeAgain(t *testing.T, doc []byte, path, key string) string {
	root, err := Parse(doc)
	if err != nil {
		t.Fatalf("%q: %v", doc, err)
	}
	obj := root
	if path != "" {
		obj = root.Member(path)
	}
	out, err := RemoveMember(doc, obj, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// FuzzInsertRemove: in any JSON document, an element appended to any
// array and a member added to any object leave valid JSON, and removing
// them gives the document back byte for byte.
func FuzzInsertRemove(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":[]}],"c":{}}`))
	f.Add([]byte("{\n\t\"a\": [\n\t\t1\n\t]\n}\n"))
	f.Add([]byte("[ ]"))
	f.Add([]byte(`{"a\"b":"\u0026","c":[[],[[]]]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		root, err := Parse(doc)
		if err != nil {
			return
		}
		var walk func(n *Node)
		walk = func(n *Node) {
			var out []byte
			var err error
			switch n.Kind {
			case '{':
				out, err = InsertMember(doc, n, "new\"key", []byte(`{"x":[1,2]}`))
			case '[':
				out, err = AppendElement(doc, n, []byte(`{"x":[1,2]}`))
			default:
				return
			}
			if err != nil || !json.Valid(out) {
				t.Fatalf("insert into %q at %d gave %q (%v)", doc, n.Start, out, err)
			}
			again, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			c := find(again, n.Start)
			if n.Kind == '{' {
				out, err = RemoveMember(out, c, "new\"key")
			} else {
				out, err = RemoveElement(out, c, len(c.Elems)-1)
			}
			if err != nil || string(out) != string(doc) {
				t.Fatalf("remove from %q at %d gave %q (%v)", doc, n.Start, out, err)
			}
			for _, m := range n.Members {
				walk(m.Value)
			}
			for _, e := range n.Elems {
				walk(e)
			}
		}
		walk(root)
	})
}

// find is the container that starts at offset.
func find(n *Node, offset int) *Node {
	if n.Start == offset {
		return n
	}
	for _, m := range n.Members {
		if m.Value.Start <= offset && offset < m.Value.End {
			return find(m.Value, offset)
		}
	}
	for _, e := range n.Elems {
		if e.Start <= offset && offset < e.End {
			return find(e, offset)
		}
	}
	return nil
}

func TestDuplicatedFindsAKeyThereTwice(t *testing.T) {
	root, err := Parse([]byte(`{"a":1,"b":{"c":1,"c":2},"a":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if !root.Duplicated("a") || root.Duplicated("b") || !root.Member("b").Duplicated("c") || root.Member("x").Duplicated("a") {
		t.Error("Duplicated is wrong")
	}
}
