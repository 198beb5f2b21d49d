package upstream

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/registry"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// errInternal is what a caller sees of a fault of the gateway itself; the
// details go to the log.
var errInternal = errors.New("the gateway could not run this tool (see the Worker's logs)")

// errNeedsToken answers an anonymous tool call when the instance is behind
// Cloudflare Access.
var errNeedsToken = errors.New("this Memos instance is behind Cloudflare Access, which lets the gateway in only with your own Memos access token: send it as Authorization: Bearer <token>")

// send runs req against Memos and turns the outcome into a CallToolResult.
// learnt returns once the instance's version is known, if it is being
// learnt beside this call. refused reports Memos refusing the request's
// credentials; wait is how long Memos asked to wait before retrying (a 429),
// 0 for any other answer.
func (c *Client) send(ctx context.Context, t *registry.Tool, req *web.Request, learnt func()) (result []byte, refused bool, wait time.Duration) {
	route := t.Method + " " + t.Path
	resp, f := c.exchange(ctx, t.Name, route, req, learnt)
	if f != nil {
		return errorResult(f.msg), f.refused, f.wait
	}
	obj, escapes, err := normalize(resp.Body)
	if err != nil {
		msg, detail := tooDeep, "answer nests deeper than "+strconv.Itoa(maxAnswerDepth)+" levels ("+strconv.Itoa(len(resp.Body))+" bytes)"
		if err == errNotJSON {
			msg, detail = c.notJSON(resp)
		}
		failed(ctx, t.Name, route, "HTTP "+strconv.Itoa(resp.Status)+": "+detail, nil)
		return errorResult(msg), false, 0
	}
	return successResult(obj, escapes), false, 0
}

// exchange runs req against Memos for the tool called name, or for a
// resource or a completion when name is "", and returns a successful
// answer, or the Failure to report instead, which it logs under route (the
// method and route template: the log never gets argument values). A 404
// waits for learnt, which returns once the instance's version is known if
// it is being learnt beside this call, and notes a release mismatch to a
// tool's caller.
func (c *Client) exchange(ctx context.Context, name, route string, req *web.Request, learnt func()) (*web.Response, *Failure) {
	req.Timeout = c.cfg.Timeout
	entry := accesslog.From(ctx)
	resp, err := c.doer.Do(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			entry.SetOutcome(accesslog.Cancelled)
		}
		// The error may quote the URL, whose path carries argument values:
		// the log gets the route template instead.
		detail := strings.ReplaceAll(err.Error(), req.URL, route)
		return nil, failed(ctx, name, route, detail, &Failure{msg: c.failure(ctx, err)})
	}
	entry.SetUpstream(resp.Status)
	if resp.Status >= 200 && resp.Status <= 299 {
		return resp, nil
	}
	msg, detail := c.refusal(resp)
	f := &Failure{Status: resp.Status, refused: resp.Status == 401 && memosJSON(resp.Body)}
	switch {
	case resp.Status == 404 && name != "":
		learnt()
		msg += c.version.mismatchNote()
	case resp.Status == 429:
		var limited bool
		if f.wait, limited = retryAfter(resp, time.Now()); limited {
			f.wait = max(f.wait, time.Second)
			msg += " (retry after " + waitText(f.wait) + ")"
		}
	}
	f.msg = msg
	return nil, failed(ctx, name, route, "HTTP "+strconv.Itoa(resp.Status)+": "+detail, f)
}

// failed logs a request to Memos that failed, for the tool called name or
// (name "") a resource or a completion, and returns f. A tool's failure is
// its call's outcome in the access log.
func failed(ctx context.Context, name, route, detail string, f *Failure) *Failure {
	if name == "" {
		logline.Print("read ", route, ": ", detail)
		return f
	}
	accesslog.From(ctx).SetOutcome(accesslog.ToolError)
	logline.Print("tool ", name, ": ", route, ": ", detail)
	return f
}

// maxAnswerDepth bounds how deep arrays and objects may nest in an answer
// from Memos, whose own nest a few levels deep. Clients parse a result by
// recursion and refuse JSON nested deeper than theirs can go (the Go SDK at
// 1,000 levels, Python's json module near its recursion limit of 1,000),
// and the session they closed over one answer would end.
const maxAnswerDepth = 512

// tooDeep is the tool error for an answer nested deeper than that.
var tooDeep = "the upstream answered with JSON nested more than " + strconv.Itoa(maxAnswerDepth) + " levels deep, which Memos never sends: check that MEMOS_URL points at the Memos instance"

