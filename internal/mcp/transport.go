package mcp

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// maxNesting bounds how deep JSON may nest in a request body. Real MCP
// traffic stays far below it; the bound keeps hostile input from costing
// stack or time.
const maxNesting = 64

// corsAllowHeaders are the request headers a browser client may send.
const corsAllowHeaders = "authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id"

// corsExposeHeaders are the response headers a browser client may read.
const corsExposeHeaders = "mcp-protocol-version, mcp-session-id, www-authenticate, retry-after"

// admit applies the HTTP rules that come before any JSON-RPC: the Origin
// rules and CORS. It returns the headers every answer to this request
// carries, and a refusal when the request goes no further.
func (h *Handler) admit(req *web.Request) (web.Header, *web.Response) {
	header := web.Header{}
	origin := req.Header.Get("origin")
	if origin == "" {
		// Not a browser: desktop and CLI clients send no Origin.
		if req.Method == "OPTIONS" {
			return header, &web.Response{Status: 204, Header: web.Header{"allow": "POST, OPTIONS"}}
		}
		return header, nil
	}
	if !h.originAllowed(origin, req.Host()) {
		return header, refuse(403, header, "forbidden: origin "+rawjson.Quote(origin)+" may not call this endpoint (see ALLOWED_ORIGINS)")
	}
	header["access-control-allow-origin"] = origin
	header["access-control-expose-headers"] = corsExposeHeaders
	header["vary"] = "Origin"
	if req.Method == "OPTIONS" {
		pre := web.Header{
			"access-control-allow-methods": "POST, OPTIONS",
			"access-control-allow-headers": corsAllowHeaders,
			"access-control-max-age":       "86400",
		}
		for k, v := range header {
			pre[k] = v
		}
		return header, &web.Response{Status: 204, Header: pre}
	}
	return header, nil
}

// checkBody applies the rules for a POST body before it is parsed.
func (h *Handler) checkBody(req *web.Request, header web.Header) *web.Response {
	if ct := req.Header.Get("content-type"); !isJSONMediaType(ct) {
		return refuse(415, header, "unsupported media type: send the JSON-RPC message with Content-Type: application/json")
	}
	if accept := req.Header.Get("accept"); accept != "" && !acceptsJSON(accept) {
		return refuse(406, header, "not acceptable: this endpoint answers with application/json; include it in Accept")
	}
	if req.BodyTooLarge || len(req.Body) > h.opts.MaxBodyBytes {
		return h.tooLarge(req, header)
	}
	if jsonrpc.TooDeep(req.Body, maxNesting) {
		return refuse(400, header, "invalid request: JSON nested deeper than "+strconv.Itoa(maxNesting)+" levels")
	}
	return nil
}

// tooLarge answers a body over MaxBodyBytes. The message names the size a
// file can have in attachment_create_attachment, whose base64 takes four
// bytes for three. When the id can be read from the head of the body (the
// runtime passes its first bytes), the error answers that request: on 200
// before 2026-07-28, as the era's other JSON-RPC errors, so that SDK
// clients report it with the call instead of as a failed transport.
func (h *Handler) tooLarge(req *web.Request, header web.Header) *web.Response {
	file := (h.opts.MaxBodyBytes - envelopeBytes) / 4 * 3
	msg := "request body too large: the limit is " + strconv.Itoa(h.opts.MaxBodyBytes) + " bytes (MAX_BODY_BYTES), so a file sent in base64 can be about " +
		strconv.Itoa(file/1000) + " KB: send less in one call"
	id := jsonrpc.PeekID(req.Body[:min(len(req.Body), web.BodyHead)])
	if id == nil {
		return refuse(413, header, msg)
	}
	status := 200
	if strings.TrimSpace(req.Header.Get("mcp-protocol-version")) == Version2026 {
		status = 413
	}
	return jsonResponse(status, header, jsonrpc.ErrorResponse(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}))
}

// envelopeBytes is room for a tool call's JSON-RPC envelope and arguments
// around a file's base64.
const envelopeBytes = 2048

func refuse(status int, header web.Header, msg string) *web.Response {
	return jsonResponse(status, header, jsonrpc.ErrorResponse(nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}))
}

// originAllowed reports whether a browser origin may call: the endpoint's
// own host (any scheme), or an origin in the allowlist.
func (h *Handler) originAllowed(origin, host string) bool {
	origin = strings.ToLower(strings.TrimSuffix(origin, "/"))
	scheme, rest, ok := strings.Cut(origin, "://")
	if !ok || scheme == "" || rest == "" || strings.ContainsAny(rest, "/?#@") {
		return false // "null", opaque or malformed origins
	}
	if rest == host {
		return true
	}
	for _, allowed := range h.opts.AllowedOrigins {
		if strings.ToLower(strings.TrimSuffix(allowed, "/")) == origin {
			return true
		}
	}
	return false
}

func isJSONMediaType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// acceptsJSON reports whether an Accept header admits application/json.
func acceptsJSON(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, _ := strings.Cut(part, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if strings.ReplaceAll(strings.ToLower(params), " ", "") == "q=0" {
			continue
		}
		if mt == "application/json" || mt == "application/*" || mt == "*/*" {
			return true
		}
	}
	return false
}

// decodeHeaderValue undoes the 2026-07-28 encoding of header values that are
// not plain ASCII: =?base64?<base64 of UTF-8>?=. ok is false when the
// sentinel is present but its content is not valid base64.
func decodeHeaderValue(v string) (string, bool) {
	v = strings.TrimSpace(v)
	inner, found := strings.CutPrefix(v, "=?base64?")
	if !found {
		return v, true
	}
	inner, found = strings.CutSuffix(inner, "?=")
	if !found {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}
