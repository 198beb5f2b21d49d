// Package cards serves memo cards: the views of the MCP Apps extension
// (io.modelcontextprotocol/ui, SEP-1865) in which a host shows the person
// the memo that memo_get_memo or fetch read, what memo_search found or
// tag_list's tags, beside the answer the model reads. It marks those tools in tools/list
// (_meta.ui), lists the card among the resources, and serves it
// (resources/read). The card itself (card.html: markup, style and script,
// all of its own) is not in the wasm: the Worker's entry module holds it
// as a module of the bundle and hands it over when it is first read
// (Binding); the native build embeds it.
package cards

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The extension's names (SEP-1865).
const (
	Extension = "io.modelcontextprotocol/ui"
	MIMEType  = "text/html;profile=mcp-app"
)

// URI is the card's resource: one document shows a memo and a list of
// search hits, told apart by the result it is given.
const URI = "ui://memos-mcp-edge/card"

// Binding is the binding name the entry module answers with the card
// (worker.mjs).
const Binding = "cards:card"

// MaxBytes bounds the card as the runtime hands it over.
const MaxBytes = 256 << 10

// shown are the tools whose results the card shows.
var shown = [...]string{"memo_get_memo", "fetch", "memo_search", "tag_list"}

// Cards serves the card. The zero value is not usable: see New.
type Cards struct {
	doer web.Doer
	web  string // the Memos web app's address, "" when unknown
	mu   sync.Mutex
	read []byte // resources/read's result for the card, once built
}

// New returns Cards that read the card through doer (in the Worker; the
// native build has it embedded) and link memos to the web app at webURL
// ("" leaves the link out).
func New(doer web.Doer, webURL string) *Cards {
	return &Cards{doer: doer, web: webURL}
}

// Extension returns the extension's name.
func (*Cards) Extension() string { return Extension }

// Declared reports whether client capabilities declare the extension with
// the card's type.
func (*Cards) Declared(caps rawjson.Value) bool {
	ext := caps.Get("extensions").Get(Extension)
	if !ext.IsObject() {
		return false
	}
	found := false
	ext.Get("mimeTypes").ForEach(func(_, t rawjson.Value) bool {
		found = t.Str == MIMEType
		return !found
	})
	return found
}

// Decorate returns list, a tools/list JSON array, with _meta.ui naming
// the card on each tool the card shows.
func (*Cards) Decorate(list []byte) []byte {
	b := make([]byte, 0, len(list)+256)
	b = append(b, '[')
	n := 0
	rawjson.ParseBytes(list).ForEach(func(_, tool rawjson.Value) bool {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		if !slices.Contains(shown[:], tool.Get("name").Str) {
			b = append(b, tool.Raw...)
			return true
		}
		b = appendDecorated(b, tool)
		return true
	})
	return append(b, ']')
}

// uiMeta is the member of a tool's _meta that names the card.
const uiMeta = `"ui":{"resourceUri":"` + URI + `"}`

// appendDecorated appends tool with uiMeta first in its _meta.
func appendDecorated(b []byte, tool rawjson.Value) []byte {
	b = append(b, '{')
	n, meta := 0, false
	tool.ForEach(func(k, v rawjson.Value) bool {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(rawjson.AppendString(b, k.Str), ':')
		if k.Str != "_meta" || !v.IsObject() {
			b = append(b, v.Raw...)
			return true
		}
		meta = true
		b = append(b, '{')
		b = append(b, uiMeta...)
		v.ForEach(func(k, v rawjson.Value) bool {
			if k.Str != "ui" {
				b = append(rawjson.AppendString(append(b, ','), k.Str), ':')
				b = append(b, v.Raw...)
			}
			return true
		})
		b = append(b, '}')
		return true
	})
	if !meta {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `"_meta":{`+uiMeta+`}`...)
	}
	return append(b, '}')
}

// Entries returns the card's entry in resources/list when served serves
// a tool the card shows, else "".
func (*Cards) Entries(served func(tool string) bool) string {
	for _, name := range shown {
		if served(name) {
			return entry
		}
	}
	return ""
}

// entry is the card's entry in resources/list.
const entry = `{"uri":"` + URI + `","name":"memo-card","title":"Memo card",` +
	`"description":"Shows the person a memo (memo_get_memo, fetch), search hits (memo_search) or their tags (tag_list): a memo's text, tags, tasks to tick, attachments.",` +
	`"mimeType":"` + MIMEType + `"}`

// resourceMeta is the card's _meta in resources/read: no origin outside
// the document, for anything (SEP-1865's empty lists), and a border.
const resourceMeta = `"_meta":{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}`

// Read returns the resources/read result of u, a ui:// URI: the card's,
// read and built once, or a resource-not-found error.
func (c *Cards) Read(ctx context.Context, u string) ([]byte, error) {
	if u != URI {
		data := append(rawjson.AppendString([]byte(`{"uri":`), u), '}')
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: "resource not found: " + u, Data: data}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read != nil {
		return c.read, nil
	}
	page := builtin
	if page == nil {
		resp, err := c.doer.Do(ctx, &web.Request{Method: "GET", URL: Binding})
		if err != nil || resp.Status != 200 {
			return nil, errUnavailable
		}
		page = resp.Body
	}
	// The card with the web app's address filled in, as the result's text.
	filled := strings.Replace(string(page), `data-memos=""`, `data-memos="`+attrEscape(c.web)+`"`, 1)
	b := make([]byte, 0, len(filled)+len(filled)/8+256)
	b = append(b, `{"contents":[{"uri":"`+URI+`","mimeType":"`+MIMEType+`","text":`...)
	b = rawjson.AppendString(b, filled)
	c.read = append(b, ","+resourceMeta+"}]}"...)
	return c.read, nil
}

// errUnavailable is the error of a card the runtime did not hand over.
var errUnavailable = errors.New("the memo card is not available: the Worker's bundle lacks card.html")

// attrEscape escapes s for a double-quoted HTML attribute. (A loop, not
// strings.NewReplacer, which would link 23 KB of its own into the wasm.)
func attrEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
