// Package caller decides whether the Memos token a caller brings belongs to a
// Memos user, before anything of the caller's goes upstream with the
// gateway's own credentials (the Cloudflare Access service token). Memos
// treats a token it does not know as an anonymous visitor, so without this
// check a made-up token would borrow the service token and read what the
// owner hid behind Access.
//
// Memos is asked once per token (GET /api/v1/auth/me); the answer is kept in
// the isolate's memory for a short time, keyed by a BLAKE2b hash of the token
// (never the token), in tables of bounded size. An acceptance is asked about
// again before it runs out, beside the request that finds it old, so that a
// token in steady use never waits for the check. No request waits for
// another's question to Memos: in the Worker, a request's goroutine woken by
// another request's upstream answer could only go on when its own request
// next looked (the driver polls), and would take that request's failure
// (its client gone, say) for its own.
package caller

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
)

// ErrRefused is a token Memos does not accept: unknown, deleted or expired.
var ErrRefused = errors.New("Memos does not accept this token")

// Defaults of Options. DefaultAccepted is short because Memos (v0.30)
// answers reads with a token it no longer knows as it answers an anonymous
// visitor (200 and the public memos), so a deleted token is found out only
// by asking: for up to DefaultAccepted after its deletion, per isolate, it
// still reaches Memos as an anonymous caller. Each token in use costs one
// check per DefaultAccepted per isolate.
const (
	DefaultAccepted    = 5 * time.Second
	DefaultRefresh     = 4 * time.Second
	DefaultRefused     = 5 * time.Second
	DefaultStale       = 5 * time.Minute
	DefaultMaxAccepted = 256
	DefaultMaxRefused  = 1024
)

