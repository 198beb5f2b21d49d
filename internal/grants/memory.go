package grants

import (
	"context"
	"sync"
	"time"
)

// MaxMemoryKeys bounds a Memory's keys. Past it, forgotten keys go first,
// then the attempts of sign-in budgets; grant generations are kept, so that
// a busy native gateway refuses new work rather than forget a spent code.
const MaxMemoryKeys = 100_000

// Memory keeps the counters in this process, for the native gateway.
type Memory struct {
	mu   sync.Mutex
	keys map[string]*counter
	now  func() time.Time
}

type counter struct {
	value int64
	at    time.Time // when value was set
	until time.Time
	hits  []time.Time // oldest first
}

// NewMemory returns an empty Memory on the clock now (nil means time.Now).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{keys: map[string]*counter{}, now: now}
}

// get returns key's counter, made when create is set and there is room.
func (m *Memory) get(key string, create bool) *counter {
	now := m.now()
	c := m.keys[key]
	if c != nil && !c.until.IsZero() && !c.until.After(now) {
		delete(m.keys, key)
		c = nil
	}
	if c == nil && create {
		if len(m.keys) >= MaxMemoryKeys {
			m.evict(now)
		}
		if len(m.keys) >= MaxMemoryKeys {
			return nil
		}
		c = &counter{}
		m.keys[key] = c
	}
	return c
}

// evict forgets expired keys, then keys that only count attempts.
func (m *Memory) evict(now time.Time) {
	for k, c := range m.keys {
		if c.value == 0 || !c.until.IsZero() && !c.until.After(now) {
			delete(m.keys, k)
		}
	}
}

func (m *Memory) Advance(_ context.Context, key string, from int64, until time.Time) (Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.get(key, true)
	if c == nil {
		return Step{}, ErrUnavailable
	}
	now := m.now()
	if c.value != from || from == Ended {
		var age time.Duration
		if !c.at.IsZero() {
			age = now.Sub(c.at)
		}
		return Step{Value: c.value, Age: age}, nil
	}
	c.value++
	c.at, c.until = now, later(c.until, until)
	return Step{Moved: true, Value: c.value}, nil
}

func (m *Memory) End(_ context.Context, key string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.get(key, true)
	if c == nil {
		return ErrUnavailable
	}
	c.value, c.at, c.until = Ended, m.now(), later(c.until, until)
	return nil
}

func (m *Memory) Get(_ context.Context, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.get(key, false); c != nil {
		return c.value, nil
	}
	return 0, nil
}

func (m *Memory) Hit(_ context.Context, key string, limit int, window time.Duration) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.get(key, true)
	if c == nil {
		return 0, ErrUnavailable
	}
	now := m.now()
	kept := c.hits[:0]
	for _, at := range c.hits {
		if at.Add(window).After(now) {
			kept = append(kept, at)
		}
	}
	c.hits = kept
	if len(c.hits) >= limit {
		return c.hits[len(c.hits)-limit].Add(window).Sub(now), nil
	}
	c.hits = append(c.hits, now)
	c.until = later(c.until, now.Add(window))
	return 0, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Len is the number of keys held.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}
