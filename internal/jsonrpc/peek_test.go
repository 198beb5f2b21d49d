package jsonrpc

import "testing"

func TestPeekID(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"body":{"content":"aaaa`, `7`},
		{`{"id":"a-1","jsonrpc":"2.0","method":"tools/call","params":{"name":"x","arguments":{"body":"`, `"a-1"`},
		{` { "jsonrpc" : "2.0" , "method":"tools/call", "id" : -3.5e2 , "params":{`, `-3.5e2`},
		{`{"method":"tools/call","params":{"name":"memo_create_memo","arguments":{"a":[1,{"b":"c"}]}},"id":42,`, `42`},
		{`{"id":"with \"quotes\" and \\","params":`, `"with \"quotes\" and \\"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"body":{"content":"aaaa`, ``}, // the id comes after the cut
		{`{"jsonrpc":"2.0","id":12`, ``}, // the id itself is cut
		{`{"id":null,"method":"x"}`, ``},
		{`{"id":{"a":1},"method":"x"}`, ``},
		{`[{"jsonrpc":"2.0","id":1}]`, ``},
		{`{"jsonrpc":"2.`, ``},
		{``, ``},
	} {
		if got := string(PeekID([]byte(tc.head))); got != tc.want {
			t.Errorf("PeekID(%s) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

// However the head is cut, PeekID reads no further than it and finds the
// id only once it stands whole.
func TestPeekIDEveryCut(t *testing.T) {
	full := `{"jsonrpc":"2.0","method":"tools/call","id":"req-9","params":{"name":"x"}}`
	idEnd := len(`{"jsonrpc":"2.0","method":"tools/call","id":"req-9"`)
	for n := range len(full) + 1 {
		got := string(PeekID([]byte(full[:n])))
		if want := map[bool]string{true: `"req-9"`}[n >= idEnd]; got != want {
			t.Errorf("cut at %d: %q, want %q", n, got, want)
		}
	}
}
