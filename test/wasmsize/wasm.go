package main

import (
	"errors"
	"fmt"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
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

// parse reads the sections wasmsize needs. Function indices count the
// imported functions first, so the code section's first body is function
// number imports.
func parse(b []byte) (module, error) {
	m := module{size: len(b), names: map[uint32]string{}}
	sections, err := wasmbin.Sections(b)
	if err != nil {
		return m, err
	}
	var imports uint32
	var sizes []int
	for _, sec := range sections {
		s := reader{sec.Body}
		n := len(s.B) - s.Off
		switch sec.ID {
		case wasmbin.SectionImport:
			imports = s.importedFuncs()
		case wasmbin.SectionCode:
			m.codeSection = n
			sizes = s.bodySizes()
		case wasmbin.SectionData:
			m.dataSection = n
			m.data, m.segments = s.dataSize()
		case wasmbin.SectionCustom:
			if s.Name() == "name" {
				m.nameSection = n
				s.FuncNames(m.names)
			}
		}
		if s.Err != nil {
			return m, fmt.Errorf("section %d: %w", sec.ID, s.Err)
		}
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

// reader reads the sections wasmsize looks into.
type reader struct{ wasmbin.Reader }

// limits skips a table's or a memory's limits.
func (r *reader) limits() {
	if r.Byte()&1 != 0 {
		r.ULEB()
	}
	r.ULEB()
}

// importedFuncs counts the imports that are functions.
func (r *reader) importedFuncs() uint32 {
	var funcs uint32
	for n := r.ULEB(); n > 0 && r.Err == nil; n-- {
		r.Name()
		r.Name()
		switch kind := r.Byte(); kind {
		case 0: // function: type index
			r.ULEB()
			funcs++
		case 1: // table: element type, limits
			r.Byte()
			r.limits()
		case 2: // memory
			r.limits()
		case 3: // global: value type, mutability
			r.Byte()
			r.Byte()
		default:
			r.Err = fmt.Errorf("import kind %d", kind)
		}
	}
	return funcs
}

// bodySizes returns the size of every function body, length prefix excluded.
func (r *reader) bodySizes() []int {
	n := r.ULEB()
	sizes := make([]int, 0, min(n, uint64(len(r.B))))
	for ; n > 0 && r.Err == nil; n-- {
		size := int(r.ULEB())
		r.Bytes(size)
		sizes = append(sizes, size)
	}
	return sizes
}

// dataSize adds up the contents of the data segments.
func (r *reader) dataSize() (total, segments int) {
	for n := r.ULEB(); n > 0 && r.Err == nil; n-- {
		switch flags := r.ULEB(); flags {
		case 0, 2: // active: (memory index,) offset expression
			if flags == 2 {
				r.ULEB()
			}
			r.constExpr()
		case 1: // passive
		default:
			r.Err = fmt.Errorf("data segment flags %d", flags)
			return total, segments
		}
		size := int(r.ULEB())
		r.Bytes(size)
		total += size
		segments++
	}
	return total, segments
}

// constExpr skips an offset expression: one constant or global.get, then end.
func (r *reader) constExpr() {
	switch op := r.Byte(); op {
	case 0x41, 0x42, 0x23: // i32.const, i64.const, global.get: one LEB128 immediate
		r.ULEB()
	default:
		r.Err = fmt.Errorf("offset expression opcode %#x", op)
		return
	}
	if r.Byte() != 0x0b {
		r.Err = errors.New("offset expression without end")
	}
}
