package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Resources is the resource surface the handler serves. Its methods return
// a result object without the caching members, which the handler adds, or
// an error that says what went wrong (see answerError).
type Resources interface {
	// TemplatesJSON returns the resources/templates/list result.
	TemplatesJSON() []byte
	// List returns one page of resources/list, after cursor ("" for the
	// first).
	List(ctx context.Context, cursor, authorization string) ([]byte, error)
	// Read returns the resources/read result of uri.
	Read(ctx context.Context, uri, authorization string) ([]byte, error)
}

// Apps serves the views of the MCP Apps extension (SEP-1865): ui://
// resources that a host shows the person beside a tool's result. A client
// of the 2026-07-28 era, whose every request carries its capabilities,
// sees them named in tools/list and listed in resources/list only when it
// declares the extension. A legacy client declares its capabilities in
// initialize alone, which this stateless endpoint does not remember, so
// its later requests cannot say: every legacy client finds the views
// named in tools/list (_meta, which hosts keep from the model and hosts
// without the extension pass by), so that the hosts that render them
// (Claude, ChatGPT and VS Code speak the legacy eras) can, and none finds
// them in resources/list. initialize answers with the extension to a
// client that declares it there.
type Apps interface {
	// Extension returns the extension's name, for the capabilities.
	Extension() string
	// Declared reports whether client capabilities declare the extension.
	Declared(caps rawjson.Value) bool
	// Decorate returns a JSON array of tool definitions with the views
	// named in the _meta of the tools that have one.
	Decorate(list []byte) []byte
	// Entries returns the resources/list entries of the views of the
	// tools served reports served, "" for none.
	Entries(served func(tool string) bool) string
	// Read returns the resources/read result of a ui:// URI.
	Read(ctx context.Context, uri string) ([]byte, error)
}

// viewScheme starts the URI of every view of Apps.
const viewScheme = "ui://"

// apps reports whether c is from a client of 2026-07-28 that declares the
// extension of Apps.
func (h *Handler) apps(c *call) bool {
	return h.opts.Apps != nil && c.modern && h.opts.Apps.Declared(c.msg.Params.Get("_meta").Get(metaClientCaps))
}

// views reports whether c's tools/list names the views of Apps: for a
// client of 2026-07-28 that declares the extension, and for every legacy
// client (see Apps).
func (h *Handler) views(c *call) bool {
	return h.opts.Apps != nil && (!c.modern || h.apps(c))
}

// withViews adds entries (JSON objects separated by commas) at the start
// of the resources of a resources/list result.
func withViews(result []byte, entries string) []byte {
	const open = `{"resources":[`
	if entries == "" || !strings.HasPrefix(string(result), open) {
		return result
	}
	b := make([]byte, 0, len(result)+len(entries)+1)
	b = append(append(b, open...), entries...)
	if rest := result[len(open):]; len(rest) > 0 && rest[0] != ']' {
		b = append(b, ',')
	}
	return append(b, result[len(open):]...)
}

// Prompts is the prompt surface the handler serves, with the completion of
// prompt arguments. served reports whether the caller is served a tool: a
// prompt that needs withheld tools is neither listed nor served.
type Prompts interface {
	// ListJSON returns the prompts/list result.
	ListJSON(served func(tool string) bool) []byte
	// Get returns the prompts/get result of the named prompt.
	Get(name string, args rawjson.Value, served func(tool string) bool) ([]byte, error)
	// Complete returns the completion/complete result for argument of ref.
	Complete(ctx context.Context, ref, argument rawjson.Value, served func(tool string) bool, authorization string) ([]byte, error)
}

