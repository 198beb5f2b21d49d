package upstream

import (
	"context"
	"log"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// probeTimeout bounds the health check's upstream request.
const probeTimeout = 5 * time.Second

// Status is what the health check learnt of the instance.
type Status struct {
	Reachable    bool
	HTTPStatus   int
	MemosVersion string // as the instance reports it ("dev" for source builds)
	Problem      string // what is wrong, for the operator; empty when healthy
	Warning      string // a version mismatch with the registry; empty when none
}

// Probe reads the instance's public profile, without any token (but with
// the Cloudflare Access service token, when one is configured). A problem is
// explained as a tool call would explain it, naming the setting to fix.
func (c *Client) Probe(ctx context.Context) Status {
	probeCtx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, probeTimeout))
	defer cancel()
	resp, err := c.doer.Do(probeCtx, &web.Request{
		Method: "GET",
		URL:    c.endpoint(profilePath),
		Header: c.header(""),
	})
	if err != nil {
		log.Printf("health check: GET %s: %v", profilePath, err)
		return Status{Problem: c.failure(ctx, probeCtx, err)}
	}
	s := Status{Reachable: true, HTTPStatus: resp.Status}
	var detail string
	switch {
	case resp.Status != 200:
		s.Problem, detail = c.refusal(resp)
	case !gjson.ValidBytes(resp.Body) || !strings.HasPrefix(resp.Header.Get("content-type"), "application/json"):
		s.Problem, detail = c.notJSON(resp)
	default:
		s.MemosVersion = gjson.GetBytes(resp.Body, "version").String()
		s.Warning = VersionWarning(s.MemosVersion)
		c.version.note(s.MemosVersion)
	}
	if detail != "" {
		log.Printf("health check: GET %s: HTTP %d: %s", profilePath, resp.Status, detail)
	}
	return s
}

// profilePath is the instance's public profile, readable without a token.
const profilePath = "/api/v1/instance/profile"
