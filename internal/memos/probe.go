package memos

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// probeTimeout bounds the health check's upstream request.
const probeTimeout = 5 * time.Second

// Status is what the health check learnt of the instance.
type Status struct {
	Reachable    bool
	HTTPStatus   int
	MemosVersion string // as the instance reports it ("dev" for source builds)
	// Release is the release of the tools the instance is served
	// (Options.Releases), "" when the probe learnt none.
	Release string
	// Problem is what is wrong, for the operator, empty when healthy: the
	// instance unreachable or refusing, or running another Memos release
	// than the tools were built for (then some tools answer 404).
	Problem string
}

// healthTTL is how long Health reuses a probe's findings: /healthz answers
// anyone who can reach the gateway, and must not become a way to send the
// instance a request per hit.
const healthTTL = 10 * time.Second

// healthCache holds the last probe's findings for Health.
type healthCache struct {
	mu      sync.Mutex
	status  Status
	at      time.Time
	probing bool // a probe is under way
}

// Health returns what a probe of the instance found, probing at most once
// per healthTTL. While a probe is under way, the findings of the last one
// stand in; only before any has ended does a request probe on its own
// rather than wait for another's (in the Worker a request cannot wait for
// another's upstream request without polling for it).
func (c *Client) Health(ctx context.Context) Status {
	h := &c.health
	h.mu.Lock()
	if !h.at.IsZero() && (h.probing || time.Since(h.at) < healthTTL) {
		defer h.mu.Unlock()
		return h.status
	}
	h.probing = true
	h.mu.Unlock()
	st := c.Probe(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probing = false
	if ctx.Err() == nil { // a caller that hung up learnt nothing worth keeping
		h.status, h.at = st, time.Now()
	}
	return st
}

// Probe reads the instance's public profile, without any token but with
// the Cloudflare Access service token, when one is configured: it is the
// gateway's own request to a fixed path, made at most once per healthTTL for
// /healthz and once per versionTTL for tool calls. A problem is explained as
// a tool call would explain it, naming the setting to fix.
func (c *Client) Probe(ctx context.Context) Status {
	header := web.Header{"accept": "application/json"}
	c.addAccess(header)
	resp, err := c.doer.Do(ctx, &web.Request{Method: "GET", URL: c.base + profilePath, Header: header, Timeout: min(c.opts.Timeout, probeTimeout)})
	if err != nil {
		logline.Print("health check: GET ", profilePath, ": ", err.Error())
		return Status{Problem: c.failure(ctx, err)}
	}
	s := Status{Reachable: true, HTTPStatus: resp.Status}
	var detail string
	switch {
	case resp.Status == 404:
		// Memos has this path in every release: MEMOS_URL points at
		// something under the instance, or at another service.
		s.Problem, detail = c.refusal(resp)
		s.Problem += ": the instance's public profile is not at MEMOS_URL" + profilePath + ": set MEMOS_URL to the instance's base URL, without " + strings.TrimSuffix(APIRoot, "/") + " or another path under it"
	case resp.Status != 200:
		s.Problem, detail = c.refusal(resp)
	case !rawjson.ValidBytes(resp.Body) || !strings.HasPrefix(resp.Header.Get("content-type"), "application/json"):
		s.Problem, detail = c.notJSON(resp)
	default:
		s.MemosVersion = rawjson.ParseBytes(resp.Body).Get("version").String()
		s.Problem = mismatch(s.MemosVersion, c.opts.Releases)
		release, placed := c.place(ctx, s.MemosVersion)
		c.version.note(s.MemosVersion, release, placed, c.opts.Releases)
		s.Release = c.released(c.version.served())
	}
	if detail != "" {
		logline.Print("health check: GET ", profilePath, ": HTTP ", strconv.Itoa(resp.Status), ": ", detail)
	}
	return s
}

// place returns the index in Options.Releases of the release an instance
// reporting version is served: the one of its major.minor; else, for a
// source build ("dev") or a release the build lacks, the newest whose
// Marker route answers other than 404 without a token (at most one request
// per release); else the first. placed is false when a Marker request
// failed, which leaves the instance's release as it was.
func (c *Client) place(ctx context.Context, version string) (release int, placed bool) {
	rs := c.opts.Releases
	for i := range rs {
		if m := minor(version); m != "" && minor(rs[i].Version) == m {
			return i, true
		}
	}
	header := web.Header{"accept": "application/json"}
	c.addAccess(header)
	for i := len(rs) - 1; i > 0; i-- {
		if rs[i].Marker == "" {
			continue
		}
		resp, err := c.doer.Do(ctx, &web.Request{Method: "GET", URL: c.base + rs[i].Marker, Header: header, Timeout: min(c.opts.Timeout, probeTimeout)})
		if err != nil {
			logline.Print("release check: GET ", rs[i].Marker, ": ", err.Error())
			return 0, false
		}
		if resp.Status != 404 {
			return i, true
		}
	}
	return 0, true
}

// Placed reports whether the release the instance is served is learnt.
func (c *Client) Placed() bool {
	_, ok := c.version.served()
	return ok
}

// Release returns the index in Options.Releases of the release the
// instance is served, probing it when it was never learnt (the first
// request of an isolate; later ones are relearnt beside a tool call's
// request, once per versionTTL). 0 while it cannot be learnt.
func (c *Client) Release(ctx context.Context) int {
	if i, ok := c.version.served(); ok {
		return i
	}
	c.Probe(ctx)
	i, _ := c.version.served()
	return i
}

// released is the version of the release at index i, "" when there is
// none or it is not known.
func (c *Client) released(i int, known bool) string {
	if !known || i >= len(c.opts.Releases) {
		return ""
	}
	return c.opts.Releases[i].Version
}

// profilePath is the instance's public profile, readable without a token.
const profilePath = RouteInstanceProfile
