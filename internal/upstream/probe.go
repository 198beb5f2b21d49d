package upstream

import (
	"context"
	"log"
	"strconv"
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
}

// Probe reads the instance's public profile, without any token (but with
// the Cloudflare Access service token, when one is configured).
func (c *Client) Probe(ctx context.Context) Status {
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, probeTimeout))
	defer cancel()
	resp, err := c.doer.Do(ctx, &web.Request{
		Method: "GET",
		URL:    c.endpoint("/api/v1/instance/profile"),
		Header: c.header(""),
	})
	if err != nil {
		log.Printf("health check: upstream: %v", err)
		return Status{Problem: "the Memos instance cannot be reached (see the Worker's logs)"}
	}
	s := Status{Reachable: true, HTTPStatus: resp.Status}
	switch {
	case resp.Status != 200:
		s.Problem = "the Memos instance answered the profile request with HTTP " + strconv.Itoa(resp.Status)
	case !gjson.ValidBytes(resp.Body) || !strings.HasPrefix(resp.Header.Get("content-type"), "application/json"):
		s.Problem = "the upstream answered with something other than Memos' JSON (an Access login page or a tunnel error page?)"
	default:
		s.MemosVersion = gjson.GetBytes(resp.Body, "version").String()
	}
	return s
}
