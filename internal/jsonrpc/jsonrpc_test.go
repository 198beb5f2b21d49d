package jsonrpc

import (
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/tidwall/gjson"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in, method, id, params string
		notification                 bool
		errCode                      int
		errID                        string
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, method: "ping", id: "1"},
		{name: "string id", in: `{"jsonrpc":"2.0","id":"a-1","method":"tools/list","params":{"cursor":"x"}}`, method: "tools/list", id: `"a-1"`, params: `{"cursor":"x"}`},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized", notification: true},
		{name: "null id", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, errCode: CodeInvalidRequest},
		{name: "bool id", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, errCode: CodeInvalidRequest},
		{name: "no version", in: `{"id":3,"method":"ping"}`, errCode: CodeInvalidRequest, errID: "3"},
		{name: "numeric version", in: `{"jsonrpc":2.0,"id":3,"method":"ping"}`, errCode: CodeInvalidRequest, errID: "3"},
		{name: "no method", in: `{"jsonrpc":"2.0","id":4}`, errCode: CodeInvalidRequest, errID: "4"},
		{name: "a response", in: `{"jsonrpc":"2.0","id":5,"result":{}}`, errCode: CodeInvalidRequest, errID: "5"},
		{name: "scalar params", in: `{"jsonrpc":"2.0","id":6,"method":"ping","params":7}`, errCode: CodeInvalidRequest, errID: "6"},
		{name: "array", in: `[1]`, errCode: CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, id, err := Decode(rawjson.Parse(tc.in))
			if tc.errCode != 0 {
				if err == nil || err.Code != tc.errCode || string(id) != tc.errID {
					t.Fatalf("got error %v id %q, want code %d id %q", err, id, tc.errCode, tc.errID)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Method != tc.method || string(m.ID) != tc.id || m.Params.Raw != tc.params || m.IsNotification() != tc.notification {
				t.Errorf("got %+v", m)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	if got := string(Result([]byte(`"x"`), []byte(`{}`))); got != `{"jsonrpc":"2.0","id":"x","result":{}}` {
		t.Errorf("Result: %s", got)
	}
	if got := string(Result([]byte(`1`), []byte(`{"a":1`), nil, []byte(`,"b":2}`))); got != `{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":2}}` {
		t.Errorf("Result of parts: %s", got)
	}
	// A result can be megabytes: the response is allocated once, at its size.
	result := []byte(`{"text":"` + strings.Repeat("x", 1<<20) + `"}`)
	for _, id := range [][]byte{nil, []byte(`7`), []byte(`"a-longer-string-id"`)} {
		var b []byte
		if n := testing.AllocsPerRun(10, func() { b = Result(id, result) }); n != 1 {
			t.Errorf("Result(%s, 1 MB): %v allocations, want 1", id, n)
		}
		if len(b) != cap(b) || !gjson.ValidBytes(b) {
			t.Errorf("Result(%s, 1 MB): %d bytes of room for %d", id, cap(b), len(b))
		}
		if n := testing.AllocsPerRun(10, func() { b = Result(id, result[:1], []byte(`"more":1,`), result[1:]) }); n != 1 || len(b) != cap(b) {
			t.Errorf("Result(%s, parts of 1 MB): %v allocations, %d bytes of room for %d", id, n, cap(b), len(b))
		}
	}
	got := string(ErrorResponse(nil, &Error{Code: CodeInvalidParams, Message: "bad \"arg\"\n<x>", Data: []byte(`{"a":1}`)}))
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad \"arg\"\n\u003cx\u003e","data":{"a":1}}}`; got != want || !gjson.Valid(got) {
		t.Errorf("ErrorResponse:\n got %s\nwant %s", got, want)
	}
}
