package mcp

import (
	"bytes"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// withoutResourceLinks returns a CallToolResult without its resource_link
// content items, for a client of a version that has none: strict clients
// refuse a content type their version does not define. The result's text
// and structured content still name every memo. Results without one are
// returned as they are, after one scan.
func withoutResourceLinks(result []byte) []byte {
	if !bytes.Contains(result, []byte(`"resource_link"`)) {
		return result
	}
	doc := rawjson.ParseBytes(result)
	b := make([]byte, 0, len(result))
	b = append(b, '{')
	doc.ForEach(func(k, v rawjson.Value) bool {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(b, k.Raw...), ':')
		if k.Str != "content" || !v.IsArray() {
			b = append(b, v.Raw...)
			return true
		}
		b = append(b, '[')
		first := true
		for _, item := range v.Array() {
			if item.Get("type").Str == "resource_link" {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			b, first = append(b, item.Raw...), false
		}
		b = append(b, ']')
		return true
	})
	return append(b, '}')
}
