package memos

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The explanations below say what went wrong as the caller (a model, or a
// person on the consent page) can act on it: Memos' own message when it
// sent one, else what the answer says about the setup, naming the setting
// to fix.

// errNeedsToken answers an anonymous tool call when the instance is behind
// Cloudflare Access.
const errNeedsToken = "this Memos instance is behind Cloudflare Access, which lets the gateway in only with your own Memos access token: send it as Authorization: Bearer <token>"

// memosJSON reports whether an error answer is Memos' own JSON, not a page
// of Cloudflare Access or a proxy in front of it.
func memosJSON(body []byte) bool {
	body = bytes.TrimSpace(body)
	return len(body) > 0 && rawjson.ValidBytes(body)
}

// failure explains an upstream request that got no answer.
func (c *Client) failure(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, web.ErrResponseTooLarge):
		return "the Memos answer is larger than MAX_RESPONSE_BYTES (" + strconv.Itoa(c.opts.MaxResponseBytes) +
			" bytes): ask for less, e.g. with a smaller pageSize or a filter"
	case errors.Is(ctx.Err(), context.Canceled):
		return "the call was cancelled before Memos answered"
	case errors.Is(err, web.ErrTimeout):
		return "Memos did not answer within " + c.opts.Timeout.Round(time.Millisecond).String() +
			" (UPSTREAM_TIMEOUT_MS): the instance is slow or unreachable"
	}
	return "the Memos instance cannot be reached: check that it is up and that MEMOS_URL (or MEMOS_SERVICE) points at it"
}

// refusal explains a non-2xx answer: "<code> <reason>: <message>" when
// Memos sent its JSON error, else what the answer says about the setup.
// detail is for the log.
func (c *Client) refusal(resp *web.Response) (msg, detail string) {
	head := statusLine(resp.Status)
	if resp.Status >= 300 && resp.Status <= 399 {
		loc := resp.Header.Get("location")
		if isAccessLogin(loc) {
			return c.accessProblem(head), "redirect to a Cloudflare Access login"
		}
		// Login proxies echo the original URL, arguments included, in the
		// target's query: the log gets the target without it.
		return head + ": the instance's address answered with a redirect, which is not followed (it would take your token elsewhere): set MEMOS_URL to the instance's final address",
			"redirect to " + withoutQuery(loc)
	}
	if memosJSON(resp.Body) {
		r := rawjson.ParseBytes(bytes.TrimSpace(resp.Body))
		text := r.Get("message").Str
		if text == "" {
			text = r.Get("error").Str
		}
		if text == "" {
			return head, "JSON error without a message"
		}
		return head + ": " + clip(text), "Memos error"
	}
	return c.notJSON(resp)
}

// notJSON explains an answer that is not Memos' JSON: a Cloudflare Access
// page, a tunnel or proxy error page, or a web server that is not Memos.
// A success status is not quoted: it would read as if something worked.
func (c *Client) notJSON(resp *web.Response) (msg, detail string) {
	head := statusLine(resp.Status)
	if resp.Status/100 == 2 {
		head = ""
	}
	ctype := resp.Header.Get("content-type")
	detail = "answer is not JSON (content-type " + strconv.Quote(ctype) + ", " + strconv.Itoa(len(resp.Body)) + " bytes)"
	html := strings.Contains(ctype, "html") || bytes.HasPrefix(bytes.TrimSpace(resp.Body), []byte("<"))
	switch {
	case html && (bytes.Contains(resp.Body, []byte("Cloudflare Access")) || bytes.Contains(resp.Body, []byte("cloudflareaccess.com"))):
		return c.accessProblem(head), detail
	case resp.Status == 401 || resp.Status == 403:
		if resp.Header.Get("cf-access-domain") != "" || c.opts.AccessClientID != "" || html {
			return c.accessProblem(head), detail
		}
	case resp.Status == 530:
		return head + " from Cloudflare: the origin behind it cannot be reached (a stopped or disconnected Cloudflare Tunnel answers this way): check that cloudflared is running", detail
	case resp.Status >= 500:
		return head + " from the proxy or tunnel in front of Memos, not from Memos: check that Memos and its Cloudflare Tunnel (cloudflared) are running and that MEMOS_URL is right", detail
	case html:
		return prefixed(head, "the upstream answered with an HTML page instead of Memos' API: check that MEMOS_URL is the base URL of the Memos instance (without "+strings.TrimSuffix(APIRoot, "/")+") and, if Cloudflare Access protects it, set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"), detail
	}
	return prefixed(head, "the upstream answered with something other than Memos' JSON: check that MEMOS_URL points at the Memos instance"), detail
}

// prefixed puts an HTTP status line, when there is one, before msg.
func prefixed(head, msg string) string {
	if head == "" {
		return msg
	}
	return head + ": " + msg
}

// accessProblem explains an answer of Cloudflare Access instead of Memos.
func (c *Client) accessProblem(head string) string {
	if c.opts.AccessClientID != "" {
		return prefixed(head, "Cloudflare Access did not accept the configured service token (CF_ACCESS_CLIENT_ID, CF_ACCESS_CLIENT_SECRET): check that the Access application has a Service Auth policy that includes it")
	}
	return prefixed(head, "Cloudflare Access answered instead of Memos: create a service token, allow it with a Service Auth policy, and set the Worker secrets CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET")
}

// isAccessLogin reports whether a redirect goes to a Cloudflare Access login.
func isAccessLogin(location string) bool {
	return strings.Contains(location, ".cloudflareaccess.com") || strings.Contains(location, "/cdn-cgi/access/")
}

// withoutQuery cuts a URL before its query or fragment.
func withoutQuery(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}

// clip shortens an upstream message to a sane length for a tool result.
func clip(s string) string {
	const max = 500
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// statusLine is "404 Not Found", or just the code for one without a name.
func statusLine(code int) string {
	if reason := statusText[code]; reason != "" {
		return strconv.Itoa(code) + " " + reason
	}
	return strconv.Itoa(code)
}

// statusText names the statuses Memos and the proxies in front of it answer
// with (net/http stays out of the wasm, and with it http.StatusText).
var statusText = map[int]string{
	200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
	300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
	304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
	400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
	405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
	410: "Gone", 412: "Precondition Failed", 413: "Content Too Large", 415: "Unsupported Media Type",
	422: "Unprocessable Content", 429: "Too Many Requests", 499: "Client Closed Request",
	500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
	503: "Service Unavailable", 504: "Gateway Timeout",
	520: "Web Server Returned an Unknown Error", 521: "Web Server Is Down", 522: "Connection Timed Out",
	523: "Origin Is Unreachable", 524: "A Timeout Occurred", 525: "SSL Handshake Failed",
	526: "Invalid SSL Certificate",
}
