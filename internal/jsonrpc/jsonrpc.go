// Package jsonrpc reads and writes JSON-RPC 2.0 messages as bytes, without
// reflection. It knows nothing of MCP.
package jsonrpc

import (
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Standard error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeResourceNotFound is MCP's resource-not-found error before
	// 2026-07-28, which answers it with CodeInvalidParams (same data).
	CodeResourceNotFound = -32002
)

// Error is a JSON-RPC error object. Data, when set, is raw JSON.
type Error struct {
	Code    int
	Message string
	Data    []byte
}

func (e *Error) Error() string { return e.Message }

// InvalidParams is the error of a request whose params the caller got
// wrong; msg says how.
func InvalidParams(msg string) *Error { return &Error{Code: CodeInvalidParams, Message: msg} }

// Message is one decoded request or notification.
type Message struct {
	ID     []byte // raw JSON id (string or number); nil for a notification
	Method string
	Params rawjson.Value // the params member; !Exists() when absent
}

// IsNotification reports whether m expects no response.
func (m *Message) IsNotification() bool { return m.ID == nil }

// Decode parses one message from raw, which must be valid JSON. A non-nil
// error carries the id when one could be read, so the reply can echo it.
func Decode(raw rawjson.Value) (Message, []byte, *Error) {
	var m Message
	if !raw.IsObject() {
		return m, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: a JSON-RPC message must be an object"}
	}
	var id []byte
	if v := raw.Get("id"); v.Exists() {
		if v.Kind != rawjson.String && v.Kind != rawjson.Number {
			return m, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: id must be a string or a number"}
		}
		id = []byte(v.Raw)
	}
	if v := raw.Get("jsonrpc"); v.Kind != rawjson.String || v.Str != "2.0" {
		return m, id, &Error{Code: CodeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	method := raw.Get("method")
	if method.Kind != rawjson.String {
		if id != nil && (raw.Get("result").Exists() || raw.Get("error").Exists()) {
			return m, id, &Error{Code: CodeInvalidRequest, Message: "invalid request: this server sends no requests, so it takes no responses"}
		}
		return m, id, &Error{Code: CodeInvalidRequest, Message: "invalid request: method must be a string"}
	}
	params := raw.Get("params")
	if params.Exists() && !params.IsObject() && !params.IsArray() {
		return m, id, &Error{Code: CodeInvalidRequest, Message: "invalid request: params must be an object or an array"}
	}
	return Message{ID: id, Method: method.Str, Params: params}, id, nil
}

// The members of a response, in the order they are written.
const (
	headMember   = `{"jsonrpc":"2.0","id":`
	resultMember = `,"result":`
)

// Result encodes a success response whose result is the raw JSON the parts
// make one after another. A result can be megabytes, so the response is
// allocated once at its exact size, and a caller that would add to a result
// passes its additions as parts rather than copying it first.
func Result(id []byte, parts ...[]byte) []byte {
	id = idOrNull(id)
	n := len(headMember) + len(id) + len(resultMember) + 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, headMember...)
	b = append(b, id...)
	b = append(b, resultMember...)
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(b, '}')
}

// ErrorResponse encodes an error response; a nil id is written as null.
func ErrorResponse(id []byte, e *Error) []byte {
	id = idOrNull(id)
	b := make([]byte, 0, 96+len(id)+len(e.Message)+len(e.Data))
	b = append(b, headMember...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, `,"message":`...)
	b = rawjson.AppendString(b, e.Message)
	if e.Data != nil {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, "}}"...)
}

// idOrNull is id as a response writes it: a missing id is null.
func idOrNull(id []byte) []byte {
	if id == nil {
		return []byte("null")
	}
	return id
}

// TooDeep reports whether the JSON text b nests arrays and objects deeper
// than max. It scans bytes only (strings are skipped), so it is safe to run
// before parsing hostile input.
func TooDeep(b []byte, max int) bool {
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > max {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
