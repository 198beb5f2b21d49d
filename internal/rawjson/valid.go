package rawjson

import (
	"math/bits"
	"unsafe"
)

// Valid reports whether s is one JSON value (RFC 8259), white space around
// it aside. Like encoding/json, it does not check that strings are UTF-8.
// It keeps its own stack, so no nesting depth exhausts Go's.
func Valid(s string) bool { return valid(s, len(s)) }

// ValidBytes is Valid on b, which it reads in place.
func ValidBytes(b []byte) bool { return Valid(unsafe.String(unsafe.SliceData(b), len(b))) }

// ValidBytesWithin is ValidBytes for a value whose arrays and objects nest
// at most maxDepth deep: what code that walks a value by recursion can take.
func ValidBytesWithin(b []byte, maxDepth int) bool {
	return valid(unsafe.String(unsafe.SliceData(b), len(b)), maxDepth)
}

// valid is Valid with arrays and objects nested at most maxDepth deep.
func valid(s string, maxDepth int) bool {
	var open []byte // the containers around the value at i: '{' or '['
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			if len(open) == maxDepth {
				return false
			}
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
		if i = plainEnd(s, i); i >= len(s) {
			break
		}
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

// plainEnd skips the bytes at s[i:] that need no check in a string, eight
// at a time while none of the eight is a quote, a backslash or a control
// character, and returns where it stopped: at such a byte, or fewer than
// eight bytes before the end. Long strings are most of a large answer, and wasm
// has no vector search.
func plainEnd(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		// Eight bytes at once; wasm and the native targets are little-endian
		// and load them unaligned.
		x := *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i:])))
		q, b := x^(ones*'"'), x^(ones*'\\')
		// A byte of q or b is zero, or a byte of x is below 0x20. The lowest
		// flagged byte is the first such (a borrow flags only higher ones).
		if m := ((q-ones)&^q | (b-ones)&^b | (x-ones*' ')&^x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
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
