// Package upstream runs tool calls against the Memos API: it turns a tool
// and its arguments into one request to the instance and the answer into an
// MCP tool result.
package upstream

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/config"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/schema"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Client serves the registry's tools, calling Memos through a web.Doer.
type Client struct {
	cfg     config.Config
	doer    web.Doer
	base    string // MEMOS_URL, or a placeholder host behind a service binding
	tools   map[string]*tool
	version versionCache
	health  healthCache
	finder  finder.Finder // runs the hand-written tools
}

// New returns a Client for cfg, sending requests through doer.
func New(cfg config.Config, doer web.Doer) *Client {
	all := registry.All()
	c := &Client{cfg: cfg, doer: doer, base: "https://memos.invalid", tools: make(map[string]*tool, len(all))}
	if cfg.MemosURL != nil {
		c.base = cfg.MemosURL.String()
	}
	for i := range all {
		c.tools[all[i].Name] = &tool{def: &all[i]}
	}
	return c
}

// tool is a registry tool with what its calls need, prepared on first use.
type tool struct {
	def  *registry.Tool
	once sync.Once
	prep *prepared
	err  error
}

// prepared is derived from a tool's definition once: the compiled input
// schema, the route template's pieces, and the body fields updateMask
// handling needs.
type prepared struct {
	schema   *schema.Schema
	segments []segment
	hasMask  bool
	fields   []string // body fields in snake_case, for updateMask checks
	messages []string // body fields that are messages, in snake_case
}

func (t *tool) prepare() (*prepared, error) {
	t.once.Do(func() {
		p := &prepared{segments: parseTemplate(t.def.Path)}
		if p.schema, t.err = schema.Compile(t.def.InputSchema()); t.err != nil {
			return
		}
		for _, param := range t.def.Params {
			p.hasMask = p.hasMask || param.In == "query" && param.Name == maskParam
		}
		if p.hasMask {
			p.fields, p.messages = bodyFields(t.def.InputSchema())
		}
		t.prep = p
	})
	return t.prep, t.err
}

// bodyFields lists the top-level fields of a tool's body schema, and those
// of them that are messages (objects), both in snake_case.
func bodyFields(schema string) (fields, messages []string) {
	root := rawjson.Parse(schema)
	root.Get("properties").Get("body").Get("properties").ForEach(func(k, prop rawjson.Value) bool {
		name := snakeCase(k.Str)
		fields = append(fields, name)
		if isObjectSchema(root, prop) {
			messages = append(messages, name)
		}
		return true
	})
	return fields, messages
}

// isObjectSchema reports whether s (or what its local $ref points at) is an
// object schema.
func isObjectSchema(root, s rawjson.Value) bool {
	for range 8 {
		ref := s.Get("$ref").Str
		if ref == "" {
			break
		}
		const local = "#/$defs/"
		if len(ref) <= len(local) || ref[:len(local)] != local {
			return false
		}
		s = root.Get("$defs").Get(ref[len(local):])
	}
	return s.Get("type").Str == "object" || s.Get("properties").IsObject()
}

// ListJSON returns the prepared tools array of every tool.
func (c *Client) ListJSON() []byte { return registry.ListJSON() }

// View is the client limited to a set of tools (the deployment's
// selection, or its read-only part for a read-only grant): it lists only
// them and answers a call to any other as to an unknown tool.
type View struct {
	c   *Client
	set *registry.Set
}

// Within returns the client limited to set.
func (c *Client) Within(set *registry.Set) *View { return &View{c: c, set: set} }

// ListJSON returns the view's prepared tools array.
func (v *View) ListJSON() []byte { return v.set.ListJSON() }

// Call runs the named tool when the view holds it; ok is false otherwise.
func (v *View) Call(ctx context.Context, name string, args rawjson.Value, authorization string) (result []byte, ok, refused bool, wait time.Duration) {
	if _, ok := v.set.Lookup(name); !ok {
		return nil, false, false, 0
	}
	return v.c.Call(ctx, name, args, authorization)
}

