package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
)

// section returns a section of the binary format: id, size, contents.
func section(id byte, contents ...[]byte) []byte {
	body := bytes.Join(contents, nil)
	return append(appendULEB([]byte{id}, uint64(len(body))), body...)
}

// active returns an active segment of memory 0 at offset (an i32.const).
func active(offset int32, data string) []byte {
	b := []byte{0, 0x41}
	for more := true; more; {
		c := byte(offset & 0x7f)
		offset >>= 7
		more = !(offset == 0 && c&0x40 == 0 || offset == -1 && c&0x40 != 0)
		if more {
			c |= 0x80
		}
		b = append(b, c)
	}
	b = append(b, 0x0b)
	return append(appendULEB(b, uint64(len(data))), data...)
}

func module(sections ...[]byte) []byte {
	return bytes.Join(append([][]byte{[]byte("\x00asm\x01\x00\x00\x00")}, sections...), nil)
}

func custom(name, contents string) []byte {
	return section(wasmbin.SectionCustom, appendULEB(nil, uint64(len(name))), []byte(name), []byte(contents))
}

var (
	memory = section(5, []byte{1, 0, 1})       // one memory of one page
	types  = section(1, []byte{1, 0x60, 0, 0}) // one type: no parameters, no results
)

// The packed module keeps every other section as it was, in its place, and
// its custom section holds the memory as instantiation would leave it:
// segments in any order, overlapping (the later wins) or apart (zeros between).
func TestPack(t *testing.T) {
	data := section(wasmbin.SectionData, []byte{4},
		active(300, "world"),
		active(100, "hello"),
		active(102, "LP"),
		active(200, strings.Repeat("\x00", 8)+"x"),
	)
	in := module(types, custom("name", "names"), memory, data, custom("producers", "go"))
	out, err := pack(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := module(types, custom("name", "names"), memory, custom("producers", "go")); !bytes.HasPrefix(out, want) {
		t.Fatalf("the sections other than data changed:\n got %x\nwant %x…", out, want)
	}
	sections, err := wasmbin.Sections(out)
	if err != nil || len(sections) != 5 {
		t.Fatalf("%d sections, %v; want 5", len(sections), err)
	}
	last := sections[4]
	if last.ID != wasmbin.SectionCustom {
		t.Fatalf("last section %d, want a custom section", last.ID)
	}
	if name := last.Body.Name(); name != dataSection {
		t.Fatalf("custom section %q, want %q", name, dataSection)
	}
	contents := last.Body.B[last.Body.Off:]
	if offset := binary.LittleEndian.Uint32(contents); offset != 100 {
		t.Errorf("image at %d, want 100", offset)
	}
	zr, err := zlib.NewReader(bytes.NewReader(contents[4:]))
	if err != nil {
		t.Fatal(err)
	}
	image, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 205)
	copy(want, "heLPo")
	copy(want[100:], strings.Repeat("\x00", 8)+"x")
	copy(want[200:], "world")
	if !bytes.Equal(image, want) {
		t.Errorf("image\n got %q\nwant %q", image, want)
	}
	// What make build gives pack when go build left its output in place.
	if again, err := pack(out); err != nil || !bytes.Equal(again, out) {
		t.Errorf("packed twice: %v; want the packed module unchanged", err)
	}
}

func TestPackNothingToDo(t *testing.T) {
	in := module(types, memory)
	out, err := pack(in)
	if err != nil || !bytes.Equal(out, in) {
		t.Errorf("a module without data: %x, %v; want it unchanged", out, err)
	}
}

// What the driver could not restore before the program runs is refused.
func TestPackRefuses(t *testing.T) {
	data := section(wasmbin.SectionData, []byte{1}, active(16, "data"))
	for _, tc := range []struct {
		name, want string
		module     []byte
	}{
		{"not wasm", "not a wasm binary", []byte("\x00elf\x01\x00\x00\x00")},
		{"start function", "start function", module(types, memory, section(wasmbin.SectionStart, []byte{0}), data)},
		{"data count", "passive data", module(types, memory, section(wasmbin.SectionDataCount, []byte{1}), data)},
		{"passive segment", "flags 1", module(memory, section(wasmbin.SectionData, []byte{1, 1, 4}, []byte("data")))},
		{"other memory", "flags 2", module(memory, section(wasmbin.SectionData, []byte{1, 2, 1, 0x41, 0, 0x0b, 0}))},
		{"computed offset", "opcode 0x23", module(memory, section(wasmbin.SectionData, []byte{1, 0, 0x23, 0, 0x0b, 0}))},
		{"negative offset", "bad offset", module(memory, section(wasmbin.SectionData, []byte{1}, active(-4, "data")))},
		{"no end", "bad offset", module(memory, section(wasmbin.SectionData, []byte{1, 0, 0x41, 0, 0x0f, 0}))},
		{"segment past its section", "truncated", module(memory, section(wasmbin.SectionData, []byte{1, 0, 0x41, 0, 0x0b, 9}, []byte("data")))},
		{"bytes after the segments", "after the last segment", module(memory, section(wasmbin.SectionData, []byte{1}, active(0, "a"), []byte{0}))},
		{"section past the end", "truncated", append(module(memory), wasmbin.SectionData, 9, 1)},
		{"packed, with data too", "packed already, yet with data segments", module(memory, custom(dataSection, "x"), data)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := pack(tc.module)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("pack = %x, %v; want an error with %q", out, err, tc.want)
			}
		})
	}
}
