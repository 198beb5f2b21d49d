// Package memos is the gateway's client of a Memos instance: it sends the
// requests of tool calls and reads (with the caller's own credentials), the
// account calls of the OAuth consent step, and the health probe; it learns
// the instance's release; and it explains every failure in one error type,
// Error, worded for the caller and naming the setting to fix.
//
// It knows nothing of tools, MCP or the configuration: Options holds what
// it needs, and main wires them.
package memos

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/accesslog"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Options configure a Client.
type Options struct {
	// URL is the instance's base URL (MEMOS_URL), without a final slash;
	// "" when it is reached through a service binding, where only the path
	// matters.
	URL string
	// Host and Path name the instance for people (MEMOS_URL's host and
	// path); both empty behind a service binding.
	Host, Path string
	// AccessClientID and AccessClientSecret are the Cloudflare Access
	// service token, sent with a caller's own token only.
	AccessClientID, AccessClientSecret string
	// Timeout bounds each request (UPSTREAM_TIMEOUT_MS).
	Timeout time.Duration
	// MaxResponseBytes is the cap on an answer's size that the Doer
	// enforces (MAX_RESPONSE_BYTES), named when an answer passes it.
	MaxResponseBytes int
	// Releases are the Memos releases the tools were built for, the
	// pinned one first: an instance is served the one of its major.minor,
	// else the one whose Marker route it has (a source build says "dev"),
	// else the first.
	Releases []Release
	// Differs reports whether a route template differs between the Memos
	// releases (renamed or gone), so that its 404 may be the release's;
	// nil counts every route as differing.
	Differs func(route string) bool
	// Lockdown (LOCKDOWN) leaves other users' memos out of results.
	Lockdown bool
}

// Release is one Memos release the tools were built for.
type Release struct {
	Version string // v0.31.0
	// Marker is the path of a route only this release has, which Memos
	// answers without a token with 404 where it is not; "" for none.
	Marker string
}

// Client sends requests to one Memos instance through a web.Doer.
type Client struct {
	opts    Options
	doer    web.Doer
	base    string // URL, or a placeholder host behind a service binding
	version versionCache
	health  healthCache
	whose   func(ctx context.Context, token string) (string, error) // KnowCallers
}

// New returns a Client for opts, sending requests through doer.
func New(opts Options, doer web.Doer) *Client {
	c := &Client{opts: opts, doer: doer, base: opts.URL}
	if c.base == "" {
		c.base = "https://memos.invalid"
	}
	return c
}

// Request is one request to Memos on a caller's behalf.
type Request struct {
	Method string
	Path   string // escaped, with its query
	Body   []byte // JSON; nil for none
	Accept string // "" is application/json
	// Authorization is the caller's, sent unchanged.
	Authorization string
	// Tool names the tool the request serves, for the log; "" is a read of
	// a resource or a completion.
	Tool string
	// Route is the method and route template, which the log names instead
	// of the path (whose ids are the caller's).
	Route string
	// Learn learns the instance's release beside the request when it was
	// not learnt lately, so that a 404 can say that the releases differ.
	Learn bool
}

// Send sends r and returns Memos' successful (2xx) answer, or the *Error to
// report instead, which it logs under r.Route: the log never gets argument
// values.
func (c *Client) Send(ctx context.Context, r Request) (*web.Response, error) {
	if err := c.Admits(r.Authorization); err != nil {
		return nil, err
	}
	req := &web.Request{Method: r.Method, URL: c.base + r.Path, Header: c.header(credentials(r.Authorization)), Body: r.Body, Timeout: c.opts.Timeout}
	if r.Accept != "" {
		req.Header["accept"] = r.Accept
	}
	if r.Body != nil {
		req.Header["content-type"] = "application/json"
	}
	learnt := func() {}
	if r.Learn && c.version.stale() {
		// Learn the instance's version beside this request, and within
		// it, so that the runtime lets it finish.
		var learning sync.WaitGroup
		learning.Go(func() { c.Probe(ctx) }) // Probe notes the version
		defer learning.Wait()
		learnt = learning.Wait
	}
	entry := accesslog.From(ctx)
	resp, err := c.doer.Do(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			entry.SetOutcome(accesslog.Cancelled)
		}
		// The error may quote the URL, whose path carries argument values:
		// the log gets the route template instead.
		detail := strings.ReplaceAll(err.Error(), req.URL, r.Route)
		return nil, logged(r, detail, &Error{Msg: c.failure(ctx, err), Unsure: true})
	}
	entry.SetUpstream(resp.Status)
	if resp.Status >= 200 && resp.Status <= 299 {
		return resp, nil
	}
	msg, detail := c.refusal(resp)
	ours := memosJSON(resp.Body)
	e := &Error{Status: resp.Status, Refused: resp.Status == 401 && ours, Unsure: !ours}
	switch {
	case resp.Status == 404 && r.Tool != "":
		learnt() // a 404 waits until the version is learnt, to explain a release mismatch
		_, route, _ := strings.Cut(r.Route, " ")
		msg += c.version.mismatchNote(c.opts.Releases, route, c.opts.Differs)
	case resp.Status == 429:
		if wait, limited := retryAfter(resp, time.Now()); limited {
			e.Wait = max(wait, time.Second)
			msg += " (retry after " + waitText(e.Wait) + ")"
		}
	}
	e.Msg = msg
	return nil, logged(r, "HTTP "+itoa(resp.Status)+": "+detail, e)
}