// Call runs the named tool: it validates the arguments, sends one request
// to Memos with the caller's Authorization header, and returns the
// CallToolResult as JSON. ok is false only when no tool has that name;
// every other failure is a result with isError set. refused reports that
// it was Memos refusing the credentials (an HTTP 401 with its JSON error);
// wait, how long Memos asked to wait before a retry (an HTTP 429).
func (c *Client) Call(ctx context.Context, name string, args rawjson.Value, authorization string) (result []byte, ok, refused bool, wait time.Duration) {
	t, ok := c.tools[name]
	if !ok {
		return nil, false, false, 0
	}
	entry := accesslog.From(ctx)
	entry.SetTool(name)
	if authorization, ok = c.credentials(authorization); !ok {
		entry.SetOutcome(accesslog.ToolError)
		return errorResult(errNeedsToken.Error()), true, false, 0
	}
	if t.def.Handwritten {
		result, refused, wait = c.callFinder(ctx, t, args, authorization)
		return result, true, refused, wait
	}
	req, err := c.request(t, args, authorization)
	if err != nil {
		entry.SetOutcome(accesslog.ToolError)
		return errorResult(err.Error()), true, false, 0
	}
	var learning sync.WaitGroup
	if c.version.stale() {
		// Learn the instance's version beside this call's own request, and
		// within it, so that the runtime lets it finish.
		learning.Go(func() { c.Probe(ctx) }) // Probe notes the version
		defer learning.Wait()
	}
	// A 404 explains a release mismatch, for which it waits until the
	// version is learnt.
	result, refused, wait = c.send(ctx, t.def, req, learning.Wait)
	return result, true, refused, wait
}

// arguments decodes a call's arguments and validates them against the
// tool's input schema.
func (c *Client) arguments(t *tool, args rawjson.Value) (arguments, error) {
	p, err := t.prepare()
	if err != nil {
		logline.Print("tool ", t.def.Name, ": input schema: ", err.Error())
		return arguments{}, errInternal
	}
	a, err := decodeArguments(args)
	if err != nil {
		return arguments{}, err
	}
	if err := p.schema.Validate(a.values); err != nil {
		return arguments{}, err
	}
	return a, nil
}

// request validates the arguments and builds the upstream request.
func (c *Client) request(t *tool, args rawjson.Value, authorization string) (*web.Request, error) {
	a, err := c.arguments(t, args)
	if err != nil {
		return nil, err
	}
	p := t.prep
	path, err := buildPath(p.segments, a.values)
	if err != nil {
		return nil, err
	}
	if p.hasMask {
		given, _ := a.values[maskParam].(string)
		mask, send, err := updateMask(given, rawjson.Parse(a.bodyRaw), p.fields, p.messages)
		if err != nil {
			return nil, err
		}
		delete(a.values, maskParam)
		if send {
			a.values[maskParam] = mask
		}
	}
	query, err := buildQuery(t.def, a.values)
	if err != nil {
		return nil, err
	}
	req := &web.Request{Method: t.def.Method, URL: c.endpoint(path + query), Header: c.header(authorization)}
	if t.def.HasBody {
		req.Body = []byte(a.bodyRaw)
		if len(req.Body) == 0 {
			req.Body = []byte("{}")
		}
		req.Header["content-type"] = "application/json"
	}
	return req, nil
}

// header returns the headers of a tool call's upstream request: the
// caller's Authorization, unchanged, and the Cloudflare Access service
// token when one is configured. Nothing else of the caller's request is
// forwarded. The service token goes only with a caller's own token: lent to
// anonymous callers, it would open an Access-protected instance to anyone.
func (c *Client) header(authorization string) web.Header {
	h := web.Header{"accept": "application/json"}
	if authorization != "" {
		h["authorization"] = authorization
		c.addAccess(h)
	}
	return h
}

// credentials is the Authorization a caller's request to Memos carries: ""
// when the caller's carries no token. ok is false when Memos cannot be
// asked without one: Access, in front of it, would refuse a request
// without the service token, which goes only with a caller's token.
func (c *Client) credentials(authorization string) (_ string, ok bool) {
	if !HasToken(authorization) {
		authorization = "" // "Bearer " alone is no token either
	}
	return authorization, authorization != "" || c.cfg.AccessClientID == ""
}

// HasToken reports whether an Authorization header carries credentials: a
// scheme alone ("Bearer ", as clients send with an empty token setting)
// carries none.
func HasToken(authorization string) bool {
	scheme, credentials, _ := strings.Cut(strings.TrimSpace(authorization), " ")
	return scheme != "" && strings.TrimSpace(credentials) != ""
}

// addAccess adds the Cloudflare Access service token, when one is configured.
func (c *Client) addAccess(h web.Header) {
	if c.cfg.AccessClientID != "" {
		h["cf-access-client-id"] = c.cfg.AccessClientID
		h["cf-access-client-secret"] = c.cfg.AccessClientSecret
	}
}

// endpoint returns the absolute URL of an API path. Through a service
// binding only the path matters, so a placeholder host stands in when
// MEMOS_URL is unset.
func (c *Client) endpoint(path string) string { return c.base + path }
