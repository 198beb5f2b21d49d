// Package logline writes the gateway's diagnostic lines: a failed upstream
// call, a panic, a bad configuration. Each call writes one line, whole, to
// the writer the runtime supplies. It does without fmt and log, which cost
// the Worker's wasm a few hundred KB; callers format numbers with strconv.
package logline

import (
	"io"
	"strconv"
	"sync"
)

var (
	mu  sync.Mutex
	out io.Writer = io.Discard
)

// SetOutput sets where lines go. Until it is called, or after it is
// called with nil, they are dropped.
func SetOutput(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	mu.Lock()
	defer mu.Unlock()
	out = w
}

// Print writes the parts, joined as they are, as one line.
func Print(parts ...string) {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	b = append(b, '\n')
	mu.Lock()
	defer mu.Unlock()
	out.Write(b)
}

// Value spells a value of unknown type, such as one a panic was given, for a
// line: an error as it describes itself, a string as it is, a number or a
// boolean as Go writes it. It does not call String methods, as fmt does: a
// call through an interface keeps every type's String method in the wasm,
// time.Time's (and with it all of time's formatting) among them.
func Value(v any) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return v.Error()
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case bool:
		return strconv.FormatBool(v)
	}
	return "(a value of a type logline does not spell)"
}