// Failed logs a request whose successful answer the caller could not use
// (nested too deep, say), and returns e.
func (c *Client) Failed(r Request, detail string, e *Error) error { return logged(r, detail, e) }

// NotJSON logs a request whose answer is not JSON, and returns the *Error
// that explains it (a Cloudflare Access page, a proxy's error page, a web
// server that is not Memos).
func (c *Client) NotJSON(r Request, resp *web.Response) error {
	msg, detail := c.notJSON(resp)
	return logged(r, "HTTP "+itoa(resp.Status)+": "+detail, &Error{Status: resp.Status, Msg: msg, Unsure: true})
}

// Admits returns the *Error that refuses a request with this Authorization
// before anything is sent, nil when it may go: without a token of the
// caller's, nothing passes Cloudflare Access in front of Memos (the service
// token goes only with a caller's token).
func (c *Client) Admits(authorization string) error {
	if credentials(authorization) == "" && c.opts.AccessClientID != "" {
		return &Error{Msg: errNeedsToken}
	}
	return nil
}

// logged logs a request to Memos that failed and returns e.
func logged(r Request, detail string, e *Error) error {
	if r.Tool == "" {
		logline.Print("read ", r.Route, ": ", detail)
	} else {
		logline.Print("tool ", r.Tool, ": ", r.Route, ": ", detail)
	}
	return e
}

// header returns the headers of a caller's request: their Authorization,
// unchanged, and the Cloudflare Access service token when one is
// configured. Nothing else of the caller's request is forwarded. The
// service token goes only with a caller's own token: lent to anonymous
// callers, it would open an Access-protected instance to anyone.
func (c *Client) header(authorization string) web.Header {
	h := web.Header{"accept": "application/json"}
	if authorization != "" {
		h["authorization"] = authorization
		c.addAccess(h)
	}
	return h
}

// credentials is the Authorization a caller's request to Memos carries: ""
// when the caller's carries no token ("Bearer " alone is none either).
func credentials(authorization string) string {
	if !HasToken(authorization) {
		return ""
	}
	return authorization
}

// HasToken reports whether an Authorization header carries credentials: a
// scheme alone ("Bearer ", as clients send with an empty token setting)
// carries none.
func HasToken(authorization string) bool {
	_, credentials := web.Credentials(authorization)
	return credentials != ""
}

// addAccess adds the Cloudflare Access service token, when one is configured.
func (c *Client) addAccess(h web.Header) {
	if c.opts.AccessClientID != "" {
		h["cf-access-client-id"] = c.opts.AccessClientID
		h["cf-access-client-secret"] = c.opts.AccessClientSecret
	}
}

// WebURL is the address of the Memos web app, without a final slash, for
// links people can open: MEMOS_URL; "" behind a service binding.
func (c *Client) WebURL() string { return strings.TrimSuffix(c.opts.URL, "/") }

// InstanceName names the instance for people: MEMOS_URL's host and path, or
// the service binding it is reached through.
func (c *Client) InstanceName() string {
	if c.opts.Host != "" {
		return c.opts.Host + c.opts.Path
	}
	return "the Memos instance behind this gateway"
}
