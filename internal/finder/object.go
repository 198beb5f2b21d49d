package finder

import (
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// object writes a JSON object member by member. Its keys are this
// package's own and need no escaping. One call per member keeps the wasm
// small: an inline append of a key and a value compiles to a few hundred
// bytes each.
type object struct{ b []byte }

func newObject() *object { return &object{b: append(make([]byte, 0, 256), '{')} }

// key starts a member.
func (o *object) key(k string) {
	if o.b[len(o.b)-1] != '{' && o.b[len(o.b)-1] != '[' {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.b = rawjson.AppendString(o.b, v)
}

// raw adds a member whose value is JSON already.
func (o *object) raw(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

func (o *object) num(k string, n int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, n, 10)
}

func (o *object) boolean(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

// open starts a member whose value is an array or object (c is [ or {).
func (o *object) open(k string, c byte) {
	o.key(k)
	o.b = append(o.b, c)
}

// item starts an array item (an object when c is {).
func (o *object) item(c byte) {
	if last := o.b[len(o.b)-1]; last != '[' {
		o.b = append(o.b, ',')
	}
	o.b = append(o.b, c)
}

// strItem adds a string array item.
func (o *object) strItem(v string) {
	if last := o.b[len(o.b)-1]; last != '[' {
		o.b = append(o.b, ',')
	}
	o.b = rawjson.AppendString(o.b, v)
}

// close ends an array or object (c is ] or }).
func (o *object) close(c byte) { o.b = append(o.b, c) }

// done ends the object and returns it.
func (o *object) done() []byte { return append(o.b, '}') }
