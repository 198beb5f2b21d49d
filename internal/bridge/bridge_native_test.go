//go:build !js

package bridge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// The native twin hands the handler the same plain request the Worker
// would: absolute URL, lower-case headers, the whole body.
func TestHTTPHandler(t *testing.T) {
	var got *web.Request
	srv := httptest.NewServer(HTTPHandler(web.HandlerFunc(func(_ context.Context, r *web.Request) *web.Response {
		got = r
		return &web.Response{Status: 201, Header: web.Header{"x-answer": "42"}, Body: []byte("made")}
	}), 1024))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/mcp?x=1", strings.NewReader(`{"a":1}`))
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Add("Accept", "application/json")
	req.Header.Add("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("X-Answer") != "42" || string(body) != "made" {
		t.Errorf("response %d %q %q", resp.StatusCode, resp.Header.Get("X-Answer"), body)
	}
	if got.Method != "POST" || got.URL != srv.URL+"/mcp?x=1" || string(got.Body) != `{"a":1}` {
		t.Errorf("request %s %s %s", got.Method, got.URL, got.Body)
	}
	if got.Header.Get("mcp-protocol-version") != "2025-06-18" || got.Header["accept"] != "application/json, text/event-stream" {
		t.Errorf("headers %v", got.Header)
	}
}

// countingBody counts what the handler reads of a request body.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// endless is a request body that never ends: what an attacker may send.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A body over the cap costs the cap at most: it is not read past it, with
// or without a Content-Length, and the handler sees it marked, not copied.
func TestHTTPHandlerBodyCap(t *testing.T) {
	const maxBody = 64 << 10
	var read atomic.Int64
	var got atomic.Value
	h := HTTPHandler(web.HandlerFunc(func(_ context.Context, r *web.Request) *web.Response {
		got.Store(*r)
		return &web.Response{Status: 403, Header: web.Header{}}
	}), maxBody)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = countingBody{r.Body, &read}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name     string
		body     io.Reader
		length   int64 // -1: chunked
		tooLarge bool
		maxRead  int64
	}{
		{name: "at the cap", body: strings.NewReader(strings.Repeat("x", maxBody)), length: maxBody, maxRead: maxBody},
		{name: "declared over the cap", body: io.LimitReader(endless{}, 500<<20), length: 500 << 20, tooLarge: true, maxRead: web.BodyHead},
		{name: "chunked without end", body: io.LimitReader(endless{}, 500<<20), length: -1, tooLarge: true, maxRead: maxBody + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read.Store(0)
			req, _ := http.NewRequest("POST", srv.URL+"/mcp", tc.body)
			req.ContentLength = tc.length
			req.Header.Set("Origin", "https://evil.example.com")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close() // the server may also hang up while the client still sends
			}
			r, ok := got.Load().(web.Request)
			if !ok {
				t.Fatal("the handler was not called")
			}
			if r.BodyTooLarge != tc.tooLarge || tc.tooLarge && len(r.Body) != min(maxBody, web.BodyHead) || !tc.tooLarge && len(r.Body) != maxBody {
				t.Errorf("handler got BodyTooLarge %v and %d body bytes", r.BodyTooLarge, len(r.Body))
			}
			if n := read.Load(); n > tc.maxRead {
				t.Errorf("read %d bytes of the body, want at most %d", n, tc.maxRead)
			}
		})
	}
}

func TestFetcher(t *testing.T) {
	var sawAuth string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "https://elsewhere.example.com/", http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 101)))
		case "/slow": // headers at once, the body never
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			sawAuth = r.Header.Get("Authorization")
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}
	}))
	defer upstream.Close()
	f := Fetcher{MaxBytes: 100}
	ctx := context.Background()

	resp, err := f.Do(ctx, &web.Request{Method: "POST", URL: upstream.URL + "/echo", Header: web.Header{"authorization": "Bearer t"}, Body: []byte(`{"k":"v"}`)})
	if err != nil || resp.Status != 200 || string(resp.Body) != `{"k":"v"}` || resp.Header.Get("Content-Type") != "application/json" || sawAuth != "Bearer t" {
		t.Errorf("echo: %v %+v auth=%q", err, resp, sawAuth)
	}
	resp, err = f.Do(ctx, &web.Request{Method: "GET", URL: upstream.URL + "/redirect", Header: web.Header{}})
	if err != nil || resp.Status != 302 || resp.Header.Get("location") != "https://elsewhere.example.com/" {
		t.Errorf("redirect was followed or lost: %v %+v", err, resp)
	}
	if _, err = f.Do(ctx, &web.Request{Method: "GET", URL: upstream.URL + "/big", Header: web.Header{}}); !errors.Is(err, web.ErrResponseTooLarge) {
		t.Errorf("oversized body: %v, want ErrResponseTooLarge", err)
	}
	if _, err = f.Do(ctx, &web.Request{Method: "GET", URL: upstream.URL + "/slow", Timeout: 50 * time.Millisecond}); !errors.Is(err, web.ErrTimeout) {
		t.Errorf("a body that never ends: %v, want ErrTimeout", err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err = f.Do(gone, &web.Request{Method: "GET", URL: upstream.URL + "/slow", Timeout: time.Minute}); err == nil || errors.Is(err, web.ErrTimeout) {
		t.Errorf("a cancelled request: %v, want the cancellation, not a timeout", err)
	}
	if _, err = (Fetcher{Binding: "MEMOS"}).Do(ctx, &web.Request{Method: "GET", URL: upstream.URL}); err == nil {
		t.Error("a service binding natively should fail")
	}
}