// Why normalize refuses an answer.
var (
	errNotJSON = errors.New("not JSON")
	errTooDeep = errors.New("nested too deep")
)

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
		return "the Memos answer is larger than MAX_RESPONSE_BYTES (" + strconv.Itoa(c.cfg.MaxRespBytes) +
			" bytes): ask for less, e.g. with a smaller pageSize or a filter"
	case errors.Is(ctx.Err(), context.Canceled):
		return "the call was cancelled before Memos answered"
	case errors.Is(err, web.ErrTimeout):
		return "Memos did not answer within " + c.cfg.Timeout.Round(time.Millisecond).String() +
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
		if resp.Header.Get("cf-access-domain") != "" || c.cfg.AccessClientID != "" || html {
			return c.accessProblem(head), detail
		}
	case resp.Status == 530:
		return head + " from Cloudflare: the origin behind it cannot be reached (a stopped or disconnected Cloudflare Tunnel answers this way): check that cloudflared is running", detail
	case resp.Status >= 500:
		return head + " from the proxy or tunnel in front of Memos, not from Memos: check that Memos and its Cloudflare Tunnel (cloudflared) are running and that MEMOS_URL is right", detail
	case html:
		return prefixed(head, "the upstream answered with an HTML page instead of Memos' API: check that MEMOS_URL is the base URL of the Memos instance (without /api/v1) and, if Cloudflare Access protects it, set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"), detail
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
	if c.cfg.AccessClientID != "" {
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

// normalize turns a successful answer into the result object: an object as
// it is, nothing as {"ok":true}, an array or scalar under "result". Members
// whose value is null are dropped at every depth: the output schemas allow
// null nowhere, and Memos v0.30.0 sends "motionMedia": null on attachments.
// It refuses a body that is not JSON (errNotJSON) or nests deeper than
// maxAnswerDepth (errTooDeep). escapes counts the quotes and backslashes of
// obj, which its text copy escapes.
func normalize(body []byte) (obj []byte, escapes int, err error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || string(body) == "null" {
		return []byte(`{"ok":true}`), 2, nil
	}
	out := make([]byte, 0, len(body)+12)
	wrapped := body[0] != '{'
	if wrapped {
		out = append(out, `{"result":`...)
	}
	out, escapes, ok := rawjson.Compact(out, body, maxAnswerDepth, true)
	switch {
	case !ok && rawjson.ValidBytes(body):
		return nil, 0, errTooDeep
	case !ok:
		return nil, 0, errNotJSON
	case wrapped:
		return append(out, '}'), escapes + 2, nil
	}
	return out, escapes, nil
}

// successResult is a CallToolResult carrying obj as structured content and,
// for clients that read only text, as a text block. escapes is the number of
// quotes and backslashes in obj (normalize counts them). A result can be
// megabytes, so it is allocated once at its exact size.
func successResult(obj []byte, escapes int) []byte {
	const head, middle = `{"content":[{"type":"text","text":"`, `"}],"structuredContent":`
	text := len(obj) + escapes
	b := make([]byte, len(head)+text+len(middle)+len(obj)+1)
	n := copy(b, head)
	quote(b[n:n+text], obj)
	n += text
	n += copy(b[n:], middle)
	n += copy(b[n:], obj)
	b[n] = '}'
	return b
}

// quote writes compact JSON into dst as the contents of a JSON string; dst
// holds exactly len(compactJSON) bytes plus one for each quote and
// backslash. Such JSON holds no raw control characters (its strings escape
// them), so only quotes and backslashes need escaping. It works eight bytes
// at a time, without calls: wasm has no vectorized search, and calls cost
// more there than the work between two quotes of a short key. A word's
// escapes are all written from the one read of it: the rest of the word
// moves one place up behind each backslash.
func quote(dst, compactJSON []byte) {
	const ones, lows = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	i, j := 0, 0
	// Each write below ends at most 15 bytes past j plus the word's escapes,
	// which dst has room for while eight more bytes follow the word.
	for i+16 <= len(compactJSON) {
		x := binary.LittleEndian.Uint64(compactJSON[i:])
		binary.LittleEndian.PutUint64(dst[j:], x)
		// The high bit of each byte of m is set where x has a quote or a
		// backslash, exactly: no borrow crosses from one byte to the next.
		q, s := x^(ones*'"'), x^(ones*'\\')
		m := ^((q&lows + lows) | q | lows) | ^((s&lows + lows) | s | lows)
		for ; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m) / 8
			dst[j+k] = '\\'
			binary.LittleEndian.PutUint64(dst[j+k+1:], x>>(8*k))
			j++
		}
		i, j = i+8, j+8
	}
	for _, c := range compactJSON[i:] {
		if c == '"' || c == '\\' {
			dst[j] = '\\'
			j++
		}
		dst[j] = c
		j++
	}
}

// errorResult is a CallToolResult that reports a failure to the model.
func errorResult(msg string) []byte {
	b := []byte(`{"content":[{"type":"text","text":`)
	b = rawjson.AppendString(b, msg)
	return append(b, `}],"isError":true}`...)
}
