// Package web defines the plain HTTP messages that pass between the runtime
// (the Workers bridge or a native server) and the gateway's handler, and
// between the gateway and its upstream. It exists so that the wasm build never
// links net/http: each side converts to and from these structs once.
package web

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header holds HTTP header fields keyed by lower-case name. Repeated fields
// are joined with ", ", as the Fetch API's Headers.get does.
type Header map[string]string

// RetryAfter formats a wait as the delta-seconds of a Retry-After field:
// whole seconds, rounded up, at least 1.
func RetryAfter(d time.Duration) string {
	return strconv.FormatInt(max(int64((d+time.Second-1)/time.Second), 1), 10)
}

// Credentials splits an Authorization field into its scheme and its
// credentials, both trimmed: a scheme alone ("Bearer ", as clients send
// with an empty token setting) has credentials "".
func Credentials(authorization string) (scheme, credentials string) {
	scheme, credentials, _ = strings.Cut(strings.TrimSpace(authorization), " ")
	return scheme, strings.TrimSpace(credentials)
}

// BearerToken returns the token of an Authorization field of the Bearer
// scheme (any case); ok is false for another scheme, no token, or more than
// one token (RFC 6750's b64token holds no space or comma).
func BearerToken(authorization string) (token string, ok bool) {
	scheme, token := Credentials(authorization)
	return token, strings.EqualFold(scheme, "bearer") && token != "" && !strings.ContainsAny(token, " ,\t")
}

// Get returns the value of the named field, case-insensitively.
func (h Header) Get(name string) string { return h[strings.ToLower(name)] }

// Set replaces the named field.
func (h Header) Set(name, value string) { h[strings.ToLower(name)] = value }

// Add appends a value to the named field.
func (h Header) Add(name, value string) {
	name = strings.ToLower(name)
	if old, ok := h[name]; ok && old != "" {
		value = old + ", " + value
	}
	h[name] = value
}

// BodyHead is how much of a body over the cap the runtime passes on.
const BodyHead = 1024

// Request is an HTTP request: inbound to the handler, or outbound upstream.
type Request struct {
	Method string
	URL    string // absolute: scheme, host, path and query
	Header Header
	Body   []byte
	// BodyTooLarge is set on an inbound request whose body the runtime
	// stopped reading at the body cap; Body then holds at most the first
	// BodyHead bytes of it (for the id of the request it carries), or none.
	BodyTooLarge bool
	// Timeout bounds an outbound request, its whole body included; 0 leaves
	// it to the context. The Doer enforces it (the Workers bridge with the
	// runtime's abort timeout), so the caller needs no timer of its own.
	Timeout time.Duration
}

// Host returns the lower-case host[:port] of the request's URL.
func (r *Request) Host() string {
	_, rest, ok := strings.Cut(r.URL, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// Path returns the path of the request's URL, without query or fragment.
func (r *Request) Path() string {
	rest := r.URL
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[j:]
		} else {
			rest = "/"
		}
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// Response is an HTTP response.
type Response struct {
	Status int
	Header Header
	Body   []byte
}

// Handler answers one inbound request. Implementations must be safe for
// concurrent use: one Go instance serves every request of an isolate.
type Handler interface {
	Serve(ctx context.Context, req *Request) *Response
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) *Response

// Serve calls f.
func (f HandlerFunc) Serve(ctx context.Context, req *Request) *Response { return f(ctx, req) }

// Doer sends one outbound request. The Workers bridge implements it with the
// runtime's fetch, the native one with net/http; neither follows redirects.
type Doer interface {
	Do(ctx context.Context, req *Request) (*Response, error)
}

// ErrResponseTooLarge is returned by a Doer when a response body is over its cap.
var ErrResponseTooLarge = errors.New("response body too large")

// ErrTimeout is returned by a Doer when the request's Timeout passed before
// the whole answer arrived.
var ErrTimeout = errors.New("no answer within the request's timeout")
