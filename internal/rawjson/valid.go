package rawjson

// Valid reports whether s is one JSON value (RFC 8259), white space around
// it aside. Like encoding/json, it does not check that strings are UTF-8.
// It keeps its own stack, so no nesting depth exhausts Go's.
func Valid(s string) bool {
	var open []byte // the containers around the value at i: '{' or '['
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			i = skipSpace(s, i+1)
			if i < len(s) && s[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				if i = validMemberName(s, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			i = validString(s, i)
		case c == '-' || c >= '0' && c <= '9':
			i = validNumber(s, i)
		case c == 't':
			i = validLiteral(s, i, "true")
		case c == 'f':
			i = validLiteral(s, i, "false")
		case c == 'n':
			i = validLiteral(s, i, "null")
		default:
			return false
		}
		if i < 0 {
			return false
		}
		// A value ended at i: close containers until one continues.
		for {
			i = skipSpace(s, i)
			if len(open) == 0 {
				return i == len(s)
			}
			if i >= len(s) {
				return false
			}
			c := open[len(open)-1]
			if s[i] == c+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return false
			}
			i = skipSpace(s, i+1)
			if c == '{' {
				if i = validMemberName(s, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// ValidBytes is Valid on b.
func ValidBytes(b []byte) bool { return Valid(string(b)) }

// validMemberName checks a member's name and its colon at s[i:] and returns
// where its value starts, or -1.
func validMemberName(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	if i = validString(s, i); i < 0 {
		return -1
	}
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return -1
	}
	return skipSpace(s, i+1)
}

// validString checks the string that starts at s[i] and returns its end, or -1.
func validString(s string, i int) int {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < ' ':
			return -1
		case c == '\\':
			i++
			if i >= len(s) {
				return -1
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(s, i+1) < 0 {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// validNumber checks the number that starts at s[i] and returns its end, or -1:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func validNumber(s string, i int) int {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func validLiteral(s string, i int, lit string) int {
	if len(s)-i < len(lit) || s[i:i+len(lit)] != lit {
		return -1
	}
	return i + len(lit)
}
