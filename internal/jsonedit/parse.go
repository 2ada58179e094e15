package jsonedit

import (
	"encoding/json"
	"errors"
)

// parser walks a document json.Valid accepted, noting where each value
// lies.
type parser struct {
	src []byte
	pos int
	err error
}

func (p *parser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads the value at pos, and the whitespace after it.
func (p *parser) value() *Node {
	n := &Node{Start: p.pos}
	if p.pos >= len(p.src) {
		p.err = errors.New("unexpected end")
		return n
	}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		n.Kind = c
		p.pos++
		p.space()
		for p.err == nil && p.pos < len(p.src) && p.src[p.pos] != c+2 { // '}' and ']' follow '{' and '[' by 2
			if c == '{' {
				keyStart := p.pos
				key := p.str()
				p.space()
				p.pos++ // ':'
				p.space()
				n.Members = append(n.Members, Member{Key: key, KeyStart: keyStart, Value: p.value()})
			} else {
				n.Elems = append(n.Elems, p.value())
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				p.space()
			}
		}
		p.pos++
	case '"':
		p.str()
	default:
		for p.pos < len(p.src) && !isDelim(p.src[p.pos]) {
			p.pos++
		}
	}
	n.End = p.pos
	p.space()
	return n
}

// str reads a string and returns its value.
func (p *parser) str() string {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) && p.src[p.pos] != '"' {
		if p.src[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
	var s string
	if err := json.Unmarshal(p.src[start:min(p.pos, len(p.src))], &s); err != nil && p.err == nil {
		p.err = err
	}
	return s
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
