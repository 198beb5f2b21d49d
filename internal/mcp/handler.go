// Package mcp serves the Model Context Protocol over stateless Streamable
// HTTP: it checks the transport rules of each protocol era, dispatches
// JSON-RPC methods, and answers with JSON only.
package mcp

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Meta keys of 2026-07-28 requests and results.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// 2026-07-28 error codes.
const (
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// codeAnswerTooLarge answers the batch messages left unserved once the
// batch's answer passed MaxResponseBytes (a server error of JSON-RPC's
// implementation-defined range).
const codeAnswerTooLarge = -32000

// Options configure a Handler.
type Options struct {
	Name, Version string // serverInfo
	MaxBodyBytes  int
	// MaxResponseBytes bounds a batch's answer: once it is passed, the
	// remaining messages get an error instead of being served.
	MaxResponseBytes int
	// AllowedOrigins are browser origins allowed besides the endpoint's own
	// host. (The Host allowlist is the server's, for every path.)
	AllowedOrigins []string
	// Tools answers tools/list and tools/call.
	Tools Tools
	// Resources, when set, answers resources/list, resources/templates/list
	// and resources/read, and the resources capability is declared.
	Resources Resources
	// Apps, when set, serves the views of the MCP Apps extension to the
	// clients that declare it (features.go).
	Apps Apps
	// Prompts, when set, answers prompts/list, prompts/get and
	// completion/complete, and the prompts and completions capabilities
	// are declared.
	Prompts Prompts
	// Authorize, when set, resolves a request's credentials into the
	// Authorization header sent to Memos and whether the grant is
	// read-only, or refuses the request (a 401 that starts authorization).
	// When nil the caller's Authorization goes to Memos as it is. ctx is
	// the request's: checking the credentials may ask Memos.
	Authorize func(ctx context.Context, req *web.Request) (authorization string, readOnly bool, refusal *web.Response)
	// Ahead, when set, may admit a request that only reads before its
	// credentials' check has ended, where Authorize would keep it waiting
	// for Memos (caller.Verifier.Ahead): it returns the request's context
	// and Authorization, and wait, which returns Authorize's refusal, nil
	// for an acceptance, once the check has ended; ok false leaves the
	// request to Authorize. reads reports whether the request is one
	// message that changes nothing in Memos (readsOnly); Ahead asks it only
	// of a request it would admit otherwise, so that no other request's
	// body is read before its credentials are. The handler serves an
	// admitted request beside the check, and answers only once wait has
	// returned: with the refusal, if there is one, in place of the answer.
	Ahead func(ctx context.Context, req *web.Request, reads func() bool) (_ context.Context, authorization string, wait func() *web.Response, ok bool)
	// Instructions, when set, returns the instructions of initialize and
	// server/discover for a caller served the tools for which served
	// reports true: which tool to use for what. "" leaves them out.
	Instructions func(served func(tool string) bool) string
	// ReadOnlyTools is what a read-only grant is served: a subset of Tools.
	ReadOnlyTools Tools
	// ScopeChallenge is the WWW-Authenticate value of the 403 a read-only
	// grant gets for a tool of Tools that ReadOnlyTools lacks.
	ScopeChallenge func(req *web.Request) string
	// Revoked, when set, is asked about a request whose credentials Memos
	// refused in a tool call (or a read of resources or tags): a response it returns (a 401 that sends the
	// client to refresh or sign in again) replaces the answer. It returns
	// nil for credentials a client cannot renew, such as a plain Memos
	// token, which keep the tool's error result.
	Revoked func(req *web.Request) *web.Response
}

// Tools is the tool surface the handler serves: a set of tools in each
// Memos release, of which a request is served the one of the release the
// instance runs.
type Tools interface {
	// Release returns the index of the release whose tools the request
	// of ctx is served (0 where there is one release). Once the instance's
	// release is known it asks nothing of Memos.
	Release(ctx context.Context) int
	// ListJSON returns the JSON array of tool definitions of a release.
	ListJSON(release int) []byte
	// Call runs the named tool, one that ListJSON lists, and returns a
	// CallToolResult object as JSON, or the error the result reports
	// (isError). A *memos.Error says whether Memos refused the credentials
	// or asked to wait (its 429).
	Call(ctx context.Context, name string, args rawjson.Value, authorization string) ([]byte, error)
	// Confirm returns the question to put to the person before the named
	// tool runs with args for the caller with this Authorization ("" for a
	// tool that needs none): a tool that deletes for good. It may read
	// Memos, to show what would go.
	Confirm(ctx context.Context, name string, args rawjson.Value, authorization string) string
}

// placer is Tools that can say whether the instance's release is learnt
// already, so that a request need not ask for it.
type placer interface{ Placed() bool }

// Handler answers POST requests at the MCP endpoint. It holds no per-client
// state: every request is served on its own.
type Handler struct {
	opts Options
	// Results that never change, prepared once.
	serverInfo    []byte
	modernMembers []byte // an object opened with the 2026-07-28 members of every result
	capabilities  string
	templateList  prepared
	offers        sync.Map // offerKey → *offer, made on first use
}

// offerKey names what one kind of grant is served in one release.
type offerKey struct {
	release  int
	readOnly bool
}

// offer is what one kind of grant (read-write or read-only) is served in
// one release: its tools, their names, and the list results, each
// prepared once.
type offer struct {
	tools     Tools
	release   int
	names     func() map[string]bool
	toolsList prepared
	appsList  prepared // toolsList with the views of Apps named
	prompts   prepared
}

// prepared is a result that never changes, built once.
type prepared struct {
	once   sync.Once
	result []byte
}

// state is what one HTTP request's credentials allow, and what its answer
// must say about them, gathered as its messages are served.
type state struct {
	readOnly bool // the credentials are a read-only grant
	release  int  // the release whose tools are served, once placed
	placed   bool
	// placing is the release check a cold isolate's request started
	// beside its caller check, whose answer is early.
	placing      *sync.WaitGroup
	early        int
	insufficient bool // a tool call needed more than the grant allows
	refused      bool // Memos refused the credentials in a tool call or a read
	// wait is the longest wait Memos asked for (its 429), which the
	// answer's Retry-After passes on.
	wait time.Duration
}

type stateKey struct{}

// stateOf returns the state of the request ctx belongs to.
func stateOf(ctx context.Context) *state {
	if st, ok := ctx.Value(stateKey{}).(*state); ok {
		return st
	}
	return &state{}
}

// noteMemos notes what a failure from Memos says about the credentials
// and about waiting.
func (st *state) noteMemos(err error) {
	if e, ok := memos.AsError(err); ok {
		st.refused = st.refused || e.Refused
		st.wait = max(st.wait, e.Wait)
	}
}

// NewHandler returns a Handler for opts.
func NewHandler(opts Options) *Handler {
	h := &Handler{opts: opts}
	info := []byte(`{"name":`)
	info = rawjson.AppendString(info, opts.Name)
	info = append(info, `,"version":`...)
	info = rawjson.AppendString(info, opts.Version)
	h.serverInfo = append(info, '}')
	h.modernMembers = slices.Concat([]byte(`{"resultType":"complete","_meta":{"`+metaServerInfo+`":`), h.serverInfo, []byte("}"))
	h.capabilities = capabilities(opts)
	return h
}

// offer returns what the caller of ctx is served: its grant's tools in
// the release of the instance, learnt once per request.
func (h *Handler) offer(ctx context.Context) *offer {
	st := stateOf(ctx)
	if st.placing != nil {
		st.placing.Wait()
		st.release, st.placed, st.placing = st.early, true, nil
	}
	if !st.placed {
		st.release, st.placed = h.opts.Tools.Release(ctx), true
	}
	return h.offerOf(st.release, st.readOnly)
}

// offerOf returns what a grant is served in a release.
func (h *Handler) offerOf(release int, readOnly bool) *offer {
	key := offerKey{release, readOnly}
	if o, ok := h.offers.Load(key); ok {
		return o.(*offer)
	}
	o := &offer{tools: h.opts.Tools, release: release}
	if readOnly {
		o.tools = h.opts.ReadOnlyTools
	}
	o.names = sync.OnceValue(func() map[string]bool {
		names := map[string]bool{}
		if o.tools == nil {
			return names
		}
		rawjson.ParseBytes(o.tools.ListJSON(release)).ForEach(func(_, tool rawjson.Value) bool {
			names[tool.Get("name").Str] = true
			return true
		})
		return names
	})
	actual, _ := h.offers.LoadOrStore(key, o)
	return actual.(*offer)
}

// call is one JSON-RPC request being served, with what its era decided.
type call struct {
	log     *accesslog.Entry
	msg     jsonrpc.Message
	req     *web.Request
	version string // protocol version the request is served under
	modern  bool   // 2026-07-28 rules
}

// reply is the outcome of one message: a JSON-RPC response (nil for an
// accepted notification) and the HTTP status it calls for.
type reply struct {
	status int
	body   []byte
}

// Serve answers one HTTP request at the MCP endpoint.
func (h *Handler) Serve(ctx context.Context, req *web.Request) *web.Response {
	header, refusal := h.admit(req)
	if refusal != nil {
		return refusal
	}
	if req.Method != "POST" {
		header["allow"] = "POST"
		return refuse(405, header, "method not allowed: the MCP endpoint takes POST only (no SSE stream, no sessions)")
	}
	st := &state{}
	ctx = context.WithValue(ctx, stateKey{}, st)
	// An isolate that has not learnt the instance's release asks for it
	// now, beside the caller check, rather than after it (the first
	// request of a cold start); the request is answered only once it is
	// back, as the runtime ends what a request leaves running.
	if p, ok := h.opts.Tools.(placer); ok && !p.Placed() {
		placing := &sync.WaitGroup{}
		placing.Go(func() { st.early = h.opts.Tools.Release(ctx) })
		st.placing = placing
		defer placing.Wait()
	}
	if h.opts.Ahead != nil {
		if actx, authorization, wait, ok := h.opts.Ahead(ctx, req, func() bool { return h.readsOnly(ctx, req) }); ok {
			resp := h.serveAdmitted(actx, withAuthorization(req, authorization), req, header)
			if refusal := wait(); refusal != nil {
				return refuseWith(ctx, header, refusal)
			}
			return resp
		}
	}
	original := req
	if h.opts.Authorize != nil {
		authorization, readOnly, refusal := h.opts.Authorize(ctx, req)
		if refusal != nil {
			return refuseWith(ctx, header, refusal)
		}
		req = withAuthorization(req, authorization)
		st.readOnly = readOnly && h.opts.ReadOnlyTools != nil
	}
	return h.serveAdmitted(ctx, req, original, header)
}

// readsOnly reports whether req is one message whose work changes nothing
// in Memos, on an isolate that knows the instance's release: a tool that a
// read-only grant is served, or any method but tools/call (resources,
// completions and prompts read; the rest ask nothing of Memos). A batch,
// or a body that is not JSON, is not.
func (h *Handler) readsOnly(ctx context.Context, req *web.Request) bool {
	if !rawjson.ValidBytes(req.Body) {
		return false
	}
	msg := rawjson.ParseBytes(req.Body)
	if !msg.IsObject() {
		return false
	}
	if msg.Get("method").Str != "tools/call" {
		return true
	}
	if p, ok := h.opts.Tools.(placer); h.opts.ReadOnlyTools == nil || ok && !p.Placed() {
		return false
	}
	return h.offerOf(h.opts.Tools.Release(ctx), true).names()[msg.Get("params").Get("name").Str]
}

// serveAdmitted answers a request whose credentials are admitted (req
// carries those to send Memos; original, those it came with).
func (h *Handler) serveAdmitted(ctx context.Context, req, original *web.Request, header web.Header) *web.Response {
	st := stateOf(ctx)
	if refusal := h.checkBody(req, header); refusal != nil {
		return refusal
	}
	if !utf8.Valid(req.Body) || !rawjson.ValidBytes(req.Body) {
		accesslog.From(ctx).SetOutcome(accesslog.ProtocolError)
		return jsonResponse(400, header, jsonrpc.ErrorResponse(nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the body is not valid JSON (UTF-8)"}))
	}
	body := rawjson.ParseBytes(req.Body)
	var r reply
	if body.IsArray() {
		r = h.serveBatch(ctx, req, body)
	} else {
		r = h.serveOne(ctx, req, body, false)
	}
	if r.body == nil {
		accesslog.From(ctx).SetOutcome(accesslog.Notification)
		return &web.Response{Status: 202, Header: header}
	}
	if st.refused && h.opts.Revoked != nil {
		if refusal := h.opts.Revoked(original); refusal != nil {
			return refuseWith(ctx, header, refusal)
		}
	}
	if st.insufficient && !body.IsArray() && h.opts.ScopeChallenge != nil {
		header["www-authenticate"] = h.opts.ScopeChallenge(req)
	}
	if st.wait > 0 {
		// The status stays 200, so that clients read the tool's result; the
		// field tells those that look when Memos takes calls again.
		header["retry-after"] = web.RetryAfter(st.wait)
	}
	return jsonResponse(r.status, header, r.body)
}

// refuseWith answers with the authorization server's refusal, with the
// endpoint's own header fields added.
func refuseWith(ctx context.Context, header web.Header, refusal *web.Response) *web.Response {
	accesslog.From(ctx).SetOutcome(accesslog.Refused)
	for k, v := range header {
		refusal.Header[k] = v
	}
	return refusal
}

// Limits on a JSON-RPC batch, so that one HTTP request costs a bounded
// amount of memory and of requests to Memos. Clients that batch at all send
// a handful of messages.
const (
	MaxBatchItems = 16 // messages in one batch
	// MaxBatchCalls bounds the requests of a batch that ask Memos
	// (method.asksMemos), each at most a few requests to it.
	MaxBatchCalls = 4
)

// withAuthorization returns req with authorization as its Authorization
// header, the credentials to send to Memos: req itself when it has them
// already (a Memos token), a copy otherwise.
func withAuthorization(req *web.Request, authorization string) *web.Request {
	if v, ok := req.Header["authorization"]; ok && v == authorization {
		return req
	}
	r := *req
	r.Header = make(web.Header, len(req.Header))
	for k, v := range req.Header {
		r.Header[k] = v
	}
	r.Header["authorization"] = authorization
	return &r
}

// serveBatch answers a JSON-RPC batch, which only 2025-03-26 and 2024-11-05
// allow. A batch of notifications only is answered with no body. Messages
// are served in order until the answer passes MaxResponseBytes or the
// client is gone; the rest get an error each.
func (h *Handler) serveBatch(ctx context.Context, req *web.Request, batch rawjson.Value) reply {
	v := req.Header.Get("mcp-protocol-version")
	if v == "" {
		v = versionNoHeader
	}
	// Count before anything is decoded: a 1 MB body holds 300,000 empty
	// objects, and Array would allocate a Value for each.
	items, calls := 0, 0
	batch.ForEach(func(_, item rawjson.Value) bool {
		items++
		if asksMemos(item.Get("method").Str) {
			calls++
		}
		return items <= MaxBatchItems
	})
	var problem string
	switch {
	case !allowsBatch(v) || items == 0:
		problem = "invalid request: JSON-RPC batches are accepted only for protocol versions 2025-03-26 and 2024-11-05, and must not be empty"
	case items > MaxBatchItems:
		problem = "invalid request: a batch may hold at most " + strconv.Itoa(MaxBatchItems) + " messages"
	case calls > MaxBatchCalls:
		problem = "invalid request: a batch may hold at most " + strconv.Itoa(MaxBatchCalls) + " requests that ask Memos (" + methodsAskingMemos() + "); send the others separately"
	}
	if problem != "" {
		return reply{400, jsonrpc.ErrorResponse(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: problem})}
	}
	out := []byte{'['}
	for _, item := range batch.Array() {
		var r reply
		switch {
		case ctx.Err() != nil: // nobody is waiting for the answer
			accesslog.From(ctx).SetOutcome(accesslog.Cancelled)
			return reply{}
		case len(out) > h.opts.MaxResponseBytes:
			id := item.Get("id")
			if !id.Exists() {
				continue
			}
			r.body = jsonrpc.ErrorResponse([]byte(id.Raw), &jsonrpc.Error{Code: codeAnswerTooLarge,
				Message: "the batch's answer passed " + strconv.Itoa(h.opts.MaxResponseBytes) + " bytes before this message (MAX_RESPONSE_BYTES): send it on its own"})
		default:
			r = h.serveOne(ctx, req, item, true)
		}
		if r.body == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, r.body...)
	}
	if len(out) == 1 {
		return reply{}
	}
	return reply{200, append(out, ']')}
}

// serveOne answers one message of a request body.
func (h *Handler) serveOne(ctx context.Context, req *web.Request, raw rawjson.Value, inBatch bool) (r reply) {
	msg, id, rpcErr := jsonrpc.Decode(raw)
	if rpcErr != nil {
		return reply{400, jsonrpc.ErrorResponse(id, rpcErr)}
	}
	c := &call{log: accesslog.From(ctx), msg: msg, req: req}
	if inBatch && msg.Method == "initialize" {
		c.version = versionNoHeader
		return h.fail(c, 200, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: initialize must not be part of a JSON-RPC batch"})
	}
	defer func() {
		// A bug below must cost one answer, never the Go instance that
		// serves every request of the isolate.
		if p := recover(); p != nil {
			logline.Print("panic serving ", msg.Method, ": ", logline.Value(p))
			status := 200
			if c.modern {
				status = 500
			}
			r = h.fail(c, status, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"})
		}
	}()
	meta := msg.Params.Get("_meta")
	headerVersion := strings.TrimSpace(req.Header.Get("mcp-protocol-version"))
	if (meta.Get(metaProtocolVersion).Exists() || headerVersion == Version2026) && !inBatch {
		c.modern = true
		if r, ok := h.checkModern(c, meta, headerVersion); !ok {
			return r
		}
	} else {
		c.version = headerVersion
		if c.version == "" {
			c.version = versionNoHeader
		}
		if msg.Method != "initialize" && !isLegacy(c.version) {
			return h.fail(c, 400, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "unsupported MCP-Protocol-Version " + rawjson.Quote(c.version) + "; supported: " + strings.Join(supportedVersions, ", ")})
		}
	}
	c.logCall()
	return h.dispatch(ctx, c)
}

// checkModern applies the 2026-07-28 request checks in the order the
// specification gives: _meta fields, header agreement, version support,
// method header.
func (h *Handler) checkModern(c *call, meta rawjson.Value, headerVersion string) (reply, bool) {
	version := meta.Get(metaProtocolVersion)
	if !meta.IsObject() || version.Kind != rawjson.String || !meta.Get(metaClientCaps).IsObject() {
		return h.fail(c, 400, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "invalid params: _meta must carry " + metaProtocolVersion + " (string) and " + metaClientCaps + " (object)"}), false
	}
	c.version = version.Str
	if headerVersion != c.version {
		return h.fail(c, 400, &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: "header mismatch: MCP-Protocol-Version " + rawjson.Quote(headerVersion) + " differs from _meta protocolVersion " + rawjson.Quote(c.version)}), false
	}
	if c.version != Version2026 {
		data := []byte(`{"supported":` + supportedJSON + `,"requested":`)
		data = append(rawjson.AppendString(data, c.version), '}')
		return h.fail(c, 400, &jsonrpc.Error{Code: codeUnsupportedVersion,
			Message: "unsupported protocol version " + rawjson.Quote(c.version), Data: data}), false
	}
	if m := strings.TrimSpace(c.req.Header.Get("mcp-method")); m != c.msg.Method {
		return h.fail(c, 400, &jsonrpc.Error{Code: codeHeaderMismatch,
			Message: "header mismatch: Mcp-Method " + rawjson.Quote(m) + " differs from the body's method " + rawjson.Quote(c.msg.Method)}), false
	}
	if m := methodNamed(c.msg.Method); m != nil && m.nameParam != "" {
		param := m.nameParam
		raw := c.req.Header.Get("mcp-name")
		name, ok := decodeHeaderValue(raw)
		want := c.msg.Params.Get(param).String()
		switch {
		case raw == "":
			return h.fail(c, 400, &jsonrpc.Error{Code: codeHeaderMismatch, Message: "header mismatch: " + c.msg.Method + " needs the Mcp-Name header"}), false
		case !ok:
			return h.fail(c, 400, &jsonrpc.Error{Code: codeHeaderMismatch, Message: "header mismatch: Mcp-Name is not valid base64 inside =?base64?…?="}), false
		case name != want:
			return h.fail(c, 400, &jsonrpc.Error{Code: codeHeaderMismatch,
				Message: "header mismatch: Mcp-Name " + rawjson.Quote(name) + " differs from the body's params." + param + " " + rawjson.Quote(want)}), false
		}
	}
	return reply{}, true
}

// fail answers c with a JSON-RPC error. Legacy-era errors travel on HTTP 200
// (SDK clients treat any other status as a transport failure) unless the
// transport itself is at fault; 2026-07-28 errors keep their status.
func (h *Handler) fail(c *call, status int, e *jsonrpc.Error) reply {
	c.logCall()
	c.log.SetOutcome(accesslog.ProtocolError)
	if c.msg.IsNotification() && status < 400 {
		return reply{}
	}
	return reply{status, jsonrpc.ErrorResponse(c.msg.ID, e)}
}

// logCall records the call's version and method in the access log: only
// the ones the handler knows by name, since any other is the caller's
// text, which may carry anything (a token too).
func (c *call) logCall() {
	version, method := c.version, c.msg.Method
	if version != "" && !slices.Contains(supportedVersions, version) {
		version = "other"
	}
	if method != "" && methodNamed(method) == nil {
		method = "other"
	}
	c.log.SetCall(version, method)
}

func jsonResponse(status int, header web.Header, body []byte) *web.Response {
	if header == nil {
		header = web.Header{}
	}
	header["content-type"] = "application/json"
	return &web.Response{Status: status, Header: header, Body: body}
}
