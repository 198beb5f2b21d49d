package wasmbin

import (
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want int64
		err  bool
	}{
		{"one byte", []byte{0x05}, 5, false},
		{"two bytes", []byte{0xe5, 0x8e, 0x26}, 624485, false},
		{"cut short", []byte{0x80}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Reader{B: tc.in}
			got := int64(r.ULEB())
			if got != tc.want || (r.Err != nil) != tc.err {
				t.Errorf("= %d, %v; want %d (error: %v)", got, r.Err, tc.want, tc.err)
			}
			if r.Err == nil && r.Off != len(tc.in) {
				t.Errorf("read %d of %d bytes", r.Off, len(tc.in))
			}
		})
	}
}

func TestSections(t *testing.T) {
	header := "\x00asm\x01\x00\x00\x00"
	b := []byte(header + "\x01\x04\x01\x60\x00\x00" + "\x00\x05\x02hiyo")
	sections, err := Sections(b)
	if err != nil || len(sections) != 2 {
		t.Fatalf("Sections = %d sections, %v; want 2", len(sections), err)
	}
	if s := sections[0]; s.ID != 1 || string(s.Raw) != "\x01\x04\x01\x60\x00\x00" {
		t.Errorf("first section %d %q", s.ID, s.Raw)
	}
	custom := sections[1]
	if name := custom.Body.Name(); custom.ID != SectionCustom || name != "hi" || string(custom.Body.Bytes(2)) != "yo" {
		t.Errorf("custom section %d named %q", custom.ID, name)
	}
	if custom.Body.Byte(); custom.Body.Err == nil {
		t.Error("a section's reader reads past the section")
	}
	for _, bad := range []string{"\x7fELF\x01\x00\x00\x00", header + "\x01\x09\x00", header + "\x01\x80"} {
		if _, err := Sections([]byte(bad)); err == nil || !strings.Contains(err.Error(), "wasm") && !strings.Contains(err.Error(), "truncated") {
			t.Errorf("Sections(%q) = %v; want an error", bad, err)
		}
	}
}
