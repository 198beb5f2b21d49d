// Package wasmbin reads the WebAssembly binary format: a module's sections
// and the numbers and names inside them, for the build's packer of the
// Worker's data (internal/bridge/pack), test/wasmsize (make wasmsize) and
// the test of what the Worker's wasm links (TestWasmDependencies).
package wasmbin

import (
	"errors"
	"fmt"
)

// Section ids.
const (
	SectionCustom    = 0
	SectionImport    = 2
	SectionStart     = 8
	SectionCode      = 10
	SectionData      = 11
	SectionDataCount = 12
)

// A Section is one section of a module.
type Section struct {
	ID   byte
	Raw  []byte // the whole section: id, size and contents
	Body Reader // reads its contents
}

// Sections splits module b into its sections, in their order.
func Sections(b []byte) ([]Section, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm binary")
	}
	var sections []Section
	for r := (Reader{B: b, Off: 8}); r.Off < len(b); {
		start := r.Off
		id := r.Byte()
		n := int(r.ULEB())
		if r.Err != nil || n > len(b)-r.Off {
			return nil, fmt.Errorf("section %d at byte %d: truncated", id, start)
		}
		sections = append(sections, Section{ID: id, Raw: b[start : r.Off+n], Body: Reader{B: b[:r.Off+n], Off: r.Off}})
		r.Off += n
	}
	return sections, nil
}

// A Reader reads B from Off. The first error sticks in Err, and every read
// after it returns zero values.
type Reader struct {
	B   []byte
	Off int
	Err error
}

// Fail records that B ended early.
func (r *Reader) Fail() {
	if r.Err == nil {
		r.Err = fmt.Errorf("truncated at byte %d", r.Off)
	}
	r.Off = len(r.B)
}

func (r *Reader) Byte() byte {
	if r.Off >= len(r.B) {
		r.Fail()
		return 0
	}
	c := r.B[r.Off]
	r.Off++
	return c
}

// ULEB reads an unsigned LEB128 number; it also skips a signed one.
func (r *Reader) ULEB() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.Byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.Fail()
	return 0
}

// SLEB32 reads a signed LEB128 number of at most 32 bits (five bytes).
func (r *Reader) SLEB32() int64 {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c := r.Byte()
		v |= int64(c&0x7f) << shift
		if c&0x80 == 0 {
			if c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			return v
		}
	}
	r.Fail()
	return 0
}

// Bytes reads the next n bytes.
func (r *Reader) Bytes(n int) []byte {
	if n < 0 || n > len(r.B)-r.Off {
		r.Fail()
		return nil
	}
	r.Off += n
	return r.B[r.Off-n : r.Off]
}

// Name reads a name: its length, then its bytes.
func (r *Reader) Name() string {
	return string(r.Bytes(int(r.ULEB())))
}

// FuncNames reads the function names (subsection 1) of a name section's
// contents, by function index, into names.
func (r *Reader) FuncNames(names map[uint32]string) {
	for r.Off < len(r.B) && r.Err == nil {
		id := r.Byte()
		size := int(r.ULEB())
		if id != 1 {
			r.Bytes(size)
			continue
		}
		for n := r.ULEB(); n > 0 && r.Err == nil; n-- {
			idx := uint32(r.ULEB())
			names[idx] = r.Name()
		}
	}
}
