package mcp

import (
	"context"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// listTTLMillis is how long clients may cache tools/list and
// server/discover: the tool set changes only with a new deployment.
const listTTLMillis = "3600000"

// method is one row of the table of the methods the handler serves.
type method struct {
	name string
	// serve answers a request; nil for a notification, which needs no
	// action and is listed only so that the access log names it.
	serve func(h *Handler, ctx context.Context, c *call) reply
	// era limits the method to the legacy versions or to 2026-07-28.
	era era
	// served reports whether the deployment serves the method's
	// capability (resources, prompts); nil is always.
	served func(o *Options) bool
	// asksMemos marks a method whose answer asks Memos, which a batch
	// holds at most MaxBatchCalls of.
	asksMemos bool
	// nameParam is the parameter that the Mcp-Name header of 2026-07-28
	// repeats; "" when the method has none.
	nameParam string
}

// era is the protocol era a method exists in.
type era int

const (
	bothEras era = iota
	legacyOnly
	modernOnly
)

// methods are every method the handler knows, in the order they are listed
// in messages. (They are set by init: their handlers refer to the table.)
var methods []method

func init() { methods = methodTable() }

func methodTable() []method {
	return []method{
		{name: "initialize", era: legacyOnly, serve: func(h *Handler, ctx context.Context, c *call) reply {
			apps := h.opts.Apps != nil && h.opts.Apps.Declared(c.msg.Params.Get("capabilities"))
			return h.ok(c, h.initializeResult(ctx, c.msg.Params.Get("protocolVersion").String(), apps))
		}},
		{name: "ping", era: legacyOnly, serve: func(h *Handler, _ context.Context, c *call) reply { return h.ok(c, []byte(`{}`)) }},
		{name: "server/discover", era: modernOnly, serve: func(h *Handler, ctx context.Context, c *call) reply { return h.ok(c, h.discoverResult(ctx, h.apps(c))) }},
		{name: "notifications/initialized"},
		{name: "notifications/cancelled"},
		{name: "tools/list", serve: func(h *Handler, ctx context.Context, c *call) reply { return h.ok(c, h.toolsList(ctx, h.views(c))) }},
		{name: "tools/call", serve: (*Handler).toolsCall, asksMemos: true, nameParam: "name"},
		{name: "resources/templates/list", served: servesResources, serve: func(h *Handler, _ context.Context, c *call) reply { return h.ok(c, h.templates()) }},
		{name: "resources/list", served: servesResources, serve: (*Handler).resourcesList, asksMemos: true},
		{name: "resources/read", served: servesResources, serve: (*Handler).resourcesRead, asksMemos: true, nameParam: "uri"},
		{name: "prompts/list", served: servesPrompts, serve: func(h *Handler, ctx context.Context, c *call) reply { return h.ok(c, h.promptList(ctx)) }},
		{name: "prompts/get", served: servesPrompts, serve: (*Handler).promptsGet, nameParam: "name"},
		{name: "completion/complete", served: servesPrompts, serve: (*Handler).complete, asksMemos: true},
	}
}

func servesResources(o *Options) bool { return o.Resources != nil }
func servesPrompts(o *Options) bool   { return o.Prompts != nil }

// methodNamed returns the row of the named method; nil for an unknown one.
func methodNamed(name string) *method {
	for i := range methods {
		if methods[i].name == name {
			return &methods[i]
		}
	}
	return nil
}

// asksMemos reports whether a method's answer asks Memos.
func asksMemos(name string) bool {
	m := methodNamed(name)
	return m != nil && m.asksMemos
}

// methodsAskingMemos names the methods whose answer asks Memos, for a
// message.
func methodsAskingMemos() string {
	var names []string
	for _, m := range methods {
		if m.asksMemos {
			names = append(names, m.name)
		}
	}
	return strings.Join(names, ", ")
}

// dispatch runs the method of c: a method unknown, of the other era, or of
// a capability not served is not found.
func (h *Handler) dispatch(ctx context.Context, c *call) reply {
	if c.msg.IsNotification() {
		// Legacy notifications (initialized, cancelled, …) need no action.
		return reply{}
	}
	m := methodNamed(c.msg.Method)
	if m != nil && m.serve != nil && (m.era == bothEras || (m.era == modernOnly) == c.modern) && (m.served == nil || m.served(&h.opts)) {
		return m.serve(h, ctx, c)
	}
	status := 200
	if c.modern {
		status = 404
	}
	return h.fail(c, status, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + rawjson.Quote(c.msg.Method)})
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

// initializeResult is initialize's result; apps: the client declares the
// extension of Apps, which the capabilities then name.
func (h *Handler) initializeResult(ctx context.Context, requested string, apps bool) []byte {
	b := []byte(`{"protocolVersion":`)
	b = rawjson.AppendString(b, negotiate(requested))
	b = h.appendCapabilities(append(b, `,"capabilities":`...), apps)
	b = append(b, `,"serverInfo":`...)
	b = append(b, h.serverInfo...)
	return append(h.appendInstructions(ctx, b), '}')
}

// discoverResult is server/discover's result. Where grants are served
// different tools, and so different instructions, it may be reused only
// under the same authorization, as tools/list.
func (h *Handler) discoverResult(ctx context.Context, apps bool) []byte {
	b := h.appendCapabilities([]byte(`{"supportedVersions":`+supportedJSON+`,"capabilities":`), apps)
	b = h.appendInstructions(ctx, b)
	cache := cacheStatic
	if h.opts.Instructions != nil && h.opts.ReadOnlyTools != nil {
		cache = cacheGrant
	}
	return append(append(append(b, ','), cache...), '}')
}

// appendCapabilities appends the server's capabilities, with the
// extension of Apps when apps: capabilities.extensions names it.
func (h *Handler) appendCapabilities(b []byte, apps bool) []byte {
	b = append(b, h.capabilities...)
	if apps {
		b = append(b[:len(b)-1], `,"extensions":{`...) // reopen the object
		b = rawjson.AppendString(b, h.opts.Apps.Extension())
		b = append(b, `:{}}}`...)
	}
	return b
}

// appendInstructions appends the instructions member for the caller's
// tools, when there are instructions.
func (h *Handler) appendInstructions(ctx context.Context, b []byte) []byte {
	if h.opts.Instructions == nil {
		return b
	}
	text := h.opts.Instructions(h.served(ctx))
	if text == "" {
		return b
	}
	return rawjson.AppendString(append(b, `,"instructions":`...), text)
}

// toolsList returns the tools/list result of the tools the request's grant
// is served, built once from the prepared bytes (ok adds the 2026-07-28
// members as it writes the answer). Where grants see different lists (a
// read-only grant sees fewer tools), the list may be reused only under the
// same authorization: its cache scope is private. A client that declares
// the MCP Apps extension gets the list with the views named (apps).
func (h *Handler) toolsList(ctx context.Context, apps bool) []byte {
	o := h.offer(ctx)
	list := &o.toolsList
	if apps {
		list = &o.appsList
	}
	list.once.Do(func() {
		cache := cacheStatic
		if h.opts.ReadOnlyTools != nil {
			cache = cacheGrant
		}
		tools := o.tools.ListJSON(o.release)
		if apps {
			tools = h.opts.Apps.Decorate(tools)
		}
		b := append([]byte(`{"tools":`), tools...)
		list.result = withMembers(append(b, '}'), cache)
	})
	return list.result
}

// toolsCall runs a tool. An unknown tool is a protocol error; everything
// that goes wrong inside a known tool is a result with isError set.
func (h *Handler) toolsCall(ctx context.Context, c *call) reply {
	name := c.msg.Params.Get("name")
	if name.Kind != rawjson.String {
		return h.invalid(c, `invalid params: "name" must be a string`)
	}
	st, o := stateOf(ctx), h.offer(ctx)
	tools := o.tools
	if !o.names()[name.Str] {
		if st.readOnly && h.offerOf(o.release, false).names()[name.Str] {
			st.insufficient = true
			return h.fail(c, 403, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "insufficient scope: " + rawjson.Quote(name.Str) + " changes memos, which this read-only grant does not allow; connect again with read and write access"})
		}
		return h.invalid(c, "unknown tool: "+rawjson.Quote(name.Str))
	}
	if r, asked := h.confirmation(ctx, c, tools, name.Str, c.msg.Params.Get("arguments")); asked {
		return r
	}
	result, err := tools.Call(ctx, name.Str, c.msg.Params.Get("arguments"), c.req.Header.Get("authorization"))
	if err != nil {
		st.noteMemos(err)
		return h.ok(c, toolError(err.Error()))
	}
	if !hasResourceLinks(c.version) {
		result = withoutResourceLinks(result)
	}
	return h.ok(c, result)
}

// toolError is a CallToolResult that reports a tool's failure to the model.
func toolError(msg string) []byte {
	b := []byte(`{"content":[{"type":"text","text":`)
	b = rawjson.AppendString(b, msg)
	return append(b, `}],"isError":true}`...)
}

// invalid answers c with an invalid-params error.
func (h *Handler) invalid(c *call, msg string) reply {
	return h.fail(c, h.paramsStatus(c), jsonrpc.InvalidParams(msg))
}

// paramsStatus is the HTTP status of an invalid-params error: 200 in the
// legacy era, 400 in 2026-07-28.
func (h *Handler) paramsStatus(c *call) int {
	if c.modern {
		return 400
	}
	return 200
}