// answerError answers c with err, an error of Resources or Prompts: a
// *jsonrpc.Error is the protocol error it names (the resource-not-found of
// the legacy era is invalid params since 2026-07-28); Memos refusing the
// caller's credentials or asking to wait (*memos.Error) is noted for the
// answer as a tool call's would be (Options.Revoked); anything else is
// -32603 with the error's message, which is written for the caller
// (Memos' answer, or why there was none).
func (h *Handler) answerError(ctx context.Context, c *call, err error) reply {
	stateOf(ctx).noteMemos(err)
	if rpc, ok := errors.AsType[*jsonrpc.Error](err); ok && (rpc.Code == jsonrpc.CodeInvalidParams || rpc.Code == jsonrpc.CodeResourceNotFound) {
		e := *rpc
		if c.modern {
			e.Code = jsonrpc.CodeInvalidParams
		}
		return h.fail(c, h.paramsStatus(c), &e)
	}
	return h.fail(c, 200, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
}

// Caching members of the results below (2026-07-28 requires them; earlier
// clients ignore them). The templates never change within a deployment;
// prompts/list depends on the caller's grant; the caller's memos are theirs
// and change as they write, so their results are private and stale at once.
const (
	cacheStatic  = `"ttlMs":` + listTTLMillis + `,"cacheScope":"public"`
	cacheGrant   = `"ttlMs":` + listTTLMillis + `,"cacheScope":"private"`
	cachePrivate = `"ttlMs":0,"cacheScope":"private"`
)

// withMembers adds members (JSON text) at the end of a result object.
func withMembers(result []byte, members string) []byte {
	b := make([]byte, 0, len(result)+len(members)+1)
	b = append(b, result[:len(result)-1]...)
	if len(result) > 2 {
		b = append(b, ',')
	}
	b = append(b, members...)
	return append(b, '}')
}

func (h *Handler) resourcesList(ctx context.Context, c *call) reply {
	cursor := c.msg.Params.Get("cursor")
	if cursor.Exists() && cursor.Kind != rawjson.String {
		return h.invalid(c, `invalid params: "cursor" must be a string`)
	}
	result, err := h.opts.Resources.List(ctx, cursor.Str, c.req.Header.Get("authorization"))
	if err == nil && cursor.Str == "" && h.apps(c) {
		result = withViews(result, h.opts.Apps.Entries(h.served(ctx)))
	}
	return h.result(ctx, c, cachePrivate)(result, err)
}

func (h *Handler) resourcesRead(ctx context.Context, c *call) reply {
	uri := c.msg.Params.Get("uri")
	if uri.Kind != rawjson.String {
		return h.invalid(c, `invalid params: "uri" must be a string`)
	}
	if h.opts.Apps != nil && strings.HasPrefix(uri.Str, viewScheme) {
		// A view is the same for every caller, and changes only with a
		// deployment.
		return h.result(ctx, c, cacheStatic)(h.opts.Apps.Read(ctx, uri.Str))
	}
	return h.result(ctx, c, cachePrivate)(h.opts.Resources.Read(ctx, uri.Str, c.req.Header.Get("authorization")))
}

func (h *Handler) promptsGet(ctx context.Context, c *call) reply {
	name := c.msg.Params.Get("name")
	if name.Kind != rawjson.String {
		return h.invalid(c, `invalid params: "name" must be a string`)
	}
	return h.result(ctx, c, "")(h.opts.Prompts.Get(name.Str, c.msg.Params.Get("arguments"), h.served(ctx)))
}

func (h *Handler) complete(ctx context.Context, c *call) reply {
	ref, arg := c.msg.Params.Get("ref"), c.msg.Params.Get("argument")
	if !ref.IsObject() || !arg.IsObject() {
		return h.invalid(c, `invalid params: "ref" and "argument" must be objects`)
	}
	return h.result(ctx, c, "")(h.opts.Prompts.Complete(ctx, ref, arg, h.served(ctx), c.req.Header.Get("authorization")))
}

// result returns what answers c with a result, to which members are added,
// or with its error.
func (h *Handler) result(ctx context.Context, c *call, members string) func([]byte, error) reply {
	return func(result []byte, err error) reply {
		if err != nil {
			return h.answerError(ctx, c, err)
		}
		if members != "" {
			result = withMembers(result, members)
		}
		return h.ok(c, result)
	}
}

// templates returns the resources/templates/list result, built once.
func (h *Handler) templates() []byte {
	l := &h.templateList
	l.once.Do(func() { l.result = withMembers(h.opts.Resources.TemplatesJSON(), cacheStatic) })
	return l.result
}

// promptList returns the prompts/list result of the caller's grant, built
// once for each.
func (h *Handler) promptList(ctx context.Context) []byte {
	l := &h.offer(ctx).prompts
	l.once.Do(func() { l.result = withMembers(h.opts.Prompts.ListJSON(h.served(ctx)), cacheGrant) })
	return l.result
}

// served reports whether the caller of ctx is served a tool.
func (h *Handler) served(ctx context.Context) func(tool string) bool {
	names := h.offer(ctx).names()
	return func(tool string) bool { return names[tool] }
}

// capabilities is the capabilities object of initialize and
// server/discover: tools, and resources, prompts and completions when
// served.
func capabilities(opts Options) string {
	caps := `{"tools":{}`
	if opts.Resources != nil {
		caps += `,"resources":{}`
	}
	if opts.Prompts != nil {
		caps += `,"prompts":{},"completions":{}`
	}
	return caps + "}"
}
