// Package lease grants one lock per memo to the writes that touch it, so
// that no two writes of the same memo interleave a read and a write, in one
// isolate or across many. A lock is a lease: it lapses after the time its
// holder asked for, so that one held by an isolate that died frees itself.
// Waiters are answered in turn, never by polling.
//
// In the Worker the lock of a key lives in a Durable Object named after the
// key (lock.mjs, reached through Remote); natively it lives in memory
// (Memory), which is what `go run .` and the unit tests use. Beside the
// lock, each key keeps a few short notes of the calls that held it lately,
// under a digest of each call, so that a call made again can be recognised.
// Neither holds a memo's text or a token: only keys (memo names), digests
// and the short notes its callers store.
package lease

import (
	"context"
	"errors"
	"sync"
	"time"
	"unicode/utf8"
)

// Locker grants leases on keys (a memo's name); at most one lease per key is
// held at a time.
type Locker interface {
	// Lock waits, no longer than ctx allows (and at most MaxWait), for key's
	// turn and holds it for at most hold. The lease's Context ends when hold
	// has passed (or parent ctx ends), so nothing is sent after the lease
	// lapsed. Errors: ErrBusy when the turn did not come in time,
	// ErrUnavailable when the lock cannot be reached; both mean nothing was
	// done under it.
	Lock(ctx context.Context, key string, hold time.Duration) (*Lease, error)
}

// The bounds of a lock. Each one caps what a caller can make a lock cost.
const (
	// MaxWait is the longest Lock waits for a turn.
	MaxWait = 15 * time.Second
	// MaxHold is the longest a lease is held: a longer hold is cut to it.
	MaxHold = time.Minute
	// RecentWindow is how long a note stored by Release is handed to the
	// next leases of its key.
	RecentWindow = 10 * time.Minute
	// MaxNotes is how many notes a key keeps; the oldest goes first.
	MaxNotes = 32
	// MaxNoteBytes and MaxDigestBytes bound a note and its digest; Release
	// stores neither when one is longer.
	MaxNoteBytes   = 256
	MaxDigestBytes = 64
	// MaxKeyBytes bounds a key: a memo's name is far shorter.
	MaxKeyBytes = 128
	// MaxWaiters is how many calls may wait for one key's turn; the next
	// one is answered ErrBusy at once.
	MaxWaiters = 64
)

var (
	// ErrBusy is a turn that did not come in time: another write of the
	// same memo held the lock all along. Nothing was done.
	ErrBusy = errors.New("another write of the same memo is under way; nothing was written: try again in a moment")
	// ErrUnavailable is a lock that could not be reached or answered
	// something unreadable. Nothing was done.
	ErrUnavailable = errors.New("the memo's lock could not be reached; nothing was written")
)

// Refusing is the Locker of a gateway that has no lock to offer: every Lock
// fails with ErrUnavailable and Err, which says what is missing.
type Refusing struct{ Err error }

func (r Refusing) Lock(context.Context, string, time.Duration) (*Lease, error) {
	return nil, errors.Join(ErrUnavailable, r.Err)
}

// A Lease is one turn on a key, from Lock until Release or until its hold
// has passed, whichever comes first.
type Lease struct {
	ctx    context.Context
	cancel context.CancelFunc
	notes  map[string]string
	// end is what Release does besides ending ctx: hand the turn on, and
	// store the note when digest is not "".
	end  func(digest, note string)
	once sync.Once
}

// Context ends when the lease lapses or the parent context of Lock ends:
// work done under the lease is done with it, so that nothing is sent once
// another write may hold the key.
func (l *Lease) Context() context.Context { return l.ctx }

// Recent returns the note an earlier lease of the same key stored under
// digest with its Release, within the last RecentWindow. The notes came
// with the grant: Recent asks nothing of the lock.
func (l *Lease) Recent(digest string) (string, bool) {
	note, ok := l.notes[digest]
	return note, ok
}

// Release ends the lease and hands the key's turn on. When digest is not
// "", it stores note under it for the key's next leases (Recent), unless
// either is longer than its bound (MaxDigestBytes, MaxNoteBytes) or not
// UTF-8. A lease that has lapsed stores nothing: another write may hold the
// key already. Release may be called more than once; the later calls do
// nothing. It waits at most a few seconds for the lock's answer.
func (l *Lease) Release(digest, note string) {
	l.once.Do(func() {
		if !storable(digest, note) {
			digest, note = "", ""
		}
		lapsed := l.ctx.Err() != nil && context.Cause(l.ctx) == errLapsed
		l.cancel()
		if !lapsed {
			l.end(digest, note)
		}
	})
}

// errLapsed ends a lease's Context when its hold has passed.
var errLapsed = errors.New("the memo's lock lapsed: its hold has passed")

// storable reports whether digest and note may be stored.
func storable(digest, note string) bool {
	return digest != "" && len(digest) <= MaxDigestBytes && len(note) <= MaxNoteBytes &&
		utf8.ValidString(digest) && utf8.ValidString(note)
}

// newLease returns a lease whose Context ends at deadline, or with parent.
func newLease(parent context.Context, deadline time.Time, notes map[string]string, end func(digest, note string)) *Lease {
	ctx, cancel := context.WithDeadlineCause(parent, deadline, errLapsed)
	return &Lease{ctx: ctx, cancel: cancel, notes: notes, end: end}
}

// checkKey refuses a key Lock does not take.
func checkKey(key string, hold time.Duration) error {
	switch {
	case key == "" || len(key) > MaxKeyBytes:
		return errors.Join(ErrUnavailable, errors.New("a lock's key is empty or longer than 128 bytes"))
	case hold <= 0:
		return errors.Join(ErrUnavailable, errors.New("a lease's hold must be positive"))
	}
	return nil
}
