// Command pack rewrites the Worker's wasm after the link: it moves the
// program's data out of the data section into one custom section, as the
// memory image those segments describe, compressed, and the driver
// (driver.mjs) writes the image back into the linear memory before the
// program starts.
//
//	go run ./internal/bridge/pack build/app.wasm
//
// Go's linker writes the data as tens of thousands of active segments, one
// after every run of eight or more zero bytes, each with a header of about
// eight bytes; most of them are the runtime's table for finding a function
// by its program counter, two bytes of contents in every twenty. Compressed
// as one image the data takes a quarter of its room in the file, and the
// file gzips smaller too. The image is the same, byte for byte.
package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/wasmbin"
)

// dataSection names the custom section; driver.mjs reads it by this name.
// Its contents: the memory offset of the image as a 32-bit little-endian
// number, then the image in zlib's format.
const dataSection = "memos-mcp-edge.data"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pack file.wasm (rewritten in place)")
		os.Exit(2)
	}
	if err := packFile(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "pack: %v\n", err)
		os.Exit(1)
	}
}

func packFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	packed, err := pack(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, packed, 0o644)
}

// pack returns the module b with its data section replaced by the custom
// section dataSection at the end. It refuses what the driver could not
// restore before the program runs: a start function (it would run first),
// passive segments, segments of another memory or at a computed offset.
//
// A module packed already is returned as it is: go build leaves an output
// file whose build ID says it holds the program being built (a packed file
// keeps it), so `make build` with nothing changed gives pack its own output.
func pack(b []byte) ([]byte, error) {
	sections, err := wasmbin.Sections(b)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), b[:8]...)
	var segments []segment
	packed := false
	for _, s := range sections {
		switch s.ID {
		case wasmbin.SectionData:
			if segments, err = readSegments(&s.Body); err != nil {
				return nil, fmt.Errorf("data section: %w", err)
			}
			continue
		case wasmbin.SectionStart:
			return nil, errors.New("a start function would run before the data is restored")
		case wasmbin.SectionDataCount:
			return nil, errors.New("a data count section: passive data is not supported")
		case wasmbin.SectionCustom:
			packed = packed || s.Body.Name() == dataSection
		}
		out = append(out, s.Raw...)
	}
	if packed && len(segments) > 0 {
		return nil, errors.New("packed already, yet with data segments")
	}
	if len(segments) == 0 {
		return b, nil
	}
	contents, err := image(segments)
	if err != nil {
		return nil, err
	}
	custom := appendULEB(nil, uint64(len(dataSection)))
	custom = append(custom, dataSection...)
	custom = append(custom, contents...)
	out = append(out, wasmbin.SectionCustom)
	out = appendULEB(out, uint64(len(custom)))
	return append(out, custom...), nil
}

// A segment is an active data segment: bytes written at an offset of the
// memory when the module is instantiated.
type segment struct {
	offset uint32
	data   []byte
}

// image returns the custom section's contents for segments: the memory from
// the lowest offset to the highest end, as instantiation leaves it (a later
// segment overwrites an earlier one), compressed.
func image(segments []segment) ([]byte, error) {
	lo, hi := uint64(segments[0].offset), uint64(0)
	for _, s := range segments {
		lo = min(lo, uint64(s.offset))
		hi = max(hi, uint64(s.offset)+uint64(len(s.data)))
	}
	if hi > 1<<32 {
		return nil, errors.New("data beyond 4 GiB")
	}
	mem := make([]byte, hi-lo)
	for _, s := range segments {
		copy(mem[uint64(s.offset)-lo:], s.data)
	}
	var buf bytes.Buffer
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(lo)))
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.Write(mem)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readSegments reads a data section whose segments are all active, in
// memory 0, at constant offsets.
func readSegments(r *wasmbin.Reader) ([]segment, error) {
	n := r.ULEB()
	var segments []segment
	for i := uint64(0); i < n && r.Err == nil; i++ {
		if flags := r.ULEB(); flags != 0 {
			return nil, fmt.Errorf("segment %d: flags %d (only active segments of memory 0 are supported)", i, flags)
		}
		if op := r.Byte(); op != 0x41 { // i32.const
			return nil, fmt.Errorf("segment %d: offset expression opcode %#x", i, op)
		}
		offset := r.SLEB32()
		if r.Byte() != 0x0b || offset < 0 || offset >= 1<<32 {
			return nil, fmt.Errorf("segment %d: bad offset expression", i)
		}
		data := r.Bytes(int(r.ULEB()))
		segments = append(segments, segment{offset: uint32(offset), data: data})
	}
	if r.Err == nil && r.Off != len(r.B) {
		r.Err = errors.New("bytes after the last segment")
	}
	return segments, r.Err
}

// appendULEB appends v as an unsigned LEB128 number.
func appendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
