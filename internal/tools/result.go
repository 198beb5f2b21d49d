package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// errInternal is what a caller sees of a fault of the gateway itself; the
// details go to the log.
var errInternal = errors.New("the gateway could not run this tool (see the Worker's logs)")

// tooDeep is the tool error for an answer nested deeper than
// memos.MaxAnswerDepth.
var tooDeep = "the upstream answered with JSON nested more than " + strconv.Itoa(memos.MaxAnswerDepth) + " levels deep, which Memos never sends: check that MEMOS_URL points at the Memos instance"

// Why normalize refuses an answer.
var (
	errNotJSON = errors.New("not JSON")
	errTooDeep = errors.New("nested too deep")
)

// normalize turns a successful answer into the result object: an object as
// it is, nothing as {"ok":true}, an array or scalar under "result". Members
// whose value is null are dropped at every depth: the output schemas allow
// null nowhere, and Memos v0.30.0 sends "motionMedia": null on attachments.
// It refuses a body that is not JSON (errNotJSON) or nests deeper than
// memos.MaxAnswerDepth (errTooDeep). escapes counts the quotes and backslashes of
// obj, which its text copy escapes.
func normalize(body []byte) (obj []byte, escapes int, err error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || string(body) == "null" {
		return []byte(`{"ok":true}`), 2, nil
	}
	// An object, which Memos sends compact, is kept where it is unless a
	// null member must go (a page of memos can be megabytes).
	wrapped := body[0] != '{'
	var out []byte
	var ok bool
	if wrapped {
		out, escapes, ok = rawjson.Compact(append(make([]byte, 0, len(body)+12), `{"result":`...), body, memos.MaxAnswerDepth, true)
	} else {
		out, escapes, ok = rawjson.CompactOrSame(body, memos.MaxAnswerDepth, true)
	}
	switch {
	case !ok && rawjson.ValidBytes(body):
		return nil, 0, errTooDeep
	case !ok:
		return nil, 0, errNotJSON
	case wrapped:
		return append(out, '}'), escapes + 2, nil
	}
	return out, escapes, nil
}

// successResult is a CallToolResult carrying obj as structured content and,
// for clients that read only text, as a text block. escapes is the number of
// quotes and backslashes in obj (normalize counts them). A result can be
// megabytes, so it is allocated once at its exact size.
func successResult(obj []byte, escapes int) []byte {
	const head, middle = `{"content":[{"type":"text","text":"`, `"}],"structuredContent":`
	text := len(obj) + escapes
	b := make([]byte, len(head)+text+len(middle)+len(obj)+1)
	n := copy(b, head)
	quote(b[n:n+text], obj)
	n += text
	n += copy(b[n:], middle)
	n += copy(b[n:], obj)
	b[n] = '}'
	return b
}

// quote writes compact JSON into dst as the contents of a JSON string; dst
// holds exactly len(compactJSON) bytes plus one for each quote and
// backslash. Such JSON holds no raw control characters (its strings escape
// them), so only quotes and backslashes need escaping. It works eight bytes
// at a time, without calls: wasm has no vectorized search, and calls cost
// more there than the work between two quotes of a short key. A word's
// escapes are all written from the one read of it: the rest of the word
// moves one place up behind each backslash.
func quote(dst, compactJSON []byte) {
	const ones, lows = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	i, j := 0, 0
	// Each write below ends at most 15 bytes past j plus the word's escapes,
	// which dst has room for while eight more bytes follow the word.
	for i+16 <= len(compactJSON) {
		x := binary.LittleEndian.Uint64(compactJSON[i:])
		binary.LittleEndian.PutUint64(dst[j:], x)
		// The high bit of each byte of m is set where x has a quote or a
		// backslash, exactly: no borrow crosses from one byte to the next.
		q, s := x^(ones*'"'), x^(ones*'\\')
		m := ^((q&lows + lows) | q | lows) | ^((s&lows + lows) | s | lows)
		for ; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m) / 8
			dst[j+k] = '\\'
			binary.LittleEndian.PutUint64(dst[j+k+1:], x>>(8*k))
			j++
		}
		i, j = i+8, j+8
	}
	for _, c := range compactJSON[i:] {
		if c == '"' || c == '\\' {
			dst[j] = '\\'
			j++
		}
		dst[j] = c
		j++
	}
}
