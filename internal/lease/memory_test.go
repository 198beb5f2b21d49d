package lease

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"
)

// waiters returns how many calls wait for key's turn.
func (m *Memory) waiters(name string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if k := m.keys[name]; k != nil {
		return len(k.waiters)
	}
	return 0
}

// waitFor blocks until n calls wait for key's turn.
func waitFor(m *Memory, name string, n int) {
	for m.waiters(name) != n {
		time.Sleep(time.Millisecond)
	}
}

// Waiters get the turn in the order they came.
func TestMemoryTurnsInOrder(t *testing.T) {
	m := &Memory{}
	ctx := context.Background()
	held, err := m.Lock(ctx, "k", MaxHold)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	order := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l, err := m.Lock(ctx, "k", MaxHold)
			if err != nil {
				t.Errorf("waiter %d: %v", i, err)
				return
			}
			order <- i
			l.Release("", "")
		})
		waitFor(m, "k", i+1)
	}
	held.Release("", "")
	wg.Wait()
	close(order)
	want := 0
	for got := range order {
		if got != want {
			t.Errorf("waiter %d got the turn in place %d", got, want)
		}
		want++
	}
	if len(m.keys) != 0 || m.active != 0 {
		t.Errorf("after every release: %d keys, %d active; want none", len(m.keys), m.active)
	}
}

// A key takes MaxWaiters waiters; the next is busy at once, and the Memory
// holds MaxMemoryKeys keys at once; a Lock of one more is busy at once.
func TestMemoryBounds(t *testing.T) {
	m := &Memory{}
	ctx := context.Background()
	held, _ := m.Lock(ctx, "k", MaxHold)
	waiting, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range MaxWaiters {
		wg.Go(func() { m.Lock(waiting, "k", MaxHold) })
	}
	waitFor(m, "k", MaxWaiters)
	if _, err := m.Lock(ctx, "k", MaxHold); !errors.Is(err, ErrBusy) {
		t.Errorf("one waiter more: %v; want ErrBusy", err)
	}
	cancel()
	wg.Wait()
	held.Release("", "")

	var leases []*Lease
	for i := range MaxMemoryKeys {
		l, err := m.Lock(ctx, "key"+strconv.Itoa(i), MaxHold)
		if err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		leases = append(leases, l)
	}
	if _, err := m.Lock(ctx, "one-more", MaxHold); !errors.Is(err, ErrBusy) {
		t.Errorf("one key more: %v; want ErrBusy", err)
	}
	leases[0].Release("", "")
	if l, err := m.Lock(ctx, "one-more", MaxHold); err != nil {
		t.Errorf("a key once another is free: %v", err)
	} else {
		l.Release("", "")
	}
	for _, l := range leases {
		l.Release("", "")
	}
}

// Notes are handed on for RecentWindow, and the keys noted are bounded.
func TestMemoryNotesAge(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	m := &Memory{now: func() time.Time { return now }}
	ctx := context.Background()
	l, _ := m.Lock(ctx, "k", time.Second)
	l.Release("d", "n")
	now = now.Add(RecentWindow - time.Second)
	l, _ = m.Lock(ctx, "k", time.Second)
	if _, ok := l.Recent("d"); !ok {
		t.Error("a note within the window is not handed on")
	}
	l.Release("", "")
	now = now.Add(time.Second)
	l, _ = m.Lock(ctx, "k", time.Second)
	if _, ok := l.Recent("d"); ok {
		t.Error("a note as old as the window is handed on")
	}
	l.Release("", "")
	if len(m.keys) != 0 {
		t.Errorf("a key with no holder and no note is kept: %d keys", len(m.keys))
	}
	for i := range MaxMemoryNoted + 10 {
		now = now.Add(time.Millisecond)
		l, _ := m.Lock(ctx, "noted"+strconv.Itoa(i), time.Second)
		l.Release("d", "n")
	}
	if len(m.keys) != MaxMemoryNoted {
		t.Errorf("%d keys noted, want at most %d", len(m.keys), MaxMemoryNoted)
	}
	l, _ = m.Lock(ctx, "noted"+strconv.Itoa(MaxMemoryNoted+9), time.Second)
	if _, ok := l.Recent("d"); !ok {
		t.Error("the newest key's note was forgotten")
	}
	l.Release("", "")
}

// Lock refuses what it cannot hold, and a hold past MaxHold is cut to it.
func TestLockArguments(t *testing.T) {
	m := &Memory{}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		key  string
		hold time.Duration
	}{
		{"no key", "", time.Second},
		{"a key too long", string(make([]byte, MaxKeyBytes+1)), time.Second},
		{"no hold", "k", 0},
	} {
		if _, err := m.Lock(ctx, c.key, c.hold); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v; want ErrUnavailable", c.name, err)
		}
	}
	l, err := m.Lock(ctx, "k", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := l.Context().Deadline(); time.Until(d) > MaxHold {
		t.Errorf("a lease asked for an hour ends in %v, past MaxHold", time.Until(d))
	}
	l.Release("", "")
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Lock(done, "k", time.Second); !errors.Is(err, ErrBusy) {
		t.Errorf("Lock with an ended context: %v; want ErrBusy", err)
	}
	if _, err := (Refusing{Err: errors.New("no binding")}).Lock(ctx, "k", time.Second); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Refusing: %v", err)
	}
}
