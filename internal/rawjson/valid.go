package rawjson

import (
	"math/bits"
	"unsafe"
)

// Valid reports whether s is one JSON value (RFC 8259), white space around
// it aside. Like encoding/json, it does not check that strings are UTF-8.
// It keeps its own stack, so no nesting depth exhausts Go's.
func Valid(s string) bool {
	_, _, ok := scan(nil, s, len(s), false, false, false)
	return ok
}

// ValidBytes is Valid on b, which it reads in place.
func ValidBytes(b []byte) bool { return Valid(unsafe.String(unsafe.SliceData(b), len(b))) }

// ValidBytesWithin is ValidBytes for a value whose arrays and objects nest
// at most maxDepth deep: what code that walks a value by recursion can take.
func ValidBytesWithin(b []byte, maxDepth int) bool {
	_, _, ok := scan(nil, unsafe.String(unsafe.SliceData(b), len(b)), maxDepth, false, false, false)
	return ok
}

// Compact appends the JSON value src to dst without insignificant white
// space and, with dropNulls, without the object members whose value is
// null, while it checks what ValidBytesWithin checks: one pass over src,
// which allocates only for dst and its stack of the containers open. It
// returns the extended dst, the number of quotes and backslashes it
// appended (what quoting the result as a JSON string escapes), and false
// when src is not such a value.
func Compact(dst, src []byte, maxDepth int, dropNulls bool) ([]byte, int, bool) {
	return scan(dst, unsafe.String(unsafe.SliceData(src), len(src)), maxDepth, dropNulls, true, false)
}

// CompactOrSame is Compact with nothing to append to, for a value that is
// mostly compact already (an API's answer, which can be megabytes): when
// it has nothing to leave out, src itself is returned, not a copy.
func CompactOrSame(src []byte, maxDepth int, dropNulls bool) ([]byte, int, bool) {
	return scan(nil, unsafe.String(unsafe.SliceData(src), len(src)), maxDepth, dropNulls, true, true)
}

// scan checks that s is one JSON value nested at most maxDepth deep and,
// with write, appends it to dst as Compact describes. It copies runs of s
// between the bytes it leaves out (white space, dropped members and their
// commas), not token by token: an API's answer is mostly compact already.
// With same, a value it leaves nothing out of is returned as s's own bytes
// when dst is empty, uncopied.
func scan(dst []byte, s string, maxDepth int, dropNulls, write, same bool) ([]byte, int, bool) {
	// The containers around the value at i: '[', or '{' for an object none
	// of whose members is written yet and 'o' for one with a member written.
	var open []byte
	escapes := 0
	member := false // whether a member of the innermost object starts at i
	comma := -1     // where the comma before that member stands, if any
	i := skipSpace(s, 0)
	run := i // s[run:i] is still to be copied
	start := i
	for {
		dropped := false
		if member {
			member = false
			name := i
			if i >= len(s) || s[i] != '"' {
				return dst, escapes, false
			}
			end, n := validString(s, i)
			if end < 0 {
				return dst, escapes, false
			}
			colon := skipSpace(s, end)
			if colon >= len(s) || s[colon] != ':' {
				return dst, escapes, false
			}
			i = skipSpace(s, colon+1)
			top := len(open) - 1
			switch {
			case dropNulls && i < len(s) && s[i] == 'n':
				if i = validLiteral(s, i, "null"); i < 0 {
					return dst, escapes, false
				}
				dropped = true
				if write {
					// The member goes, with the comma before it.
					from := name
					if comma >= 0 {
						from = comma
					}
					dst, run = cut(dst, s, run, from, i)
				}
			case write:
				if comma >= 0 && open[top] != 'o' {
					dst, run = cut(dst, s, run, comma, name) // no member before it is written
				} else if comma >= 0 {
					dst, run = cut(dst, s, run, comma+1, name)
				}
				dst, run = cut(dst, s, run, end, colon)
				dst, run = cut(dst, s, run, colon+1, i)
				escapes += n
				open[top] = 'o'
			}
		}
		if !dropped {
			// A value starts at i.
			if i >= len(s) {
				return dst, escapes, false
			}
			switch c := s[i]; {
			case c == '{' || c == '[':
				if len(open) == maxDepth {
					return dst, escapes, false
				}
				j := skipSpace(s, i+1)
				if write {
					dst, run = cut(dst, s, run, i+1, j)
				}
				if i = j; i < len(s) && s[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
					i++
					break
				}
				open = append(open, c)
				member, comma = c == '{', -1
				continue
			case c == '"':
				var n int
				i, n = validString(s, i)
				escapes += n
			case c == '-' || c >= '0' && c <= '9':
				i = validNumber(s, i)
			case c == 't':
				i = validLiteral(s, i, "true")
			case c == 'f':
				i = validLiteral(s, i, "false")
			case c == 'n':
				i = validLiteral(s, i, "null")
			default:
				return dst, escapes, false
			}
			if i < 0 {
				return dst, escapes, false
			}
		}
		// A value ended at i: close containers until one continues.
		for {
			j := skipSpace(s, i)
			if len(open) == 0 {
				switch {
				case write && same && run == start && len(dst) == 0:
					dst = unsafe.Slice(unsafe.StringData(s[run:i]), i-run)
				case write:
					dst = append(dst, s[run:i]...)
				}
				return dst, escapes, j == len(s)
			}
			if write {
				dst, run = cut(dst, s, run, i, j)
			}
			if i = j; i >= len(s) {
				return dst, escapes, false
			}
			c := open[len(open)-1]
			if c == 'o' {
				c = '{'
			}
			if s[i] == c+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return dst, escapes, false
			}
			if c == '[' {
				j = skipSpace(s, i+1)
				if write {
					dst, run = cut(dst, s, run, i+1, j)
				}
				i = j
			} else {
				// Whether the comma stays is the next member's to say.
				member, comma = true, i
				i = skipSpace(s, i+1)
			}
			break
		}
	}
}

// cut appends s[run:from] to dst and leaves out s[from:to]: it returns dst
// and where the next run starts.
func cut(dst []byte, s string, run, from, to int) ([]byte, int) {
	if from == to {
		return dst, run
	}
	return append(dst, s[run:from]...), to
}

// validString checks the string that starts at s[i] and returns its end, or
// -1, and the number of quotes and backslashes in it.
func validString(s string, i int) (int, int) {
	escapes := 2 // its own quotes
	for i++; i < len(s); i++ {
		if i = plainEnd(s, i); i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, escapes
		case c < ' ':
			return -1, 0
		case c == '\\':
			i++
			if i >= len(s) {
				return -1, 0
			}
			switch s[i] {
			case '"', '\\':
				escapes += 2
			case '/', 'b', 'f', 'n', 'r', 't':
				escapes++
			case 'u':
				if hex4(s, i+1) < 0 {
					return -1, 0
				}
				i += 4
				escapes++
			default:
				return -1, 0
			}
		}
	}
	return -1, 0
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
