package lease

import (
	"context"
	"errors"
	"sync"
	"time"
)

// MaxMemoryKeys bounds the keys a Memory holds or has waiters for at once;
// a Lock on one more key is answered ErrBusy. MaxMemoryNoted bounds the keys
// it keeps notes for: past it, the key whose newest note is oldest goes.
const (
	MaxMemoryKeys  = 256
	MaxMemoryNoted = 4096
)

// Memory is the Locker of one process: the native gateway's, and the unit
// tests'. Waiters wait on channels, in turn, and a lease lapses on a timer
// whether or not it is released. The zero Memory is ready to use.
type Memory struct {
	mu     sync.Mutex
	keys   map[string]*key
	active int // keys with a holder or waiters
	now    func() time.Time
}

// key is one key's lock and notes.
type key struct {
	held    *turn   // nil when free
	waiters []*turn // in the order they came
	notes   []note  // oldest first
}

// turn is one Lock call: waiting, then holding.
type turn struct {
	ctx     context.Context // Lock's: the lease's parent
	granted chan struct{}   // closed when the turn comes
	lease   *Lease
	hold    time.Duration
	timer   *time.Timer // lapses the lease
}

type note struct {
	digest, text string
	at           time.Time
}

func (m *Memory) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// Lock implements Locker.
func (m *Memory) Lock(ctx context.Context, name string, hold time.Duration) (*Lease, error) {
	if err := checkKey(name, hold); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Join(ErrBusy, context.Cause(ctx))
	}
	hold = min(hold, MaxHold)
	m.mu.Lock()
	k, err := m.enter(name)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	t := &turn{ctx: ctx, granted: make(chan struct{}), hold: hold}
	if k.held == nil {
		m.grant(name, k, t)
		m.mu.Unlock()
		return t.lease, nil
	}
	k.waiters = append(k.waiters, t)
	m.mu.Unlock()
	wait, stop := context.WithTimeout(ctx, MaxWait)
	defer stop()
	select {
	case <-t.granted:
		return t.lease, nil
	case <-wait.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-t.granted: // granted as the wait ended: hand it on
		m.handOn(name, k, t)
	default:
		k.waiters = deleteTurn(k.waiters, t)
		m.leave(name, k)
	}
	return nil, errors.Join(ErrBusy, context.Cause(wait))
}

// enter returns the key name's entry, made if need be, when it may take one
// more turn: the key has room for a waiter and the Memory for a key.
func (m *Memory) enter(name string) (*key, error) {
	if m.keys == nil {
		m.keys = map[string]*key{}
	}
	k := m.keys[name]
	switch {
	case k != nil && len(k.waiters) >= MaxWaiters:
		return nil, errors.Join(ErrBusy, errors.New("too many writes wait for this memo"))
	case (k == nil || k.held == nil) && m.active >= MaxMemoryKeys:
		return nil, errors.Join(ErrBusy, errors.New("too many memos are being written at once"))
	case k == nil:
		if len(m.keys) >= MaxMemoryNoted {
			m.forgetOne()
		}
		k = &key{}
		m.keys[name] = k
	}
	if k.held == nil {
		m.active++
	}
	return k, nil
}

// grant gives key name's turn to t, with the notes of the last
// RecentWindow, and starts the timer that lapses it.
func (m *Memory) grant(name string, k *key, t *turn) {
	now := m.clock()
	k.notes = recentNotes(k.notes, now)
	notes := make(map[string]string, len(k.notes))
	for _, n := range k.notes {
		notes[n.digest] = n.text
	}
	k.held = t
	t.lease = newLease(t.ctx, time.Now().Add(t.hold), notes, func(digest, text string) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if k.held != t { // lapsed meanwhile
			return
		}
		t.timer.Stop()
		if digest != "" {
			k.notes = keepNote(k.notes, note{digest: digest, text: text, at: m.clock()})
		}
		m.handOn(name, k, t)
	})
	t.timer = time.AfterFunc(t.hold, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if k.held == t {
			m.handOn(name, k, t)
		}
	})
	close(t.granted)
}

// handOn ends t's turn on key name and gives the turn to the first waiter.
func (m *Memory) handOn(name string, k *key, t *turn) {
	t.timer.Stop()
	t.lease.cancel()
	k.held = nil
	if len(k.waiters) > 0 {
		next := k.waiters[0]
		k.waiters = k.waiters[1:]
		m.grant(name, k, next)
		return
	}
	m.leave(name, k)
}

// leave counts key name as no longer active when nothing holds or waits
// for it, and forgets it when it keeps no note either.
func (m *Memory) leave(name string, k *key) {
	if k.held != nil || len(k.waiters) > 0 {
		return
	}
	m.active--
	if len(k.notes) == 0 {
		delete(m.keys, name)
	}
}

// deleteTurn returns turns without t.
func deleteTurn(turns []*turn, t *turn) []*turn {
	for i, w := range turns {
		if w == t {
			return append(turns[:i], turns[i+1:]...)
		}
	}
	return turns
}

// recentNotes returns notes without those older than RecentWindow.
func recentNotes(notes []note, now time.Time) []note {
	i := 0
	for i < len(notes) && !notes[i].at.Add(RecentWindow).After(now) {
		i++
	}
	return notes[i:]
}

// keepNote adds n to notes, in place of an earlier note of its digest, and
// drops the oldest past MaxNotes.
func keepNote(notes []note, n note) []note {
	for i, old := range notes {
		if old.digest == n.digest {
			notes = append(notes[:i], notes[i+1:]...)
			break
		}
	}
	notes = append(notes, n)
	if len(notes) > MaxNotes {
		notes = notes[len(notes)-MaxNotes:]
	}
	return notes
}

// forgetOne makes room for a key: it forgets the idle key whose newest
// note is oldest. Keys that are held or waited for are never forgotten.
func (m *Memory) forgetOne() {
	var oldest string
	var at time.Time
	for name, k := range m.keys {
		if k.held != nil || len(k.notes) == 0 {
			continue
		}
		if newest := k.notes[len(k.notes)-1].at; oldest == "" || newest.Before(at) {
			oldest, at = name, newest
		}
	}
	if oldest != "" {
		delete(m.keys, oldest)
	}
}
