package jsonrpc

// PeekID returns the raw id of a JSON-RPC request from the head of its body
// (the first bytes of a body too large to read whole): the value of a
// top-level "id" member, a number or a string, when it stands whole in the
// head before anything the scan cannot pass. It returns nil otherwise: no
// id there, one of another type, or a head that is not the start of an
// object.
func PeekID(head []byte) []byte {
	s := scanner{b: head}
	if !s.byte('{') {
		return nil
	}
	for {
		key, ok := s.string()
		if !ok || !s.byte(':') {
			return nil
		}
		s.space()
		start := s.i
		if !s.value(0) {
			return nil
		}
		if string(key) == `"id"` {
			raw := head[start:s.i]
			if raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
				return raw
			}
			return nil
		}
		if !s.byte(',') {
			return nil
		}
	}
}

// peekDepth bounds how deep PeekID follows a member's value.
const peekDepth = 16

// scanner reads JSON text from the start, refusing what it cannot read whole.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// byte reads c after any space.
func (s *scanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// string reads a string after any space and returns it raw, quotes included.
func (s *scanner) string() ([]byte, bool) {
	s.space()
	start := s.i
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return s.b[start:s.i], true
		}
	}
	return nil, false
}

// value reads one value whole: a string, a number or literal, an array or an
// object, nested at most peekDepth deep.
func (s *scanner) value(depth int) bool {
	s.space()
	if s.i >= len(s.b) || depth > peekDepth {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		_, ok := s.string()
		return ok
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		if s.byte(end) {
			return true
		}
		for {
			if c == '{' {
				if _, ok := s.string(); !ok || !s.byte(':') {
					return false
				}
			}
			if !s.value(depth + 1) {
				return false
			}
			if s.byte(end) {
				return true
			}
			if !s.byte(',') {
				return false
			}
		}
	}
	start := s.i
	for s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] >= 'a' && s.b[s.i] <= 'z' || s.b[s.i] == 'E') {
		s.i++
	}
	// A number or literal is whole only when something follows it.
	return s.i > start && s.i < len(s.b)
}
