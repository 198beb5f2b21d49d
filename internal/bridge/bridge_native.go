//go:build !js

package bridge

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// DefaultAddr is where Serve listens when LISTEN_ADDR is unset.
const DefaultAddr = "127.0.0.1:8790"

// Getenv returns the environment variable called name.
func Getenv(name string) string { return os.Getenv(name) }

// HasBinding reports false: service bindings exist only in the Worker.
func HasBinding(string) bool { return false }

// HasObjects reports false: Durable Objects exist only in the Worker.
func HasObjects(string) bool { return false }

// Native is true: the gateway runs as a process of its own, which can keep
// state in memory.
const Native = true

// LogWriter returns where log lines go: standard output.
func LogWriter() io.Writer { return os.Stdout }

// StartupMillis is 0 natively: there is no entry module measuring the start.
func StartupMillis() float64 { return 0 }

// WasmMemoryBytes is 0 natively: there is no linear memory.
func WasmMemoryBytes() int64 { return 0 }

// loopbackHosts are the host names a loopback listener answers to.
var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// DefaultHosts returns the host names to serve when ALLOWED_HOSTS is unset:
// on a loopback listener only loopback names, so that a DNS-rebinding page
// cannot reach it; otherwise every host.
func DefaultHosts() []string {
	host, _, err := net.SplitHostPort(cmp.Or(os.Getenv("LISTEN_ADDR"), DefaultAddr))
	if err != nil {
		return nil
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return loopbackHosts
	}
	return nil
}

// Serve answers HTTP on LISTEN_ADDR (default DefaultAddr) with h, reading
// at most maxBody bytes of a request body.
func Serve(h web.Handler, maxBody int) error {
	addr := cmp.Or(os.Getenv("LISTEN_ADDR"), DefaultAddr)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("serving on http://%s", ln.Addr())
	srv := &http.Server{Handler: HTTPHandler(h, maxBody), ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// HTTPHandler adapts h to net/http, for Serve and for tests. A body is read
// only up to maxBody bytes, before any check: past that the request reaches
// h marked BodyTooLarge, with the body's first web.BodyHead bytes at most,
// and the connection is not reused.
func HTTPHandler(h web.Handler, maxBody int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := &web.Request{Method: r.Method, URL: "http://" + r.Host + r.URL.RequestURI(), Header: fromHTTP(r.Header)}
		if r.ContentLength > int64(maxBody) {
			// Its head only, for the id of the request it carries.
			req.Body, _ = io.ReadAll(io.LimitReader(r.Body, web.BodyHead))
			req.BodyTooLarge = true
		} else {
			var err error
			req.Body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, int64(maxBody)))
			_, tooLarge := errors.AsType[*http.MaxBytesError](err)
			switch {
			case tooLarge:
				req.Body, req.BodyTooLarge = req.Body[:min(len(req.Body), web.BodyHead)], true
			case err != nil:
				http.Error(w, "cannot read request body", http.StatusBadRequest)
				return
			}
		}
		if req.BodyTooLarge {
			w.Header().Set("connection", "close") // the rest of the body is never read
		}
		resp := h.Serve(r.Context(), req)
		for k, v := range resp.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.Status)
		w.Write(resp.Body)
	})
}

// Fetcher sends upstream requests with net/http.
type Fetcher struct {
	Binding  string // must be empty: bindings exist only in the Worker
	MaxBytes int    // response bodies over this size fail with web.ErrResponseTooLarge
}

var _ web.Doer = Fetcher{}

var client = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Do sends req and reads the whole response body, within req.Timeout.
// Redirects are returned, never followed.
func (f Fetcher) Do(ctx context.Context, req *web.Request) (*web.Response, error) {
	if f.Binding != "" {
		return nil, fmt.Errorf("service binding %q: bindings exist only in the Worker", f.Binding)
	}
	callCtx := ctx
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	timedOut := func(err error) error {
		if ctx.Err() == nil && callCtx.Err() != nil {
			return fmt.Errorf("%w (%v)", web.ErrTimeout, err)
		}
		return err
	}
	hreq, err := http.NewRequestWithContext(callCtx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return nil, err
	}
	for k, v := range req.Header {
		hreq.Header.Set(k, v)
	}
	hresp, err := client.Do(hreq)
	if err != nil {
		return nil, timedOut(err)
	}
	defer hresp.Body.Close()
	var r io.Reader = hresp.Body
	if f.MaxBytes > 0 {
		r = io.LimitReader(hresp.Body, int64(f.MaxBytes)+1)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, timedOut(err)
	}
	if f.MaxBytes > 0 && len(body) > f.MaxBytes {
		return nil, web.ErrResponseTooLarge
	}
	return &web.Response{Status: hresp.StatusCode, Header: fromHTTP(hresp.Header), Body: body}, nil
}

func fromHTTP(h http.Header) web.Header {
	out := make(web.Header, len(h))
	for k, vs := range h {
		out[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return out
}