// Options tune a Verifier; zero fields take the defaults.
type Options struct {
	// Accepted is how long a token Memos accepted is taken as accepted
	// without asking again; revoking a token in Memos takes effect at /mcp
	// within this time (at once when a tool call finds it refused).
	Accepted time.Duration
	// Refresh is the age at which an acceptance is asked about again
	// while it still stands: the first request to find it that old asks
	// Memos beside its own work. At Accepted or above, nothing is asked
	// ahead.
	Refresh time.Duration
	// Refused is how long a refused token is answered without asking again.
	Refused time.Duration
	// Stale is how long after Accepted an accepted answer still stands in
	// when Memos cannot be asked (down, slow, rate-limiting): the token was
	// Memos' own moments ago, and the tool call then explains the outage.
	// A token never accepted is never forwarded on a failure.
	Stale time.Duration
	// MaxAccepted and MaxRefused bound the two tables. Refused tokens have
	// their own table, so that a flood of made-up tokens cannot push out the
	// real ones.
	MaxAccepted, MaxRefused int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Check asks Memos whose token this is. A *memos.Error that is Refused
// means Memos refused the token; any other error means Memos gave no answer
// about it.
type Check func(ctx context.Context, token string) (user string, err error)

// Verifier answers whether a token belongs to a Memos user.
type Verifier struct {
	check Check
	opts  Options

	mu         sync.Mutex
	accepted   map[key]entry
	refused    map[key]entry
	refreshing map[key]bool // acceptances being asked about again
}

// pending is a check that a request started beside its work (Ahead); the
// request's tools wait for its answer rather than ask Memos again.
type pending struct {
	k    key
	done chan struct{} // closed once user and err are set
	user string
	err  error
}

type pendingKey struct{}

// key is the BLAKE2b-256 hash of a token.
type key [blake2b.Size256]byte

type entry struct {
	user string
	at   time.Time // when Memos answered
}

// New returns a Verifier that asks check.
func New(check Check, opts Options) *Verifier {
	opts.Accepted = orDefault(opts.Accepted, DefaultAccepted)
	opts.Refresh = orDefault(opts.Refresh, min(DefaultRefresh, opts.Accepted*4/5))
	opts.Refused = orDefault(opts.Refused, DefaultRefused)
	opts.Stale = orDefault(opts.Stale, DefaultStale)
	opts.MaxAccepted = orDefault(opts.MaxAccepted, DefaultMaxAccepted)
	opts.MaxRefused = orDefault(opts.MaxRefused, DefaultMaxRefused)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Verifier{check: check, opts: opts,
		accepted: map[key]entry{}, refused: map[key]entry{}, refreshing: map[key]bool{}}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Verify returns the resource name of the user token belongs to. The error
// wraps ErrRefused when Memos refused the token; any other error is Memos'
// failure to answer (the caller must then not forward the token).
//
// An acceptance older than Options.Refresh is returned at once, and the
// first request to find it so asks Memos again in a goroutine of its own,
// started with go: ctx must carry the request, and not end when the request
// is answered (the Worker's entry module keeps an upstream request under way
// past its answer: see the bridge). A request with no answer that stands
// asks Memos itself, even while another does the same: it never waits for
// another's question, nor takes its failure.
func (v *Verifier) Verify(ctx context.Context, token string) (string, error) {
	k := key(blake2b.Sum256([]byte(token)))
	if p, ok := ctx.Value(pendingKey{}).(*pending); ok && p.k == k {
		<-p.done // the request's own check, under way beside its work (Ahead)
		return p.user, p.err
	}
	now := v.opts.Now()
	v.mu.Lock()
	if e, ok := v.accepted[k]; ok && now.Sub(e.at) < v.opts.Accepted {
		if now.Sub(e.at) >= v.opts.Refresh && !v.refreshing[k] {
			v.refreshing[k] = true // bounded by the table of acceptances
			go v.ask(context.WithoutCancel(ctx), k, token)
		}
		v.mu.Unlock()
		return e.user, nil
	}
	if e, ok := v.refused[k]; ok && now.Sub(e.at) < v.opts.Refused {
		v.mu.Unlock()
		return "", ErrRefused
	}
	v.mu.Unlock()
	return v.ask(ctx, k, token)
}

// ask asks Memos about the token of k and records the answer.
func (v *Verifier) ask(ctx context.Context, k key, token string) (string, error) {
	user, err := v.check(ctx, token)
	now := v.opts.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.refreshing, k)
	switch {
	case err == nil && user != "":
		delete(v.refused, k)
		v.put(v.accepted, k, entry{user: user, at: now}, v.opts.MaxAccepted, v.opts.Accepted+v.opts.Stale)
		return user, nil
	case err == nil || memos.IsRefused(err):
		delete(v.accepted, k)
		v.put(v.refused, k, entry{at: now}, v.opts.MaxRefused, v.opts.Refused)
		return "", ErrRefused
	}
	if e, ok := v.accepted[k]; ok && now.Sub(e.at) < v.opts.Accepted+v.opts.Stale {
		return e.user, nil
	}
	return "", err
}

// put adds e to table, making room first when it is full: entries older
// than life go, and if none is, an arbitrary one.
func (v *Verifier) put(table map[key]entry, k key, e entry, max int, life time.Duration) {
	if _, ok := table[k]; !ok && len(table) >= max {
		for old, o := range table {
			if e.at.Sub(o.at) >= life {
				delete(table, old)
			}
		}
		for old := range table {
			if len(table) < max {
				break
			}
			delete(table, old)
		}
	}
	table[k] = e
}

// Forget drops the acceptance of token and takes it as refused, as a tool
// call found it: nothing more of the caller's goes to Memos with it until
// Memos is asked again, after Options.Refused.
func (v *Verifier) Forget(token string) {
	k := key(blake2b.Sum256([]byte(token)))
	v.mu.Lock()
	delete(v.accepted, k)
	v.put(v.refused, k, entry{at: v.opts.Now()}, v.opts.MaxRefused, v.opts.Refused)
	v.mu.Unlock()
}
