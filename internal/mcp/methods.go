package mcp

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// listTTLMillis is how long clients may cache tools/list and
// server/discover: the tool set changes only with a new deployment.
const listTTLMillis = "3600000"

// dispatch runs the method of c.
func (h *Handler) dispatch(ctx context.Context, c *call) reply {
	m := c.msg.Method
	if c.msg.IsNotification() {
		// Legacy notifications (initialized, cancelled, …) need no action.
		return reply{}
	}
	switch {
	case m == "tools/list":
		return h.ok(c, h.toolsList(ctx))
	case m == "tools/call":
		return h.toolsCall(ctx, c)
	case m == "server/discover" && c.modern:
		return h.ok(c, h.discoverResult())
	case m == "initialize" && !c.modern:
		return h.ok(c, h.initializeResult(c.msg.Params.Get("protocolVersion").String()))
	case m == "ping" && !c.modern:
		return h.ok(c, []byte(`{}`))
	}
	if r, ok := h.serveFeature(ctx, c); ok {
		return r
	}
	status := 200
	if c.modern {
		status = 404
	}
	return h.fail(c, status, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + quote(m)})
}

// ok answers c with result; in 2026-07-28, resultType and serverInfo are
// added to every result, as the response is written (a tool's result can be
// megabytes).
func (h *Handler) ok(c *call, result []byte) reply {
	if c.modern {
		return reply{200, jsonrpc.Result(c.msg.ID, h.modernMembers, memberSeparator(result), result[1:])}
	}
	return reply{200, jsonrpc.Result(c.msg.ID, result)}
}

// memberSeparator is what goes between members put before those of the
// object result and its own: a comma, unless it has none.
func memberSeparator(result []byte) []byte {
	if result[1] == '}' {
		return nil
	}
	return comma
}

var comma = []byte(",")

func (h *Handler) initializeResult(requested string) []byte {
	b := []byte(`{"protocolVersion":`)
	b = rawjson.AppendString(b, negotiate(requested))
	b = append(b, `,"capabilities":`+h.capabilities+`,"serverInfo":`...)
	b = append(b, h.serverInfo...)
	return append(b, '}')
}

func (h *Handler) discoverResult() []byte {
	return []byte(`{"supportedVersions":` + supportedJSON + `,"capabilities":` + h.capabilities + `,"ttlMs":` + listTTLMillis + `,"cacheScope":"public"}`)
}

// toolsList returns the tools/list result of the tools the request's grant
// is served, built once from the prepared bytes (ok adds the 2026-07-28
// members as it writes the answer). Where grants see different lists (a
// read-only grant sees fewer tools), the list may be reused only under the
// same authorization: its cache scope is private.
func (h *Handler) toolsList(ctx context.Context) []byte {
	tools, list := h.opts.Tools, &h.full.tools
	if grantOf(ctx).readOnly {
		tools, list = h.opts.ReadOnlyTools, &h.readOnly.tools
	}
	list.once.Do(func() {
		cache := cacheStatic
		if h.opts.ReadOnlyTools != nil {
			cache = cacheGrant
		}
		b := append([]byte(`{"tools":`), tools.ListJSON()...)
		list.result = withMembers(append(b, '}'), cache)
	})
	return list.result
}

// toolsCall runs a tool. An unknown tool is a protocol error; everything
// that goes wrong inside a known tool is a result with isError set.
func (h *Handler) toolsCall(ctx context.Context, c *call) reply {
	name := c.msg.Params.Get("name")
	if name.Kind != rawjson.String {
		return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `invalid params: "name" must be a string`})
	}
	args := c.msg.Params.Get("arguments")
	g, tools := grantOf(ctx), h.opts.Tools
	if g.readOnly {
		tools = h.opts.ReadOnlyTools
	}
	result, ok, refused, wait := tools.Call(ctx, name.Str, args, c.req.Header.Get("authorization"))
	g.refused = g.refused || refused
	g.wait = max(g.wait, wait)
	if !ok && g.readOnly && h.fullNames()[name.Str] {
		g.insufficient = true
		return h.fail(c, 403, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "insufficient scope: " + quote(name.Str) + " changes memos, which this read-only grant does not allow; connect again with read and write access"})
	}
	if !ok {
		return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool: " + quote(name.Str)})
	}
	if !hasResourceLinks(c.version) {
		result = withoutResourceLinks(result)
	}
	return h.ok(c, result)
}

// paramsStatus is the HTTP status of an invalid-params error: 200 in the
// legacy era, 400 in 2026-07-28.
func (h *Handler) paramsStatus(c *call) int {
	if c.modern {
		return 400
	}
	return 200
}
