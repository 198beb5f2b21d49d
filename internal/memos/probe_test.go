package memos

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The health check explains a bad upstream as a tool call would, naming the
// setting to fix.
func TestProbeProblems(t *testing.T) {
	html := web.Header{"content-type": "text/html; charset=utf-8"}
	for _, tc := range []struct {
		name      string
		resp      *web.Response
		err       error
		reachable bool
		want      string
	}{
		{name: "Access login page", resp: &web.Response{Status: 200, Header: html, Body: []byte("<!doctype html><title>Sign in ・ Cloudflare Access</title>")}, reachable: true,
			want: "Cloudflare Access answered instead of Memos: create a service token, allow it with a Service Auth policy, and set the Worker secrets CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET"},
		{name: "some other HTML page", resp: &web.Response{Status: 200, Header: html, Body: []byte("<html>It works!</html>")}, reachable: true,
			want: "check that MEMOS_URL is the base URL of the Memos instance"},
		{name: "Access refusal", resp: &web.Response{Status: 403, Header: html, Body: []byte("<html>Forbidden</html>")}, reachable: true,
			want: "403 Forbidden: Cloudflare Access answered instead of Memos"},
		{name: "tunnel down", resp: &web.Response{Status: 530, Header: html, Body: []byte("<html>error 1033</html>")}, reachable: true,
			want: "check that cloudflared is running"},
		{name: "not Memos", resp: &web.Response{Status: 404, Header: web.Header{"content-type": "text/plain"}, Body: []byte("404 page not found")}, reachable: true,
			want: "404 Not Found: the upstream answered with something other than Memos' JSON"},
		{name: "a path under the instance", resp: &web.Response{Status: 404, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":5,"message":"Not Found"}`)}, reachable: true,
			want: "404 Not Found: Not Found: the instance's public profile is not at MEMOS_URL/api/v1/instance/profile: set MEMOS_URL to the instance's base URL, without /api/v1 or another path under it"},
		{name: "unreachable", err: errors.New("fetch: TypeError: Network connection lost."),
			want: "the Memos instance cannot be reached: check that it is up and that MEMOS_URL (or MEMOS_SERVICE) points at it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(testOptions(), &fakeDoer{resp: tc.resp, err: tc.err}).Probe(t.Context())
			if s.Reachable != tc.reachable || !strings.Contains(s.Problem, tc.want) || s.MemosVersion != "" {
				t.Errorf("status %+v, want reachable=%t and a problem containing %q", s, tc.reachable, tc.want)
			}
		})
	}
}

// An instance on a Memos release the tools were not built for is a problem
// (some tools answer 404); one that does not say which release it runs is
// not. Each is served a release: its own, else the one whose marker route
// it has, else the pinned one.
func TestProbeReleases(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		marker        int // the status of the v0.31 marker route, 0 when it must not be asked
		served        string
		problem       string
	}{
		{"the pinned release", "0.30.0", 0, "v0.30.0", ""},
		{"the pinned release with v", "v0.30.0", 0, "v0.30.0", ""},
		{"the next release", "0.31.0", 0, "v0.31.0", ""},
		{"a patch of the next", "0.31.1", 0, "v0.31.0", ""},
		{"a source build of v0.30", "dev", 404, "v0.30.0", ""},
		{"a source build of v0.31", "dev", 401, "v0.31.0", ""},
		{"no version", "", 404, "v0.30.0", ""},
		{"a release the build lacks", "0.32.0", 401, "v0.31.0", "the instance runs Memos 0.32.0 but the tools were built for 0.30.0 and 0.31.0: switch the Worker to that release with make release"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doer := &routeDoer{profile: `{"version":"` + tc.version + `"}`, marker: tc.marker}
			c := New(testOptions(), doer)
			s := c.Probe(t.Context())
			if !s.Reachable || s.MemosVersion != tc.version || s.Release != tc.served || !strings.HasPrefix(s.Problem, tc.problem) || (tc.problem == "") != (s.Problem == "") {
				t.Errorf("status %+v, want release %s and a problem starting %q", s, tc.served, tc.problem)
			}
			if doer.markers != min(tc.marker, 1) {
				t.Errorf("the marker route was asked %d times", doer.markers)
			}
			if got := testReleases[c.Release(t.Context())].Version; got != tc.served {
				t.Errorf("Release = %s, want %s", got, tc.served)
			}
		})
	}
}

// Once learnt, the release is answered without a request; never learnt, it
// is learnt with one probe.
func TestReleaseLearntOnce(t *testing.T) {
	doer := &routeDoer{profile: `{"version":"0.31.0"}`}
	c := New(testOptions(), doer)
	for range 5 {
		if i := c.Release(t.Context()); i != 1 {
			t.Fatalf("Release = %d", i)
		}
	}
	if doer.profiles != 1 {
		t.Errorf("%d probes for 5 calls, want 1", doer.profiles)
	}
}

