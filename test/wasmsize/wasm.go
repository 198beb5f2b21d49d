package main

import (
	"errors"
	"fmt"
)

// A module is what wasmsize needs of a wasm binary.
type module struct {
	size        int    // the file
	bodies      []body // the code section, named
	data        int    // bytes of all data segments' contents
	segments    int
	codeSection int // section sizes, headers included
	dataSection int
	nameSection int
	names       map[uint32]string // function index → name
	modules     []string          // module paths of the build information
}

// Section ids of the wasm binary format.
const (
	sectionCustom = 0
	sectionImport = 2
	sectionCode   = 10
	sectionData   = 11
)

// parse reads the sections wasmsize needs. Function indices count the
// imported functions first, so the code section's first body is function
// number imports.
func parse(b []byte) (module, error) {
	m := module{size: len(b), names: map[uint32]string{}}
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return m, errors.New("not a wasm binary")
	}
	r := reader{b: b, off: 8}
	var imports uint32
	var sizes []int
	for r.off < len(r.b) {
		id := r.byte()
		n := int(r.uleb())
		if r.err != nil || n > len(r.b)-r.off {
			return m, fmt.Errorf("section %d at %d: truncated", id, r.off)
		}
		s := reader{b: r.b[:r.off+n], off: r.off}
		switch id {
		case sectionImport:
			imports = s.importedFuncs()
		case sectionCode:
			m.codeSection = n
			sizes = s.bodySizes()
		case sectionData:
			m.dataSection = n
			m.data, m.segments = s.dataSize()
		case sectionCustom:
			if s.name() == "name" {
				m.nameSection = n
				s.funcNames(m.names)
			}
		}
		if s.err != nil {
			return m, fmt.Errorf("section %d: %w", id, s.err)
		}
		r.off += n
	}
	m.modules = modulesOf(b)
	for i, size := range sizes {
		name, ok := m.names[imports+uint32(i)]
		if !ok {
			name = fmt.Sprintf("(function %d)", imports+uint32(i))
		}
		m.bodies = append(m.bodies, body{name: name, size: size})
	}
	return m, nil
}

// reader reads the binary format; the first error sticks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("truncated at byte %d", r.off)
	}
	r.off = len(r.b)
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// uleb reads an unsigned LEB128 number; it also skips a signed one.
func (r *reader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail()
	return 0
}

func (r *reader) skip(n int) {
	if n < 0 || n > len(r.b)-r.off {
		r.fail()
		return
	}
	r.off += n
}

func (r *reader) name() string {
	n := int(r.uleb())
	start := r.off
	r.skip(n)
	if r.err != nil {
		return ""
	}
	return string(r.b[start:r.off])
}

// limits skips a table's or a memory's limits.
func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}

// importedFuncs counts the imports that are functions.
func (r *reader) importedFuncs() uint32 {
	var funcs uint32
	for n := r.uleb(); n > 0 && r.err == nil; n-- {
		r.name()
		r.name()
		switch kind := r.byte(); kind {
		case 0: // function: type index
			r.uleb()
			funcs++
		case 1: // table: element type, limits
			r.byte()
			r.limits()
		case 2: // memory
			r.limits()
		case 3: // global: value type, mutability
			r.byte()
			r.byte()
		default:
			r.err = fmt.Errorf("import kind %d", kind)
		}
	}
	return funcs
}

// bodySizes returns the size of every function body, length prefix excluded.
func (r *reader) bodySizes() []int {
	n := r.uleb()
	sizes := make([]int, 0, min(n, uint64(len(r.b))))
	for ; n > 0 && r.err == nil; n-- {
		size := int(r.uleb())
		r.skip(size)
		sizes = append(sizes, size)
	}
	return sizes
}

// dataSize adds up the contents of the data segments.
func (r *reader) dataSize() (total, segments int) {
	for n := r.uleb(); n > 0 && r.err == nil; n-- {
		switch flags := r.uleb(); flags {
		case 0, 2: // active: (memory index,) offset expression
			if flags == 2 {
				r.uleb()
			}
			r.constExpr()
		case 1: // passive
		default:
			r.err = fmt.Errorf("data segment flags %d", flags)
			return total, segments
		}
		size := int(r.uleb())
		r.skip(size)
		total += size
		segments++
	}
	return total, segments
}

// constExpr skips an offset expression: one constant or global.get, then end.
func (r *reader) constExpr() {
	switch op := r.byte(); op {
	case 0x41, 0x42, 0x23: // i32.const, i64.const, global.get: one LEB128 immediate
		r.uleb()
	default:
		r.err = fmt.Errorf("offset expression opcode %#x", op)
		return
	}
	if r.byte() != 0x0b {
		r.err = errors.New("offset expression without end")
	}
}

// funcNames reads the function names subsection (id 1) of the name section.
func (r *reader) funcNames(names map[uint32]string) {
	for r.off < len(r.b) && r.err == nil {
		id := r.byte()
		size := int(r.uleb())
		if id != 1 {
			r.skip(size)
			continue
		}
		for n := r.uleb(); n > 0 && r.err == nil; n-- {
			idx := uint32(r.uleb())
			names[idx] = r.name()
		}
	}
}
