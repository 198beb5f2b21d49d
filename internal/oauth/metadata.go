package oauth

import (
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// publicJSON answers with a public, cacheable JSON document that any web
// page may read (discovery documents hold nothing secret).
func publicJSON(body string) *web.Response {
	return &web.Response{Status: 200, Body: []byte(body), Header: web.Header{
		"content-type": "application/json", "cache-control": "public, max-age=3600",
		"access-control-allow-origin": "*",
	}}
}

// resourceMetadata is the RFC 9728 document of /mcp, at the path form of
// its well-known URL. The root form would describe a resource whose
// identifier is the origin itself, which this server does not protect: it
// is answered 404 (MCP clients that try it fall back from the path form,
// which they find first).
func (s *Server) resourceMetadata(req *web.Request) *web.Response {
	if req.Path() == pathResourceMeta {
		return withCORS(oauthError(404, "invalid_request", "this server's only protected resource is "+resource(req)+": its metadata is at "+origin(req)+pathResourceMeta+"/mcp"))
	}
	return publicJSON(`{"resource":` + rawjson.Quote(resource(req)) +
		`,"authorization_servers":[` + rawjson.Quote(origin(req)) + `]` +
		`,"scopes_supported":["` + ScopeRead + `","` + ScopeWrite + `"]` +
		`,"bearer_methods_supported":["header"]` +
		`,"resource_name":"Memos"}`)
}

// serverMetadata is the RFC 8414 document, with what the hosted clients
// look for: CIMD with "none" (Claude uses CIMD only then), client_secret_post
// (Claude's DCR), S256, and iss on the redirect.
func (s *Server) serverMetadata(req *web.Request) *web.Response {
	o := origin(req)
	return publicJSON(`{"issuer":` + rawjson.Quote(o) +
		`,"authorization_endpoint":` + rawjson.Quote(o+pathAuthorize) +
		`,"token_endpoint":` + rawjson.Quote(o+pathToken) +
		`,"registration_endpoint":` + rawjson.Quote(o+pathRegister) +
		`,"revocation_endpoint":` + rawjson.Quote(o+pathRevoke) +
		`,"response_types_supported":["code"]` +
		`,"response_modes_supported":["query"]` +
		`,"grant_types_supported":` + grantTypesJSON +
		`,"code_challenge_methods_supported":["S256"]` +
		`,"token_endpoint_auth_methods_supported":["none","client_secret_post","client_secret_basic"]` +
		`,"revocation_endpoint_auth_methods_supported":["none","client_secret_post","client_secret_basic"]` +
		`,"scopes_supported":["` + ScopeRead + `","` + ScopeWrite + `"]` +
		`,"client_id_metadata_document_supported":true` +
		`,"authorization_response_iss_parameter_supported":true}`)
}

// challenge is the WWW-Authenticate value of a 401 at /mcp: where the
// resource metadata is, and the scopes to ask for; with an error code when
// a token was sent and refused.
func challenge(req *web.Request, errCode, description string) string {
	v := `Bearer resource_metadata="` + origin(req) + pathResourceMeta + `/mcp", scope="` + scopeAll + `"`
	if errCode != "" {
		v += `, error="` + errCode + `", error_description="` + description + `"`
	}
	return v
}
