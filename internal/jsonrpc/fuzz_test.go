package jsonrpc

import (
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/tidwall/gjson"
)

// depth measures nesting by parsing, as the reference for TooDeep.
func depth(v gjson.Result) int {
	if !v.IsObject() && !v.IsArray() {
		return 0
	}
	deepest := 0
	v.ForEach(func(_, child gjson.Result) bool {
		deepest = max(deepest, depth(child))
		return true
	})
	return deepest + 1
}

// FuzzTooDeep checks the byte scanner against a parse of the same valid
// JSON, including brackets inside strings and escaped quotes.
func FuzzTooDeep(f *testing.F) {
	for _, s := range []string{`{}`, `[[[]]]`, `{"a":"[[[\"{"}`, `{"a":[{"b":[1,2,{"c":"]]"}]}]}`, `"\\"`, `[[],[[]],[[[]]]]`} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 || limit > 1000 {
			return
		}
		got := TooDeep(b, limit)
		if !gjson.ValidBytes(b) {
			return // only must not panic
		}
		if want := depth(gjson.ParseBytes(b)) > limit; got != want {
			t.Fatalf("TooDeep(%q, %d) = %t, want %t", b, limit, got, want)
		}
	})
}

// FuzzDecode checks that Decode accepts exactly the well-formed requests and
// notifications, and echoes a readable id.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","method":"n"}`, `{"id":"x"}`, `[]`, `{"jsonrpc":"2.0","id":1.5e3,"method":"m","params":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !gjson.ValidBytes(b) {
			return
		}
		v := rawjson.ParseBytes(b)
		m, id, err := Decode(v)
		if err != nil {
			if id != nil && !gjson.ValidBytes(id) {
				t.Fatalf("error id %q is not JSON", id)
			}
			if out := ErrorResponse(id, err); !gjson.ValidBytes(out) {
				t.Fatalf("error response %q is not JSON", out)
			}
			return
		}
		if v.Get("jsonrpc").Str != "2.0" || m.Method != v.Get("method").Str {
			t.Fatalf("accepted %q as %+v", b, m)
		}
		if out := Result(m.ID, []byte(`{}`)); !m.IsNotification() && !gjson.ValidBytes(out) {
			t.Fatalf("result %q is not JSON", out)
		}
	})
}
