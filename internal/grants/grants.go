// Package grants remembers what the authorization server cannot seal: the
// generation of each grant (so that a code or a refresh token works once,
// everywhere, and a replay ends the grant), whether a grant has ended, and
// how many sign-in attempts a key has made lately. Each key is one small
// counter. In the Worker the counters live in a SQLite-backed Durable Object
// per key (store.mjs, reached through Remote); natively they live in memory
// (Memory), which is what `go run .` and the unit tests use.
//
// The package holds no token and no password: keys name grants by a random
// id and sign-in budgets by a username or a client address.
package grants

import (
	"context"
	"errors"
	"time"
)

// Ended is the generation of a grant that has ended: revoked, replayed or
// refused by Memos. An ended grant never advances again.
const Ended = -1

// Step is the outcome of an Advance.
type Step struct {
	// Moved is whether the key moved from the value asked for to the next.
	Moved bool
	// Value is the key's value now.
	Value int64
	// Age is how long the key has held Value: zero when it just moved, and
	// for a key that never moved. It lets a caller tell a step taken moments
	// ago (a retry of it, whose answer was lost) from an old one.
	Age time.Duration
}

// ErrUnavailable is any failure to reach the store or to read its answer.
// Callers fail closed on it: nothing is issued or accepted on a guess.
var ErrUnavailable = errors.New("the grant store could not be reached")

// A key's value starts at 0. Advance(key, from) moves it to from+1 when it
// is from, and otherwise leaves it, reporting what it found (Step); End sets
// it to Ended for good. until is when the key may be forgotten: by then
// every sealed record naming it has expired, so a forgotten key cannot be
// replayed back to life. A forgotten key reads as 0 again, and the store
// keeps answering for it.
//
// Hit counts one attempt under key and reports, when the key has already
// had limit attempts within window, how long until the oldest of them
// leaves it (the attempt is then not counted, and nothing is written). A
// key that has had no attempt is not stored until it has one.
type Store interface {
	Advance(ctx context.Context, key string, from int64, until time.Time) (Step, error)
	End(ctx context.Context, key string, until time.Time) error
	Get(ctx context.Context, key string) (int64, error)
	Hit(ctx context.Context, key string, limit int, window time.Duration) (retryAfter time.Duration, err error)
}