// routeDoer answers the profile with profile, and the v0.31 marker route
// with the status marker (404 when 0), counting both.
type routeDoer struct {
	profile           string
	marker            int
	profiles, markers int
}

func (d *routeDoer) Do(_ context.Context, r *web.Request) (*web.Response, error) {
	if strings.HasSuffix(r.URL, profilePath) {
		d.profiles++
		return &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(d.profile)}, nil
	}
	d.markers++
	return &web.Response{Status: cmp.Or(d.marker, 404), Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"code":5}`)}, nil
}

// /healthz probes the instance at most once per healthTTL, however often it
// is asked: it answers anyone who reaches the gateway.
func TestHealthIsCached(t *testing.T) {
	doer := &fakeDoer{resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"version":"0.30.0"}`)}}
	c := New(testOptions(), doer)
	for range 50 {
		if s := c.Health(t.Context()); s.Problem != "" || s.MemosVersion != "0.30.0" {
			t.Fatalf("status %+v", s)
		}
	}
	if n := len(doer.requests()); n != 1 {
		t.Errorf("%d probes for 50 health checks, want 1", n)
	}
	c.health.at = time.Now().Add(-healthTTL) // as if healthTTL had passed
	c.Health(t.Context())
	if n := len(doer.requests()); n != 2 {
		t.Errorf("%d probes after the cache expired, want 2", n)
	}
}

// While a probe is under way, /healthz answers with the last probe's
// findings at once, not after that probe: no request waits for another's
// upstream request.
func TestHealthWaitsForNoOtherProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		doer := &gatedDoer{gate: make(chan struct{}), resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"version":"0.30.0"}`)}}
		c := New(testOptions(), doer)
		close(doer.gate)
		c.Health(t.Context())
		doer.gate = make(chan struct{})
		c.health.at = time.Now().Add(-healthTTL) // as if healthTTL had passed
		go c.Health(t.Context())                 // probes, and waits for Memos
		synctest.Wait()
		if !c.health.mu.TryLock() {
			close(doer.gate)
			t.Fatal("the health cache is locked while a probe waits for Memos")
		}
		c.health.mu.Unlock()
		if s := c.Health(t.Context()); s.MemosVersion != "0.30.0" {
			t.Errorf("status while a probe is under way: %+v", s)
		}
		close(doer.gate)
		if n := doer.asked.Load(); n != 2 {
			t.Errorf("%d probes, want 2", n)
		}
	})
}

// gatedDoer answers every request with resp once gate is closed.
type gatedDoer struct {
	gate  chan struct{}
	resp  *web.Response
	asked atomic.Int64
}

func (d *gatedDoer) Do(ctx context.Context, _ *web.Request) (*web.Response, error) {
	d.asked.Add(1)
	<-d.gate
	return d.resp, nil
}

// The health check, and the release check of a source build, pass
// Cloudflare Access too, and send no token.
func TestProbeHeaders(t *testing.T) {
	opts := testOptions()
	opts.AccessClientID, opts.AccessClientSecret = "id.access", "shh"
	doer := &fakeDoer{resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"version":"dev"}`)}}
	if s := New(opts, doer).Probe(t.Context()); s.Problem != "" || s.MemosVersion != "dev" {
		t.Errorf("status %+v", s)
	}
	reqs := doer.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the profile and the marker route", len(reqs))
	}
	for _, r := range reqs {
		h := r.Header
		if h["cf-access-client-id"] != "id.access" || h["cf-access-client-secret"] != "shh" || h["authorization"] != "" {
			t.Errorf("%s: headers %v", r.URL, h)
		}
	}
}

// Every request to Memos carries its timeout for the Doer to enforce: a
// caller's request and an account call UPSTREAM_TIMEOUT_MS, a probe at most
// probeTimeout.
func TestRequestsCarryTimeout(t *testing.T) {
	opts := testOptions()
	for _, timeout := range []time.Duration{20 * time.Millisecond, time.Minute} {
		opts.Timeout = timeout
		doer := &fakeDoer{resp: &web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"user":{"name":"users/1"},"version":"0.30.0"}`)}}
		c := New(opts, doer)
		if _, err := c.As("Bearer t").Get(t.Context(), "/api/v1/memos/{memo}", "/api/v1/memos/a"); err != nil {
			t.Fatal(err)
		}
		c.Probe(t.Context())
		if _, err := c.CurrentUser(t.Context(), "token"); err != nil {
			t.Fatal(err)
		}
		reqs := doer.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want a caller's read, a probe and an account call", len(reqs))
		}
		for _, r := range reqs {
			want := timeout
			if strings.HasSuffix(r.URL, profilePath) {
				want = min(timeout, probeTimeout)
			}
			if r.Timeout != want {
				t.Errorf("%s %s: timeout %v, want %v", r.Method, r.URL, r.Timeout, want)
			}
		}
	}
}
