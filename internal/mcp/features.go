package mcp

import (
	"context"
	"errors"
	"time"

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

// Errors of Resources and Prompts are told apart by their methods, so that
// their packages need not import this one:
//   - ResourceNotFound() string, the URI: the protocol's resource-not-found
//     error (-32002 before 2026-07-28, -32602 since), with data.uri;
//   - InvalidParams() bool: -32602;
//   - Refused() bool: Memos refused the caller's credentials, which the
//     answer then says as a tool call's would (Options.Revoked);
//   - RetryAfter() (time.Duration, bool): Memos asked to wait (its 429);
//   - anything else: -32603 with the error's message, which is written for
//     the caller (Memos' answer, or why there was none).
func (h *Handler) answerError(ctx context.Context, c *call, err error) reply {
	g := grantOf(ctx)
	var refused interface{ Refused() bool }
	if errors.As(err, &refused) && refused.Refused() {
		g.refused = true
	}
	var limited interface {
		RetryAfter() (time.Duration, bool)
	}
	if errors.As(err, &limited) {
		if wait, ok := limited.RetryAfter(); ok {
			g.wait = max(g.wait, wait)
		}
	}
	var notFound interface{ ResourceNotFound() string }
	var invalid interface{ InvalidParams() bool }
	switch {
	case errors.As(err, &notFound):
		code := codeResourceNotFound
		if c.modern {
			code = jsonrpc.CodeInvalidParams
		}
		data := append(rawjson.AppendString([]byte(`{"uri":`), notFound.ResourceNotFound()), '}')
		return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: code, Message: err.Error(), Data: data})
	case errors.As(err, &invalid) && invalid.InvalidParams():
		return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()})
	}
	return h.fail(c, 200, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
}

// codeResourceNotFound is the resource-not-found error before 2026-07-28.
const codeResourceNotFound = -32002

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

// serveFeature answers the methods of resources, prompts and completions;
// ok is false for any other method, or one whose capability is not served.
func (h *Handler) serveFeature(ctx context.Context, c *call) (r reply, ok bool) {
	res, prompts := h.opts.Resources, h.opts.Prompts
	params := c.msg.Params
	auth := c.req.Header.Get("authorization")
	switch m := c.msg.Method; {
	case res != nil && m == "resources/templates/list":
		return h.ok(c, h.templates()), true
	case res != nil && m == "resources/list":
		cursor := params.Get("cursor")
		if cursor.Exists() && cursor.Kind != rawjson.String {
			return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `invalid params: "cursor" must be a string`}), true
		}
		return h.result(ctx, c, cachePrivate)(res.List(ctx, cursor.Str, auth)), true
	case res != nil && m == "resources/read":
		uri := params.Get("uri")
		if uri.Kind != rawjson.String {
			return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `invalid params: "uri" must be a string`}), true
		}
		return h.result(ctx, c, cachePrivate)(res.Read(ctx, uri.Str, auth)), true
	case prompts != nil && m == "prompts/list":
		return h.ok(c, h.promptList(ctx)), true
	case prompts != nil && m == "prompts/get":
		name := params.Get("name")
		if name.Kind != rawjson.String {
			return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `invalid params: "name" must be a string`}), true
		}
		return h.result(ctx, c, "")(prompts.Get(name.Str, params.Get("arguments"), h.served(ctx))), true
	case prompts != nil && m == "completion/complete":
		ref, arg := params.Get("ref"), params.Get("argument")
		if !ref.IsObject() || !arg.IsObject() {
			return h.fail(c, h.paramsStatus(c), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `invalid params: "ref" and "argument" must be objects`}), true
		}
		return h.result(ctx, c, "")(prompts.Complete(ctx, ref, arg, h.served(ctx), auth)), true
	}
	return reply{}, false
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
	l := &h.full.prompts
	if grantOf(ctx).readOnly {
		l = &h.readOnly.prompts
	}
	l.once.Do(func() { l.result = withMembers(h.opts.Prompts.ListJSON(h.served(ctx)), cacheGrant) })
	return l.result
}

// served reports whether the caller of ctx is served a tool.
func (h *Handler) served(ctx context.Context) func(tool string) bool {
	names := h.fullNames()
	if grantOf(ctx).readOnly {
		names = h.readOnlyNames()
	}
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
